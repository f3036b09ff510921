"""2-D convolutions in NCHW layout (plain computes, no schedule)."""
from __future__ import annotations

from typing import Optional

from ...error import TVMError
from ...te.operation import compute, reduce_axis
from ...te.tensor import Tensor, _dim_equal
from ...tir import op as _op
from ..utils import get_const_int
from .pad import pad
from .utils import get_pad_tuple


def _pair(x, what: str):
    if isinstance(x, int):
        return x, x
    if len(x) != 2:
        raise ValueError(f"{what} must be an int or a pair, got {x!r}")
    return x[0], x[1]


def conv2d_nchw(Input: Tensor, Filter: Tensor, stride, padding, dilation=1,
                out_dtype: Optional[str] = None) -> Tensor:
    """Convolution: Input ``(N, C, H, W)``, Filter ``(F, C, KH, KW)`` -> ``(N, F, OH, OW)``.

    The padded input is a stage named ``pad_temp``; the result is tagged "conv2d_nchw".
    """
    if Input.ndim != 4 or Filter.ndim != 4:
        raise TVMError("conv2d_nchw: Input and Filter must be 4-D")
    out_dtype = out_dtype or Input.dtype
    sh, sw = _pair(stride, "stride")
    dh, dw = _pair(dilation, "dilation")
    batch, in_channel, in_h, in_w = Input.shape
    num_filter, channel, kh, kw = Filter.shape
    if not _dim_equal(in_channel, channel):
        raise TVMError(f"conv2d_nchw: Input has {in_channel} channels, Filter {channel}")
    dkh = (get_const_int(kh) - 1) * dh + 1
    dkw = (get_const_int(kw) - 1) * dw + 1
    top, left, down, right = get_pad_tuple(padding, (dkh, dkw))
    out_h = _op.add(_op.floordiv(_op.add(_op.sub(in_h, dkh), top + down), sh), 1)
    out_w = _op.add(_op.floordiv(_op.add(_op.sub(in_w, dkw), left + right), sw), 1)
    temp = pad(Input, [0, 0, top, left], [0, 0, down, right], name="pad_temp")
    rc = reduce_axis((0, in_channel), name="rc")
    ry = reduce_axis((0, kh), name="ry")
    rx = reduce_axis((0, kw), name="rx")
    return compute(
        (batch, num_filter, out_h, out_w),
        lambda nn, ff, yy, xx: _op.sum(
            temp[nn, rc, yy * sh + ry * dh, xx * sw + rx * dw].astype(out_dtype)
            * Filter[ff, rc, ry, rx].astype(out_dtype), axis=[rc, ry, rx]),
        tag="conv2d_nchw")


def depthwise_conv2d_nchw(Input: Tensor, Filter: Tensor, stride, padding, dilation=1,
                          out_dtype: Optional[str] = None) -> Tensor:
    """Depthwise convolution: Input ``(N, C, H, W)``, Filter ``(C, M, KH, KW)`` ->
    ``(N, C*M, OH, OW)`` (stage ``DepthwiseConv2d``)."""
    if Input.ndim != 4 or Filter.ndim != 4:
        raise TVMError("depthwise_conv2d_nchw: Input and Filter must be 4-D")
    out_dtype = out_dtype or Input.dtype
    sh, sw = _pair(stride, "stride")
    dh, dw = _pair(dilation, "dilation")
    batch, in_channel, in_h, in_w = Input.shape
    f_channel, mult, kh, kw = Filter.shape
    dkh = (get_const_int(kh) - 1) * dh + 1
    dkw = (get_const_int(kw) - 1) * dw + 1
    top, left, down, right = get_pad_tuple(padding, (dkh, dkw))
    out_h = _op.add(_op.floordiv(_op.add(_op.sub(in_h, dkh), top + down), sh), 1)
    out_w = _op.add(_op.floordiv(_op.add(_op.sub(in_w, dkw), left + right), sw), 1)
    padded = pad(Input, [0, 0, top, left], [0, 0, down, right], name="PaddedInput")
    di = reduce_axis((0, kh), name="di")
    dj = reduce_axis((0, kw), name="dj")
    return compute(
        (batch, _op.mul(in_channel, mult), out_h, out_w),
        lambda b, c, i, j: _op.sum(
            padded[b, c // mult, i * sh + di * dh, j * sw + dj * dw].astype(out_dtype)
            * Filter[c // mult, c % mult, di, dj].astype(out_dtype), axis=[di, dj]),
        name="DepthwiseConv2d", tag="depthwise_conv2d_nchw")
