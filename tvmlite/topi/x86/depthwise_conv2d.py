"""x86 ``depthwise_conv2d_NCHWc`` (AutoTVM template ``depthwise_conv2d_NCHWc.x86``): output
tiles of ``tile_ow[-1]`` columns x ``oc_bn`` channels in vector registers, the ``(batch,
oc_chunk, oh)`` loops fused and parallel, element-wise consumers fused."""
from __future__ import annotations

from ... import autotvm
from ...autotvm.space import SplitEntity
from ...te.schedule import Schedule
from ...te.tensor import Tensor
from ..nn.depthwise_conv2d import Workload
from ..nn.depthwise_conv2d import depthwise_conv2d_NCHWc as _nn_depthwise_NCHWc
from ..utils import get_const_int
from .dense import _inline_and_find, _tensor_arg, config_of
from .utils import get_config, largest_factor


def _fallback_reg_n(out_width: int) -> int:
    """Output columns per register block when no tuned record matches."""
    return largest_factor(out_width, 8)


def _fallback_schedule(cfg, wkl: Workload) -> None:
    """Set on ``cfg`` the knob ``depthwise_conv2d_NCHWc.x86`` takes when no tuned record
    matches ``wkl`` (a :func:`topi.nn.depthwise_conv2d._get_workload`): ``tile_ow``."""
    dilated_kw = (wkl.kernel_w - 1) * wkl.dilation_w + 1
    out_width = (wkl.width + wkl.padl + wkl.padr - dilated_kw) // wkl.stride_w + 1
    reg_n = _fallback_reg_n(out_width)
    cfg["tile_ow"] = SplitEntity([out_width // reg_n, reg_n])


def depthwise_conv2d_NCHWc(data: Tensor, kernel: Tensor, strides, padding, dilation,
                           layout: str, out_layout: str, out_dtype: str = "float32") -> Tensor:
    """``topi.nn.depthwise_conv2d_NCHWc`` with the ``depthwise_conv2d_NCHWc.x86`` knob
    ``tile_ow`` on its config."""
    args = (data, kernel, strides, padding, dilation, layout, out_layout, out_dtype)
    cfg, workload = get_config("depthwise_conv2d_NCHWc.x86", args)
    out = _nn_depthwise_NCHWc(*args)
    ow = get_const_int(out.shape[3])
    cfg.define_split("tile_ow", ow, num_outputs=2, filter=lambda e: e.size[-1] <= 64)
    if cfg.is_fallback:
        cfg.fallback_split("tile_ow", [-1, _fallback_reg_n(ow)])
    kh, kw = get_const_int(kernel.shape[2]), get_const_int(kernel.shape[3])
    n_out = 1
    for d in out.shape:
        n_out *= get_const_int(d)
    cfg.add_flop(2 * n_out * kh * kw)
    out.op.attrs["workload"] = workload
    return out


def schedule_depthwise_conv2d_NCHWc(outs) -> Schedule:
    """Schedule of :func:`depthwise_conv2d_NCHWc` and its element-wise consumers."""
    s, conv, out = _inline_and_find(outs, "depthwise_conv2d_NCHWc")
    cfg = config_of(out)
    reg_n = cfg["tile_ow"].size[-1]
    padded = conv.op.input_tensors[0]
    if padded.op.name == "PaddedInput":
        # read through the padding: loop partition leaves the interior tiles guard-free and
        # the border rows a scalar test, where a padded copy doubled the memory traffic of
        # these memory-bound layers (MobileNet's: 20-35% faster, 2 cores)
        s[padded].compute_inline()
    acc = s.cache_write(conv, "global") if out is conv else conv
    b, oc_chunk, oh, ow, oc_block = s[out].op.axis
    ow_chunk, ow_block = s[out].split(ow, factor=reg_n)
    s[out].reorder(b, oc_chunk, oh, ow_chunk, ow_block, oc_block)
    s[out].parallel(s[out].fuse(b, oc_chunk, oh))
    s[out].vectorize(oc_block)
    s[acc].compute_at(s[out], ow_chunk)
    _, oc_chunk, oh, ow, oc_block = s[acc].op.axis
    kh, kw = s[acc].op.reduce_axis
    ow_chunk, ow_block = s[acc].split(ow, factor=reg_n)
    s[acc].reorder(oc_chunk, oh, ow_chunk, kh, kw, ow_block, oc_block)
    s[acc].vectorize(oc_block)
    s[acc].unroll(ow_block)
    return s


@autotvm.template("depthwise_conv2d_NCHWc.x86")
def _depthwise_conv2d_NCHWc_template(data, kernel, strides, padding, dilation, layout,
                                     out_layout, out_dtype="float32"):
    data, kernel = _tensor_arg(data, "data"), _tensor_arg(kernel, "kernel")
    out = depthwise_conv2d_NCHWc(data, kernel, strides, padding, dilation, layout, out_layout,
                                 out_dtype)
    return schedule_depthwise_conv2d_NCHWc(out), [data, kernel, out]
