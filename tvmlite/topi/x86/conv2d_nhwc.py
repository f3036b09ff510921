"""x86 schedules of the channels-last convolutions ``topi.nn.conv2d_nhwc``,
``group_conv2d_nhwc`` and ``depthwise_conv2d_nhwc`` (classic ``conv2d_nhwc.x86``: a fixed
schedule, no AutoTVM template).

Each output tile is ``reg_n`` columns x ``oc_bn`` output channels (one vector register of
channels), accumulated in a small buffer of its own (``cache_write``) that LLVM keeps in
registers: per reduction step one contiguous vector of weights (HWIO: output channels
innermost) times ``reg_n`` broadcast inputs. The ``(batch, oh)`` loops are fused and
parallel; an element-wise epilogue (bias, relu, residual add) runs in the same loop nest,
on the tile just computed. Channel counts or widths that the tile does not divide keep
a guarded tail."""
from __future__ import annotations

from ...te.schedule import Schedule
from ..utils import get_const_int
from .dense import _inline_and_find
from .utils import largest_factor, vector_lanes

#: the TOPI tags this module schedules
NHWC_CONV_TAGS = ("conv2d_nhwc", "group_conv2d_nhwc", "depthwise_conv2d_nhwc")


def _oc_block(oc: int, lanes: int) -> int:
    """Output channels per tile: one vector register (or half of one) when that divides
    ``oc``, else the whole channel axis when it is at most two registers (17: one vector of
    17 lanes), else a factor of ``oc`` of at least 4 lanes, else one register and a guarded
    tail tile."""
    for width in (lanes, lanes // 2):
        if oc % width == 0:
            return width
    if oc <= 2 * lanes:
        return oc
    factor = largest_factor(oc, lanes)
    return factor if factor >= 4 else lanes


def _schedule_nhwc(outs, op_tag: str, max_cols: int) -> Schedule:
    s, conv, out = _inline_and_find(outs, op_tag)
    padded = conv.op.input_tensors[0]
    if padded.op.name in ("pad_temp", "PaddedInput") and padded.op is not out.op:
        if op_tag == "depthwise_conv2d_nhwc":
            # memory-bound: reading through the padding beats a padded copy (as NCHWc)
            s[padded].compute_inline()
        else:
            # each padded pixel is read KH*KW*OC times: one parallel, vectorized copy
            n, h, w, c = s[padded].op.axis
            s[padded].parallel(s[padded].fuse(n, h))
            if get_const_int(padded.shape[3]) % vector_lanes(padded.dtype) == 0:
                s[padded].vectorize(c)
    ow_len, oc = get_const_int(out.shape[2]), get_const_int(out.shape[3])
    oc_bn = _oc_block(oc, vector_lanes(out.dtype))
    reg_n = largest_factor(ow_len, max_cols)
    if reg_n < max_cols // 2 and ow_len > max_cols:
        reg_n = max_cols  # a guarded tail beats columns one by one (OW prime)
    acc = s.cache_write(conv, "global") if out is conv else conv

    # a convolution walks a row once per channel block (that block's weights stay in
    # cache); a depthwise one reads each input vector once: channels inner, the input read
    # in order (MobileNet 128x56²: 1.5x faster than the channel blocks outer, 2 cores)
    channels_inner = op_tag == "depthwise_conv2d_nhwc"
    n, oh, ow, oc_ax = s[out].op.axis
    oc_chunk, oc_block = s[out].split(oc_ax, factor=oc_bn)
    ow_chunk, ow_block = s[out].split(ow, factor=reg_n)
    outer = (ow_chunk, oc_chunk) if channels_inner else (oc_chunk, ow_chunk)
    s[out].reorder(n, oh, *outer, ow_block, oc_block)
    s[out].parallel(s[out].fuse(n, oh))
    s[out].vectorize(oc_block)
    s[acc].compute_at(s[out], outer[1])

    _, _, ow, oc_ax = s[acc].op.axis
    oc_chunk, oc_block = s[acc].split(oc_ax, factor=oc_bn)
    ow_chunk, ow_block = s[acc].split(ow, factor=reg_n)
    red = list(s[acc].op.reduce_axis)  # (ry, rx, rc) or (di, dj)
    outer = (ow_chunk, oc_chunk) if channels_inner else (oc_chunk, ow_chunk)
    s[acc].reorder(*outer, *red, ow_block, oc_block)
    s[acc].unroll(ow_block)
    s[acc].vectorize(oc_block)
    return s


def schedule_conv2d_nhwc(outs) -> Schedule:
    """Schedule of ``topi.nn.conv2d_nhwc`` (HWIO kernel) and its element-wise consumers."""
    return _schedule_nhwc(outs, "conv2d_nhwc", 8)


def schedule_group_conv2d_nhwc(outs) -> Schedule:
    """Schedule of ``topi.nn.group_conv2d_nhwc`` and its element-wise consumers."""
    return _schedule_nhwc(outs, "group_conv2d_nhwc", 8)


def schedule_depthwise_conv2d_nhwc(outs) -> Schedule:
    """Schedule of ``topi.nn.depthwise_conv2d_nhwc`` and its element-wise consumers."""
    return _schedule_nhwc(outs, "depthwise_conv2d_nhwc", 8)
