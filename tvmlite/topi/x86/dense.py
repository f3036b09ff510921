"""x86 dense: ``dense_nopack`` (the weight as given; the reduction vectorized through
rfactor) and ``dense_pack`` (the weight packed to ``NK{bn}n``; a register-blocked,
vectorized GEMM), each an AutoTVM template with classic task names and a fallback config.
Element-wise consumers (bias, activation) are fused into the output loop nest."""
from __future__ import annotations

from typing import Optional

from ... import autotvm
from ...te.operation import placeholder
from ...te.schedule import Schedule, create_schedule
from ...te.tensor import Tensor
from ...tir.expr import IntImm
from .. import tag
from ..nn.dense import dense
from ..nn.dense import dense_pack as _nn_dense_pack
from ..transform import layout_transform
from ..utils import TopiError, get_const_int, get_const_tuple
from .utils import get_config, largest_factor, query_config, vector_lanes


def _inline_and_find(outs, op_tag: str):
    outs = [outs] if isinstance(outs, Tensor) else list(outs)
    s = create_schedule([t.op for t in outs])
    found = []

    def visit(op):
        if op.tag == op_tag:
            found.append(op)
            return
        if tag.is_injective(op.tag) and op not in [t.op for t in outs]:
            s[op].compute_inline()
        for t in op.input_tensors:
            if hasattr(t.op, "body"):
                visit(t.op)
    for t in outs:
        visit(t.op)
    if not found:
        raise TopiError(f"no {op_tag!r} stage among the outputs' producers")
    return s, found[0].output(0), outs[0]


# ----------------------------------------------------------------------------------- nopack
def dense_nopack(data: Tensor, weight: Tensor, bias: Optional[Tensor] = None,
                 out_dtype: Optional[str] = None) -> Tensor:
    """``topi.nn.dense`` with the ``dense_nopack.x86`` knobs defined on its config."""
    cfg, workload = get_config("dense_nopack.x86", (data, weight, bias, out_dtype))
    m, n = get_const_tuple(data.shape)[0], get_const_tuple(weight.shape)[0]
    k = get_const_tuple(data.shape)[1]
    cfg.define_split("tile_y", m, num_outputs=2)
    cfg.define_split("tile_x", n, num_outputs=2)
    cfg.define_split("tile_k", k, num_outputs=2)
    if cfg.is_fallback:
        # a GEMV streams the weight: 8 output columns; a GEMM reuses each row of data and
        # weight loaded: 4 x 6 outputs, 24 vector accumulators (of the 32 AVX-512 registers)
        gemm = m >= 4
        cfg.fallback_split("tile_y", [-1, 4 if gemm else 1])
        cfg.fallback_split("tile_x", [-1, 6 if gemm else 8])
        cfg.fallback_split("tile_k", [-1, vector_lanes(data.dtype)])
    out = dense(data, weight, bias, out_dtype)
    cfg.add_flop(2 * m * n * k)
    out.op.attrs["workload"] = workload
    return out


# below this many multiply-adds (a GEMV like 1x512x1000) one thread streams the weight
# faster than two: waking the second thread for each call (OMP_WAIT_POLICY=passive, or a
# loaded machine) costs more than it saves (measured: 75-85 us serial vs 170-200 us parallel
# for 1x512x1000 on 2 shared cores)
_PARALLEL_MIN_MACS = 1 << 21


def schedule_dense_nopack(outs) -> Schedule:
    """Schedule of :func:`dense_nopack`: the reduction split by ``tile_k``, its inner part
    rfactored into a vector of partial sums per output; each ``tile_y x tile_x`` tile of
    outputs (rows x column tiles fused, and parallel from 2M multiply-adds on) keeps its
    partial-sum vectors side by side, so that the tile's dot products advance together
    (independent FMA chains), then reduces them across lanes."""
    s, C, Out = _inline_and_find(outs, "dense")
    cfg = config_of(Out)
    k = s[C].op.reduce_axis[0]
    dims = [*Out.shape, k.dom.extent]
    parallel = not all(isinstance(d, IntImm) for d in dims) or \
        dims[0].value * dims[1].value * dims[2].value >= _PARALLEL_MIN_MACS
    _, ki = cfg["tile_k"].apply(s, C, k)
    CF = s.rfactor(C, ki, 2)
    y, x = s[Out].op.axis
    yo, yi = cfg["tile_y"].apply(s, Out, y)
    xo, xi = cfg["tile_x"].apply(s, Out, x)
    s[Out].reorder(yo, xo, yi, xi)
    tile = s[Out].fuse(yo, xo)
    if parallel:
        s[Out].parallel(tile)
    if Out is not C:
        s[C].compute_at(s[Out], tile)
    s[CF].compute_at(s[Out], tile)
    cy, cx, kv = s[CF].op.axis
    (ko,) = s[CF].op.reduce_axis
    s[CF].reorder(ko, cy, cx, kv)
    s[CF].unroll(cy)
    s[CF].unroll(cx)
    s[CF].vectorize(kv)
    return s


def config_of(out: Tensor):
    """The AutoTVM config of the workload recorded on ``out``'s operator (or a producer)."""
    stack, seen = [out.op], set()
    while stack:  # every producer, not only the first input (a residual add's may be data)
        op = stack.pop()
        if "workload" in op.attrs:
            cfg = query_config(op.attrs["workload"])
            if not getattr(cfg, "_entity_map", True):
                raise TopiError(f"the config of {op.attrs['workload'][0]} has no knobs here: "
                                "its compute ran under another target (or none); call the "
                                "compute and the schedule inside the same "
                                "`with tvm.target.Target(...)`")
            return cfg
        if id(op) not in seen:
            seen.add(id(op))
            stack.extend(t.op for t in reversed(op.input_tensors))
    raise TopiError("no stage of the output carries an AutoTVM workload: build the "
                    "operator with the topi.x86 compute of the same name")


# ------------------------------------------------------------------------------------- pack
def fallback_pack_block(n: int, dtype: str = "float32") -> int:
    """The column block ``bn`` of the weight's ``NK{bn}n`` layout in :func:`dense_pack`'s
    fallback config (and so the block to pre-pack a constant weight with): two vectors where
    ``n`` allows, so that each broadcast row element feeds two FMAs (loads, not FMAs, bound a
    one-vector block), else the largest factor of ``n`` up to one vector."""
    lanes = vector_lanes(dtype)
    return 2 * lanes if n % (2 * lanes) == 0 else largest_factor(n, lanes)


def dense_pack(data: Tensor, weight: Tensor, bias: Optional[Tensor] = None,
               out_dtype: Optional[str] = None) -> Tensor:
    """``topi.nn.dense_pack`` with the ``dense_pack.x86`` knobs on its config. ``weight`` is
    either ``(N, K)``, packed in the kernel to ``NK{bn}n`` with ``bn = tile_x[-1]`` (stage
    ``packed_weight``), or already packed, ``(N // bn, K, bn)``, as a graph compiler packs a
    constant weight once ahead of time: then ``tile_x[-1]`` is ``bn``."""
    cfg, workload = get_config("dense_pack.x86", (data, weight, bias, out_dtype))
    m, k = get_const_tuple(data.shape)
    prepacked = weight.ndim == 3
    if prepacked:
        w_bn = get_const_int(weight.shape[2])
        n = get_const_int(weight.shape[0]) * w_bn
    else:
        n = get_const_int(weight.shape[0])
    cfg.define_split("tile_y", m, num_outputs=3)
    cfg.define_split("tile_x", n, num_outputs=3,
                     filter=(lambda e: e.size[-1] == w_bn) if prepacked else None)
    cfg.define_split("tile_k", k, num_outputs=2)
    if cfg.is_fallback:
        cfg.fallback_split("tile_y", [-1, 1, 8 if largest_factor(m, 8) > 1 else 1])
        cfg.fallback_split("tile_x", [-1, 1, w_bn if prepacked else
                                      fallback_pack_block(n, data.dtype)])
        cfg.fallback_split("tile_k", [-1, 4])
    bn = cfg["tile_x"].size[-1]
    if prepacked:
        if bn != w_bn:
            raise TopiError(f"dense_pack: the config's tile_x[-1] = {bn} differs from the "
                            f"pre-packed weight's block {w_bn}")
        packed = weight
    else:
        packed = layout_transform(weight, "NK", f"NK{bn}n")
        packed.op.name = "packed_weight"
    out = _nn_dense_pack(data, packed, bias, out_dtype)
    cfg.add_flop(2 * m * n * k)
    out.op.attrs["workload"] = workload
    return out


def schedule_dense_pack(outs) -> Schedule:
    """Schedule of :func:`dense_pack`: ``tile_y x tile_x`` output tiles over a parallel
    outer loop, each accumulated in registers (a ``tile_y[-1]`` x ``tile_x[-1]`` block,
    vectorized along the packed columns), the reduction split by ``tile_k``."""
    s, C, Out = _inline_and_find(outs, "dense_pack")
    cfg = config_of(Out)
    packed = C.op.input_tensors[1]
    if packed.op.name == "packed_weight":  # packed in the kernel, not ahead of time
        # not vectorized along zb: that reads a strided gather per vector (packing 3072x768
        # alone: 16 ms, against 0.6 ms for the scalar copy loop; the 128x768x3072 kernel
        # 27.5 -> 25 ms on 2 loaded cores)
        z, _, _ = s[packed].op.axis
        s[packed].parallel(z)
    CC = s.cache_write(C, "global")
    if Out is not C:
        s[C].compute_inline()
        stage = Out
    else:
        stage = C
    y, x = s[stage].op.axis
    yt, yo, yi = cfg["tile_y"].apply(s, stage, y)
    xt, xo, xi = cfg["tile_x"].apply(s, stage, x)
    # column blocks outermost: one block of the packed weight stays in cache while every
    # row tile of the data passes over it
    s[stage].reorder(xt, yt, yo, xo, yi, xi)
    s[stage].parallel(s[stage].fuse(xt, yt))
    xyo = s[stage].fuse(yo, xo)
    s[stage].unroll(yi)
    s[stage].vectorize(xi)
    s[CC].compute_at(s[stage], xyo)
    cy, cx = s[CC].op.axis
    (k,) = s[CC].op.reduce_axis
    ko, ki = cfg["tile_k"].apply(s, CC, k)
    s[CC].reorder(ko, ki, cy, cx)
    s[CC].unroll(ki)
    s[CC].unroll(cy)
    s[CC].vectorize(cx)
    return s


# -------------------------------------------------------------------------------- templates
def _tensor_arg(x, name: str) -> Optional[Tensor]:
    if x is None or isinstance(x, Tensor):
        return x
    if isinstance(x, tuple) and len(x) == 3 and x[0] == "TENSOR":
        return placeholder(tuple(x[1]), x[2], name=name)
    raise TopiError(f"expected a tensor argument for {name}, got {x!r}")


@autotvm.template("dense_nopack.x86")
def _dense_nopack_template(data, weight, bias=None, out_dtype=None):
    data, weight = _tensor_arg(data, "data"), _tensor_arg(weight, "weight")
    bias = _tensor_arg(bias, "bias")
    out = dense_nopack(data, weight, bias, out_dtype)
    args = [data, weight] + ([bias] if bias is not None else []) + [out]
    return schedule_dense_nopack(out), args


@autotvm.template("dense_pack.x86")
def _dense_pack_template(data, weight, bias=None, out_dtype=None):
    data, weight = _tensor_arg(data, "data"), _tensor_arg(weight, "weight")
    bias = _tensor_arg(bias, "bias")
    if autotvm.GLOBAL_SCOPE.in_tuning and weight.ndim == 2:
        # measured as a network runs it: AlterOpLayout packs a constant weight once at build
        # time, so a config's time is the product's alone (packing 3072x768 in the kernel
        # made dense_pack measure 6.0 ms against 3.0 ms pre-packed, and lose to nopack)
        bn = autotvm.get_config()["tile_x"].size[-1]
        n, k = get_const_tuple(weight.shape)
        weight = placeholder((n // bn, k, bn), weight.dtype, name="weight")
    out = dense_pack(data, weight, bias, out_dtype)
    args = [data, weight] + ([bias] if bias is not None else []) + [out]
    return schedule_dense_pack(out), args
