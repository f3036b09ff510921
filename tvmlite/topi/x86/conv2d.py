"""x86 ``conv2d_NCHWc``: the packed-layout convolution (``topi.nn.conv2d_NCHWc``) with a
register-blocked, vectorized schedule and the ``conv2d_NCHWc.x86`` AutoTVM template.

Each output tile is ``tile_ow[-1]`` columns x ``oc_bn`` channels, accumulated in vector
registers (one FMA per input channel, kernel tap and column); the ``(batch, oc_chunk, oh)``
loops are fused and parallel; an element-wise epilogue (bias, relu…) runs in the same loop
nest, on the tile just computed."""
from __future__ import annotations

from ... import autotvm
from ...autotvm.space import OtherOptionEntity
from ...te.schedule import Schedule
from ...te.tensor import Tensor
from ..nn.conv2d import conv2d_NCHWc as _nn_conv2d_NCHWc
from ..utils import get_const_int
from .dense import _inline_and_find, _tensor_arg, config_of
from .utils import get_config, largest_factor


def conv2d_NCHWc(data: Tensor, kernel: Tensor, strides, padding, dilation, layout: str,
                 out_layout: str, out_dtype: str = "float32") -> Tensor:
    """``topi.nn.conv2d_NCHWc`` with the ``conv2d_NCHWc.x86`` knobs on its config:
    ``tile_ow`` (columns per register block) and ``unroll_kw``."""
    args = (data, kernel, strides, padding, dilation, layout, out_layout, out_dtype)
    cfg, workload = get_config("conv2d_NCHWc.x86", args)
    out = _nn_conv2d_NCHWc(*args)
    ow = get_const_int(out.shape[3])
    oc_bn = get_const_int(out.shape[4])
    cfg.define_split("tile_ow", ow, num_outputs=2, filter=lambda e: e.size[-1] <= 64)
    cfg.define_knob("unroll_kw", [True, False])
    if cfg.is_fallback:
        # ~24 accumulators of oc_bn lanes stay in the 32 vector registers of AVX-512
        cfg.fallback_split("tile_ow", [-1, largest_factor(ow, max(24 * 16 // oc_bn, 1))])
        cfg["unroll_kw"] = OtherOptionEntity(False)
    kh, kw, ic_total = (get_const_int(x) for x in (kernel.shape[2], kernel.shape[3],
                                                    data.shape[1] * data.shape[4]))
    cfg.add_flop(2 * get_const_int(out.shape[0]) * get_const_int(out.shape[1]) * oc_bn
                 * get_const_int(out.shape[2]) * ow * ic_total * kh * kw)
    out.op.attrs["workload"] = workload
    return out


def schedule_conv2d_NCHWc(outs) -> Schedule:
    """Schedule of :func:`conv2d_NCHWc` and its element-wise consumers."""
    s, conv, out = _inline_and_find(outs, "conv2d_NCHWc")
    cfg = config_of(out)
    reg_n = cfg["tile_ow"].size[-1]
    data_pad = conv.op.input_tensors[0]
    if data_pad.op.name == "data_pad":
        b, icc, ih, _, icb = s[data_pad].op.axis
        s[data_pad].parallel(s[data_pad].fuse(b, icc, ih))
        s[data_pad].vectorize(icb)
    ic_bn = get_const_int(conv.op.input_tensors[0].shape[4])

    acc = s.cache_write(conv, "global") if out is conv else conv
    stage = out
    b, oc_chunk, oh, ow, oc_block = s[stage].op.axis
    ow_chunk, ow_block = s[stage].split(ow, factor=reg_n)
    s[stage].reorder(b, oc_chunk, oh, ow_chunk, ow_block, oc_block)
    s[stage].parallel(s[stage].fuse(b, oc_chunk, oh))
    s[stage].vectorize(oc_block)
    s[acc].compute_at(s[stage], ow_chunk)

    _, oc_chunk, oh, ow, oc_block = s[acc].op.axis
    ic, kh, kw = s[acc].op.reduce_axis
    ow_chunk, ow_block = s[acc].split(ow, factor=reg_n)
    ic_chunk, ic_block = s[acc].split(ic, factor=ic_bn)
    if cfg["unroll_kw"].val:
        s[acc].reorder(oc_chunk, oh, ow_chunk, ic_chunk, kh, ic_block, kw, ow_block, oc_block)
        s[acc].unroll(kw)
    else:
        s[acc].reorder(oc_chunk, oh, ow_chunk, ic_chunk, kh, kw, ic_block, ow_block, oc_block)
    s[acc].vectorize(oc_block)
    s[acc].unroll(ow_block)
    return s


@autotvm.template("conv2d_NCHWc.x86")
def _conv2d_NCHWc_template(data, kernel, strides, padding, dilation, layout, out_layout,
                           out_dtype="float32"):
    data, kernel = _tensor_arg(data, "data"), _tensor_arg(kernel, "kernel")
    out = conv2d_NCHWc(data, kernel, strides, padding, dilation, layout, out_layout, out_dtype)
    return schedule_conv2d_NCHWc(out), [data, kernel, out]
