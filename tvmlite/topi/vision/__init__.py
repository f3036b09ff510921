"""Vision operators (``topi.vision``): box filtering and non-maximum suppression, SSD
(``ssd``) and R-CNN (``rcnn``) operators, Darknet's reorg."""
from . import nms, rcnn, ssd
from .nms import all_class_non_max_suppression, get_valid_counts, non_max_suppression
from .rcnn import proposal, roi_align_nchw, roi_align_nhwc, roi_pool_nchw
from .reorg import reorg

__all__ = ["reorg", "get_valid_counts", "non_max_suppression",
           "all_class_non_max_suppression", "roi_align_nchw", "roi_align_nhwc",
           "roi_pool_nchw", "proposal", "ssd", "rcnn", "nms"]


from ..._classic import fallback as _fallback  # noqa: E402

__getattr__ = _fallback(__name__)
