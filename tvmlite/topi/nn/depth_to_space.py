"""``depth_to_space`` and ``space_to_depth``: move ``block_size x block_size`` blocks between
the channel and the spatial dimensions ("NCHW" or "NHWC")."""
from __future__ import annotations

from ...te.operation import compute
from ...te.tensor import Tensor
from .. import tag
from ..utils import TopiError, check_strides, get_const_int


def _nchw(data: Tensor, layout: str, op: str):
    if not isinstance(data, Tensor) or data.ndim != 4:
        raise TopiError(f"{op}: data must be a 4-D Tensor, got {data!r}")
    if layout not in ("NCHW", "NHWC"):
        raise TopiError(f"{op}: layout must be 'NCHW' or 'NHWC', got {layout!r}")
    perm = [0, 1, 2, 3] if layout == "NCHW" else [0, 3, 1, 2]
    return perm, [data.shape[k] for k in perm]


def _in_layout(perm, n, c, y, x):
    logical = [n, c, y, x]
    out = [None] * 4
    for lg, pos in enumerate(perm):
        out[pos] = logical[lg]
    return out


def depth_to_space(data: Tensor, block_size: int, layout: str = "NCHW",
                   mode: str = "DCR") -> Tensor:
    """``(N, C, H, W) -> (N, C / b^2, H * b, W * b)``; ``mode`` "DCR" takes the block offset
    from the channel's high part (depth, column, row: TensorFlow's order), "CDR" from its low
    part (PyTorch's order; ONNX calls it "CRD") (stage ``depth_to_space``).

    Parameters
    ----------
    data : Tensor
        4-D in ``layout``.
    block_size : int
        The block edge ``b``.
    layout : str
        "NCHW" or "NHWC".
    mode : str
        "DCR" or "CDR" (also spelt "CRD").
    """
    op = "depth_to_space"
    perm, (n, c, h, w) = _nchw(data, layout, op)
    b = check_strides(block_size, 1, op, "block_size")[0]
    if mode not in ("DCR", "CDR", "CRD"):
        raise TopiError(f"{op}: mode must be 'DCR' or 'CDR' ('CRD'), got {mode!r}")
    cc = get_const_int(c)
    if cc % (b * b):
        raise TopiError(f"{op}: block_size {b} squared does not divide the {cc} channels")
    oc = cc // (b * b)
    shape = _in_layout(perm, n, oc, h * b, w * b)

    def f(*i):
        nn, ch, y, x = [i[k] for k in perm]
        by, bx = y % b, x % b
        src = (by * b + bx) * oc + ch if mode == "DCR" else ch * (b * b) + by * b + bx
        return data(*_in_layout(perm, nn, src, y // b, x // b))
    return compute(shape, f, name="depth_to_space", tag=tag.INJECTIVE)


def space_to_depth(data: Tensor, block_size: int, layout: str = "NCHW") -> Tensor:
    """``(N, C, H, W) -> (N, C * b^2, H / b, W / b)``, the inverse of :func:`depth_to_space`
    in "DCR" mode (stage ``space_to_depth``).

    Parameters
    ----------
    data : Tensor
        4-D in ``layout``.
    block_size : int
        The block edge ``b`` (divides H and W).
    layout : str
        "NCHW" or "NHWC".
    """
    op = "space_to_depth"
    perm, (n, c, h, w) = _nchw(data, layout, op)
    b = check_strides(block_size, 1, op, "block_size")[0]
    hh, ww = get_const_int(h), get_const_int(w)
    if hh % b or ww % b:
        raise TopiError(f"{op}: block_size {b} does not divide the spatial size {hh}x{ww}")
    cc = get_const_int(c)
    shape = _in_layout(perm, n, cc * b * b, hh // b, ww // b)

    def f(*i):
        nn, ch, y, x = [i[k] for k in perm]
        blk, src_c = ch // cc, ch % cc
        return data(*_in_layout(perm, nn, src_c, y * b + blk // b, x * b + blk % b))
    return compute(shape, f, name="space_to_depth", tag=tag.INJECTIVE)
