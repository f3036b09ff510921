"""``topi.nn.batch_flatten``: ``(N, d1, d2, ...) -> (N, d1*d2*...)``."""
from __future__ import annotations

from ...te.operation import compute
from ...te.tensor import Tensor
from .. import tag
from ..utils import prod, unravel_index


def batch_flatten(data: Tensor) -> Tensor:
    """Flatten all but the first dimension (stage ``tensor``)."""
    inner = list(data.shape[1:])
    dim = prod(inner)
    return compute((data.shape[0], dim),
                   lambda i, j: data(i, *unravel_index(j, inner)), name="tensor",
                   tag=tag.INJECTIVE)
