"""Box filtering and non-maximum suppression (``relay.vision.get_valid_counts``,
``non_max_suppression``, ``all_class_non_max_suppression``)."""
from __future__ import annotations

from typing import Union

from ...expr import Expr, TupleWrapper
from ...ty import TensorType, TupleType
from .._rel import RelayTypeError, tensor_arg
from ..registry import OpPattern, make_call, register
from ._util import as_expr, const_value, rank


def _valid_counts_rel(types, attrs):
    data = tensor_arg("vision.get_valid_counts", types, 0, "data")
    rank("vision.get_valid_counts", "data", data, 3)
    b, n = data.shape[0], data.shape[1]
    return TupleType([TensorType((b,), "int32"), TensorType(data.shape, data.dtype),
                      TensorType((b, n), "int32")])


def _nms_rel(types, attrs):
    op = "vision.non_max_suppression"
    data = tensor_arg(op, types, 0, "data")
    rank(op, "data", data, 3)
    rank(op, "valid_count", tensor_arg(op, types, 1, "valid_count"), 1)
    if attrs.return_indices:
        b, n = data.shape[0], data.shape[1]
        return TupleType([TensorType((b, n), "int32"), TensorType((b, 1), "int32")])
    return TensorType(data.shape, data.dtype)


def _all_class_nms_rel(types, attrs):
    op = "vision.all_class_non_max_suppression"
    boxes = tensor_arg(op, types, 0, "boxes")
    scores = tensor_arg(op, types, 1, "scores")
    rank(op, "boxes", boxes, 3)
    rank(op, "scores", scores, 3)
    batch, num_boxes = boxes.shape[0], boxes.shape[1]
    num_class = scores.shape[1]
    if attrs.output_format == "onnx":
        return TupleType([TensorType((batch * num_class * num_boxes, 3), "int64"),
                          TensorType((1,), "int64")])
    total = num_class * num_boxes
    return TupleType([TensorType((batch, total, 2), "int64"),
                      TensorType((batch, total), "float32"), TensorType((batch,), "int64")])


register("vision.get_valid_counts", 2, _valid_counts_rel, OpPattern.OPAQUE,
         {"score_threshold": None, "id_index": 0, "score_index": 1})
register("vision.non_max_suppression", 5, _nms_rel, OpPattern.OPAQUE,
         {"force_suppress": False, "top_k": -1, "coord_start": 2, "score_index": 1,
          "id_index": 0, "return_indices": True, "invalid_to_bottom": False})
register("vision.all_class_non_max_suppression", 5, _all_class_nms_rel, OpPattern.OPAQUE,
         {"output_format": "onnx"})


def get_valid_counts(data: Expr, score_threshold: Union[float, Expr], id_index: int = 0,
                     score_index: int = 1) -> TupleWrapper:
    """Count the boxes scoring above ``score_threshold`` and move them to the top.

    Returns
    -------
    TupleWrapper
        ``(valid_count (batch,) int32, out (data's shape), out_indices (batch, num_anchors)
        int32)``.
    """
    thr = as_expr(score_threshold, "float32")
    call = make_call("vision.get_valid_counts", [data, thr], score_threshold=const_value(thr),
                     id_index=int(id_index), score_index=int(score_index))
    return TupleWrapper(call, 3)


def non_max_suppression(data: Expr, valid_count: Expr, indices: Expr,
                        max_output_size: Union[int, Expr] = -1,
                        iou_threshold: Union[float, Expr] = 0.5, force_suppress: bool = False,
                        top_k: int = -1, coord_start: int = 2, score_index: int = 1,
                        id_index: int = 0, return_indices: bool = True,
                        invalid_to_bottom: bool = False) -> Union[Expr, TupleWrapper]:
    """Greedy non-maximum suppression (see ``topi.vision.non_max_suppression``).

    Returns
    -------
    Expr or TupleWrapper
        The boxes (data's shape), or with ``return_indices`` the pair ``(indices (batch,
        num_anchors) int32, count (batch, 1) int32)``.
    """
    call = make_call("vision.non_max_suppression",
                     [data, valid_count, indices, as_expr(max_output_size, "int32"),
                      as_expr(iou_threshold, "float32")],
                     force_suppress=bool(force_suppress), top_k=int(top_k),
                     coord_start=int(coord_start), score_index=int(score_index),
                     id_index=int(id_index), return_indices=bool(return_indices),
                     invalid_to_bottom=bool(invalid_to_bottom))
    return TupleWrapper(call, 2) if return_indices else call


def all_class_non_max_suppression(boxes: Expr, scores: Expr,
                                  max_output_boxes_per_class: Union[int, Expr] = -1,
                                  iou_threshold: Union[float, Expr] = -1.0,
                                  score_threshold: Union[float, Expr] = -1.0,
                                  output_format: str = "onnx") -> TupleWrapper:
    """Per-class non-maximum suppression (ONNX NonMaxSuppression, TensorFlow
    combined_non_max_suppression); see ``topi.vision.all_class_non_max_suppression``.

    Returns
    -------
    TupleWrapper
        "onnx": ``(indices (batch * classes * boxes, 3) int64, num_total (1,) int64)``;
        "tensorflow": ``(indices (batch, classes * boxes, 2) int64, scores, num_total
        (batch,) int64)``.
    """
    if output_format not in ("onnx", "tensorflow"):
        raise RelayTypeError(f"all_class_non_max_suppression: output_format must be 'onnx' or "
                             f"'tensorflow', got {output_format!r}")
    call = make_call("vision.all_class_non_max_suppression",
                     [boxes, scores, as_expr(max_output_boxes_per_class, "int32"),
                      as_expr(iou_threshold, "float32"), as_expr(score_threshold, "float32")],
                     output_format=output_format)
    return TupleWrapper(call, 2 if output_format == "onnx" else 3)


__all__ = ["get_valid_counts", "non_max_suppression", "all_class_non_max_suppression"]
