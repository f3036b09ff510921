"""``topi.cuda.cumsum`` / ``cumprod``: the walk of :mod:`tvmlite.topi.scan` with each line
along the axis run by its own GPU thread."""
from __future__ import annotations

from typing import Optional

from ...te.tensor import Tensor
from ...tir import op as _op
from ..scan import scanop


def cumsum(data: Tensor, axis: Optional[int] = None, dtype: Optional[str] = None,
           exclusive: Optional[bool] = None) -> Tensor:
    """:func:`tvmlite.topi.cumsum` for a GPU target."""
    return scanop(data, _op.add, 0, "cumsum", axis, dtype, exclusive, gpu=True)


def cumprod(data: Tensor, axis: Optional[int] = None, dtype: Optional[str] = None,
            exclusive: Optional[bool] = None) -> Tensor:
    """:func:`tvmlite.topi.cumprod` for a GPU target."""
    return scanop(data, _op.mul, 1, "cumprod", axis, dtype, exclusive, gpu=True)
