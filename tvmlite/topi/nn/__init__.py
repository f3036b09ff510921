"""Neural-network operators (``topi.nn``)."""
from .pad import pad
from .elemwise import leaky_relu, relu
from .dense import dense
from .conv2d import conv2d_nchw, depthwise_conv2d_nchw
from .pooling import global_pool, pool2d
from .softmax import softmax
from .flatten import batch_flatten
from .utils import get_pad_tuple
from . import utils

__all__ = ["pad", "relu", "leaky_relu", "dense", "conv2d_nchw", "depthwise_conv2d_nchw",
           "pool2d", "global_pool", "softmax", "batch_flatten", "get_pad_tuple", "utils"]
