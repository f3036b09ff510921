"""Numpy reference implementations of TOPI operators (``topi.testing``)."""
from .conv2d_nchw_python import conv2d_nchw_python, depthwise_conv2d_python_nchw

__all__ = ["conv2d_nchw_python", "depthwise_conv2d_python_nchw"]
