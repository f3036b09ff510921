"""x86 schedules of the convolutions that have no tiled template here (1-D and 3-D ones,
grouped 1-D ones, grouped transposed ones, ``depthwise_conv2d_nchw``): the padding and other
injective producers inlined, the convolution's two outer axes (batch and the first channel or
spatial axis) fused and parallel. An element-wise epilogue is a parallel pass of its own.

The computes are those of ``topi.nn`` (classic's x86 ones compute the same values).
"""
from __future__ import annotations

from typing import Optional

from ...te.schedule import Schedule
from ...te.tensor import Tensor
from ..generic.schedules import Outs, _default_schedule, _outs, named_schedule
from ..nn.conv import conv3d_ncdhw, conv3d_ndhwc
from ..nn.conv2d_transpose import conv3d_transpose_ncdhw
from ..nn.dense import dense
from ..nn.depthwise_conv2d import depthwise_conv2d_nchw
from ..tag import is_injective
from ..utils import TopiError, equal_const_int, walk_ops
from .injective import schedule_injective_from_existing


def schedule_direct_conv(outs: Outs) -> Schedule:
    """Schedule of a direct convolution (any layout, dimension or grouping) or another
    reduction without a tiled template here, and its element-wise consumers: the reduction
    stages run with their outer two axes fused and parallel; every output gets the x86
    injective schedule."""
    outs = _outs(outs)
    s = _default_schedule(outs, True)
    out_ops = [t.op for t in outs]
    for op in walk_ops(outs):
        if not getattr(op, "reduce_axis", None) or is_injective(op.tag):
            continue
        axes = list(s[op].op.axis)
        if len(axes) >= 2:
            s[op].parallel(s[op].fuse(axes[0], axes[1]))
        elif axes:
            s[op].parallel(axes[0])
    for out in outs:
        if not getattr(out.op, "reduce_axis", None) and out.op in out_ops:
            schedule_injective_from_existing(s, out)
    return s


def _named(name: str, what: str):
    return named_schedule(schedule_direct_conv, name,
                          f"x86 schedule of ``{what}``: see :func:`schedule_direct_conv`.")


schedule_conv1d_ncw = _named("schedule_conv1d_ncw", "conv1d_ncw")
schedule_conv1d_nwc = _named("schedule_conv1d_nwc", "conv1d_nwc")
schedule_group_conv1d_ncw = _named("schedule_group_conv1d_ncw", "group_conv1d_ncw")
schedule_group_conv1d_nwc = _named("schedule_group_conv1d_nwc", "group_conv1d_nwc")
schedule_conv3d_ncdhw = _named("schedule_conv3d_ncdhw", "conv3d_ncdhw")
schedule_conv3d_ndhwc = _named("schedule_conv3d_ndhwc", "conv3d_ndhwc")
schedule_conv3d_transpose_ncdhw = _named("schedule_conv3d_transpose_ncdhw",
                                         "conv3d_transpose_ncdhw")
schedule_depthwise_conv2d_nchw = _named("schedule_depthwise_conv2d_nchw",
                                        "depthwise_conv2d_nchw")
schedule_dense_dynamic = _named("schedule_dense_dynamic", "dense_dynamic")
schedule_binarize_pack = _named("schedule_binarize_pack", "binarize_pack")
schedule_binary_dense = _named("schedule_binary_dense", "binary_dense")


def dense_dynamic(A: Tensor, B: Tensor, bias: Optional[Tensor] = None,
                  out_dtype: Optional[str] = None) -> Tensor:
    """Classic's x86 dense for dynamic shapes: a single row ``A`` ``(1, K)`` times the weight
    ``B`` ``(N, K)`` (``N`` and ``K`` may be symbolic), plus ``bias``; ``topi.nn.dense``."""
    if not equal_const_int(A.shape[0], 1):
        raise TopiError(f"dense_dynamic: only a single row of data (shape (1, K)) is "
                        f"supported, got {A.shape[0]} rows")
    return dense(A, B, bias, out_dtype or A.dtype)

__all__ = ["schedule_direct_conv", "schedule_conv1d_ncw", "schedule_conv1d_nwc",
           "schedule_group_conv1d_ncw", "schedule_group_conv1d_nwc", "schedule_conv3d_ncdhw",
           "schedule_conv3d_ndhwc",
           "schedule_depthwise_conv2d_nchw", "conv3d_ncdhw", "conv3d_ndhwc",
           "conv3d_transpose_ncdhw", "schedule_conv3d_transpose_ncdhw",
           "depthwise_conv2d_nchw", "dense_dynamic",
           "schedule_dense_dynamic", "schedule_binarize_pack", "schedule_binary_dense"]
