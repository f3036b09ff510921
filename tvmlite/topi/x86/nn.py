"""x86 schedules of pooling, softmax and reductions: the independent outer loops fused and
parallel, per-row intermediates computed at that loop."""
from __future__ import annotations

from ...te.operation import ComputeOp
from ...te.schedule import Schedule, create_schedule
from ...te.tensor import Tensor
from ...tir.expr import IntImm
from ..generic.schedules import Outs, _default_schedule, _outs
from ..utils import find_op, walk_ops
from .injective import _PARALLEL_MIN, schedule_injective_from_existing, vector_width
from .utils import largest_factor, vector_lanes


def _find(out: Tensor, pred):
    return find_op([out], pred)


def _parallel_outer(s: Schedule, out: Tensor, n_outer: int, parallel: bool = True):
    axes = list(s[out].op.axis)
    outer = s[out].fuse(*axes[:n_outer]) if n_outer > 1 else axes[0]
    if parallel:
        s[out].parallel(outer)
    return outer, axes[n_outer:]


def _native_width(extent: int, lanes: int):
    """One vector register's lanes (or a half, a quarter) dividing ``extent``: a wider vector
    body with long expressions (fast_exp) compiles to much slower code."""
    return next((w for w in (lanes, lanes // 2, lanes // 4) if w > 1 and extent % w == 0
                 and extent >= w), None)


def _vectorize_last(s: Schedule, out: Tensor, axis, native: bool = False) -> None:
    ext = axis.dom.extent
    if not isinstance(ext, IntImm):
        return
    lanes = vector_lanes(out.dtype)
    width = _native_width(ext.value, lanes) if native else vector_width(ext.value, lanes)
    if width is None:
        return
    if width < ext.value:
        _, axis = s[out].split(axis, factor=width)
    s[out].vectorize(axis)


def schedule_pool(outs: Outs, layout: str = "NCHW") -> Schedule:
    """Pooling: padding inlined; the window reduction (and the average's sum) computed at
    a fused, parallel outer loop: NCHW with at least 8 images x channels parallelizes over
    those alone (one plane of sums per iteration; the row loop inside partitions into
    guard-free rows), other layouts over all axes but the innermost. A packed layout
    (``NCHW16c``) also vectorizes its channel block, a channels-last one (``NHWC``) its
    channels (inside the window loops)."""
    outs = _outs(outs)
    s = _default_schedule(outs, True)
    for out in outs:
        pool = _find(out, lambda op: "pool_" in op.tag)
        if pool is None or out.ndim < 2:
            continue
        # a fused (n, c, h) loop hides the row from loop partition: each padded-row guard
        # stays a floormod test per tap (3.1x torch for avg 3x3; 10x with (n, c))
        n_par = out.ndim - 1
        if layout == "NCHW" and out.ndim == 4 and _const_size(out, 2) >= 8:
            n_par = 2
        elif out.ndim == 5:
            # packed (NCHW16c): (n, c, h) parallel, the row loop apart for the same reason
            # (ResNet's 3x3/2 max pool in NCHW32c: 118 -> 60 us)
            n_par = 3
        outer, rest = _parallel_outer(s, out, n_par)
        if pool is not out.op:
            s[pool].compute_at(s[out], outer)
        if out.ndim >= 5:
            _vectorize_last(s, out, rest[-1])
        elif layout.endswith("C") and out.ndim == len(layout):
            # channels last (NHWC): the window loops outside, the channels vectorized
            for op in {pool, out.op}:
                _vectorize_channels(s, op)
    return s


def _vectorize_channels(s: Schedule, op) -> None:
    """Vectorize the last (channel) axis of ``op``'s stage by a width dividing it (the
    whole axis when short), moved inside the stage's reduction loops."""
    stage = s[op]
    axis = stage.op.axis[-1]
    ext = axis.dom.extent
    if not isinstance(ext, IntImm):
        return
    width = vector_width(ext.value, vector_lanes(op.output(0).dtype))
    if width is None:
        return
    if width < ext.value:
        _, axis = stage.split(axis, factor=width)
    if stage.op.reduce_axis:
        stage.reorder(*stage.op.reduce_axis, axis)
    stage.vectorize(axis)


schedule_adaptive_pool = schedule_pool


# bytes of intermediates (exponentials) one block of softmax rows keeps: an L1-sized block
# amortises the per-block workspace allocations of a parallel loop body (five) over many
# short rows (1536x128: 8 KiB blocks 156 us, 32 KiB 132 us, torch 142 us, min of 21 on 2
# loaded cores; 64x4096: 212 -> 181 us)
_SOFTMAX_BLOCK_BYTES = 32768


def schedule_softmax(outs: Outs) -> Schedule:
    """softmax / fast_softmax / log_softmax along the last axis: rows fused and split into
    blocks of about 8 KiB of intermediates (the block loop parallel when the tensor is large
    enough to pay for a parallel region), each block's row maxima, exponentials and sums
    computed inside the block loop; the row reductions vectorized (rfactor into a vector of
    partial results, reduced across lanes at the end), exponentials and normalisation
    vectorized by one vector register."""
    outs = _outs(outs)
    s = _default_schedule(outs, True)
    for out in outs:
        axis = out.op.attrs.get("axis")
        if axis != out.ndim - 1 or out.ndim < 2:
            continue
        axes = list(s[out].op.axis)
        rows = s[out].fuse(*axes[:-1]) if out.ndim > 2 else axes[0]
        outer = rows
        n_rows = _const_size(out, out.ndim - 1)
        row_len = _const_size(out, out.ndim) // n_rows
        block = largest_factor(n_rows, max(1, _SOFTMAX_BLOCK_BYTES // (4 * max(row_len, 1))))
        if block > 1:
            outer, _ = s[out].split(rows, factor=block)
        if n_rows * row_len >= _PARALLEL_MIN:
            s[out].parallel(outer)
        for op in _softmax_stages(out):
            if op.reduce_axis:
                _vectorize_reduction(s, op, out, outer)
            s[op].compute_at(s[out], outer)
            if op.name == "T_softmax_exp":
                _vectorize_last(s, op.output(0), s[op].op.axis[-1], native=True)
        _vectorize_last(s, out, axes[-1], native=True)
    return s


def _const_size(t: Tensor, n_axes: int) -> int:
    """Elements in ``t``'s first ``n_axes`` axes (``1 << 40`` when one is symbolic)."""
    n = 1
    for d in t.shape[:n_axes]:
        if not isinstance(d, IntImm):
            return 1 << 40
        n *= d.value
    return n


def _vectorize_reduction(s: Schedule, op, out: Tensor, outer) -> None:
    """Split ``op``'s one reduction axis by a vector width that divides it and rfactor the
    inner part: a vector of partial results updated once per outer step (no serial
    dependency chain through one scalar), reduced across its lanes at the end."""
    if len(op.reduce_axis) != 1:
        return
    k = op.reduce_axis[0]
    ext = k.dom.extent
    if not isinstance(ext, IntImm):
        return
    # one vector register of partials: a wider one would leave a longer serial tail
    width = _native_width(ext.value, vector_lanes(op.output(0).dtype))
    if width is None or width == ext.value:
        return
    _, ki = s[op].split(k, factor=width)
    # the lane axis last, so that the partials of one row are contiguous
    rf = s.rfactor(op.output(0), ki, len(op.axis))
    s[rf].compute_at(s[out], outer)
    *spatial, lane = s[rf].op.axis
    (ko,) = s[rf].op.reduce_axis
    s[rf].reorder(*spatial, ko, lane)
    s[rf].vectorize(lane)


def _softmax_stages(out: Tensor):
    names = ("T_softmax_maxelem", "T_softmax_exp", "T_softmax_expsum")
    return _stages(out, lambda op: op.name in names)


def schedule_layer_norm(outs: Outs) -> Schedule:
    """layer_norm / instance_norm over trailing axes (``topi.nn.layer_norm``'s stages
    ``*_mean``, ``*_var``): the leading axes fused into rows, split into blocks of about
    ``_SOFTMAX_BLOCK_BYTES`` of data (the block loop parallel when large enough), each block's
    means and variances computed inside it with vectorized reductions (rfactor), the
    normalisation vectorized. Other axis choices keep :func:`schedule_reduce`'s schedule."""
    outs = _outs(outs)
    s = _default_schedule(outs, True)
    for out in outs:
        stats = _stages(out, lambda op: isinstance(op, ComputeOp) and bool(op.reduce_axis)
                        and op.name.endswith(("_mean", "_var")))
        n_keep = len(stats[0].axis) if len(stats) == 2 else -1
        if n_keep < 1 or n_keep >= out.ndim or any(len(op.axis) != n_keep for op in stats):
            if out.ndim >= 1:
                _parallel_outer(s, out, out.ndim)
            continue
        axes = list(s[out].op.axis)
        rows = s[out].fuse(*axes[:n_keep]) if n_keep > 1 else axes[0]
        inner = s[out].fuse(*axes[n_keep:]) if out.ndim - n_keep > 1 else axes[-1]
        n_rows = _const_size(out, n_keep)
        row_len = _const_size(out, out.ndim) // n_rows
        block = largest_factor(n_rows, max(1, _SOFTMAX_BLOCK_BYTES // (4 * max(row_len, 1))))
        outer = s[out].split(rows, factor=block)[0] if block > 1 else rows
        if n_rows * row_len >= _PARALLEL_MIN:
            s[out].parallel(outer)
        for op in stats:
            if len(op.reduce_axis) > 1:
                s[op].fuse(*op.reduce_axis)
            _vectorize_reduction(s, s[op].op, out, outer)
            s[op].compute_at(s[out], outer)
        width = _native_width(row_len, vector_lanes(out.dtype))
        if width is not None:
            if width < row_len:
                inner = s[out].split(inner, factor=width)[1]
            s[out].vectorize(inner)
    return s


def _stages(out: Tensor, pred):
    """The ops feeding ``out`` (itself included) for which ``pred`` holds."""
    return [op for op in walk_ops([out]) if pred(op)]


def schedule_reduce(outs: Outs) -> Schedule:
    """Reductions: injective producers inlined, the output's axes fused and parallel."""
    outs = _outs(outs)
    s = _default_schedule(outs, True)
    for out in outs:
        if out.ndim >= 1:
            _parallel_outer(s, out, out.ndim)
    return s


_BN_PARAMS = ("T_batch_norm_scale", "T_batch_norm_shift")


def schedule_batch_norm(outs: Outs) -> Schedule:
    """Inference batch norm (``topi.nn.batch_norm``'s output, element-wise consumers fused):
    the per-channel scale and shift computed once, before the main loop; the axes up to the
    channel fused and parallel, the axes after it fused into one contiguous run per channel
    and vectorized by one vector register (a channels-last layout vectorizes the channels)."""
    outs = _outs(outs)
    s = create_schedule([t.op for t in outs])
    out_ops = [t.op for t in outs]
    for st in s.stages:
        op = st.op
        if op in out_ops or not isinstance(op, ComputeOp) or op.reduce_axis \
                or op.name in _BN_PARAMS:
            continue
        st.compute_inline()
    for out in outs:
        bn = _find(out, lambda op: op.name == "T_batch_norm")
        if bn is None or "axis" not in bn.attrs:
            schedule_injective_from_existing(s, out)
            continue
        axis = bn.attrs["axis"]
        axes = list(s[out].op.axis)
        inner_axes = axes[axis + 1:] or [axes[axis]]
        outer_axes = axes[:axis + 1] if axis + 1 < len(axes) else axes[:axis]
        outer = s[out].fuse(*outer_axes) if len(outer_axes) > 1 else \
            (outer_axes[0] if outer_axes else None)
        inner = s[out].fuse(*inner_axes) if len(inner_axes) > 1 else inner_axes[0]
        lanes = vector_lanes(out.dtype)
        run = _const_size(out, len(axes)) // max(1, _const_size(out, len(axes) - len(inner_axes)))
        if run > lanes:
            _, inner = s[out].split(inner, factor=lanes)
        if run > 1:
            s[out].vectorize(inner)
        if outer is not None and _const_size(out, len(axes)) >= _PARALLEL_MIN:
            s[out].parallel(outer)
    return s
