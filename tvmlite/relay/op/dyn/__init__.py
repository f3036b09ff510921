"""Operators whose output shape depends on input values (classic ``relay.op.dyn``):
``dyn.reshape``, ``dyn.full``/``zeros``/``ones``, ``dyn.broadcast_to``, ``dyn.tile``,
``dyn.strided_slice``, ``dyn.topk``. ``relay.reshape(x, newshape=<relay expression>)`` and
the like make them.

Their type relations give ``Any`` dimensions (the rank from the static length of the shape
argument). The relay VM runs them on the host: it reads the shape arguments' values and
runs the static operator with them as attributes (:data:`HOST_EVAL`);
``relay.transform.DynamicToStatic`` does the same where those arguments are constants.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Sequence, Tuple

import numpy as np

from ....tir.expr import Any as _Any
from ...expr import Expr, TupleWrapper
from ...ty import TensorType, TupleType, Type
from .. import image as _image  # noqa: F401  (the static ops dyn forms take attrs from)
from .. import nn as _nn  # noqa: F401
from .. import transform as _transform  # noqa: F401
from .._rel import RelayTypeError, norm_axis, tensor_arg
from ..registry import OpPattern, make_call, register, register_strategy

#: op name -> fn(attrs, values) -> (static op name, its tensor arguments, its attributes):
#: the static call that computes a dyn op once its shape arguments' values are known
HOST_EVAL: Dict[str, Callable[[Any, List[Any]], Tuple[str, list, dict]]] = {}


def _len_arg(op: str, types: Sequence[Type], i: int, what: str) -> int:
    t = tensor_arg(op, types, i, what)
    if len(t.shape) != 1 or not isinstance(t.shape[0], int):
        raise RelayTypeError(f"{op}: {what} must be a 1-D tensor of known length, got "
                             f"{t!r}")
    if "int" not in t.dtype:
        raise RelayTypeError(f"{op}: {what} must hold integers, got dtype {t.dtype}")
    return t.shape[0]


def _values(v) -> list:
    arr = v.numpy() if hasattr(v, "numpy") else np.asarray(v)
    return [int(x) for x in np.asarray(arr).reshape(-1)]


#: op name -> the number of its leading tensor arguments (the rest hold shapes/bounds); -1:
#: its shape depends on the tensor values themselves (never made static)
DATA_ARGS: Dict[str, int] = {}


def _dyn(name: str, num_inputs: int, rel, defaults: dict, host, data_args: int = 1) -> None:
    register(name, num_inputs, rel, OpPattern.OPAQUE, defaults)
    HOST_EVAL[name] = host
    DATA_ARGS[name] = data_args


# ---------------------------------------------------------------------------- reshape
def _reshape_rel(types, attrs) -> Type:
    data = tensor_arg("dyn.reshape", types, 0, "data")
    n = _len_arg("dyn.reshape", types, 1, "newshape")
    return TensorType([_Any() for _ in range(n)], data.dtype)


_dyn("dyn.reshape", 2, _reshape_rel, {"allowzero": False},
     lambda attrs, v: ("reshape", [v[0]], {"newshape": tuple(_values(v[1]))}))


def reshape(data: Expr, newshape: Expr, allowzero: bool = False) -> Expr:
    """``data`` reshaped to the shape held by tensor ``newshape`` (classic's special values
    0, -1, -2, -3, -4 apply)."""
    return make_call("dyn.reshape", [data, newshape], allowzero=bool(allowzero))


# -------------------------------------------------------------------- full, zeros, ones
def _fill_rel(name: str, shape_index: int):
    def rel(types, attrs) -> Type:
        n = _len_arg(name, types, shape_index, "shape")
        dtype = attrs.dtype
        if not dtype and shape_index:
            dtype = tensor_arg(name, types, 0, "fill_value").dtype
        return TensorType([_Any() for _ in range(n)], dtype or "float32")
    return rel


_dyn("dyn.full", 2, _fill_rel("dyn.full", 1), {"dtype": ""},
     lambda attrs, v: ("full", [v[0]], {"shape": tuple(_values(v[1])),
                                        "dtype": attrs.dtype}))
_dyn("dyn.zeros", 1, _fill_rel("dyn.zeros", 0), {"dtype": "float32"},
     lambda attrs, v: ("zeros", [], {"shape": tuple(_values(v[0])), "dtype": attrs.dtype}), 0)
_dyn("dyn.ones", 1, _fill_rel("dyn.ones", 0), {"dtype": "float32"},
     lambda attrs, v: ("ones", [], {"shape": tuple(_values(v[0])), "dtype": attrs.dtype}), 0)


def full(fill_value: Expr, shape: Expr, dtype: str = "") -> Expr:
    """A tensor of the shape held by ``shape`` filled with scalar ``fill_value``."""
    return make_call("dyn.full", [fill_value, shape], dtype=str(dtype))


def zeros(shape: Expr, dtype: str = "float32") -> Expr:
    """Zeros of the shape held by tensor ``shape``."""
    return make_call("dyn.zeros", [shape], dtype=str(dtype))


def ones(shape: Expr, dtype: str = "float32") -> Expr:
    """Ones of the shape held by tensor ``shape``."""
    return make_call("dyn.ones", [shape], dtype=str(dtype))


# ----------------------------------------------------------------- broadcast_to, tile
def _broadcast_rel(types, attrs) -> Type:
    data = tensor_arg("dyn.broadcast_to", types, 0, "data")
    n = _len_arg("dyn.broadcast_to", types, 1, "shape")
    return TensorType([_Any() for _ in range(n)], data.dtype)


_dyn("dyn.broadcast_to", 2, _broadcast_rel, {},
     lambda attrs, v: ("broadcast_to", [v[0]], {"shape": tuple(_values(v[1]))}))


def broadcast_to(data: Expr, shape: Expr) -> Expr:
    """``data`` broadcast to the shape held by tensor ``shape``."""
    return make_call("dyn.broadcast_to", [data, shape])


def _tile_rel(types, attrs) -> Type:
    data = tensor_arg("dyn.tile", types, 0, "data")
    n = _len_arg("dyn.tile", types, 1, "reps")
    return TensorType([_Any() for _ in range(max(n, len(data.shape)))], data.dtype)


_dyn("dyn.tile", 2, _tile_rel, {},
     lambda attrs, v: ("tile", [v[0]], {"reps": tuple(_values(v[1]))}))


def tile(data: Expr, reps: Expr) -> Expr:
    """``data`` repeated as tensor ``reps`` says along each axis."""
    return make_call("dyn.tile", [data, reps])


# ---------------------------------------------------------------------- strided_slice
def _slice_rel(types, attrs) -> Type:
    data = tensor_arg("dyn.strided_slice", types, 0, "data")
    for i, what in ((1, "begin"), (2, "end"), (3, "strides")):
        _len_arg("dyn.strided_slice", types, i, what)
    return TensorType([_Any() for _ in data.shape], data.dtype)


def _slice_host(attrs, v) -> Tuple[str, list, dict]:
    return ("strided_slice", [v[0]], {"begin": tuple(_values(v[1])), "end": tuple(_values(v[2])),
                                      "strides": tuple(_values(v[3])),
                                      "slice_mode": attrs.slice_mode})


_dyn("dyn.strided_slice", 4, _slice_rel, {"slice_mode": "end"}, _slice_host)


def strided_slice(data: Expr, begin: Expr, end: Expr, strides: Expr,
                  slice_mode: str = "end") -> Expr:
    """``data[begin:end:strides]`` with the bounds held by tensors."""
    return make_call("dyn.strided_slice", [data, begin, end, strides],
                     slice_mode=str(slice_mode))


# ------------------------------------------------------------------------------- topk
def _topk_rel(types, attrs) -> Type:
    data = tensor_arg("dyn.topk", types, 0, "data")
    k = tensor_arg("dyn.topk", types, 1, "k")
    if k.shape not in ((), (1,)):
        raise RelayTypeError(f"dyn.topk: k must be a scalar, got {k!r}")
    axis = norm_axis("dyn.topk", attrs.axis, len(data.shape))
    shape = [(_Any() if i == axis else d) for i, d in enumerate(data.shape)]
    values, indices = TensorType(shape, data.dtype), TensorType(shape, attrs.dtype)
    if attrs.ret_type == "both":
        return TupleType([values, indices])
    return values if attrs.ret_type == "values" else indices


_dyn("dyn.topk", 2, _topk_rel,
     {"axis": -1, "ret_type": "both", "is_ascend": False, "dtype": "int32"},
     lambda attrs, v: ("topk", [v[0]], {"k": _values(v[1])[0], "axis": attrs.axis,
                                        "ret_type": attrs.ret_type,
                                        "is_ascend": attrs.is_ascend, "dtype": attrs.dtype}))


def topk(data: Expr, k: Expr, axis: int = -1, ret_type: str = "both", is_ascend: bool = False,
         dtype: str = "int32"):
    """The top ``k`` (a scalar tensor) elements along ``axis``."""
    call = make_call("dyn.topk", [data, k], axis=int(axis), ret_type=str(ret_type),
                     is_ascend=bool(is_ascend), dtype=str(dtype))
    return TupleWrapper(call, 2) if ret_type == "both" else call


# ----------------------------------------------------------------------------- arange
def _arange_rel(types, attrs) -> Type:
    for i, what in enumerate(("start", "stop", "step")):
        t = tensor_arg("dyn.arange", types, i, what)
        if t.shape not in ((), (1,)):
            raise RelayTypeError(f"dyn.arange: {what} must be a scalar, got {t!r}")
    return TensorType([_Any()], attrs.dtype)


def _scalar_value(v):
    arr = v.numpy() if hasattr(v, "numpy") else np.asarray(v)
    return np.asarray(arr).reshape(-1)[0].item()


_dyn("dyn.arange", 3, _arange_rel, {"dtype": "float32"},
     lambda attrs, v: ("arange", [], {"start": _scalar_value(v[0]), "stop": _scalar_value(v[1]),
                                      "step": _scalar_value(v[2]), "dtype": attrs.dtype}), 0)


def arange(start, stop=None, step=None, dtype: str = "float32") -> Expr:
    """``start, start + step, ...`` below ``stop`` with bounds held by scalar tensors."""
    from ...expr import const
    if stop is None:
        start, stop = const(0, "int32"), start
    step = const(1, "int32") if step is None else step
    args = [a if isinstance(a, Expr) else const(a) for a in (start, stop, step)]
    return make_call("dyn.arange", args, dtype=str(dtype))


# ------------------------------------------- static ops with attributes given as tensors
def _ints_of(v) -> tuple:
    return tuple(_values(v))


def _floats_of(v) -> float:
    return float(_scalar_value(v))


def _pairs_of(v) -> tuple:
    arr = v.numpy() if hasattr(v, "numpy") else np.asarray(v)
    return tuple((int(a), int(b)) for a, b in np.asarray(arr).reshape(-1, 2))


def _any_dims_rel(name: str, keep: Callable[[Any, TensorType], List[bool]]):
    """A relation whose output is the data's shape with the dims ``keep`` says False made
    ``Any`` (the attributes given as tensors decide them)."""
    def rel(types, attrs) -> Type:
        data = tensor_arg(name, types, 0, "data")
        flags = keep(attrs, data)
        dtype = getattr(attrs, "out_dtype", "") if "out_dtype" in attrs else ""
        return TensorType([d if k else _Any() for d, k in zip(data.shape, flags)],
                          dtype or data.dtype)
    return rel


def _dyn_form(static: str, tensor_attrs: Sequence[Tuple[str, Callable]], rel,
              data_args: int = 1) -> str:
    """Register ``dyn.<static>``: ``static`` with the attributes ``tensor_attrs`` given as
    tensor arguments after the data (each with its value converter); the other attributes
    stay attributes."""
    from ..registry import get
    name = f"dyn.{static}"
    names = [a for a, _ in tensor_attrs]
    defaults = {k: v for k, v in get(static).attrs_defaults.items() if k not in names}

    def host(attrs, v):
        fixed = {k: attrs[k] for k in attrs.keys()}
        for (attr, conv), value in zip(tensor_attrs, v[data_args:]):
            fixed[attr] = conv(value)
        return static, list(v[:data_args]), fixed
    _dyn(name, data_args + len(names), rel, defaults, host, data_args)
    return name


def _spatial(layout_attr: str, spatial: str):
    def keep(attrs, data):
        layout = attrs[layout_attr]
        return [c not in spatial for c in layout] if len(layout) == len(data.shape) else \
            [False] * len(data.shape)
    return keep


_dyn_form("image.resize2d", [("size", _ints_of)],
          _any_dims_rel("dyn.image.resize2d", _spatial("layout", "HW")))
_dyn_form("nn.upsampling", [("scale_h", _floats_of), ("scale_w", _floats_of)],
          _any_dims_rel("dyn.nn.upsampling", _spatial("layout", "HW")))
_dyn_form("nn.upsampling3d", [("scale_d", _floats_of), ("scale_h", _floats_of),
                              ("scale_w", _floats_of)],
          _any_dims_rel("dyn.nn.upsampling3d", _spatial("layout", "DHW")))
_dyn_form("nn.pad", [("pad_width", _pairs_of)],
          _any_dims_rel("dyn.nn.pad", lambda attrs, data: [False] * len(data.shape)))


def _squeeze_rel(types, attrs) -> Type:
    data = tensor_arg("dyn.squeeze", types, 0, "data")
    n = _len_arg("dyn.squeeze", types, 1, "axis")
    return TensorType([_Any() for _ in range(len(data.shape) - n)], data.dtype)


_dyn_form("squeeze", [("axis", _ints_of)], _squeeze_rel)


def dyn_call(static: str, data: Sequence[Expr], tensors: Sequence[Expr], **attrs) -> Expr:
    """A call of ``dyn.<static>`` on ``data`` with tensor attribute arguments ``tensors``
    (numbers become constants) and the remaining attributes."""
    from ...expr import const
    args = list(data) + [t if isinstance(t, Expr) else const(t, "float32" if isinstance(
        t, float) else "int64") for t in tensors]
    return make_call(f"dyn.{static}", args, **attrs)


# --------------------------------------------------------------------------- argwhere
def _argwhere_rel(types, attrs) -> Type:
    cond = tensor_arg("argwhere", types, 0, "condition")
    if not cond.shape:
        raise RelayTypeError("argwhere: condition must have rank >= 1, got a scalar")
    rows = _Any() if attrs.count is None else int(attrs.count)
    return TensorType([rows, len(cond.shape)], "int32")


def _argwhere_host(attrs, v):
    if not hasattr(v[0], "numpy"):
        raise RelayTypeError("argwhere: the row count is known only from the values")
    count = int(np.count_nonzero(v[0].numpy()))
    return ("argwhere", [v[0]], {"count": count})


def _argwhere_compute(attrs, ins, ty):
    from .... import topi
    return [topi.argwhere(ty.shape, ins[0])]


def _argwhere_schedule(attrs, outs, target):
    from ....topi import generic
    return generic.schedule_argwhere(outs)


# classic's argwhere: (rows, rank) int32 with the rows known at run time; the VM counts them
# on the host, then runs it with ``count`` set (the static form relay.build compiles)
_dyn("argwhere", 1, _argwhere_rel, {"count": None}, _argwhere_host, data_args=-1)
register_strategy("argwhere", "generic", _argwhere_compute, _argwhere_schedule)


def argwhere(condition: Expr) -> Expr:
    """The indices of the non-zero elements of ``condition``, one row each (int32)."""
    return make_call("argwhere", [condition])


__all__ = ["argwhere", "HOST_EVAL", "DATA_ARGS", "reshape", "full", "zeros", "ones",
           "broadcast_to", "tile", "strided_slice", "topk", "arange"]
