"""R-CNN operators (``relay.vision.roi_align``, ``roi_pool``, ``proposal``)."""
from __future__ import annotations

from typing import Sequence, Tuple, Union

from ....topi.utils import TopiError
from ....topi.vision.rcnn.roi_align import pooled_hw
from ...expr import Expr
from ...ty import TensorType
from .._rel import RelayTypeError, tensor_arg
from ..registry import OpPattern, make_call, register
from ._util import floats, rank


def _pooled(op: str, pooled_size) -> Tuple[int, int]:
    try:
        return pooled_hw(op, pooled_size)
    except TopiError as e:
        raise RelayTypeError(str(e)) from None


def _roi_rel(op: str, layouts: Sequence[str]):
    def rel(types, attrs):
        data = tensor_arg(op, types, 0, "data")
        rois = tensor_arg(op, types, 1, "rois")
        rank(op, "data", data, 4)
        rank(op, "rois", rois, 2)
        if attrs.layout not in layouts:
            raise RelayTypeError(f"{op}: layout must be one of {tuple(layouts)}, got "
                                 f"{attrs.layout!r}")
        ph, pw = attrs.pooled_size
        n = rois.shape[0]
        if attrs.layout == "NHWC":
            return TensorType((n, ph, pw, data.shape[3]), data.dtype)
        return TensorType((n, data.shape[1], ph, pw), data.dtype)
    return rel


def _proposal_rel(types, attrs):
    op = "vision.proposal"
    cls_prob = tensor_arg(op, types, 0, "cls_prob")
    rank(op, "cls_prob", cls_prob, 4)
    rank(op, "bbox_pred", tensor_arg(op, types, 1, "bbox_pred"), 4)
    rank(op, "im_info", tensor_arg(op, types, 2, "im_info"), 2)
    return TensorType((cls_prob.shape[0] * attrs.rpn_post_nms_top_n, 5), cls_prob.dtype)


register("vision.roi_align", 2, _roi_rel("vision.roi_align", ("NCHW", "NHWC")),
         OpPattern.OUT_ELEMWISE_FUSABLE,
         {"pooled_size": None, "spatial_scale": None, "sample_ratio": -1, "layout": "NCHW",
          "mode": "avg"})
register("vision.roi_pool", 2, _roi_rel("vision.roi_pool", ("NCHW", "NHWC")),
         OpPattern.OUT_ELEMWISE_FUSABLE,
         {"pooled_size": None, "spatial_scale": None, "layout": "NCHW"})
register("vision.proposal", 3, _proposal_rel, OpPattern.OPAQUE,
         {"scales": (4.0, 8.0, 16.0, 32.0), "ratios": (0.5, 1.0, 2.0), "feature_stride": 16,
          "threshold": 0.7, "rpn_pre_nms_top_n": 6000, "rpn_post_nms_top_n": 300,
          "rpn_min_size": 16, "iou_loss": False})


def roi_align(data: Expr, rois: Expr, pooled_size: Union[int, Sequence[int]],
              spatial_scale: float, sample_ratio: int = -1, layout: str = "NCHW",
              mode: str = "avg") -> Expr:
    """ROI align (see ``topi.vision.rcnn.roi_align_nchw``); ``layout`` "NCHW" or "NHWC",
    ``mode`` "avg" or "max"."""
    if isinstance(mode, bytes):
        mode = mode.decode()
    if mode not in ("avg", "max"):
        raise RelayTypeError(f"roi_align: mode must be 'avg' or 'max', got {mode!r}")
    return make_call("vision.roi_align", [data, rois],
                     pooled_size=_pooled("roi_align", pooled_size),
                     spatial_scale=float(spatial_scale), sample_ratio=int(sample_ratio),
                     layout=layout, mode=mode)


def roi_pool(data: Expr, rois: Expr, pooled_size: Union[int, Sequence[int]],
             spatial_scale: float, layout: str = "NCHW") -> Expr:
    """ROI max pooling (see ``topi.vision.rcnn.roi_pool_nchw``); ``layout`` "NCHW" or
    "NHWC"."""
    return make_call("vision.roi_pool", [data, rois],
                     pooled_size=_pooled("roi_pool", pooled_size),
                     spatial_scale=float(spatial_scale), layout=layout)


def proposal(cls_prob: Expr, bbox_pred: Expr, im_info: Expr,
             scales: Sequence[float] = (4.0, 8.0, 16.0, 32.0),
             ratios: Sequence[float] = (0.5, 1.0, 2.0), feature_stride: int = 16,
             threshold: float = 0.7, rpn_pre_nms_top_n: int = 6000,
             rpn_post_nms_top_n: int = 300, rpn_min_size: int = 16,
             iou_loss: bool = False) -> Expr:
    """Region proposals (see ``topi.vision.rcnn.proposal``):
    ``(batch * rpn_post_nms_top_n, 5)``."""
    return make_call("vision.proposal", [cls_prob, bbox_pred, im_info],
                     scales=floats("proposal", "scales", scales),
                     ratios=floats("proposal", "ratios", ratios),
                     feature_stride=int(feature_stride), threshold=float(threshold),
                     rpn_pre_nms_top_n=int(rpn_pre_nms_top_n),
                     rpn_post_nms_top_n=int(rpn_post_nms_top_n),
                     rpn_min_size=int(rpn_min_size), iou_loss=bool(iou_loss))


__all__ = ["roi_align", "roi_pool", "proposal"]
