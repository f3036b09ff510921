"""Classic ``tvm.relay.op.op``: the operator registry's Python face (``get``, ``OpPattern``,
``register_pattern``, ``register_alter_op_layout`` ...).

The ``register_*`` functions of per-op callbacks store the callback as an attribute of the
operator (``Op.get_attr("FTVMAlterOpLayout")``); the passes that read an attribute honour it
or, where tvmlite lacks the machinery, refuse with :class:`UnsupportedError`. Registering new
operators or TOPI implementations from Python is not supported: every tvmlite operator has
its one type relation and TOPI compute in :mod:`tvmlite.relay.op`.
"""
from __future__ import annotations

from typing import Any, Callable, Optional

from ..._classic import unsupported, unsupported_function
from ...error import TVMError
from .registry import Op, OpPattern, get
from .registry import register as _register_op

__all__ = ["get", "OpPattern", "Op", "register", "register_stateful", "register_compute",
           "register_strategy", "register_schedule", "register_injective_schedule",
           "register_broadcast_schedule", "register_reduce_schedule",
           "register_alter_op_layout", "register_convert_op_layout",
           "register_infer_correct_layout", "register_legalize", "register_pattern",
           "register_gradient", "register_shape_func", "register_external_compiler",
           "register_fake_quantization_to_integer", "register_mixed_precision_conversion",
           "OpStrategy", "debug"]


def _register_attr(op_name: str, key: str, value: Optional[Callable], level: int):
    """``value`` as attribute ``key`` of ``op_name``; without ``value``, a decorator."""
    def fset(v):
        get(op_name).set_attr(key, v, level)
        return v
    return fset(value) if value is not None else fset


def refuse_custom_attr(mod, key: str, pass_name: str) -> None:
    """Raise :class:`UnsupportedError` if an operator called in ``mod`` has attribute ``key``
    set from Python: ``pass_name`` would have to call it, and tvmlite's pass does not."""
    from ..expr import Call, Expr, post_order
    for func in mod.functions.values():
        if not isinstance(func, Expr):
            continue
        for n in post_order(func):
            if isinstance(n, Call) and isinstance(n.op, Op) and n.op.has_attr(key):
                raise unsupported(f"{key} of {n.op.name} registered from Python (tvmlite's "
                                  f"{pass_name} has its own fixed rules)")


def register(op_name: str, describe: str = "") -> None:
    """Classic ``register``: a new operator ``op_name``, to be described with ``get(op_name)
    .set_num_inputs``, ``add_type_rel`` ... It type-checks once it has a type relation; tvmlite
    cannot lower it (its operators lower through their TOPI computes)."""
    from .registry import register as _register

    def no_relation(types, attrs):
        raise TVMError(f"{op_name} has no type relation: add one with add_type_rel")
    _register(op_name, -1, no_relation, OpPattern.OPAQUE, description=describe)


# classic's documented support levels (1: basic ... 6: sorting; 10: the rest)
_SUPPORT_LEVELS = {
    1: "log sqrt rsqrt exp sigmoid add subtract multiply divide mod tanh concatenate "
       "expand_dims nn.softmax nn.log_softmax nn.relu nn.dropout nn.batch_norm nn.bias_add",
    2: "nn.conv1d nn.conv2d nn.conv3d nn.conv1d_transpose nn.conv2d_transpose "
       "nn.conv3d_transpose nn.dense nn.matmul nn.batch_matmul nn.max_pool1d nn.max_pool2d "
       "nn.max_pool3d nn.avg_pool1d nn.avg_pool2d nn.avg_pool3d nn.global_max_pool2d "
       "nn.global_avg_pool2d nn.upsampling nn.upsampling3d nn.batch_flatten nn.pad nn.lrn "
       "nn.l2_normalize nn.bitpack nn.bitserial_dense nn.bitserial_conv2d "
       "nn.contrib_conv2d_winograd_without_weight_transform nn.depth_to_space "
       "nn.space_to_depth",
    3: "nn.leaky_relu nn.prelu reshape reshape_like copy transpose squeeze floor ceil sign "
       "trunc clip round abs negative take zeros zeros_like ones ones_like gather gather_nd "
       "full full_like cast reinterpret split arange meshgrid stack repeat tile reverse "
       "reverse_sequence unravel_index sparse_to_dense",
    4: "right_shift left_shift equal not_equal greater greater_equal less less_equal all any "
       "logical_and logical_or logical_not logical_xor maximum minimum power where argmax "
       "argmin sum max min mean variance std prod strided_slice broadcast_to",
    5: "image.resize1d image.resize2d image.resize3d image.crop_and_resize image.dilation2d "
       "vision.multibox_prior vision.multibox_transform_loc vision.non_max_suppression "
       "vision.yolo_reorg",
    6: "argsort topk",
}


def _set_support_levels() -> None:
    from .registry import _OPS
    for level, names in _SUPPORT_LEVELS.items():
        for name in names.split():
            if name in _OPS:
                _OPS[name].support_level = level


def register_stateful(op_name: str, stateful: bool, level: int = 10):
    """Mark ``op_name`` stateful (``TOpIsStateful``)."""
    return get(op_name).set_attr("TOpIsStateful", stateful, level)


def register_pattern(op_name: str, pattern: int, level: int = 10):
    """Set the fusion pattern of ``op_name`` (``TOpPattern``)."""
    return get(op_name).set_attr("TOpPattern", pattern, level)


def _no_impl(what: str):
    return unsupported_function("tvmlite.relay.op", what,
                                "tvmlite lowers each operator through its one TOPI compute")


register_compute = _no_impl("register_compute")
register_strategy = _no_impl("register_strategy")
register_schedule = _no_impl("register_schedule")
register_injective_schedule = _no_impl("register_injective_schedule")
register_broadcast_schedule = _no_impl("register_broadcast_schedule")
register_reduce_schedule = _no_impl("register_reduce_schedule")


def register_alter_op_layout(op_name: str, alter_layout: Optional[Callable] = None,
                             level: int = 10):
    """Set ``FTVMAlterOpLayout`` of ``op_name`` (a decorator without ``alter_layout``)."""
    return _register_attr(op_name, "FTVMAlterOpLayout", alter_layout, level)


def register_convert_op_layout(op_name: str, convert_layout: Optional[Callable] = None,
                               level: int = 10):
    """Set ``FTVMConvertOpLayout`` of ``op_name``."""
    return _register_attr(op_name, "FTVMConvertOpLayout", convert_layout, level)


def register_infer_correct_layout(op_name: str, infer_layout: Optional[Callable] = None,
                                  level: int = 10):
    """Set ``FInferCorrectLayout`` of ``op_name``."""
    return _register_attr(op_name, "FInferCorrectLayout", infer_layout, level)


def register_legalize(op_name: str, legal_op: Optional[Callable] = None, level: int = 10):
    """Set ``FTVMLegalize`` of ``op_name``."""
    return _register_attr(op_name, "FTVMLegalize", legal_op, level)


def register_gradient(op_name: str, fgradient: Optional[Callable] = None, level: int = 10):
    """Set ``FPrimalGradient`` of ``op_name``: ``f(call, out_grad) -> [grad per argument]``,
    what ``relay.transform.gradient`` differentiates the op with."""
    return _register_attr(op_name, "FPrimalGradient", fgradient, level)


def register_shape_func(op_name: str, data_dependent: bool,
                        shape_func: Optional[Callable] = None, level: int = 10):
    """Set ``FShapeFunc`` of ``op_name`` (tvmlite has static shapes only)."""
    get(op_name).set_attr("TShapeDataDependent", data_dependent, level)
    return _register_attr(op_name, "FShapeFunc", shape_func, level)


def register_external_compiler(op_name: str, fexternal: Optional[Callable] = None,
                               level: int = 10):
    """Set ``FTVMExternalCompiler`` of ``op_name``."""
    return _register_attr(op_name, "FTVMExternalCompiler", fexternal, level)


def register_fake_quantization_to_integer(op_name: str, func: Optional[Callable] = None,
                                          level: int = 10):
    """Set ``FTVMFakeQuantizationToInteger`` of ``op_name``."""
    return _register_attr(op_name, "FTVMFakeQuantizationToInteger", func, level)


def register_mixed_precision_conversion(op_name: str, func: Optional[Callable] = None,
                                        level: int = 10):
    """Set ``FTVMMixedPrecisionConversionType`` of ``op_name``."""
    return _register_attr(op_name, "FTVMMixedPrecisionConversionType", func, level)


class OpStrategy:
    """Classic ``OpStrategy`` (implementations of an op): not supported by tvmlite."""

    def __init__(self):
        raise unsupported("tvm.relay.op.OpStrategy (tvmlite lowers each operator through "
                          "its one TOPI compute)")


def _debug_rel(types, attrs):
    return types[0]


_register_op(
    "debug", 1, _debug_rel, OpPattern.OPAQUE, {"debug_func": ""},
    "The value of its argument; the relay VM (create_executor \"debug\"/\"vm\") calls the "
    "global function named by attribute debug_func with it when it is evaluated.")
_DEBUG_COUNTER = [0]


def debug(expr: Any, debug_func: Optional[Callable] = None):
    """Classic ``relay.op.debug``: ``expr``, calling ``debug_func(value)`` when the VM
    evaluates it (``debug_func`` is registered as global function ``debugger_func<N>``, the
    call's ``debug_func`` attribute; compiled by ``relay.build`` it is the identity).

    Parameters
    ----------
    expr : relay.Expr
        The value to observe.
    debug_func : callable, optional
        Called with the value (an NDArray, or an ADT for a tuple).

    Returns
    -------
    relay.Expr
    """
    from ...runtime.packed_func import register_func
    from .registry import make_call
    name = ""
    if debug_func is not None:
        if not callable(debug_func):
            raise TVMError(f"relay.op.debug: debug_func must be callable, got "
                           f"{type(debug_func).__name__}")
        name = f"debugger_func{_DEBUG_COUNTER[0]}"
        register_func(name, debug_func, override=True)
        _DEBUG_COUNTER[0] += 1
    return make_call("debug", [expr], debug_func=name)
