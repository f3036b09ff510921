"""``topi.image.affine_grid``: the sampling grid of a 2-D affine transformation."""
from __future__ import annotations

from typing import Sequence

from ...te.operation import compute
from ...te.tensor import Tensor
from ...tir import op as _op
from ..utils import TopiError


def affine_grid(data: Tensor, target_shape: Sequence[int]) -> Tensor:
    """The grid ``(batch, 2, H, W)`` of the affine matrices ``data`` ``(batch, 2, 3)`` applied
    to a uniform grid of ``target_shape = (H, W)`` over ``[-1, 1]``: ``out[n, d, i, j] =
    data[n, d, 0] * x_j + data[n, d, 1] * y_i + data[n, d, 2]``. Tag "affine_grid"."""
    op = "affine_grid"
    if not isinstance(data, Tensor) or data.ndim != 3:
        raise TopiError(f"{op}: data must be a 3-D (batch, 2, 3) Tensor")
    if target_shape is None or len(target_shape) != 2 or min(target_shape) <= 1:
        raise TopiError(f"{op}: target_shape must be two sizes greater than 1, got "
                        f"{target_shape!r}")
    h, w = (int(v) for v in target_shape)
    dtype = data.dtype
    # classic's steps: just under 2 / (n - 1), so the last point stays below 1
    y_step = _op.const((2.0 - 1e-7) / (h - 1), dtype)
    x_step = _op.const((2.0 - 1e-7) / (w - 1), dtype)
    start = _op.const(-1.0, dtype)

    def f(n, dim, i, j):
        y = start + _op.cast(dtype, i) * y_step
        x = start + _op.cast(dtype, j) * x_step
        return data[n, dim, 0] * x + data[n, dim, 1] * y + data[n, dim, 2]
    return compute((data.shape[0], 2, h, w), f, tag="affine_grid")
