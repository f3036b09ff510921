"""2-D convolutions: ``conv2d_nchw``, ``conv2d_nhwc``, ``conv2d_hwcn``,
``group_conv2d_nchw``, the packed ``conv2d_NCHWc`` and ``conv2d_NCHWc_int8`` and the
layout-dispatching ``conv2d``.

Every operator checks its arguments when the compute is declared and raises a
:class:`~tvmlite.topi.utils.TopiError` (a ``TVMError``) naming itself and the argument.
"""
from __future__ import annotations

import re
from collections import namedtuple
from typing import Optional

from ...te.operation import compute, reduce_axis
from ...te.tensor import Tensor, _dim_equal
from ...tir import op as _op
from ..utils import TopiError, check_strides, get_const_int
from .conv import conv
from .pad import pad
from .utils import checked_pad_tuple, conv_out_size, get_pad_tuple


def _check_ndim(op: str, **tensors) -> None:
    for name, (t, n, layout) in tensors.items():
        if not isinstance(t, Tensor):
            raise TopiError(f"{op}: {name} must be a Tensor, got {t!r}")
        if t.ndim != n:
            raise TopiError(f"{op}: {name} must be {n}-D ({layout}), got {t.ndim}-D "
                            f"shape {list(t.shape)}")


def _kernel_ints(op: str, kh, kw):
    try:
        return get_const_int(kh), get_const_int(kw)
    except ValueError as e:
        raise TopiError(f"{op}: the kernel size must be constant") from e


def _window(op: str, in_h, in_w, kh, kw, stride, padding, dilation):
    """Strides, dilations, padding and output size of a 2-D window over ``(in_h, in_w)``."""
    sh, sw = check_strides(stride, 2, op, "stride")
    dh, dw = check_strides(dilation, 2, op, "dilation")
    kh, kw = _kernel_ints(op, kh, kw)
    top, left, bottom, right = checked_pad_tuple(op, padding, ((kh - 1) * dh + 1,
                                                               (kw - 1) * dw + 1))
    out_h = conv_out_size(op, in_h, kh, dh, top, bottom, sh, "height")
    out_w = conv_out_size(op, in_w, kw, dw, left, right, sw, "width")
    return (sh, sw), (dh, dw), (top, left, bottom, right), (out_h, out_w)


def _channels_match(op: str, what: str, a, b) -> None:
    if not _dim_equal(a, b):
        raise TopiError(f"{op}: {what}: {a} vs {b}")


def conv2d_nchw(Input: Tensor, Filter: Tensor, stride, padding, dilation=1,
                out_dtype: Optional[str] = None) -> Tensor:
    """Convolution: Input ``(N, C, H, W)``, Filter ``(F, C, KH, KW)`` -> ``(N, F, OH, OW)``.

    The padded input is a stage named ``pad_temp``; the result is tagged "conv2d_nchw".
    """
    op = "conv2d_nchw"
    _check_ndim(op, Input=(Input, 4, "NCHW"), Filter=(Filter, 4, "OIHW"))
    out_dtype = out_dtype or Input.dtype
    batch, in_channel, in_h, in_w = Input.shape
    num_filter, channel, kh, kw = Filter.shape
    _channels_match(op, "Input channels and Filter input channels differ", in_channel, channel)
    (sh, sw), (dh, dw), (top, left, bottom, right), (out_h, out_w) = _window(
        op, in_h, in_w, kh, kw, stride, padding, dilation)
    temp = pad(Input, [0, 0, top, left], [0, 0, bottom, right], name="pad_temp")
    rc = reduce_axis((0, in_channel), name="rc")
    ry = reduce_axis((0, kh), name="ry")
    rx = reduce_axis((0, kw), name="rx")
    return compute(
        (batch, num_filter, out_h, out_w),
        lambda nn, ff, yy, xx: _op.sum(
            temp[nn, rc, yy * sh + ry * dh, xx * sw + rx * dw].astype(out_dtype)
            * Filter[ff, rc, ry, rx].astype(out_dtype), axis=[rc, ry, rx]),
        tag="conv2d_nchw")


def conv2d_nhwc(Input: Tensor, Filter: Tensor, stride, padding, dilation=1,
                out_dtype: Optional[str] = None) -> Tensor:
    """Convolution: Input ``(N, H, W, C)``, Filter ``(KH, KW, C, F)`` (HWIO) ->
    ``(N, OH, OW, F)``; stage ``Conv2dOutput`` tagged "conv2d_nhwc"."""
    op = "conv2d_nhwc"
    _check_ndim(op, Input=(Input, 4, "NHWC"), Filter=(Filter, 4, "HWIO"))
    out_dtype = out_dtype or Input.dtype
    batch, in_h, in_w, in_channel = Input.shape
    kh, kw, channel, num_filter = Filter.shape
    _channels_match(op, "Input channels and Filter input channels differ", in_channel, channel)
    (sh, sw), (dh, dw), (top, left, bottom, right), (out_h, out_w) = _window(
        op, in_h, in_w, kh, kw, stride, padding, dilation)
    temp = pad(Input, [0, top, left, 0], [0, bottom, right, 0], name="pad_temp")
    rc = reduce_axis((0, in_channel), name="rc")
    ry = reduce_axis((0, kh), name="ry")
    rx = reduce_axis((0, kw), name="rx")
    return compute(
        (batch, out_h, out_w, num_filter),
        lambda nn, yy, xx, ff: _op.sum(
            temp[nn, yy * sh + ry * dh, xx * sw + rx * dw, rc].astype(out_dtype)
            * Filter[ry, rx, rc, ff].astype(out_dtype), axis=[ry, rx, rc]),
        name="Conv2dOutput", tag="conv2d_nhwc")


def conv2d_hwcn(Input: Tensor, Filter: Tensor, stride, padding, dilation=1,
                out_dtype: Optional[str] = None) -> Tensor:
    """Convolution: Input ``(H, W, C, N)``, Filter ``(KH, KW, C, F)`` -> ``(OH, OW, F, N)``;
    the padded input is ``PaddedInput``, the stage ``Conv2dOutput`` tagged "conv2d_hwcn"."""
    op = "conv2d_hwcn"
    _check_ndim(op, Input=(Input, 4, "HWCN"), Filter=(Filter, 4, "HWIO"))
    out_dtype = out_dtype or Input.dtype
    in_h, in_w, in_channel, batch = Input.shape
    kh, kw, channel, num_filter = Filter.shape
    _channels_match(op, "Input channels and Filter input channels differ", in_channel, channel)
    (sh, sw), (dh, dw), (top, left, bottom, right), (out_h, out_w) = _window(
        op, in_h, in_w, kh, kw, stride, padding, dilation)
    temp = pad(Input, [top, left, 0, 0], [bottom, right, 0, 0], name="PaddedInput")
    rc = reduce_axis((0, in_channel), name="rc")
    ry = reduce_axis((0, kh), name="ry")
    rx = reduce_axis((0, kw), name="rx")
    return compute(
        (out_h, out_w, num_filter, batch),
        lambda yy, xx, ff, nn: _op.sum(
            temp[yy * sh + ry * dh, xx * sw + rx * dw, rc, nn].astype(out_dtype)
            * Filter[ry, rx, rc, ff].astype(out_dtype), axis=[ry, rx, rc]),
        name="Conv2dOutput", tag="conv2d_hwcn")


def group_conv2d_nchw(Input: Tensor, Filter: Tensor, stride, padding, dilation, groups: int,
                      out_dtype: Optional[str] = None) -> Tensor:
    """Grouped convolution: Input ``(N, C, H, W)``, Filter ``(F, C // groups, KH, KW)`` ->
    ``(N, F, OH, OW)``; tagged "group_conv2d_nchw"."""
    op = "group_conv2d_nchw"
    _check_ndim(op, Input=(Input, 4, "NCHW"), Filter=(Filter, 4, "OIHW"))
    out_dtype = out_dtype or Input.dtype
    groups = check_strides(groups, 1, op, "groups")[0]
    batch, in_channel, in_h, in_w = Input.shape
    num_filter, channel, kh, kw = Filter.shape
    ic, f, cg = (get_const_int(x) for x in (in_channel, num_filter, channel))
    if ic % groups:
        raise TopiError(f"{op}: groups={groups} does not divide the {ic} input channels")
    if f % groups:
        raise TopiError(f"{op}: groups={groups} does not divide the {f} output channels")
    if ic // groups != cg:
        raise TopiError(f"{op}: Filter has {cg} input channels per group, expected "
                        f"{ic} // {groups} = {ic // groups}")
    (sh, sw), (dh, dw), (top, left, bottom, right), (out_h, out_w) = _window(
        op, in_h, in_w, kh, kw, stride, padding, dilation)
    temp = pad(Input, [0, 0, top, left], [0, 0, bottom, right], name="pad_temp")
    fg = f // groups
    rc = reduce_axis((0, cg), name="rc")
    ry = reduce_axis((0, kh), name="ry")
    rx = reduce_axis((0, kw), name="rx")
    return compute(
        (batch, num_filter, out_h, out_w),
        lambda nn, ff, yy, xx: _op.sum(
            temp[nn, ff // fg * cg + rc, yy * sh + ry * dh, xx * sw + rx * dw].astype(out_dtype)
            * Filter[ff, rc, ry, rx].astype(out_dtype), axis=[rc, ry, rx]),
        tag="group_conv2d_nchw")


def _block(layout: str, op: str, arg: str, prefix: str) -> int:
    m = re.fullmatch(prefix + r"(\d+)([a-z])", layout)
    if not m:
        raise TopiError(f"{op}: {arg} must look like '{prefix}<n>c', got {layout!r}")
    return int(m.group(1))


def conv2d_NCHWc(data: Tensor, kernel: Tensor, stride, padding, dilation, layout: str,
                 out_layout: str, out_dtype: str = "float32") -> Tensor:
    """Packed convolution: data ``(N, IC//ic_bn, H, W, ic_bn)`` (layout ``NCHW{ic_bn}c``),
    kernel ``(OC//oc_bn, IC//ic_bn, KH, KW, ic_bn, oc_bn)`` (``OIHW{ic_bn}i{oc_bn}o``) ->
    ``(N, OC//oc_bn, OH, OW, oc_bn)`` (``out_layout``, ``NCHW{oc_bn}c``). A kernel of
    ``IC//ic_bn//groups`` input-channel chunks makes it a grouped convolution.

    Stage and tag ``conv2d_NCHWc``; the padded input is ``data_pad``.
    """
    op = "conv2d_NCHWc"
    _check_ndim(op, data=(data, 5, "NCHW[x]c"), kernel=(kernel, 6, "OIHW[x]i[y]o"))
    n, ic_chunk, in_h, in_w, ic_bn = data.shape
    oc_chunk, k_ic_chunk, kh, kw, k_ic_bn, oc_bn = kernel.shape
    if _block(layout, op, "layout", "NCHW") != get_const_int(ic_bn):
        raise TopiError(f"{op}: layout {layout!r} does not match the data block {ic_bn}")
    if _block(out_layout, op, "out_layout", "NCHW") != get_const_int(oc_bn):
        raise TopiError(f"{op}: out_layout {out_layout!r} does not match the kernel's output "
                        f"block {oc_bn}")
    _channels_match(op, "data and kernel input-channel blocks differ", ic_bn, k_ic_bn)
    # grouped when the kernel takes a fraction of the input-channel chunks (classic's
    # groups = in_channel // (kernel ic_chunk * ic_bn))
    n_ic, k_ic, n_oc = (get_const_int(x) for x in (ic_chunk, k_ic_chunk, oc_chunk))
    if k_ic <= 0 or n_ic % k_ic:
        raise TopiError(f"{op}: data and kernel input-channel chunks differ: {n_ic} is not a "
                        f"multiple of {k_ic}")
    groups = n_ic // k_ic
    if n_oc % groups:
        raise TopiError(f"{op}: {groups} groups do not divide the {n_oc} output-channel chunks")
    (sh, sw), (dh, dw), (top, left, bottom, right), (out_h, out_w) = _window(
        op, in_h, in_w, kh, kw, stride, padding, dilation)
    data_pad = data
    if top or left or bottom or right:
        data_pad = pad(data, [0, 0, top, left, 0], [0, 0, bottom, right, 0], name="data_pad")
    bn = get_const_int(ic_bn)
    ic = reduce_axis((0, k_ic * bn), name="ic")
    rkh = reduce_axis((0, kh), name="kh")
    rkw = reduce_axis((0, kw), name="kw")
    oc_per_group = n_oc // groups

    def chunk(oco):
        """The data's input-channel chunk of reduction index ``ic`` for output chunk oco."""
        return ic // bn if groups == 1 else oco // oc_per_group * k_ic + ic // bn

    return compute(
        (n, oc_chunk, out_h, out_w, oc_bn),
        lambda b, oco, oh, ow, oci: _op.sum(
            data_pad[b, chunk(oco), oh * sh + rkh * dh, ow * sw + rkw * dw, ic % bn]
            .astype(out_dtype)
            * kernel[oco, ic // bn, rkh, rkw, ic % bn, oci].astype(out_dtype),
            axis=[ic, rkh, rkw]),
        name="conv2d_NCHWc", tag="conv2d_NCHWc")


def conv2d_NCHWc_int8(data: Tensor, kernel: Tensor, stride, padding, dilation, layout: str,
                      out_layout: str, out_dtype: str = "int32", n_elems: int = 4) -> Tensor:
    """Packed 8-bit convolution for dot-product instructions: data ``(N, IC//ic_bn, H, W,
    ic_bn)`` (``NCHW{ic_bn}c``), kernel ``(OC//oc_bn, IC//ic_bn, KH, KW, ic_bn//n_elems,
    oc_bn, n_elems)`` (``OIHW{ic_bn//n_elems}i{oc_bn}o{n_elems}i``: each output channel's
    ``n_elems`` consecutive input channels adjacent) -> ``(N, OC//oc_bn, OH, OW, oc_bn)``
    accumulated in ``out_dtype``. Groups 1.

    Stage and tag ``conv2d_NCHWc_int8``; reduction axes ``kh, kw, ic_outer, ic_f_inner,
    ic_s_inner``; the padded input is ``data_pad``.
    """
    op = "conv2d_NCHWc_int8"
    _check_ndim(op, data=(data, 5, "NCHW[x]c"),
                kernel=(kernel, 7, "OIHW[x/n]i[y]o[n]i"))
    n, ic_chunk, in_h, in_w, ic_bn = data.shape
    oc_chunk, k_ic_chunk, kh, kw, ic_f, oc_bn, ic_s = kernel.shape
    if _block(layout, op, "layout", "NCHW") != get_const_int(ic_bn):
        raise TopiError(f"{op}: layout {layout!r} does not match the data block {ic_bn}")
    if _block(out_layout, op, "out_layout", "NCHW") != get_const_int(oc_bn):
        raise TopiError(f"{op}: out_layout {out_layout!r} does not match the kernel's output "
                        f"block {oc_bn}")
    if get_const_int(ic_s) != int(n_elems):
        raise TopiError(f"{op}: the kernel's innermost axis is {ic_s}, not n_elems={n_elems}")
    _channels_match(op, "data and kernel input-channel blocks differ", ic_bn,
                    get_const_int(ic_f) * int(n_elems))
    _channels_match(op, "data and kernel input-channel chunks differ (groups must be 1)",
                    ic_chunk, k_ic_chunk)
    (sh, sw), (dh, dw), (top, left, bottom, right), (out_h, out_w) = _window(
        op, in_h, in_w, kh, kw, stride, padding, dilation)
    data_pad = data
    if top or left or bottom or right:
        data_pad = pad(data, [0, 0, top, left, 0], [0, 0, bottom, right, 0], name="data_pad")
    rkh = reduce_axis((0, kh), name="kh")
    rkw = reduce_axis((0, kw), name="kw")
    ic_outer = reduce_axis((0, ic_chunk), name="ic_outer")
    ic_f_inner = reduce_axis((0, ic_f), name="ic_f_inner")
    ic_s_inner = reduce_axis((0, n_elems), name="ic_s_inner")
    return compute(
        (n, oc_chunk, out_h, out_w, oc_bn),
        lambda b, oco, oh, ow, oci: _op.sum(
            data_pad[b, ic_outer, oh * sh + rkh * dh, ow * sw + rkw * dw,
                     ic_f_inner * n_elems + ic_s_inner].astype(out_dtype)
            * kernel[oco, ic_outer, rkh, rkw, ic_f_inner, oci, ic_s_inner].astype(out_dtype),
            axis=[rkh, rkw, ic_outer, ic_f_inner, ic_s_inner]),
        name="conv2d_NCHWc_int8", tag="conv2d_NCHWc_int8")


def conv2d(input: Tensor, filter: Tensor, strides, padding, dilation,  # noqa: A002
           data_layout: str = "NCHW", kernel_layout: str = "", out_dtype: Optional[str] = None,
           *, layout: Optional[str] = None) -> Tensor:
    """Convolution in ``data_layout`` "NCHW" (kernel OIHW by default) or "NHWC" (kernel HWIO
    by default); another ``kernel_layout`` (e.g. "OHWI") is read as it names its axes.
    ``layout`` is the older name of ``data_layout``."""
    if layout is not None:
        data_layout = layout
    if data_layout not in ("NCHW", "NHWC"):
        raise TopiError(f"conv2d: layout must be 'NCHW' or 'NHWC', got {data_layout!r}")
    default = "OIHW" if data_layout == "NCHW" else "HWIO"
    if kernel_layout and kernel_layout != default:
        return conv(input, filter, strides, padding, dilation, 1, data_layout, kernel_layout,
                    out_dtype, op="conv2d")
    if data_layout == "NCHW":
        return conv2d_nchw(input, filter, strides, padding, dilation, out_dtype)
    return conv2d_nhwc(input, filter, strides, padding, dilation, out_dtype)



#: the shape of a conv2d as the x86 fallback configs see it (classic ``nn.conv2d.Workload``)
Workload = namedtuple("Workload", [
    "in_dtype", "out_dtype", "height", "width", "in_filter", "groups", "out_filter", "kernel_h",
    "kernel_w", "padt", "padl", "padb", "padr", "dilation_h", "dilation_w", "stride_h",
    "stride_w"])


def _pair(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x, x)


def _get_workload(data: Tensor, kernel: Tensor, stride, padding, dilation, out_dtype: str,
                  data_layout: str = "NCHW") -> Workload:
    """The :data:`Workload` of a conv2d of ``data`` (NCHW, NHWC or HWCN) and ``kernel`` (OIHW
    for NCHW data, HWIO else)."""
    shape = [get_const_int(x) for x in data.shape]
    if data_layout == "NCHW":
        _, ci, ih, iw = shape
    elif data_layout == "NHWC":
        _, ih, iw, ci = shape
    elif data_layout == "HWCN":
        ih, iw, ci, _ = shape
    else:
        raise TopiError(f"conv2d workload: layout {data_layout!r} is not NCHW, NHWC or HWCN")
    kshape = [get_const_int(x) for x in kernel.shape]
    co, cig, kh, kw = kshape if data_layout == "NCHW" else (kshape[3], kshape[2], *kshape[:2])
    dh, dw = _pair(dilation)
    sh, sw = _pair(stride)
    pt, pl, pb, pr = get_pad_tuple(padding, ((kh - 1) * dh + 1, (kw - 1) * dw + 1))
    if data.dtype != kernel.dtype and (data.dtype, kernel.dtype) != ("uint8", "int8"):
        raise TopiError(f"conv2d workload: data {data.dtype} and kernel {kernel.dtype} differ")
    return Workload(data.dtype, out_dtype, ih, iw, ci, ci // cig, co, kh, kw, pt, pl, pb, pr,
                    dh, dw, sh, sw)


def winograd_transposed(mat):
    """The transpose of a matrix given as a tuple of rows."""
    return tuple(zip(*mat))


def conv2d_winograd_weight_transform(kernel: Tensor, tile_size: int) -> Tensor:
    """The Winograd transform ``G g G^T`` of each ``(KH, KW)`` filter of ``kernel``
    (``OIHW``, square) for ``F(tile_size, KH)``: ``(alpha, alpha, O, I)`` with
    ``alpha = tile_size + KH - 1`` (stage ``transform_weight``)."""
    from .winograd_util import tile_transform, winograd_fractions
    _check_ndim("conv2d_winograd_weight_transform", kernel=(kernel, 4, "OIHW"))
    o, i, kh, kw = kernel.shape
    kh, kw = _kernel_ints("conv2d_winograd_weight_transform", kh, kw)
    if kh != kw:
        raise TopiError(f"conv2d_winograd_weight_transform: the kernel must be square, got "
                        f"{kh}x{kw}")
    try:
        tile_size = int(tile_size)
    except (TypeError, ValueError) as e:
        raise TopiError(f"conv2d_winograd_weight_transform: tile_size must be an integer, "
                        f"got {tile_size!r}") from e
    _, _, g = winograd_fractions(tile_size, kh)
    gt = winograd_transposed(g)
    alpha = tile_size + kh - 1
    return compute((alpha, alpha, o, i),
                   lambda eps, nu, co, ci: tile_transform(
                       gt, lambda a, b: kernel[co, ci, a, b], eps, nu, kernel.dtype),
                   name="transform_weight")
