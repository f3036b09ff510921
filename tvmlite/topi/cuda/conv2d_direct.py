"""``conv2d_nchw.cuda``: the classic direct CUDA convolution template.

Each block computes a ``tile_f x tile_y x tile_x`` output tile: the spatial axes are split in
four (block, virtual thread, thread, inner), the reduction axes in two; the padded input and
the kernel are staged in shared memory per outer reduction step (fetched cooperatively by the
block's threads), the output accumulates in a local cache. ``auto_unroll_max_step`` and
``unroll_explicit`` are pragmas on an outer unit loop of the kernel, as classic TVM puts them.
"""
from __future__ import annotations

from typing import Any, List, Optional

from ... import autotvm
from ...autotvm.space import OtherOptionEntity
from ...error import TVMError
from ...te import thread_axis
from ...te.schedule import AutoInlineInjective, Schedule, create_schedule
from ...te.tensor import Tensor
from ..nn.conv2d import conv2d_nchw as _nn_conv2d_nchw
from ..utils import find_op, get_const_int
from ..x86.dense import _tensor_arg

TASK_NAME = "conv2d_nchw.cuda"


def conv2d_nchw(data: Tensor, kernel: Tensor, strides, padding, dilation,
                out_dtype: Optional[str] = None) -> Tensor:
    """NCHW convolution (the generic compute); its FLOPs go to the template's config."""
    out = _nn_conv2d_nchw(data, kernel, strides, padding, dilation, out_dtype)
    n, f, y, x = (get_const_int(d) for d in out.shape)
    _, c, kh, kw = (get_const_int(d) for d in kernel.shape)
    cfg = autotvm.get_config()
    cfg.add_flop(2 * n * f * y * x * c * kh * kw)
    return out


def schedule_direct_cuda(cfg: Any, s: Schedule, conv: Tensor) -> None:
    """Schedule the ``conv2d_nchw`` stage ``conv`` of ``s`` with the knobs of ``cfg``."""
    n, f, y, x = s[conv].op.axis
    rc, ry, rx = s[conv].op.reduce_axis
    cfg.define_split("tile_f", f, num_outputs=4)
    cfg.define_split("tile_y", y, num_outputs=4)
    cfg.define_split("tile_x", x, num_outputs=4)
    cfg.define_split("tile_rc", rc, num_outputs=2)
    cfg.define_split("tile_ry", ry, num_outputs=2)
    cfg.define_split("tile_rx", rx, num_outputs=2)
    cfg.define_knob("auto_unroll_max_step", [0, 512, 1500])
    cfg.define_knob("unroll_explicit", [0, 1])

    if cfg.is_fallback:
        _fallback(cfg)

    pad_data, kernel = s[conv].op.input_tensors
    s[pad_data].compute_inline()
    if any(conv.op is o for o in s.outputs):
        output = conv
        OL = s.cache_write(conv, "local")
    else:  # an element-wise epilogue (bias, relu) is the output: it takes the tiling
        output = s.outputs[0].output(0)
        s[conv].set_scope("local")
        OL = conv
    AA = s.cache_read(pad_data, "shared", [OL])
    WW = s.cache_read(kernel, "shared", [OL])

    n, f, y, x = s[output].op.axis
    kernel_scope, n = s[output].split(n, nparts=1)
    bf, vf, tf, fi = cfg["tile_f"].apply(s, output, f)
    by, vy, ty, yi = cfg["tile_y"].apply(s, output, y)
    bx, vx, tx, xi = cfg["tile_x"].apply(s, output, x)
    bf = s[output].fuse(n, bf)
    s[output].bind(bf, thread_axis("blockIdx.z"))
    s[output].bind(by, thread_axis("blockIdx.y"))
    s[output].bind(bx, thread_axis("blockIdx.x"))
    for v in (vf, vy, vx):
        s[output].bind(v, thread_axis("vthread"))
    s[output].bind(tf, thread_axis("threadIdx.z"))
    s[output].bind(ty, thread_axis("threadIdx.y"))
    s[output].bind(tx, thread_axis("threadIdx.x"))
    s[output].reorder(bf, by, bx, vf, vy, vx, tf, ty, tx, fi, yi, xi)
    s[OL].compute_at(s[output], tx)

    rc, ry, rx = s[OL].op.reduce_axis
    rco, rci = cfg["tile_rc"].apply(s, OL, rc)
    ryo, ryi = cfg["tile_ry"].apply(s, OL, ry)
    rxo, rxi = cfg["tile_rx"].apply(s, OL, rx)
    n, f, y, x = s[OL].op.axis
    s[OL].reorder(rco, ryo, rxo, rci, ryi, rxi, n, f, y, x)
    s[AA].compute_at(s[OL], rxo)
    s[WW].compute_at(s[OL], rxo)
    for load in (AA, WW):
        fused = s[load].fuse(*s[load].op.axis)
        tz, fused = s[load].split(fused, nparts=cfg["tile_f"].size[2])
        ty, fused = s[load].split(fused, nparts=cfg["tile_y"].size[2])
        tx, fused = s[load].split(fused, nparts=cfg["tile_x"].size[2])
        s[load].bind(tz, thread_axis("threadIdx.z"))
        s[load].bind(ty, thread_axis("threadIdx.y"))
        s[load].bind(tx, thread_axis("threadIdx.x"))

    s[output].pragma(kernel_scope, "auto_unroll_max_step", cfg["auto_unroll_max_step"].val)
    s[output].pragma(kernel_scope, "unroll_explicit", cfg["unroll_explicit"].val)


def _fallback(cfg: Any) -> None:
    """Untuned: 8 x 4 x 8 threads per block where the output's extents allow (the largest
    factors within), one input channel and kernel row/column per shared-memory step."""
    for name, limits in (("tile_f", [-1, 1, 8, 1]), ("tile_y", [-1, 1, 4, 1]),
                         ("tile_x", [-1, 1, 8, 1]), ("tile_rc", [-1, 1]),
                         ("tile_ry", [-1, 1]), ("tile_rx", [-1, 1])):
        cfg.fallback_split(name, limits)
    cfg["auto_unroll_max_step"] = OtherOptionEntity(0)
    cfg["unroll_explicit"] = OtherOptionEntity(0)


def _find_conv(outs: List[Tensor]) -> Optional[Tensor]:
    op = find_op(outs, lambda op: op.tag == "conv2d_nchw")
    return None if op is None else op.output(0)


def schedule_conv2d_nchw(outs) -> Schedule:
    """The schedule of a ``conv2d_nchw`` output, or of one element-wise epilogue of it
    (``relu(conv + bias)``; its producers inlined), with the current config (tuned or
    fallback)."""
    outs = [outs] if isinstance(outs, Tensor) else list(outs)
    s = create_schedule([t.op for t in outs])
    conv = _find_conv(outs)
    if conv is None:
        return s
    if len(outs) > 1 and not any(conv.op is t.op for t in outs):
        raise TVMError("topi.cuda.schedule_conv2d_nchw: an epilogue of the convolution "
                       f"must be its only output, got {len(outs)} outputs")
    AutoInlineInjective(s)
    schedule_direct_cuda(autotvm.get_config(), s, conv)
    return s


@autotvm.template(TASK_NAME)
def _conv2d_nchw_template(data, kernel, strides, padding, dilation, out_dtype="float32"):
    data, kernel = _tensor_arg(data, "data"), _tensor_arg(kernel, "kernel")
    out = conv2d_nchw(data, kernel, strides, padding, dilation, out_dtype)
    return schedule_conv2d_nchw(out), [data, kernel, out]
