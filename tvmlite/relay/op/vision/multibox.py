"""SSD's multibox operators (``relay.vision.multibox_prior``, ``multibox_transform_loc``)."""
from __future__ import annotations

from typing import Sequence

from ...expr import Expr, TupleWrapper
from ...ty import TensorType, TupleType
from .._rel import tensor_arg
from ..registry import OpPattern, make_call, register
from ._util import floats, rank


def _prior_rel(types, attrs):
    op = "vision.multibox_prior"
    data = tensor_arg(op, types, 0, "data")
    rank(op, "data", data, 4)
    per = len(attrs.sizes) + len(attrs.ratios) - 1
    return TensorType((1, data.shape[2] * data.shape[3] * per, 4), data.dtype)


def _transform_loc_rel(types, attrs):
    op = "vision.multibox_transform_loc"
    cls_prob = tensor_arg(op, types, 0, "cls_prob")
    rank(op, "cls_prob", cls_prob, 3)
    rank(op, "loc_pred", tensor_arg(op, types, 1, "loc_pred"), 2)
    rank(op, "anchor", tensor_arg(op, types, 2, "anchor"), 3)
    b, n = cls_prob.shape[0], cls_prob.shape[2]
    return TupleType([TensorType((b, n, 6), cls_prob.dtype), TensorType((b,), "int32")])


register("vision.multibox_prior", 1, _prior_rel, OpPattern.OPAQUE,
         {"sizes": (1.0,), "ratios": (1.0,), "steps": (-1.0, -1.0), "offsets": (0.5, 0.5),
          "clip": False})
register("vision.multibox_transform_loc", 3, _transform_loc_rel, OpPattern.OPAQUE,
         {"clip": True, "threshold": 0.01, "variances": (0.1, 0.1, 0.2, 0.2)})


def multibox_prior(data: Expr, sizes: Sequence[float] = (1.0,),
                   ratios: Sequence[float] = (1.0,), steps: Sequence[float] = (-1.0, -1.0),
                   offsets: Sequence[float] = (0.5, 0.5), clip: bool = False) -> Expr:
    """SSD's prior boxes over ``data``'s grid: ``(1, H * W * (sizes + ratios - 1), 4)``."""
    op = "multibox_prior"
    return make_call("vision.multibox_prior", [data], sizes=floats(op, "sizes", sizes),
                     ratios=floats(op, "ratios", ratios), steps=floats(op, "steps", steps),
                     offsets=floats(op, "offsets", offsets), clip=bool(clip))


def multibox_transform_loc(cls_prob: Expr, loc_pred: Expr, anchor: Expr, clip: bool = True,
                           threshold: float = 0.01,
                           variances: Sequence[float] = (0.1, 0.1, 0.2, 0.2)) -> TupleWrapper:
    """Decode SSD's location predictions: ``(boxes (batch, num_anchors, 6), valid_count
    (batch,) int32)``."""
    call = make_call("vision.multibox_transform_loc", [cls_prob, loc_pred, anchor],
                     clip=bool(clip), threshold=float(threshold),
                     variances=floats("multibox_transform_loc", "variances", variances))
    return TupleWrapper(call, 2)


__all__ = ["multibox_prior", "multibox_transform_loc"]
