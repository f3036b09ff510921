"""Darknet's ``reorg`` layer (``topi.vision.reorg``)."""
from __future__ import annotations

from ...te.operation import compute
from ...te.tensor import Tensor
from ..transform import reshape
from ..utils import TopiError, check_strides, get_const_int, ravel_index, unravel_index


def reorg(data: Tensor, stride: int) -> Tensor:
    """Darknet's reorganisation: ``(N, C, H, W) -> (N, C * s^2, H / s, W / s)``.

    Element ``(b, k, j, i)`` of the input-shaped intermediate (stage ``tensor``, tag
    "reorg_output") reads the input at the flat position ``w2 + W s (h2 + H s (c2 + C' b))``,
    where ``C' = C / s^2``, ``c2 = k % C'``, ``off = k / C'``, ``h2 = j s + off / s`` and
    ``w2 = i s + off % s``; the result is that intermediate reshaped.

    Parameters
    ----------
    data : Tensor
        ``(batch, channel, height, width)``; ``stride^2`` divides the channels and ``stride``
        the height and width.
    stride : int
        The block edge ``s``.

    Returns
    -------
    Tensor
        ``(batch, channel * s^2, height / s, width / s)``.
    """
    op = "reorg"
    if not isinstance(data, Tensor) or data.ndim != 4:
        raise TopiError(f"{op}: data must be a 4-D Tensor, got {data!r}")
    s = check_strides(stride, 1, op, "stride")[0]
    n, c, h, w = (get_const_int(d) for d in data.shape)
    if c % (s * s) or h % s or w % s:
        raise TopiError(f"{op}: stride {s} must divide the height {h} and width {w}, and its "
                        f"square the {c} channels")
    oc = c // (s * s)

    def f(b, k, j, i):
        c2, off = k % oc, k // oc
        flat = ravel_index([b, c2, j * s + off // s, i * s + off % s], [n, oc, h * s, w * s])
        return data(*unravel_index(flat, [n, c, h, w]))
    out = compute((n, c, h, w), f, name="tensor", tag="reorg_output")
    return reshape(out, (n, c * s * s, h // s, w // s))
