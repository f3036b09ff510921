"""Neural-network operators (``topi.nn``)."""
from . import utils, winograd_util
from .bitserial import bitpack, bitserial_conv2d_nchw, bitserial_conv2d_nhwc, bitserial_dense
from .bnn import binarize_pack, binary_dense
from .conv import (
    conv,
    conv1d,
    conv1d_ncw,
    conv1d_nwc,
    conv3d_ncdhw,
    conv3d_ndhwc,
    group_conv1d_ncw,
    group_conv1d_nwc,
    group_conv2d_nhwc,
)
from .conv2d import (
    conv2d,
    conv2d_hwcn,
    conv2d_nchw,
    conv2d_NCHWc,
    conv2d_NCHWc_int8,
    conv2d_nhwc,
    conv2d_winograd_weight_transform,
    group_conv2d_nchw,
)
from .conv2d_transpose import (
    conv1d_transpose_ncw,
    conv2d_transpose_nchw,
    conv2d_transpose_nchw_preprocess,
    conv3d_transpose_ncdhw,
    group_conv2d_transpose_nchw,
)
from .correlation import correlation_nchw
from .deformable_conv2d import deformable_conv2d_nchw, deformable_conv2d_nhwc
from .dense import batch_matmul, dense, dense_pack, matmul
from .depth_to_space import depth_to_space, space_to_depth
from .depthwise_conv2d import (
    depthwise_conv2d_nchw,
    depthwise_conv2d_NCHWc,
    depthwise_conv2d_nhwc,
)
from .dilate import dilate
from .elemwise import leaky_relu, prelu, relu
from .flatten import batch_flatten, flatten
from .loss import nll_loss
from .lstm import lstm
from .mapping import scale_shift_nchw, scale_shift_nchwc, scale_shift_nhwc
from .norm import batch_norm, group_norm, instance_norm, l2_normalize, layer_norm, lrn
from .pad import mirror_pad, pad
from .pooling import (
    adaptive_pool,
    adaptive_pool1d,
    adaptive_pool3d,
    global_pool,
    pool1d,
    pool2d,
    pool3d,
)
from .softmax import fast_softmax, log_softmax, softmax
from .space_to_batch_nd import batch_to_space_nd, space_to_batch_nd
from .upsampling import upsampling, upsampling3d
from .utils import get_pad_tuple, get_pad_tuple1d, get_pad_tuple3d, get_pad_tuple_generic

__all__ = ["pad", "relu", "leaky_relu", "prelu", "dense", "dense_pack", "batch_matmul", "conv2d",
           "conv2d_nchw", "conv2d_nhwc", "conv2d_hwcn", "conv2d_NCHWc", "conv2d_NCHWc_int8",
           "group_conv2d_nchw",
           "depthwise_conv2d_nchw", "depthwise_conv2d_nhwc", "depthwise_conv2d_NCHWc",
           "conv2d_transpose_nchw", "conv2d_transpose_nchw_preprocess",
           "group_conv2d_transpose_nchw", "dilate", "pool2d",
           "global_pool", "adaptive_pool", "adaptive_pool1d", "adaptive_pool3d", "softmax",
           "fast_softmax", "log_softmax", "batch_norm", "layer_norm", "lrn", "l2_normalize",
           "upsampling", "upsampling3d",
           "flatten", "batch_flatten", "get_pad_tuple", "utils", "conv", "conv1d", "conv1d_ncw",
           "conv1d_nwc", "group_conv1d_ncw", "group_conv1d_nwc", "conv3d_ncdhw", "conv3d_ndhwc",
           "group_conv2d_nhwc", "pool1d", "pool3d", "instance_norm", "group_norm",
           "depth_to_space", "space_to_depth", "mirror_pad", "get_pad_tuple1d",
           "get_pad_tuple3d", "get_pad_tuple_generic", "space_to_batch_nd", "batch_to_space_nd",
           "matmul", "nll_loss", "conv1d_transpose_ncw", "conv3d_transpose_ncdhw",
           "deformable_conv2d_nchw", "deformable_conv2d_nhwc",
           "correlation_nchw", "lstm",
           "scale_shift_nchw", "scale_shift_nhwc", "scale_shift_nchwc", "binarize_pack",
           "bitpack", "bitserial_conv2d_nchw", "bitserial_conv2d_nhwc", "bitserial_dense",
           "binary_dense", "conv2d_winograd_weight_transform", "winograd_util"]


from ..._classic import fallback as _fallback  # noqa: E402

__getattr__ = _fallback(__name__)
