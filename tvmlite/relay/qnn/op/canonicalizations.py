"""The lowering of each QNN operator into core relay operators (``FTVMQnnCanonicalize``),
with classic's integer semantics:

* requantize: ``Q_out = zp_out + M * (Q_in - zp_in)`` with ``M = s_in / s_out`` as a Q31
  fixed-point multiplier and shift (``frexp``; a significand that rounds up to 2**31 is halved
  and the exponent raised), the product in int64 with rounding "UPWARD" (add 2**(n-1) before
  the arithmetic right shift by n) or "TONEAREST" (add 2**(n-1) - 1 instead for negative
  products, so ties round away from zero), then saturated to ``out_dtype`` (compute_dtype
  "float32" / "float64": the same steps in floating point, rounded at the end);
* quantize: ``clip(round(x / s) + zp)`` then cast, with relay's ``round`` (ties to even, as
  onnxruntime and numpy; classic's LLVM ``round`` takes ties away from zero); dequantize:
  ``s * float(q - zp)``;
* add / subtract: both operands requantized to the output's scale and zero point in int32,
  added, the output zero point taken off once, saturated; mul: ``(a - zp_a) * (b - zp_b)``
  requantized from ``s_a * s_b``;
* conv2d / conv2d_transpose / dense / batch_matmul: the inputs minus their zero points (in
  int32; classic's x86 lowering without fast int8 instructions uses int16) through the core
  op with ``out_dtype``, padding then standing for the real value 0;
* the unary ops: dequantize, the float op, quantize to the input's dtype.

Scales (and the zero points the fixed-point paths need) must be constants.
"""
from __future__ import annotations

import math
from typing import Optional, Sequence, Tuple

import numpy as np

from ....error import TVMError
from ...expr import Constant, Expr, Function, TupleGetItem, const
from ...expr import Tuple as RTuple
from ...op import nn as _nn
from ...op import tensor as _t
from ...op import transform as _tr
from ...op.registry import get, make_call
from ...transform.pattern_utils import expand_bias_to_match_axis
from ...ty import TensorType
from . import qnn as _q

CANONICALIZE = "FTVMQnnCanonicalize"


# ------------------------------------------------------------------------------------ helpers
def const_value(op: str, what: str, expr: Expr) -> np.ndarray:
    """The value of ``expr``, which must be constant (a Constant, or an expression of
    constants that folds to one)."""
    if isinstance(expr, Constant):
        return expr.data.numpy()
    from ...analysis import free_vars
    from ...transform.fold_constant import fold_function
    from ...transform.infer_type import infer_type
    if not free_vars(expr):
        body = fold_function(infer_type(Function([], expr)), fold_qnn=True).body
        if isinstance(body, Constant):
            return body.data.numpy()
    raise TVMError(f"{op}: {what} must be a constant (it is lowered to fixed-point "
                   f"arithmetic at compile time), got {type(expr).__name__}")


def const_or_none(expr: Expr) -> Optional[np.ndarray]:
    return expr.data.numpy() if isinstance(expr, Constant) else None


def is_equal_scalar(a: Expr, b: Expr) -> bool:
    """Classic ``IsEqualScalar``: both constants of one element, of equal value."""
    x, y = const_or_none(a), const_or_none(b)
    return x is not None and y is not None and x.size == 1 and y.size == 1 \
        and float(x.reshape(())) == float(y.reshape(()))


def is_zero(expr: Expr) -> bool:
    x = const_or_none(expr)
    return x is not None and x.size == 1 and float(x.reshape(())) == 0.0


def scalar(expr: Expr) -> Expr:
    """A one-element value as a 0-d one (a constant folded here)."""
    if isinstance(expr, Constant):
        arr = expr.data.numpy()
        return expr if arr.ndim == 0 else const(arr.reshape(()))
    return _t.reshape(expr, [])


def cast(expr: Expr, dtype: str) -> Expr:
    """``expr`` cast to ``dtype`` (a constant converted here)."""
    if isinstance(expr, Constant):
        arr = expr.data.numpy()
        return expr if str(arr.dtype) == dtype else const(arr.astype(dtype), dtype)
    return _t.cast(expr, dtype)


def _size(t: TensorType) -> int:
    n = 1
    for d in t.shape:
        n *= int(d)
    return n


def per_axis(param: Expr, ptype: TensorType, ndim: int, axis: int) -> Expr:
    """A scale or zero point ready to broadcast against an ``ndim``-D tensor: a scalar as
    one, a 1-D per-channel value expanded along ``axis``."""
    if _size(ptype) == 1:
        return param if len(ptype.shape) == 0 else scalar(param)
    return expand_bias_to_match_axis(param, ndim, [axis])


def _norm_axis(axis: int, ndim: int) -> int:
    """The channel axis (classic: 0 below rank 2)."""
    if ndim <= 1:
        return 0
    return axis + ndim if axis < 0 else axis


def round_half_away(x: Expr, dtype: str = "float32") -> Expr:
    """Round to the nearest integer, ties away from zero (classic's float "TONEAREST"
    requantize): exact, from ``x - trunc(x)``."""
    t = _t.trunc(x)
    frac = _t.abs(_t.subtract(x, t))
    half = const(np.array(0.5, dtype=dtype), dtype)
    return _t.where(_t.greater_equal(frac, half), _t.add(t, _t.sign(x)), t)


def qrange(dtype: str) -> Tuple[int, int]:
    """Classic ``GetQmin`` / ``GetQmax`` of an integer dtype of at most 32 bits."""
    info = np.iinfo(np.dtype(dtype))
    if info.bits > 32:
        raise TVMError(f"qnn: QNN ops support int32 or lower precision, got {dtype}")
    return int(info.min), int(info.max)


def convert_dtype(expr: Expr, dtype: str) -> Expr:
    """Saturate ``expr`` to ``dtype``'s range and cast (classic ``ConvertDtype``)."""
    lo, hi = qrange(dtype)
    return _t.cast(_t.clip(expr, lo, hi), dtype)


def fixed_point_multiplier_shift(x: float) -> Tuple[int, int]:
    """Classic ``GetFixedPointMultiplierShift``: ``x = m * 2**(shift - 31)`` with ``m`` a
    Q31 significand in [2**30, 2**31)."""
    if x == 0.0:
        return 0, 0
    significand, exponent = math.frexp(x)
    q = math.floor(abs(significand) * (1 << 31) + 0.5) * (1 if significand > 0 else -1)
    if q == (1 << 31):
        q //= 2
        exponent += 1
    if abs(q) > (1 << 31) - 1:
        raise TVMError(f"qnn: multiplier {x} does not fit a Q31 fixed-point value")
    return int(q), int(exponent)


def _i64(values, ndim: int, axis: int) -> Expr:
    arr = np.asarray(values, dtype="int64")
    if arr.size == 1:
        return const(int(arr.reshape(-1)[0]), "int64")
    return expand_bias_to_match_axis(const(arr, "int64"), ndim, [axis])


def fixed_point_multiply(tensor: Expr, multipliers: Sequence[float], ndim: int, axis: int,
                         rounding: str) -> Expr:
    """``round(tensor * multiplier)`` of int32 ``tensor`` in Q31 fixed point (one multiplier,
    or one per channel along ``axis``), an int32 result."""
    pairs = [fixed_point_multiplier_shift(float(m)) for m in multipliers]
    if len(pairs) == 1 and rounding == "UPWARD":
        return _tr.fixed_point_multiply(tensor, pairs[0][0], pairs[0][1])
    lshift = [max(s, 0) for _, s in pairs]
    rshift = [max(-s, 0) + 31 for _, s in pairs]
    t = _t.cast(tensor, "int64")
    if any(lshift):
        t = _t.left_shift(t, _i64(lshift, ndim, axis))
    t = _t.multiply(t, _i64([m for m, _ in pairs], ndim, axis))
    pos = _i64([1 << (r - 1) for r in rshift], ndim, axis)
    if rounding == "UPWARD":
        rnd = pos
    else:
        neg = _i64([(1 << (r - 1)) - 1 for r in rshift], ndim, axis)
        rnd = _t.where(_t.greater_equal(t, const(0, "int64")), pos, neg)
    t = _t.right_shift(_t.add(t, rnd), _i64(rshift, ndim, axis))
    return _t.cast(t, "int32")


def requantize_lower(data: Expr, dtype_in: str, shape: Sequence[int], input_scale: Expr,
                     input_zero_point: Expr, output_scale: Expr, output_zero_point: Expr,
                     axis: int = -1, rounding: str = "None", compute_dtype: str = "None",
                     out_dtype: str = "int8") -> Expr:
    """Classic ``Requantize`` lowering (see the module docstring)."""
    op = "qnn.requantize"
    cfg = _q.current_requantize_config()
    rounding = cfg.rounding if rounding == "None" else rounding
    compute_dtype = cfg.compute_dtype if compute_dtype == "None" else compute_dtype
    if rounding not in ("UPWARD", "TONEAREST"):
        raise TVMError(f"{op}: rounding must be 'UPWARD' or 'TONEAREST', got {rounding!r}")
    if compute_dtype not in ("int64", "float32", "float64"):
        raise TVMError(f"{op}: compute_dtype must be 'int64', 'float32' or 'float64', got "
                       f"{compute_dtype!r}")
    ndim = len(shape)
    axis = _norm_axis(axis, ndim)
    out_s = const_value(op, "output_scale", output_scale).astype("float32").reshape(-1)
    if out_s.size != 1:
        raise TVMError(f"{op}: output_scale must be a scalar, got {out_s.size} values")
    out_s = float(out_s[0])
    if out_s == 0.0:
        raise TVMError(f"{op}: output_scale can not be equal to 0.0")
    in_s = const_value(op, "input_scale", input_scale).astype("float32").reshape(-1)
    multipliers = [float(s) / out_s for s in in_s]
    unit = in_s.size == 1 and float(in_s[0]) == out_s
    cdt = "int32" if compute_dtype == "int64" else compute_dtype
    t = _t.cast(data, cdt) if dtype_in != cdt else data
    if not is_zero(input_zero_point):
        zp = input_zero_point
        if isinstance(zp, Constant) and zp.data.numpy().size == 1:
            zp = scalar(zp)
        else:
            zp = _t.reshape(zp, [-1])
            zp = expand_bias_to_match_axis(zp, ndim, [axis]) if ndim else _t.reshape(zp, [])
        t = _t.subtract(t, cast(zp, cdt))
    if compute_dtype == "int64":
        if not unit:
            t = fixed_point_multiply(t, multipliers, ndim, axis, rounding)
        if not is_zero(output_zero_point):
            t = _t.add(cast(scalar(output_zero_point), "int32"), t)
    else:
        if not unit:
            if len(multipliers) == 1:
                m = const(np.array(multipliers[0], dtype=cdt), cdt)
            else:
                m = expand_bias_to_match_axis(const(np.array(multipliers, dtype=cdt), cdt), ndim,
                                              [axis])
            t = _t.multiply(t, m)
        if not is_zero(output_zero_point):
            t = _t.add(t, cast(scalar(output_zero_point), cdt))
        if rounding == "UPWARD":
            t = _t.floor(_t.add(t, const(np.array(0.5, dtype=cdt), cdt)))
        else:
            t = round_half_away(t, cdt)
        t = _t.cast(t, "int32")
    if out_dtype == "int32":
        return t
    return convert_dtype(t, out_dtype)


def requantize_or_upcast(expr: Expr, dtype_in: str, shape, scale: Expr, zero_point: Expr,
                         target_scale: Expr, target_zero_point: Expr, axis: int = -1,
                         target_dtype: str = "int32") -> Expr:
    """Classic ``RequantizeOrUpcast``: requantize unless the parameters already match."""
    if not is_equal_scalar(scale, target_scale) or \
            not is_equal_scalar(zero_point, target_zero_point):
        return requantize_lower(expr, dtype_in, shape, scale, zero_point, target_scale,
                                target_zero_point, axis, out_dtype=target_dtype)
    return cast(expr, target_dtype)


# -------------------------------------------------------------------------- canonicalizations
def canonicalize_quantize(attrs, args, types) -> Expr:
    data, scale, zp = args
    ndim = len(types[0].shape)
    axis = _norm_axis(attrs.axis, ndim)
    lo, hi = qrange(attrs.out_dtype)
    s = per_axis(scale, types[1], ndim, axis)
    z = cast(per_axis(zp, types[2], ndim, axis), "float32")
    q = _t.add(_t.round(_t.divide(data, s)), z)
    return _t.cast(_t.clip(q, lo, hi), attrs.out_dtype)


def canonicalize_dequantize(attrs, args, types) -> Expr:
    data, scale, zp = args
    ndim = len(types[0].shape)
    axis = _norm_axis(attrs.axis, ndim)
    shifted = _t.cast(data, "int32")
    if not is_zero(zp):
        shifted = _t.subtract(shifted, per_axis(zp, types[2], ndim, axis))
    return _t.multiply(_t.cast(shifted, "float32"), per_axis(scale, types[1], ndim, axis))


def canonicalize_requantize(attrs, args, types) -> Expr:
    return requantize_lower(args[0], types[0].dtype, types[0].shape, *args[1:], attrs.axis,
                            attrs.rounding, attrs.compute_dtype, types[-1].dtype)


def _add_sub(name: str):
    def canon(attrs, args, types) -> Expr:
        lhs, rhs, ls, lz, rs, rz, os_, oz = args
        dtype = types[0].dtype
        a = requantize_or_upcast(lhs, dtype, types[0].shape, ls, lz, os_, oz, attrs.lhs_axis)
        b = requantize_or_upcast(rhs, dtype, types[1].shape, rs, rz, os_, oz, attrs.rhs_axis)
        if name == "add":
            out = _t.add(a, b)
            if not is_zero(oz):
                out = _t.subtract(out, scalar(oz))
        else:
            out = _t.subtract(a, b)
            if not is_zero(oz):
                out = _t.add(out, scalar(oz))
        return convert_dtype(out, dtype)
    return canon


def _shift_zp(x: Expr, xtype: TensorType, zp: Expr, zptype: TensorType, axis: int,
              dtype: str = "int32") -> Expr:
    x = cast(x, dtype)
    if is_zero(zp):
        return x
    ndim = len(xtype.shape)
    return _t.subtract(x, cast(per_axis(zp, zptype, ndim, _norm_axis(axis, ndim)), dtype))


def canonicalize_mul(attrs, args, types) -> Expr:
    op = "qnn.mul"
    lhs, rhs, ls, lz, rs, rz, os_, oz = args
    dtype = types[0].dtype
    ls_v = const_value(op, "lhs_scale", ls).astype("float32").reshape(-1)
    rs_v = const_value(op, "rhs_scale", rs).astype("float32").reshape(-1)
    out_shape = types[-1].shape
    if ls_v.size == 1 and rs_v.size == 1:
        a = _shift_zp(lhs, types[0], lz, types[3], attrs.lhs_axis)
        b = _shift_zp(rhs, types[1], rz, types[5], attrs.rhs_axis)
        scale = np.float32(ls_v[0] * rs_v[0])
        return requantize_lower(_t.multiply(a, b), "int32", out_shape, const(scale),
                                const(0, "int32"), os_, oz, out_dtype=dtype)
    if _norm_axis(attrs.lhs_axis, len(types[0].shape)) != \
            _norm_axis(attrs.rhs_axis, len(types[1].shape)) or \
            len(types[0].shape) != len(types[1].shape):
        raise TVMError(f"{op}: per-channel scales need lhs_axis and rhs_axis to be the same "
                       f"(got {attrs.lhs_axis} and {attrs.rhs_axis})")
    n = max(ls_v.size, rs_v.size)
    if ls_v.size not in (1, n) or rs_v.size not in (1, n):
        raise TVMError(f"{op}: lhs and rhs have {ls_v.size} and {rs_v.size} scales")
    scales = (np.broadcast_to(ls_v, (n,)).astype("float64")
              * np.broadcast_to(rs_v, (n,)).astype("float64")).astype("float32")
    a = _shift_zp(lhs, types[0], lz, types[3], attrs.lhs_axis)
    b = _shift_zp(rhs, types[1], rz, types[5], attrs.rhs_axis)
    return requantize_lower(_t.multiply(a, b), "int32", out_shape, const(scales),
                            const(0, "int32"), os_, oz, attrs.lhs_axis, out_dtype=dtype)


def canonicalize_concatenate(attrs, args, types) -> Expr:
    data, scales, zps, os_, oz = args
    fields = types[0].fields
    if isinstance(data, RTuple):
        items = list(data.fields)
    else:
        items = [TupleGetItem(data, i) for i in range(len(fields))]
    if not isinstance(scales, RTuple) or not isinstance(zps, RTuple):
        raise TVMError("qnn.concatenate: input_scales and input_zero_points must be tuple "
                       "literals")
    out = []
    for i, (x, s, z) in enumerate(zip(items, scales.fields, zps.fields)):
        if not is_equal_scalar(s, os_) or not is_equal_scalar(z, oz):
            x = requantize_lower(x, fields[i].dtype, fields[i].shape, s, z, os_, oz,
                                 out_dtype=fields[i].dtype)
        out.append(x)
    return _t.concatenate(out, attrs.axis)


def _operand_dtype(types) -> str:
    """The dtype of zero-point-shifted conv / matmul operands: int32 (the accumulator's, so
    the core op's inner loop multiplies without widening: faster here than classic's int16)."""
    return "int32"


def _kernel_shift(kernel: Expr, ktype: TensorType, zp: Expr, zptype: TensorType,
                  out_axis: int, dtype: str) -> Expr:
    k = cast(kernel, dtype)
    if is_zero(zp):
        return k
    if _size(zptype) == 1:
        z = scalar(zp)
    else:
        shape = [1] * len(ktype.shape)
        shape[out_axis] = -1
        z = _t.reshape(zp, shape)
    return _t.subtract(k, cast(z, dtype))


def _data_shift(data: Expr, zp: Expr, dtype: str) -> Expr:
    x = cast(data, dtype)
    return x if is_zero(zp) else _t.subtract(x, cast(scalar(zp), dtype))


def _conv(name: str, core: str):
    def canon(attrs, args, types) -> Expr:
        data, kernel, izp, kzp = args[:4]
        dt = _operand_dtype(types)
        x = _data_shift(data, izp, dt)
        w = _kernel_shift(kernel, types[1], kzp, types[3], _q.kernel_out_axis(name, attrs),
                          dt)
        return make_call(core, [x, w], **dict(attrs.items()))
    return canon


def canonicalize_dense(attrs, args, types) -> Expr:
    data, weight, izp, kzp = args[:4]
    dt = _operand_dtype(types)
    return _nn.dense(_data_shift(data, izp, dt),
                     _kernel_shift(weight, types[1], kzp, types[3], 0, dt),
                     attrs.units, attrs.out_dtype)


def canonicalize_batch_matmul(attrs, args, types) -> Expr:
    x, y, xzp, yzp = args[:4]
    dt = _operand_dtype(types)
    if _size(types[3]) != 1 or _size(types[2]) != 1:
        raise TVMError("qnn.batch_matmul: zero points must be scalars")
    return make_call("nn.batch_matmul", [_data_shift(x, xzp, dt), _data_shift(y, yzp, dt)],
                     **dict(attrs.items()))


def canonicalize_leaky_relu(attrs, args, types) -> Expr:
    x, s, z, os_, oz = args
    dtype = types[0].dtype
    data = cast(x, "int32")
    requant = requantize_or_upcast(data, "int32", types[0].shape, s, z, os_, oz)
    alpha = float(attrs.alpha)
    m, sh = fixed_point_multiplier_shift(alpha)
    prod = _tr.fixed_point_multiply(requant, m, sh)
    mz, shz = fixed_point_multiplier_shift(1.0 - alpha)
    scaled_z = _tr.fixed_point_multiply(cast(scalar(oz), "int32"), mz, shz)
    out = _t.where(_t.less(data, cast(scalar(z), "int32")),
                   _t.add(prod, scaled_z), requant)
    return convert_dtype(out, dtype)


def _hardswish(x: Expr) -> Expr:
    three, six = const(np.float32(3.0)), const(np.float32(6.0))
    return _t.multiply(x, _t.divide(_t.clip(_t.add(x, three), 0.0, 6.0), six))


def _unary(name: str):
    fn = _hardswish if name == "hardswish" else getattr(_t, name)

    def canon(attrs, args, types) -> Expr:
        x, s, z, os_, oz = args
        return _q.quantize(fn(_q.dequantize(x, s, z)), os_, oz, out_dtype=types[0].dtype)
    return canon


def _sim_params(args, types, axis: int):
    data, code, scale, zp = args
    ndim = len(types[0].shape)
    axis = _norm_axis(axis, ndim)
    s = per_axis(scale, types[2], ndim, axis)
    z = cast(per_axis(zp, types[3], ndim, axis), "float32")
    return data, _t.reshape(code, []) if types[1].shape else code, s, z


def canonicalize_simulated_quantize(attrs, args, types) -> Expr:
    data, code, s, z = _sim_params(args, types, attrs.axis)
    q = _t.add(_t.round(_t.divide(data, s)), z)
    out = data
    for dtype in ("int8", "uint8", "int32"):
        lo, hi = qrange(dtype)
        hit = _t.equal(code, const(_q.SQNN_DTYPE_TO_CODE[dtype], "int32"))
        out = _t.where(hit, _t.clip(q, lo, hi), out)
    return out


def canonicalize_simulated_dequantize(attrs, args, types) -> Expr:
    data, code, s, z = _sim_params(args, types, attrs.axis)
    deq = _t.multiply(_t.subtract(data, z), s)
    enabled = _t.not_equal(code, const(_q.SQNN_DTYPE_TO_CODE["disable"], "int32"))
    return _t.where(enabled, deq, data)


RULES = {
    "qnn.quantize": canonicalize_quantize,
    "qnn.dequantize": canonicalize_dequantize,
    "qnn.requantize": canonicalize_requantize,
    "qnn.add": _add_sub("add"),
    "qnn.subtract": _add_sub("subtract"),
    "qnn.mul": canonicalize_mul,
    "qnn.concatenate": canonicalize_concatenate,
    "qnn.conv2d": _conv("conv2d", "nn.conv2d"),
    "qnn.conv2d_transpose": _conv("conv2d_transpose", "nn.conv2d_transpose"),
    "qnn.dense": canonicalize_dense,
    "qnn.batch_matmul": canonicalize_batch_matmul,
    "qnn.leaky_relu": canonicalize_leaky_relu,
    "qnn.simulated_quantize": canonicalize_simulated_quantize,
    "qnn.simulated_dequantize": canonicalize_simulated_dequantize,
    **{f"qnn.{n}": _unary(n) for n in _q.UNARY_OPS},
}

for _name, _rule in RULES.items():
    get(_name).set_attr(CANONICALIZE, _rule)

__all__ = ["RULES", "CANONICALIZE", "requantize_lower", "fixed_point_multiply",
           "fixed_point_multiplier_shift", "const_value"]
