"""The TensorIR schedule engine (``tvm.tir.Schedule``): every primitive, implemented once."""
from .error import ScheduleError
from .state import BlockRV, LoopRV, ScheduleState
from .schedule import Schedule
from .trace import Trace

__all__ = ["Schedule", "ScheduleError", "ScheduleState", "BlockRV", "LoopRV", "Trace"]
