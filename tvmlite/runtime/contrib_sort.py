"""The sort packed functions (classic ``src/runtime/contrib/sort``): ``tvm.contrib.sort.sort``,
``...argsort``, ``...argsort_nms`` and ``...topk``.

``topi.sort``/``argsort``/``topk`` are ``te.extern`` ops whose body calls these by name, so a
compiled (or exported and reloaded) module finds them through the global registry; the
registry imports this module the first time one of the names is asked for.

Sorting is stable: equal elements keep the lower index first, ascending and descending alike.
NaNs go last when ascending and first when descending (numpy's order, reversed).
"""
from __future__ import annotations

import numpy as np

from ..error import TVMError
from .packed_func import register_func


def _view(x) -> np.ndarray:
    return x._numpy_view() if hasattr(x, "_numpy_view") else np.asarray(x)


def _axis(name: str, axis: int, ndim: int) -> int:
    axis = int(axis)
    if not -ndim <= axis < ndim:
        raise TVMError(f"{name}: axis {axis} is out of range for {ndim} dimension(s)")
    return axis + ndim if axis < 0 else axis


def stable_argsort(x: np.ndarray, axis: int, is_ascend: bool) -> np.ndarray:
    """Indices sorting ``x`` along ``axis``; ties keep the lower index first either way."""
    if is_ascend:
        return np.argsort(x, axis=axis, kind="stable")
    # descending with stable ties: the ascending stable order of the reversed axis, reversed
    n = x.shape[axis]
    rev = np.argsort(np.flip(x, axis), axis=axis, kind="stable")
    return np.flip((n - 1) - rev, axis)


def _store(out, value: np.ndarray, name: str) -> None:
    dst = _view(out)
    if dst.shape != value.shape:
        raise TVMError(f"{name}: output has shape {dst.shape}, expected {value.shape}")
    np.copyto(dst, value, casting="unsafe")


@register_func("tvm.contrib.sort.sort", override=True)
def _sort(data, out, axis: int = -1, is_ascend: bool = True) -> None:
    x = _view(data)
    ax = _axis("tvm.contrib.sort.sort", axis, x.ndim)
    idx = stable_argsort(x, ax, bool(is_ascend))
    _store(out, np.take_along_axis(x, idx, ax), "tvm.contrib.sort.sort")


@register_func("tvm.contrib.sort.argsort", override=True)
def _argsort(data, out, axis: int = -1, is_ascend: bool = True) -> None:
    x = _view(data)
    ax = _axis("tvm.contrib.sort.argsort", axis, x.ndim)
    _store(out, stable_argsort(x, ax, bool(is_ascend)), "tvm.contrib.sort.argsort")


@register_func("tvm.contrib.sort.argsort_nms", override=True)
def _argsort_nms(data, valid_count, out, axis: int = -1, is_ascend: bool = True) -> None:
    """Argsort of the first ``valid_count`` elements of each slice along ``axis``; the
    positions past them hold their own index (``valid_count`` has ``data``'s shape without
    ``axis``, or is 1-D over the flattened other dimensions)."""
    name = "tvm.contrib.sort.argsort_nms"
    x = _view(data)
    ax = _axis(name, axis, x.ndim)
    n = x.shape[ax]
    moved = np.moveaxis(x, ax, -1)
    rows = moved.reshape(int(np.prod(moved.shape[:-1], dtype=np.int64)), n)  # n may be 0
    counts = _view(valid_count).reshape(-1)
    if counts.size != rows.shape[0]:
        raise TVMError(f"{name}: valid_count has {counts.size} entries, data {x.shape} has "
                       f"{rows.shape[0]} slices along axis {ax}")
    res = np.broadcast_to(np.arange(n, dtype=np.int64), rows.shape).copy()
    for r, c in enumerate(np.clip(counts, 0, n).astype(np.int64)):
        if c:
            res[r, :c] = stable_argsort(rows[r, :c], 0, bool(is_ascend))
    shape = tuple(np.delete(x.shape, ax)) + (n,)
    _store(out, np.moveaxis(res.reshape(shape), -1, ax), name)


@register_func("tvm.contrib.sort.topk", override=True)
def _topk(data, *args) -> None:
    """``(data, [values], [indices], k, axis, ret_type, is_ascend)``: the outputs present
    are those ``ret_type`` ("both", "values" or "indices") names; ``k < 1`` means all."""
    name = "tvm.contrib.sort.topk"
    if len(args) < 5:
        raise TVMError(f"{name}: expected data, outputs, k, axis, ret_type, is_ascend")
    *outs, k, axis, ret_type, is_ascend = args
    wanted = {"both": 2, "values": 1, "indices": 1}.get(ret_type)
    if wanted is None:
        raise TVMError(f"{name}: ret_type must be 'both', 'values' or 'indices', "
                       f"got {ret_type!r}")
    if len(outs) != wanted:
        raise TVMError(f"{name}: ret_type {ret_type!r} takes {wanted} output(s), "
                       f"got {len(outs)}")
    x = _view(data)
    ax = _axis(name, axis, x.ndim)
    n = x.shape[ax]
    k = n if int(k) < 1 else int(k)
    if k > n:
        raise TVMError(f"{name}: k={k} is larger than axis {ax} of shape {x.shape}")
    idx = np.take(stable_argsort(x, ax, bool(is_ascend)), np.arange(k), axis=ax)
    if ret_type in ("both", "values"):
        _store(outs[0], np.take_along_axis(x, idx, ax), name)
    if ret_type in ("both", "indices"):
        _store(outs[-1], idx, name)


NAMES = ("tvm.contrib.sort.sort", "tvm.contrib.sort.argsort", "tvm.contrib.sort.argsort_nms",
         "tvm.contrib.sort.topk")

__all__ = ["stable_argsort", "NAMES"]
