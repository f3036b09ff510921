"""ONNX's quantized operators as QNN ops (``relay.qnn.op``): QuantizeLinear,
DequantizeLinear, QLinearConv, QLinearMatMul, ConvInteger, MatMulInteger,
DynamicQuantizeLinear, and the ``com.microsoft`` ops onnxruntime's quantizer writes
(QLinearAdd, QLinearMul, QLinearSigmoid, QLinearLeakyRelu, QLinearConcat,
QLinearGlobalAveragePool, QLinearAveragePool, QGemm, QLinearSoftmax).

Each converter takes ``(ctx, ins, attrs)`` as :mod:`.onnx`'s do. Scales and zero points that
are initializers or constants become relay constants (the QNN lowering needs the scales at
compile time); a quantized tensor's dtype is its zero point's (uint8 without one). QNN
rounds ties of quantize and requantize away from zero (or upward), onnxruntime to even: the
results may differ by one quantization step there.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional

import numpy as np

from .. import op as _op
from ..expr import Constant, Expr, const
from ..op import nn as _nn
from ..qnn import op as _qnn

#: the ``com.microsoft`` operators converted here
MICROSOFT_OPS = frozenset({"QLinearAdd", "QLinearMul", "QLinearSigmoid", "QLinearLeakyRelu",
                           "QLinearConcat", "QLinearGlobalAveragePool", "QLinearAveragePool",
                           "QGemm", "QLinearSoftmax"})

CONVERTERS: Dict[str, Callable] = {}


def _register(*names: str):
    def deco(f):
        for n in names:
            CONVERTERS[n] = f
        return f
    return deco


# ------------------------------------------------------------------------------------ helpers
def _param(ctx, ins, i: int, dtype: str, what: str, default=None) -> Expr:
    """Input ``i`` (a scale or zero point) as ``dtype``: a constant where the model gives
    one, else the run-time value cast; ``default`` where the input is left out."""
    name = ctx.node.input[i] if i < len(ctx.node.input) else ""
    if not name:
        if default is None:
            raise ctx.fail(f"{what} (input {i}) is required")
        return const(np.array(default, dtype=dtype), dtype)
    if name in ctx.consts:
        arr = np.asarray(ctx.consts[name])
        if dtype.startswith(("int", "uint")) and arr.dtype.kind == "f":
            raise ctx.fail(f"{what} must be an integer tensor, got {arr.dtype}")
        return const(np.ascontiguousarray(arr.astype(dtype)), dtype)
    x = ins[i]
    return x if ctx.dtype(x) == dtype else _op.cast(x, dtype)


def _qdtype(ctx, ins, i: int, what: str) -> str:
    """The dtype of the quantized tensor whose zero point is input ``i`` (uint8 if none)."""
    name = ctx.node.input[i] if i < len(ctx.node.input) else ""
    if not name:
        return "uint8"
    dt = str(ctx.consts[name].dtype) if name in ctx.consts else ctx.dtype(ins[i])
    if dt not in ("int8", "uint8", "int16", "int32"):
        raise ctx.fail(f"{what} of dtype {dt} is not supported (int8, uint8, int16, int32)")
    return dt


def _values(p: Expr) -> Optional[np.ndarray]:
    return p.data.numpy() if isinstance(p, Constant) else None


def _const_scale(ctx, p: Expr, what: str) -> np.ndarray:
    v = _values(p)
    if v is None:
        raise ctx.fail(f"{what} must be a constant (an initializer or a Constant node)")
    return v.astype("float32").reshape(-1)


def _product_scale(ctx, a: Expr, b: Expr, what: str, extra: float = 1.0) -> Expr:
    """The scale of an int32 accumulator: ``a * b`` (per channel where ``b`` is)."""
    va, vb = _const_scale(ctx, a, f"{what} input scale"), _const_scale(ctx, b, f"{what} "
                                                                         "weight scale")
    prod = (va.astype("float64") * vb.astype("float64") * extra).astype("float32")
    return const(prod.reshape(()) if prod.size == 1 else prod)


def _axis(ctx, x: Expr, axis: int) -> int:
    nd = len(ctx.shape(x))
    return axis + nd if axis < 0 else axis


def _requantize(acc: Expr, in_scale: Expr, out_scale: Expr, out_zp: Expr, out_dtype: str,
                axis: int = 1) -> Expr:
    return _qnn.requantize(acc, in_scale, const(0, "int32"), out_scale, out_zp, axis=axis,
                           out_dtype=out_dtype)


# ------------------------------------------------------------------- QuantizeLinear & co.
@_register("QuantizeLinear")
def _quantize_linear(ctx, ins, attrs):
    x = ins[0]
    if attrs.get("block_size", 0):
        raise ctx.fail("blocked quantization (block_size) is not supported")
    out_dtype = _qdtype(ctx, ins, 2, "y_zero_point")
    if out_dtype == "int32":
        raise ctx.fail("an int32 output is not supported")
    scale = _param(ctx, ins, 1, "float32", "y_scale")
    zp = _param(ctx, ins, 2, "int32", "y_zero_point", 0)
    if ctx.dtype(x) != "float32":
        x = _op.cast(x, "float32")
    return _qnn.quantize(x, scale, zp, axis=_axis(ctx, x, int(attrs.get("axis", 1))),
                         out_dtype=out_dtype)


@_register("DequantizeLinear")
def _dequantize_linear(ctx, ins, attrs):
    x = ins[0]
    if attrs.get("block_size", 0):
        raise ctx.fail("blocked quantization (block_size) is not supported")
    dt = ctx.dtype(x)
    if dt not in ("int8", "uint8", "int16", "int32"):
        raise ctx.fail(f"x of dtype {dt} is not supported (int8, uint8, int16, int32)")
    name = ctx.node.input[1]
    scale_dt = str(ctx.consts[name].dtype) if name in ctx.consts else ctx.dtype(ins[1])
    scale = _param(ctx, ins, 1, "float32", "x_scale")
    zp = _param(ctx, ins, 2, "int32", "x_zero_point", 0)
    out = _qnn.dequantize(x, scale, zp, axis=_axis(ctx, x, int(attrs.get("axis", 1))))
    return out if scale_dt == "float32" else _op.cast(out, scale_dt)


@_register("DynamicQuantizeLinear")
def _dynamic_quantize_linear(ctx, ins, attrs):
    """``y_scale = (max(x, 0) - min(x, 0)) / 255``, ``y_zero_point = clip(round(-min /
    y_scale), 0, 255)`` (ties to even), ``y`` x quantized with them as uint8."""
    x = ins[0]
    if ctx.dtype(x) != "float32":
        raise ctx.fail(f"x must be float32, got {ctx.dtype(x)}")
    zero = const(np.float32(0.0))
    lo = _op.minimum(_op.min(x), zero)
    hi = _op.maximum(_op.max(x), zero)
    scale = _op.divide(_op.subtract(hi, lo), const(np.float32(255.0)))
    zp_f = _op.clip(_op.round(_op.divide(_op.negative(lo), scale)), 0.0, 255.0)
    zp = _op.cast(zp_f, "int32")
    y = _qnn.quantize(x, scale, zp, out_dtype="uint8")
    return [y, scale, _op.cast(zp_f, "uint8")]


# ------------------------------------------------------------------------- convolutions
def _conv_attrs(ctx, x: Expr, w: Expr, attrs) -> Dict[str, Any]:
    from .onnx import _nd_pads, _spatial_rank
    xs, n = _spatial_rank(ctx, x)
    if n != 2:
        raise ctx.fail(f"only 2-D convolutions are supported, got a {n}-D one")
    ws = ctx.shape(w)
    kernel = tuple(attrs.get("kernel_shape", ws[2:]))
    strides = tuple(attrs.get("strides", (1,) * n))
    dilations = tuple(attrs.get("dilations", (1,) * n))
    pads = _nd_pads(ctx, attrs, xs[2:], kernel, strides, dilations)
    return dict(kernel_size=kernel, channels=ws[0], strides=strides, padding=pads,
                dilation=dilations, groups=int(attrs.get("group", 1)))


@_register("QLinearConv")
def _qlinear_conv(ctx, ins, attrs):
    x, w = ins[0], ins[3]
    x_scale = _param(ctx, ins, 1, "float32", "x_scale")
    x_zp = _param(ctx, ins, 2, "int32", "x_zero_point")
    w_scale = _param(ctx, ins, 4, "float32", "w_scale")
    w_zp = _param(ctx, ins, 5, "int32", "w_zero_point")
    y_scale = _param(ctx, ins, 6, "float32", "y_scale")
    y_zp = _param(ctx, ins, 7, "int32", "y_zero_point")
    out_dtype = _qdtype(ctx, ins, 7, "y_zero_point")
    acc = _qnn.conv2d(x, w, x_zp, w_zp, x_scale, w_scale, **_conv_attrs(ctx, x, w, attrs))
    if len(ins) > 8 and ins[8] is not None:
        acc = _nn.bias_add(acc, _op.cast(ins[8], "int32") if ctx.dtype(ins[8]) != "int32"
                           else ins[8])
    scale = _product_scale(ctx, x_scale, w_scale, "QLinearConv")
    return _requantize(acc, scale, y_scale, y_zp, out_dtype, axis=1)


@_register("ConvInteger")
def _conv_integer(ctx, ins, attrs):
    x, w = ins[0], ins[1]
    x_zp = _param(ctx, ins, 2, "int32", "x_zero_point", 0)
    w_zp = _param(ctx, ins, 3, "int32", "w_zero_point", 0)
    one = const(np.float32(1.0))
    return _qnn.conv2d(x, w, x_zp, w_zp, one, one, **_conv_attrs(ctx, x, w, attrs))


# ------------------------------------------------------------------------ matrix products
def _qmatmul(ctx, a: Expr, b: Expr, a_zp: Expr, b_zp: Expr, a_scale: Expr,
             b_scale: Expr) -> Expr:
    """``(a - a_zp) @ (b - b_zp)`` in int32, numpy's matmul shapes (N-D ``a`` with 2-D ``b``
    as one dense; both N-D as a batch matmul)."""
    sa, sb = ctx.shape(a), ctx.shape(b)
    if len(sa) < 2 or len(sb) < 2:
        raise ctx.fail(f"1-D operands are not supported, got {sa} and {sb}")
    if _values(a_zp) is not None and _values(a_zp).size != 1:
        raise ctx.fail("a per-row a_zero_point is not supported (only a scalar)")
    if len(sb) == 2:
        bt = _op.transpose(b, (1, 0))
        flat = a if len(sa) == 2 else _op.reshape(a, (-1, sa[-1]))
        out = _qnn.dense(flat, bt, a_zp, b_zp, a_scale, b_scale, units=sb[1])
        return out if len(sa) == 2 else _op.reshape(out, tuple(sa[:-1]) + (sb[1],))
    if tuple(sa[:-2]) != tuple(sb[:-2]):
        raise ctx.fail(f"batch dimensions {sa[:-2]} and {sb[:-2]} must be equal")
    if _values(b_zp) is not None and _values(b_zp).size != 1:
        raise ctx.fail("a per-column b_zero_point with N-D B is not supported")
    batch = tuple(sa[:-2])
    n = int(np.prod(batch, dtype=np.int64))
    a3 = _op.reshape(a, (n,) + tuple(sa[-2:]))
    b3 = _op.transpose(_op.reshape(b, (n,) + tuple(sb[-2:])), (0, 2, 1))
    out = _qnn.batch_matmul(a3, b3, a_zp, b_zp, a_scale, b_scale)
    return _op.reshape(out, batch + (sa[-2], sb[-1]))


@_register("QLinearMatMul")
def _qlinear_matmul(ctx, ins, attrs):
    a, b = ins[0], ins[3]
    a_scale = _param(ctx, ins, 1, "float32", "a_scale")
    a_zp = _param(ctx, ins, 2, "int32", "a_zero_point")
    b_scale = _param(ctx, ins, 4, "float32", "b_scale")
    b_zp = _param(ctx, ins, 5, "int32", "b_zero_point")
    y_scale = _param(ctx, ins, 6, "float32", "y_scale")
    y_zp = _param(ctx, ins, 7, "int32", "y_zero_point")
    acc = _qmatmul(ctx, a, b, a_zp, b_zp, a_scale, b_scale)
    scale = _product_scale(ctx, a_scale, b_scale, "QLinearMatMul")
    return _requantize(acc, scale, y_scale, y_zp, _qdtype(ctx, ins, 7, "y_zero_point"),
                       axis=-1)


@_register("MatMulInteger")
def _matmul_integer(ctx, ins, attrs):
    a_zp = _param(ctx, ins, 2, "int32", "a_zero_point", 0)
    b_zp = _param(ctx, ins, 3, "int32", "b_zero_point", 0)
    one = const(np.float32(1.0))
    return _qmatmul(ctx, ins[0], ins[1], a_zp, b_zp, one, one)


@_register("QGemm")
def _qgemm(ctx, ins, attrs):
    """``alpha * A' B' + C`` of quantized A and B (C int32 at scale ``a_scale * b_scale``),
    quantized to (y_scale, y_zero_point), or float32 without them."""
    a, b = ins[0], ins[3]
    if attrs.get("transA", 0):
        a = _op.transpose(a, (1, 0))
    if attrs.get("transB", 0):
        b = _op.transpose(b, (1, 0))
    a_scale = _param(ctx, ins, 1, "float32", "a_scale")
    a_zp = _param(ctx, ins, 2, "int32", "a_zero_point")
    b_scale = _param(ctx, ins, 4, "float32", "b_scale")
    b_zp = _param(ctx, ins, 5, "int32", "b_zero_point")
    if len(ctx.shape(a)) != 2 or len(ctx.shape(b)) != 2:
        raise ctx.fail(f"A and B must be 2-D, got {ctx.shape(a)} and {ctx.shape(b)}")
    acc = _qmatmul(ctx, a, b, a_zp, b_zp, a_scale, b_scale)
    if len(ins) > 6 and ins[6] is not None:
        c = ins[6]
        acc = _op.add(acc, c if ctx.dtype(c) == "int32" else _op.cast(c, "int32"))
    alpha = float(attrs.get("alpha", 1.0))
    scale = _product_scale(ctx, a_scale, b_scale, "QGemm", alpha)
    if len(ins) > 7 and ins[7] is not None:
        y_scale = _param(ctx, ins, 7, "float32", "y_scale")
        y_zp = _param(ctx, ins, 8, "int32", "y_zero_point", 0)
        return _requantize(acc, scale, y_scale, y_zp, _qdtype(ctx, ins, 8, "y_zero_point"),
                           axis=-1)
    return _qnn.dequantize(acc, scale, const(0, "int32"), axis=-1)


# -------------------------------------------------------------- com.microsoft element-wise
def _binary(fn):
    def conv(ctx, ins, attrs):
        a, b = ins[0], ins[3]
        return fn(a, b, _param(ctx, ins, 1, "float32", "A_scale"),
                  _param(ctx, ins, 2, "int32", "A_zero_point", 0),
                  _param(ctx, ins, 4, "float32", "B_scale"),
                  _param(ctx, ins, 5, "int32", "B_zero_point", 0),
                  _param(ctx, ins, 6, "float32", "C_scale"),
                  _param(ctx, ins, 7, "int32", "C_zero_point", 0))
    return conv


_register("QLinearAdd")(_binary(_qnn.add))
_register("QLinearMul")(_binary(_qnn.mul))


def _unary_params(ctx, ins) -> List[Expr]:
    return [_param(ctx, ins, 1, "float32", "X_scale"),
            _param(ctx, ins, 2, "int32", "X_zero_point", 0),
            _param(ctx, ins, 3, "float32", "Y_scale"),
            _param(ctx, ins, 4, "int32", "Y_zero_point", 0)]


@_register("QLinearSigmoid")
def _qlinear_sigmoid(ctx, ins, attrs):
    return _qnn.sigmoid(ins[0], *_unary_params(ctx, ins))


@_register("QLinearLeakyRelu")
def _qlinear_leaky_relu(ctx, ins, attrs):
    s, z, ys, yz = _unary_params(ctx, ins)
    return _qnn.leaky_relu(ins[0], float(attrs.get("alpha", 0.01)), s, z, ys, yz)


@_register("QLinearConcat")
def _qlinear_concat(ctx, ins, attrs):
    if (len(ins) - 2) % 3 or len(ins) < 5:
        raise ctx.fail(f"expects Y_scale, Y_zero_point and (X, X_scale, X_zero_point) "
                       f"triples, got {len(ins)} inputs")
    xs, scales, zps = [], [], []
    for i in range(2, len(ins), 3):
        xs.append(ins[i])
        scales.append(_param(ctx, ins, i + 1, "float32", f"input {i + 1} scale"))
        zps.append(_param(ctx, ins, i + 2, "int32", f"input {i + 2} zero point", 0))
    axis = _axis(ctx, xs[0], int(attrs["axis"]))
    return _qnn.concatenate(xs, scales, zps, _param(ctx, ins, 0, "float32", "Y_scale"),
                            _param(ctx, ins, 1, "int32", "Y_zero_point", 0), axis)


def _through_float(ctx, ins, float_fn: Callable[[Expr], Expr], dtype: str) -> Expr:
    """Dequantize input 0, apply ``float_fn``, quantize to the output's parameters."""
    s, z, ys, yz = _unary_params(ctx, ins)
    return _qnn.quantize(float_fn(_qnn.dequantize(ins[0], s, z)), ys, yz, out_dtype=dtype)


@_register("QLinearGlobalAveragePool")
def _qlinear_global_average_pool(ctx, ins, attrs):
    layout = "NHWC" if attrs.get("channels_last", 0) else "NCHW"
    if len(ctx.shape(ins[0])) != 4:
        raise ctx.fail(f"only 4-D inputs are supported, got shape {ctx.shape(ins[0])}")
    return _through_float(ctx, ins, lambda x: _nn.global_avg_pool2d(x, layout=layout),
                          ctx.dtype(ins[0]))


@_register("QLinearAveragePool")
def _qlinear_average_pool(ctx, ins, attrs):
    from .onnx import _pool
    if attrs.get("channels_last", 0):
        raise ctx.fail("channels_last=1 is not supported")
    return _through_float(ctx, ins, lambda x: _pool(ctx, [x], attrs, "avg"),
                          ctx.dtype(ins[0]))


@_register("QLinearSoftmax")
def _qlinear_softmax(ctx, ins, attrs):
    from .onnx import _softmax_like
    opset = int(attrs.get("opset", ctx.opset))

    def softmax(x: Expr) -> Expr:
        saved, ctx.opset = ctx.opset, opset
        try:
            return _softmax_like(ctx, [x], attrs, _nn.softmax)
        finally:
            ctx.opset = saved
    return _through_float(ctx, ins, softmax, ctx.dtype(ins[0]))


__all__ = ["CONVERTERS", "MICROSOFT_OPS"]
