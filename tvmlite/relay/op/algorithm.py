"""Sorting operators (``relay.sort``, ``relay.argsort``, ``relay.topk``).

Their types come from the TOPI computes (``topi_rel``); they are OPAQUE (never fused) and
lower to ``te.extern`` calls of the ``tvm.contrib.sort.*`` packed functions.
"""
from __future__ import annotations

from typing import Union

import numpy as np

from ..expr import Constant, Expr, TupleWrapper
from ._rel import RelayTypeError, topi_rel
from .registry import OpPattern, make_call, register

register("sort", 1, topi_rel("sort"), OpPattern.OPAQUE, {"axis": -1, "is_ascend": True})
register("argsort", 1, topi_rel("argsort"), OpPattern.OPAQUE,
         {"axis": -1, "is_ascend": True, "dtype": "int32"})
register("topk", 1, topi_rel("topk"), OpPattern.OPAQUE,
         {"k": 1, "axis": -1, "ret_type": "both", "is_ascend": False, "dtype": "int32"})

register("searchsorted", 2, topi_rel("searchsorted"), OpPattern.OPAQUE,
         {"right": False, "dtype": "int64"})

_RET_TYPES = ("both", "values", "indices")


def searchsorted(sorted_sequence: Expr, values: Expr, right: bool = False,
                 dtype: str = "int64") -> Expr:
    """For each value, the index (of ``dtype``) in its row of ``sorted_sequence`` (the
    innermost axis) where it would be inserted to keep the order: before equal elements,
    or after them when ``right`` (``numpy.searchsorted``)."""
    return make_call("searchsorted", [sorted_sequence, values], right=bool(right),
                     dtype=str(dtype))


def sort(data: Expr, axis: int = -1, is_ascend: bool = True) -> Expr:
    """``data`` sorted along ``axis`` (ascending unless ``is_ascend`` is false)."""
    return make_call("sort", [data], axis=int(axis), is_ascend=bool(is_ascend))


def argsort(data: Expr, axis: int = -1, is_ascend: bool = True, dtype: str = "int32") -> Expr:
    """Indices (of dtype ``dtype``) that sort ``data`` along ``axis``; ties keep the lower
    index first."""
    return make_call("argsort", [data], axis=int(axis), is_ascend=bool(is_ascend),
                     dtype=str(dtype))


def topk(data: Expr, k: Union[int, Expr] = 1, axis: int = -1, ret_type: str = "both",
         is_ascend: bool = False, dtype: str = "int32") -> Union[Expr, TupleWrapper]:
    """The top ``k`` elements along ``axis`` (all of them if ``k < 1``), largest first unless
    ``is_ascend``. ``ret_type`` "both" gives a 2-tuple ``(values, indices)``, "values" or
    "indices" the one tensor; ``k`` may be an int or a scalar relay constant."""
    if isinstance(k, Constant):
        k = np.asarray(k.data.numpy()).reshape(-1)
        if k.size != 1:
            raise RelayTypeError(f"topk: k must be a scalar constant, got shape {k.shape}")
        k = k.item()
    if isinstance(k, Expr):  # k computed at run time
        from .dyn import topk as dyn_topk
        return dyn_topk(data, k, axis, ret_type, is_ascend, dtype)
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise RelayTypeError(f"topk: k must be an int, got {k!r}")
    if ret_type not in _RET_TYPES:
        raise RelayTypeError(f"topk: ret_type must be one of {_RET_TYPES}, got {ret_type!r}")
    call = make_call("topk", [data], k=int(k), axis=int(axis), ret_type=str(ret_type),
                     is_ascend=bool(is_ascend), dtype=str(dtype))
    return TupleWrapper(call, 2) if ret_type == "both" else call


__all__ = ["sort", "argsort", "topk", "searchsorted"]
