"""``topi.nn.deformable_conv2d_nchw`` / ``deformable_conv2d_nhwc``: 2-D convolution whose
kernel taps sample the input at learned offsets (https://arxiv.org/abs/1703.06211)."""
from __future__ import annotations

from typing import Optional

from ...te.operation import compute, reduce_axis
from ...te.tensor import Tensor
from ...tir import op as _op
from ..transform import transpose
from ..utils import TopiError, check_tensors, get_const_tuple
from .utils import checked_pad_tuple


def _pair(op: str, v, what: str):
    v = (v, v) if isinstance(v, int) else tuple(int(x) for x in v)
    if len(v) != 2 or min(v) < 1:
        raise TopiError(f"{op}: {what} must be one or two positive ints, got {v!r}")
    return v


def _bilinear_or_zero(data: Tensor, n, c, y, x, height: int, width: int):
    """``data[n, c]`` sampled bilinearly at the float position ``(y, x)``: 0 when it lies
    outside ``[0, height) x [0, width)``, taps outside the image count 0."""
    zero = _op.const(0.0, data.dtype)
    yf, xf = _op.floor(y), _op.floor(x)
    y0, x0 = _op.cast("int32", yf), _op.cast("int32", xf)
    ty, tx = y - yf, x - xf
    one = _op.const(1.0, y.dtype)
    val = None
    for yp, wy in ((y0, one - ty), (y0 + 1, ty)):
        for xp, wx in ((x0, one - tx), (x0 + 1, tx)):
            ok = _op.all(yp >= 0, yp < height, xp >= 0, xp < width)
            term = _op.if_then_else(ok, wy * wx * data[n, c, yp, xp], zero)
            val = term if val is None else val + term
    outside = _op.any(y < _op.const(0.0, y.dtype), x < _op.const(0.0, x.dtype),
                      y >= _op.const(float(height), y.dtype),
                      x >= _op.const(float(width), x.dtype))
    return _op.if_then_else(outside, zero, val)


def deformable_conv2d_nchw(data: Tensor, offset: Tensor, kernel: Tensor, strides, padding,
                           dilation, deformable_groups: int, groups: int,
                           out_dtype: Optional[str] = None) -> Tensor:
    """Deformable 2-D convolution: data ``(N, C, H, W)``, offset ``(N, deformable_groups * KH
    * KW * 2, OH, OW)`` (for each deformable group and tap, the (y, x) shift), kernel ``(O, C
    / groups, KH, KW)`` -> ``(N, O, OH, OW)``.

    Tap ``(kh, kw)`` of output ``(y, x)`` reads input channel ``c`` bilinearly at ``(y *
    sh - pad_top + kh * dh + dy, x * sw - pad_left + kw * dw + dx)``, ``(dy, dx)`` the
    offsets of ``c``'s deformable group (``C / deformable_groups`` channels each); samples
    outside the input are 0. Stage ``data_deform`` (tag "data_deform") holds the samples,
    the output has tag "deformable_conv2d_nchw"."""
    op = "deformable_conv2d_nchw"
    check_tensors(op, data=data, offset=offset, kernel=kernel)
    if data.ndim != 4 or offset.ndim != 4 or kernel.ndim != 4:
        raise TopiError(f"{op}: data, offset and kernel must be 4-D")
    sh, sw = _pair(op, strides, "strides")
    dh, dw = _pair(op, dilation, "dilation")
    batch, in_c, height, width = get_const_tuple(data.shape)
    out_c, cg, kh, kw = get_const_tuple(kernel.shape)
    _, off_c, out_h, out_w = get_const_tuple(offset.shape)
    groups, dgroups = int(groups), int(deformable_groups)
    if groups < 1 or in_c % groups or out_c % groups or cg * groups != in_c:
        raise TopiError(f"{op}: kernel {(out_c, cg, kh, kw)} with groups={groups} does not "
                        f"match {in_c} input channels")
    if dgroups < 1 or in_c % dgroups:
        raise TopiError(f"{op}: deformable_groups={dgroups} must divide the {in_c} input "
                        "channels")
    if off_c != dgroups * kh * kw * 2:
        raise TopiError(f"{op}: offset has {off_c} channels, expected deformable_groups * KH "
                        f"* KW * 2 = {dgroups * kh * kw * 2}")
    top, left, _, _ = checked_pad_tuple(op, padding, ((kh - 1) * dh + 1, (kw - 1) * dw + 1))
    c_per_dg = in_c // dgroups
    fdt = offset.dtype

    def sample(n, c, i, j, y, x):
        base = c // c_per_dg * (kh * kw * 2) + (i * kw + j) * 2
        yy = _op.cast(fdt, y * sh - top + i * dh) + offset[n, base, y, x]
        xx = _op.cast(fdt, x * sw - left + j * dw) + offset[n, base + 1, y, x]
        return _bilinear_or_zero(data, n, c, yy, xx, height, width)
    deform = compute((batch, in_c, kh, kw, out_h, out_w), sample, name="data_deform",
                     tag="data_deform")
    out_dtype = out_dtype or data.dtype
    rc = reduce_axis((0, cg), name="rc")
    ry = reduce_axis((0, kh), name="ry")
    rx = reduce_axis((0, kw), name="rx")
    og = out_c // groups

    def f(n, o, y, x):
        c = o // og * cg + rc if groups > 1 else rc
        return _op.sum(_op.cast(out_dtype, deform[n, c, ry, rx, y, x])
                       * _op.cast(out_dtype, kernel[o, rc, ry, rx]), axis=[rc, ry, rx])
    return compute((batch, out_c, out_h, out_w), f, name="deformable_conv2d",
                   tag="deformable_conv2d_nchw")


def deformable_conv2d_nhwc(data: Tensor, offset: Tensor, kernel: Tensor, strides, padding,
                           dilation, deformable_groups: int, groups: int,
                           out_dtype: Optional[str] = None) -> Tensor:
    """:func:`deformable_conv2d_nchw` of NHWC data, offset ``(N, OH, OW, deformable_groups *
    KH * KW * 2)`` and an HWIO kernel; the output is ``(N, OH, OW, O)``."""
    check_tensors("deformable_conv2d_nhwc", data=data, offset=offset, kernel=kernel)
    if data.ndim != 4 or offset.ndim != 4 or kernel.ndim != 4:
        raise TopiError("deformable_conv2d_nhwc: data, offset and kernel must be 4-D")
    out = deformable_conv2d_nchw(transpose(data, [0, 3, 1, 2]), transpose(offset, [0, 3, 1, 2]),
                                 transpose(kernel, [3, 2, 0, 1]), strides, padding, dilation,
                                 deformable_groups, groups, out_dtype)
    return transpose(out, [0, 2, 3, 1])
