"""``topi.sparse_reshape``: the indices of a sparse tensor's values after reshaping its dense
shape."""
from __future__ import annotations

from typing import List

from ..te.operation import compute
from ..te.tensor import Tensor
from ..tir import op as _op
from .transform import _select_chain
from .utils import TopiError, check_tensors, get_const_int


def _product(xs, dtype: str):
    out = _op.const(1, dtype)
    for x in xs:
        out = out * x
    return out


def sparse_reshape(sparse_indices: Tensor, prev_shape: Tensor, new_shape: Tensor,
                   new_sparse_indices_shape=None, new_shape_shape=None) -> List[Tensor]:
    """Reshape a sparse tensor: ``sparse_indices`` ``(N, len(prev_shape))`` index a dense
    tensor of shape ``prev_shape`` (both read at run time); returns ``[new_sparse_indices
    (N, len(new_shape)), out_new_shape]``, the same row-major positions in a dense tensor of
    ``new_shape`` (whose one -1 is inferred, giving ``out_new_shape``); when the shapes are
    equal the indices are copied unchanged.

    The lengths of the shapes and ``N`` must be static (``new_sparse_indices_shape`` and
    ``new_shape_shape``, classic's dynamic output shapes, must agree with them when given).
    Stages ``sparse_reshape_shape`` and ``sparse_reshape``, tag "injective"."""
    op = "sparse_reshape"
    check_tensors(op, sparse_indices=sparse_indices, prev_shape=prev_shape, new_shape=new_shape)
    if sparse_indices.ndim != 2 or prev_shape.ndim != 1 or new_shape.ndim != 1:
        raise TopiError(f"{op}: sparse_indices must be 2-D, prev_shape and new_shape 1-D")
    n = get_const_int(sparse_indices.shape[0])
    rank_in = get_const_int(prev_shape.shape[0])
    rank_out = get_const_int(new_shape.shape[0])
    if get_const_int(sparse_indices.shape[1]) != rank_in:
        raise TopiError(f"{op}: sparse_indices has {sparse_indices.shape[1]} coordinates, "
                        f"prev_shape {rank_in} dimensions")
    for given, want in ((new_sparse_indices_shape, (n, rank_out)),
                        (new_shape_shape, (rank_out,))):
        if given is not None and tuple(get_const_int(d) for d in given) != want:
            raise TopiError(f"{op}: output shape {list(given)} differs from {list(want)}")
    dt = new_shape.dtype
    prev = [_op.cast(dt, prev_shape[k]) for k in range(rank_in)]
    total = _product(prev, dt)
    raw = [new_shape[k] for k in range(rank_out)]
    minus_one = _op.const(-1, dt)
    known = _product([_op.if_then_else(r == minus_one, _op.const(1, dt), r) for r in raw], dt)
    dims = [_op.if_then_else(r == minus_one, _op.floordiv(total, known), r) for r in raw]
    out_shape = compute((rank_out,), lambda i: _select_chain(i, dims),
                        name="sparse_reshape_shape", tag="injective")

    def f(r, i):
        flat = _op.const(0, dt)
        for k in range(rank_in):
            flat = flat + _op.cast(dt, sparse_indices[r, k]) * _product(prev[k + 1:], dt)
        divider = _select_chain(i, [_product(dims[k + 1:], dt) for k in range(rank_out)])
        q = _op.floordiv(flat, divider)
        idx = _op.cast(sparse_indices.dtype,
                       _op.if_then_else(i == 0, q, _op.floormod(q, _select_chain(i, dims))))
        if rank_in != rank_out:
            return idx
        # the same shape: the indices are copied as they are (out-of-range ones too)
        same = _op.all(*[p == d for p, d in zip(prev, dims)])
        return _op.if_then_else(same, sparse_indices[r, i], idx)
    new_indices = compute((n, rank_out), f, name="sparse_reshape", tag="injective")
    return [new_indices, out_shape]
