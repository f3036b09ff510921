"""Depthwise 2-D convolutions (``depthwise_conv2d_nchw``, ``depthwise_conv2d_nhwc``)."""
from __future__ import annotations

from collections import namedtuple
from typing import Optional

from ...ir import dtype as _dt
from ...te.operation import compute, reduce_axis
from ...te.tensor import Tensor
from ...tir import op as _op
from ..utils import TopiError, get_const_int
from .conv2d import _channels_match, _check_ndim, _pair, _window
from .pad import pad
from .utils import get_pad_tuple


def depthwise_conv2d_nchw(Input: Tensor, Filter: Tensor, stride, padding, dilation=1,
                          out_dtype: Optional[str] = None) -> Tensor:
    """Depthwise convolution: Input ``(N, C, H, W)``, Filter ``(C, M, KH, KW)`` ->
    ``(N, C*M, OH, OW)`` (stage ``DepthwiseConv2d``, padded input ``PaddedInput``)."""
    op = "depthwise_conv2d_nchw"
    _check_ndim(op, Input=(Input, 4, "NCHW"), Filter=(Filter, 4, "CMHW"))
    out_dtype = out_dtype or Input.dtype
    batch, in_channel, in_h, in_w = Input.shape
    f_channel, mult, kh, kw = Filter.shape
    _channels_match(op, "Input channels and Filter channels differ", in_channel, f_channel)
    (sh, sw), (dh, dw), (top, left, bottom, right), (out_h, out_w) = _window(
        op, in_h, in_w, kh, kw, stride, padding, dilation)
    padded = pad(Input, [0, 0, top, left], [0, 0, bottom, right], name="PaddedInput")
    m = get_const_int(mult)
    di = reduce_axis((0, kh), name="di")
    dj = reduce_axis((0, kw), name="dj")
    return compute(
        (batch, _op.mul(in_channel, mult), out_h, out_w),
        lambda b, c, i, j: _op.sum(
            padded[b, c // m, i * sh + di * dh, j * sw + dj * dw].astype(out_dtype)
            * Filter[c // m, c % m, di, dj].astype(out_dtype), axis=[di, dj]),
        name="DepthwiseConv2d", tag="depthwise_conv2d_nchw")


def depthwise_conv2d_nhwc(Input: Tensor, Filter: Tensor, stride, padding, dilation=1,
                          kernel_layout: str = "HWOI",
                          out_dtype: Optional[str] = None) -> Tensor:
    """Depthwise convolution: Input ``(N, H, W, C)``, Filter ``(KH, KW, C, M)`` (HWOI) or
    ``(KH, KW, M, C)`` (HWIO) -> ``(N, OH, OW, C*M)`` (stage ``DepthwiseConv2d``).

    A dtype in place of ``kernel_layout`` is the older signature's ``out_dtype`` (classic
    code still passes it there)."""
    op = "depthwise_conv2d_nhwc"
    if kernel_layout not in ("HWOI", "HWIO") and out_dtype is None and \
            _is_dtype(kernel_layout):
        kernel_layout, out_dtype = "HWOI", kernel_layout
    if kernel_layout not in ("HWOI", "HWIO"):
        raise TopiError(f"{op}: kernel_layout must be 'HWOI' or 'HWIO', got {kernel_layout!r}")
    _check_ndim(op, Input=(Input, 4, "NHWC"), Filter=(Filter, 4, kernel_layout))
    out_dtype = out_dtype or Input.dtype
    batch, in_h, in_w, in_channel = Input.shape
    if kernel_layout == "HWOI":
        kh, kw, f_channel, mult = Filter.shape
    else:
        kh, kw, mult, f_channel = Filter.shape
    _channels_match(op, "Input channels and Filter channels differ", in_channel, f_channel)
    (sh, sw), (dh, dw), (top, left, bottom, right), (out_h, out_w) = _window(
        op, in_h, in_w, kh, kw, stride, padding, dilation)
    padded = pad(Input, [0, top, left, 0], [0, bottom, right, 0], name="PaddedInput")
    m = get_const_int(mult)
    di = reduce_axis((0, kh), name="di")
    dj = reduce_axis((0, kw), name="dj")

    def weight(c):
        if kernel_layout == "HWOI":
            return Filter[di, dj, c // m, c % m]
        return Filter[di, dj, c % m, c // m]

    return compute(
        (batch, out_h, out_w, _op.mul(in_channel, mult)),
        lambda b, i, j, c: _op.sum(
            padded[b, i * sh + di * dh, j * sw + dj * dw, c // m].astype(out_dtype)
            * weight(c).astype(out_dtype), axis=[di, dj]),
        name="DepthwiseConv2d", tag="depthwise_conv2d_nhwc")


def depthwise_conv2d_NCHWc(Input: Tensor, Filter: Tensor, stride, padding, dilation,
                           layout: str, out_layout: str,
                           out_dtype: Optional[str] = None) -> Tensor:
    """Packed depthwise convolution: Input ``(N, C//ic_bn, H, W, ic_bn)`` (``NCHW{ic_bn}c``),
    Filter ``(C*M//oc_bn, 1, KH, KW, 1, oc_bn)`` -> ``(N, C*M//oc_bn, OH, OW, oc_bn)``
    (``out_layout``); output channel ``o`` reads input channel ``o // M``. Stage
    ``DepthwiseConv2d``, tag "depthwise_conv2d_NCHWc"; the padded input is ``PaddedInput``."""
    from .conv2d import _block

    op = "depthwise_conv2d_NCHWc"
    _check_ndim(op, Input=(Input, 5, "NCHW[x]c"), Filter=(Filter, 6, "OIHW1i[y]o"))
    out_dtype = out_dtype or Input.dtype
    batch, ic_chunk, in_h, in_w, ic_bn = Input.shape
    oc_chunk, one_i, kh, kw, one_b, oc_bn = Filter.shape
    ic_bn_v, oc_bn_v = get_const_int(ic_bn), get_const_int(oc_bn)
    if _block(layout, op, "layout", "NCHW") != ic_bn_v:
        raise TopiError(f"{op}: layout {layout!r} does not match the input block {ic_bn_v}")
    if _block(out_layout, op, "out_layout", "NCHW") != oc_bn_v:
        raise TopiError(f"{op}: out_layout {out_layout!r} does not match the filter block "
                        f"{oc_bn_v}")
    if get_const_int(one_i) != 1 or get_const_int(one_b) != 1:
        raise TopiError(f"{op}: Filter must have shape (OC//oc_bn, 1, KH, KW, 1, oc_bn), got "
                        f"{list(Filter.shape)}")
    in_c = get_const_int(ic_chunk) * ic_bn_v
    out_c = get_const_int(oc_chunk) * oc_bn_v
    if out_c % in_c:
        raise TopiError(f"{op}: {out_c} output channels are not a multiple of the {in_c} "
                        "input channels")
    mult = out_c // in_c
    (sh, sw), (dh, dw), (top, left, bottom, right), (out_h, out_w) = _window(
        op, in_h, in_w, kh, kw, stride, padding, dilation)
    padded = Input
    if top or left or bottom or right:
        padded = pad(Input, [0, 0, top, left, 0], [0, 0, bottom, right, 0], name="PaddedInput")
    di = reduce_axis((0, kh), name="kh")
    dj = reduce_axis((0, kw), name="kw")

    def f(b, oco, i, j, oci):
        ic = (oco * oc_bn_v + oci) // mult
        return _op.sum(padded[b, ic // ic_bn_v, i * sh + di * dh, j * sw + dj * dw,
                              ic % ic_bn_v].astype(out_dtype)
                       * Filter[oco, 0, di, dj, 0, oci].astype(out_dtype), axis=[di, dj])
    return compute((batch, oc_chunk, out_h, out_w, oc_bn), f, name="DepthwiseConv2d",
                   tag="depthwise_conv2d_NCHWc")


def _is_dtype(text) -> bool:
    try:
        _dt.parse(text)
    except (ValueError, TypeError, AttributeError):
        return False
    return True


#: the shape of a depthwise conv2d as the x86 fallback configs see it (classic
#: ``nn.depthwise_conv2d.Workload``)
Workload = namedtuple("Workload", [
    "in_dtype", "out_dtype", "height", "width", "in_filter", "out_filter", "kernel_h",
    "kernel_w", "padt", "padl", "padb", "padr", "dilation_h", "dilation_w", "stride_h",
    "stride_w"])


def _get_workload(data: Tensor, kernel: Tensor, stride, padding, dilation, out_dtype: str,
                  data_layout: str = "NCHW") -> Workload:
    """The :data:`Workload` of a depthwise conv2d: data NCHW (kernel ``(C, M, KH, KW)``), NHWC
    (kernel ``(KH, KW, C, M)``) or NCHWc (kernel ``(C//cb, M//mb, KH, KW, mb, cb)``)."""
    op = "depthwise_conv2d workload"
    shape = [get_const_int(x) for x in data.shape]
    kshape = [get_const_int(x) for x in kernel.shape]
    if data_layout == "NCHW":
        _, channels, height, width = shape
        k_channels, multiplier, kh, kw = kshape
    elif data_layout == "NHWC":
        _, height, width, channels = shape
        kh, kw, k_channels, multiplier = kshape
    elif data_layout == "NCHWc":
        _, chunks, height, width, block = shape
        k_chunks, m_chunks, kh, kw, m_block, k_block = kshape
        if block != k_block:
            raise TopiError(f"{op}: data block {block} and kernel block {k_block} differ")
        channels, k_channels, multiplier = chunks * block, k_chunks * k_block, m_chunks * m_block
    else:
        raise TopiError(f"{op}: layout {data_layout!r} is not NCHW, NHWC or NCHWc")
    if channels != k_channels:
        raise TopiError(f"{op}: data has {channels} channels, the kernel {k_channels}")
    if data.dtype != kernel.dtype and (data.dtype, kernel.dtype) != ("uint8", "int8"):
        raise TopiError(f"{op}: data {data.dtype} and kernel {kernel.dtype} differ")
    dh, dw = _pair(dilation)
    sh, sw = _pair(stride)
    pt, pl, pb, pr = get_pad_tuple(padding, ((kh - 1) * dh + 1, (kw - 1) * dw + 1))
    return Workload(data.dtype, out_dtype, height, width, channels, channels * multiplier, kh,
                    kw, pt, pl, pb, pr, dh, dw, sh, sw)
