"""Helpers of the nn operators (``topi.nn.utils``): padding tuples and output sizes."""
from __future__ import annotations

from typing import Tuple

from ...tir import op as _op
from ...tir.expr import IntImm, PrimExpr
from ..utils import TopiError


def get_pad_tuple(padding, kernel):
    """``(top, left, bottom, right)`` padding from an int, a pair, a 4-tuple, "SAME" or
    "VALID" (``kernel`` is ``(kh, kw)``, used by "SAME")."""
    if isinstance(padding, (tuple, list)):
        if len(padding) == 2:
            pad_h, pad_w = padding[0] * 2, padding[1] * 2
        elif len(padding) == 4:
            return padding[0], padding[1], padding[2], padding[3]
        else:
            raise TopiError("Size of padding can only be 2 or 4")
    elif isinstance(padding, int):
        pad_h = pad_w = padding * 2
    elif padding == "VALID":
        pad_h = pad_w = 0
    elif padding == "SAME":
        pad_h, pad_w = kernel[0] - 1, kernel[1] - 1
    else:
        raise TopiError(f"Unknown padding option {padding}")
    pad_top = (pad_h + 1) // 2
    pad_left = (pad_w + 1) // 2
    return pad_top, pad_left, pad_h - pad_top, pad_w - pad_left


def checked_pad_tuple(op: str, padding, kernel) -> Tuple[int, int, int, int]:
    """:func:`get_pad_tuple` for operator ``op``: a TopiError for a malformed or negative
    padding."""
    try:
        pads = get_pad_tuple(padding, kernel)
    except (ValueError, TypeError) as e:
        raise TopiError(f"{op}: bad padding {padding!r}: {e}") from e
    for p in pads:
        if not isinstance(p, (int, PrimExpr)):
            raise TopiError(f"{op}: padding must hold integers, got {padding!r}")
        if isinstance(p, int) and p < 0:
            raise TopiError(f"{op}: padding must be non-negative, got {padding!r}")
    return pads


def conv_out_size(op: str, size, kernel: int, dilation: int, pad_lo, pad_hi, stride: int,
                  dim: str) -> PrimExpr:
    """Output extent of a strided, dilated window over a padded dimension; a TopiError when
    the dilated kernel is larger than the padded input."""
    dk = (kernel - 1) * dilation + 1
    padded = _op.add(_op.add(size, pad_lo), pad_hi)
    if isinstance(padded, IntImm) and padded.value < dk:
        raise TopiError(f"{op}: kernel {dim} (dilated: {dk}) is larger than the padded input "
                        f"{dim} ({padded.value})")
    return _op.add(_op.floordiv(_op.sub(padded, dk), stride), 1)


def get_pad_tuple_generic(padding, kernel):
    """``[pad_begin, pad_end]`` (lists, one entry per dimension of ``kernel``) from an int, a
    list of ``len(kernel)`` or ``2 * len(kernel)`` ints, "SAME" or "VALID"."""
    dim = len(kernel)
    if isinstance(padding, (tuple, list)):
        if len(padding) == dim:
            total = [p * 2 for p in padding]
        elif len(padding) == 2 * dim:
            return list(padding[:dim]), list(padding[dim:])
        else:
            raise TopiError("Size of padding can only be len(kernel) or len(kernel) * 2")
    elif isinstance(padding, int):
        total = [padding * 2] * dim
    elif padding == "VALID":
        total = [0] * dim
    elif padding == "SAME":
        total = [k - 1 for k in kernel]
    else:
        raise TopiError(f"Unknown padding option {padding}")
    begin = [(p + 1) // 2 for p in total]
    return [begin, [p - b for p, b in zip(total, begin)]]


def get_pad_tuple1d(padding, kernel):
    """``(pad_left, pad_right)`` from an int, one or two ints, "SAME" or "VALID" (``kernel``
    is ``(kw,)``)."""
    if isinstance(padding, (tuple, list)) and len(padding) not in (1, 2):
        raise TopiError("Size of padding can only be 1 or 2")
    begin, end = get_pad_tuple_generic(padding, list(kernel)[:1])
    return begin[0], end[0]


def get_pad_tuple3d(padding, kernel):
    """``(front, top, left, back, bottom, right)`` padding from an int, 3 or 6 ints, "SAME"
    or "VALID" (``kernel`` is ``(kd, kh, kw)``)."""
    if isinstance(padding, (tuple, list)) and len(padding) not in (3, 6):
        raise TopiError("Size of padding can only be 3 or 6")
    begin, end = get_pad_tuple_generic(padding, list(kernel)[:3])
    return (*begin, *end)
