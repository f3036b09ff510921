"""Pooling in NCHW layout (``topi.nn.pool2d``, ``topi.nn.global_pool``)."""
from __future__ import annotations

from typing import Sequence

from ...error import TVMError
from ...te.operation import compute, reduce_axis
from ...te.tensor import Tensor
from ...tir import op as _op
from .. import tag
from ..utils import get_const_int
from .pad import pad


def _check_layout(data: Tensor, layout: str, what: str) -> None:
    if layout != "NCHW":
        raise TVMError(f"{what}: only the NCHW layout is supported, got {layout}")
    if data.ndim != 4:
        raise TVMError(f"{what}: expects a 4-D NCHW tensor, got {data.ndim}-D")


def pool2d(data: Tensor, kernel: Sequence[int], stride: Sequence[int],
           dilation: Sequence[int] = (1, 1), padding: Sequence[int] = (0, 0, 0, 0),
           pool_type: str = "max", ceil_mode: bool = False, layout: str = "NCHW",
           count_include_pad: bool = True) -> Tensor:
    """Max or average pooling over H and W; ``padding`` is ``(top, left, bottom, right)``.

    The result is a stage named ``tensor`` tagged "pool_max", or for "avg" a ``pool_sum``
    stage followed by an elementwise division.
    """
    _check_layout(data, layout, "pool2d")
    if pool_type not in ("max", "avg"):
        raise ValueError(f"pool2d: pool_type must be 'max' or 'avg', got {pool_type!r}")
    kh, kw = (get_const_int(k) for k in kernel)
    sh, sw = (get_const_int(s) for s in stride)
    dh, dw = (get_const_int(d) for d in dilation)
    top, left, bottom, right = (get_const_int(p) for p in padding)
    n, c, h, w = data.shape
    dkh, dkw = (kh - 1) * dh + 1, (kw - 1) * dw + 1
    if ceil_mode:
        bottom += sh - 1
        right += sw - 1
    out_h = _op.add(_op.floordiv(_op.add(_op.sub(h, dkh), top + bottom), sh), 1)
    out_w = _op.add(_op.floordiv(_op.add(_op.sub(w, dkw), left + right), sw), 1)
    padded = data
    if top or left or bottom or right:
        value = _op.min_value(data.dtype) if pool_type == "max" else _op.const(0, data.dtype)
        padded = pad(data, [0, 0, top, left], [0, 0, bottom, right], value, name="pad_temp")
    rh = reduce_axis((0, kh), name="rv0")
    rw = reduce_axis((0, kw), name="rv1")

    def window(b, ch, y, x):
        return padded[b, ch, y * sh + rh * dh, x * sw + rw * dw]

    shape = (n, c, out_h, out_w)
    if pool_type == "max":
        return compute(shape, lambda b, ch, y, x: _op.max(window(b, ch, y, x), axis=[rh, rw]),
                       name="tensor", tag="pool_max")
    psum = compute(shape, lambda b, ch, y, x: _op.sum(window(b, ch, y, x), axis=[rh, rw]),
                   name="tensor", tag="pool_sum")
    if count_include_pad:
        return compute(shape, lambda b, ch, y, x: _op.div(psum[b, ch, y, x], kh * kw),
                       name="tensor", tag=tag.ELEMWISE)

    def avg(b, ch, y, x):
        def count(o, s, d, k, lo, size):
            # window taps t in [0, k) with 0 <= start + t*d < size
            start = _op.sub(_op.mul(o, s), lo)
            t_lo = _op._max(_op.floordiv(_op.add(_op.neg(start), d - 1), d), 0)
            t_hi = _op._min(_op.floordiv(_op.sub(_op.sub(size, 1), start), d), k - 1)
            return _op._max(_op.add(_op.sub(t_hi, t_lo), 1), 0)
        cnt = _op.mul(count(y, sh, dh, kh, top, h), count(x, sw, dw, kw, left, w))
        return _op.div(psum[b, ch, y, x], _op.cast(data.dtype, _op._max(cnt, 1)))
    return compute(shape, avg, name="tensor", tag=tag.ELEMWISE)


def global_pool(data: Tensor, pool_type: str, layout: str = "NCHW") -> Tensor:
    """Pool each channel to one value: ``(N, C, H, W) -> (N, C, 1, 1)``."""
    _check_layout(data, layout, "global_pool")
    if pool_type not in ("max", "avg"):
        raise ValueError(f"global_pool: pool_type must be 'max' or 'avg', got {pool_type!r}")
    n, c, h, w = data.shape
    rh = reduce_axis((0, h), name="rv0")
    rw = reduce_axis((0, w), name="rv1")
    shape = (n, c, 1, 1)
    if pool_type == "max":
        return compute(shape, lambda b, ch, y, x: _op.max(data[b, ch, rh, rw], axis=[rh, rw]),
                       name="tensor", tag="global_pool_max")
    psum = compute(shape, lambda b, ch, y, x: _op.sum(data[b, ch, rh, rw], axis=[rh, rw]),
                   name="tensor", tag="global_pool_sum")
    size = _op.cast(data.dtype, _op.mul(h, w))
    return compute(shape, lambda b, ch, y, x: _op.div(psum[b, ch, y, x], size),
                   name="tensor", tag=tag.ELEMWISE)
