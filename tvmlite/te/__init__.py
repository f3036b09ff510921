"""Tensor expressions (``tvm.te``): placeholders, computes, reducers and schedules.

TE is a front end: ``te.compute`` builds operation objects and ``te.create_prim_func`` turns
them into a TensorIR ``PrimFunc``; schedules act on that function.
"""
from .._classic import fallback as _fallback  # noqa: E402
from .._classic import stub_missing_methods as _stub_missing_methods
from ..tir.expr import IterVar, Reduce, Var  # noqa: F401
from ..tir.index_map import AXIS_SEPARATOR  # noqa: F401
from ..tir.op import (  # noqa: F401  (the expression helpers classic te offers)
    abs,
    acos,
    acosh,
    all,
    any,
    asin,
    asinh,
    atan,
    atanh,
    call_extern,
    call_intrin,
    call_packed,
    call_pure_extern,
    cast,  # noqa: F401
    ceil,
    comm_reducer,
    const,
    cos,
    cosh,
    div,
    erf,
    exp,
    exp2,
    exp10,
    fabs,
    floor,
    floordiv,
    floormod,
    fmod,
    if_then_else,
    indexdiv,
    indexmod,
    isfinite,
    isinf,
    isnan,
    likely,
    log,
    log1p,
    log2,
    log10,
    max,
    max_value,
    min,
    min_value,
    nearbyint,
    popcount,
    pow,
    power,
    reinterpret,
    round,
    rsqrt,
    shift_left,
    shift_right,
    sigmoid,
    sin,
    sinh,
    sqrt,
    sum,
    tan,
    tanh,
    trunc,
    truncdiv,
    truncmod,
)
from . import hybrid, tensor  # noqa: F401
from .autodiff import gradient  # noqa: F401
from .create_prim_func import create_prim_func  # noqa: F401
from .operation import (  # noqa: F401
    TagScope,
    compute,
    extern,
    extern_primfunc,
    placeholder,
    reduce_axis,
    scan,
    size_var,
    tag_scope,
    thread_axis,
    var,
)
from .schedule import *  # noqa: F401,F403
from .schedule import Schedule, Stage, create_schedule  # noqa: F401
from .tensor import (  # noqa: F401
    BaseComputeOp,
    ComputeOp,
    ExternOp,
    HybridOp,
    Operation,
    PlaceholderOp,
    ScanOp,
    Tensor,
    TensorSlice,
)
from .tensor_intrin import TensorIntrin, decl_tensor_intrin  # noqa: F401

__getattr__ = _fallback(__name__)
_stub_missing_methods(Stage, "te.Stage")
