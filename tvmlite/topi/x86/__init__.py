"""x86 schedules and AutoTVM templates (``topi.x86``)."""
# classic topi.x86.roi_align_nchw: the one TOPI compute (nothing x86-specific here)
from ..vision.rcnn import roi_align_nchw
from .batch_matmul import batch_matmul, schedule_batch_matmul
from .conv2d import conv2d_nchw, conv2d_NCHWc, schedule_conv2d_nchw, schedule_conv2d_NCHWc
from .conv2d_int8 import (
    conv2d_nchw_int8,
    int8_conv2d_applicable,
    is_int8_hw_support,
    schedule_conv2d_nchw_int8,
)
from .conv2d_nhwc import (
    schedule_conv2d_nhwc,
    schedule_depthwise_conv2d_nhwc,
    schedule_group_conv2d_nhwc,
)
from .conv2d_transpose import conv2d_transpose_nchw, schedule_conv2d_transpose_nchw
from .conv2d_winograd import (
    conv2d_nchw_winograd,
    conv2d_nchw_winograd_without_weight_transform,
    schedule_conv2d_nchw_winograd,
    schedule_conv2d_nchw_winograd_without_weight_transform,
    winograd_eligible,
)
from .conv_direct import (
    conv3d_ncdhw,
    conv3d_ndhwc,
    conv3d_transpose_ncdhw,
    dense_dynamic,
    depthwise_conv2d_nchw,
    schedule_binarize_pack,
    schedule_binary_dense,
    schedule_conv1d_ncw,
    schedule_conv1d_nwc,
    schedule_conv3d_ncdhw,
    schedule_conv3d_ndhwc,
    schedule_conv3d_transpose_ncdhw,
    schedule_dense_dynamic,
    schedule_depthwise_conv2d_nchw,
    schedule_direct_conv,
    schedule_group_conv1d_ncw,
    schedule_group_conv1d_nwc,
)
from .dense import (
    config_of,
    dense_nopack,
    dense_pack,
    fallback_pack_block,
    schedule_dense_nopack,
    schedule_dense_pack,
)
from .depthwise_conv2d import depthwise_conv2d_NCHWc, schedule_depthwise_conv2d_NCHWc
from .injective import (
    schedule_broadcast,
    schedule_concatenate,
    schedule_elemwise,
    schedule_injective,
    schedule_injective_from_existing,
)
from .nn import (
    schedule_adaptive_pool,
    schedule_batch_norm,
    schedule_layer_norm,
    schedule_pool,
    schedule_reduce,
    schedule_softmax,
)

__all__ = ["schedule_injective", "schedule_injective_from_existing", "schedule_concatenate",
           "schedule_elemwise", "schedule_broadcast", "dense_nopack", "dense_pack",
           "fallback_pack_block",
           "schedule_dense_nopack", "schedule_dense_pack", "config_of", "conv2d_NCHWc",
           "conv2d_nchw", "schedule_conv2d_nchw",
           "schedule_conv2d_NCHWc", "schedule_conv2d_nhwc", "schedule_group_conv2d_nhwc",
           "schedule_depthwise_conv2d_nhwc", "depthwise_conv2d_NCHWc",
           "schedule_depthwise_conv2d_NCHWc",
           "batch_matmul", "schedule_batch_matmul", "schedule_pool", "schedule_adaptive_pool",
           "schedule_softmax", "schedule_reduce", "schedule_batch_norm",
           "schedule_layer_norm", "schedule_direct_conv", "schedule_conv1d_ncw",
           "schedule_conv1d_nwc", "schedule_group_conv1d_ncw", "schedule_group_conv1d_nwc",
           "conv3d_ncdhw", "schedule_conv3d_ncdhw", "conv3d_ndhwc", "schedule_conv3d_ndhwc",
           "conv2d_transpose_nchw", "schedule_conv2d_transpose_nchw", "conv3d_transpose_ncdhw",
           "schedule_conv3d_transpose_ncdhw", "depthwise_conv2d_nchw",
           "schedule_depthwise_conv2d_nchw", "dense_dynamic", "schedule_dense_dynamic",
           "schedule_binarize_pack", "schedule_binary_dense", "roi_align_nchw",
           "conv2d_nchw_winograd", "conv2d_nchw_winograd_without_weight_transform",
           "schedule_conv2d_nchw_winograd",
           "schedule_conv2d_nchw_winograd_without_weight_transform", "winograd_eligible",
           "conv2d_nchw_int8", "schedule_conv2d_nchw_int8", "is_int8_hw_support",
           "int8_conv2d_applicable"]


from ..._classic import fallback as _fallback  # noqa: E402

__getattr__ = _fallback(__name__)
