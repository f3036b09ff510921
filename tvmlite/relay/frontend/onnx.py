"""ONNX frontend (``relay.frontend.from_onnx``): each ONNX node maps to relay ops.

Initializers become parameters (returned in ``params``) or, with ``freeze_params=True``,
constants. Inputs whose shape is not fully static in the model need ``shape={name: ...}``.
Shape-like operands (Reshape's shape) must be constants.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from ...error import TVMError
from ...ir.module import IRModule
from ...runtime import ndarray as _nd
from .. import op as _op
from ..expr import Constant, Expr, Function, Var, const, var
from ..expr import Tuple as RTuple
from ..op import nn as _nn
from ..transform.infer_type import infer_type
from ..ty import TensorType


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
        self.node = None

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


def _spatial_pads(ctx: _Ctx, attrs, in_hw: Sequence[int], kernel: Sequence[int],
                  strides: Sequence[int], dilations: Sequence[int]) -> Tuple[int, ...]:
    """ONNX ``pads``/``auto_pad`` as relay's ``(top, left, bottom, right)``."""
    auto = attrs.get("auto_pad", "NOTSET")
    if auto in ("NOTSET", ""):
        pads = list(attrs.get("pads", [0] * 4))
        if len(pads) != 4:
            raise ctx.fail(f"pads {pads} must have 4 values (2-D only)")
        return tuple(int(p) for p in pads)
    if auto == "VALID":
        return (0, 0, 0, 0)
    if auto not in ("SAME_UPPER", "SAME_LOWER"):
        raise ctx.fail(f"auto_pad {auto!r} is not supported")
    lo, hi = [], []
    for size, k, s, d in zip(in_hw, kernel, strides, dilations):
        out = -(-size // s)
        total = max((out - 1) * s + (k - 1) * d + 1 - size, 0)
        small, big = total // 2, total - total // 2
        lo.append(small if auto == "SAME_UPPER" else big)
        hi.append(big if auto == "SAME_UPPER" else small)
    return (lo[0], lo[1], hi[0], hi[1])


def _check_2d(ctx: _Ctx, x: Expr, what: str = "input") -> Tuple[int, ...]:
    shape = ctx.shape(x)
    if len(shape) != 4:
        raise ctx.fail(f"only 2-D (NCHW) {what} is supported, got shape {shape}")
    return shape


@_register("Conv")
def _conv(ctx, ins, attrs):
    x, w = ins[0], ins[1]
    xs = _check_2d(ctx, x)
    ws = ctx.shape(w)
    kernel = tuple(attrs.get("kernel_shape", ws[2:]))
    strides = tuple(attrs.get("strides", (1, 1)))
    dilations = tuple(attrs.get("dilations", (1, 1)))
    pads = _spatial_pads(ctx, attrs, xs[2:], kernel, strides, dilations)
    out = _nn.conv2d(x, w, strides=strides, padding=pads, dilation=dilations,
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
    if len(sb) != 2 or len(sa) < 2:
        raise ctx.fail(f"only A (..., K) @ B (K, N) with a 2-D B is supported, got {sa} and "
                       f"{sb}")
    bt = _op.transpose(b, (1, 0))
    if len(sa) == 2:
        return _nn.dense(a, bt)
    flat = _op.reshape(a, (-1, sa[-1]))
    return _op.reshape(_nn.dense(flat, bt), tuple(sa[:-1]) + (sb[1],))


@_register("Relu")
def _relu(ctx, ins, attrs):
    return _nn.relu(ins[0])


def _pool(ctx, ins, attrs, kind: str):
    x = ins[0]
    xs = _check_2d(ctx, x)
    kernel = tuple(attrs["kernel_shape"])
    strides = tuple(attrs.get("strides", (1, 1)))
    dilations = tuple(attrs.get("dilations", (1, 1)))
    if attrs.get("storage_order", 0):
        raise ctx.fail("storage_order=1 (column major) is not supported")
    pads = _spatial_pads(ctx, attrs, xs[2:], kernel, strides, dilations)
    ceil = bool(attrs.get("ceil_mode", 0))
    if kind == "max":
        return _nn.max_pool2d(x, kernel, strides, dilations, pads, ceil_mode=ceil)
    return _nn.avg_pool2d(x, kernel, strides, dilations, pads, ceil_mode=ceil,
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


@_register("Softmax")
def _softmax(ctx, ins, attrs):
    x = ins[0]
    shape = ctx.shape(x)
    nd = len(shape)
    axis = int(attrs.get("axis", -1 if ctx.opset >= 13 else 1))
    axis = axis + nd if axis < 0 else axis
    if ctx.opset >= 13 or axis == nd - 1:
        return _nn.softmax(x, axis)
    # before opset 13: softmax of the input flattened to 2-D at axis
    outer = int(np.prod(shape[:axis], dtype=np.int64))
    flat = _op.reshape(x, (outer, -1))
    return _op.reshape(_nn.softmax(flat, -1), shape)


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
def _load(model):
    onnx = _onnx()
    if isinstance(model, onnx.ModelProto):
        return model
    try:
        if isinstance(model, (bytes, bytearray)):
            return onnx.load_model_from_string(bytes(model))
        if isinstance(model, str):
            return onnx.load(model)
    except Exception as e:  # protobuf raises its own DecodeError
        raise OnnxImportError(f"from_onnx: cannot read the ONNX model: {type(e).__name__}: "
                              f"{e}") from None
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
        if freeze_params:
            ctx.values[init.name] = Constant(_nd.array(np.ascontiguousarray(arr)))
        else:
            v = var(init.name, shape=arr.shape, dtype=str(arr.dtype))
            ctx.values[init.name] = v
            param_vars.append(v)
            params[init.name] = _nd.array(np.ascontiguousarray(arr))
    inputs: List[Var] = []
    for inp in graph.input:
        if inp.name in ctx.values:
            continue  # an initializer listed as an input (old exporters)
        tt = inp.type.tensor_type
        if inp.name in shape:
            dims = tuple(int(d) for d in shape[inp.name])
        else:
            dims = []
            for i, d in enumerate(tt.shape.dim):
                if d.HasField("dim_value") and d.dim_value > 0:
                    dims.append(int(d.dim_value))
                else:
                    sym = d.dim_param or "?"
                    raise OnnxImportError(
                        f"from_onnx: input {inp.name!r} has a dynamic dimension {i} ({sym!r}): "
                        f"give its shape with shape={{{inp.name!r}: (...)}}")
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
        if node.domain not in ("", "ai.onnx"):
            raise ctx.fail(f"domain {node.domain!r} is not supported")
        attrs = _attrs(node)
        if node.op_type == "Constant":
            arr = _constant_array(ctx, attrs)
            ctx.consts[node.output[0]] = arr
            ctx.values[node.output[0]] = Constant(_nd.array(np.ascontiguousarray(arr)))
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
                infer_type(o)
        except OnnxImportError:
            raise
        except TVMError as e:
            raise OnnxImportError(f"from_onnx: {ctx.where()}: {e}") from None
        for name, o in zip(node.output, outs):
            if name:
                ctx.values[name] = o
        if node.op_type == "Identity" and node.input[0] in ctx.consts:
            ctx.consts[node.output[0]] = ctx.consts[node.input[0]]
    results = []
    for o in graph.output:
        if o.name not in ctx.values:
            raise OnnxImportError(f"from_onnx: graph output {o.name!r} is never produced")
        results.append(ctx.values[o.name])
    body = results[0] if len(results) == 1 else RTuple(results)
    func = Function(inputs + param_vars, body)
    infer_type(func)
    return IRModule({"main": func}), params
