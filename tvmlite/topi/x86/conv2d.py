"""x86 ``conv2d_NCHWc``: the packed-layout convolution (``topi.nn.conv2d_NCHWc``) with a
register-blocked, vectorized schedule and the ``conv2d_NCHWc.x86`` AutoTVM template.

Each output tile is ``tile_ow[-1]`` columns x ``oc_bn`` channels, accumulated in vector
registers (one FMA per input channel, kernel tap and column); the ``(batch, oc_chunk, oh)``
loops are fused and parallel; an element-wise epilogue (bias, relu…) runs in the same loop
nest, on the tile just computed."""
from __future__ import annotations

from ... import autotvm
from ...autotvm.space import OtherOptionEntity
from ...te.operation import placeholder
from ...te.schedule import Schedule
from ...te.tensor import Tensor
from ..nn.conv2d import conv2d_NCHWc as _nn_conv2d_NCHWc
from ..transform import layout_transform
from ..utils import TopiError, get_const_int, get_const_tuple
from .dense import _inline_and_find, _tensor_arg, config_of
from .injective import schedule_injective_from_existing
from .utils import get_config, largest_factor, vector_lanes


def fallback_channel_block(channels: int, dtype: str) -> int:
    """The fallback channel block of ``conv2d_NCHWc.x86``: the largest factor of ``channels``
    within one vector register of ``dtype``."""
    return largest_factor(channels, vector_lanes(dtype))


def fallback_reg_n(out_width: int, oc_bn: int) -> int:
    """The fallback output columns per register block (``tile_ow[-1]``): measured on Zen 4
    (ResNet 3x3 layers, one thread), blocks of 4-8 columns with the kw taps unrolled beat
    wider blocks, whose accumulators spill."""
    return largest_factor(out_width, max(8 * 16 // oc_bn, 1))


def conv2d_NCHWc(data: Tensor, kernel: Tensor, strides, padding, dilation, layout: str,
                 out_layout: str, out_dtype: str = "float32") -> Tensor:
    """``topi.nn.conv2d_NCHWc`` with the ``conv2d_NCHWc.x86`` knobs on its config:
    ``tile_ow`` (columns per register block) and ``unroll_kw``.

    As in classic TOPI, ``data`` and ``kernel`` may also be plain NCHW / OIHW tensors (with
    ``layout = out_layout = "NCHW"``): then ``tile_ic`` and ``tile_oc`` choose the channel
    blocks and the packing (stages ``data_vec``, ``kernel_vec``) is part of the kernel."""
    args = (data, kernel, strides, padding, dilation, layout, out_layout, out_dtype)
    cfg, workload = get_config("conv2d_NCHWc.x86", args)
    if data.ndim == 4 and kernel.ndim == 4:
        if layout != "NCHW" or out_layout != "NCHW":
            raise TopiError(f"conv2d_NCHWc: 4-D data and kernel need layout 'NCHW' and "
                            f"out_layout 'NCHW', got {layout!r}, {out_layout!r}")
        cfg.define_split("tile_ic", get_const_int(data.shape[1]), num_outputs=2)
        cfg.define_split("tile_oc", get_const_int(kernel.shape[0]), num_outputs=2)
        if cfg.is_fallback:
            lanes = vector_lanes(data.dtype)
            cfg.fallback_split("tile_ic", [-1, lanes])  # = fallback_channel_block
            cfg.fallback_split("tile_oc", [-1, lanes])
        ic_bn, oc_bn = cfg["tile_ic"].size[-1], cfg["tile_oc"].size[-1]
        layout, out_layout = f"NCHW{ic_bn}c", f"NCHW{oc_bn}c"
        data = layout_transform(data, "NCHW", layout)
        data.op.name = "data_vec"
        kernel = layout_transform(kernel, "OIHW", f"OIHW{ic_bn}i{oc_bn}o")
        kernel.op.name = "kernel_vec"
    out = _nn_conv2d_NCHWc(data, kernel, strides, padding, dilation, layout, out_layout,
                           out_dtype)
    ow = get_const_int(out.shape[3])
    oc_bn = get_const_int(out.shape[4])
    cfg.define_split("tile_ow", ow, num_outputs=2, filter=lambda e: e.size[-1] <= 64)
    cfg.define_knob("unroll_kw", [True, False])
    if cfg.is_fallback:
        cfg.fallback_split("tile_ow", [-1, fallback_reg_n(ow, oc_bn)])
        cfg["unroll_kw"] = OtherOptionEntity(True)
    kh, kw, ic_total = (get_const_int(x) for x in (kernel.shape[2], kernel.shape[3],
                                                    data.shape[1] * data.shape[4]))
    cfg.add_flop(2 * get_const_int(out.shape[0]) * get_const_int(out.shape[1]) * oc_bn
                 * get_const_int(out.shape[2]) * ow * ic_total * kh * kw)
    out.op.attrs["workload"] = workload
    return out


def conv2d_nchw(data: Tensor, kernel: Tensor, strides, padding, dilation,
                out_dtype: str = "float32") -> Tensor:
    """NCHW convolution computed as :func:`conv2d_NCHWc` on in-kernel packed data and
    kernel, unpacked back to NCHW (stage ``output_unpack``)."""
    packed = conv2d_NCHWc(data, kernel, strides, padding, dilation, "NCHW", "NCHW",
                          out_dtype)
    out = layout_transform(packed, f"NCHW{get_const_int(packed.shape[4])}c", "NCHW")
    out.op.name = "output_unpack"
    return out


def _schedule_parallel_outer(s: Schedule, t: Tensor, n_outer: int) -> None:
    axes = s[t].op.axis
    s[t].parallel(s[t].fuse(*axes[:n_outer]))


def schedule_conv2d_NCHWc(outs) -> Schedule:
    """Schedule of :func:`conv2d_NCHWc` (and :func:`conv2d_nchw`) with its element-wise
    consumers: those fused into the convolution's loop nest when the output keeps the
    packed layout, else (NCHW output) a separate parallel, vectorized pass."""
    s, conv, out = _inline_and_find(outs, "conv2d_NCHWc")
    cfg = config_of(out)
    reg_n = cfg["tile_ow"].size[-1]
    data_pad, kernel = conv.op.input_tensors
    data_vec = data_pad.op.input_tensors[0] if data_pad.op.name == "data_pad" else data_pad
    if data_vec.op.name == "data_vec":
        if data_vec is data_pad:
            _schedule_parallel_outer(s, data_vec, 3)
        else:
            s[data_vec].compute_inline()  # the padding reads the NCHW input directly
    if data_pad.op.name == "data_pad":
        _schedule_parallel_outer(s, data_pad, 3)
        s[data_pad].vectorize(s[data_pad].op.axis[4])
    if kernel.op.name == "kernel_vec":
        _schedule_parallel_outer(s, kernel, 2)
    ic_bn = get_const_int(data_pad.shape[4])

    if out.ndim == 5:
        acc = s.cache_write(conv, "global") if out is conv else conv
        stage = out
    else:  # unpacked to NCHW: the convolution is a stage of its own
        acc = s.cache_write(conv, "global")
        stage = conv
        schedule_injective_from_existing(s, out)
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


schedule_conv2d_nchw = schedule_conv2d_NCHWc


@autotvm.template("conv2d_NCHWc.x86")
def _conv2d_NCHWc_template(data, kernel, strides, padding, dilation, layout, out_layout,
                           out_dtype="float32"):
    data, kernel = _tensor_arg(data, "data"), _tensor_arg(kernel, "kernel")
    if autotvm.GLOBAL_SCOPE.in_tuning and data.ndim == 4 and kernel.ndim == 4:
        # measured as a network runs it, as in classic TVM: AlterOpLayout packs the data
        # and kernel outside the kernel, so a config's time is the convolution's alone
        # (packing in the kernel added 10-40% to 1x1 and deep layers, by block)
        cfg = autotvm.get_config()
        ic_bn, oc_bn = cfg["tile_ic"].size[-1], cfg["tile_oc"].size[-1]
        (n, c, h, w), (o, _, kh, kw) = (get_const_tuple(data.shape),
                                        get_const_tuple(kernel.shape))
        data = placeholder((n, c // ic_bn, h, w, ic_bn), data.dtype, name="data")
        kernel = placeholder((o // oc_bn, c // ic_bn, kh, kw, ic_bn, oc_bn), kernel.dtype,
                             name="kernel")
        layout, out_layout = f"NCHW{ic_bn}c", f"NCHW{oc_bn}c"
    out = conv2d_NCHWc(data, kernel, strides, padding, dilation, layout, out_layout, out_dtype)
    return schedule_conv2d_NCHWc(out), [data, kernel, out]
