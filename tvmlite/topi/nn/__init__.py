"""Neural-network operators (``topi.nn``)."""
from . import utils
from .conv2d import conv2d_nchw, depthwise_conv2d_nchw
from .dense import dense
from .elemwise import leaky_relu, relu
from .flatten import batch_flatten
from .pad import pad
from .pooling import global_pool, pool2d
from .softmax import softmax
from .utils import get_pad_tuple

__all__ = ["pad", "relu", "leaky_relu", "dense", "conv2d_nchw", "depthwise_conv2d_nchw",
           "pool2d", "global_pool", "softmax", "batch_flatten", "get_pad_tuple", "utils"]
