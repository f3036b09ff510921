"""Transform operators (``relay.strided_slice``, ``take``, ``squeeze``, ``expand_dims``,
``broadcast_to``, ``split``) and reductions (``sum``, ``mean``, ``max``, ``min``).

Their output types come from the TOPI computes themselves (``topi_rel``): one place holds
each op's shape rule.
"""
from __future__ import annotations

import builtins as _builtins
from typing import Optional, Sequence

import numpy as np

from ..expr import Constant, Expr, Tuple, TupleWrapper, const
from ..ty import TensorType, TupleType
from ._rel import RelayTypeError, norm_axis, tensor_arg, topi_rel
from .registry import OpPattern, make_call, register
from .tensor import infer_newshape

register("strided_slice", 1, topi_rel("strided_slice"), OpPattern.INJECTIVE,
         {"begin": (), "end": (), "strides": None, "axes": None, "slice_mode": "end"})
register("take", 2, topi_rel("take"), OpPattern.INJECTIVE, {"axis": None, "mode": "clip"})
register("squeeze", 1, topi_rel("squeeze"), OpPattern.INJECTIVE, {"axis": None})
register("expand_dims", 1, topi_rel("expand_dims"), OpPattern.BROADCAST,
         {"axis": 0, "num_newaxis": 1})
register("broadcast_to", 1, topi_rel("broadcast_to"), OpPattern.BROADCAST, {"shape": ()})
for _name in ("sum", "mean", "max", "min"):
    register(_name, 1, topi_rel(_name), OpPattern.COMM_REDUCE,
             {"axis": None, "keepdims": False, "exclude": False})


def _ints(v) -> Optional[tuple]:
    """Integers of an attribute: an int, a sequence, or a relay constant (classic takes a
    constant shape as the static one)."""
    if v is None:
        return None
    if isinstance(v, Constant):
        v = v.data.numpy().tolist()
    return (int(v),) if isinstance(v, int) else tuple(int(x) for x in v)


def strided_slice(data: Expr, begin, end, strides=None, axes=None,
                  slice_mode: str = "end") -> Expr:
    """``data[begin:end:strides]`` on ``axes`` (all axes when None), NumPy semantics; with
    ``slice_mode="size"`` ``end`` holds sizes (-1: to the end) and strides are 1."""
    if slice_mode not in ("end", "size"):
        raise RelayTypeError(f"strided_slice: slice_mode must be 'end' or 'size', got "
                             f"{slice_mode!r}")
    if _builtins.any(isinstance(v, Expr) and not isinstance(v, Constant)
                     for v in (begin, end, strides)):
        from .dyn import strided_slice as dyn_slice
        if axes is not None:
            raise RelayTypeError("strided_slice: axes with run-time bounds are not supported")
        strides = strides if strides is not None else [1] * _dyn_len(begin)
        return dyn_slice(data, *(v if isinstance(v, Expr) else const(list(v), "int64")
                                 for v in (begin, end, strides)), slice_mode=slice_mode)
    return make_call("strided_slice", [data], begin=_ints(begin), end=_ints(end),
                     strides=_ints(strides), axes=_ints(axes), slice_mode=slice_mode)


def _dyn_len(v) -> int:
    """The length of a 1-D bounds tensor whose type is known."""
    from ..transform.infer_type import infer_type
    shape = infer_type(v).checked_type.shape if isinstance(v, Expr) else (len(v),)
    if len(shape) != 1 or not isinstance(shape[0], int):
        raise RelayTypeError(f"strided_slice: run-time bounds must be 1-D of known length, "
                             f"got shape {shape}")
    return shape[0]


def take(data: Expr, indices: Expr, axis: Optional[int] = None, mode: str = "clip") -> Expr:
    """Gather ``data`` at ``indices`` along ``axis`` (of the flattened data when None)."""
    return make_call("take", [data, indices], axis=None if axis is None else int(axis),
                     mode=mode)


def squeeze(data: Expr, axis=None) -> Expr:
    """Remove the unit dimensions in ``axis`` (all of them when None)."""
    if isinstance(axis, Expr) and not isinstance(axis, Constant):  # axes known at run time
        from .dyn import dyn_call
        return dyn_call("squeeze", [data], [axis])
    return make_call("squeeze", [data], axis=_ints(axis))


def expand_dims(data: Expr, axis: int, num_newaxis: int = 1) -> Expr:
    """Insert ``num_newaxis`` unit dimensions at ``axis``."""
    return make_call("expand_dims", [data], axis=int(axis), num_newaxis=int(num_newaxis))


def broadcast_to(data: Expr, shape: Sequence[int]) -> Expr:
    """Broadcast ``data`` to ``shape`` (NumPy rules)."""
    if isinstance(shape, Expr) and not isinstance(shape, Constant):
        from .dyn import broadcast_to as dyn_broadcast_to
        return dyn_broadcast_to(data, shape)
    return make_call("broadcast_to", [data], shape=_ints(shape))


def split(data: Expr, indices_or_sections, axis: int = 0) -> TupleWrapper:
    """Split ``data`` along ``axis`` into equal sections or at indices; each piece is a
    ``strided_slice`` (so every piece fuses into its consumer)."""
    from ..transform.infer_type import infer_type
    shape = infer_type(data).checked_type.shape
    axis = int(axis)
    if not -len(shape) <= axis < len(shape):
        raise RelayTypeError(f"split: axis {axis} is out of range for shape {shape}")
    size = shape[axis]
    if not isinstance(size, int):  # a symbolic extent: classic's split op (a tuple)
        sections = indices_or_sections if isinstance(indices_or_sections, int) else \
            tuple(int(x) for x in indices_or_sections)
        n = sections if isinstance(sections, int) else len(sections) + 1
        return TupleWrapper(make_call("split", [data], indices_or_sections=sections,
                                      axis=axis), n)
    if isinstance(indices_or_sections, int):
        sec = indices_or_sections
        if sec <= 0 or size % sec:
            raise RelayTypeError(f"split: {sec} sections do not divide dimension {axis} of "
                                 f"size {size}")
        bounds = [size // sec * k for k in range(sec + 1)]
    else:
        idx = [int(x) for x in indices_or_sections]
        if _builtins.any(b < a for a, b in zip(idx, idx[1:])) or \
                _builtins.any(x < 0 or x > size for x in idx):
            raise RelayTypeError(f"split: indices {idx} must be sorted and within "
                                 f"[0, {size}]")
        bounds = [0] + idx + [size]
    pieces = [strided_slice(data, [lo], [hi], [1], [axis]) for lo, hi in
              zip(bounds, bounds[1:])]
    return _Pieces(pieces)


def _split_rel(types, attrs):
    """Classic's split relation (used for a symbolic extent): equal sections of
    ``indexdiv(d, sections)``, or the pieces between the indices (the last ``d - last``)."""
    from ...tir.op import indexdiv
    data = tensor_arg("split", types, 0, "data")
    axis = norm_axis("split", attrs.axis, len(data.shape))
    size = data.shape[axis]
    sec = attrs.indices_or_sections
    if isinstance(sec, int):
        if sec <= 0:
            raise RelayTypeError(f"split: sections must be positive, got {sec}")
        extents = [indexdiv(size, sec)] * sec
    else:
        bounds = [0] + list(sec)
        extents = [b - a for a, b in zip(bounds, bounds[1:])] + [size - bounds[-1]]
    fields = []
    for e in extents:
        shape = list(data.shape)
        shape[axis] = e
        fields.append(TensorType(tuple(shape), data.dtype))
    return TupleType(fields)


register("split", 1, _split_rel, OpPattern.INJECTIVE, {"indices_or_sections": 1, "axis": 0})


class _Pieces(TupleWrapper):
    """``split``'s result: ``[i]`` is the i-th slice itself (not a projection of a tuple),
    so each piece fuses with its consumer; ``astuple()`` gives the tuple."""

    def __init__(self, pieces):
        super().__init__(Tuple(pieces), len(pieces))
        self.pieces = list(pieces)

    def __getitem__(self, index: int) -> Expr:
        return self.pieces[index]


def _reduce(name: str):
    def f(data: Expr, axis=None, keepdims: bool = False, exclude: bool = False) -> Expr:
        return make_call(name, [data], axis=_ints(axis), keepdims=bool(keepdims),
                         exclude=bool(exclude))
    f.__name__ = name
    f.__doc__ = (f"``{name}`` over ``axis`` (all axes when None; with ``exclude``, over "
                 "the other axes).")
    return f


sum, mean, max, min = (_reduce(n) for n in ("sum", "mean", "max", "min"))  # noqa: A001


# -------------------------------------------------------------------- more reductions
_RED_DEFAULTS = {"axis": None, "keepdims": False, "exclude": False}
for _name in ("prod", "all", "any"):
    register(_name, 1, topi_rel(_name), OpPattern.COMM_REDUCE, _RED_DEFAULTS)
for _name in ("argmax", "argmin"):
    register(_name, 1, topi_rel(_name), OpPattern.COMM_REDUCE,
             {**_RED_DEFAULTS, "select_last_index": False})
register("variance", 2, topi_rel("variance"), OpPattern.COMM_REDUCE,
         {**_RED_DEFAULTS, "unbiased": False})

prod, all, any = (_reduce(n) for n in ("prod", "all", "any"))  # noqa: A001
all.__doc__ = "Logical AND of a bool tensor over ``axis`` (all axes when None)."
any.__doc__ = "Logical OR of a bool tensor over ``axis`` (all axes when None)."


def argmax(data: Expr, axis=None, keepdims: bool = False, exclude: bool = False,
           select_last_index: bool = False) -> Expr:
    """Index (int32) of the maximum over ``axis`` (row-major over several axes); ties give
    the first index (the last with ``select_last_index``)."""
    return make_call("argmax", [data], axis=_ints(axis), keepdims=bool(keepdims),
                     exclude=bool(exclude), select_last_index=bool(select_last_index))


def argmin(data: Expr, axis=None, keepdims: bool = False, exclude: bool = False,
           select_last_index: bool = False) -> Expr:
    """Index (int32) of the minimum over ``axis``; ties as in :func:`argmax`."""
    return make_call("argmin", [data], axis=_ints(axis), keepdims=bool(keepdims),
                     exclude=bool(exclude), select_last_index=bool(select_last_index))


def variance(data: Expr, axis=None, keepdims: bool = False, exclude: bool = False,
             unbiased: bool = False, with_mean: Optional[Expr] = None) -> Expr:
    """Variance over ``axis`` (divided by ``N - 1`` when ``unbiased``); ``with_mean`` is the
    mean over the same axes with ``keepdims=True`` (computed when None)."""
    m = mean(data, axis, True, exclude) if with_mean is None else with_mean
    return make_call("variance", [data, m], axis=_ints(axis), keepdims=bool(keepdims),
                     exclude=bool(exclude), unbiased=bool(unbiased))


def std(data: Expr, axis=None, keepdims: bool = False, exclude: bool = False,
        unbiased: bool = False) -> Expr:
    """Standard deviation over ``axis``: ``sqrt(variance(...))``."""
    from .tensor import sqrt
    return sqrt(variance(data, axis, keepdims, exclude, unbiased))


def mean_variance(data: Expr, axis=None, keepdims: bool = False, exclude: bool = False,
                  unbiased: bool = False) -> TupleWrapper:
    """The mean and the variance of ``data`` over ``axis``: a 2-tuple."""
    return TupleWrapper(Tuple(list(_mean_and_variance(data, axis, keepdims, exclude,
                                                      unbiased))), 2)


def mean_std(data: Expr, axis=None, keepdims: bool = False, exclude: bool = False
             ) -> TupleWrapper:
    """The mean and the standard deviation of ``data`` over ``axis``: a 2-tuple."""
    from .tensor import sqrt
    m, var = _mean_and_variance(data, axis, keepdims, exclude, False)
    return TupleWrapper(Tuple([m, sqrt(var)]), 2)


def _mean_and_variance(data: Expr, axis, keepdims: bool, exclude: bool, unbiased: bool):
    m = mean(data, axis, True, exclude)
    var = variance(data, axis, keepdims, exclude, unbiased, with_mean=m)
    return (m if keepdims else mean(data, axis, False, exclude)), var


def logsumexp(data: Expr, axis=None, keepdims: bool = False) -> Expr:
    """``log(sum(exp(data)))`` over ``axis``, computed stably as
    ``log(sum(exp(data - m))) + m`` with ``m`` the maximum over the same axes."""
    from .tensor import exp, log, subtract
    axis = _ints(axis)
    m = max(data, axis, True)
    out = log(sum(exp(subtract(data, m)), axis, True)) + m
    return out if keepdims else squeeze(out, axis)


# ------------------------------------------------------------------- more transforms
register("stack", 1, topi_rel("stack"), OpPattern.INJECTIVE, {"axis": 0})
register("tile", 1, topi_rel("tile"), OpPattern.BROADCAST, {"reps": ()})
register("repeat", 1, topi_rel("repeat"), OpPattern.BROADCAST, {"repeats": 1, "axis": 0})
register("reverse", 1, topi_rel("reverse"), OpPattern.INJECTIVE, {"axis": 0})
register("reverse_sequence", 2, topi_rel("reverse_sequence"), OpPattern.INJECTIVE,
         {"seq_axis": 1, "batch_axis": 0})
register("gather", 2, topi_rel("gather"), OpPattern.INJECTIVE, {"axis": 0})
register("gather_nd", 2, topi_rel("gather_nd"), OpPattern.INJECTIVE,
         {"batch_dims": 0, "index_rank": None})
register("one_hot", 3, topi_rel("one_hot"), OpPattern.OUT_ELEMWISE_FUSABLE,
         {"depth": 1, "axis": -1, "dtype": "float32"})
register("arange", 0, topi_rel("arange"), OpPattern.OPAQUE,
         {"start": 0, "stop": 1, "step": 1, "dtype": "float32"})
register("sequence_mask", 2, topi_rel("sequence_mask"), OpPattern.INJECTIVE,
         {"mask_value": 0.0, "axis": 0})
register("trilu", 2, topi_rel("trilu"), OpPattern.ELEMWISE, {"upper": True})
register("unravel_index", 2, topi_rel("unravel_index"), OpPattern.INJECTIVE)
register("full", 1, topi_rel("full"), OpPattern.ELEMWISE, {"shape": (), "dtype": ""})
register("full_like", 2, topi_rel("full_like"), OpPattern.ELEMWISE)
for _name in ("zeros", "ones"):
    register(_name, 0, topi_rel(_name), OpPattern.ELEMWISE,
             {"shape": (), "dtype": "float32"})
for _name in ("zeros_like", "ones_like"):
    register(_name, 1, topi_rel(_name), OpPattern.ELEMWISE)
def _reshape_like_rel(types, attrs):
    """``data``'s shape with ``[lhs_begin, lhs_end)`` replaced by ``shape_like``'s
    ``[rhs_begin, rhs_end)``; the element counts must agree when both are static."""
    name = "reshape_like"
    data = tensor_arg(name, types, 0, "data")
    like = tensor_arg(name, types, 1, "shape_like")
    ds, ls = list(data.shape), list(like.shape)
    lhs_end = len(ds) if attrs.lhs_end is None else attrs.lhs_end
    rhs_end = len(ls) if attrs.rhs_end is None else attrs.rhs_end
    shape = ds[:attrs.lhs_begin] + ls[attrs.rhs_begin:rhs_end] + ds[lhs_end:]
    if _builtins.all(isinstance(d, int) for d in ds + shape):
        n_in, n_out = 1, 1
        for d in ds:
            n_in *= d
        for d in shape:
            n_out *= d
        if n_in != n_out:
            raise RelayTypeError(f"{name}: cannot reshape {tuple(ds)} ({n_in} elements) to "
                                 f"{tuple(shape)} ({n_out} elements)")
    return TensorType(tuple(shape), data.dtype)


register("reshape_like", 2, _reshape_like_rel, OpPattern.INJECTIVE,
         {"lhs_begin": 0, "lhs_end": None, "rhs_begin": 0, "rhs_end": None})


def _tuple_arg(data) -> Expr:
    return data if isinstance(data, Expr) else Tuple(list(data))


def stack(data, axis: int) -> Expr:
    """Join a tuple (or list) of tensors of one shape along a new dimension ``axis``."""
    return make_call("stack", [_tuple_arg(data)], axis=int(axis))


def tile(data: Expr, reps: Sequence[int]) -> Expr:
    """Repeat the whole tensor ``reps[d]`` times along each dimension (``numpy.tile``)."""
    if isinstance(reps, Expr) and not isinstance(reps, Constant):
        from .dyn import tile as dyn_tile
        return dyn_tile(data, reps)
    return make_call("tile", [data], reps=_ints(reps))


def repeat(data: Expr, repeats: int, axis: int) -> Expr:
    """Repeat each element ``repeats`` times along ``axis`` (``numpy.repeat``)."""
    return make_call("repeat", [data], repeats=int(repeats), axis=int(axis))


def reverse(data: Expr, axis: int) -> Expr:
    """Reverse ``data`` along ``axis``."""
    return make_call("reverse", [data], axis=int(axis))


def reverse_sequence(data: Expr, seq_lengths: Expr, seq_axis: int = 1,
                     batch_axis: int = 0) -> Expr:
    """Reverse the first ``seq_lengths[b]`` elements along ``seq_axis`` of each batch ``b``
    (along ``batch_axis``)."""
    return make_call("reverse_sequence", [data, seq_lengths], seq_axis=int(seq_axis),
                     batch_axis=int(batch_axis))


def gather(data: Expr, axis: int, indices: Expr) -> Expr:
    """``numpy.take_along_axis(data, indices, axis)``."""
    return make_call("gather", [data, indices], axis=int(axis))


def gather_nd(data: Expr, indices: Expr, batch_dims: int = 0,
              index_rank: Optional[int] = None) -> Expr:
    """Gather slices of ``data`` at the indices ``indices[:, y...]`` (``(M, Y...)``): output
    shape ``Y... + data.shape[batch_dims + M:]``."""
    return make_call("gather_nd", [data, indices], batch_dims=int(batch_dims),
                     index_rank=None if index_rank is None else int(index_rank))


def _scalar(v, dtype: Optional[str] = None) -> Expr:
    from ..expr import const
    return v if isinstance(v, Expr) else const(v, dtype)


def one_hot(indices: Expr, on_value, off_value, depth: int, axis: int, dtype: str) -> Expr:
    """``on_value`` where the new dimension ``axis`` (of extent ``depth``; -1: last) equals
    ``indices``, ``off_value`` elsewhere; ``on_value`` / ``off_value`` are scalars."""
    if isinstance(depth, Constant):  # classic takes a constant depth as the static one
        depth = depth.data.numpy().item()
    return make_call("one_hot", [indices, _scalar(on_value, dtype), _scalar(off_value, dtype)],
                     depth=int(depth), axis=int(axis), dtype=str(dtype))


def _const_number(op: str, v, what: str):
    from ..expr import Constant
    if isinstance(v, Constant):
        arr = v.data.numpy()
        if arr.ndim:
            raise RelayTypeError(f"{op}: {what} must be a scalar, got shape {arr.shape}")
        return arr.item()
    if isinstance(v, Expr):
        raise RelayTypeError(f"{op}: {what} must be a constant (dynamic ranges are not "
                             "supported)")
    return v


def arange(start, stop=None, step=None, dtype: str = "float32") -> Expr:
    """``start, start + step, ...`` below ``stop`` (``arange(n)`` counts from 0). The bounds
    are numbers or scalar constants; they are kept as attributes (the output shape depends
    on them). Bounds computed at run time make ``dyn.arange`` (the relay VM runs it)."""
    if _builtins.any(isinstance(v, Expr) and not isinstance(v, Constant)
                     for v in (start, stop, step)):
        from .dyn import arange as dyn_arange
        return dyn_arange(start, stop, step, dtype)
    start = _const_number("arange", start, "start")
    if stop is None:
        start, stop = 0, start
    stop = _const_number("arange", stop, "stop")
    step = 1 if step is None else _const_number("arange", step, "step")
    if step == 0:
        raise RelayTypeError("arange: step must not be 0")
    return make_call("arange", [], start=start, stop=stop, step=step, dtype=str(dtype))


def sequence_mask(data: Expr, valid_length: Expr, mask_value: float = 0.0,
                  axis: int = 0) -> Expr:
    """Set the elements at positions ``>= valid_length[b]`` along the length ``axis`` (0 or
    1; the other is the batch axis) to ``mask_value``."""
    return make_call("sequence_mask", [data, valid_length], mask_value=float(mask_value),
                     axis=int(axis))


def meshgrid(data, indexing: str = "ij") -> TupleWrapper:
    """Coordinate grids of 1-D tensors (``numpy.meshgrid``; ``indexing`` "ij" or "xy").
    Each grid is a ``reshape`` + ``broadcast_to`` of its input, so it fuses with its
    consumer; ``[i]`` is the i-th grid."""
    from ..transform.infer_type import infer_type
    from .tensor import reshape
    if indexing not in ("ij", "xy"):
        raise RelayTypeError(f"meshgrid: indexing must be 'ij' or 'xy', got {indexing!r}")
    fields = list(data.fields) if isinstance(data, Tuple) else list(data)
    shapes = []
    for k, f in enumerate(fields):
        t = infer_type(f).checked_type
        if len(t.shape) > 1:
            raise RelayTypeError(f"meshgrid: input {k} must be 0-D or 1-D, got shape {t.shape}")
        shapes.append(t.shape[0] if t.shape else 1)
    n = len(fields)
    swap = indexing == "xy" and n >= 2
    pos = [(1 - k if swap and k < 2 else k) for k in range(n)]  # output dim of input k
    out_shape = [0] * n
    for k in range(n):
        out_shape[pos[k]] = shapes[k]
    grids = []
    for k, f in enumerate(fields):
        ones = [1] * n
        ones[pos[k]] = shapes[k]
        grids.append(broadcast_to(reshape(f, ones), out_shape))
    return _Pieces(grids)


def trilu(data: Expr, k, upper: bool = True) -> Expr:
    """Keep the upper (``upper``) or lower triangle of the last two dimensions from the
    ``k``-th diagonal on (``k`` a scalar expression or int); zero elsewhere."""
    return make_call("trilu", [data, _scalar(k, "int32")], upper=bool(upper))


def unravel_index(indices: Expr, shape: Expr) -> Expr:
    """The coordinates in ``shape`` (a 1-D tensor) of each flat index (0-D or 1-D)."""
    return make_call("unravel_index", [indices, shape])


def full(fill_value, shape: Sequence[int] = (), dtype: str = "") -> Expr:
    """A tensor of ``shape`` holding the scalar ``fill_value`` (its dtype when ``dtype`` is
    empty)."""
    if isinstance(shape, Expr) and not isinstance(shape, Constant):
        from .dyn import full as dyn_full
        return dyn_full(_scalar(fill_value), shape, dtype)
    return make_call("full", [_scalar(fill_value)], shape=_ints(shape) or (),
                     dtype=str(dtype))


def full_like(data: Expr, fill_value) -> Expr:
    """A tensor like ``data`` holding the scalar ``fill_value``."""
    return make_call("full_like", [data, _scalar(fill_value)])


def zeros(shape: Sequence[int], dtype: str) -> Expr:
    """A tensor of zeros."""
    if isinstance(shape, Expr) and not isinstance(shape, Constant):
        from .dyn import zeros as dyn_zeros
        return dyn_zeros(shape, dtype)
    return make_call("zeros", [], shape=_ints(shape) or (), dtype=str(dtype))


def ones(shape: Sequence[int], dtype: str) -> Expr:
    """A tensor of ones."""
    if isinstance(shape, Expr) and not isinstance(shape, Constant):
        from .dyn import ones as dyn_ones
        return dyn_ones(shape, dtype)
    return make_call("ones", [], shape=_ints(shape) or (), dtype=str(dtype))


def zeros_like(data: Expr) -> Expr:
    """Zeros of ``data``'s shape and dtype."""
    return make_call("zeros_like", [data])


def ones_like(data: Expr) -> Expr:
    """Ones of ``data``'s shape and dtype."""
    return make_call("ones_like", [data])


def reshape_like(data: Expr, shape_like: Expr, lhs_begin: int = 0,
                 lhs_end: Optional[int] = None, rhs_begin: int = 0,
                 rhs_end: Optional[int] = None) -> Expr:
    """Reshape ``data``'s dimensions ``[lhs_begin, lhs_end)`` to ``shape_like``'s
    ``[rhs_begin, rhs_end)`` (all of both by default)."""
    return make_call("reshape_like", [data, shape_like], lhs_begin=int(lhs_begin),
                     lhs_end=None if lhs_end is None else int(lhs_end),
                     rhs_begin=int(rhs_begin), rhs_end=None if rhs_end is None else int(rhs_end))


register("cumsum", 1, topi_rel("cumsum"), OpPattern.OPAQUE,
         {"axis": None, "dtype": None, "exclusive": None})


def cumsum(data: Expr, axis: Optional[int] = None, dtype: Optional[str] = None,
           exclusive: Optional[bool] = None) -> Expr:
    """Cumulative sum along ``axis`` (of the flattened data when None); ``exclusive`` leaves
    out each element itself; ``dtype`` is the output dtype (``data``'s by default)."""
    return make_call("cumsum", [data], axis=None if axis is None else int(axis),
                     dtype=None if dtype is None else str(dtype),
                     exclusive=None if exclusive is None else bool(exclusive))


register("shape_of", 1, topi_rel("shape_of"), OpPattern.INJECTIVE, {"dtype": "int32"})
register("ndarray_size", 1, topi_rel("ndarray_size"), OpPattern.INJECTIVE, {"dtype": "int32"})


def shape_of(data: Expr, dtype: str = "int32") -> Expr:
    """The shape of ``data`` as a 1-D tensor of ``dtype``."""
    return make_call("shape_of", [data], dtype=str(dtype))


def ndarray_size(data: Expr, dtype: str = "int32") -> Expr:
    """The number of elements of ``data`` as a scalar of ``dtype``."""
    return make_call("ndarray_size", [data], dtype=str(dtype))


register("reinterpret", 1, topi_rel("reinterpret"), OpPattern.ELEMWISE, {"dtype": "float32"})
register("matrix_set_diag", 2, topi_rel("matrix_set_diag"), OpPattern.INJECTIVE,
         {"k1": 0, "k2": 0, "super_diag_right_align": False, "sub_diag_right_align": True})
register("invert_permutation", 1, topi_rel("invert_permutation"), OpPattern.INJECTIVE)
register("broadcast_to_like", 2, topi_rel("broadcast_to_like"), OpPattern.BROADCAST)
register("sliding_window", 1, topi_rel("sliding_window"), OpPattern.INJECTIVE,
         {"axis": 0, "window_shape": (), "strides": ()})


def reinterpret(data: Expr, dtype: str) -> Expr:
    """The bits of each element of ``data`` read as ``dtype`` (of the same width)."""
    return make_call("reinterpret", [data], dtype=str(dtype))


def matrix_set_diag(data: Expr, diagonal: Expr, k=0, align: str = "RIGHT_LEFT") -> Expr:
    """``data`` with its ``k``-th diagonal (or band ``k = (lo, hi)``) of the last two axes
    replaced by ``diagonal``; ``align`` places short diagonals of a band."""
    k1, k2 = (k, k) if isinstance(k, int) else (int(k[0]), int(k[1]))
    if align not in ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT"):
        raise RelayTypeError(f"matrix_set_diag: unknown align {align!r}")
    return make_call("matrix_set_diag", [data, diagonal], k1=int(k1), k2=int(k2),
                     super_diag_right_align=align[:5] == "RIGHT",
                     sub_diag_right_align=align[-5:] == "RIGHT")


def invert_permutation(data: Expr) -> Expr:
    """The inverse of the permutation ``data`` (1-D integers)."""
    return make_call("invert_permutation", [data])


def broadcast_to_like(data: Expr, broadcast_type: Expr) -> Expr:
    """``data`` broadcast to the shape of ``broadcast_type``."""
    return make_call("broadcast_to_like", [data, broadcast_type])


def sliding_window(data: Expr, axis: int, window_shape, strides) -> Expr:
    """Windows of ``window_shape`` slid with ``strides`` over the axes from ``axis`` on."""
    return make_call("sliding_window", [data], axis=int(axis), window_shape=_ints(window_shape),
                     strides=_ints(strides))


register("cumprod", 1, topi_rel("cumprod"), OpPattern.OPAQUE,
         {"axis": None, "dtype": None, "exclusive": None})


def cumprod(data: Expr, axis: Optional[int] = None, dtype: Optional[str] = None,
            exclusive: Optional[bool] = None) -> Expr:
    """Cumulative product along ``axis`` (of the flattened data when None); ``exclusive``
    leaves out each element itself; ``dtype`` is the output dtype (``data``'s by
    default)."""
    return make_call("cumprod", [data], axis=None if axis is None else int(axis),
                     dtype=None if dtype is None else str(dtype),
                     exclusive=None if exclusive is None else bool(exclusive))


# ----------------------------------------------------------- scatter, indexing, sparse
register("scatter_elements", 3, topi_rel("scatter_elements"), OpPattern.OPAQUE,
         {"axis": 0, "reduction": "update"})
register("scatter_nd", 3, topi_rel("scatter_nd"), OpPattern.OPAQUE, {"mode": "update"})
register("adv_index", 1, topi_rel("adv_index"), OpPattern.INJECTIVE)
register("unique", 1, topi_rel("unique"), OpPattern.OPAQUE,
         {"sorted": True, "return_counts": False})
register("sparse_to_dense", 3, topi_rel("sparse_to_dense"), OpPattern.OPAQUE,
         {"output_shape": ()})
register("strided_set", 5, topi_rel("strided_set"), OpPattern.INJECTIVE)
register("sparse_reshape", 3, topi_rel("sparse_reshape"), OpPattern.OPAQUE)
register("stft", 2, topi_rel("stft"), OpPattern.OUT_ELEMWISE_FUSABLE,
         {"n_fft": 1, "hop_length": 1, "win_length": 1, "normalized": False,
          "onesided": True})
register("fixed_point_multiply", 1, topi_rel("fixed_point_multiply"), OpPattern.ELEMWISE,
         {"multiplier": 0, "shift": 0})


def scatter_elements(data: Expr, indices: Expr, updates: Expr, axis: int = 0,
                     reduction: str = "update") -> Expr:
    """``data`` with each ``updates[p]`` combined into the position ``p`` whose ``axis``
    coordinate is replaced by ``indices[p]`` (``reduction``: "update", "add", "mul", "min",
    "max" or "mean"); ONNX ScatterElements."""
    return make_call("scatter_elements", [data, indices, updates], axis=int(axis),
                     reduction=str(reduction))


def scatter_nd(data: Expr, indices: Expr, updates: Expr, mode: str = "update") -> Expr:
    """``data`` with ``updates[y, ...]`` written ("update") or added ("add") at
    ``data[indices[0, y], .., indices[M-1, y], ...]``."""
    return make_call("scatter_nd", [data, indices, updates], mode=str(mode))


def adv_index(inputs) -> Expr:
    """numpy advanced indexing ``inputs[0][inputs[1], inputs[2], ...]``."""
    return make_call("adv_index", [_tuple_arg(inputs)])


def unique(data: Expr, is_sorted: bool = True, return_counts: bool = False) -> TupleWrapper:
    """The unique elements of the 1-D ``data``: a tuple ``(unique, indices,
    inverse_indices, num_unique[, counts])``, each of ``data``'s length but ``num_unique``
    ``(1,)`` (only the first ``num_unique`` entries are meaningful)."""
    call = make_call("unique", [data], sorted=bool(is_sorted),
                     return_counts=bool(return_counts))
    return TupleWrapper(call, 5 if return_counts else 4)


def sparse_to_dense(sparse_indices: Expr, output_shape, sparse_values: Expr,
                    default_value=0) -> Expr:
    """A dense tensor of ``output_shape`` holding ``sparse_values`` (a scalar or one per
    index) at ``sparse_indices`` (0-D, 1-D or ``(n, ndim)``) and ``default_value``
    elsewhere."""
    if not isinstance(default_value, Expr):
        default_value = const(default_value)
    return make_call("sparse_to_dense", [sparse_indices, sparse_values, default_value],
                     output_shape=_ints(output_shape))


def sparse_reshape(sparse_indices: Expr, prev_shape: Expr, new_shape: Expr) -> TupleWrapper:
    """Reshape a sparse tensor: ``(new_sparse_indices, new_shape)`` with ``new_shape``'s -1
    inferred (the shapes' values are read at run time, their lengths static)."""
    return TupleWrapper(make_call("sparse_reshape", [sparse_indices, prev_shape, new_shape]),
                        2)


def stft(data: Expr, n_fft: int, hop_length: Optional[int] = None,
         win_length: Optional[int] = None, window: Optional[Expr] = None,
         normalized: bool = False, onesided: bool = True) -> Expr:
    """The short-time Fourier transform of ``data`` ``(batch, time)``: ``(batch, freqs,
    frames, 2)`` (real, imaginary); ``hop_length`` defaults to ``n_fft // 4``,
    ``win_length`` to ``n_fft``, ``window`` to ones. See ``topi.stft``."""
    hop_length = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    if window is None:
        window = ones([n_fft], "int32")
    return make_call("stft", [data, window], n_fft=int(n_fft), hop_length=int(hop_length),
                     win_length=int(win_length), normalized=bool(normalized),
                     onesided=bool(onesided))


def strided_set(data: Expr, v: Expr, begin: Expr, end: Expr, strides=None) -> Expr:
    """``data`` with the slice ``data[begin:end:strides]`` (1-D tensors, read at run time)
    replaced by ``v``."""
    if strides is None:
        strides = const([1], "int32")
    return make_call("strided_set", [data, v, begin, end, strides])


def fixed_point_multiply(data: Expr, multiplier: int, shift: int) -> Expr:
    """``round(data * multiplier * 2 ** (shift - 31))`` in integer arithmetic: ``data``
    times the fixed-point number ``multiplier`` (Q31) scaled by ``2 ** shift``."""
    return make_call("fixed_point_multiply", [data], multiplier=int(multiplier),
                     shift=int(shift))


def segment_sum(data: Expr, segment_ids: Expr, num_segments: Optional[int] = None) -> Expr:
    """``out[k] = sum of data[i] over the i < len(segment_ids) with segment_ids[i] == k``
    for ``k < num_segments`` (a ``scatter_elements`` add into zeros of ``(num_segments,) +
    data.shape[1:]``). Without ``num_segments`` (``max(segment_ids) + 1`` rows) or with
    ``relay.Any`` shapes the output's shape is computed at run time (the relay VM)."""
    from ..transform.infer_type import infer_type
    dt = infer_type(data).checked_type
    ids = infer_type(segment_ids).checked_type
    if len(ids.shape) != 1:
        raise RelayTypeError(f"segment_sum: segment_ids must be 1-D, got shape {ids.shape}")
    static = _builtins.all(isinstance(d, int) for d in tuple(dt.shape) + tuple(ids.shape))
    if num_segments is None or not static:
        return _segment_sum_dyn(data, segment_ids, num_segments, len(dt.shape), dt.dtype)
    shape = (int(num_segments),) + tuple(dt.shape[1:])
    if ids.shape[0] != dt.shape[0]:
        data = strided_slice(data, [0], [ids.shape[0]], axes=[0])
    if len(shape) > 1:  # one id per row (of the first len(ids) rows), along the other axes
        segment_ids = broadcast_to(expand_dims(segment_ids, 1, len(shape) - 1),
                                   tuple(ids.shape) + tuple(dt.shape[1:]))
    return scatter_elements(zeros(shape, dt.dtype), segment_ids, data, 0, "add")


def _segment_sum_dyn(data: Expr, segment_ids: Expr, num_segments: Optional[int], rank: int,
                     dtype: str) -> Expr:
    """segment_sum whose output shape is known at run time only (``num_segments`` None:
    ``max(segment_ids) + 1`` rows; or shapes with ``relay.Any``): zeros of the shape
    computed from the values, ``scatter_elements`` add into them (the relay VM)."""
    from .dyn import broadcast_to as dyn_broadcast_to
    from .dyn import strided_slice as dyn_strided_slice
    from .dyn import zeros as dyn_zeros
    from .tensor import add, cast, concatenate, reshape
    if num_segments is None:
        top = make_call("max", [segment_ids], axis=(0,))
        rows = add(reshape(cast(top, "int64"), (1,)), const(1, "int64"))
    else:
        rows = const(np.array([int(num_segments)]), "int64")
    rest = strided_slice(shape_of(data, "int64"), [1], [rank])
    # the rows of data that have an id (the first len(segment_ids))
    upd_shape = concatenate([shape_of(segment_ids, "int64"), rest], 0)
    data = dyn_strided_slice(data, const(np.zeros(rank), "int64"), upd_shape,
                             const(np.ones(rank), "int64"))
    if rank > 1:
        rows = concatenate([rows, rest], 0)
        segment_ids = dyn_broadcast_to(expand_dims(segment_ids, 1, rank - 1), upd_shape)
    return scatter_elements(dyn_zeros(rows, dtype), segment_ids, data, 0, "add")


# ------------------------------------------ shape-driven ops (collapse_sum, slice_like ...)
def _collapse_rel(name: str):
    def rel(types, attrs):
        data = tensor_arg(name, types, 0, "data")
        target = tuple(tensor_arg(name, types, 1, "collapse_type").shape) if len(types) == 2 \
            else tuple(attrs.shape)
        lead = len(data.shape) - len(target)
        if lead < 0 or _builtins.any(t != 1 and t != d
                                     for t, d in zip(target, data.shape[lead:])):
            raise RelayTypeError(f"{name}: data of shape {data.shape} does not broadcast "
                                 f"from {target}")
        return TensorType(target, data.dtype)
    return rel


def _slice_like_rel(types, attrs):
    name = "slice_like"
    data = tensor_arg(name, types, 0, "data")
    like = tensor_arg(name, types, 1, "shape_like")
    n = len(data.shape)
    if attrs.axes is None:
        if len(like.shape) > n:
            raise RelayTypeError(f"{name}: shape_like {like.shape} has more axes than the "
                                 f"data {data.shape}")
        axes = range(len(like.shape))
    else:
        axes = [norm_axis(name, int(a), n) for a in attrs.axes]
        if _builtins.any(a >= len(like.shape) for a in axes):
            raise RelayTypeError(f"{name}: axes {tuple(attrs.axes)} out of range for "
                                 f"shape_like {like.shape}")
    shape = list(data.shape)
    for a in axes:
        d, s = data.shape[a], like.shape[a]
        if isinstance(d, int) and isinstance(s, int) and s > d:
            raise RelayTypeError(f"{name}: shape_like's axis {a} ({s}) is longer than the "
                                 f"data's ({d})")
        shape[a] = s
    return TensorType(tuple(shape), data.dtype)


def _reverse_reshape_rel(types, attrs):
    data = tensor_arg("reverse_reshape", types, 0, "data")
    out = infer_newshape("reverse_reshape", tuple(reversed(data.shape)),
                         tuple(reversed(attrs.newshape)))
    return TensorType(tuple(reversed(out)), data.dtype)


register("collapse_sum_like", 2, _collapse_rel("collapse_sum_like"), OpPattern.COMM_REDUCE)
register("collapse_sum_to", 1, _collapse_rel("collapse_sum_to"), OpPattern.COMM_REDUCE,
         {"shape": ()})
register("slice_like", 2, _slice_like_rel, OpPattern.INJECTIVE, {"axes": None})
register("contrib_reverse_reshape", 1, _reverse_reshape_rel, OpPattern.INJECTIVE,
         {"newshape": ()})


def collapse_sum_like(data: Expr, collapse_type: Expr) -> Expr:
    """``data`` summed down to the shape of ``collapse_type`` (the inverse of broadcasting
    it to ``data``'s shape)."""
    return make_call("collapse_sum_like", [data, collapse_type])


def collapse_sum_to(data: Expr, shape) -> Expr:
    """``data`` summed down to ``shape`` (ints or a relay constant)."""
    return make_call("collapse_sum_to", [data], shape=_ints(shape))


def slice_like(data: Expr, shape_like: Expr, axes=None) -> Expr:
    """``data[:s_0, :s_1, ...]`` with ``s`` the shape of ``shape_like`` on ``axes`` (its
    leading axes when None)."""
    return make_call("slice_like", [data, shape_like], axes=_ints(axes))


def reverse_reshape(data: Expr, newshape) -> Expr:
    """``reshape`` with the special values of ``newshape`` (0: copy, -1: infer ...) matched
    from the right: ``(10, 5, 4)`` with ``(-1, 0)`` gives ``(50, 4)``."""
    return make_call("contrib_reverse_reshape", [data], newshape=_ints(newshape))


__all__ = ["einsum", "reinterpret", "matrix_set_diag", "invert_permutation", "broadcast_to_like",
           "sliding_window", "cumsum", "cumprod", "shape_of", "ndarray_size",
           "strided_slice", "take", "squeeze", "expand_dims", "broadcast_to", "split", "sum",
           "mean", "max", "min", "prod", "logsumexp", "all", "any", "argmax", "argmin",
           "variance", "std",
           "stack", "tile", "repeat", "reverse", "reverse_sequence", "gather", "gather_nd",
           "one_hot", "arange", "sequence_mask", "meshgrid", "trilu", "unravel_index", "full",
           "full_like", "zeros", "ones", "zeros_like", "ones_like", "reshape_like",
           "scatter_elements", "scatter_nd", "adv_index", "unique", "sparse_to_dense",
           "strided_set", "sparse_reshape", "stft", "fixed_point_multiply", "segment_sum",
           "mean_variance", "mean_std",
           "collapse_sum_like",
           "collapse_sum_to", "slice_like", "reverse_reshape"]


register("einsum", 1, topi_rel("einsum"), OpPattern.OPAQUE, {"equation": ""})


def einsum(data, equation: str) -> Expr:
    """The Einstein summation ``equation`` of the tensors of the tuple (or list) ``data``
    (``numpy.einsum``; see ``topi.einsum``)."""
    return make_call("einsum", [_tuple_arg(data)], equation=str(equation))
