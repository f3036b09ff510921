"""QNN operators (``relay.qnn.op``): quantized tensors as integer tensors with scales and zero
points, ``real = scale * (q - zero_point)``.

Each operator has its type relation here and no compute: ``relay.qnn.transform.
CanonicalizeOps`` (run by ``relay.build`` first) rewrites it into core relay operators with
classic's integer semantics (see :mod:`.canonicalizations`).
"""
from __future__ import annotations

from typing import Any, Dict, List, Sequence

from ....error import TVMError
from ...expr import Expr, Tuple, TupleWrapper, const
from ...op._rel import (
    RelayTypeError,
    broadcast_shapes,
    tensor_arg,
    tuple_arg,
)
from ...op.registry import OpPattern, get, make_call, register, register_arg_types
from ...op.tensor import reshape
from ...ty import TensorType, TupleType, Type

__all__ = ["RequantizeConfig", "current_requantize_config", "requantize_config", "requantize",
           "quantize", "simulated_quantize", "dequantize", "simulated_dequantize",
           "concatenate", "conv2d", "conv2d_transpose", "add", "dense", "mul", "tanh", "exp",
           "sqrt", "rsqrt", "erf", "abs", "sigmoid", "hardswish", "log", "subtract",
           "batch_matmul", "leaky_relu", "SQNN_DTYPE_TO_CODE", "UNARY_OPS"]

#: the data types quantized tensors may have
QUANTIZED_DTYPES = ("int8", "uint8", "int16", "int32")
#: classic ``topi.nn.qnn``'s dtype codes of ``simulated_(de)quantize``
SQNN_DTYPE_TO_CODE = {"disable": 0, "int8": 1, "uint8": 2, "int32": 3}
#: the element-wise unary QNN ops (``qnn.<name>``) and their float functions' relay ops
UNARY_OPS = ("tanh", "exp", "sqrt", "rsqrt", "erf", "sigmoid", "hardswish", "log", "abs")


# ------------------------------------------------------------------------- requantize config
class RequantizeConfig:
    """The requantize defaults in scope (``with relay.qnn.op.requantize_config(...)``):
    ``rounding`` ("UPWARD" or "TONEAREST") and ``compute_dtype`` ("int64", "float32" or
    "float64"), used where a requantize leaves them "None"."""

    _node_defaults = {"rounding": "UPWARD", "compute_dtype": "int64"}
    _stack: List["RequantizeConfig"] = []

    def __init__(self, rounding: str = "UPWARD", compute_dtype: str = "int64",
                 is_default: bool = False):
        if rounding not in ("UPWARD", "TONEAREST"):
            raise TVMError(f"requantize_config: rounding must be 'UPWARD' or 'TONEAREST', "
                           f"got {rounding!r}")
        if compute_dtype not in ("int64", "float32", "float64"):
            raise TVMError(f"requantize_config: compute_dtype must be 'int64', 'float32' or "
                           f"'float64', got {compute_dtype!r}")
        object.__setattr__(self, "rounding", rounding)
        object.__setattr__(self, "compute_dtype", compute_dtype)
        object.__setattr__(self, "is_default", is_default)

    def __setattr__(self, name, value):
        raise AttributeError(f"'{type(self)}' object cannot set attribute '{name}'")

    def __enter__(self) -> "RequantizeConfig":
        RequantizeConfig._stack.append(self)
        return self

    def __exit__(self, ptype, value, trace) -> None:
        RequantizeConfig._stack.pop()

    def __repr__(self) -> str:
        return f"RequantizeConfig(rounding={self.rounding!r}, " \
               f"compute_dtype={self.compute_dtype!r})"


_DEFAULT_CONFIG = RequantizeConfig(is_default=True)


def current_requantize_config() -> RequantizeConfig:
    """The innermost :func:`requantize_config` in scope (the defaults outside any)."""
    return RequantizeConfig._stack[-1] if RequantizeConfig._stack else _DEFAULT_CONFIG


def requantize_config(**kwargs) -> RequantizeConfig:
    """A scope of requantize defaults: ``rounding`` and ``compute_dtype``."""
    unknown = set(kwargs) - set(RequantizeConfig._node_defaults)
    if unknown:
        raise TVMError(f"requantize_config: unknown option(s) {sorted(unknown)}")
    return RequantizeConfig(**{**RequantizeConfig._node_defaults, **kwargs})


# --------------------------------------------------------------------------- type relations
def _dtype_arg(op: str, t: TensorType, what: str, allowed: Sequence[str]) -> None:
    if t.dtype not in allowed:
        raise RelayTypeError(f"{op}: {what} must be {' or '.join(allowed)}, got {t.dtype}")


def _qparam(op: str, types: Sequence[Type], i: int, what: str, dtype: str,
            channels=None) -> TensorType:
    """A scale (float32) or zero point (int32): a scalar, one element, or (with
    ``channels``, an int or a ``(count, axis name, axis)`` triple whose count is None when
    the axis is out of range) a 1-D tensor of one value per channel."""
    t = tensor_arg(op, types, i, what)
    if t.dtype != dtype:
        raise RelayTypeError(f"{op}: {what} must be {dtype}, got {t.dtype}")
    size = 1
    for d in t.shape:
        size *= int(d)
    if len(t.shape) == 0 or (len(t.shape) == 1 and size == 1):
        return t
    if isinstance(channels, tuple):
        count, axis_name, axis = channels
        if count is None:
            raise RelayTypeError(f"{op}: {axis_name} {axis} is out of range (needed by the "
                                 f"per-channel {what})")
        channels = count
    if channels is not None and len(t.shape) == 1 and size == channels:
        return t
    want = "a scalar" if channels is None else f"a scalar or 1-D of {channels} (per channel)"
    raise RelayTypeError(f"{op}: {what} must be {want}, got shape {t.shape}")


def _axis_channels(op: str, data: TensorType, axis: int, what: str = "axis") -> tuple:
    """``(channels along axis or None if out of range, what, axis)`` for :func:`_qparam`
    (classic: an axis below rank 2 is 0)."""
    rank = len(data.shape)
    if rank <= 1:
        return (int(data.shape[0]) if rank else 1, what, axis)
    a = axis + rank if axis < 0 else axis
    return (int(data.shape[a]) if 0 <= a < rank else None, what, axis)


def _param_types(dtypes: Dict[int, str], channels_of=None):
    """``Op.arg_types`` that gives unannotated scale / zero point arguments their type:
    ``dtypes`` maps the argument index to its dtype; ``channels_of(types, attrs, i)`` the
    per-channel size (classic ``AssignType``), else a scalar."""
    def fill(types: List[Any], attrs) -> List[Any]:
        out = list(types)
        for i, dt in dtypes.items():
            if i < len(out) and out[i] is None:
                n = channels_of(types, attrs, i) if channels_of is not None else None
                out[i] = TensorType((n,) if n is not None else (), dt)
        return out
    return fill


def _quantize_rel(types, attrs):
    op = "qnn.quantize"
    data = tensor_arg(op, types, 0, "data")
    _dtype_arg(op, data, "data", ("float32",))
    c = _axis_channels(op, data, attrs.axis)
    _qparam(op, types, 1, "output_scale", "float32", c)
    _qparam(op, types, 2, "output_zero_point", "int32", c)
    if attrs.out_dtype not in QUANTIZED_DTYPES:
        raise RelayTypeError(f"{op}: out_dtype must be one of {QUANTIZED_DTYPES}, got "
                             f"{attrs.out_dtype!r}")
    return TensorType(data.shape, attrs.out_dtype)


def _dequantize_rel(types, attrs):
    op = "qnn.dequantize"
    data = tensor_arg(op, types, 0, "data")
    _dtype_arg(op, data, "data", QUANTIZED_DTYPES)
    c = _axis_channels(op, data, attrs.axis)
    _qparam(op, types, 1, "input_scale", "float32", c)
    _qparam(op, types, 2, "input_zero_point", "int32", c)
    return TensorType(data.shape, "float32")


def _requantize_rel(types, attrs):
    op = "qnn.requantize"
    data = tensor_arg(op, types, 0, "data")
    _dtype_arg(op, data, "data", QUANTIZED_DTYPES)
    c = _axis_channels(op, data, attrs.axis)
    _qparam(op, types, 1, "input_scale", "float32", c)
    _qparam(op, types, 2, "input_zero_point", "int32", c)
    _qparam(op, types, 3, "output_scale", "float32")
    _qparam(op, types, 4, "output_zero_point", "int32")
    if attrs.rounding not in ("None", "UPWARD", "TONEAREST"):
        raise RelayTypeError(f"{op}: rounding must be 'UPWARD' or 'TONEAREST', got "
                             f"{attrs.rounding!r}")
    if attrs.compute_dtype not in ("None", "int64", "float32", "float64"):
        raise RelayTypeError(f"{op}: compute_dtype must be 'int64', 'float32' or 'float64', "
                             f"got {attrs.compute_dtype!r}")
    if attrs.out_dtype not in QUANTIZED_DTYPES:
        raise RelayTypeError(f"{op}: out_dtype must be one of {QUANTIZED_DTYPES}, got "
                             f"{attrs.out_dtype!r}")
    return TensorType(data.shape, attrs.out_dtype)


def _binary_rel(name: str):
    op = f"qnn.{name}"

    def rel(types, attrs):
        lhs, rhs = tensor_arg(op, types, 0, "lhs"), tensor_arg(op, types, 1, "rhs")
        _dtype_arg(op, lhs, "lhs", QUANTIZED_DTYPES)
        if lhs.dtype != rhs.dtype:
            raise RelayTypeError(f"{op}: lhs and rhs have different dtypes {lhs.dtype} and "
                                 f"{rhs.dtype}")
        lc = _axis_channels(op, lhs, attrs.lhs_axis, "lhs_axis")
        rc = _axis_channels(op, rhs, attrs.rhs_axis, "rhs_axis")
        _qparam(op, types, 2, "lhs_scale", "float32", lc)
        _qparam(op, types, 3, "lhs_zero_point", "int32", lc)
        _qparam(op, types, 4, "rhs_scale", "float32", rc)
        _qparam(op, types, 5, "rhs_zero_point", "int32", rc)
        _qparam(op, types, 6, "output_scale", "float32")
        _qparam(op, types, 7, "output_zero_point", "int32")
        return TensorType(broadcast_shapes(op, lhs.shape, rhs.shape), lhs.dtype)
    return rel


def _concatenate_rel(types, attrs):
    op = "qnn.concatenate"
    data = tuple_arg(op, types[0])
    for i, what, dt in ((1, "input_scales", "float32"), (2, "input_zero_points", "int32")):
        t = types[i]
        if not isinstance(t, TupleType):
            raise RelayTypeError(f"{op} requires a tuple of {what.split('_', 1)[1]} as "
                                 f"argument {i}, found {t!r}")
        if len(t.fields) != len(data.fields):
            raise RelayTypeError(f"{op}: {len(t.fields)} {what} for {len(data.fields)} "
                                 "tensors")
        for j in range(len(t.fields)):
            _qparam(op, t.fields, j, f"{what}[{j}]", dt)
    _qparam(op, types, 3, "output_scale", "float32")
    _qparam(op, types, 4, "output_zero_point", "int32")
    return get("concatenate").type_rel([data], attrs)


def _weighted_rel(name: str, core: str, out_channels):
    """qnn.conv2d / conv2d_transpose / dense / batch_matmul: the core op's relation on (data,
    weight) and the checks of the four quantization parameters; ``out_channels(weight type,
    attrs)`` is the number of per-channel kernel scales allowed."""
    op = f"qnn.{name}"

    def rel(types, attrs):
        data = tensor_arg(op, types, 0, "data")
        weight = tensor_arg(op, types, 1, "weight")
        _dtype_arg(op, data, "data", ("int8", "uint8", "int16"))
        _dtype_arg(op, weight, "weight", ("int8", "uint8", "int16"))
        if attrs.out_dtype not in ("int16", "int32", "int64"):
            raise RelayTypeError(f"{op}: out_dtype must be int16, int32 or int64, got "
                                 f"{attrs.out_dtype!r}")
        c = out_channels(weight, attrs)
        _qparam(op, types, 2, "input_zero_point", "int32")
        _qparam(op, types, 3, "kernel_zero_point", "int32", c)
        _qparam(op, types, 4, "input_scale", "float32")
        _qparam(op, types, 5, "kernel_scale", "float32", c)
        return get(core).type_rel(list(types[:2]), attrs)
    return rel


def kernel_out_axis(name: str, attrs) -> int:
    """The axis of a qnn conv's kernel that holds its output channels ("O" of its layout)."""
    kl = attrs.get("kernel_layout") or ("IOHW" if name == "conv2d_transpose" else "OIHW")
    if "O" not in kl:
        raise RelayTypeError(f"qnn.{name}: kernel_layout {kl!r} has no O axis")
    return kl.index("O")


def _conv_channels(name: str):
    def f(weight: TensorType, attrs) -> int:
        return int(weight.shape[kernel_out_axis(name, attrs)])
    return f


def _dense_channels(weight: TensorType, attrs) -> int:
    return int(weight.shape[0]) if weight.shape else 1


def _leaky_relu_rel(types, attrs):
    op = "qnn.leaky_relu"
    x = tensor_arg(op, types, 0, "x")
    _dtype_arg(op, x, "x", QUANTIZED_DTYPES)
    for i, what, dt in ((1, "input_scale", "float32"), (2, "input_zero_point", "int32"),
                        (3, "output_scale", "float32"), (4, "output_zero_point", "int32")):
        _qparam(op, types, i, what, dt)
    return x


def _unary_rel(name: str):
    op = f"qnn.{name}"

    def rel(types, attrs):
        x = tensor_arg(op, types, 0, "x")
        _dtype_arg(op, x, "x", QUANTIZED_DTYPES)
        for i, what, dt in ((1, "scale", "float32"), (2, "zero_point", "int32"),
                            (3, "output_scale", "float32"), (4, "output_zero_point", "int32")):
            _qparam(op, types, i, what, dt)
        return x
    return rel


def _simulated_rel(name: str):
    op = f"qnn.{name}"

    def rel(types, attrs):
        data = tensor_arg(op, types, 0, "data")
        _dtype_arg(op, data, "data", ("float32",))
        code = tensor_arg(op, types, 1, "dtype code")
        _dtype_arg(op, code, "dtype code", ("int32",))
        c = _axis_channels(op, data, attrs.axis)
        _qparam(op, types, 2, "scale", "float32", c)
        _qparam(op, types, 3, "zero_point", "int32", c)
        return TensorType(data.shape, data.dtype)
    return rel


def _register_ops() -> None:
    def axis_channels(types, attrs, i):
        t = types[0]
        return _axis_channels("qnn", t, attrs.axis)[0] if isinstance(t, TensorType) else None

    register("qnn.quantize", 3, _quantize_rel, OpPattern.OPAQUE,
             {"axis": -1, "out_dtype": "int8"})
    register("qnn.dequantize", 3, _dequantize_rel, OpPattern.OPAQUE, {"axis": -1})
    register("qnn.requantize", 5, _requantize_rel, OpPattern.OPAQUE,
             {"axis": -1, "rounding": "None", "compute_dtype": "None", "out_dtype": "int8"})
    for name in ("quantize", "dequantize"):
        register_arg_types(f"qnn.{name}", _param_types({1: "float32", 2: "int32"},
                                                       axis_channels))
    register_arg_types("qnn.requantize", _param_types(
        {1: "float32", 2: "int32", 3: "float32", 4: "int32"}))
    for name in ("add", "subtract", "mul"):
        register(f"qnn.{name}", 8, _binary_rel(name), OpPattern.OPAQUE,
                 {"lhs_axis": -1, "rhs_axis": -1})
        register_arg_types(f"qnn.{name}", _param_types(
            {2: "float32", 3: "int32", 4: "float32", 5: "int32", 6: "float32", 7: "int32"}))
    register("qnn.concatenate", 5, _concatenate_rel, OpPattern.OPAQUE, {"axis": 0})
    conv_attrs = dict(get("nn.conv2d").attrs_defaults, out_dtype="int32")
    register("qnn.conv2d", 6, _weighted_rel("conv2d", "nn.conv2d", _conv_channels("conv2d")),
             OpPattern.OPAQUE, conv_attrs)
    tconv_attrs = dict(get("nn.conv2d_transpose").attrs_defaults, out_dtype="int32")
    register("qnn.conv2d_transpose", 6,
             _weighted_rel("conv2d_transpose", "nn.conv2d_transpose",
                           _conv_channels("conv2d_transpose")),
             OpPattern.OPAQUE, tconv_attrs)
    register("qnn.dense", 6, _weighted_rel("dense", "nn.dense", _dense_channels),
             OpPattern.OPAQUE, {"units": None, "out_dtype": "int32"})
    register("qnn.batch_matmul", 6,
             _weighted_rel("batch_matmul", "nn.batch_matmul", lambda w, a: None),
             OpPattern.OPAQUE, {"out_dtype": "int32", "transpose_a": False,
                                "transpose_b": True})
    for name in ("conv2d", "conv2d_transpose", "dense", "batch_matmul"):
        register_arg_types(f"qnn.{name}", _param_types(
            {2: "int32", 3: "int32", 4: "float32", 5: "float32"}))
    register("qnn.leaky_relu", 5, _leaky_relu_rel, OpPattern.OPAQUE, {"alpha": 0.0})
    for name in UNARY_OPS:
        register(f"qnn.{name}", 5, _unary_rel(name), OpPattern.OPAQUE)
    for name in ("leaky_relu",) + UNARY_OPS:
        register_arg_types(f"qnn.{name}", _param_types(
            {1: "float32", 2: "int32", 3: "float32", 4: "int32"}))
    for name in ("simulated_quantize", "simulated_dequantize"):
        register(f"qnn.{name}", 4, _simulated_rel(name), OpPattern.OPAQUE, {"axis": -1})


_register_ops()


# ------------------------------------------------------------------------------ constructors
def _pad_tuple2d(padding) -> tuple:
    """Classic ``get_pad_tuple2d``: 1, 2 or 4 ints as (top, left, bottom, right)."""
    p = (padding,) if isinstance(padding, int) else tuple(int(x) for x in padding)
    if len(p) == 1:
        return p * 4
    if len(p) == 2:
        return (p[0], p[1], p[0], p[1])
    if len(p) == 4:
        return p
    raise TVMError(f"qnn: padding must be 1, 2 or 4 ints, got {padding!r}")


def requantize(data: Expr, input_scale: Expr, input_zero_point: Expr, output_scale: Expr,
               output_zero_point: Expr, axis: int = -1, rounding: str = "None",
               compute_dtype: str = "None", out_dtype: str = "int8") -> Expr:
    """Requantize ``data`` from (input_scale, input_zero_point) to (output_scale,
    output_zero_point): ``Q_out = zp_out + s_in / s_out * (Q_in - zp_in)`` in fixed point,
    saturated to ``out_dtype``; per-channel input scales along ``axis``. ``rounding``
    ("UPWARD", "TONEAREST") and ``compute_dtype`` ("int64", "float32", "float64") default to
    the :func:`requantize_config` in scope ("None")."""
    return make_call("qnn.requantize", [data, input_scale, input_zero_point, output_scale,
                                        output_zero_point], axis=int(axis), rounding=rounding,
                     compute_dtype=compute_dtype, out_dtype=str(out_dtype))


def quantize(data: Expr, output_scale: Expr, output_zero_point: Expr, axis: int = -1,
             out_dtype: str = "int8") -> Expr:
    """``clip(round(data / scale) + zero_point)`` as ``out_dtype`` (int8, uint8, int16,
    int32); per-channel scales / zero points along ``axis``."""
    return make_call("qnn.quantize", [data, output_scale, output_zero_point], axis=int(axis),
                     out_dtype=str(out_dtype))


def dequantize(data: Expr, input_scale: Expr, input_zero_point: Expr,
               axis: int = -1) -> Expr:
    """``scale * (data - zero_point)`` in float32; per-channel along ``axis``."""
    return make_call("qnn.dequantize", [data, input_scale, input_zero_point], axis=int(axis))


def _dtype_code(dtype) -> Expr:
    if isinstance(dtype, str):
        if dtype not in SQNN_DTYPE_TO_CODE:
            raise TVMError(f"qnn.simulated_quantize: dtype {dtype!r} is not one of "
                           f"{sorted(SQNN_DTYPE_TO_CODE)}")
        return const(SQNN_DTYPE_TO_CODE[dtype], "int32")
    return dtype


def simulated_quantize(data: Expr, output_scale: Expr, output_zero_point: Expr, axis: int = -1,
                       out_dtype="int8") -> Expr:
    """:func:`quantize` kept in float32 (``out_dtype`` a dtype name or an int32 tensor of
    ``SQNN_DTYPE_TO_CODE``, chosen at run time; "disable" passes ``data`` through)."""
    return make_call("qnn.simulated_quantize",
                     [data, _dtype_code(out_dtype), reshape(output_scale, [-1]),
                      reshape(output_zero_point, [-1])], axis=int(axis))


def simulated_dequantize(data: Expr, input_scale: Expr, input_zero_point: Expr,
                         axis: int = -1, in_dtype="int8") -> Expr:
    """:func:`dequantize` of float32 ``data`` holding integers (``in_dtype`` as for
    :func:`simulated_quantize`)."""
    return make_call("qnn.simulated_dequantize",
                     [data, _dtype_code(in_dtype), reshape(input_scale, [-1]),
                      reshape(input_zero_point, [-1])], axis=int(axis))


def concatenate(data, input_scales, input_zero_points, output_scale: Expr,
                output_zero_point: Expr, axis: int) -> Expr:
    """Concatenate quantized tensors along ``axis``, each requantized to the output's scale
    and zero point."""
    if isinstance(data, (list, tuple)):
        data = Tuple(list(data))
    elif isinstance(data, TupleWrapper):
        data = data.tuple_value
    if not isinstance(axis, int):
        raise ValueError("For now, we only support integer axis")
    return make_call("qnn.concatenate", [data, Tuple(list(input_scales)),
                                         Tuple(list(input_zero_points)), output_scale,
                                         output_zero_point], axis=axis)


def _conv_attrs(strides, padding, dilation, groups, channels, kernel_size, data_layout,
                kernel_layout, out_layout, out_dtype) -> dict:
    return dict(strides=tuple(strides) if not isinstance(strides, int) else (strides,) * 2,
                padding=_pad_tuple2d(padding),
                dilation=tuple(dilation) if not isinstance(dilation, int) else (dilation,) * 2,
                groups=int(groups), channels=None if channels is None else int(channels),
                kernel_size=None if kernel_size is None else (
                    (kernel_size,) * 2 if isinstance(kernel_size, int) else tuple(kernel_size)),
                data_layout=data_layout, kernel_layout=kernel_layout, out_layout=out_layout,
                out_dtype=out_dtype)


def conv2d(data: Expr, kernel: Expr, input_zero_point: Expr, kernel_zero_point: Expr,
           input_scale: Expr, kernel_scale: Expr, kernel_size, channels, strides=(1, 1),
           padding=(0, 0), dilation=(1, 1), groups: int = 1, data_layout: str = "NCHW",
           kernel_layout: str = "OIHW", out_layout: str = "", out_dtype: str = "int32") -> Expr:
    """Quantized 2-D convolution: ``sum((data - zp_in) * (kernel - zp_k))`` in ``out_dtype``
    (its scale ``input_scale * kernel_scale``, zero point 0); per-channel kernel zero points
    and scales along the kernel's O axis."""
    return make_call("qnn.conv2d", [data, kernel, input_zero_point, kernel_zero_point,
                                    input_scale, kernel_scale],
                     **_conv_attrs(strides, padding, dilation, groups, channels, kernel_size,
                                   data_layout, kernel_layout, out_layout, out_dtype))


def conv2d_transpose(data: Expr, weight: Expr, input_zero_point: Expr, kernel_zero_point: Expr,
                     input_scale: Expr, kernel_scale: Expr, strides=(1, 1), padding=(0, 0),
                     dilation=(1, 1), groups: int = 1, channels=None, kernel_size=None,
                     data_layout: str = "NCHW", kernel_layout: str = "IOHW",
                     out_layout: str = "", output_padding=(0, 0),
                     out_dtype: str = "int32") -> Expr:
    """Quantized 2-D transposed convolution (as :func:`conv2d`, kernel "IOHW")."""
    attrs = _conv_attrs(strides, padding, dilation, groups, channels, kernel_size,
                        data_layout, kernel_layout, out_layout, out_dtype)
    attrs["output_padding"] = tuple(output_padding)
    return make_call("qnn.conv2d_transpose", [data, weight, input_zero_point,
                                              kernel_zero_point, input_scale, kernel_scale],
                     **attrs)


def _binary(name: str):
    def f(lhs: Expr, rhs: Expr, lhs_scale: Expr, lhs_zero_point: Expr, rhs_scale: Expr,
          rhs_zero_point: Expr, output_scale: Expr, output_zero_point: Expr,
          lhs_axis: int = -1, rhs_axis: int = -1) -> Expr:
        return make_call(f"qnn.{name}", [lhs, rhs, lhs_scale, lhs_zero_point, rhs_scale,
                                         rhs_zero_point, output_scale, output_zero_point],
                         lhs_axis=int(lhs_axis), rhs_axis=int(rhs_axis))
    f.__name__ = f.__qualname__ = name
    f.__doc__ = (f"Quantized element-wise ``{name}`` with NumPy broadcasting: the result in "
                 "(output_scale, output_zero_point), saturated to the inputs' dtype.")
    return f


add = _binary("add")
subtract = _binary("subtract")
mul = _binary("mul")


def dense(data: Expr, weight: Expr, input_zero_point: Expr, kernel_zero_point: Expr,
          input_scale: Expr, kernel_scale: Expr, units, out_dtype: str = "int32") -> Expr:
    """Quantized dense: ``(data - zp_in) . (weight - zp_k)^T`` in ``out_dtype``."""
    return make_call("qnn.dense", [data, weight, input_zero_point, kernel_zero_point,
                                   input_scale, kernel_scale],
                     units=None if units is None else int(units), out_dtype=out_dtype)


def batch_matmul(x: Expr, y: Expr, x_zero_point: Expr, y_zero_point: Expr, x_scale: Expr,
                 y_scale: Expr, out_dtype: str = "int32") -> Expr:
    """Quantized batch matmul: ``(x - zp_x) @ (y - zp_y)^T`` per batch in ``out_dtype``."""
    return make_call("qnn.batch_matmul", [x, y, x_zero_point, y_zero_point, x_scale, y_scale],
                     out_dtype=out_dtype)


def leaky_relu(x: Expr, alpha: float, input_scale: Expr, input_zero_point: Expr,
               output_scale: Expr, output_zero_point: Expr) -> Expr:
    """Quantized leaky relu (``alpha`` applied in fixed point)."""
    return make_call("qnn.leaky_relu", [x, input_scale, input_zero_point, output_scale,
                                        output_zero_point], alpha=float(alpha))


def _unary(name: str):
    def f(x: Expr, scale: Expr, zero_point: Expr, output_scale: Expr,
          output_zero_point: Expr) -> Expr:
        return make_call(f"qnn.{name}", [x, scale, zero_point, output_scale,
                                         output_zero_point])
    f.__name__ = f.__qualname__ = name
    f.__doc__ = (f"Quantized ``{name}``: dequantized, ``{name}`` in float32, quantized to "
                 "(output_scale, output_zero_point) in the input's dtype.")
    return f


tanh, exp, sqrt, rsqrt, erf, sigmoid, hardswish, log, abs = (  # noqa: A001
    _unary(n) for n in UNARY_OPS)
