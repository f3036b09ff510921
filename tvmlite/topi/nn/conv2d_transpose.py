"""Transposed 2-D convolution (``topi.nn.conv2d_transpose_nchw``,
``topi.nn.group_conv2d_transpose_nchw``)."""
from __future__ import annotations

from ...te.operation import compute, reduce_axis
from ...te.tensor import Tensor
from ...tir import op as _op
from ..utils import TopiError, check_strides, const_ints, get_const_int
from .conv2d import _channels_match, _check_ndim
from .dilate import dilate
from .pad import pad
from .utils import checked_pad_tuple


def conv2d_transpose_nchw(Input: Tensor, Filter: Tensor, strides, padding, out_dtype: str,
                          output_padding=(0, 0)) -> Tensor:
    """The gradient of ``conv2d_nchw`` with respect to its input: Input ``(N, C, H, W)``,
    Filter ``(C, F, KH, KW)`` (IOHW) -> ``(N, F, (H-1)*sh - pad_h + KH + opad_h, ...)``.

    Stages ``data_dilate``, ``data_pad``, ``kernel_transform``; tag "conv2d_transpose_nchw".
    """
    return _conv2d_transpose_nchw(Input, Filter, strides, padding, out_dtype, output_padding,
                                  1, "conv2d_transpose_nchw")


def group_conv2d_transpose_nchw(data: Tensor, kernel: Tensor, stride, padding, out_dtype: str,
                                output_padding=(0, 0), groups: int = 1) -> Tensor:
    """Grouped transposed convolution: data ``(N, C, H, W)``, kernel ``(C, F // groups, KH,
    KW)`` -> ``(N, F, OH, OW)``; the input channels of group ``g`` (``g*C/groups`` on) make
    its output channels (``g*F/groups`` on). Tag "group_conv2d_transpose_nchw"."""
    return _conv2d_transpose_nchw(data, kernel, stride, padding, out_dtype, output_padding,
                                  groups, "group_conv2d_transpose_nchw")


def _conv2d_transpose_nchw(Input: Tensor, Filter: Tensor, strides, padding, out_dtype: str,
                           output_padding, groups: int, op: str) -> Tensor:
    _check_ndim(op, Input=(Input, 4, "NCHW"), Filter=(Filter, 4, "IOHW"))
    out_dtype = out_dtype or Input.dtype
    batch, in_c, in_h, in_w = Input.shape
    f_in, out_cg, kh, kw = Filter.shape
    _channels_match(op, "Input channels and Filter input channels differ", in_c, f_in)
    groups = check_strides(groups, 1, op, "groups")[0]
    if get_const_int(in_c) % groups:
        raise TopiError(f"{op}: groups {groups} do not divide the {in_c} input channels")
    in_cg, fg = get_const_int(in_c) // groups, get_const_int(out_cg)
    out_c = fg * groups
    sh, sw = check_strides(strides, 2, op, "strides")
    oph, opw = const_ints(output_padding, 2, op, "output_padding")
    if not (0 <= oph < sh and 0 <= opw < sw):
        raise TopiError(f"{op}: output_padding {(oph, opw)} must be in [0, strides {(sh, sw)})")
    kh, kw = get_const_int(kh), get_const_int(kw)
    top, left, bottom, right = checked_pad_tuple(op, padding, (kh, kw))
    btop, bleft = kh - 1 - top, kw - 1 - left
    bbottom, bright = kh - 1 - bottom + oph, kw - 1 - right + opw
    if min(btop, bleft, bbottom, bright) < 0:
        raise TopiError(f"{op}: padding {padding!r} is larger than the kernel {(kh, kw)} - 1")
    dilated = dilate(Input, [1, 1, sh, sw], name="data_dilate")
    data_pad = pad(dilated, [0, 0, btop, bleft], [0, 0, bbottom, bright], name="data_pad")
    if groups == 1:
        kernel = compute((out_c, in_c, kh, kw),
                         lambda o, i, h, w: Filter[i, o, kh - 1 - h, kw - 1 - w],
                         name="kernel_transform")
    else:  # (F, C // groups, KH, KW): output channel o takes the inputs of its group
        kernel = compute((out_c, in_cg, kh, kw),
                         lambda o, i, h, w: Filter[o // fg * in_cg + i, o % fg, kh - 1 - h,
                                                   kw - 1 - w],
                         name="kernel_transform")
    out_h = _op.add(_op.sub(_op.add(_op.mul(_op.sub(in_h, 1), sh), kh), top + bottom), oph)
    out_w = _op.add(_op.sub(_op.add(_op.mul(_op.sub(in_w, 1), sw), kw), left + right), opw)
    dc = reduce_axis((0, in_cg), name="dc")
    dh = reduce_axis((0, kh), name="dh")
    dw = reduce_axis((0, kw), name="dw")

    def channel(c):
        return dc if groups == 1 else c // fg * in_cg + dc

    return compute(
        (batch, out_c, out_h, out_w),
        lambda b, c, h, w: _op.sum(
            data_pad[b, channel(c), h + dh, w + dw].astype(out_dtype)
            * kernel[c, dc, dh, dw].astype(out_dtype), axis=[dc, dh, dw]),
        tag=op)
