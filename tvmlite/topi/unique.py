"""``topi.unique``: the distinct elements of a 1-D tensor, with their first indices, the
inverse mapping and (optionally) their counts."""
from __future__ import annotations

from typing import List

from ..te.operation import extern
from ..te.tensor import Tensor
from ..tir import ir_builder
from ..tir import op as _op
from .sort import argsort
from .utils import TopiError


def unique(data: Tensor, is_sorted: bool = True, return_counts: bool = False) -> List[Tensor]:
    """The unique elements of the 1-D ``data`` (``numpy.unique`` with its index, inverse
    and count outputs; ``is_sorted`` False orders them by first occurrence instead).

    A stable argsort, then one sequential extern pass (stage ``unique``) over the sorted
    order that numbers the groups of equal elements.

    Parameters
    ----------
    data : Tensor
         1-D.
    is_sorted : bool
        Ascending order (True) or order of first occurrence (False).
    return_counts : bool
        Also return how many times each element occurs.

    Returns
    -------
    list of Tensor
        ``[unique, indices, inverse_indices, num_unique]`` (and ``counts`` last when asked),
        each of data's length except ``num_unique`` ``(1,)``: only the first ``num_unique``
        entries of ``unique``, ``indices`` (first occurrences) and ``counts`` are set (the
        rest are 0); ``inverse_indices[i]`` is the position of ``data[i]`` in ``unique``.
        Indices and counts are int32.
    """
    op = "unique"
    if not isinstance(data, Tensor) or data.ndim != 1:
        raise TopiError(f"{op}: data must be a 1-D Tensor, got {data!r}")
    n = data.shape[0]
    order = argsort(data, axis=0, is_ascend=True, dtype="int32")

    def ir(data_buf, order_buf, *out_bufs):
        ib = ir_builder.create()
        x, srt = ib.buffer_ptr(data_buf), ib.buffer_ptr(order_buf)
        uniq, first, inverse, num = (ib.buffer_ptr(b) for b in out_bufs[:4])
        counts = ib.buffer_ptr(out_bufs[4]) if return_counts else None
        zero = _op.const(0, "int32")
        # pass 1, over the sorted order: group g's value, first index and count (sorted)
        g_val = ib.allocate(data.dtype, (n,), name="g_val")
        g_first = ib.allocate("int32", (n,), name="g_first")
        g_count = ib.allocate("int32", (n,), name="g_count")
        g_of = ib.allocate("int32", (n,), name="g_of")  # the group of each input element
        k = ib.allocate("int32", (1,), name="k", scope="local")
        k[0] = _op.const(-1, "int32")
        with ib.for_range(0, n, name="j") as j:
            i = ib.let("i", srt[j])
            prev = srt[_op.sub(_op._max(j, 1), 1)]  # (j = 0 starts a group anyway)
            with ib.if_scope(_op.logical_or(_op.eq(j, 0), _op.ne(x[i], x[prev]))):
                k[0] = k[0] + 1
                g_val[k[0]] = x[i]
                g_first[k[0]] = i  # stable sort: the earliest of its equals
                g_count[k[0]] = zero
            g_count[k[0]] = g_count[k[0]] + 1
            g_of[i] = k[0]
        num[0] = k[0] + 1
        # pass 2, over the input order: each group's output position (the order of first
        # occurrences when not sorted)
        pos = None if is_sorted else ib.allocate("int32", (n,), name="pos")
        nxt = ib.allocate("int32", (1,), name="nxt", scope="local")
        nxt[0] = zero
        with ib.for_range(0, n, name="i") as i:
            if pos is not None:
                g = ib.let("g", g_of[i])
                with ib.if_scope(_op.eq(g_first[g], i)):
                    pos[g] = nxt[0]
                    nxt[0] = nxt[0] + 1
            uniq[i] = _op.const(0, data.dtype)
            first[i] = zero
            if counts is not None:
                counts[i] = zero
        with ib.for_range(0, n, name="g") as g:
            with ib.if_scope(_op.lt(g, num[0])):
                p = ib.let("p", g if pos is None else pos[g])
                uniq[p] = g_val[g]
                first[p] = g_first[g]
                if counts is not None:
                    counts[p] = g_count[g]
        with ib.for_range(0, n, name="i") as i:
            inverse[i] = g_of[i] if pos is None else pos[g_of[i]]
        return ib.get()
    shapes = [[n], [n], [n], [1]] + ([[n]] if return_counts else [])
    dtypes = [data.dtype, "int32", "int32", "int32"] + (["int32"] if return_counts else [])
    outs = extern(shapes, [data, order], lambda ins, outs: ir(ins[0], ins[1], *outs),
                  name=op, dtype=dtypes)
    return list(outs)


__all__ = ["unique"]
