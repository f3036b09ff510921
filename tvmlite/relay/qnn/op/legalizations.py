"""Target-dependent legalization of QNN operators (``FTVMQnnLegalize``, classic's rules):

* x86 ("cpu" targets): with fast int8 instructions (an ``-mcpu`` with SSE4.2 or newer), a
  qnn.conv2d / qnn.dense gets uint8 data and int8 weights (``q + 128`` with its zero point
  ``+ 128``, or ``- 128``); without, it becomes nn.conv2d / nn.dense of the inputs minus their
  zero points in int16;
* arm_cpu: without dot-product instructions (and, for conv2d, unless NHWC non-depthwise) the
  same lowering; else both inputs get one dtype;
* cuda: both inputs int8;
* qnn.conv2d_transpose: always the lowering to nn.conv2d_transpose;
* the unary ops of 8-bit tensors: a lookup table of all 256 inputs (``take``).
"""
from __future__ import annotations

import math
from typing import Callable, Optional

import numpy as np

from ....target import Target
from ....target.x86 import target_has_sse42
from ...expr import Expr, const
from ...op import tensor as _t
from ...op import transform as _tr
from ...op.registry import get, make_call
from . import canonicalizations as _c
from . import qnn as _q

LEGALIZE = "FTVMQnnLegalize"

def is_fast_int8_on_intel(target: Target) -> bool:
    """Whether ``target``'s -mcpu has SSE4.2 or newer (classic ``is_fast_int8_on_intel``)."""
    return target_has_sse42(target.mcpu)


def _arm_features(target: Target):
    mattr = [str(a) for a in target.mattr]
    triple = str(target.attrs.get("mtriple", ""))
    asimd = "+neon" in mattr or triple.startswith("aarch64") or triple.startswith("arm64")
    return asimd, "+dotprod" in mattr


def _shift(data: Expr, zero_point: Expr, out_dtype: str):
    """``data`` and ``zero_point`` moved by 128 into ``out_dtype`` (uint8 up, int8 down)."""
    delta = 128 if out_dtype == "uint8" else -128
    data = _t.cast(_t.add(_t.cast(data, "int32"), const(delta, "int32")), out_dtype)
    return data, _t.add(zero_point, const(delta, "int32"))


def _change_dtypes(attrs, inputs, types, make, data_dtype: str, kernel_dtype: str):
    data, kernel, izp, kzp, iscale, kscale = inputs
    if types[0].dtype == data_dtype and types[1].dtype == kernel_dtype:
        return None
    if types[0].dtype != data_dtype and types[0].dtype in ("int8", "uint8"):
        data, izp = _shift(data, izp, data_dtype)
    if types[1].dtype != kernel_dtype and types[1].dtype in ("int8", "uint8"):
        kernel, kzp = _shift(kernel, kzp, kernel_dtype)
    return make_call(make, [data, kernel, izp, kzp, iscale, kscale], **dict(attrs.items()))


def _same_dtypes(attrs, inputs, types, make):
    """Both inputs in the data's dtype (classic ``helper_change_dtypes_to_be_same``)."""
    if types[0].dtype == types[1].dtype:
        return None
    want = types[0].dtype
    return _change_dtypes(attrs, inputs, types, make, want, want)


def _weighted_legalize(name: str):
    qname = f"qnn.{name}"
    lower = _c.RULES[qname]  # the canonicalization: core op of zero-point-shifted inputs

    def legalize(attrs, inputs, types) -> Optional[Expr]:
        target = Target.current(allow_none=True)
        if target is None:
            return None
        keys = tuple(target.keys)
        if "arm_cpu" in keys:
            asimd, dotprod = _arm_features(target)
            other = dotprod
            if name == "conv2d":
                depthwise = int(attrs.groups) > 1 and int(attrs.groups) == int(
                    types[0].shape[(attrs.data_layout or "NCHW").index("C")])
                other = other or (not depthwise and attrs.data_layout == "NHWC")
            if asimd and not other:
                return lower(attrs, inputs, types)
            return _same_dtypes(attrs, inputs, types, qname)
        if "cuda" in keys or "gpu" in keys:
            if target.kind.name == "cuda":
                return _change_dtypes(attrs, inputs, types, qname, "int8", "int8")
            return None
        if "cpu" in keys:
            if is_fast_int8_on_intel(target):
                return _change_dtypes(attrs, inputs, types, qname, "uint8", "int8")
            return lower(attrs, inputs, types)
        return None
    return legalize


for _name in ("conv2d", "dense"):
    get(f"qnn.{_name}").set_attr(LEGALIZE, _weighted_legalize(_name))
get("qnn.conv2d_transpose").set_attr(LEGALIZE, _c.RULES["qnn.conv2d_transpose"])

__all__ = ["LEGALIZE", "is_fast_int8_on_intel", "create_integer_lookup_table",
           "create_integer_lookup_op", "hardswish_func", "register_qnn_unary_op_legalize"]


# ------------------------------------------------------------------ unary ops by table lookup
def create_integer_lookup_table(floating_point_func: Callable[[np.ndarray], np.ndarray],
                                input_scale: Expr, input_zero_point: Expr,
                                output_scale: Expr, output_zero_point: Expr,
                                in_axis: int = -1, out_axis: int = -1,
                                in_dtype: str = "uint8", out_dtype: str = "uint8") -> np.ndarray:
    """The quantized result of ``floating_point_func`` for every bit pattern of
    ``in_dtype`` (indexed by the pattern read as unsigned): dequantized and quantized by the
    QNN ops themselves (folded at compile time)."""
    if not np.issubdtype(np.dtype(in_dtype), np.integer) or \
            not np.issubdtype(np.dtype(out_dtype), np.integer):
        raise ValueError(f"Only integer dtypes allowed got {in_dtype} and {out_dtype} for in "
                         "and out dtypes.")
    bits = np.iinfo(in_dtype).bits
    patterns = np.arange(0, 2 ** bits, dtype=f"uint{bits}").view(in_dtype)
    deq = _c.const_value("qnn lookup table", "input", _q.dequantize(
        const(patterns), input_scale, input_zero_point, in_axis))
    with np.errstate(all="ignore"):
        values = np.asarray(floating_point_func(deq), dtype="float32")
    return _c.const_value("qnn lookup table", "output", _q.quantize(
        const(values), output_scale, output_zero_point, out_axis, out_dtype))


def create_integer_lookup_op(input_arg: Expr, floating_point_func, in_scale: Expr,
                             in_zero_point: Expr, out_scale: Expr, out_zero_point: Expr,
                             in_axis: int = -1, out_axis: int = -1, in_dtype: str = "uint8",
                             out_dtype: str = "uint8") -> Expr:
    """``input_arg`` mapped through :func:`create_integer_lookup_table` (a ``take`` of the
    table at the input's bits read as unsigned)."""
    table = create_integer_lookup_table(floating_point_func, in_scale, in_zero_point,
                                        out_scale, out_zero_point, in_axis, out_axis,
                                        in_dtype, out_dtype)
    bits = np.iinfo(in_dtype).bits
    index = _tr.reinterpret(input_arg, f"uint{bits}")
    return _tr.take(const(table), index, axis=0, mode="fast")


def hardswish_func(x: np.ndarray) -> np.ndarray:
    """``x * clip(x + 3, 0, 6) / 6``."""
    return x * np.clip(x + 3.0, 0.0, 6.0) / 6.0


def _erf(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf, otypes=["float64"])(x)


#: the float function of each unary QNN op's lookup table
UNARY_FUNCS = {
    "sqrt": np.sqrt, "rsqrt": lambda a: 1 / np.sqrt(a), "exp": np.exp, "erf": _erf,
    "sigmoid": lambda a: 1 / (1 + np.exp(-a)), "hardswish": hardswish_func, "tanh": np.tanh,
    "log": np.log, "abs": np.abs,
}


def register_qnn_unary_op_legalize(op_name: str, floating_point_func) -> None:
    """Legalize unary ``op_name`` of 8-bit tensors (scalar parameters) by table lookup."""
    def legalize(attrs, inputs, types) -> Optional[Expr]:
        dtype = types[0].dtype
        if dtype not in ("int8", "uint8") or any(
                _c.const_or_none(p) is None or _c.const_or_none(p).size != 1
                for p in inputs[1:]):
            return None
        return create_integer_lookup_op(inputs[0], floating_point_func, *inputs[1:5],
                                        in_dtype=dtype, out_dtype=dtype)
    get(op_name).set_attr(LEGALIZE, legalize)


for _name, _fn in UNARY_FUNCS.items():
    register_qnn_unary_op_legalize(f"qnn.{_name}", _fn)
