"""Cumulative operators (``topi.cumsum``, ``topi.cumprod``, ``topi.scanop``).

Each is a ``te.extern`` (as classic's): a sequential walk along the axis, each output the
previous one combined with the next element, with the axes after it innermost so the compiler
vectorizes them and the axes before it run in parallel on large inputs. Linear in the size.
"""
from __future__ import annotations

from contextlib import nullcontext
from typing import Callable, Optional

from ..ir import dtype as _dt
from ..te.operation import extern, thread_axis
from ..te.tensor import Tensor
from ..tir import ir_builder
from ..tir import op as _op
from ..tir.expr import IntImm
from .transform import _norm_axis, _tensor, reshape
from .utils import prod

#: elements from which the walk runs the leading axes in parallel
_PARALLEL_MIN = 1 << 15
#: threads per block of the GPU walk
_GPU_THREADS = 256


def _const(x):
    """``x`` as a Python int when it is a constant."""
    return x.value if isinstance(x, IntImm) else x


def scanop(data: Tensor, binop: Callable, identity_value, op_name: str,
           axis: Optional[int] = None, dtype: Optional[str] = None,
           exclusive: Optional[bool] = None, gpu: bool = False) -> Tensor:
    """Cumulative ``binop`` along ``axis`` (of the flattened data when None):
    ``out[..., j, ...] = data[..., 0, ...] binop ... binop data[..., j, ...]``; ``exclusive``
    leaves out each element itself (the first is then ``identity_value``). Stage
    ``T_{op_name}``, tag ``op_name``.

    Parameters
    ----------
    data : Tensor
        The input.
    binop : callable
        An associative, commutative ``(PrimExpr, PrimExpr) -> PrimExpr``.
    identity_value : number
        ``binop``'s identity.
    op_name : str
        The operator's name.
    axis : int or None
        The axis to accumulate along.
    dtype : str or None
        The output (and accumulation) dtype; ``data``'s by default.
    exclusive : bool or None
        Combine the elements before each position only.
    gpu : bool
        Bind the independent lines of the walk to GPU threads (``topi.cuda.cumsum``).
    """
    data = _tensor(data, op_name, "data")
    if axis is None:
        data = reshape(data, [prod(data.shape)])
        axis = 0
    axis = _norm_axis(axis, data.ndim, op_name)
    dt = _dt.canonical(str(dtype)) if dtype else data.dtype
    shape = list(data.shape)
    outer, n, inner, size = (_const(prod(d)) for d in (shape[:axis], shape[axis:axis + 1],
                                                        shape[axis + 1:], shape))
    ident = _op.const(identity_value, dt)

    def walk(ins, outs):
        ib = ir_builder.create()
        src = ib.buffer_ptr(ins[0], shape=[outer, n, inner])
        dst = ib.buffer_ptr(outs[0], shape=[outer, n, inner])

        def value(o, k, j):
            return _op.cast(dt, src[o, k - 1, j] if exclusive else src[o, k, j])

        def first(o, j):
            with ib.if_scope(n > 0) if not isinstance(n, int) else nullcontext():
                dst[o, 0, j] = ident if exclusive else value(o, 0, j)

        def line(o, j):
            """One line with its running value in a register: no store-to-load chain."""
            acc = ib.allocate(dt, (1,), name="acc", scope="local")
            if exclusive:
                acc[0] = ident
                with ib.for_range(0, n, name="k") as k:
                    dst[o, k, j] = acc[0]
                    acc[0] = binop(acc[0], _op.cast(dt, src[o, k, j]))
                return
            with ib.if_scope(n > 0) if not isinstance(n, int) else nullcontext():
                acc[0] = value(o, 0, j)
                dst[o, 0, j] = acc[0]
            with ib.for_range(1, n, name="k") as k:
                acc[0] = binop(acc[0], value(o, k, j))
                dst[o, k, j] = acc[0]

        if isinstance(n, int) and n == 0:
            return ib.get()
        if gpu:  # one thread per line of the walk
            lines = outer * inner
            nt = lines if isinstance(lines, int) and lines < _GPU_THREADS else _GPU_THREADS
            bx, tx = thread_axis("blockIdx.x"), thread_axis("threadIdx.x")
            ib.scope_attr(bx, "thread_extent", (lines + nt - 1) // nt)
            ib.scope_attr(tx, "thread_extent", nt)
            t = bx * nt + tx
            with ib.if_scope(t < lines):
                line(t // inner, t % inner)
            return ib.get()
        big = not isinstance(size, int) or size >= _PARALLEL_MIN
        kind = "parallel" if big and not (isinstance(outer, int) and outer == 1) else "serial"
        with ib.for_range(0, outer, name="o", kind=kind) as o:
            if isinstance(inner, int) and inner == 1:
                line(o, 0)
            else:  # the lines side by side, innermost: vector code
                with ib.for_range(0, inner, name="j") as j:
                    first(o, j)
                with ib.for_range(1, n, name="k") as k:
                    with ib.for_range(0, inner, name="j") as j:
                        dst[o, k, j] = binop(dst[o, k - 1, j], value(o, k, j))
        return ib.get()

    return extern(shape, [data], walk, dtype=dt, name=f"T_{op_name}", tag=op_name)


def cumsum(data: Tensor, axis: Optional[int] = None, dtype: Optional[str] = None,
           exclusive: Optional[bool] = None) -> Tensor:
    """Cumulative sum along ``axis`` (of the flattened data when None), as ``numpy.cumsum``;
    ``exclusive`` leaves out each element itself (stage ``T_cumsum``, tag "cumsum").

    Parameters
    ----------
    data : Tensor
        The input.
    axis : int or None
        The axis to accumulate along.
    dtype : str or None
        The output (and accumulation) dtype; ``data``'s by default.
    exclusive : bool or None
        Sum the elements before each position only.
    """
    return scanop(data, _op.add, 0, "cumsum", axis, dtype, exclusive)


def cumprod(data: Tensor, axis: Optional[int] = None, dtype: Optional[str] = None,
            exclusive: Optional[bool] = None) -> Tensor:
    """Cumulative product along ``axis`` (of the flattened data when None), as
    ``numpy.cumprod``; ``exclusive`` leaves out each element itself (stage ``T_cumprod``, tag
    "cumprod").

    Parameters
    ----------
    data : Tensor
        The input.
    axis : int or None
        The axis to accumulate along.
    dtype : str or None
        The output (and accumulation) dtype; ``data``'s by default.
    exclusive : bool or None
        Multiply the elements before each position only.
    """
    return scanop(data, _op.mul, 1, "cumprod", axis, dtype, exclusive)


__all__ = ["scanop", "cumsum", "cumprod"]
