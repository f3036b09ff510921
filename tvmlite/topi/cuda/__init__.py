"""CUDA schedules and AutoTVM templates (classic ``topi.cuda``); they run on a GPU or in the
CPU emulation of one (``TVMLITE_GPU_EMULATION=1``)."""
from .conv2d_direct import conv2d_nchw, schedule_conv2d_nchw, schedule_direct_cuda

__all__ = ["conv2d_nchw", "schedule_conv2d_nchw", "schedule_direct_cuda"]
