"""The TensorIR schedule engine (``tvm.tir.Schedule``): every primitive, implemented once."""
from .error import ScheduleError
from .schedule import Schedule
from .state import BlockRV, LoopRV, ScheduleDebugMask, ScheduleState, StmtSRef
from .trace import ExprRV, Instruction, InstructionKind, Trace

__all__ = ["Schedule", "ScheduleError", "ScheduleState", "StmtSRef", "BlockRV", "LoopRV",
           "ExprRV", "Trace", "Instruction", "InstructionKind", "ScheduleDebugMask"]


from ... import _classic  # noqa: E402

__getattr__ = _classic.fallback(__name__)
_classic.stub_missing_methods(Schedule, "tir.Schedule")
