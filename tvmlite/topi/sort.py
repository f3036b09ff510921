"""Sorting operators (``topi.sort``, ``topi.argsort``, ``topi.topk``).

Each is a ``te.extern`` whose body calls a packed function by name
(``tvm.contrib.sort.sort``/``argsort``/``argsort_nms``/``topk``, in
:mod:`tvmlite.runtime.contrib_sort`), so the sort runs on the host CPU. Sorting is stable:
equal elements keep the lower index first.
"""
from __future__ import annotations

from typing import List, Optional, Union

from .. import te, tir
from ..ir import dtype as _dt
from ..te.tensor import Tensor
from .utils import TopiError, get_const_tuple

_RET_TYPES = ("both", "values", "indices")


def _check(op: str, data, axis) -> int:
    if not isinstance(data, Tensor):
        raise TopiError(f"{op}: data must be a te.Tensor, got {type(data).__name__}")
    ndim = len(data.shape)
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise TopiError(f"{op}: axis must be an int, got {axis!r}")
    if not -ndim <= axis < ndim:
        raise TopiError(f"{op}: axis {axis} is out of range for {ndim} dimension(s) "
                        f"(shape {tuple(data.shape)})")
    return axis + ndim if axis < 0 else axis


def _dtype(op: str, dtype) -> str:
    try:
        return _dt.canonical(str(dtype))
    except Exception as e:  # noqa: BLE001  (any bad spelling is the caller's error)
        raise TopiError(f"{op}: bad dtype {dtype!r}") from e


def sort(data: Tensor, axis: int = -1, is_ascend: bool = True) -> Tensor:
    """``data`` sorted along ``axis`` (ascending unless ``is_ascend`` is false)."""
    ax = _check("sort", data, axis)
    return te.extern(data.shape, [data], lambda ins, outs: tir.call_packed(
        "tvm.contrib.sort.sort", ins[0], outs[0], ax, bool(is_ascend)),
        dtype=data.dtype, name="sort_cpu", tag="sort_cpu")


def argsort(data: Tensor, valid_count: Optional[Tensor] = None, axis: int = -1,
            is_ascend: bool = True, dtype: str = "float32") -> Tensor:
    """Indices that sort ``data`` along ``axis``, of dtype ``dtype``.

    With ``valid_count`` (``data``'s shape without ``axis``) only the first ``valid_count``
    elements of each slice are sorted; the indices past them stay in place, and the result
    is int32 (classic ``argsort_nms``)."""
    ax = _check("argsort", data, axis)
    if valid_count is None:
        dtype = _dtype("argsort", dtype)
        return te.extern(data.shape, [data], lambda ins, outs: tir.call_packed(
            "tvm.contrib.sort.argsort", ins[0], outs[0], ax, bool(is_ascend)),
            dtype=dtype, name="argsort_cpu", tag="argsort_cpu")
    if not isinstance(valid_count, Tensor):
        raise TopiError(f"argsort: valid_count must be a te.Tensor, got {valid_count!r}")
    shape = get_const_tuple(data.shape)
    want = shape[:ax] + shape[ax + 1:]
    got = get_const_tuple(valid_count.shape)
    if got != want and (len(got) != 1 or _prod(got) != _prod(want)):
        raise TopiError(f"argsort: valid_count has shape {got}, expected {want} (data "
                        f"{shape} without axis {ax})")
    if not valid_count.dtype.startswith("int"):
        raise TopiError(f"argsort: valid_count must be an integer tensor, got "
                        f"{valid_count.dtype}")
    return te.extern(data.shape, [data, valid_count], lambda ins, outs: tir.call_packed(
        "tvm.contrib.sort.argsort_nms", ins[0], ins[1], outs[0], ax, bool(is_ascend)),
        dtype="int32", name="argsort_nms_cpu", tag="argsort_nms_cpu")


def _prod(shape) -> int:
    n = 1
    for s in shape:
        n *= int(s)
    return n


def topk(data: Tensor, k: int = 1, axis: int = -1, ret_type: str = "both",
         is_ascend: bool = False, dtype: str = "int64") -> Union[Tensor, List[Tensor]]:
    """The ``k`` largest (smallest if ``is_ascend``) elements along ``axis``, in order.

    ``k < 1`` takes them all. ``ret_type`` "both" returns ``[values, indices]``, "values"
    or "indices" the one tensor; ``dtype`` is the indices' dtype."""
    ax = _check("topk", data, axis)
    if ret_type not in _RET_TYPES:
        raise TopiError(f"topk: ret_type must be one of {_RET_TYPES}, got {ret_type!r}")
    if isinstance(k, bool) or not isinstance(k, int):
        try:
            k = int(get_const_tuple([k])[0])
        except Exception as e:  # noqa: BLE001
            raise TopiError(f"topk: k must be a constant int, got {k!r}") from e
    shape = list(get_const_tuple(data.shape))
    n = shape[ax]
    if k > n:
        raise TopiError(f"topk: k={k} is larger than axis {ax} of data shape {tuple(shape)} "
                        f"(size {n})")
    shape[ax] = k if k >= 1 else n
    dtype = _dtype("topk", dtype)
    dtypes = {"both": [data.dtype, dtype], "values": [data.dtype], "indices": [dtype]}[ret_type]
    outs = te.extern([list(shape)] * len(dtypes), [data], lambda ins, outs: tir.call_packed(
        "tvm.contrib.sort.topk", ins[0], *outs, k, ax, ret_type, bool(is_ascend)),
        dtype=dtypes, name="topk_cpu", tag="topk_cpu")
    return list(outs) if ret_type == "both" else outs


__all__ = ["sort", "argsort", "topk"]
