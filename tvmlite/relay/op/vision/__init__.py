"""Vision operators (``relay.vision``, classic ``relay.op.vision``): box filtering and
non-maximum suppression, SSD multibox, R-CNN ROI align/pool and proposal, YOLO reorg.
Each lowers through its TOPI compute in ``topi.vision``."""
from .multibox import multibox_prior, multibox_transform_loc
from .nms import all_class_non_max_suppression, get_valid_counts, non_max_suppression
from .rcnn import proposal, roi_align, roi_pool
from .yolo import yolo_reorg

__all__ = ["get_valid_counts", "non_max_suppression", "all_class_non_max_suppression",
           "multibox_prior", "multibox_transform_loc", "roi_align", "roi_pool", "proposal",
           "yolo_reorg"]
