"""Default schedules of the vision operators (``topi.generic.schedule_nms`` ...): they are
extern ops or plain computes, scheduled as built (every stage on its own)."""
from __future__ import annotations

from ...te.schedule import Schedule
from .schedules import Outs, schedule_extern


def schedule_get_valid_counts(outs: Outs) -> Schedule:
    """``topi.vision.get_valid_counts``."""
    return schedule_extern(outs)


def schedule_nms(outs: Outs) -> Schedule:
    """``topi.vision.non_max_suppression`` and ``all_class_non_max_suppression``."""
    return schedule_extern(outs)


def schedule_multibox_prior(outs: Outs) -> Schedule:
    """``topi.vision.ssd.multibox_prior``."""
    return schedule_extern(outs)


def schedule_multibox_transform_loc(outs: Outs) -> Schedule:
    """``topi.vision.ssd.multibox_transform_loc``."""
    return schedule_extern(outs)


def schedule_multibox_detection(outs: Outs) -> Schedule:
    """``topi.vision.ssd.multibox_detection``."""
    return schedule_extern(outs)


def schedule_roi_align(outs: Outs) -> Schedule:
    """``topi.vision.rcnn.roi_align_nchw`` / ``roi_align_nhwc``."""
    return schedule_extern(outs)


def schedule_roi_pool(outs: Outs) -> Schedule:
    """``topi.vision.rcnn.roi_pool_nchw``."""
    return schedule_extern(outs)


def schedule_proposal(outs: Outs) -> Schedule:
    """``topi.vision.rcnn.proposal``."""
    return schedule_extern(outs)


__all__ = ["schedule_get_valid_counts", "schedule_nms", "schedule_multibox_prior",
           "schedule_multibox_transform_loc", "schedule_multibox_detection",
           "schedule_roi_align", "schedule_roi_pool", "schedule_proposal"]
