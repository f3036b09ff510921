"""Classic ``topi.cuda.conv3d_winograd``: tvmlite has no Winograd convolution; only the tile
size rule classic tests import is here (the operators raise UnsupportedError)."""
from __future__ import annotations

from ..utils import get_const_tuple


def _infer_tile_size(data, kernel) -> int:
    """The Winograd output tile classic picks for NCDHW ``data``: 4 when the height is a
    multiple of 8, else 2."""
    _, _, _, h, _ = get_const_tuple(data.shape)
    return 4 if h % 8 == 0 else 2


from ..._classic import fallback as _fallback  # noqa: E402

__getattr__ = _fallback(__name__)
