"""AutoTVM tuners."""
from .tuner import Tuner
from .index_based import GridSearchTuner, IndexBaseTuner, RandomTuner
from .ga_tuner import GATuner
from .xgboost_tuner import XGBTuner

__all__ = ["Tuner", "IndexBaseTuner", "GridSearchTuner", "RandomTuner", "GATuner", "XGBTuner"]
