"""Numpy reference implementations of TOPI operators (``topi.testing``)."""
from .common import (
    compare_numpy_tvm,
    dispatch,
    get_broadcast_schedule,
    get_conv2d_nchw_implement,
    get_elemwise_schedule,
    get_injective_schedule,
    get_reduce_schedule,
)
from .conv2d_nchw_python import (
    conv2d_nchw_python,
    depthwise_conv2d_python_nchw,
    depthwise_conv2d_python_nchwc,
)
from .nn_python import (
    adaptive_pool,
    batch_matmul,
    batch_norm,
    conv1d_ncw_python,
    conv1d_transpose_ncw_python,
    conv2d_hwcn_python,
    conv2d_nhwc_python,
    conv2d_transpose_nchw_python,
    conv3d_ncdhw_python,
    conv3d_ndhwc_python,
    conv_nd_python,
    correlation_nchw_python,
    depth_to_space_python,
    depthwise_conv2d_python_nhwc,
    dilate_python,
    group_conv1d_ncw_python,
    group_norm_python,
    instance_norm_python,
    layer_norm_python,
    log_softmax_python,
    lrn_python,
    lstm_python,
    nll_loss,
    pack_depthwise_kernel,
    pack_nchwc,
    pack_oihw,
    pool2d_ref,
    poolnd_python,
    resize1d_python,
    resize2d_python,
    resize3d_python,
    softmax_python,
    space_to_depth_python,
    strided_slice_python,
    unpack_nchwc,
    upsampling_python,
)
from .space_python import batch_to_space_nd_python, reorg_python, space_to_batch_nd_python
from .transform_python import (
    affine_grid_python,
    gather_nd_python,
    gather_python,
    matrix_set_diag,
    one_hot,
    searchsorted_ref,
    sequence_mask,
    strided_set_python,
)

__all__ = ["conv2d_nchw_python", "depthwise_conv2d_python_nchw", "depthwise_conv2d_python_nchwc",
           "conv2d_nhwc_python",
           "depthwise_conv2d_python_nhwc", "conv2d_transpose_nchw_python", "dilate_python",
           "poolnd_python", "pool2d_ref", "adaptive_pool", "softmax_python",
           "log_softmax_python", "batch_norm", "layer_norm_python", "lrn_python",
           "resize1d_python", "resize2d_python", "resize3d_python", "upsampling_python",
           "batch_matmul", "strided_slice_python",
           "pack_nchwc", "unpack_nchwc", "pack_oihw", "pack_depthwise_kernel", "dispatch",
           "get_injective_schedule", "get_reduce_schedule", "get_broadcast_schedule",
           "get_elemwise_schedule", "get_conv2d_nchw_implement",
           "conv1d_ncw_python", "conv2d_hwcn_python", "group_conv1d_ncw_python",
           "conv3d_ncdhw_python",
           "conv3d_ndhwc_python", "conv_nd_python", "instance_norm_python", "group_norm_python",
           "depth_to_space_python", "space_to_depth_python", "gather_python",
           "gather_nd_python", "one_hot", "matrix_set_diag", "space_to_batch_nd_python",
           "batch_to_space_nd_python", "reorg_python", "strided_set_python", "sequence_mask",
           "nll_loss", "conv1d_transpose_ncw_python", "correlation_nchw_python",
           "compare_numpy_tvm", "searchsorted_ref", "lstm_python", "affine_grid_python"]


from ..._classic import fallback as _fallback  # noqa: E402

__getattr__ = _fallback(__name__)
