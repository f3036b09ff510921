"""AutoTVM tuners."""
from .ga_tuner import GATuner
from .index_based import GridSearchTuner, IndexBaseTuner, RandomTuner
from .tuner import Tuner
from .xgboost_tuner import XGBTuner

__all__ = ["Tuner", "IndexBaseTuner", "GridSearchTuner", "RandomTuner", "GATuner", "XGBTuner"]
