"""Classic ``topi.cuda`` schedule names of the operators built from reductions: each is the
one GPU reduction schedule (:mod:`.reduction`), which gives every reduction stage a kernel
and binds injective outputs."""
from __future__ import annotations

from ..generic.schedules import named_schedule
from .reduction import schedule_reduce_graph


def _named(name: str, what: str):
    return named_schedule(schedule_reduce_graph, name, f"{what} on a GPU: its reductions and "
                          "injective outputs bound to threads.")


schedule_softmax = _named("schedule_softmax", "softmax / log_softmax")
schedule_pool = _named("schedule_pool", "pooling (``layout`` accepted, unused)")
schedule_adaptive_pool = _named("schedule_adaptive_pool", "adaptive and global pooling")
schedule_dense = _named("schedule_dense", "dense")
schedule_batch_matmul = _named("schedule_batch_matmul", "batch_matmul")
schedule_depthwise_conv2d_nchw = _named("schedule_depthwise_conv2d_nchw",
                                        "depthwise_conv2d_nchw")
schedule_group_conv2d_nchw = _named("schedule_group_conv2d_nchw", "group_conv2d_nchw")
schedule_conv2d_transpose_nchw = _named("schedule_conv2d_transpose_nchw",
                                        "conv2d_transpose_nchw")
schedule_conv1d_transpose_ncw = _named("schedule_conv1d_transpose_ncw",
                                       "conv1d_transpose_ncw")
schedule_conv3d_transpose_ncdhw = _named("schedule_conv3d_transpose_ncdhw",
                                         "conv3d_transpose_ncdhw")
schedule_deformable_conv2d_nchw = _named("schedule_deformable_conv2d_nchw",
                                         "deformable_conv2d_nchw")
schedule_correlation_nchw = _named("schedule_correlation_nchw", "correlation_nchw")
schedule_lrn = _named("schedule_lrn", "lrn")
schedule_l2_normalize = _named("schedule_l2_normalize", "l2_normalize")
schedule_layer_norm = _named("schedule_layer_norm", "layer_norm / group_norm")
schedule_batch_norm = _named("schedule_batch_norm", "batch_norm")
