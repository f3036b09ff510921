"""YOLO's reorg (``relay.vision.yolo_reorg``)."""
from __future__ import annotations

from ....tir import indexdiv
from ...expr import Expr
from ...ty import TensorType
from .._rel import RelayTypeError, tensor_arg
from ..registry import OpPattern, make_call, register
from ._util import rank


def _reorg_rel(types, attrs):
    op = "vision.yolo_reorg"
    data = tensor_arg(op, types, 0, "data")
    rank(op, "data", data, 4)
    s = attrs.stride
    n, c, h, w = data.shape

    def div(d):
        if isinstance(d, int):
            if d % s:
                raise RelayTypeError(f"{op}: stride {s} does not divide {d}")
            return d // s
        return indexdiv(d, s)
    return TensorType((n, c * s * s, div(h), div(w)), data.dtype)


register("vision.yolo_reorg", 1, _reorg_rel, OpPattern.INJECTIVE, {"stride": 1})


def yolo_reorg(data: Expr, stride: int) -> Expr:
    """Darknet's reorg: ``(N, C, H, W) -> (N, C * stride^2, H / stride, W / stride)``."""
    if isinstance(stride, bool) or not isinstance(stride, int) or stride < 1:
        raise RelayTypeError(f"yolo_reorg: stride must be a positive int, got {stride!r}")
    return make_call("vision.yolo_reorg", [data], stride=stride)


__all__ = ["yolo_reorg"]
