"""Classic module path ``topi.generic.conv2d``: its CPU depthwise NHWC schedule is the generic
one (:mod:`.schedules`)."""
from .schedules import schedule_depthwise_conv2d_nhwc

__all__ = ["schedule_depthwise_conv2d_nhwc"]
