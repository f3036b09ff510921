"""Transposed convolutions (``topi.nn.conv2d_transpose_nchw``,
``topi.nn.group_conv2d_transpose_nchw``, ``topi.nn.conv1d_transpose_ncw``,
``topi.nn.conv3d_transpose_ncdhw``): one compute over
any number of spatial dimensions and groups."""
from __future__ import annotations

from typing import Sequence, Tuple

from ...te.operation import compute, reduce_axis
from ...te.tensor import Tensor
from ...tir import op as _op
from ..utils import TopiError, check_strides, const_ints, get_const_int
from .conv2d import _channels_match, _check_ndim
from .dilate import dilate
from .pad import pad
from .utils import checked_pad_tuple, get_pad_tuple1d, get_pad_tuple3d


def _operands(op: str, Input: Tensor, Filter: Tensor, strides: Sequence[int],
              pads_lo: Sequence[int], pads_hi: Sequence[int], output_padding: Sequence[int],
              groups: int = 1) -> Tuple[Tensor, Tensor]:
    """The operands of the direct convolution a transposed one is: ``Input`` ``(N, C, X...)``
    dilated by ``strides`` (stage ``data_dilate``) and padded by ``K - 1 - pad`` (plus
    ``output_padding`` at the end; stage ``data_pad``), and ``Filter`` ``(C, F // groups,
    K...)`` flipped and transposed to ``(F, C // groups, K...)`` (stage
    ``kernel_transform``): output channel ``o`` of group ``g`` reads the input channels of
    its group (``g*C/groups`` on)."""
    batch, in_c, *in_sp = Input.shape
    f_in, out_cg, *ks = Filter.shape
    _channels_match(op, "Input channels and Filter input channels differ", in_c, f_in)
    groups = check_strides(groups, 1, op, "groups")[0]
    if get_const_int(in_c) % groups:
        raise TopiError(f"{op}: groups {groups} do not divide the {in_c} input channels")
    in_cg, fg = get_const_int(in_c) // groups, get_const_int(out_cg)
    out_c = fg * groups
    for s, o in zip(strides, output_padding):
        if not 0 <= o < s:
            raise TopiError(f"{op}: output_padding {tuple(output_padding)} must be in [0, "
                            f"strides {tuple(strides)})")
    ks = [get_const_int(k) for k in ks]
    lo = [k - 1 - p for k, p in zip(ks, pads_lo)]
    hi = [k - 1 - p + o for k, p, o in zip(ks, pads_hi, output_padding)]
    if min(lo + hi) < 0:
        raise TopiError(f"{op}: padding {tuple(pads_lo) + tuple(pads_hi)} is larger than the "
                        f"kernel {tuple(ks)} - 1")
    dilated = dilate(Input, [1, 1, *strides], name="data_dilate")
    data_pad = pad(dilated, [0, 0, *lo], [0, 0, *hi], name="data_pad")
    kernel = compute((out_c, in_cg, *ks),
                     lambda o, i, *x: Filter(o // fg * in_cg + i if groups > 1 else i,
                                             o % fg if groups > 1 else o,
                                             *[k - 1 - v for k, v in zip(ks, x)]),
                     name="kernel_transform")
    return data_pad, kernel


def _conv_transpose(op: str, Input: Tensor, Filter: Tensor, strides: Sequence[int],
                    pads_lo: Sequence[int], pads_hi: Sequence[int],
                    output_padding: Sequence[int], out_dtype: str, groups: int = 1) -> Tensor:
    """The transposed convolution of ``Input`` ``(N, C, X...)`` with ``Filter``
    ``(C, F // groups, K...)``: the direct convolution of :func:`_operands`; tag ``op``. The
    output is ``(N, F, (X - 1) * stride - pads + K + output_padding ...)``."""
    nsp = len(strides)
    out_dtype = out_dtype or Input.dtype
    data_pad, kernel = _operands(op, Input, Filter, strides, pads_lo, pads_hi, output_padding,
                                 groups)
    batch, in_c, *in_sp = Input.shape
    out_c, in_cg, *ks = (get_const_int(d) for d in kernel.shape)
    fg = out_c // (get_const_int(in_c) // in_cg)
    out_sp = [_op.add(_op.sub(_op.add(_op.mul(_op.sub(x, 1), s), k), pl + ph), o)
              for x, s, k, pl, ph, o in zip(in_sp, strides, ks, pads_lo, pads_hi,
                                            output_padding)]
    dc = reduce_axis((0, in_cg), name="dc")
    names = ["dw"] if nsp == 1 else ["dh", "dw"] if nsp == 2 else [f"d{i}" for i in range(nsp)]
    dr = [reduce_axis((0, k), name=n) for k, n in zip(ks, names)]
    grouped = in_cg != get_const_int(in_c)

    def f(b, c, *x):
        ch = c // fg * in_cg + dc if grouped else dc
        return _op.sum(data_pad(b, ch, *[v + r for v, r in zip(x, dr)]).astype(out_dtype)
                       * kernel(c, dc, *dr).astype(out_dtype), axis=[dc, *dr])
    return compute((batch, out_c, *out_sp), f, tag=op)


def conv2d_transpose_nchw_preprocess(data: Tensor, kernel: Tensor, strides, padding,
                                     out_dtype: str, output_padding=(0, 0)
                                     ) -> Tuple[Tensor, Tensor]:
    """The data and kernel of the stride-1, unpadded NCHW / OIHW convolution that
    :func:`conv2d_transpose_nchw` is: ``data`` dilated by ``strides`` and padded (stages
    ``data_dilate``, ``data_pad``), ``kernel`` (IOHW) flipped and transposed to OIHW (stage
    ``kernel_transform``)."""
    op = "conv2d_transpose_nchw"
    _check_ndim(op, Input=(data, 4, "NCHW"), Filter=(kernel, 4, "IOHW"))
    sh, sw = check_strides(strides, 2, op, "strides")
    oph, opw = const_ints(output_padding, 2, op, "output_padding")
    kh, kw = (get_const_int(k) for k in kernel.shape[2:])
    top, left, bottom, right = checked_pad_tuple(op, padding, (kh, kw))
    return _operands(op, data, kernel, (sh, sw), (top, left), (bottom, right), (oph, opw))


def conv2d_transpose_nchw(Input: Tensor, Filter: Tensor, strides, padding, out_dtype: str,
                          output_padding=(0, 0)) -> Tensor:
    """The gradient of ``conv2d_nchw`` with respect to its input: Input ``(N, C, H, W)``,
    Filter ``(C, F, KH, KW)`` (IOHW) -> ``(N, F, (H-1)*sh - pad_h + KH + opad_h, ...)``.

    Stages ``data_dilate``, ``data_pad``, ``kernel_transform``; tag "conv2d_transpose_nchw".
    """
    return _conv2d_transpose(Input, Filter, strides, padding, out_dtype, output_padding, 1,
                             "conv2d_transpose_nchw")


def group_conv2d_transpose_nchw(data: Tensor, kernel: Tensor, stride, padding, out_dtype: str,
                                output_padding=(0, 0), groups: int = 1) -> Tensor:
    """Grouped transposed convolution: data ``(N, C, H, W)``, kernel ``(C, F // groups, KH,
    KW)`` -> ``(N, F, OH, OW)``; the input channels of group ``g`` (``g*C/groups`` on) make
    its output channels (``g*F/groups`` on). Tag "group_conv2d_transpose_nchw"."""
    return _conv2d_transpose(data, kernel, stride, padding, out_dtype, output_padding, groups,
                             "group_conv2d_transpose_nchw")


def _conv2d_transpose(Input: Tensor, Filter: Tensor, strides, padding, out_dtype: str,
                      output_padding, groups: int, op: str) -> Tensor:
    _check_ndim(op, Input=(Input, 4, "NCHW"), Filter=(Filter, 4, "IOHW"))
    sh, sw = check_strides(strides, 2, op, "strides")
    oph, opw = const_ints(output_padding, 2, op, "output_padding")
    kh, kw = (get_const_int(k) for k in Filter.shape[2:])
    top, left, bottom, right = checked_pad_tuple(op, padding, (kh, kw))
    return _conv_transpose(op, Input, Filter, (sh, sw), (top, left), (bottom, right),
                           (oph, opw), out_dtype, groups)


def conv1d_transpose_ncw(data: Tensor, kernel: Tensor, stride, padding, out_dtype: str,
                         output_padding=0) -> Tensor:
    """The gradient of ``conv1d_ncw`` with respect to its input: data ``(N, C, W)``, kernel
    ``(C, F, KW)`` (IOW) -> ``(N, F, (W-1)*stride - pad_left - pad_right + KW + opad)``.

    Parameters
    ----------
    data : Tensor
        ``(batch, in_channel, in_width)``.
    kernel : Tensor
        ``(in_channel, num_filter, filter_width)``.
    stride : int or tuple of one int
        The stride of the forward convolution.
    padding : int, tuple of one or two ints, "SAME" or "VALID"
        The forward convolution's padding (left, right).
    out_dtype : str
        The accumulation and output type.
    output_padding : int or tuple of one int
        Extra elements at the end of the output, below ``stride``.

    Returns
    -------
    Tensor
        ``(batch, num_filter, out_width)``; stages as :func:`conv2d_transpose_nchw`, tag
        "conv1d_transpose_ncw".
    """
    op = "conv1d_transpose_ncw"
    _check_ndim(op, data=(data, 3, "NCW"), kernel=(kernel, 3, "IOW"))
    (s,) = check_strides(stride, 1, op, "stride")
    (opad,) = const_ints(output_padding, 1, op, "output_padding")
    kw = get_const_int(kernel.shape[2])
    try:
        left, right = get_pad_tuple1d(padding, (kw,))
    except (ValueError, TypeError) as e:
        raise TopiError(f"{op}: bad padding {padding!r}: {e}") from e
    left, right = get_const_int(left), get_const_int(right)
    if min(left, right) < 0:
        raise TopiError(f"{op}: padding must be non-negative, got {padding!r}")
    return _conv_transpose(op, data, kernel, (s,), (left,), (right,), (opad,), out_dtype)


def conv3d_transpose_ncdhw(Input: Tensor, Filter: Tensor, strides, padding, out_dtype: str,
                           output_padding=(0, 0, 0)) -> Tensor:
    """The gradient of ``conv3d_ncdhw`` with respect to its input: Input ``(N, C, D, H,
    W)``, Filter ``(C, F, KD, KH, KW)`` (IODHW) -> ``(N, F, (D-1)*sd - pad_d + KD + opad_d,
    ...)``; ``padding`` an int, 3 or 6 ints (front, top, left, back, bottom, right), "SAME"
    or "VALID".

    Stages as :func:`conv2d_transpose_nchw`; tag "conv3d_transpose_ncdhw".
    """
    op = "conv3d_transpose_ncdhw"
    _check_ndim(op, Input=(Input, 5, "NCDHW"), Filter=(Filter, 5, "IODHW"))
    st = check_strides(strides, 3, op, "strides")
    opad = const_ints(output_padding, 3, op, "output_padding")
    ks = [get_const_int(k) for k in Filter.shape[2:]]
    try:
        pads = [get_const_int(p) for p in get_pad_tuple3d(padding, ks)]
    except (ValueError, TypeError) as e:
        raise TopiError(f"{op}: bad padding {padding!r}: {e}") from e
    if min(pads) < 0:
        raise TopiError(f"{op}: padding must be non-negative, got {padding!r}")
    return _conv_transpose(op, Input, Filter, st, pads[:3], pads[3:], opad, out_dtype)
