"""NumPy references of the block moves between space and batch / channels
(``space_to_batch_nd_python``, ``batch_to_space_nd_python``, ``reorg_python``)."""
from __future__ import annotations

from typing import Sequence

import numpy as np


def space_to_batch_nd_python(data: np.ndarray, block_shape: Sequence[int],
                             pad_before: Sequence[int], pad_after: Sequence[int],
                             pad_value=0) -> np.ndarray:
    """``topi.nn.space_to_batch_nd``: pad the ``M`` spatial dimensions after the batch, then
    move each ``block_shape`` block position into the batch (block position major)."""
    m, n = len(block_shape), data.shape[0]
    pads = [(0, 0)] + list(zip(pad_before, pad_after)) + [(0, 0)] * (data.ndim - 1 - m)
    x = np.pad(data, pads, mode="constant", constant_values=pad_value)
    split = [n]
    for i, b in enumerate(block_shape):
        split += [x.shape[i + 1] // b, b]
    split += list(x.shape[m + 1:])
    x = x.reshape(split)
    block_axes = [2 + 2 * i for i in range(m)]
    axes = block_axes + [0] + [1 + 2 * i for i in range(m)] + list(range(2 * m + 1, x.ndim))
    x = x.transpose(axes)
    return x.reshape([n * int(np.prod(block_shape))]
                     + [x.shape[m + 1 + i] for i in range(m)] + list(data.shape[m + 1:]))


def batch_to_space_nd_python(data: np.ndarray, block_shape: Sequence[int],
                             crop_begin_list: Sequence[int],
                             crop_end_list: Sequence[int]) -> np.ndarray:
    """``topi.nn.batch_to_space_nd``: the inverse block move of
    :func:`space_to_batch_nd_python`, then the crops of each spatial dimension."""
    m = len(block_shape)
    n = data.shape[0] // int(np.prod(block_shape))
    x = data.reshape(list(block_shape) + [n] + list(data.shape[1:]))
    axes = [m]
    for i in range(m):
        axes += [m + 1 + i, i]
    axes += list(range(2 * m + 1, x.ndim))
    x = x.transpose(axes)
    spatial = [data.shape[i + 1] * b for i, b in enumerate(block_shape)]
    x = x.reshape([n] + spatial + list(data.shape[m + 1:]))
    index = [slice(None)] + [slice(lo, s - hi) for lo, hi, s in
                             zip(crop_begin_list, crop_end_list, spatial)]
    return x[tuple(index)]


def reorg_python(a_np: np.ndarray, stride: int) -> np.ndarray:
    """``topi.vision.reorg`` (darknet): output element ``(b, k, j, i)`` of the input-shaped
    result reads the flat input position ``w2 + W s (h2 + H s (k % C' + C' b))`` with
    ``C' = C / s^2``, ``h2 = j s + (k / C') / s`` and ``w2 = i s + (k / C') % s``; the result
    is reshaped to ``(N, C s^2, H / s, W / s)``."""
    n, c, h, w = a_np.shape
    s = stride
    oc = c // (s * s)
    b, k, j, i = np.meshgrid(np.arange(n), np.arange(c), np.arange(h), np.arange(w),
                             indexing="ij")
    off = k // oc
    flat = (i * s + off % s) + w * s * ((j * s + off // s) + h * s * (k % oc + oc * b))
    return a_np.reshape(-1)[flat].reshape(n, c * s * s, h // s, w // s)
