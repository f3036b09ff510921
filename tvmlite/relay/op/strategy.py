"""Operator strategies: for each relay op and target key, its TOPI compute and schedule.

``fcompute(attrs, inputs, out_type) -> [te.Tensor]`` calls the op's one TOPI definition;
``fschedule(attrs, outs, target) -> te.Schedule`` schedules a fused group whose anchor is
the op (its element-wise epilogue included). ``"cpu"`` (llvm, c) uses ``topi.x86``,
``"generic"`` the default TOPI schedules.
"""
from __future__ import annotations

import re
from typing import Any, Callable, Optional, Sequence, Tuple

from ... import topi
from ...autotvm.dispatch import DispatchContext, FallbackContext
from ...autotvm.task import args_to_workload
from ...error import TVMError
from ...target import Target
from ...topi import generic as _generic
from ...topi import x86 as _x86
from ...topi.utils import find_op
from . import tensor as _tensor_ops  # noqa: F401  (registers the ops strategies are added to)
from .nn import conv2d_layouts, conv_transpose_layouts, general_conv2d_layouts, pad4
from .registry import register_strategy


def _touches_bool(outs) -> bool:
    stack, seen = list(outs), set()
    while stack:
        t = stack.pop()
        if id(t) in seen:
            continue
        seen.add(id(t))
        if t.dtype == "bool":
            return True
        stack.extend(t.op.input_tensors)
    return False


def _x86_injective(outs):
    # the C backend has no bool vectors: a group reading or writing bools keeps the generic
    # (scalar) schedule
    if _touches_bool(outs):
        return _generic.schedule_injective(outs)
    return _x86.schedule_injective(outs)


def _injective_strategies(name: str, fcompute) -> None:
    register_strategy(name, "cpu", fcompute, lambda attrs, outs, tgt: _x86_injective(outs))
    register_strategy(name, "generic", fcompute, lambda attrs, outs, tgt:
                      _generic.schedule_injective(outs))


def _unary(fn):
    return lambda attrs, ins, ty: [fn(ins[0])]


def _binary(fn):
    return lambda attrs, ins, ty: [fn(ins[0], ins[1])]


_injective_strategies("add", _binary(topi.add))
_injective_strategies("subtract", _binary(topi.subtract))
_injective_strategies("multiply", _binary(topi.multiply))
_injective_strategies("divide", _binary(topi.divide))
_injective_strategies("nn.relu", lambda attrs, ins, ty: [topi.nn.relu(ins[0])])
_injective_strategies("reshape", lambda attrs, ins, ty: [topi.reshape(ins[0], ty.shape)])
_injective_strategies("transpose", lambda attrs, ins, ty: [topi.transpose(
    ins[0], None if attrs.axes is None else list(attrs.axes))])
_injective_strategies("concatenate", lambda attrs, ins, ty: [topi.concatenate(
    list(ins), attrs.axis)])
_injective_strategies("nn.batch_flatten", lambda attrs, ins, ty: [topi.nn.batch_flatten(
    ins[0])])


def _bias_add(attrs, ins, ty):
    data, bias = ins
    axis = attrs.axis % data.ndim
    trailing = data.ndim - axis - 1
    if trailing:
        bias = topi.expand_dims(bias, 1, trailing)
    return [topi.add(data, bias)]


_injective_strategies("nn.bias_add", _bias_add)


def _batch_norm(attrs, ins, ty):
    return topi.nn.batch_norm(*ins, axis=attrs.axis, epsilon=attrs.epsilon,
                              center=attrs.center, scale=attrs.scale)


_injective_strategies("nn.batch_norm", _batch_norm)


# ------------------------------------------------------------------------------------ conv2d
def _conv_kind(attrs, data, weight) -> str:
    """"conv", "depthwise" (groups = input channels, one input channel per group) or
    "group"."""
    groups = attrs.groups
    if groups == 1:
        return "conv"
    dl, kl = conv2d_layouts(attrs)
    c = topi.utils.get_const_int(data.shape[dl.index("C")])
    if groups == c and topi.utils.get_const_int(weight.shape[kl.index("I")]) == 1:
        return "depthwise"
    return "group"


def _relayout(weight, src: str, dst: str):
    """``weight`` (layout ``src``) transposed to ``dst`` (both orders of the same letters)."""
    if src == dst:
        return weight
    return topi.transpose(weight, [src.index(x) for x in dst])


def _packed_conv2d(attrs) -> bool:
    """Whether an ``nn.conv2d`` is a packed one (classic's NCHW{c}c data, OIHW{i}i{o}o kernel
    with i = c, groups 1), computed by ``conv2d_NCHWc``."""
    d = re.fullmatch(r"NCHW(\d+)c", attrs.get("data_layout") or "")
    k = re.fullmatch(r"OIHW(\d+)i(\d+)o", attrs.get("kernel_layout") or "")
    o = re.fullmatch(r"NCHW(\d+)c", attrs.get("out_layout") or attrs.get("data_layout") or "")
    return (d is not None and k is not None and o is not None and int(attrs.groups) == 1
            and d.group(1) == k.group(1) and o.group(1) == k.group(2))


def _relaid_conv2d(fcompute, attrs, ins, ty):
    """An ``nn.conv2d`` in layouts beyond the computed ones (``NCHW4n4c`` data, an
    ``OIHW4o4i`` kernel, another output layout): the NCHW / OIHW convolution between layout
    transforms."""
    from ..expr import Attrs
    data, weight = ins
    dl = attrs.get("data_layout") or "NCHW"
    kl = attrs.get("kernel_layout") or "OIHW"
    ol = attrs.get("out_layout") or dl
    plain = Attrs({**dict(attrs.items()), "data_layout": "NCHW", "kernel_layout": "OIHW",
                   "out_layout": ""})
    out = fcompute(plain, [topi.layout_transform(data, dl, "NCHW"),
                           topi.layout_transform(weight, kl, "OIHW")], ty)[0]
    return [topi.layout_transform(out, "NCHW", ol)]


def _conv2d_compute(x86: bool):
    def f(attrs, ins, ty):
        data, weight = ins
        if not _packed_conv2d(attrs) and general_conv2d_layouts(attrs):
            return _relaid_conv2d(f, attrs, ins, ty)
        if _packed_conv2d(attrs):
            fn = _x86.conv2d_NCHWc if x86 else topi.nn.conv2d_NCHWc
            return [fn(data, weight, attrs.strides, pad4("nn.conv2d", attrs.padding),
                       attrs.dilation, attrs.data_layout,
                       attrs.out_layout or attrs.data_layout,
                       attrs.out_dtype or ty.dtype)]
        dl, kl = conv2d_layouts(attrs)
        pad = pad4("nn.conv2d", attrs.padding)
        dt = attrs.out_dtype or ty.dtype
        kind = _conv_kind(attrs, data, weight)
        args = (attrs.strides, pad, attrs.dilation)
        if dl == "NHWC":
            if kind == "depthwise":
                # (KH, KW, C*M, 1) in HWOI is TOPI's (KH, KW, C, M) in the same order
                w = _relayout(weight, kl, "HWOI")
                kh, kw, o, _ = (topi.utils.get_const_int(d) for d in w.shape)
                c = topi.utils.get_const_int(data.shape[3])
                w = topi.reshape(w, (kh, kw, c, o // c))
                return [topi.nn.depthwise_conv2d_nhwc(data, w, *args, out_dtype=dt)]
            w = _relayout(weight, kl, "HWIO")
            if kind == "group":
                return [topi.nn.group_conv2d_nhwc(data, w, *args, attrs.groups, out_dtype=dt)]
            return [topi.nn.conv2d_nhwc(data, w, *args, out_dtype=dt)]
        weight = _relayout(weight, kl, "OIHW")
        if kind == "conv" and x86 and _x86.int8_conv2d_applicable(data.dtype, weight.dtype, dt) \
                and all(isinstance(d, int) for d in topi.utils.get_const_tuple(data.shape)):
            # classic conv2d_nchw_int8.x86: the CPU's 8-bit dot-product instructions
            return [_x86.conv2d_nchw_int8(data, weight, *args, out_dtype=dt)]
        if kind == "conv":
            if x86 and _x86.winograd_eligible(weight.shape, attrs.strides, attrs.dilation,
                                              attrs.groups, data.dtype):
                # classic's strategies add the Winograd implementation for 3x3 stride-1
                # convolutions: the faster tuned one runs, both give tasks
                return [select_implementation(_CONV2D_X86_NCHW, (data, weight) + args + (dt,))]
            fn = _x86.conv2d_nchw if x86 else topi.nn.conv2d_nchw
            return [fn(data, weight, *args, out_dtype=dt)]
        if kind == "depthwise":
            # relay's (C*M, 1, KH, KW) weight is TOPI's (C, M, KH, KW) in the same order
            c = topi.utils.get_const_int(data.shape[1])
            o, _, kh, kw = (topi.utils.get_const_int(d) for d in weight.shape)
            w = topi.reshape(weight, (c, o // c, kh, kw))
            return [topi.nn.depthwise_conv2d_nchw(data, w, *args, out_dtype=dt)]
        return [topi.nn.group_conv2d_nchw(data, weight, *args, attrs.groups, out_dtype=dt)]
    return f


#: the default schedule of each 2-D convolution TOPI compute (by its tag)
_CONV2D_GENERIC_SCHEDULES = {
    "depthwise_conv2d_nchw": _generic.schedule_depthwise_conv2d_nchw,
    "group_conv2d_nchw": _generic.schedule_group_conv2d_nchw,
    "conv2d_nhwc": _generic.schedule_conv2d_nhwc,
    "depthwise_conv2d_nhwc": _generic.schedule_depthwise_conv2d_nhwc,
    "group_conv2d_nhwc": _generic.schedule_conv2d_nhwc,
    "conv2d_NCHWc": _generic.schedule_conv2d_NCHWc,
}
#: the x86 ("cpu") schedules that replace those (classic ``conv2d_nhwc.x86``); plain and
#: depthwise NCHW convolutions become NCHWc ones through AlterOpLayout
_CONV2D_X86_SCHEDULES = {
    **_CONV2D_GENERIC_SCHEDULES,
    "conv2d_nhwc": _x86.schedule_conv2d_nhwc,
    "depthwise_conv2d_nhwc": _x86.schedule_depthwise_conv2d_nhwc,
    "group_conv2d_nhwc": _x86.schedule_group_conv2d_nhwc,
    "conv2d_NCHWc": _x86.schedule_conv2d_NCHWc,
    "conv2d_nchw_winograd": _x86.schedule_conv2d_nchw_winograd,
    "conv2d_NCHWc_int8": _x86.schedule_conv2d_nchw_int8,
}
#: the x86 implementations of a plain NCHW convolution that Winograd can compute, the
#: default first
_CONV2D_X86_NCHW = (("conv2d_NCHWc.x86", _x86.conv2d_nchw),
                    ("conv2d_nchw_winograd.x86", _x86.conv2d_nchw_winograd))


def _conv2d_schedule(x86: bool):
    table = _CONV2D_X86_SCHEDULES if x86 else _CONV2D_GENERIC_SCHEDULES

    def f(attrs, outs, tgt):
        sched = table.get(_anchor_tag(outs))
        if sched is not None:
            return sched(outs)
        return (_x86.schedule_conv2d_nchw if x86 else _generic.schedule_conv2d_nchw)(outs)
    return f


def _anchor_tag(outs) -> str:
    """The tag of the first non-injective stage under ``outs``."""
    op = find_op(outs, lambda op: op.tag and not topi.tag.is_injective(op.tag))
    return "" if op is None else op.tag


register_strategy("nn.conv2d", "cpu", _conv2d_compute(True), _conv2d_schedule(True))
register_strategy("nn.conv2d", "generic", _conv2d_compute(False), _conv2d_schedule(False))


# --------------------------------------------------------------- choice of implementations
def _tuned_cost(workload) -> Optional[float]:
    """The mean cost of the best tuned record the dispatch contexts hold for ``workload``
    (None when only a fallback config would be given)."""
    keys = list(getattr(Target.current(allow_none=True), "keys", ()) or ()) + [""]
    ctx = DispatchContext.current
    while ctx is not None and not isinstance(ctx, FallbackContext):
        best = getattr(ctx, "best_by_targetkey", {})
        for key in keys:
            if (key, workload) in best:
                costs = best[(key, workload)][1].costs
                return sum(costs) / len(costs)
        ctx = ctx._old_ctx
    return None


def select_implementation(impls: Sequence[Tuple[str, Callable]], args: Sequence[Any]):
    """Call the implementation of an op (``(autotvm task name, topi compute)``, the default
    first) that classic relay picks: the one whose tuned record is fastest, else the first.
    Under task extraction every implementation is computed, so each gives its task."""
    if getattr(DispatchContext.current, "trace_all_implementations", False):
        return [fn(*args) for _, fn in impls][0]
    return choose_implementation(impls, args)[1](*args)


def choose_implementation(impls: Sequence[Tuple[str, Callable]],
                          args: Sequence[Any]) -> Tuple[str, Callable]:
    """The ``(name, compute)`` of ``impls`` whose tuned record for ``args`` is fastest, else
    the first."""
    chosen, best = impls[0], None
    for name, fn in impls:
        cost = _tuned_cost(args_to_workload(args, name))
        if cost is not None and (best is None or cost < best):
            chosen, best = (name, fn), cost
    return chosen


# ------------------------------------------------------------------------------------- dense
_DENSE_X86 = (("dense_nopack.x86", _x86.dense_nopack), ("dense_pack.x86", _x86.dense_pack))
#: a constant weight is packed once at build time (AlterOpLayout), so there the packed
#: implementation is the default (classic relay ranks it higher on x86 too)
DENSE_X86_CONSTANT_WEIGHT = tuple(reversed(_DENSE_X86))


def _dense_compute(x86: bool):
    def f(attrs, ins, ty):
        data = ins[0]
        lead = [topi.utils.get_const_int(d) for d in data.shape[:-1]]
        if len(lead) != 1:  # (..., in): the dense of the rows, reshaped back
            rows = 1
            for d in lead:
                rows *= d
            data = topi.reshape(data, (rows, topi.utils.get_const_int(data.shape[-1])))
        args = (data, ins[1], None, attrs.out_dtype or ty.dtype)
        if len(lead) == 1:
            return [select_implementation(_DENSE_X86, args) if x86 else topi.nn.dense(*args)]
        # the x86 templates schedule a 2-D output: the reshaped one takes the default
        return [topi.reshape(topi.nn.dense(*args),
                             lead + [topi.utils.get_const_int(ins[1].shape[0])])]
    return f


def _dense_x86_schedule(attrs, outs, tgt):
    if _anchor_tag(outs) == "dense_pack":
        return _x86.schedule_dense_pack(outs)
    anchor = find_op(outs, lambda op: op.tag and not topi.tag.is_injective(op.tag))
    if anchor is not None and "workload" in (getattr(anchor, "attrs", None) or {}):
        return _x86.schedule_dense_nopack(outs)
    return _generic.schedule_dense(outs)  # an N-D dense: topi.nn.dense between reshapes


register_strategy("nn.dense", "cpu", _dense_compute(True), _dense_x86_schedule)
register_strategy("nn.dense", "generic", _dense_compute(False),
                  lambda attrs, outs, tgt: _generic.schedule_dense(outs))


# ----------------------------------------------------------------------------------- pooling
def _pool_compute(pool_type: str):
    def f(attrs, ins, ty):
        return [topi.nn.pool2d(ins[0], attrs.pool_size, attrs.strides, attrs.dilation,
                               pad4("pool2d", attrs.padding), pool_type, attrs.ceil_mode,
                               attrs.layout, attrs.get("count_include_pad", True))]
    return f


for _name, _kind in (("nn.max_pool2d", "max"), ("nn.avg_pool2d", "avg")):
    register_strategy(_name, "cpu", _pool_compute(_kind),
                      lambda attrs, outs, tgt: _x86.schedule_pool(outs, attrs.layout))
    register_strategy(_name, "generic", _pool_compute(_kind),
                      lambda attrs, outs, tgt: _generic.schedule_pool(outs))


def _global_pool(kind: str):
    def f(attrs, ins, ty):
        return [topi.nn.global_pool(ins[0], kind, attrs.layout)]
    return f


for _kind in ("avg", "max"):
    register_strategy(f"nn.global_{_kind}_pool2d", "cpu", _global_pool(_kind),
                      lambda attrs, outs, tgt: _x86.schedule_adaptive_pool(outs, attrs.layout))
    register_strategy(f"nn.global_{_kind}_pool2d", "generic", _global_pool(_kind),
                      lambda attrs, outs, tgt: _generic.schedule_adaptive_pool(outs))


# ----------------------------------------------------------------------------------- softmax
def _softmax(attrs, ins, ty):
    return [topi.nn.softmax(ins[0], attrs.axis)]


register_strategy("nn.softmax", "cpu", _softmax,
                  lambda attrs, outs, tgt: _x86.schedule_softmax(outs))
register_strategy("nn.softmax", "generic", _softmax,
                  lambda attrs, outs, tgt: _generic.schedule_softmax(outs))
register_strategy("nn.fast_softmax", "cpu",
                  lambda attrs, ins, ty: [topi.nn.fast_softmax(ins[0], attrs.axis)],
                  lambda attrs, outs, tgt: _x86.schedule_softmax(outs))
register_strategy("nn.fast_softmax", "generic",
                  lambda attrs, ins, ty: [topi.nn.fast_softmax(ins[0], attrs.axis)],
                  lambda attrs, outs, tgt: _generic.schedule_softmax(outs))


# ------------------------------------------------------- element-wise, broadcast, transform
from . import image as _image_ops  # noqa: E402,F401  (registers image.*)
from . import transform as _transform_ops  # noqa: E402,F401  (registers the transforms)

for _name in (_tensor_ops.UNARY_OPS + _tensor_ops.MATH_OPS + _tensor_ops.PREDICATE_OPS
              + ("logical_not",)):
    _injective_strategies(_name, _unary(getattr(topi, _name)))
for _name in _tensor_ops.FAST_MATH_OPS:
    _injective_strategies(_name, _unary(getattr(topi, _name)))
_injective_strategies("bitwise_not", _unary(topi.bitwise_not))
_injective_strategies("copy", _unary(topi.identity))
_injective_strategies("annotation.checkpoint", _unary(topi.identity))
for _name in _tensor_ops.ARITH_OPS + _tensor_ops.COMPARE_OPS + _tensor_ops.LOGICAL_OPS:
    _injective_strategies(_name, _binary(getattr(topi, _name)))
_injective_strategies("clip", lambda attrs, ins, ty: [topi.clip(ins[0], attrs.a_min,
                                                                attrs.a_max)])
_injective_strategies("cast", lambda attrs, ins, ty: [topi.cast(ins[0], attrs.dtype)])
_injective_strategies("cast_like", lambda attrs, ins, ty: [topi.cast(ins[0], ty.dtype)])
_injective_strategies("where", lambda attrs, ins, ty: [topi.where(*ins)])
_injective_strategies("reinterpret", lambda attrs, ins, ty: [topi.reinterpret(ins[0],
                                                                              attrs.dtype)])


def _matrix_set_diag(attrs, ins, ty):
    k = attrs.k1 if attrs.k1 == attrs.k2 else (attrs.k1, attrs.k2)
    align = (("RIGHT" if attrs.super_diag_right_align else "LEFT") + "_"
             + ("RIGHT" if attrs.sub_diag_right_align else "LEFT"))
    return [topi.matrix_set_diag(ins[0], ins[1], k, align)]


_injective_strategies("matrix_set_diag", _matrix_set_diag)
_injective_strategies("invert_permutation", lambda attrs, ins, ty: [topi.invert_permutation(
    ins[0])])
_injective_strategies("broadcast_to_like", lambda attrs, ins, ty: [topi.broadcast_to(
    ins[0], list(ins[1].shape))])
_injective_strategies("sliding_window", lambda attrs, ins, ty: [topi.sliding_window(
    ins[0], attrs.axis, list(attrs.window_shape), list(attrs.strides))])
_injective_strategies("shape_of", lambda attrs, ins, ty: [topi.shape(ins[0], attrs.dtype)])
_injective_strategies("ndarray_size", lambda attrs, ins, ty: [topi.ndarray_size(
    ins[0], attrs.dtype)])
_injective_strategies("nn.leaky_relu", lambda attrs, ins, ty: [topi.nn.leaky_relu(
    ins[0], attrs.alpha)])
_injective_strategies("strided_slice", lambda attrs, ins, ty: [topi.strided_slice(
    ins[0], attrs.begin, attrs.end, attrs.strides, attrs.axes,
    attrs.get("slice_mode") or "end")])
_injective_strategies("take", lambda attrs, ins, ty: [topi.take(
    ins[0], ins[1], attrs.axis, mode=attrs.mode)])
_injective_strategies("squeeze", lambda attrs, ins, ty: [topi.squeeze(
    ins[0], None if attrs.axis is None else list(attrs.axis))])
_injective_strategies("expand_dims", lambda attrs, ins, ty: [topi.expand_dims(
    ins[0], attrs.axis, attrs.num_newaxis)])
_injective_strategies("broadcast_to", lambda attrs, ins, ty: [topi.broadcast_to(
    ins[0], list(attrs.shape))])
def _pad(attrs, ins, ty):
    data = ins[0]
    width = [tuple(w) for w in attrs.pad_width]
    if any(min(w) < 0 for w in width):  # negative widths crop first
        shape = topi.utils.get_const_tuple(data.shape)
        data = topi.strided_slice(data, [max(-lo, 0) for lo, _ in width],
                                  [d - max(-hi, 0) if isinstance(d, int) else d + min(hi, 0)
                                   for d, (_, hi) in zip(shape, width)])
        width = [(max(lo, 0), max(hi, 0)) for lo, hi in width]
    value = ins[1]() if len(ins) == 2 else attrs.pad_value
    return [topi.nn.pad(data, [w[0] for w in width], [w[1] for w in width], value,
                        pad_mode=attrs.get("pad_mode") or "constant")]


_injective_strategies("nn.pad", _pad)
for _n in (1, 2, 3):
    _injective_strategies(f"image.resize{_n}d", lambda attrs, ins, ty, _n=_n: [getattr(
        topi.image, f"resize{_n}d")(
        ins[0], attrs.roi, attrs.size, attrs.layout, attrs.method,
        attrs.coordinate_transformation_mode, attrs.rounding_method, attrs.cubic_alpha,
        attrs.cubic_exclude, attrs.extrapolation_value, attrs.out_dtype or None,
        scales=attrs.get("scales"))])
_injective_strategies("image.crop_and_resize", lambda attrs, ins, ty: [
    topi.image.crop_and_resize(ins[0], ins[1], ins[2], attrs.crop_size, attrs.layout,
                               attrs.method, attrs.extrapolation_value,
                               attrs.out_dtype or None)])
_injective_strategies("image.affine_grid", lambda attrs, ins, ty: [topi.image.affine_grid(
    ins[0], attrs.target_shape)])
_injective_strategies("image.grid_sample", lambda attrs, ins, ty: [topi.image.grid_sample(
    ins[0], ins[1], attrs.method, attrs.layout, attrs.padding_mode, attrs.align_corners)])


# -------------------------------------------------------------------------------- reductions
def _red_axis(name: str, attrs, ndim: int):
    """The reduced axes of a reduction's attributes (``exclude``: all but ``axis``)."""
    if attrs.axis is None:
        return None
    axis = list(attrs.axis)
    if not attrs.get("exclude"):
        return axis
    from ._rel import norm_axis
    named = {norm_axis(name, int(a), ndim) for a in axis}
    return [d for d in range(ndim) if d not in named]


def _reduce_compute(name: str):
    def f(attrs, ins, ty):
        axis = _red_axis(name, attrs, ins[0].ndim)
        if name != "mean":
            return [getattr(topi, name)(ins[0], axis, attrs.keepdims)]
        data = ins[0]
        shape = topi.utils.get_const_tuple(data.shape)
        axes = range(len(shape)) if axis is None else [a % max(len(shape), 1) for a in axis]
        count = 1
        for a in set(axes):
            count *= shape[a]
        return [_wide_mean(data, axis, attrs.keepdims, count)]
    return f


def _wide_mean(data, axis, keepdims: bool, count, less: int = 0):
    """``sum(data over axis) / max(count - less, 1)``, accumulated in float32 for float16
    data (as classic: a float16 sum of many elements loses the small addends)."""
    dtype = data.dtype
    if dtype == "float16":
        data = topi.cast(data, "float32")
    out = _divide_by_count(topi.sum(data, axis, keepdims), count, data.dtype, less)
    return topi.cast(out, dtype) if dtype == "float16" else out


def _divide_by_count(total, count, dtype: str, less: int = 0):
    """``total / max(count - less, 1)``; ``count`` may be symbolic (the type inference of
    classic's dynamic shapes computes it)."""
    if isinstance(count, int):
        return topi.divide(total, _tir_const(float(max(count - less, 1)), dtype))
    from ...tir import op as _tir_op
    return topi.divide(total, _tir_op.cast(dtype, _tir_op.max(count - less, 1)))


def _tir_const(value, dtype: str):
    from ...tir import op as _tir_op
    return _tir_op.const(value, dtype)


def _reduce_schedules(name: str, fcompute, x86_schedule, generic_schedule) -> None:
    register_strategy(name, "cpu", fcompute, lambda attrs, outs, tgt: x86_schedule(outs))
    register_strategy(name, "generic", fcompute,
                      lambda attrs, outs, tgt: generic_schedule(outs))


for _name in ("sum", "mean", "max", "min"):
    _reduce_schedules(_name, _reduce_compute(_name), _x86.schedule_reduce,
                      _generic.schedule_reduce)
_reduce_schedules("nn.layer_norm", lambda attrs, ins, ty: [topi.nn.layer_norm(
    ins[0], ins[1] if attrs.scale else None, ins[2] if attrs.center else None,
    [attrs.axis], attrs.epsilon)], _x86.schedule_layer_norm, _generic.schedule_layer_norm)
_reduce_schedules("nn.log_softmax", lambda attrs, ins, ty: [topi.nn.log_softmax(
    ins[0], attrs.axis)], _x86.schedule_softmax, _generic.schedule_softmax)


_reduce_schedules("einsum", lambda attrs, ins, ty: [topi.einsum(attrs.equation, *ins)],
                  _x86.schedule_reduce, _generic.schedule_reduce)


# ----------------------------------------------------------------- transposed conv, matmul
def _conv_transpose(name: str, n: int, x86: bool):
    sp = "DHW"[3 - n:]

    def f(attrs, ins, ty):
        dl, kl = conv_transpose_layouts(name, attrs, n)
        if any(d != 1 for d in attrs.dilation):
            raise topi.utils.TopiError(f"{name}: dilation {tuple(attrs.dilation)} is not "
                                       "supported (only 1)")
        data = _relayout(ins[0], dl, "NC" + sp)
        weight = _relayout(ins[1], kl, "IO" + sp)
        dt = attrs.out_dtype or ins[0].dtype
        args = (data, weight, attrs.strides, attrs.padding, dt, attrs.output_padding)
        if attrs.groups != 1 and n != 2:
            raise topi.utils.TopiError(f"{name}: groups={attrs.groups} is not supported (only "
                                       "1)")
        if n == 1:
            out = topi.nn.conv1d_transpose_ncw(*args)
        elif n == 3:
            out = topi.nn.conv3d_transpose_ncdhw(*args)
        elif attrs.groups != 1:
            out = topi.nn.group_conv2d_transpose_nchw(*args, attrs.groups)
        else:  # classic x86: a packed convolution (conv2d_NCHWc.x86 tasks) of the dilated data
            out = (_x86 if x86 else topi.nn).conv2d_transpose_nchw(*args)
        return [_relayout(out, "NC" + sp, dl)]
    return f


def _conv_transpose_x86_schedule(attrs, outs, tgt):
    if _anchor_tag(outs) == "conv2d_NCHWc":
        return _x86.schedule_conv2d_transpose_nchw(outs)
    return _x86.schedule_direct_conv(outs)


for _n in (1, 2, 3):
    _name = f"nn.conv{_n}d_transpose"
    register_strategy(_name, "cpu", _conv_transpose(_name, _n, True),
                      _conv_transpose_x86_schedule)
    register_strategy(_name, "generic", _conv_transpose(_name, _n, False),
                      lambda attrs, outs, tgt: _generic.schedule_conv2d_transpose_nchw(outs))


def _batch_matmul_compute(x86: bool):
    def f(attrs, ins, ty):
        fn = _x86.batch_matmul if x86 else topi.nn.batch_matmul
        return [fn(ins[0], ins[1], None, attrs.out_dtype or None, attrs.transpose_a,
                   attrs.transpose_b)]
    return f


register_strategy("nn.batch_matmul", "cpu", _batch_matmul_compute(True),
                  lambda attrs, outs, tgt: _x86.schedule_batch_matmul(outs))
register_strategy("nn.batch_matmul", "generic", _batch_matmul_compute(False),
                  lambda attrs, outs, tgt: _generic.schedule_batch_matmul(outs))


# ------------------------------------------------------------ more reductions and transforms
def _plain_reduce(name: str):
    fn = getattr(topi, name)
    if name in ("argmax", "argmin"):
        return lambda attrs, ins, ty: [fn(ins[0], _red_axis(name, attrs, ins[0].ndim),
                                          attrs.keepdims, attrs.select_last_index)]
    return lambda attrs, ins, ty: [fn(ins[0], _red_axis(name, attrs, ins[0].ndim),
                                      attrs.keepdims)]


def _variance(attrs, ins, ty):
    data, m = ins
    axis = _red_axis("variance", attrs, data.ndim)
    shape = topi.utils.get_const_tuple(data.shape)
    axes = range(len(shape)) if axis is None else {a % max(len(shape), 1) for a in axis}
    count = 1
    for a in axes:
        count *= shape[a]
    diff = topi.subtract(data, m)
    return [_wide_mean(topi.multiply(diff, diff), axis, attrs.keepdims, count,
                       int(attrs.unbiased))]


for _name in ("prod", "all", "any", "argmax", "argmin"):
    _reduce_schedules(_name, _plain_reduce(_name), _x86.schedule_reduce,
                      _generic.schedule_reduce)
_reduce_schedules("variance", _variance, _x86.schedule_reduce, _generic.schedule_reduce)


def _cross_entropy(logits: bool):
    def f(attrs, ins, ty):
        p, t = ins
        x = p if logits else topi.log(p)
        total = topi.sum(topi.multiply(x, t))
        batch = _tir_const(float(topi.utils.get_const_tuple(p.shape)[0]), p.dtype)
        return [topi.divide(topi.negative(total), batch)]
    return f


_reduce_schedules("nn.cross_entropy", _cross_entropy(False), _x86.schedule_reduce,
                  _generic.schedule_reduce)
_reduce_schedules("nn.cross_entropy_with_logits", _cross_entropy(True), _x86.schedule_reduce,
                  _generic.schedule_reduce)


def _reshape_like(attrs, ins, ty):
    data, like = ins
    ds, ls = list(data.shape), list(like.shape)
    lhs_end = len(ds) if attrs.lhs_end is None else attrs.lhs_end
    rhs_end = len(ls) if attrs.rhs_end is None else attrs.rhs_end
    shape = ds[:attrs.lhs_begin] + ls[attrs.rhs_begin:rhs_end] + ds[lhs_end:]
    return [topi.reshape(data, [topi.utils.get_const_int(d) for d in shape])]


def _index_rank_check(attrs, ins):
    if attrs.index_rank is not None and \
            topi.utils.get_const_int(ins[1].shape[0]) != attrs.index_rank:
        raise topi.utils.TopiError(f"index_rank={attrs.index_rank} differs from "
                                   f"indices.shape[0] = {ins[1].shape[0]}")
    return topi.gather_nd(ins[0], ins[1], attrs.batch_dims)


_injective_strategies("stack", lambda attrs, ins, ty: [topi.stack(list(ins), attrs.axis)])
_injective_strategies("tile", lambda attrs, ins, ty: [topi.tile(ins[0], list(attrs.reps))])
_injective_strategies("repeat", lambda attrs, ins, ty: [topi.repeat(ins[0], attrs.repeats,
                                                                    attrs.axis)])
_injective_strategies("reverse", lambda attrs, ins, ty: [topi.flip(ins[0], attrs.axis)])
_injective_strategies("reverse_sequence", lambda attrs, ins, ty: [topi.reverse_sequence(
    ins[0], ins[1], attrs.seq_axis, attrs.batch_axis)])
_injective_strategies("gather", lambda attrs, ins, ty: [topi.gather(ins[0], attrs.axis,
                                                                    ins[1])])
_injective_strategies("gather_nd", lambda attrs, ins, ty: [_index_rank_check(attrs, ins)])
_injective_strategies("one_hot", lambda attrs, ins, ty: [topi.one_hot(
    ins[0], ins[1](), ins[2](), attrs.depth, attrs.axis, attrs.dtype)])
_injective_strategies("arange", lambda attrs, ins, ty: [topi.arange(
    attrs.start, attrs.stop, attrs.step, attrs.dtype)])
_injective_strategies("sequence_mask", lambda attrs, ins, ty: [topi.sequence_mask(
    ins[0], ins[1], attrs.mask_value, attrs.axis)])
_injective_strategies("trilu", lambda attrs, ins, ty: [topi.trilu(ins[0], ins[1](),
                                                                  attrs.upper)])
_injective_strategies("unravel_index", lambda attrs, ins, ty: [topi.unravel_index(
    ins[0], ins[1])])
_injective_strategies("full", lambda attrs, ins, ty: [topi.full(
    list(attrs.shape), attrs.dtype or ins[0].dtype, ins[0]())])
_injective_strategies("full_like", lambda attrs, ins, ty: [topi.full_like(ins[0], ins[1]())])
_injective_strategies("zeros", lambda attrs, ins, ty: [topi.full(list(attrs.shape),
                                                                 attrs.dtype, 0)])
_injective_strategies("ones", lambda attrs, ins, ty: [topi.full(list(attrs.shape),
                                                                attrs.dtype, 1)])
_injective_strategies("zeros_like", lambda attrs, ins, ty: [topi.full_like(ins[0], 0)])
_injective_strategies("ones_like", lambda attrs, ins, ty: [topi.full_like(ins[0], 1)])
_injective_strategies("reshape_like", _reshape_like)


# ------------------------------------------------------------------------ more nn operators
def _default_strategies(name: str, fcompute, schedule=_generic.schedule_reduce) -> None:
    """``fcompute`` with the default TOPI schedule (injective producers inlined) on every
    target: the operators without a tuned x86 schedule."""
    _reduce_schedules(name, fcompute, schedule, schedule)


def _conv_nd(attrs, ins, ty):
    n = ins[0].ndim - 2
    pad = list(attrs.padding)
    return [topi.nn.conv(ins[0], ins[1], attrs.strides, pad, attrs.dilation, attrs.groups,
                         attrs.data_layout, attrs.kernel_layout,
                         attrs.out_dtype or ins[0].dtype, op=f"nn.conv{n}d")]


def _dilation2d(attrs, ins, ty):
    layouts = {("NCHW", "IHW"): topi.image.dilation2d_nchw,
               ("NHWC", "HWI"): topi.image.dilation2d_nhwc}
    fn = layouts.get((attrs.data_layout, attrs.kernel_layout))
    if fn is None:
        raise topi.utils.TopiError(
            f"image.dilation2d: data_layout/kernel_layout must be NCHW/IHW or NHWC/HWI, got "
            f"{attrs.data_layout}/{attrs.kernel_layout}")
    # classic reads the first two strides and dilations (the H and W ones)
    return [fn(ins[0], ins[1], tuple(attrs.strides[:2]), tuple(attrs.padding),
               tuple(attrs.dilations[:2]), attrs.out_dtype or None)]


_default_strategies("image.dilation2d", _dilation2d)
_default_strategies("nn.conv1d", _conv_nd, _generic.schedule_conv2d_nchw)
_default_strategies("nn.conv3d", _conv_nd, _generic.schedule_conv2d_nchw)


def _pool_nd(n: int, pool_type: str):
    fn = topi.nn.pool1d if n == 1 else topi.nn.pool3d

    def f(attrs, ins, ty):
        return [fn(ins[0], attrs.pool_size, attrs.strides, attrs.dilation, attrs.padding,
                   pool_type, attrs.ceil_mode, attrs.layout,
                   attrs.get("count_include_pad", True))]
    return f


for _n in (1, 3):
    for _kind in ("max", "avg"):
        _default_strategies(f"nn.{_kind}_pool{_n}d", _pool_nd(_n, _kind),
                            _generic.schedule_pool)


def _adaptive_pool(n: int, pool_type: str):
    def f(attrs, ins, ty):
        data = ins[0]
        layout = attrs.layout
        size = list(attrs.output_size or ())
        if n == 1:
            if layout not in ("NCW", "NWC"):
                raise topi.utils.TopiError(f"adaptive_{pool_type}_pool1d: layout must be 'NCW' "
                                           f"or 'NWC', got {layout!r}")
            if data.ndim != 3:
                raise topi.utils.TopiError(f"adaptive_{pool_type}_pool1d: data must be 3-D, "
                                           f"got {data.ndim}-D")
            # pooled as a 2-D image of height 1
            shape = [topi.utils.get_const_int(d) for d in data.shape]
            w_ax = layout.index("W")
            size = [1, size[0] if size else shape[w_ax]]
            shape4 = shape[:w_ax] + [1] + shape[w_ax:]
            out = topi.nn.adaptive_pool(topi.reshape(data, shape4), size, pool_type,
                                        layout[:w_ax] + "H" + layout[w_ax:])
            oshape = list(shape)
            oshape[w_ax] = size[1]
            return [topi.reshape(out, oshape)]
        if n == 3:
            if len(size) == 1:
                size = size * 3
            if not size:
                size = [topi.utils.get_const_int(data.shape[layout.index(c)]) for c in "DHW"]
            return [topi.nn.adaptive_pool3d(data, size, pool_type, layout)]
        if not size:
            hw = [layout.index("H"), layout.index("W")] if "H" in layout else []
            size = [topi.utils.get_const_int(data.shape[k]) for k in hw] or [1]
        return [topi.nn.adaptive_pool(data, size if len(size) == 2 else size * 2, pool_type,
                                      layout)]
    return f


for _kind in ("avg", "max"):
    _default_strategies(f"nn.adaptive_{_kind}_pool3d", _adaptive_pool(3, _kind),
                        _generic.schedule_adaptive_pool)
for _n in (1, 2):
    for _kind in ("avg", "max"):
        # a 1-D pool is a 2-D one between reshapes: its layout (NWC) names the wrong axes
        register_strategy(f"nn.adaptive_{_kind}_pool{_n}d", "cpu", _adaptive_pool(_n, _kind),
                          (lambda attrs, outs, tgt: _x86.schedule_adaptive_pool(
                              outs, attrs.layout)) if _n == 2 else
                          (lambda attrs, outs, tgt: _x86.schedule_adaptive_pool(outs)))
        register_strategy(f"nn.adaptive_{_kind}_pool{_n}d", "generic",
                          _adaptive_pool(_n, _kind),
                          lambda attrs, outs, tgt: _generic.schedule_adaptive_pool(outs))


def _norm_axes(name: str, attrs, data):
    from ._rel import norm_axis
    axis = norm_axis(name, attrs.axis, data.ndim)
    if axis == 0:
        raise topi.utils.TopiError(f"{name}: axis must not be the batch axis 0")
    return axis, [k for k in range(1, data.ndim) if k != axis]


def _group_norm(name: str):
    def f(attrs, ins, ty):
        data, gamma, beta = ins
        axis, axes = _norm_axes(name, attrs, data)
        groups = attrs.get("num_groups")
        if groups is None:  # instance_norm: one group per channel
            groups = topi.utils.get_const_int(data.shape[axis])
        return [topi.nn.group_norm(data, gamma if attrs.scale else None,
                                   beta if attrs.center else None, groups, axis, axes,
                                   attrs.epsilon)]
    return f


for _name in ("nn.instance_norm", "nn.group_norm"):
    _reduce_schedules(_name, _group_norm(_name), _x86.schedule_reduce,
                      _generic.schedule_layer_norm)
_default_strategies("nn.lrn", lambda attrs, ins, ty: [topi.nn.lrn(
    ins[0], attrs.size, attrs.axis, attrs.alpha, attrs.beta, attrs.bias)],
    _generic.schedule_lrn)
_default_strategies("nn.l2_normalize", lambda attrs, ins, ty: [topi.nn.l2_normalize(
    ins[0], attrs.eps, attrs.axis)], _generic.schedule_l2_normalize)

_injective_strategies("nn.depth_to_space", lambda attrs, ins, ty: [topi.nn.depth_to_space(
    ins[0], attrs.block_size, attrs.layout, attrs.mode)])
_injective_strategies("nn.space_to_depth", lambda attrs, ins, ty: [topi.nn.space_to_depth(
    ins[0], attrs.block_size, attrs.layout)])
_injective_strategies("nn.mirror_pad", lambda attrs, ins, ty: [topi.nn.mirror_pad(
    ins[0], [w[0] for w in attrs.pad_width], [w[1] for w in attrs.pad_width], attrs.mode)])
_injective_strategies("nn.upsampling", lambda attrs, ins, ty: [topi.nn.upsampling(
    ins[0], attrs.scale_h, attrs.scale_w, attrs.layout, attrs.method, attrs.align_corners)])
_injective_strategies("nn.upsampling3d", lambda attrs, ins, ty: [topi.nn.upsampling3d(
    ins[0], attrs.scale_d, attrs.scale_h, attrs.scale_w, attrs.layout, attrs.method,
    attrs.coordinate_transformation_mode)])
_injective_strategies("nn.prelu", lambda attrs, ins, ty: [topi.nn.prelu(ins[0], ins[1],
                                                                        attrs.axis)])
# inference: the output and the mask are the data itself (SimplifyInference drops the op)
_injective_strategies("nn.dropout", lambda attrs, ins, ty: [topi.identity(ins[0]),
                                                            topi.full_like(ins[0], 1)])


def _matmul(attrs, ins, ty):
    """``nn.matmul``: a 2-D ``topi.matmul``; an N-D ``tensor_a`` (classic's relation allows
    one, ``transpose_a`` swapping its last two axes) is folded to 2-D around it."""
    a, b = ins
    dt = attrs.out_dtype or a.dtype
    if dt != a.dtype:
        a, b = topi.cast(a, dt), topi.cast(b, dt)
    if a.ndim <= 2:
        return [topi.matmul(a, b, attrs.transpose_a, attrs.transpose_b)]
    if attrs.transpose_a:
        a = topi.transpose(a, list(range(a.ndim - 2)) + [a.ndim - 1, a.ndim - 2])
    lead, k = list(a.shape[:-1]), a.shape[-1]
    rows = lead[0]
    for d in lead[1:]:
        rows = rows * d
    out = topi.matmul(topi.reshape(a, (rows, k)), b, False, attrs.transpose_b)
    return [topi.reshape(out, lead + [out.shape[1]])]


_default_strategies("nn.matmul", _matmul, _generic.schedule_dense)


def _bitpack(attrs, ins, ty):
    return [topi.nn.bitpack(ins[0], attrs.bits, attrs.pack_axis, attrs.bit_axis,
                            attrs.pack_type, attrs.name)]


def _bitserial_conv2d(attrs, ins, ty):
    data, weight = ins
    layouts = {"NCHW": ("OIHW", topi.nn.bitserial_conv2d_nchw),
               "NHWC": ("HWIO", topi.nn.bitserial_conv2d_nhwc)}
    kl, fn = layouts[attrs.data_layout]
    if attrs.kernel_layout != kl:
        raise TVMError(f"nn.bitserial_conv2d: {attrs.data_layout} data needs a {kl} kernel, "
                       f"got {attrs.kernel_layout!r}")
    return [fn(data, weight, attrs.strides, pad4("nn.bitserial_conv2d", attrs.padding),
               attrs.activation_bits, attrs.weight_bits, attrs.pack_dtype, attrs.out_dtype,
               attrs.unipolar)]


def _bitserial_dense(attrs, ins, ty):
    return [topi.nn.bitserial_dense(ins[0], ins[1], attrs.data_bits, attrs.weight_bits,
                                    attrs.pack_dtype, attrs.out_dtype or ins[0].dtype,
                                    attrs.unipolar)]


_injective_strategies("nn.bitpack", _bitpack)
_default_strategies("nn.bitserial_conv2d", _bitserial_conv2d)
_default_strategies("nn.bitserial_dense", _bitserial_dense)
def _scan_compute(fn):
    return lambda attrs, ins, ty: [fn(ins[0], attrs.axis, attrs.dtype, bool(attrs.exclusive))]


for _name in ("cumsum", "cumprod"):
    _default_strategies(_name, _scan_compute(getattr(topi, _name)), _generic.schedule_extern)
    register_strategy(_name, "gpu", _scan_compute(getattr(topi.cuda, _name)),
                      lambda attrs, outs, tgt: topi.cuda.schedule_scan(outs))
_default_strategies("scatter_elements", lambda attrs, ins, ty: [topi.scatter_elements(
    ins[0], ins[1], ins[2], attrs.axis, attrs.reduction)], _generic.schedule_extern)
_default_strategies("scatter_nd", lambda attrs, ins, ty: [topi.scatter_nd(
    ins[0], ins[1], ins[2], attrs.mode)], _generic.schedule_extern)
_default_strategies("unique", lambda attrs, ins, ty: list(topi.unique(
    ins[0], attrs.sorted, attrs.return_counts)), _generic.schedule_unique)
_default_strategies("sparse_to_dense", lambda attrs, ins, ty: [topi.sparse_to_dense(
    ins[0], list(attrs.output_shape), ins[1], ins[2])], _generic.schedule_injective)
_injective_strategies("adv_index", lambda attrs, ins, ty: [topi.adv_index(ins[0],
                                                                          list(ins[1:]))])
_injective_strategies("strided_set", lambda attrs, ins, ty: [topi.strided_set(*ins)])
_injective_strategies("split", lambda attrs, ins, ty: list(topi.split(
    ins[0], attrs.indices_or_sections, attrs.axis)))
_default_strategies("stft", lambda attrs, ins, ty: [topi.stft(
    ins[0], attrs.n_fft, attrs.hop_length, attrs.win_length, ins[1], attrs.normalized,
    attrs.onesided)])
_default_strategies("sparse_reshape", lambda attrs, ins, ty: topi.sparse_reshape(*ins),
                    _generic.schedule_injective)
_injective_strategies("fixed_point_multiply", lambda attrs, ins, ty: [
    topi.fixed_point_multiply(ins[0], attrs.multiplier, attrs.shift)])


_injective_strategies("nn.space_to_batch_nd", lambda attrs, ins, ty: [
    topi.nn.space_to_batch_nd(ins[0], list(attrs.block_shape),
                              [p[0] for p in attrs.paddings], [p[1] for p in attrs.paddings],
                              attrs.pad_value)])
_injective_strategies("nn.batch_to_space_nd", lambda attrs, ins, ty: [
    topi.nn.batch_to_space_nd(ins[0], list(attrs.block_shape), [c[0] for c in attrs.crops],
                              [c[1] for c in attrs.crops])])
_default_strategies("nn.nll_loss", lambda attrs, ins, ty: [topi.nn.nll_loss(
    *ins, attrs.reduction, attrs.ignore_index)])
_default_strategies("nn.correlation", lambda attrs, ins, ty: [topi.nn.correlation_nchw(
    ins[0], ins[1], attrs.kernel_size, attrs.max_displacement, attrs.stride1, attrs.stride2,
    tuple(attrs.padding), attrs.is_multiply)], _generic.schedule_correlation_nchw)


for _name in ("collapse_sum_like", "collapse_sum_to"):
    _reduce_schedules(_name, lambda attrs, ins, ty: [topi.collapse_sum(ins[0], ty.shape)],
                      _x86.schedule_reduce, _generic.schedule_reduce)
_injective_strategies("slice_like", lambda attrs, ins, ty: [topi.strided_slice(
    ins[0], [0] * len(ty.shape), list(ty.shape))])
_injective_strategies("contrib_reverse_reshape", lambda attrs, ins, ty: [topi.reshape(
    ins[0], ty.shape)])


def _deformable_conv2d(attrs, ins, ty):
    from .nn import deformable_layouts
    dl, kl = deformable_layouts(attrs)
    data, offset, weight = ins
    fn = topi.nn.deformable_conv2d_nchw if dl == "NCHW" else topi.nn.deformable_conv2d_nhwc
    weight = _relayout(weight, kl, "OIHW" if dl == "NCHW" else "HWIO")
    return [fn(data, offset, weight, attrs.strides, tuple(attrs.padding), attrs.dilation,
               attrs.deformable_groups, attrs.groups, attrs.out_dtype or None)]


_default_strategies("nn.deformable_conv2d", _deformable_conv2d)


# --------------------------------------------------------------------------------- GPU (cuda)
def _gpu_conv2d_compute(attrs, ins, ty):
    data, weight = ins
    if _conv_kind(attrs, data, weight) == "conv" and conv2d_layouts(attrs) == ("NCHW", "OIHW"):
        return [topi.cuda.conv2d_nchw(data, weight, attrs.strides,
                                      pad4("nn.conv2d", attrs.padding), attrs.dilation,
                                      out_dtype=attrs.out_dtype or ty.dtype)]
    return _conv2d_compute(False)(attrs, ins, ty)


def _gpu_conv2d_schedule(attrs, outs, tgt):
    if _anchor_tag(outs) == "conv2d_nchw":
        return topi.cuda.schedule_conv2d_nchw(outs)
    return topi.cuda.schedule_reduce_graph(outs)


def register_gpu_strategies() -> None:
    """The ``"gpu"`` strategy of every registered operator that has none: its generic TOPI
    compute (``conv2d_nchw.cuda`` for a plain NCHW convolution) with ``topi.cuda``'s
    injective schedule for injective groups, its reduction schedule for the others."""
    from .registry import OpPattern, get, list_op_names
    register_strategy("nn.conv2d", "gpu", _gpu_conv2d_compute, _gpu_conv2d_schedule)
    for name in list_op_names():
        op = get(name)
        if "gpu" in op.strategies or "generic" not in op.strategies:
            continue
        fcompute = op.strategies["generic"][0]
        if op.pattern <= OpPattern.INJECTIVE:
            register_strategy(name, "gpu", fcompute,
                              lambda attrs, outs, tgt: topi.cuda.schedule_injective(outs))
        else:
            register_strategy(name, "gpu", fcompute,
                              lambda attrs, outs, tgt: topi.cuda.schedule_reduce_graph(outs))


# ------------------------------------------------------------------- sort, argsort, topk
from . import algorithm as _algorithm_ops  # noqa: E402,F401  (registers sort, argsort, topk)


def _sort_compute(attrs, ins, ty):
    return [topi.sort(ins[0], attrs.axis, attrs.is_ascend)]


def _argsort_compute(attrs, ins, ty):
    return [topi.argsort(ins[0], axis=attrs.axis, is_ascend=attrs.is_ascend, dtype=attrs.dtype)]


def _topk_compute(attrs, ins, ty):
    outs = topi.topk(ins[0], attrs.k, attrs.axis, attrs.ret_type, attrs.is_ascend, attrs.dtype)
    return list(outs) if isinstance(outs, (list, tuple)) else [outs]


def _host_only_strategies(name: str, compute, schedule, why: str) -> None:
    """``name`` computed by ``compute`` and scheduled by ``schedule`` for CPU (and generic)
    targets; a GPU build raises saying ``why`` it runs on the host only."""
    def no_gpu(attrs, ins, ty):
        from ...error import TVMError
        raise TVMError(f"{name}: tvmlite has no GPU implementation ({why}); build it for an "
                       "llvm/c target")

    def sched(attrs, outs, tgt):
        return schedule(outs)

    for key in ("cpu", "generic"):
        register_strategy(name, key, compute, sched)
    register_strategy(name, "gpu", no_gpu, sched)


for _name, _compute, _schedule in (("sort", _sort_compute, _generic.schedule_sort),
                                   ("argsort", _argsort_compute, _generic.schedule_argsort),
                                   ("topk", _topk_compute, _generic.schedule_topk)):
    _host_only_strategies(_name, _compute, _schedule,
                          "it runs on the host through tvm.contrib.sort")
_host_only_strategies("searchsorted", lambda attrs, ins, ty: [topi.searchsorted(
    ins[0], ins[1], attrs.right, attrs.dtype)], _generic.schedule_extern,
    "it is a sequential binary search per value")


# ------------------------------------------------------------------ vision (relay.vision.*)
# NMS, box decoding, ROI pooling and proposals are sequential ir_builder externs in
# topi.vision: the generic schedules take them as built; there is no GPU version.
from . import vision as _vision_ops  # noqa: E402,F401  (registers vision.*)


def _get_valid_counts(attrs, ins, ty):
    return topi.vision.get_valid_counts(ins[0], ins[1], attrs.id_index, attrs.score_index)


def _nms(attrs, ins, ty):
    out = topi.vision.non_max_suppression(
        ins[0], ins[1], ins[2], ins[3], ins[4], attrs.force_suppress, attrs.top_k,
        attrs.coord_start, attrs.score_index, attrs.id_index, attrs.return_indices,
        attrs.invalid_to_bottom)
    return list(out) if attrs.return_indices else [out]


def _all_class_nms(attrs, ins, ty):
    return topi.vision.all_class_non_max_suppression(*ins[:5],
                                                     output_format=attrs.output_format)


def _multibox_prior(attrs, ins, ty):
    return [topi.vision.ssd.multibox_prior(ins[0], attrs.sizes, attrs.ratios, attrs.steps,
                                           attrs.offsets, attrs.clip)]


def _multibox_transform_loc(attrs, ins, ty):
    return topi.vision.ssd.multibox_transform_loc(ins[0], ins[1], ins[2], attrs.clip,
                                                  attrs.threshold, attrs.variances)


def _roi_align(attrs, ins, ty):
    fn = topi.vision.roi_align_nhwc if attrs.layout == "NHWC" else topi.vision.roi_align_nchw
    return [fn(ins[0], ins[1], attrs.pooled_size, attrs.spatial_scale, attrs.mode,
               attrs.sample_ratio)]


def _roi_pool(attrs, ins, ty):
    if attrs.layout == "NHWC":  # TOPI pools NCHW: transposed in and out
        out = topi.vision.roi_pool_nchw(topi.transpose(ins[0], (0, 3, 1, 2)), ins[1],
                                        attrs.pooled_size, attrs.spatial_scale)
        return [topi.transpose(out, (0, 2, 3, 1))]
    return [topi.vision.roi_pool_nchw(ins[0], ins[1], attrs.pooled_size, attrs.spatial_scale)]


def _proposal(attrs, ins, ty):
    return [topi.vision.proposal(ins[0], ins[1], ins[2], attrs.scales, attrs.ratios,
                                 attrs.feature_stride, attrs.threshold,
                                 attrs.rpn_pre_nms_top_n, attrs.rpn_post_nms_top_n,
                                 attrs.rpn_min_size, attrs.iou_loss)]


for _name, _compute, _schedule in (
        ("vision.get_valid_counts", _get_valid_counts, _generic.schedule_get_valid_counts),
        ("vision.non_max_suppression", _nms, _generic.schedule_nms),
        ("vision.all_class_non_max_suppression", _all_class_nms, _generic.schedule_nms),
        ("vision.multibox_prior", _multibox_prior, _generic.schedule_multibox_prior),
        ("vision.multibox_transform_loc", _multibox_transform_loc,
         _generic.schedule_multibox_transform_loc),
        ("vision.roi_align", _roi_align, _generic.schedule_roi_align),
        ("vision.roi_pool", _roi_pool, _generic.schedule_roi_pool),
        ("vision.proposal", _proposal, _generic.schedule_proposal)):
    _host_only_strategies(_name, _compute, _schedule, "a sequential extern")
_injective_strategies("vision.yolo_reorg", lambda attrs, ins, ty: [topi.vision.reorg(
    ins[0], attrs.stride)])


# ---------------------------------------------------------------------------------- winograd
def _winograd_weight_transform(attrs, ins, ty):
    return [topi.nn.conv2d_winograd_weight_transform(ins[0], attrs.tile_size)]


def _winograd_conv(attrs, ins, ty):
    dt = attrs.out_dtype or (ty.dtype if ty is not None else ins[0].dtype)
    return [_x86.conv2d_nchw_winograd_without_weight_transform(
        ins[0], ins[1], attrs.strides, pad4("nn.contrib_conv2d_winograd_without_weight_"
                                            "transform", attrs.padding), attrs.dilation, dt)]


for _key in ("cpu", "generic"):
    # scalar code: it runs once, folded at compile time (vectorized over the input channels,
    # its select chains took gcc 14 s for a 64x64 kernel instead of 0.4 s)
    register_strategy("nn.contrib_conv2d_winograd_weight_transform", _key,
                      _winograd_weight_transform,
                      lambda attrs, outs, tgt: _generic.schedule_injective(outs))
    # one compute and schedule for every CPU target (the schedule is plain C)
    register_strategy("nn.contrib_conv2d_winograd_without_weight_transform", _key,
                      _winograd_conv,
                      lambda attrs, outs, tgt: _x86.schedule_conv2d_nchw_winograd(outs))

# relay.op.debug compiled (graph executor): the identity, as classic's DebugCompute
_injective_strategies("debug", _unary(topi.identity))
