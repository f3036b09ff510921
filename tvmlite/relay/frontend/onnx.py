"""ONNX frontend (``relay.frontend.from_onnx``): each ONNX node maps to relay ops.

Initializers become parameters (returned in ``params``) or, with ``freeze_params=True``,
constants. Inputs whose shape is not fully static in the model need ``shape={name: ...}``.
Shape-like operands (Reshape's shape) must be constants.
"""
from __future__ import annotations

import os
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from ...error import TVMError
from ...ir.module import IRModule
from ...runtime import ndarray as _nd
from ...tir.expr import Any as _Any
from .. import op as _op
from ..expr import Constant, Expr, Function, Var, const, var
from ..expr import Tuple as RTuple
from ..op import algorithm as _algorithm
from ..op import image as _image
from ..op import nn as _nn
from ..transform.infer_type import infer_type
from ..ty import TensorType
from . import onnx_quantized as _quantized
from . import onnx_recurrent as _recurrent


class OnnxImportError(TVMError):
    """The ONNX model cannot be imported (unsupported op, bad attribute, malformed file)."""


def _onnx():
    try:
        import onnx
    except ImportError:
        raise TVMError("relay.frontend.from_onnx needs the onnx package: pip install "
                       "'tvmlite[onnx]'") from None
    return onnx


# ------------------------------------------------------------------------------ the context
class _Ctx:
    """What converters see: the node, its attributes, its inputs and constant values."""

    def __init__(self, opset: int):
        self.opset = opset
        self.values: Dict[str, Expr] = {}
        self.consts: Dict[str, np.ndarray] = {}  # initializer / Constant outputs by name
        self.static = set()  # names whose value is fixed at import time (not a parameter)
        self.node = None

    def set_const(self, name: str, arr: np.ndarray) -> None:
        arr = np.asarray(arr)
        self.consts[name] = arr
        self.static.add(name)
        self.values[name] = Constant(_nd.array(np.array(arr, order="C")))

    def where(self) -> str:
        n = self.node
        return f"{n.op_type} (node {n.name or '<unnamed>'!r})"

    def fail(self, msg: str) -> OnnxImportError:
        return OnnxImportError(f"from_onnx: {self.where()}: {msg}")

    def shape(self, e: Expr) -> Tuple[int, ...]:
        t = infer_type(e).checked_type
        if not isinstance(t, TensorType):
            raise self.fail(f"expected a tensor operand, got {t!r}")
        return t.shape

    def dtype(self, e: Expr) -> str:
        return infer_type(e).checked_type.dtype

    def const_value(self, name: str, what: str) -> np.ndarray:
        if name not in self.consts:
            raise self.fail(f"{what} must be a constant (an initializer or a Constant node); "
                            f"{name!r} is computed at run time, which is not supported yet")
        return self.consts[name]


def _attrs(node) -> Dict[str, Any]:
    onnx = _onnx()
    out = {}
    for a in node.attribute:
        v = onnx.helper.get_attribute_value(a)
        if isinstance(v, bytes):
            v = v.decode()
        elif isinstance(v, onnx.TensorProto):
            v = onnx.numpy_helper.to_array(v)
        elif isinstance(v, list):
            v = [x.decode() if isinstance(x, bytes) else x for x in v]
        out[a.name] = v
    return out


# ---------------------------------------------------------------------------- converters
Converter = Callable[[_Ctx, List[Optional[Expr]], Dict[str, Any]], Union[Expr, List[Expr]]]
_CONVERTERS: Dict[str, Converter] = {}


def _register(*names: str):
    def deco(f: Converter) -> Converter:
        for n in names:
            _CONVERTERS[n] = f
        return f
    return deco


def _check_2d(ctx: _Ctx, x: Expr, what: str = "input") -> Tuple[int, ...]:
    shape = ctx.shape(x)
    if len(shape) != 4:
        raise ctx.fail(f"only 2-D (NCHW) {what} is supported, got shape {shape}")
    return shape


def _nd_pads(ctx: _Ctx, attrs, in_sizes: Sequence[int], kernel: Sequence[int],
             strides: Sequence[int], dilations: Sequence[int]) -> Tuple[int, ...]:
    """ONNX ``pads``/``auto_pad`` of an n-D window as ``2n`` ints (all begins, then all
    ends), relay's order."""
    n = len(kernel)
    auto = attrs.get("auto_pad", "NOTSET")
    if auto in ("NOTSET", ""):
        pads = list(attrs.get("pads", [0] * (2 * n)))
        if len(pads) != 2 * n:
            raise ctx.fail(f"pads {pads} must have {2 * n} values")
        return tuple(int(p) for p in pads)
    if auto == "VALID":
        return (0,) * (2 * n)
    if auto not in ("SAME_UPPER", "SAME_LOWER"):
        raise ctx.fail(f"auto_pad {auto!r} is not supported")
    lo, hi = [], []
    for size, k, st, d in zip(in_sizes, kernel, strides, dilations):
        out = -(-size // st)
        total = max((out - 1) * st + (k - 1) * d + 1 - size, 0)
        small, big = total // 2, total - total // 2
        lo.append(small if auto == "SAME_UPPER" else big)
        hi.append(big if auto == "SAME_UPPER" else small)
    return tuple(lo + hi)


def _spatial_rank(ctx: _Ctx, x: Expr, what: str = "input") -> Tuple[Tuple[int, ...], int]:
    shape = ctx.shape(x)
    if len(shape) not in (3, 4, 5):
        raise ctx.fail(f"only 1-D, 2-D or 3-D (NC...) {what} is supported, got shape {shape}")
    return shape, len(shape) - 2


@_register("Conv")
def _conv(ctx, ins, attrs):
    x, w = ins[0], ins[1]
    xs, n = _spatial_rank(ctx, x)
    ws = ctx.shape(w)
    kernel = tuple(attrs.get("kernel_shape", ws[2:]))
    strides = tuple(attrs.get("strides", (1,) * n))
    dilations = tuple(attrs.get("dilations", (1,) * n))
    pads = _nd_pads(ctx, attrs, xs[2:], kernel, strides, dilations)
    fn = {1: _nn.conv1d, 2: _nn.conv2d, 3: _nn.conv3d}[n]
    out = fn(x, w, strides=strides, padding=pads, dilation=dilations,
             groups=int(attrs.get("group", 1)), channels=ws[0], kernel_size=kernel)
    if len(ins) > 2 and ins[2] is not None:
        out = _nn.bias_add(out, ins[2])
    return out


@_register("Gemm")
def _gemm(ctx, ins, attrs):
    a, b = ins[0], ins[1]
    if len(ctx.shape(a)) != 2 or len(ctx.shape(b)) != 2:
        raise ctx.fail(f"A and B must be 2-D, got {ctx.shape(a)} and {ctx.shape(b)}")
    alpha, beta = float(attrs.get("alpha", 1.0)), float(attrs.get("beta", 1.0))
    if attrs.get("transA", 0):
        a = _op.transpose(a, (1, 0))
    if not attrs.get("transB", 0):
        b = _op.transpose(b, (1, 0))
    dt = ctx.dtype(a)
    out = _nn.dense(a, b)
    if alpha != 1.0:
        out = _op.multiply(out, const(alpha, dt))
    if len(ins) > 2 and ins[2] is not None:
        c = ins[2]
        if beta != 1.0:
            c = _op.multiply(c, const(beta, dt))
        out = _op.add(out, c)
    return out


@_register("MatMul")
def _matmul(ctx, ins, attrs):
    a, b = ins
    sa, sb = ctx.shape(a), ctx.shape(b)
    if len(sa) < 2 or len(sb) < 2:
        raise ctx.fail(f"1-D operands are not supported, got {sa} and {sb}")
    if len(sb) == 2:  # a weight: one dense over the flattened rows
        bt = _op.transpose(b, (1, 0))
        if len(sa) == 2:
            return _nn.dense(a, bt)
        flat = _op.reshape(a, (-1, sa[-1]))
        return _op.reshape(_nn.dense(flat, bt), tuple(sa[:-1]) + (sb[1],))
    ba, bb = tuple(sa[:-2]), tuple(sb[:-2])
    try:
        batch = tuple(np.broadcast_shapes(ba, bb))
    except ValueError:
        raise ctx.fail(f"batch dimensions of {sa} and {sb} do not broadcast") from None
    n_batch = int(np.prod(batch, dtype=np.int64))

    def to3(x, shape, own):
        if int(np.prod(own, dtype=np.int64)) == 1:
            return _op.reshape(x, (1,) + tuple(shape[-2:]))
        if tuple((1,) * (len(batch) - len(own)) + own) != batch:
            x = _op.broadcast_to(x, batch + tuple(shape[-2:]))
        return _op.reshape(x, (n_batch,) + tuple(shape[-2:]))
    out = _nn.batch_matmul(to3(a, sa, ba), to3(b, sb, bb), transpose_b=False)
    return _op.reshape(out, batch + (sa[-2], sb[-1]))


@_register("Relu")
def _relu(ctx, ins, attrs):
    return _nn.relu(ins[0])


def _pool(ctx, ins, attrs, kind: str):
    x = ins[0]
    xs, n = _spatial_rank(ctx, x)
    kernel = tuple(attrs["kernel_shape"])
    strides = tuple(attrs.get("strides", (1,) * n))
    dilations = tuple(attrs.get("dilations", (1,) * n))
    if attrs.get("storage_order", 0):
        raise ctx.fail("storage_order=1 (column major) is not supported")
    pads = _nd_pads(ctx, attrs, xs[2:], kernel, strides, dilations)
    ceil = bool(attrs.get("ceil_mode", 0))
    fn = getattr(_nn, f"{kind}_pool{n}d")
    if kind == "max":
        return fn(x, kernel, strides, dilations, pads, ceil_mode=ceil)
    return fn(x, kernel, strides, dilations, pads, ceil_mode=ceil,
              count_include_pad=bool(attrs.get("count_include_pad", 0)))


@_register("MaxPool")
def _maxpool(ctx, ins, attrs):
    return _pool(ctx, ins, attrs, "max")


@_register("AveragePool")
def _avgpool(ctx, ins, attrs):
    return _pool(ctx, ins, attrs, "avg")


@_register("GlobalAveragePool")
def _gap(ctx, ins, attrs):
    _check_2d(ctx, ins[0])
    return _nn.global_avg_pool2d(ins[0])


for _onnx_name, _fn in (("Add", _op.add), ("Sub", _op.subtract), ("Mul", _op.multiply),
                        ("Div", _op.divide)):
    def _binary(ctx, ins, attrs, fn=_fn):
        if attrs.get("broadcast") and "axis" in attrs:
            raise ctx.fail("the legacy broadcast attribute with axis is not supported")
        return fn(ins[0], ins[1])
    _register(_onnx_name)(_binary)


@_register("Flatten")
def _flatten(ctx, ins, attrs):
    shape = ctx.shape(ins[0])
    axis = int(attrs.get("axis", 1))
    if axis < 0:
        axis += len(shape)
    if axis == 1:
        return _nn.batch_flatten(ins[0])
    outer = int(np.prod(shape[:axis], dtype=np.int64))
    return _op.reshape(ins[0], (outer, -1))


@_register("Reshape")
def _reshape(ctx, ins, attrs):
    shape = [int(d) for d in ctx.const_value(ctx.node.input[1], "the shape operand")]
    if attrs.get("allowzero", 0) and 0 in shape:
        raise ctx.fail("allowzero=1 with a 0 in the shape is not supported")
    return _op.reshape(ins[0], shape)


@_register("Transpose")
def _transpose(ctx, ins, attrs):
    perm = attrs.get("perm")
    return _op.transpose(ins[0], None if perm is None else [int(p) for p in perm])


@_register("Concat")
def _concat(ctx, ins, attrs):
    return _op.concatenate(RTuple([i for i in ins if i is not None]), int(attrs["axis"]))


def _softmax_like(ctx, ins, attrs, fn):
    x = ins[0]
    shape = ctx.shape(x)
    nd = len(shape)
    axis = int(attrs.get("axis", -1 if ctx.opset >= 13 else 1))
    axis = axis + nd if axis < 0 else axis
    if ctx.opset >= 13 or axis == nd - 1:
        return fn(x, axis)
    # before opset 13: the input flattened to 2-D at axis
    outer = int(np.prod(shape[:axis], dtype=np.int64))
    flat = _op.reshape(x, (outer, -1))
    return _op.reshape(fn(flat, -1), shape)


@_register("Softmax")
def _softmax(ctx, ins, attrs):
    return _softmax_like(ctx, ins, attrs, _nn.softmax)


@_register("LogSoftmax")
def _log_softmax(ctx, ins, attrs):
    return _softmax_like(ctx, ins, attrs, _nn.log_softmax)


@_register("BatchNormalization")
def _batch_norm(ctx, ins, attrs):
    if attrs.get("training_mode", 0):
        raise ctx.fail("training_mode=1 is not supported (inference only)")
    if len([o for o in ctx.node.output if o]) > 1:
        raise ctx.fail("only the first output (inference) is supported")
    return _nn.batch_norm(*ins[:5], axis=1, epsilon=float(attrs.get("epsilon", 1e-5)))[0]


@_register("Identity")
def _identity(ctx, ins, attrs):
    return ins[0]


@_register("Dropout")
def _dropout(ctx, ins, attrs):
    if len(ctx.node.output) > 1 and ctx.node.output[1]:
        raise ctx.fail("the mask output is not supported (inference only)")
    return ins[0]


# ------------------------------------------------------------------ element-wise converters
for _onnx_name, _fn in (("Sqrt", _op.sqrt), ("Exp", _op.exp), ("Log", _op.log),
                        ("Tanh", _op.tanh), ("Sigmoid", _op.sigmoid), ("Erf", _op.erf),
                        ("Abs", _op.abs), ("Neg", _op.negative), ("Floor", _op.floor),
                        ("Ceil", _op.ceil), ("Sin", _op.sin), ("Cos", _op.cos),
                        ("Not", _op.logical_not), ("Sign", _op.sign), ("Tan", _op.tan),
                        ("Sinh", _op.sinh), ("Cosh", _op.cosh), ("Asin", _op.asin),
                        ("Acos", _op.acos), ("Atan", _op.atan), ("Asinh", _op.asinh),
                        ("Acosh", _op.acosh), ("Atanh", _op.atanh), ("IsNaN", _op.isnan)):
    _register(_onnx_name)(lambda ctx, ins, attrs, fn=_fn: fn(ins[0]))

for _onnx_name, _fn in (("Equal", _op.equal), ("Less", _op.less), ("Greater", _op.greater),
                        ("LessOrEqual", _op.less_equal),
                        ("GreaterOrEqual", _op.greater_equal), ("And", _op.logical_and),
                        ("Or", _op.logical_or)):
    _register(_onnx_name)(lambda ctx, ins, attrs, fn=_fn: fn(ins[0], ins[1]))


def _variadic(fn):
    def conv(ctx, ins, attrs):
        out = ins[0]
        for x in ins[1:]:
            out = fn(out, x)
        return out
    return conv


_register("Max")(_variadic(_op.maximum))
_register("Min")(_variadic(_op.minimum))
_register("Sum")(_variadic(_op.add))


@_register("Reciprocal")
def _reciprocal(ctx, ins, attrs):
    return _op.divide(const(1.0, ctx.dtype(ins[0])), ins[0])


@_register("Pow")
def _pow(ctx, ins, attrs):
    x, y = ins
    dt = ctx.dtype(x)
    if ctx.dtype(y) != dt:
        y = _op.cast(y, dt)
    return _op.power(x, y)


@_register("Where")
def _where(ctx, ins, attrs):
    return _op.where(ins[0], ins[1], ins[2])


@_register("Cast")
def _cast(ctx, ins, attrs):
    return _op.cast(ins[0], _elem_dtype(int(attrs["to"])))


@_register("LeakyRelu")
def _leaky_relu(ctx, ins, attrs):
    return _nn.leaky_relu(ins[0], float(attrs.get("alpha", 0.01)))


@_register("LpNormalization")
def _lp_normalization(ctx, ins, attrs):
    if int(attrs.get("p", 2)) != 2:
        raise ctx.fail(f"p={attrs.get('p')} is not supported (only the L2 norm, p=2)")
    return _nn.l2_normalize(ins[0], 0.0, [int(attrs.get("axis", -1))])


@_register("PRelu")
def _prelu(ctx, ins, attrs):
    # the slope broadcasts to x as NumPy does (ONNX), e.g. (C, 1, 1) from torch's nn.PReLU;
    # relay.nn.prelu takes a 1-D slope along one axis only
    x, slope = ins
    return _op.where(_op.less(x, const(0, ctx.dtype(x))), _op.multiply(x, slope), x)


@_register("Clip")
def _clip(ctx, ins, attrs):
    x = ins[0]
    dt = ctx.dtype(x)
    info = np.finfo(dt) if np.dtype(dt).kind == "f" else np.iinfo(dt)
    if ctx.opset < 11:
        return _op.clip(x, float(attrs.get("min", info.min)), float(attrs.get("max", info.max)))
    bounds = []
    for i, default in ((1, info.min), (2, info.max)):
        name = ctx.node.input[i] if len(ctx.node.input) > i else ""
        if not name:
            bounds.append(float(default))
        elif name in ctx.consts:
            bounds.append(float(ctx.consts[name]))
        else:
            bounds.append(ins[i])
    if all(isinstance(b, float) for b in bounds):
        return _op.clip(x, *bounds)
    lo, hi = bounds
    out = x if isinstance(lo, float) else _op.maximum(x, lo)
    if isinstance(lo, float):
        out = _op.maximum(out, const(lo, dt))
    return _op.minimum(out, const(hi, dt) if isinstance(hi, float) else hi)


@_register("Gelu")
def _gelu(ctx, ins, attrs):
    x = ins[0]
    dt = ctx.dtype(x)
    if attrs.get("approximate", "none") == "tanh":
        inner = _op.multiply(const(float(np.sqrt(2 / np.pi)), dt), _op.add(
            x, _op.multiply(const(0.044715, dt), _op.multiply(x, _op.multiply(x, x)))))
        return _op.multiply(_op.multiply(const(0.5, dt), x),
                            _op.add(const(1.0, dt), _op.tanh(inner)))
    return _op.multiply(_op.multiply(const(0.5, dt), x), _op.add(
        const(1.0, dt), _op.erf(_op.multiply(x, const(float(1 / np.sqrt(2)), dt)))))


# --------------------------------------------------------------------------- reductions
def _axes_operand(ctx, attrs, index: int, since: int) -> Optional[List[int]]:
    """Axes from attribute ``axes`` (before opset ``since``) or from input ``index``."""
    if ctx.opset < since or "axes" in attrs:
        axes = attrs.get("axes")
        return None if axes is None else [int(a) for a in axes]
    if len(ctx.node.input) > index and ctx.node.input[index]:
        return [int(a) for a in np.atleast_1d(ctx.const_value(ctx.node.input[index], "axes"))]
    return None


def _reduce(fn, since: int):
    def conv(ctx, ins, attrs):
        axes = _axes_operand(ctx, attrs, 1, since)
        if not axes:
            if attrs.get("noop_with_empty_axes", 0):
                return ins[0]
            axes = None
        return fn(ins[0], axes, bool(attrs.get("keepdims", 1)))
    return conv


_register("ReduceSum")(_reduce(_op.sum, 13))
_register("ReduceMean")(_reduce(_op.mean, 18))
_register("ReduceMax")(_reduce(_op.max, 18))
_register("ReduceMin")(_reduce(_op.min, 18))
_register("ReduceProd")(_reduce(_op.prod, 18))


def _arg_reduce(fn):
    def conv(ctx, ins, attrs):
        out = fn(ins[0], int(attrs.get("axis", 0)), bool(attrs.get("keepdims", 1)),
                 select_last_index=bool(attrs.get("select_last_index", 0)))
        return _op.cast(out, "int64")
    return conv


_register("ArgMax")(_arg_reduce(_op.argmax))
_register("ArgMin")(_arg_reduce(_op.argmin))


# ------------------------------------------- activations and reductions composed of others
def _scalar(ctx: _Ctx, x: Expr, value: float) -> Expr:
    return const(value, ctx.dtype(x))


def _positive_or(ctx: _Ctx, x: Expr, negative: Expr) -> Expr:
    """``x`` where ``x > 0``, else ``negative``."""
    return _op.where(_op.greater(x, _scalar(ctx, x, 0)), x, negative)


def _hard_sigmoid_of(ctx: _Ctx, x: Expr, alpha: float, beta: float) -> Expr:
    y = _op.add(_op.multiply(x, _scalar(ctx, x, alpha)), _scalar(ctx, x, beta))
    return _op.clip(y, 0.0, 1.0)


def _softplus_of(ctx: _Ctx, x: Expr) -> Expr:
    # max(x, 0) + log(1 + exp(-|x|)): no overflow for large |x|
    return _op.add(_op.maximum(x, _scalar(ctx, x, 0)), _op.log(_op.add(
        _scalar(ctx, x, 1), _op.exp(_op.negative(_op.abs(x))))))


@_register("Elu")
def _elu(ctx, ins, attrs):
    x = ins[0]
    return _positive_or(ctx, x, _op.multiply(_scalar(ctx, x, float(attrs.get("alpha", 1.0))),
                                             _op.subtract(_op.exp(x), _scalar(ctx, x, 1))))


@_register("Selu")
def _selu(ctx, ins, attrs):
    x = ins[0]
    alpha = float(attrs.get("alpha", 1.67326319217681884765625))
    gamma = float(attrs.get("gamma", 1.05070102214813232421875))
    neg = _op.multiply(_scalar(ctx, x, alpha), _op.subtract(_op.exp(x), _scalar(ctx, x, 1)))
    return _op.multiply(_scalar(ctx, x, gamma), _positive_or(ctx, x, neg))


@_register("Celu")
def _celu(ctx, ins, attrs):
    x = ins[0]
    alpha = float(attrs.get("alpha", 1.0))
    neg = _op.multiply(_scalar(ctx, x, alpha), _op.subtract(
        _op.exp(_op.divide(x, _scalar(ctx, x, alpha))), _scalar(ctx, x, 1)))
    return _op.add(_op.maximum(x, _scalar(ctx, x, 0)), _op.minimum(neg, _scalar(ctx, x, 0)))


@_register("HardSigmoid")
def _hard_sigmoid(ctx, ins, attrs):
    return _hard_sigmoid_of(ctx, ins[0], float(attrs.get("alpha", 0.2)),
                            float(attrs.get("beta", 0.5)))


@_register("HardSwish")
def _hard_swish(ctx, ins, attrs):
    return _op.multiply(ins[0], _hard_sigmoid_of(ctx, ins[0], 1.0 / 6.0, 0.5))


@_register("Softplus")
def _softplus(ctx, ins, attrs):
    return _softplus_of(ctx, ins[0])


@_register("Softsign")
def _softsign(ctx, ins, attrs):
    x = ins[0]
    return _op.divide(x, _op.add(_scalar(ctx, x, 1), _op.abs(x)))


@_register("Mish")
def _mish(ctx, ins, attrs):
    return _op.multiply(ins[0], _op.tanh(_softplus_of(ctx, ins[0])))


@_register("ThresholdedRelu")
def _thresholded_relu(ctx, ins, attrs):
    x = ins[0]
    keep = _op.greater(x, _scalar(ctx, x, float(attrs.get("alpha", 1.0))))
    return _op.where(keep, x, _scalar(ctx, x, 0))


@_register("Shrink")
def _shrink(ctx, ins, attrs):
    x = ins[0]
    lambd, bias = float(attrs.get("lambd", 0.5)), float(attrs.get("bias", 0.0))
    low = _op.where(_op.less(x, _scalar(ctx, x, -lambd)),
                    _op.add(x, _scalar(ctx, x, bias)), _scalar(ctx, x, 0))
    return _op.where(_op.greater(x, _scalar(ctx, x, lambd)),
                     _op.subtract(x, _scalar(ctx, x, bias)), low)


@_register("Mean")
def _mean(ctx, ins, attrs):
    total = _variadic(_op.add)(ctx, ins, attrs)
    return _op.divide(total, _scalar(ctx, total, float(len(ins))))


@_register("Round")
def _round(ctx, ins, attrs):
    return _op.round(ins[0])


@_register("Mod")
def _mod(ctx, ins, attrs):
    a, b = ins
    if int(attrs.get("fmod", 0)):
        return _op.mod(a, b)  # the sign of the dividend, as C's fmod
    if np.dtype(ctx.dtype(a)).kind == "f":
        raise ctx.fail("fmod=0 on floating-point inputs is not allowed by ONNX; use fmod=1")
    return _op.floor_mod(a, b)  # the sign of the divisor, as Python's %


@_register("Xor")
def _xor(ctx, ins, attrs):
    return _op.logical_xor(ins[0], ins[1])


@_register("BitShift")
def _bit_shift(ctx, ins, attrs):
    direction = attrs.get("direction", "")
    if direction not in ("LEFT", "RIGHT"):
        raise ctx.fail(f"direction must be LEFT or RIGHT, got {direction!r}")
    shift = _op.left_shift if direction == "LEFT" else _op.right_shift
    return shift(ins[0], ins[1])


@_register("Size")
def _size(ctx, ins, attrs):
    return np.array(int(np.prod(ctx.shape(ins[0]), dtype=np.int64)), dtype="int64")


@_register("CastLike")
def _cast_like(ctx, ins, attrs):
    return _op.cast(ins[0], ctx.dtype(ins[1]))


@_register("EyeLike")
def _eye_like(ctx, ins, attrs):
    shape = ctx.shape(ins[0])
    if len(shape) != 2:
        raise ctx.fail(f"the input must be 2-D, got shape {shape}")
    dtype = _elem_dtype(int(attrs["dtype"])) if "dtype" in attrs else ctx.dtype(ins[0])
    return np.eye(shape[0], shape[1], int(attrs.get("k", 0)), dtype=dtype)


def _reduce_of(fn, before=None, after=None):
    """A reduction ``after(fn(before(x)))`` with ReduceSum's axes and keepdims."""
    def reduce(x, axes, keepdims):
        y = fn(before(x) if before else x, axes, keepdims)
        return after(y) if after else y
    return reduce


_register("ReduceL1")(_reduce(_reduce_of(_op.sum, before=_op.abs), 18))
_register("ReduceL2")(_reduce(_reduce_of(
    _op.sum, before=lambda x: _op.multiply(x, x), after=_op.sqrt), 18))
_register("ReduceSumSquare")(_reduce(_reduce_of(
    _op.sum, before=lambda x: _op.multiply(x, x)), 18))
_register("ReduceLogSum")(_reduce(_reduce_of(_op.sum, after=_op.log), 18))
_register("ReduceLogSumExp")(_reduce(_op.logsumexp, 18))


@_register("MeanVarianceNormalization")
def _mean_variance_normalization(ctx, ins, attrs):
    x = ins[0]
    axes = [int(a) for a in attrs.get("axes", [0, 2, 3])]
    centred = _op.subtract(x, _op.mean(x, axes, True))
    std = _op.sqrt(_op.mean(_op.multiply(centred, centred), axes, True))
    return _op.divide(centred, _op.add(std, _scalar(ctx, x, 1e-9)))


@_register("GroupNormalization")
def _group_normalization(ctx, ins, attrs):
    x, scale, bias = ins
    groups = int(attrs["num_groups"])
    channels = ctx.shape(x)[1]
    if channels % groups:
        raise ctx.fail(f"num_groups {groups} does not divide the {channels} channels")
    if ctx.opset < 21 and ctx.shape(scale)[0] != channels:
        # opset 18: one scale and bias per group, repeated over the group's channels
        scale = _op.repeat(scale, channels // groups, 0)
        bias = _op.repeat(bias, channels // groups, 0)
    return _nn.group_norm(x, scale, bias, groups, 1, float(attrs.get("epsilon", 1e-5)))


@_register("Hardmax")
def _hardmax(ctx, ins, attrs):
    x = ins[0]
    shape = ctx.shape(x)
    axis = int(attrs.get("axis", -1 if ctx.opset >= 13 else 1))
    axis = axis + len(shape) if axis < 0 else axis
    if ctx.opset < 13:  # the input is read as 2-D: [:axis] by [axis:]
        flat = _op.reshape(x, (int(np.prod(shape[:axis], dtype=np.int64)), -1))
        hot = _op.one_hot(_op.argmax(flat, 1), 1.0, 0.0, int(np.prod(shape[axis:])), 1,
                          ctx.dtype(x))
        return _op.reshape(hot, shape)
    return _op.one_hot(_op.argmax(x, axis), 1.0, 0.0, shape[axis], axis, ctx.dtype(x))


_register("RNN")(_recurrent.rnn)
_register("GRU")(_recurrent.gru)
_register("LSTM")(_recurrent.lstm)
for _qname, _qconv in _quantized.CONVERTERS.items():  # QuantizeLinear, QLinearConv ...
    _register(_qname)(_qconv)


# ------------------------------------------------------------------------ shape and layout
@_register("Shape")
def _shape(ctx, ins, attrs):
    shape = np.array(ctx.shape(ins[0]), dtype="int64")
    start, end = attrs.get("start", 0), attrs.get("end")
    return shape[start:end]


@_register("Squeeze")
def _squeeze(ctx, ins, attrs):
    shape = ctx.shape(ins[0])
    axes = _axes_operand(ctx, attrs, 1, 13)
    nd = len(shape)
    if axes is None:
        drop = {i for i, d in enumerate(shape) if d == 1}
    else:
        drop = {a + nd if a < 0 else a for a in axes}
        bad = [a for a in drop if not 0 <= a < nd or shape[a] != 1]
        if bad:
            raise ctx.fail(f"cannot squeeze axes {axes} of shape {shape}")
    return _op.reshape(ins[0], [d for i, d in enumerate(shape) if i not in drop])


@_register("Unsqueeze")
def _unsqueeze(ctx, ins, attrs):
    shape = list(ctx.shape(ins[0]))
    axes = _axes_operand(ctx, attrs, 1, 13)
    if not axes:
        raise ctx.fail("axes are required")
    nd = len(shape) + len(axes)
    norm = sorted(a + nd if a < 0 else a for a in axes)
    if len(set(norm)) != len(norm) or not all(0 <= a < nd for a in norm):
        raise ctx.fail(f"axes {axes} are invalid for an output of rank {nd}")
    for a in norm:
        shape.insert(a, 1)
    return _op.reshape(ins[0], shape)


@_register("Expand")
def _expand(ctx, ins, attrs):
    want = tuple(int(d) for d in ctx.const_value(ctx.node.input[1], "the shape operand"))
    shape = ctx.shape(ins[0])
    try:
        out = tuple(np.broadcast_shapes(shape, want))
    except ValueError:
        raise ctx.fail(f"cannot expand shape {shape} to {want}") from None
    return ins[0] if out == tuple(shape) else _op.broadcast_to(ins[0], out)


@_register("Slice")
def _slice(ctx, ins, attrs):
    nd = len(ctx.shape(ins[0]))
    if ctx.opset < 10:
        starts, ends = attrs["starts"], attrs["ends"]
        axes, steps = attrs.get("axes"), None
    else:
        def operand(i, what):
            if len(ctx.node.input) > i and ctx.node.input[i]:
                return [int(v) for v in ctx.const_value(ctx.node.input[i], what)]
            return None
        starts, ends = operand(1, "starts"), operand(2, "ends")
        axes, steps = operand(3, "axes"), operand(4, "steps")
    axes = list(range(len(starts))) if axes is None else [a + nd if a < 0 else a for a in axes]
    big = 2 ** 31 - 1  # INT64_MAX / INT64_MIN ends mean "to the end"
    ends = [max(min(int(e), big), -big) for e in ends]
    starts = [max(min(int(b), big), -big) for b in starts]
    return _op.strided_slice(ins[0], starts, ends, steps, axes)


@_register("Gather")
def _gather(ctx, ins, attrs):
    shape = ctx.shape(ins[0])
    axis = int(attrs.get("axis", 0))
    axis = axis + len(shape) if axis < 0 else axis
    if not 0 <= axis < len(shape):
        raise ctx.fail(f"axis {attrs.get('axis')} is out of range for shape {shape}")
    name = ctx.node.input[1]
    if name in ctx.consts:
        idx = np.asarray(ctx.consts[name]).astype("int64")
        if idx.size and (idx.min() < -shape[axis] or idx.max() >= shape[axis]):
            raise ctx.fail(f"indices out of range for dimension {axis} of size {shape[axis]}")
        idx = np.where(idx < 0, idx + shape[axis], idx).astype("int32")
        return _op.take(ins[0], const(idx, "int32"), axis, mode="fast")
    return _op.take(ins[0], ins[1], axis, mode="wrap")


@_register("Split")
def _split(ctx, ins, attrs):
    shape = ctx.shape(ins[0])
    axis = int(attrs.get("axis", 0))
    n_out = len(ctx.node.output)
    if "split" in attrs:
        sizes = [int(v) for v in attrs["split"]]
    elif len(ctx.node.input) > 1 and ctx.node.input[1]:
        sizes = [int(v) for v in ctx.const_value(ctx.node.input[1], "split")]
    else:
        size = shape[axis]
        n = int(attrs.get("num_outputs", n_out))
        chunk = -(-size // n)
        sizes = [min(chunk, size - chunk * k) for k in range(n)]
    if len(sizes) != n_out:
        raise ctx.fail(f"{len(sizes)} split sizes for {n_out} outputs")
    bounds = list(np.cumsum(sizes)[:-1])
    return list(_op.split(ins[0], bounds, axis))


@_register("Pad")
def _pad(ctx, ins, attrs):
    nd = len(ctx.shape(ins[0]))
    mode = attrs.get("mode", "constant")
    if mode != "constant":
        raise ctx.fail(f"mode {mode!r} is not supported (only 'constant')")
    if ctx.opset < 11:
        pads, value = [int(p) for p in attrs["pads"]], float(attrs.get("value", 0.0))
        axes = list(range(nd))
    else:
        pads = [int(p) for p in ctx.const_value(ctx.node.input[1], "pads")]
        value = 0.0
        if len(ctx.node.input) > 2 and ctx.node.input[2]:
            value = float(ctx.const_value(ctx.node.input[2], "constant_value"))
        axes = list(range(nd))
        if len(ctx.node.input) > 3 and ctx.node.input[3]:
            axes = [int(a) % nd for a in ctx.const_value(ctx.node.input[3], "axes")]
    k = len(axes)
    if len(pads) != 2 * k or min(pads) < 0:
        raise ctx.fail(f"pads {pads} must be {2 * k} non-negative values")
    width = [[0, 0] for _ in range(nd)]
    for j, a in enumerate(axes):
        width[a] = [pads[j], pads[j + k]]
    return _nn.pad(ins[0], width, value)


_RESIZE = {1: _image.resize1d, 2: _image.resize2d, 3: _image.resize3d}


@_register("Resize")
def _resize(ctx, ins, attrs):
    shape = ctx.shape(ins[0])
    nsp = len(shape) - 2
    if nsp not in _RESIZE:
        raise ctx.fail(f"only 1-D, 2-D and 3-D (NC + spatial) inputs are supported, got shape "
                       f"{shape}")
    names = list(ctx.node.input) + [""] * 4
    rank = len(shape)
    axes = [int(a) % rank for a in attrs.get("axes", range(rank))]
    sizes = scales = roi = None
    if ctx.opset < 11:
        scales = ctx.const_value(names[1], "scales")
    else:
        if names[1]:
            roi = [float(v) for v in ctx.const_value(names[1], "roi")]
        if names[3]:
            sizes = [int(v) for v in ctx.const_value(names[3], "sizes")]
        if names[2] and sizes is None and ctx.const_value(names[2], "scales").size:
            scales = ctx.const_value(names[2], "scales")
    if attrs.get("keep_aspect_ratio_policy", "stretch") != "stretch":
        raise ctx.fail("keep_aspect_ratio_policy other than 'stretch' is not supported")
    if sizes is None and scales is None:
        raise ctx.fail("needs scales or sizes")
    full = list(shape)
    for k, a in enumerate(axes):
        full[a] = sizes[k] if sizes is not None else int(np.floor(shape[a] * float(scales[k])))
    if tuple(full[:2]) != tuple(shape[:2]):
        raise ctx.fail(f"only the spatial axes can be resized: {shape} -> {full}")
    mode = attrs.get("mode", "nearest")
    method = {"nearest": "nearest_neighbor", "linear": "linear", "cubic": "cubic"}.get(mode)
    if method is None:
        raise ctx.fail(f"mode {mode!r} is not supported (nearest, linear, cubic)")
    coord = attrs.get("coordinate_transformation_mode", "half_pixel")
    spatial_roi = None
    if coord == "tf_crop_and_resize":
        if roi is None:
            raise ctx.fail("tf_crop_and_resize needs the roi input")
        starts = dict(zip(axes, roi[:len(axes)]))
        ends = dict(zip(axes, roi[len(axes):]))
        spatial_roi = ([starts.get(a, 0.0) for a in range(2, rank)]
                       + [ends.get(a, 1.0) for a in range(2, rank)])
    rounding = attrs.get("nearest_mode", "round_prefer_floor") if mode == "nearest" else ""
    # given scales (not sizes), ONNX maps coordinates by the scales themselves, which differ
    # from the ratio of the sizes when the scaled size is not an integer
    spatial_scales = None
    if sizes is None:
        by_axis = dict(zip(axes, (float(v) for v in scales)))
        spatial_scales = [by_axis.get(a, 1.0) for a in range(2, rank)]
    return _RESIZE[nsp](ins[0], full[2:], roi=spatial_roi, method=method,
                        coordinate_transformation_mode=coord, rounding_method=rounding,
                        cubic_alpha=float(attrs.get("cubic_coeff_a", -0.75)),
                        cubic_exclude=int(attrs.get("exclude_outside", 0)),
                        extrapolation_value=float(attrs.get("extrapolation_value", 0.0)),
                        scales=spatial_scales)


@_register("Einsum")
def _einsum(ctx, ins, attrs):
    return _op.einsum(list(ins), attrs["equation"].replace(" ", ""))


@_register("ScatterElements", "Scatter")
def _scatter_elements(ctx, ins, attrs):
    reduction = attrs.get("reduction", "none")
    if reduction not in ("none", "add", "mul", "min", "max"):
        raise ctx.fail(f"reduction {reduction!r} is not supported")
    return _op.scatter_elements(ins[0], ins[1], ins[2], int(attrs.get("axis", 0)),
                                "update" if reduction == "none" else reduction)


@_register("ScatterND")
def _scatter_nd(ctx, ins, attrs):
    reduction = attrs.get("reduction", "none")
    if reduction not in ("none", "add"):
        raise ctx.fail(f"reduction {reduction!r} is not supported (none, add)")
    k = len(ctx.shape(ins[1]))
    # ONNX indexes with the last axis of indices, relay's scatter_nd with the first
    indices = _op.transpose(ins[1], [k - 1] + list(range(k - 1)))
    return _op.scatter_nd(ins[0], indices, ins[2], "update" if reduction == "none" else "add")


@_register("Upsample")
def _upsample(ctx, ins, attrs):
    # opsets 7-9 (deprecated by Resize): scales as an attribute, then as an input; the
    # source coordinate is the output's divided by the scale ("asymmetric"), floored
    shape = _check_2d(ctx, ins[0])
    scales = attrs.get("scales")
    if scales is None:
        scales = ctx.const_value(ctx.node.input[1], "scales")
    scales = [float(v) for v in np.asarray(scales).reshape(-1)]
    if len(scales) != 4 or scales[:2] != [1.0, 1.0]:
        raise ctx.fail(f"scales {scales} must be 4 values that keep N and C (1, 1, h, w)")
    mode = attrs.get("mode", "nearest")
    if mode not in ("nearest", "linear", "bilinear"):
        raise ctx.fail(f"mode {mode!r} is not supported (nearest, linear)")
    sizes = [int(np.floor(d * s)) for d, s in zip(shape[2:], scales[2:])]
    return _image.resize2d(ins[0], sizes, method="nearest_neighbor" if mode == "nearest"
                           else "linear", coordinate_transformation_mode="asymmetric",
                           rounding_method="floor" if mode == "nearest" else "",
                           scales=scales[2:])


@_register("Compress")
def _compress(ctx, ins, attrs):
    cond = np.asarray(ctx.const_value(ctx.node.input[1], "condition")).reshape(-1)
    x = ins[0]
    axis = attrs.get("axis")
    if axis is None:
        x, axis = _op.reshape(x, (-1,)), 0
    axis = int(axis)
    size = ctx.shape(x)[axis]
    if cond.size > size:
        raise ctx.fail(f"condition has {cond.size} entries, more than the {size} of axis {axis}")
    picked = np.nonzero(cond.astype(bool))[0].astype("int64")
    return _op.take(x, const(picked), axis=axis)


@_register("ReverseSequence")
def _reverse_sequence(ctx, ins, attrs):
    return _op.reverse_sequence(ins[0], ins[1], int(attrs.get("time_axis", 0)),
                                int(attrs.get("batch_axis", 1)))


@_register("LayerNormalization")
def _layer_norm(ctx, ins, attrs):
    shape = ctx.shape(ins[0])
    axis = int(attrs.get("axis", -1))
    axis = axis + len(shape) if axis < 0 else axis
    if axis != len(shape) - 1:
        raise ctx.fail(f"only normalisation over the last axis is supported, got axis "
                       f"{attrs.get('axis')} of shape {shape}")
    if len([o for o in ctx.node.output if o]) > 1:
        raise ctx.fail("only the first output (Y) is supported")
    beta = ins[2] if len(ins) > 2 and ins[2] is not None else None
    dt = ctx.dtype(ins[0])
    if beta is None:
        beta = const(np.zeros(shape[-1], dt), dt)
    return _nn.layer_norm(ins[0], ins[1], beta, axis, float(attrs.get("epsilon", 1e-5)),
                          center=len(ins) > 2 and ins[2] is not None)


@_register("ConvTranspose")
def _conv_transpose(ctx, ins, attrs):
    x, w = ins[0], ins[1]
    xs = _check_2d(ctx, x)
    ws = ctx.shape(w)
    if int(attrs.get("group", 1)) != 1:
        raise ctx.fail(f"group={attrs['group']} is not supported (only 1)")
    if tuple(attrs.get("dilations", (1, 1))) != (1, 1):
        raise ctx.fail(f"dilations {attrs['dilations']} are not supported (only 1)")
    strides = tuple(int(v) for v in attrs.get("strides", (1, 1)))
    opad = tuple(int(v) for v in attrs.get("output_padding", (0, 0)))
    kernel = tuple(int(v) for v in attrs.get("kernel_shape", ws[2:]))
    auto = attrs.get("auto_pad", "NOTSET")
    if "output_shape" in attrs or auto not in ("NOTSET", "", "VALID"):
        # the pads that give the requested (or SAME) output size
        want = [int(v) for v in attrs.get("output_shape", [d * s for d, s in
                                                           zip(xs[2:], strides)])][-2:]
        pads_lo, pads_hi = [], []
        for i in range(2):
            total = strides[i] * (xs[2 + i] - 1) + opad[i] + kernel[i] - want[i]
            if total < 0:
                raise ctx.fail(f"output_shape {want} is larger than the full output")
            small, big = total // 2, total - total // 2
            lo, hi = (big, small) if auto == "SAME_LOWER" else (small, big)
            pads_lo.append(lo)
            pads_hi.append(hi)
        pads = (pads_lo[0], pads_lo[1], pads_hi[0], pads_hi[1])
    else:
        pads = tuple(int(p) for p in attrs.get("pads", (0, 0, 0, 0)))
    out = _nn.conv2d_transpose(x, w, strides=strides, padding=pads, output_padding=opad)
    if len(ins) > 2 and ins[2] is not None:
        out = _nn.bias_add(out, ins[2])
    return out


# ------------------------------------------------------------ more tensor and nn operators
@_register("IsInf")
def _isinf(ctx, ins, attrs):
    x = ins[0]
    pos, neg = int(attrs.get("detect_positive", 1)), int(attrs.get("detect_negative", 1))
    out = _op.isinf(x)
    if pos and neg:
        return out
    zero = const(0.0, ctx.dtype(x))
    if pos:
        return _op.logical_and(out, _op.greater(x, zero))
    if neg:
        return _op.logical_and(out, _op.less(x, zero))
    return _op.logical_and(out, _op.logical_not(out))


@_register("Tile")
def _tile(ctx, ins, attrs):
    reps = ctx.const_value(ctx.node.input[1], "repeats")
    return _op.tile(ins[0], [int(r) for r in np.atleast_1d(reps)])


def _indices(ctx, idx: Expr, size=None) -> Expr:
    """ONNX indices as int32, negative ones counted from ``size`` (a dimension's extent or
    a tensor of extents broadcast against them)."""
    dt = ctx.dtype(idx)
    if dt != "int32":
        idx = _op.cast(idx, "int32")
    if size is None:
        return idx
    size = size if isinstance(size, Expr) else const(int(size), "int32")
    return _op.where(_op.less(idx, const(0, "int32")), _op.add(idx, size), idx)


@_register("GatherElements")
def _gather_elements(ctx, ins, attrs):
    shape = ctx.shape(ins[0])
    axis = int(attrs.get("axis", 0))
    return _op.gather(ins[0], axis, _indices(ctx, ins[1], shape[axis % len(shape)]))


@_register("GatherND")
def _gather_nd(ctx, ins, attrs):
    data, idx = ins
    shape, ishape = ctx.shape(data), ctx.shape(idx)
    b = int(attrs.get("batch_dims", 0))
    m = ishape[-1]
    extents = const(np.array(shape[b:b + m], "int32"))
    idx = _indices(ctx, idx, extents)
    # ONNX puts the coordinates last, relay first
    perm = (len(ishape) - 1,) + tuple(range(len(ishape) - 1))
    return _op.gather_nd(data, _op.transpose(idx, perm), batch_dims=b)


@_register("OneHot")
def _one_hot(ctx, ins, attrs):
    depth = int(np.asarray(ctx.const_value(ctx.node.input[1], "depth")).reshape(()))
    values = np.asarray(ctx.const_value(ctx.node.input[2], "values"))
    if values.shape != (2,):
        raise ctx.fail(f"values must hold (off_value, on_value), got shape {values.shape}")
    dt = str(values.dtype)
    idx = ins[0]
    if not ctx.dtype(idx).startswith("int"):
        idx = _op.cast(idx, "int64")
    idx = _indices(ctx, idx, depth)
    return _op.one_hot(idx, const(values[1], dt), const(values[0], dt), depth,
                       int(attrs.get("axis", -1)), dt)


@_register("Range")
def _range(ctx, ins, attrs):
    vals = [np.asarray(ctx.const_value(n, w)).reshape(()) for n, w in
            zip(ctx.node.input, ("start", "limit", "delta"))]
    return _op.arange(*(v.item() for v in vals), dtype=str(vals[0].dtype))


@_register("CumSum")
def _cumsum(ctx, ins, attrs):
    axis = int(np.asarray(ctx.const_value(ctx.node.input[1], "axis")).reshape(()))
    x = ins[0]
    if attrs.get("reverse", 0):
        x = _op.reverse(x, axis)
    out = _op.cumsum(x, axis, exclusive=bool(attrs.get("exclusive", 0)))
    return _op.reverse(out, axis) if attrs.get("reverse", 0) else out


@_register("TopK")
def _topk(ctx, ins, attrs):
    if ctx.opset < 10:
        if "k" not in attrs:
            raise ctx.fail("attribute k is required before opset 10")
        k = int(attrs["k"])
    else:
        if len(ctx.node.input) < 2 or not ctx.node.input[1]:
            raise ctx.fail("input K is required")
        kv = np.asarray(ctx.const_value(ctx.node.input[1], "K")).reshape(-1)
        if kv.size != 1:
            raise ctx.fail(f"K must hold one value, got {kv.size}")
        k = int(kv[0])
    shape = ctx.shape(ins[0])
    axis = int(attrs.get("axis", -1))
    if not -len(shape) <= axis < len(shape):
        raise ctx.fail(f"axis {axis} is out of range for input shape {shape}")
    size = shape[axis]
    if not 1 <= k <= size:
        raise ctx.fail(f"K={k} must be in [1, {size}] (axis {axis} of input shape {shape})")
    # the results always come sorted (``sorted=0`` leaves the order unspecified); ties keep
    # the lower index first, as ONNX asks
    out = _algorithm.topk(ins[0], k, axis, "both", is_ascend=not attrs.get("largest", 1),
                          dtype="int64")
    return [out[0], out[1]]


@_register("Trilu")
def _trilu(ctx, ins, attrs):
    k = 0
    if len(ins) > 1 and ins[1] is not None:
        name = ctx.node.input[1]
        k = int(np.asarray(ctx.consts[name]).reshape(())) if name in ctx.consts else \
            _op.cast(ins[1], "int32")
    return _op.trilu(ins[0], k, bool(attrs.get("upper", 1)))


@_register("DepthToSpace")
def _depth_to_space(ctx, ins, attrs):
    return _nn.depth_to_space(ins[0], int(attrs["blocksize"]), mode=attrs.get("mode", "DCR"))


@_register("SpaceToDepth")
def _space_to_depth(ctx, ins, attrs):
    return _nn.space_to_depth(ins[0], int(attrs["blocksize"]))


@_register("InstanceNormalization")
def _instance_norm(ctx, ins, attrs):
    return _nn.instance_norm(ins[0], ins[1], ins[2], 1, float(attrs.get("epsilon", 1e-5)))


@_register("LRN")
def _lrn(ctx, ins, attrs):
    return _nn.lrn(ins[0], int(attrs["size"]), 1, float(attrs.get("bias", 1.0)),
                   float(attrs.get("alpha", 1e-4)), float(attrs.get("beta", 0.75)))


@_register("GlobalMaxPool")
def _global_max_pool(ctx, ins, attrs):
    _check_2d(ctx, ins[0])
    return _nn.global_max_pool2d(ins[0])


def _constant_array(ctx: _Ctx, attrs) -> np.ndarray:
    for key in ("value", "value_float", "value_floats", "value_int", "value_ints"):
        if key in attrs:
            v = np.asarray(attrs[key])
            if key.startswith("value_float"):
                v = v.astype("float32")
            elif key.startswith("value_int"):
                v = v.astype("int64")
            return v
    raise ctx.fail(f"no supported value attribute (has {sorted(attrs)})")


# -------------------------------------------------------------------------------- import
_NO_FOLD = {"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike",
            "Multinomial", "Bernoulli"}


def _fold_node(ctx: _Ctx, node) -> List[np.ndarray]:
    """The outputs of ``node``, whose inputs are all constants, by onnx's reference
    evaluator (one node, the model's opset)."""
    _onnx()
    from onnx import helper
    from onnx.reference import ReferenceEvaluator
    names = [n for n in node.input if n]
    feeds = {n: ctx.consts[n] for n in names}
    inputs = [helper.make_tensor_value_info(
        n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape) for n, a in feeds.items()]
    outputs = [helper.make_empty_tensor_value_info(o) for o in node.output if o]
    graph = helper.make_graph([node], "fold", inputs, outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", ctx.opset)])
    try:
        res = ReferenceEvaluator(model).run(None, feeds)
    except Exception as e:  # the reference raises what its numpy code raises
        raise ctx.fail(f"cannot evaluate the constant node: {type(e).__name__}: {e}") from None
    it = iter(res)
    return [np.asarray(next(it)) if o else None for o in node.output]


def _load(model):
    onnx = _onnx()
    if isinstance(model, onnx.ModelProto):
        return model
    source = ""
    try:
        if isinstance(model, (bytes, bytearray)):
            return onnx.load_model_from_string(bytes(model))
        if isinstance(model, (str, os.PathLike)):
            source = f" {os.fspath(model)!r}"
            return onnx.load(os.fspath(model))
    except Exception as e:  # protobuf raises its own DecodeError
        what = "" if isinstance(e, OSError) else " (truncated, corrupted or not ONNX)"
        raise OnnxImportError(f"from_onnx: cannot read the ONNX model{source}{what}: "
                              f"{type(e).__name__}: {e}") from None
    raise OnnxImportError(f"from_onnx expects an onnx.ModelProto, bytes or a path, got "
                          f"{type(model).__name__}")


def _elem_dtype(elem_type: int) -> str:
    onnx = _onnx()
    return str(onnx.helper.tensor_dtype_to_np_dtype(elem_type))


def from_onnx(model, shape: Optional[Dict[str, Sequence[int]]] = None,
              dtype: Union[str, Dict[str, str]] = "float32", opset: Optional[int] = None,
              freeze_params: bool = False) -> Tuple[IRModule, Dict[str, Any]]:
    """Import an ONNX model as a relay module.

    Parameters
    ----------
    model : onnx.ModelProto, serialized bytes or a file path
    shape : input name -> static shape (needed where the model's input shape is dynamic)
    dtype : the inputs' dtype, or a dict by input name (default: the model's)
    opset : overrides the model's default-domain opset
    freeze_params : initializers become constants instead of parameters

    Returns
    -------
    (IRModule, dict of str to NDArray)
        ``main`` and the parameters (initializers) by name.
    """
    onnx = _onnx()
    model = _load(model)
    graph = model.graph
    if opset is None:
        opset = max((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")),
                    default=13)
    ctx = _Ctx(int(opset))
    shape = dict(shape or {})
    params: Dict[str, Any] = {}
    param_vars: List[Var] = []
    for init in graph.initializer:
        arr = onnx.numpy_helper.to_array(init)
        ctx.consts[init.name] = arr
        if freeze_params or arr.dtype.kind in "iub":
            ctx.static.add(init.name)  # integer initializers are shape operands
        if freeze_params:
            ctx.values[init.name] = Constant(_nd.array(np.array(arr, order="C")))
        else:
            v = var(init.name, shape=arr.shape, dtype=str(arr.dtype))
            ctx.values[init.name] = v
            param_vars.append(v)
            params[init.name] = _nd.array(np.array(arr, order="C"))
    inputs: List[Var] = []
    for inp in graph.input:
        if inp.name in ctx.values:
            continue  # an initializer listed as an input (old exporters)
        tt = inp.type.tensor_type
        if inp.name in shape:
            # relay.Any() (or None) keeps a dimension unknown: the module then runs on the
            # relay VM (relay.build refuses it)
            dims = tuple(_Any() if d is None or isinstance(d, _Any) else int(d)
                         for d in shape[inp.name])
        else:
            dims = []
            for i, d in enumerate(tt.shape.dim):
                if d.HasField("dim_value") and d.dim_value > 0:
                    dims.append(int(d.dim_value))
                else:
                    sym = d.dim_param or "?"
                    raise OnnxImportError(
                        f"from_onnx: input {inp.name!r} has a dynamic dimension {i} ({sym!r}): "
                        f"give its shape with shape={{{inp.name!r}: (...)}} (relay.Any() for "
                        "a dimension left to run time, for the relay VM)")
        dt = dtype.get(inp.name) if isinstance(dtype, dict) else None
        dt = dt or (_elem_dtype(tt.elem_type) if tt.elem_type else
                    (dtype if isinstance(dtype, str) else "float32"))
        v = var(inp.name, shape=dims, dtype=dt)
        ctx.values[inp.name] = v
        inputs.append(v)
    unknown = set(shape) - {v.name_hint for v in inputs}
    if unknown:
        raise OnnxImportError(f"from_onnx: shape= names {sorted(unknown)}, which are not "
                              f"inputs of the model (inputs: {[v.name_hint for v in inputs]})")
    for node in graph.node:
        ctx.node = node
        if node.domain not in ("", "ai.onnx") and not (
                node.domain == "com.microsoft" and node.op_type in _quantized.MICROSOFT_OPS):
            raise ctx.fail(f"domain {node.domain!r} is not supported")
        attrs = _attrs(node)
        if node.op_type == "Constant":
            ctx.set_const(node.output[0], _constant_array(ctx, attrs))
            continue
        named = [n for n in node.input if n]
        if named and all(n in ctx.static for n in named) and node.op_type not in _NO_FOLD:
            # shape arithmetic of constants (Shape -> Gather -> Concat -> Reshape): evaluated
            # here by onnx's reference implementation of the node
            for name, arr in zip(node.output, _fold_node(ctx, node)):
                if name:
                    ctx.set_const(name, arr)
            continue
        conv = _CONVERTERS.get(node.op_type)
        if conv is None:
            raise OnnxImportError(f"from_onnx: operator {node.op_type} (node "
                                  f"{node.name or '<unnamed>'!r}) is not supported")
        ins = []
        for name in node.input:
            if not name:
                ins.append(None)
                continue
            if name not in ctx.values:
                raise ctx.fail(f"input {name!r} is not produced by any earlier node")
            ins.append(ctx.values[name])
        try:
            out = conv(ctx, ins, attrs)
            outs = out if isinstance(out, list) else [out]
            for o in outs:
                if isinstance(o, Expr):
                    infer_type(o)
        except OnnxImportError:
            raise
        except TVMError as e:
            raise OnnxImportError(f"from_onnx: {ctx.where()}: {e}") from None
        for name, o in zip(node.output, outs):
            if not name:
                continue
            if isinstance(o, np.ndarray):  # a value known at import time (Shape)
                ctx.set_const(name, o)
            else:
                ctx.values[name] = o
    results = []
    for o in graph.output:
        if o.name not in ctx.values:
            raise OnnxImportError(f"from_onnx: graph output {o.name!r} is never produced")
        results.append(ctx.values[o.name])
    body = results[0] if len(results) == 1 else RTuple(results)
    func = Function(inputs + param_vars, body)
    infer_type(func)
    return IRModule({"main": func}), params


# ------------------------------------------------------------- vision: RoiAlign, MaxRoiPool
# (NonMaxSuppression is not converted: its output's length is the number of boxes selected
# at run time, and relay.build here compiles static shapes only.)
def _rois_with_batch(ctx: _Ctx, rois: Expr, batch_indices: Expr) -> Expr:
    """ONNX's ``rois (R, 4)`` and ``batch_indices (R,)`` as relay's ``(R, 5)`` ROIs."""
    idx = _op.cast(_op.expand_dims(batch_indices, 1), ctx.dtype(rois))
    return _op.concatenate([idx, rois], 1)


@_register("RoiAlign")
def _roi_align(ctx, ins, attrs):
    x, rois, batch_indices = ins[:3]
    _check_2d(ctx, x)
    mode = attrs.get("mode", "avg")
    if mode != "avg":
        # onnxruntime's max mode takes the max of the weighted bilinear corners, not of the
        # samples as relay.vision.roi_align does
        raise ctx.fail(f"mode {mode!r} is not supported (only 'avg')")
    ctm = attrs.get("coordinate_transformation_mode",
                    "half_pixel" if ctx.opset >= 16 else "output_half_pixel")
    if ctm != "output_half_pixel":
        raise ctx.fail(f"coordinate_transformation_mode {ctm!r} is not supported (only "
                       "'output_half_pixel', the opset-10 behaviour: half_pixel shifts the "
                       "ROIs by half a pixel and lets them be smaller than one)")
    size = (int(attrs.get("output_height", 1)), int(attrs.get("output_width", 1)))
    return _op.vision.roi_align(x, _rois_with_batch(ctx, rois, batch_indices), size,
                                float(attrs.get("spatial_scale", 1.0)),
                                int(attrs.get("sampling_ratio", 0)), "NCHW", "avg")


@_register("MaxRoiPool")
def _max_roi_pool(ctx, ins, attrs):
    x, rois = ins[:2]
    _check_2d(ctx, x)
    if "pooled_shape" not in attrs:
        raise ctx.fail("attribute pooled_shape is required")
    return _op.vision.roi_pool(x, rois, tuple(int(v) for v in attrs["pooled_shape"]),
                               float(attrs.get("spatial_scale", 1.0)), "NCHW")
