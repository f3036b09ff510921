"""Pooling (``topi.nn.pool2d``, ``global_pool``, ``adaptive_pool``) over the ``H`` and ``W``
axes of any layout that has them ("NCHW", "NHWC", "NCHW16c", ...)."""
from __future__ import annotations

import re
from typing import Sequence, Tuple

from ...te.operation import compute, reduce_axis
from ...te.tensor import Tensor
from ...tir import op as _op
from .. import tag
from ..utils import TopiError, check_strides, const_ints, get_const_int
from .pad import pad
from .utils import conv_out_size


def _hw_axes(data: Tensor, layout: str, op: str) -> Tuple[int, int]:
    if not isinstance(data, Tensor):
        raise TopiError(f"{op}: data must be a Tensor, got {data!r}")
    tokens = re.findall(r"\d*[A-Za-z]", layout) if isinstance(layout, str) else []
    if "".join(tokens) != layout or "H" not in tokens or "W" not in tokens:
        raise TopiError(f"{op}: layout must name the H and W axes (e.g. 'NCHW'), got "
                        f"{layout!r}")
    if len(tokens) != data.ndim:
        raise TopiError(f"{op}: layout {layout!r} has {len(tokens)} axes but data is "
                        f"{data.ndim}-D")
    return tokens.index("H"), tokens.index("W")


def _check_pool_type(pool_type: str, op: str) -> None:
    if pool_type not in ("max", "avg"):
        raise TopiError(f"{op}: pool_type must be 'max' or 'avg', got {pool_type!r}")


def _taps(o, stride: int, dil: int, k: int, lo: int, hi):
    """How many of the taps ``o*stride - lo + t*dil`` (``0 <= t < k``) fall in ``[0, hi)``."""
    start = _op.sub(_op.mul(o, stride), lo)
    t_lo = _op._max(_op.floordiv(_op.add(_op.neg(start), dil - 1), dil), 0)
    t_hi = _op._min(_op.floordiv(_op.sub(_op.sub(hi, 1), start), dil), k - 1)
    return _op._max(_op.add(_op.sub(t_hi, t_lo), 1), 0)


def pool2d(data: Tensor, kernel: Sequence[int], stride: Sequence[int],
           dilation: Sequence[int] = (1, 1), padding: Sequence[int] = (0, 0, 0, 0),
           pool_type: str = "max", ceil_mode: bool = False, layout: str = "NCHW",
           count_include_pad: bool = True) -> Tensor:
    """Max or average pooling over H and W; ``padding`` is ``(top, left, bottom, right)``.

    The result is a stage named ``tensor`` tagged "pool_max", or for "avg" a ``pool_sum``
    stage followed by an elementwise division. ``ceil_mode`` rounds the output size up
    (extra windows may not start in the bottom/right padding, as in PyTorch); the average
    divides by the taps inside the padded input (``count_include_pad``) or the input.
    """
    op = "pool2d"
    hax, wax = _hw_axes(data, layout, op)
    _check_pool_type(pool_type, op)
    kh, kw = check_strides(kernel, 2, op, "kernel")
    sh, sw = check_strides(stride, 2, op, "stride")
    dh, dw = check_strides(dilation, 2, op, "dilation")
    top, left, bottom, right = const_ints(padding, 4, op, "padding")
    if min(top, left, bottom, right) < 0:
        raise TopiError(f"{op}: padding must be non-negative, got {list(padding)}")
    h, w = data.shape[hax], data.shape[wax]
    out_h = conv_out_size(op, h, kh, dh, top, bottom, sh, "height")
    out_w = conv_out_size(op, w, kw, dw, left, right, sw, "width")
    ebottom, eright = bottom, right
    if ceil_mode:
        ih, iw = get_const_int(h), get_const_int(w)
        oh, ow = (get_const_int(x) for x in (out_h, out_w))
        dkh, dkw = (kh - 1) * dh + 1, (kw - 1) * dw + 1
        oh2 = -(-(ih + top + bottom - dkh) // sh) + 1
        ow2 = -(-(iw + left + right - dkw) // sw) + 1
        # the last window must start inside the input or the top/left padding
        oh2 -= (oh2 - 1) * sh >= ih + top
        ow2 -= (ow2 - 1) * sw >= iw + left
        ebottom += max((oh2 - 1) * sh + dkh - (ih + top + bottom), 0)
        eright += max((ow2 - 1) * sw + dkw - (iw + left + right), 0)
        out_h, out_w = _op.convert(max(oh, oh2)), _op.convert(max(ow, ow2))
    padded = data
    nd = data.ndim
    if top or left or ebottom or eright:
        before, after = [0] * nd, [0] * nd
        before[hax], before[wax], after[hax], after[wax] = top, left, ebottom, eright
        value = _op.min_value(data.dtype) if pool_type == "max" else _op.const(0, data.dtype)
        padded = pad(data, before, after, value, name="pad_temp")
    rh = reduce_axis((0, kh), name="rv0")
    rw = reduce_axis((0, kw), name="rv1")
    shape = list(data.shape)
    shape[hax], shape[wax] = out_h, out_w

    def window(*i):
        idx = list(i)
        idx[hax] = i[hax] * sh + rh * dh
        idx[wax] = i[wax] * sw + rw * dw
        return padded(*idx)

    if pool_type == "max":
        return compute(shape, lambda *i: _op.max(window(*i), axis=[rh, rw]),
                       name="tensor", tag="pool_max")
    psum = compute(shape, lambda *i: _op.sum(window(*i), axis=[rh, rw]),
                   name="tensor", tag="pool_sum")
    if count_include_pad and not ceil_mode:
        return compute(shape, lambda *i: _op.div(psum(*i), _op.const(kh * kw, data.dtype)),
                       name="tensor", tag=tag.ELEMWISE)

    def avg(*i):
        if count_include_pad:
            cy = _taps(i[hax], sh, dh, kh, 0, _op.add(h, top + bottom))
            cx = _taps(i[wax], sw, dw, kw, 0, _op.add(w, left + right))
        else:
            cy = _taps(i[hax], sh, dh, kh, top, h)
            cx = _taps(i[wax], sw, dw, kw, left, w)
        return _op.div(psum(*i), _op.cast(data.dtype, _op._max(_op.mul(cy, cx), 1)))
    return compute(shape, avg, name="tensor", tag=tag.ELEMWISE)


def global_pool(data: Tensor, pool_type: str, layout: str = "NCHW") -> Tensor:
    """Pool each channel over H and W to one value: ``(N, C, H, W) -> (N, C, 1, 1)``."""
    op = "global_pool"
    hax, wax = _hw_axes(data, layout, op)
    _check_pool_type(pool_type, op)
    h, w = data.shape[hax], data.shape[wax]
    rh = reduce_axis((0, h), name="rv0")
    rw = reduce_axis((0, w), name="rv1")
    shape = list(data.shape)
    shape[hax] = shape[wax] = 1

    def window(*i):
        idx = list(i)
        idx[hax], idx[wax] = rh, rw
        return data(*idx)

    if pool_type == "max":
        return compute(shape, lambda *i: _op.max(window(*i), axis=[rh, rw]),
                       name="tensor", tag="global_pool_max")
    psum = compute(shape, lambda *i: _op.sum(window(*i), axis=[rh, rw]),
                   name="tensor", tag="global_pool_sum")
    size = _op.cast(data.dtype, _op.mul(h, w))
    return compute(shape, lambda *i: _op.div(psum(*i), size), name="tensor", tag=tag.ELEMWISE)


def adaptive_pool(data: Tensor, output_size, pool_type: str, layout: str = "NCHW") -> Tensor:
    """Adaptive pooling to ``output_size`` ``(OH, OW)``: output ``o`` pools input rows
    ``[floor(o*H/OH), ceil((o+1)*H/OH))`` (stage ``tensor``, tag "adaptive_pool_<type>")."""
    op = "adaptive_pool"
    hax, wax = _hw_axes(data, layout, op)
    _check_pool_type(pool_type, op)
    if isinstance(output_size, int):
        output_size = (output_size, output_size)
    oh, ow = check_strides(output_size, 2, op, "output_size")
    ih, iw = get_const_int(data.shape[hax]), get_const_int(data.shape[wax])

    def bounds(o, n_in, n_out):
        return _op.floordiv(o * n_in, n_out), _op.floordiv((o + 1) * n_in + n_out - 1, n_out)

    def kmax(n_in, n_out):
        return max(-(-(o + 1) * n_in // n_out) - (o * n_in) // n_out for o in range(n_out))

    rh = reduce_axis((0, kmax(ih, oh)), name="rv0")
    rw = reduce_axis((0, kmax(iw, ow)), name="rv1")
    shape = list(data.shape)
    shape[hax], shape[wax] = oh, ow
    identity = _op.min_value(data.dtype) if pool_type == "max" else _op.const(0, data.dtype)

    def window(*i):
        y0, y1 = bounds(i[hax], ih, oh)
        x0, x1 = bounds(i[wax], iw, ow)
        idx = list(i)
        idx[hax], idx[wax] = _op._min(y0 + rh, ih - 1), _op._min(x0 + rw, iw - 1)
        inside = _op.all(_op.lt(y0 + rh, y1), _op.lt(x0 + rw, x1))
        return _op.if_then_else(inside, data(*idx), identity)

    if pool_type == "max":
        return compute(shape, lambda *i: _op.max(window(*i), axis=[rh, rw]),
                       name="tensor", tag="adaptive_pool_max")
    psum = compute(shape, lambda *i: _op.sum(window(*i), axis=[rh, rw]),
                   name="tensor", tag="adaptive_pool_sum")

    def avg(*i):
        y0, y1 = bounds(i[hax], ih, oh)
        x0, x1 = bounds(i[wax], iw, ow)
        return _op.div(psum(*i), _op.cast(data.dtype, (y1 - y0) * (x1 - x0)))
    return compute(shape, avg, name="tensor", tag=tag.ELEMWISE)
