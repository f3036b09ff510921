"""FlowNet's correlation layer (``topi.nn.correlation_nchw``)."""
from __future__ import annotations

from typing import Tuple

from ...te.operation import compute, reduce_axis
from ...te.tensor import Tensor
from ...tir import op as _op
from .. import tag
from ..utils import TopiError, const_ints, get_const_tuple
from .pad import pad


def _pads(padding, op: str) -> Tuple[int, int, int, int]:
    """``(top, left, bottom, right)`` from an int, ``(pad_h, pad_w)`` or
    ``(top, left, bottom, right)``."""
    if isinstance(padding, int):
        return (padding,) * 4
    if isinstance(padding, (tuple, list)) and len(padding) == 2:
        h, w = const_ints(padding, 2, op, "padding")
        return h, w, h, w
    if isinstance(padding, (tuple, list)) and len(padding) == 4:
        return const_ints(padding, 4, op, "padding")
    raise TopiError(f"{op}: invalid padding {padding!r}: an int, or 2 or 4 ints")


def correlation_nchw(data1: Tensor, data2: Tensor, kernel_size: int, max_displacement: int,
                     stride1: int, stride2: int, padding, is_multiply: bool) -> Tensor:
    """Correlation of two NCHW feature maps: for each output position and each displacement
    ``(dy, dx)`` (multiples of ``stride2`` up to ``max_displacement``), the mean over the
    channels and a ``kernel_size`` window of ``a * b`` (``is_multiply``) or ``|a - b|``,
    ``a`` from ``data1`` at the position and ``b`` from ``data2`` displaced. Both maps are
    padded by ``padding`` first.

    Parameters
    ----------
    data1, data2 : Tensor
        ``(batch, channel, height, width)``, the same shape.
    kernel_size : int
        The odd window edge.
    max_displacement : int
        The largest displacement along each axis.
    stride1 : int
        The output stride over ``data1``.
    stride2 : int
        The displacement step.
    padding : int or list of 2 or 4 ints
        ``pad``, ``(pad_h, pad_w)`` or ``(top, left, bottom, right)``.
    is_multiply : bool
        Multiply (True) or take the absolute difference (False).

    Returns
    -------
    Tensor
        ``(batch, D * D, out_h, out_w)`` with ``D = 2 * (max_displacement // stride2) + 1``
        (displacement ``q`` is ``(q // D, q % D)``, row-major); the sums are stage tag
        "correlation_nchw", divided by ``kernel_size^2 * channel`` in a following stage.
    """
    op = "correlation_nchw"
    for name, t in (("data1", data1), ("data2", data2)):
        if not isinstance(t, Tensor) or t.ndim != 4:
            raise TopiError(f"{op}: {name} must be a 4-D NCHW Tensor, got {t!r}")
    shape = get_const_tuple(data1.shape)
    if get_const_tuple(data2.shape) != shape:
        raise TopiError(f"{op}: data1 and data2 should have the same shape, got {shape} and "
                        f"{get_const_tuple(data2.shape)}")
    if kernel_size <= 0 or kernel_size % 2 == 0:
        raise TopiError(f"{op}: kernel_size should be a positive odd number, got {kernel_size}")
    if max_displacement < 0 or stride1 <= 0 or stride2 <= 0:
        raise TopiError(f"{op}: max_displacement must be >= 0 and the strides positive, got "
                        f"{max_displacement}, {stride1}, {stride2}")
    top, left, bottom, right = _pads(padding, op)
    p1 = pad(data1, [0, 0, top, left], [0, 0, bottom, right])
    p2 = pad(data2, [0, 0, top, left], [0, 0, bottom, right])
    batch, channel, height, width = shape
    border = max_displacement + (kernel_size - 1) // 2
    radius = max_displacement // stride2
    size = 2 * radius + 1
    out_h = (height + top + bottom - 2 * border + stride1 - 1) // stride1
    out_w = (width + left + right - 2 * border + stride1 - 1) // stride1
    if out_h <= 0 or out_w <= 0:
        raise TopiError(f"{op}: the padded input is too small for max_displacement "
                        f"{max_displacement} and kernel_size {kernel_size}")
    rc = reduce_axis((0, channel), name="rc")
    ry = reduce_axis((0, kernel_size), name="ry")
    rx = reduce_axis((0, kernel_size), name="rx")

    def f(n, q, i, j):
        y1, x1 = i * stride1 + max_displacement, j * stride1 + max_displacement
        y2 = y1 + (q // size - radius) * stride2
        x2 = x1 + (q % size - radius) * stride2
        a, b = p1[n, rc, y1 + ry, x1 + rx], p2[n, rc, y2 + ry, x2 + rx]
        return _op.sum(_op.mul(a, b) if is_multiply else _op.abs(_op.sub(a, b)),
                       axis=[rc, ry, rx])
    corr = compute((batch, size * size, out_h, out_w), f, tag=op)
    norm = _op.const(kernel_size * kernel_size * channel, data1.dtype)
    return compute(corr.shape, lambda *i: _op.div(corr(*i), norm), tag=tag.BROADCAST)
