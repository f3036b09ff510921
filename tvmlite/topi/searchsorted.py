"""``topi.searchsorted``: insertion indices of values into sorted sequences (binary search)."""
from __future__ import annotations

from ..ir import dtype as _dt
from ..te.operation import extern
from ..te.tensor import Tensor
from ..tir import ir_builder
from ..tir import op as _op
from .utils import TopiError, check_tensors, get_const_tuple, prod


def searchsorted(sorted_sequence: Tensor, values: Tensor, right: bool = False,
                 out_dtype: str = "int64") -> Tensor:
    """For each value, the index in its sorted sequence (the innermost axis) before which
    it would be inserted to keep the order, as ``numpy.searchsorted``: the first such index
    (``right`` False: past the elements ``< v``) or the last (``right``: past those
    ``<= v``). A binary search per value in a parallel loop (extern stage
    ``searchsorted``).

    Parameters
    ----------
    sorted_sequence : Tensor
        1-D, or N-D with each innermost row ascending.
    values : Tensor
        Any shape with a 1-D sequence; else the same rank, the outer N-1 axes equal to the
        sequence's.
    right : bool
        Which index a value equal to elements gets.
    out_dtype : str
        The indices' dtype.

    Returns
    -------
    Tensor
        The indices, of ``values``' shape.
    """
    op = "searchsorted"
    check_tensors(op, sorted_sequence=sorted_sequence, values=values)
    seq_shape, val_shape = get_const_tuple(sorted_sequence.shape), get_const_tuple(values.shape)
    if len(seq_shape) != 1 and (len(seq_shape) != len(val_shape)
                                or seq_shape[:-1] != val_shape[:-1]):
        raise TopiError(f"{op}: with an N-D sorted_sequence {seq_shape}, values must have the "
                        f"same rank and outer dimensions, got {val_shape}")
    if len(seq_shape) != 1 and not val_shape:
        raise TopiError(f"{op}: values must not be a scalar with an N-D sorted_sequence")
    out_dtype = _dt.canonical(str(out_dtype))
    n = seq_shape[-1]

    def ir(seq_buf, val_buf, out_buf):
        ib = ir_builder.create()
        seq, val = ib.buffer_ptr(seq_buf), ib.buffer_ptr(val_buf)
        out = ib.buffer_ptr(out_buf)
        total = prod(val_shape)
        with ib.for_range(0, total, name="i", kind="parallel") as i:
            base = 0 if len(seq_shape) == 1 else (i // val_shape[-1]) * n
            lo = ib.allocate("int64", (1,), name="lo", scope="local")
            hi = ib.allocate("int64", (1,), name="hi", scope="local")
            v = ib.let("v", val[i])
            lo[0] = _op.const(0, "int64")
            hi[0] = _op.const(n, "int64")
            with ib.while_loop(_op.lt(lo[0], hi[0])):
                mid = ib.let("mid", _op.floordiv(_op.add(lo[0], hi[0]), 2))
                x = seq[_op.add(_op.cast("int64", base), mid)]
                before = _op.le(x, v) if right else _op.lt(x, v)
                with ib.if_scope(before):
                    lo[0] = _op.add(mid, 1)
                with ib.else_scope():
                    hi[0] = mid
            out[i] = _op.cast(out_dtype, lo[0])
        return ib.get()
    return extern(values.shape, [sorted_sequence, values],
                  lambda ins, outs: ir(ins[0], ins[1], outs[0]), name=op, dtype=out_dtype)


__all__ = ["searchsorted"]
