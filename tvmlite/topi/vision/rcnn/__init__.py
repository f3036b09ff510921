"""R-CNN operators (``topi.vision.rcnn``): ROI align, ROI pool, region proposal."""
from .proposal import proposal
from .roi_align import roi_align_nchw, roi_align_nhwc
from .roi_pool import roi_pool_nchw

__all__ = ["roi_align_nchw", "roi_align_nhwc", "roi_pool_nchw", "proposal"]
