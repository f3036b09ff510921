"""Expression helpers shared by relay passes (classic ``pattern_utils.h``)."""
from __future__ import annotations

from typing import Sequence

from ..expr import Expr
from ..op.transform import expand_dims


def expand_bias_to_match_axis(bias: Expr, ndim: int, axes: Sequence[int]) -> Expr:
    """``bias`` (one dimension per axis of ``axes``, ascending) with unit dimensions added
    so that it broadcasts along ``axes`` of an ``ndim``-D value (classic
    ``ExpandBiasToMatchAxis``: ``expand_dims`` calls, none where nothing is missing)."""
    for i in range(len(axes), 0, -1):
        if i == len(axes):
            pad = ndim - axes[i - 1] - 1
            if pad > 0:
                bias = expand_dims(bias, i, pad)
        else:
            diff = axes[i] - axes[i - 1]
            if diff > 0:
                bias = expand_dims(bias, i, diff)
    return bias
