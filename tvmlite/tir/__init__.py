"""TensorIR: expressions, statements, buffers and functions (``tvm.tir``)."""
from .expr import (
    EQ, GE, GT, LE, LT, NE, Add, And, Broadcast, BufferLoad, Call, Cast, CommReducer, Div,
    FloatImm, FloorDiv, FloorMod, IntImm, IterVar, Let, Max, Min, Mod, Mul, Not, Or, PrimExpr,
    ProducerLoad, Ramp, Range, Reduce, Select, SizeVar, StringImm, Sub, Var,
)
from .buffer import Buffer, decl_buffer
from .stmt import (
    Allocate, AssertStmt, AttrStmt, Block, BlockRealize, BufferRegion, BufferStore, Evaluate,
    For, ForKind, IfThenElse, LetStmt, MatchBufferRegion, SeqStmt, Stmt, While,
)
from .function import PrimFunc
from .op import (
    abs, acos, all, any, asin, atan, bitwise_and, bitwise_not, bitwise_or, bitwise_xor,
    call_extern, call_intrin, call_packed, call_pure_extern, cast, ceil, comm_reducer, const,
    cos, cosh, div, erf, exp, exp2, exp10, fabs, floor, floordiv, floormod, fmod, if_then_else,
    indexdiv, indexmod, isnan, likely, log, log1p, log2, log10, max_value, min_value,
    nearbyint, popcount, pow, power, reinterpret, round, rsqrt, shift_left, shift_right,
    sigmoid, sin, sinh, sqrt, tan, tanh, trunc, truncdiv, truncmod,
)
from .op import max, min, sum  # reducers; with two operands they combine elementwise
from .functor import post_order_visit, substitute
from . import op
from .schedule import BlockRV, LoopRV, Schedule, ScheduleError
from .tensor_intrin import TensorIntrin
from . import transform, schedule, ir_builder, stmt_functor

__all__ = [n for n in dir() if not n.startswith("_")]
