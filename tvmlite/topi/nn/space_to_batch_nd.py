"""``space_to_batch_nd`` and its inverse ``batch_to_space_nd``: move blocks of the ``M``
spatial dimensions that follow the batch dimension into (out of) the batch dimension.

A data tensor is ``[batch, spatial_1 .. spatial_M, remaining...]``. A batch index of the
space-to-batch output is ``offset * batch + n``, where ``offset`` is the row-major flat index
of the position ``(o_1 .. o_M)`` inside a block (``o_i < block_shape[i]``).
"""
from __future__ import annotations

import math
from typing import List, Sequence, Tuple

from ...te.operation import compute
from ...te.tensor import Tensor
from .. import tag
from ..utils import TopiError, check_strides, const_ints, get_const_int, ravel_index
from ..utils import unravel_index as _unravel
from .pad import pad


def _check(op: str, data: Tensor, block_shape, before, after, before_name: str,
           after_name: str) -> Tuple[int, List[int], List[int], List[int]]:
    if not isinstance(data, Tensor):
        raise TopiError(f"{op}: data must be a Tensor, got {data!r}")
    m = len(list(block_shape))
    if m < 1 or m >= data.ndim:
        raise TopiError(f"{op}: block_shape must have 1 to {data.ndim - 1} entries (the spatial "
                        f"dimensions after the batch), got {list(block_shape)}")
    blocks = list(check_strides(block_shape, m, op, "block_shape"))
    lo = list(const_ints(before, m, op, before_name))
    hi = list(const_ints(after, m, op, after_name))
    if any(v < 0 for v in lo + hi):
        raise TopiError(f"{op}: {before_name} and {after_name} must not be negative, got "
                        f"{lo} and {hi}")
    return m, blocks, lo, hi


def space_to_batch_nd(data: Tensor, block_shape: Sequence[int], pad_before: Sequence[int],
                      pad_after: Sequence[int], pad_value=0.0) -> Tensor:
    """Pad the spatial dimensions of ``data`` and move ``block_shape`` blocks of them into the
    batch: ``[N, S_1 .. S_M, R...] -> [N * prod(block_shape), (S_i + pads_i) / block_i ...,
    R...]`` (stage ``space_to_batch_nd``, tag "injective").

    Parameters
    ----------
    data : Tensor
        ``[batch, spatial_1 .. spatial_M, remaining...]``.
    block_shape : list of int
        The ``M`` block sizes; each divides its padded spatial dimension.
    pad_before, pad_after : list of int
        The ``M`` paddings before / after each spatial dimension.
    pad_value : float
        The value of the padding.

    Returns
    -------
    Tensor
        ``[batch * prod(block_shape), padded_i / block_i ..., remaining...]``.
    """
    op = "space_to_batch_nd"
    m, blocks, lo, hi = _check(op, data, block_shape, pad_before, pad_after, "pad_before",
                               "pad_after")
    batch = data.shape[0]
    spatial = []
    for i in range(m):
        size = get_const_int(data.shape[i + 1]) + lo[i] + hi[i]
        if size % blocks[i]:
            raise TopiError(f"{op}: block_shape[{i}] = {blocks[i]} does not divide the padded "
                            f"spatial dimension {i + 1} ({size})")
        spatial.append(size // blocks[i])
    rest = list(data.shape[m + 1:])
    padded = data
    if any(lo) or any(hi):
        zeros = [0] * (data.ndim - m - 1)
        padded = pad(data, [0] + lo + zeros, [0] + hi + zeros, pad_value)
    shape = [batch * math.prod(blocks)] + spatial + rest

    def f(*i):
        offsets = _unravel(i[0] // batch, blocks)
        src = [y * b + o for y, b, o in zip(i[1:m + 1], blocks, offsets)]
        return padded(i[0] % batch, *src, *i[m + 1:])
    return compute(shape, f, name=op, tag=tag.INJECTIVE)


def batch_to_space_nd(data: Tensor, block_shape: Sequence[int], crop_begin_list: Sequence[int],
                      crop_end_list: Sequence[int]) -> Tensor:
    """The inverse of :func:`space_to_batch_nd`: move blocks out of the batch into the spatial
    dimensions and crop them: ``[N, S_1 .. S_M, R...] -> [N / prod(block_shape),
    S_i * block_i - crop_begin_i - crop_end_i ..., R...]`` (stage ``batch_to_space_nd``, tag
    "injective").

    Parameters
    ----------
    data : Tensor
        ``[batch, spatial_1 .. spatial_M, remaining...]``; ``prod(block_shape)`` divides batch.
    block_shape : list of int
        The ``M`` block sizes.
    crop_begin_list, crop_end_list : list of int
        The ``M`` crops at the start / end of each spatial dimension.

    Returns
    -------
    Tensor
        ``[batch / prod(block_shape), spatial_i * block_i - crops_i ..., remaining...]``.
    """
    op = "batch_to_space_nd"
    m, blocks, lo, hi = _check(op, data, block_shape, crop_begin_list, crop_end_list,
                               "crop_begin_list", "crop_end_list")
    in_batch, nblock = get_const_int(data.shape[0]), math.prod(blocks)
    if in_batch % nblock:
        raise TopiError(f"{op}: the batch ({in_batch}) is not a multiple of prod(block_shape) "
                        f"({nblock})")
    batch = in_batch // nblock
    spatial = []
    for i in range(m):
        size = get_const_int(data.shape[i + 1]) * blocks[i] - lo[i] - hi[i]
        if size < 0:
            raise TopiError(f"{op}: the crops of spatial dimension {i + 1} ({lo[i]} + {hi[i]}) "
                            f"exceed its size after the block move")
        spatial.append(size)
    shape = [batch] + spatial + list(data.shape[m + 1:])

    def f(*i):
        full = [x + c for x, c in zip(i[1:m + 1], lo)]
        offset = ravel_index([x % b for x, b in zip(full, blocks)], blocks)
        return data(offset * batch + i[0], *[x // b for x, b in zip(full, blocks)],
                    *i[m + 1:])
    return compute(shape, f, name=op, tag=tag.INJECTIVE)

