"""``topi.argwhere``: the indices of the non-zero elements of a tensor."""
from __future__ import annotations

from ..te.operation import extern
from ..te.tensor import Tensor
from ..tir import ir_builder
from ..tir import op as _op
from .utils import TopiError, prod, unravel_index


def argwhere(output_shape: Tensor, condition: Tensor) -> Tensor:
    """The indices of the non-zero elements of ``condition``, in row-major order, one row each
    (``numpy.argwhere``; int32, extern stage ``argwhere``).

    Parameters
    ----------
    output_shape : Tensor
        Only its shape is used: ``(number of non-zero elements, condition.ndim)`` (known
        before the call, e.g. from a shape function). Rows past the count found stay unset.
    condition : Tensor
        The tensor searched (any rank >= 1).

    Returns
    -------
    Tensor
        ``output_shape.shape``, int32.
    """
    op = "argwhere"
    if not isinstance(condition, Tensor) or condition.ndim < 1:
        raise TopiError(f"{op}: condition must be a Tensor of rank >= 1, got {condition!r}")
    shape = list(output_shape.shape) if isinstance(output_shape, Tensor) else list(output_shape)
    if len(shape) != 2:
        raise TopiError(f"{op}: the output shape must be 2-D (count, {condition.ndim}), got "
                        f"{shape}")
    rank = condition.ndim

    def ir(cond_buf, out_buf):
        ib = ir_builder.create()
        cond, out = ib.buffer_ptr(cond_buf), ib.buffer_ptr(out_buf)
        count = ib.allocate("int32", (1,), name="count", scope="local")
        count[0] = _op.const(0, "int32")
        rows = _op.cast("int32", shape[0])
        with ib.for_range(0, prod(condition.shape), name="i") as i:
            x = cond[i]
            with ib.if_scope(_op.logical_and(_op.ne(x, _op.const(0, x.dtype)),
                                             _op.lt(count[0], rows))):
                for d, v in enumerate(unravel_index(i, condition.shape)):
                    out[_op.add(_op.mul(count[0], rank), d)] = _op.cast("int32", v)
                count[0] = _op.add(count[0], 1)
        return ib.get()
    return extern(shape, [condition], lambda ins, outs: ir(ins[0], outs[0]), name=op,
                  dtype="int32")


__all__ = ["argwhere"]
