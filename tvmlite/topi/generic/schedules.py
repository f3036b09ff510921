"""The default schedules of every TOPI operator.

Each takes the operator's output tensor(s) and returns a ``te.Schedule``. Injective
producers are inlined into their consumers (so a padded input never materializes and an
element-wise epilogue runs in the same loop nest as the operator it follows); the outputs of
``schedule_injective`` have their axes fused into one loop.
"""
from __future__ import annotations

from typing import Callable, List, Sequence, Union

from ...te.schedule import AutoInlineInjective, Schedule, create_schedule
from ...te.tensor import Tensor

Outs = Union[Tensor, Sequence[Tensor]]


def _outs(outs: Outs) -> List[Tensor]:
    outs = [outs] if isinstance(outs, Tensor) else list(outs)
    if not outs or not all(isinstance(t, Tensor) for t in outs):
        raise TypeError(f"a schedule takes a Tensor or a list of Tensors, got {outs!r}")
    return outs


def _default_schedule(outs: Outs, auto_inline: bool) -> Schedule:
    outs = _outs(outs)
    s = create_schedule([t.op for t in outs])
    if auto_inline:
        AutoInlineInjective(s)
    return s


def schedule_injective_from_existing(sch: Schedule, out: Tensor) -> Schedule:
    """Fuse all axes of ``out`` in ``sch`` into one loop."""
    axes = sch[out].op.axis
    if len(axes) > 1:
        sch[out].fuse(*axes)
    return sch


def injective_schedule(outs: Outs, from_existing) -> Schedule:
    """A schedule of ``outs`` with their injective producers inlined and each output scheduled
    by ``from_existing(sch, out)`` (the target's injective schedule of one stage)."""
    outs = _outs(outs)
    s = _default_schedule(outs, True)
    for out in outs:
        from_existing(s, out)
    return s


def schedule_injective(outs: Outs) -> Schedule:
    """Injective operators (elementwise, broadcast, layout): inline producers, fuse axes."""
    return injective_schedule(outs, schedule_injective_from_existing)


schedule_elemwise = schedule_injective
schedule_broadcast = schedule_injective
schedule_concatenate = schedule_injective


def schedule_reduce(outs: Outs) -> Schedule:
    """Reductions (``sum``, ``max``, ``argmax``…): injective producers inlined."""
    return _default_schedule(outs, True)


def named_schedule(schedule: Callable[[Outs], Schedule], name: str, doc: str) -> Callable:
    """``schedule`` under the classic public name ``name`` (docstring ``doc``); classic
    arguments after ``outs`` (a pool's ``layout``…) are accepted and unused."""
    def f(outs: Outs, *args, **kwargs) -> Schedule:
        return schedule(outs)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    f.__module__ = schedule.__module__
    return f


def _inlining(name: str, what: str) -> Callable:
    return named_schedule(lambda outs: _default_schedule(outs, True), name,
                          f"{what}: the default schedule, injective producers (padding) inlined.")


schedule_conv2d_nchw = _inlining("schedule_conv2d_nchw", "conv2d_nchw")
schedule_conv2d_nhwc = _inlining("schedule_conv2d_nhwc", "conv2d_nhwc")
schedule_conv2d_hwcn = _inlining("schedule_conv2d_hwcn", "conv2d_hwcn")
schedule_conv2d_NCHWc = _inlining("schedule_conv2d_NCHWc", "conv2d_NCHWc")
schedule_group_conv2d_nchw = _inlining("schedule_group_conv2d_nchw", "group_conv2d_nchw")
schedule_depthwise_conv2d_nchw = _inlining("schedule_depthwise_conv2d_nchw",
                                           "depthwise_conv2d_nchw")
schedule_depthwise_conv2d_nhwc = _inlining("schedule_depthwise_conv2d_nhwc",
                                           "depthwise_conv2d_nhwc")
schedule_conv2d_transpose_nchw = _inlining("schedule_conv2d_transpose_nchw",
                                           "conv2d_transpose_nchw")
schedule_conv1d_transpose_ncw = _inlining("schedule_conv1d_transpose_ncw",
                                          "conv1d_transpose_ncw")
schedule_conv3d_transpose_ncdhw = _inlining("schedule_conv3d_transpose_ncdhw",
                                            "conv3d_transpose_ncdhw")
schedule_deformable_conv2d_nchw = _inlining("schedule_deformable_conv2d_nchw",
                                            "deformable_conv2d_nchw")
schedule_deformable_conv2d_nhwc = _inlining("schedule_deformable_conv2d_nhwc",
                                            "deformable_conv2d_nhwc")
schedule_correlation_nchw = _inlining("schedule_correlation_nchw", "correlation_nchw")
schedule_conv1d_ncw = _inlining("schedule_conv1d_ncw", "conv1d_ncw")
schedule_conv1d_nwc = _inlining("schedule_conv1d_nwc", "conv1d_nwc")
schedule_group_conv1d_ncw = _inlining("schedule_group_conv1d_ncw", "group_conv1d_ncw")
schedule_group_conv1d_nwc = _inlining("schedule_group_conv1d_nwc", "group_conv1d_nwc")
schedule_group_conv2d_nhwc = _inlining("schedule_group_conv2d_nhwc", "group_conv2d_nhwc")
schedule_conv3d_ncdhw = _inlining("schedule_conv3d_ncdhw", "conv3d_ncdhw")
schedule_conv3d_ndhwc = _inlining("schedule_conv3d_ndhwc", "conv3d_ndhwc")
schedule_group_conv2d_transpose_nchw = _inlining("schedule_group_conv2d_transpose_nchw",
                                                 "group_conv2d_transpose_nchw")
schedule_binarize_pack = _inlining("schedule_binarize_pack", "binarize_pack")
schedule_binary_dense = _inlining("schedule_binary_dense", "binary_dense")
schedule_dense = _inlining("schedule_dense", "dense")
schedule_batch_matmul = _inlining("schedule_batch_matmul", "batch_matmul")
schedule_pool = _inlining("schedule_pool", "pool2d")
schedule_adaptive_pool = _inlining("schedule_adaptive_pool", "adaptive_pool")
schedule_lrn = _inlining("schedule_lrn", "lrn")
schedule_l2_normalize = _inlining("schedule_l2_normalize", "l2_normalize")
schedule_layer_norm = _inlining("schedule_layer_norm", "layer_norm")


def schedule_softmax(outs: Outs) -> Schedule:
    """softmax / log_softmax: the exponentials are inlined into their sum and the output."""
    return _default_schedule(outs, True)


def schedule_extern(outs: Outs) -> Schedule:
    """Extern operators: nothing to schedule."""
    return _default_schedule(outs, False)


def schedule_batch_norm(outs: Outs) -> Schedule:
    """``topi.nn.batch_norm`` (its three outputs): the default schedule."""
    return _default_schedule(outs, False)


def schedule_lstm(outs: Outs) -> Schedule:
    """``topi.nn.lstm`` (hidden and cell states): the default schedule."""
    return _default_schedule(outs, False)


def schedule_reorg(outs: Outs) -> Schedule:
    """``topi.vision.reorg``: the default schedule, every stage computed on its own."""
    return _default_schedule(outs, False)


def schedule_argwhere(outs: Outs) -> Schedule:
    """``topi.argwhere``: an extern op, nothing to schedule."""
    return schedule_extern(outs)


def schedule_unique(outs: Outs) -> Schedule:
    """``topi.unique``: extern ops (the argsort and the grouping pass), nothing to schedule."""
    return schedule_extern(outs)


def schedule_sort(outs: Outs) -> Schedule:
    """``topi.sort``: an extern op, nothing to schedule."""
    return schedule_extern(outs)


def schedule_argsort(outs: Outs) -> Schedule:
    """``topi.argsort``: an extern op, nothing to schedule."""
    return schedule_extern(outs)


def schedule_topk(outs: Outs) -> Schedule:
    """``topi.topk``: an extern op, nothing to schedule."""
    return schedule_extern(outs)


__all__ = ["schedule_injective", "schedule_injective_from_existing", "schedule_elemwise",
           "schedule_broadcast", "schedule_concatenate", "schedule_reduce",
           "schedule_conv2d_nchw", "schedule_conv2d_nhwc", "schedule_conv2d_hwcn",
           "schedule_conv2d_NCHWc",
           "schedule_group_conv2d_nchw", "schedule_depthwise_conv2d_nchw",
           "schedule_depthwise_conv2d_nhwc", "schedule_conv2d_transpose_nchw",
           "schedule_conv1d_transpose_ncw", "schedule_conv3d_transpose_ncdhw",
           "schedule_deformable_conv2d_nchw", "schedule_deformable_conv2d_nhwc",
           "schedule_correlation_nchw",
           "schedule_dense", "schedule_batch_matmul", "schedule_pool",
           "schedule_adaptive_pool", "schedule_lrn", "schedule_l2_normalize", "schedule_layer_norm",
           "schedule_softmax", "schedule_extern", "schedule_reorg", "schedule_batch_norm",
           "schedule_lstm", "schedule_sort", "schedule_argsort", "schedule_topk",
           "schedule_argwhere", "schedule_unique", "schedule_conv1d_ncw", "schedule_conv1d_nwc",
           "schedule_group_conv1d_ncw", "schedule_group_conv1d_nwc", "schedule_group_conv2d_nhwc",
           "schedule_conv3d_ncdhw", "schedule_conv3d_ndhwc",
           "schedule_group_conv2d_transpose_nchw", "schedule_binarize_pack",
           "schedule_binary_dense"]
