"""Numpy references for TOPI's gather-like transforms (classic ``topi.testing`` names)."""
from __future__ import annotations

import numpy as np


def gather_python(data: np.ndarray, axis: int, indices: np.ndarray) -> np.ndarray:
    """``topi.gather``: ``numpy.take_along_axis``."""
    return np.take_along_axis(data, indices, axis)


def gather_nd_python(a_np: np.ndarray, indices_np: np.ndarray) -> np.ndarray:
    """``topi.gather_nd``: ``a[indices[0], indices[1], ...]``."""
    return a_np[tuple(indices_np)]


def one_hot(indices, on_value, off_value, depth: int, axis: int, dtype) -> np.ndarray:
    """``topi.one_hot``: a new dimension ``axis`` (-1: last) of extent ``depth``."""
    oh = np.where(np.asarray(indices)[..., None] == np.arange(depth), on_value, off_value)
    return np.moveaxis(oh.astype(dtype), -1, axis if axis != -1 else -1)


def matrix_set_diag(input_np: np.ndarray, diagonal: np.ndarray, k=0,
                    align: str = "RIGHT_LEFT") -> np.ndarray:
    """``topi.matrix_set_diag`` with a loop over the diagonals."""
    k1, k2 = (k, k) if isinstance(k, int) else (k[0], k[-1])
    out = input_np.copy()
    m, n = input_np.shape[-2:]
    maxlen = diagonal.shape[-1]
    for d in range(k1, k2 + 1):
        length = min(m + min(d, 0), n - max(d, 0))
        right = align.startswith("RIGHT") if d >= 0 else align.endswith("RIGHT")
        off = maxlen - length if right else 0
        for t in range(length):
            r, c = t - min(d, 0), t + max(d, 0)
            out[..., r, c] = diagonal[..., t + off] if k1 == k2 else \
                diagonal[..., k2 - d, t + off]
    return out


def affine_grid_python(data: np.ndarray, target_shape) -> np.ndarray:
    """The grid ``(batch, 2, H, W)`` of the affine matrices ``data`` ``(batch, 2, 3)`` on a
    uniform ``target_shape`` grid over ``[-1, 1]``."""
    h, w = target_shape
    y, x = np.meshgrid(np.linspace(-1, 1, h), np.linspace(-1, 1, w), indexing="ij")
    points = np.stack([x, y, np.ones_like(x)]).reshape(3, -1)  # (3, H*W)
    return (data @ points).reshape(data.shape[0], 2, h, w).astype(data.dtype)
