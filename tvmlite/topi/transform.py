"""Injective layout operators: ``reshape``, ``transpose``, ``expand_dims``, ``squeeze``."""
from __future__ import annotations

from typing import Optional, Sequence

from ..te.operation import compute
from ..te.tensor import Tensor
from ..tir import op as _op
from ..tir.expr import IntImm
from . import tag
from .utils import prod, ravel_index, unravel_index


def _ax(n: int):
    return [f"ax{k}" for k in range(n)]


def _norm_axis(axis: int, ndim: int, what: str) -> int:
    if not -ndim <= axis < ndim:
        raise ValueError(f"{what}: axis {axis} is out of range for {ndim} dimension(s)")
    return axis + ndim if axis < 0 else axis


def reshape(a: Tensor, newshape) -> Tensor:
    """Reshape (row-major); one dimension may be -1 (stage ``T_reshape``)."""
    newshape = [newshape] if isinstance(newshape, int) else list(newshape)
    dims = [_op.convert(d) for d in newshape]
    neg = [k for k, d in enumerate(dims) if isinstance(d, IntImm) and d.value == -1]
    if len(neg) > 1:
        raise ValueError("reshape: only one dimension can be -1")
    total = prod(a.shape)
    if neg:
        known = prod(d for k, d in enumerate(dims) if k != neg[0])
        if isinstance(total, IntImm) and isinstance(known, IntImm):
            if known.value == 0 or total.value % known.value:
                raise ValueError(f"reshape: cannot reshape {list(a.shape)} to {newshape}")
        dims[neg[0]] = _op.floordiv(total, known)
    new_total = prod(dims)
    if isinstance(total, IntImm) and isinstance(new_total, IntImm) and \
            total.value != new_total.value:
        raise ValueError(f"reshape: cannot reshape {list(a.shape)} ({total.value} elements) to "
                         f"{newshape} ({new_total.value} elements)")
    return compute(dims, lambda *i: a(*unravel_index(ravel_index(i, dims), a.shape)),
                   name="T_reshape", tag=tag.INJECTIVE, varargs_names=_ax(len(dims)))


def transpose(a: Tensor, axes: Optional[Sequence[int]] = None) -> Tensor:
    """Permute the dimensions (reverse them by default; stage ``T_transpose``)."""
    n = a.ndim
    axes = list(reversed(range(n))) if axes is None else [
        _norm_axis(int(x), n, "transpose") for x in axes]
    if sorted(axes) != list(range(n)):
        raise ValueError(f"transpose: axes {axes} are not a permutation of {n} dimensions")
    shape = [a.shape[k] for k in axes]

    def f(*i):
        idx = [None] * n
        for out_pos, in_dim in enumerate(axes):
            idx[in_dim] = i[out_pos]
        return a(*idx)
    return compute(shape, f, name="T_transpose", tag=tag.INJECTIVE, varargs_names=_ax(n))


def expand_dims(a: Tensor, axis: int, num_newaxis: int = 1) -> Tensor:
    """Insert ``num_newaxis`` unit dimensions at ``axis`` (stage ``T_expand_dims``)."""
    n = a.ndim
    axis = _norm_axis(axis, n + 1, "expand_dims")
    shape = list(a.shape[:axis]) + [1] * num_newaxis + list(a.shape[axis:])

    def f(*i):
        return a(*(list(i[:axis]) + list(i[axis + num_newaxis:])))
    return compute(shape, f, name="T_expand_dims", tag=tag.BROADCAST,
                   varargs_names=_ax(len(shape)))


def squeeze(a: Tensor, axis=None) -> Tensor:
    """Remove unit dimensions (all of them, or those in ``axis``; stage ``T_squeeze``)."""
    n = a.ndim
    if axis is None:
        drop = [k for k, d in enumerate(a.shape) if isinstance(d, IntImm) and d.value == 1]
    else:
        axis = [axis] if isinstance(axis, int) else list(axis)
        drop = sorted(_norm_axis(x, n, "squeeze") for x in axis)
        for k in drop:
            d = a.shape[k]
            if not (isinstance(d, IntImm) and d.value == 1):
                raise ValueError(f"squeeze: dimension {k} has size {d}, not 1")
    keep = [k for k in range(n) if k not in drop]
    shape = [a.shape[k] for k in keep]

    def f(*i):
        idx = [IntImm(a.shape[k].dtype, 0) for k in range(n)]
        for pos, k in enumerate(keep):
            idx[k] = i[pos]
        return a(*idx)
    return compute(shape, f, name="T_squeeze", tag=tag.INJECTIVE, varargs_names=_ax(len(shape)))


__all__ = ["reshape", "transpose", "expand_dims", "squeeze"]


def concatenate(tensors, axis: int = 0) -> Tensor:
    """Join tensors along ``axis`` (stage ``T_concat``)."""
    tensors = list(tensors)
    if not tensors:
        raise ValueError("concatenate needs at least one tensor")
    n = tensors[0].ndim
    axis = _norm_axis(axis, n, "concatenate")
    for t in tensors[1:]:
        if t.ndim != n or t.dtype != tensors[0].dtype:
            raise ValueError("concatenate: tensors must have the same rank and dtype")
    sizes = [t.shape[axis] for t in tensors]
    total = sizes[0]
    for s in sizes[1:]:
        total = _op.add(total, s)
    shape = list(tensors[0].shape)
    shape[axis] = total

    def f(*i):
        # tensor k covers [offset_k, offset_k + size_k); later tensors take precedence
        offsets, acc = [], _op.convert(0)
        for s in sizes:
            offsets.append(acc)
            acc = _op.add(acc, s)
        idx = list(i)
        res = None
        for k in range(len(tensors)):
            sub = list(idx)
            sub[axis] = _op.sub(idx[axis], offsets[k])
            val = tensors[k](*sub)
            res = val if res is None else _op.if_then_else(
                _op.ge(idx[axis], offsets[k]), val, res)
        return res
    return compute(shape, f, name="T_concat", tag=tag.INJECTIVE, varargs_names=_ax(n))


__all__ += ["concatenate"]
