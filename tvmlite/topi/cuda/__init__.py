"""CUDA schedules and AutoTVM templates (classic ``topi.cuda``); they run on a GPU or in the
CPU emulation of one (``TVMLITE_GPU_EMULATION=1``)."""
# extern ops: nothing to schedule (the GPU ones bind their threads in their own IR)
from ..generic.schedules import schedule_extern

# the target-independent computes (their schedules bind the threads)
from ..nn import (
    conv1d_transpose_ncw,
    conv3d_transpose_ncdhw,
    correlation_nchw,
    deformable_conv2d_nchw,
)
from .conv2d_direct import conv2d_nchw, schedule_conv2d_nchw, schedule_direct_cuda
from .injective import (
    schedule_broadcast,
    schedule_concatenate,
    schedule_elemwise,
    schedule_injective,
    schedule_injective_from_existing,
)
from .nn import (
    schedule_adaptive_pool,
    schedule_batch_matmul,
    schedule_batch_norm,
    schedule_conv1d_transpose_ncw,
    schedule_conv2d_transpose_nchw,
    schedule_conv3d_transpose_ncdhw,
    schedule_correlation_nchw,
    schedule_deformable_conv2d_nchw,
    schedule_dense,
    schedule_depthwise_conv2d_nchw,
    schedule_group_conv2d_nchw,
    schedule_layer_norm,
    schedule_lrn,
    schedule_pool,
    schedule_softmax,
)
from .reduction import schedule_reduce, schedule_reduce_graph
from .scan import cumprod, cumsum

schedule_reorg = schedule_injective  # classic: reorg is injective on a GPU
schedule_scan = schedule_extern  # cumsum / cumprod bind their own threads

__all__ = ["conv2d_nchw", "schedule_conv2d_nchw", "schedule_direct_cuda", "schedule_injective",
           "schedule_injective_from_existing", "schedule_elemwise", "schedule_broadcast",
           "schedule_concatenate", "schedule_reduce", "schedule_reduce_graph",
           "schedule_softmax", "schedule_pool", "schedule_adaptive_pool", "schedule_dense",
           "schedule_batch_matmul", "schedule_depthwise_conv2d_nchw",
           "schedule_group_conv2d_nchw", "schedule_conv2d_transpose_nchw", "schedule_lrn",
           "schedule_layer_norm", "schedule_batch_norm", "schedule_reorg",
           "conv1d_transpose_ncw", "schedule_conv1d_transpose_ncw", "correlation_nchw",
           "schedule_correlation_nchw", "conv3d_transpose_ncdhw",
           "schedule_conv3d_transpose_ncdhw", "cumsum", "cumprod", "schedule_scan",
           "schedule_extern", "deformable_conv2d_nchw", "schedule_deformable_conv2d_nchw"]


# classic topi.cuda functions tvmlite has no GPU version of (sort, unique, dft...): stubs that
# raise UnsupportedError when called
from ..._classic import fallback as _fallback  # noqa: E402

__getattr__ = _fallback(__name__)
