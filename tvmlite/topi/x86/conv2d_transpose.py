"""x86 ``conv2d_transpose_nchw`` (classic ``conv2d_transpose_nchw.x86``): the input dilated
and padded, the kernel flipped and transposed
(:func:`~tvmlite.topi.nn.conv2d_transpose_nchw_preprocess`), then the stride-1 packed
convolution of :mod:`.conv2d` (``conv2d_NCHWc.x86`` config and tasks) with those stages
inlined into its packing."""
from __future__ import annotations

from ...te.schedule import Schedule
from ...te.tensor import Tensor
from ..generic.schedules import Outs, _outs
from ..nn.conv2d_transpose import conv2d_transpose_nchw_preprocess
from ..utils import walk_ops
from .conv2d import conv2d_nchw, schedule_conv2d_nchw

#: the stages of :func:`conv2d_transpose_nchw_preprocess`
_PREPROCESS = ("data_dilate", "data_pad", "kernel_transform")


def conv2d_transpose_nchw(data: Tensor, kernel: Tensor, strides, padding, out_dtype: str,
                          output_padding=(0, 0)) -> Tensor:
    """Transposed convolution of ``data`` ``(N, C, H, W)`` and ``kernel`` ``(C, F, KH, KW)``
    (IOHW) -> ``(N, F, OH, OW)``, computed as :func:`~.conv2d.conv2d_nchw` over the
    preprocessed operands (stage ``output_unpack``)."""
    data_pad, kernel_t = conv2d_transpose_nchw_preprocess(data, kernel, strides, padding,
                                                          out_dtype, output_padding)
    return conv2d_nchw(data_pad, kernel_t, (1, 1), (0, 0, 0, 0), (1, 1),
                       out_dtype or data.dtype)


def schedule_conv2d_transpose_nchw(outs: Outs) -> Schedule:
    """Schedule of :func:`conv2d_transpose_nchw` and its element-wise consumers: the
    convolution's (:func:`~.conv2d.schedule_conv2d_nchw`), the dilation, padding and kernel
    flip computed inside the packing of data and kernel."""
    outs = _outs(outs)
    s = schedule_conv2d_nchw(outs)
    for op in walk_ops(outs):
        if op.name in _PREPROCESS:
            s[op].compute_inline()
    return s
