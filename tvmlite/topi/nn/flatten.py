"""``topi.nn.flatten``: ``(N, d1, d2, ...) -> (N, d1*d2*...)``."""
from __future__ import annotations

from ...te.operation import compute
from ...te.tensor import Tensor
from .. import tag
from ..utils import TopiError, prod, unravel_index


def flatten(data: Tensor) -> Tensor:
    """Flatten all but the first dimension (stage ``tensor``, tag "injective")."""
    if not isinstance(data, Tensor) or data.ndim < 1:
        raise TopiError(f"flatten: data must be a Tensor of rank >= 1, got {data!r}")
    inner = list(data.shape[1:])
    dim = prod(inner)
    return compute((data.shape[0], dim),
                   lambda i, j: data(i, *unravel_index(j, inner)), name="tensor",
                   tag=tag.INJECTIVE)


batch_flatten = flatten  # the C++-side spelling classic TOPI also exports
