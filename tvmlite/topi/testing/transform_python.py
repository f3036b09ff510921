"""Numpy references for TOPI's gather-like transforms (classic ``topi.testing`` names)."""
from __future__ import annotations

import itertools

import numpy as np


def gather_python(data: np.ndarray, axis: int, indices: np.ndarray) -> np.ndarray:
    """``topi.gather``: ``numpy.take_along_axis``."""
    return np.take_along_axis(data, indices, axis)


def gather_nd_python(a_np: np.ndarray, indices_np: np.ndarray) -> np.ndarray:
    """``topi.gather_nd``: ``a[indices[0], indices[1], ...]`` (indices truncated to int)."""
    return a_np[tuple(np.asarray(indices_np).astype("int64"))]


def strided_set_python(data: np.ndarray, v: np.ndarray, begin, end, strides) -> np.ndarray:
    """``topi.strided_set``: a copy of ``data`` with ``data[begin:end:strides]`` (per leading
    dimension, numpy slicing) set to ``v``."""
    strides = [] if strides is None else list(strides)

    def part(x, d):
        return x[d] if d < len(x) else None
    res = data.copy()
    res[tuple(slice(part(begin, d), part(end, d), part(strides, d))
              for d in range(data.ndim))] = v
    return res


def sequence_mask(data: np.ndarray, valid_length: np.ndarray, mask_value, axis: int
                  ) -> np.ndarray:
    """``topi.sequence_mask``: ``data`` ``[MAX_LENGTH, batch, ...]`` (``axis`` 0) or
    ``[batch, MAX_LENGTH, ...]`` (``axis`` 1) with the positions at or past
    ``valid_length[b]`` along ``axis`` set to ``mask_value``."""
    pos = np.arange(data.shape[axis]).reshape([-1 if d == axis else 1
                                               for d in range(data.ndim)])
    lengths = np.asarray(valid_length).reshape([-1 if d == 1 - axis else 1
                                                for d in range(data.ndim)])
    return np.where(pos >= lengths, np.asarray(mask_value, data.dtype), data)


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


def searchsorted_ref(sorted_sequence, values, right: bool, out_dtype) -> np.ndarray:
    """``topi.searchsorted``: ``numpy.searchsorted`` per innermost row (the one row of a 1-D
    sequence for every value)."""
    side = "right" if right else "left"
    seq, vals = np.asarray(sorted_sequence), np.asarray(values)
    if seq.ndim == 1:
        return np.searchsorted(seq, vals, side=side).astype(out_dtype)
    out = np.empty(vals.shape, out_dtype)
    for idx in np.ndindex(*vals.shape[:-1]):
        out[idx] = np.searchsorted(seq[idx], vals[idx], side=side)
    return out


def affine_grid_python(data: np.ndarray, target_shape) -> np.ndarray:
    """The grid ``(batch, 2, H, W)`` of the affine matrices ``data`` ``(batch, 2, 3)`` on a
    uniform ``target_shape`` grid over ``[-1, 1]``."""
    h, w = target_shape
    y, x = np.meshgrid(np.linspace(-1, 1, h), np.linspace(-1, 1, w), indexing="ij")
    points = np.stack([x, y, np.ones_like(x)]).reshape(3, -1)  # (3, H*W)
    return (data @ points).reshape(data.shape[0], 2, h, w).astype(data.dtype)


def grid_sample_python(data: np.ndarray, grid: np.ndarray, method: str = "bilinear",
                       layout: str = "NCHW", padding_mode: str = "zeros",
                       align_corners: bool = True) -> np.ndarray:
    """PyTorch's ``grid_sample`` of "NCHW" / "NCDHW" ``data`` at ``grid`` ``(N, nd, ...)``
    (x first, normalised to [-1, 1]): "nearest" (halves to even), "bilinear" or "bicubic"
    (coefficient -0.75); padding "zeros", "border" or "reflection"."""
    nd = data.ndim - 2
    sizes = data.shape[2:]
    n_idx = np.arange(data.shape[0]).reshape((-1,) + (1,) * nd)
    chan_last = np.moveaxis(data.astype("float64"), 1, -1)  # (N, *sizes, C)

    def reflect(x, size):
        lo, span = (0.0, size - 1) if align_corners else (-0.5, size)
        if span <= 0:
            return np.full_like(x, lo)
        d = np.abs(x - lo)
        flips = np.floor(d / span)
        extra = d - flips * span
        inside = (x >= lo) & (x <= lo + span)
        return np.where(inside, x, np.where(flips % 2 == 0, lo + extra, lo + span - extra))

    def pad(x, size):
        if padding_mode == "reflection":
            x = reflect(x, size)
        if padding_mode != "zeros":
            x = np.clip(x, 0, size - 1)
        return x

    def gather(idx):
        ok = np.ones(idx[0].shape, bool)
        for i, s in zip(idx, sizes):
            ok &= (i >= 0) & (i < s)
        safe = [np.clip(i, 0, s - 1) for i, s in zip(idx, sizes)]
        return np.where(ok[..., None], chan_last[(n_idx, *safe)], 0.0)

    coords = []
    for k, size in enumerate(sizes):
        g = grid[:, nd - 1 - k].astype("float64")
        coords.append((g + 1) * (size - 1) / 2 if align_corners else ((g + 1) * size - 1) / 2)
    if method == "nearest":
        out = gather([np.rint(pad(c, s)).astype(int) for c, s in zip(coords, sizes)])
    else:
        axes_taps = []
        for c, size in zip(coords, sizes):
            if method == "bilinear":
                c = pad(c, size)
            lo = np.floor(c)
            t = c - lo
            if method == "bilinear":
                axes_taps.append([(lo, 1 - t), (lo + 1, t)])
                continue
            a = -0.75
            w = [a * (t ** 3 - 2 * t ** 2 + t), (a + 2) * t ** 3 - (a + 3) * t ** 2 + 1,
                 -(a + 2) * t ** 3 + (2 * a + 3) * t ** 2 - a * t, -a * t ** 3 + a * t ** 2]
            axes_taps.append([(pad(lo + k - 1, size) if padding_mode != "zeros" else lo + k - 1,
                               wk) for k, wk in enumerate(w)])
        out = 0.0
        for combo in itertools.product(*axes_taps):
            weight = np.prod([w for _, w in combo], axis=0)
            out = out + gather([i.astype(int) for i, _ in combo]) * weight[..., None]
    return np.moveaxis(out, -1, 1).astype(data.dtype)
