"""The fallback config of the x86 ``conv2d_NCHWc`` template from a conv2d workload (classic
module ``topi.x86.conv2d_avx_common``)."""
from __future__ import annotations

from ...autotvm.space import OtherOptionEntity, SplitEntity
from ..nn.conv2d import Workload
from .conv2d import fallback_channel_block, fallback_reg_n


def _fallback_schedule(cfg, wkl: Workload) -> None:
    """Set on ``cfg`` the knobs ``conv2d_NCHWc.x86`` takes when no tuned record matches
    ``wkl`` (a :func:`topi.nn.conv2d._get_workload`): the channel blocks ``tile_ic`` /
    ``tile_oc``, the columns per register block ``tile_ow`` and ``unroll_kw``."""
    dilated_kw = (wkl.kernel_w - 1) * wkl.dilation_w + 1
    out_width = (wkl.width + wkl.padl + wkl.padr - dilated_kw) // wkl.stride_w + 1
    ic_bn = fallback_channel_block(wkl.in_filter, wkl.in_dtype)
    oc_bn = fallback_channel_block(wkl.out_filter, wkl.in_dtype)
    reg_n = fallback_reg_n(out_width, oc_bn)
    cfg["tile_ic"] = SplitEntity([wkl.in_filter // ic_bn, ic_bn])
    cfg["tile_oc"] = SplitEntity([wkl.out_filter // oc_bn, oc_bn])
    cfg["tile_ow"] = SplitEntity([out_width // reg_n, reg_n])
    cfg["unroll_kw"] = OtherOptionEntity(True)
