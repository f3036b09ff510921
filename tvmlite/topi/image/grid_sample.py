"""``topi.image.affine_grid`` (the sampling grid of a 2-D affine transformation) and
``grid_sample`` (sampling at the points of a grid)."""
from __future__ import annotations

import itertools
from typing import Sequence

from ...te.operation import compute
from ...te.tensor import Tensor
from ...tir import op as _op
from ..utils import TopiError, get_const_int


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


def _reflect(x, size: int, align_corners: bool):
    """Reflect the float coordinate ``x`` into the span of an axis of ``size`` (``[0, size -
    1]`` with aligned corners, else ``[-0.5, size - 0.5]``) off its edges, repeatedly."""
    lo, span = (0.0, size - 1) if align_corners else (-0.5, size)
    if span <= 0:
        return _op.const(lo, "float32")
    lo_c, span_c = _op.const(lo, "float32"), _op.const(float(span), "float32")
    d = _op.abs(x - lo_c)
    flips = _op.floor(d / span_c)
    extra = d - flips * span_c
    even = _op.floormod(_op.cast("int32", flips), 2) == 0
    inside = _op.all(x >= lo_c, x <= lo_c + span_c)
    return _op.if_then_else(inside, x, _op.if_then_else(even, lo_c + extra,
                                                        lo_c + span_c - extra))


def _clip(x, size: int):
    return _op._min(_op._max(x, _op.const(0.0, x.dtype)), _op.const(float(size - 1), x.dtype))


def grid_sample(data: Tensor, grid: Tensor, method: str = "bilinear", layout: str = "NCHW",
                padding_mode: str = "zeros", align_corners: bool = True) -> Tensor:
    """Sample ``data`` at the points of ``grid`` (PyTorch's ``grid_sample``).

    ``data`` is "NCHW" (``grid`` ``(N, 2, OH, OW)``) or "NCDHW" (``grid`` ``(N, 3, OD, OH,
    OW)``); ``grid[:, 0]`` is x (along W), ``grid[:, 1]`` y, ``grid[:, 2]`` z, normalised
    to ``[-1, 1]``: the corner pixels' centres with ``align_corners``, else their outer
    edges. ``method`` "nearest" (halves to even), "bilinear" or "bicubic" (2-D only; spline
    coefficient -0.75); ``padding_mode`` "zeros" (samples outside read 0), "border" (clamp)
    or "reflection" (reflect off the edges). The output is ``(N, C, *grid.shape[2:])``, tag
    "grid_sample"."""
    from .resize import _cubic_weights
    op = "grid_sample"
    if not isinstance(data, Tensor) or not isinstance(grid, Tensor):
        raise TopiError(f"{op}: data and grid must be Tensors")
    layouts = {4: "NCHW", 5: "NCDHW"}
    if layouts.get(data.ndim) != layout:
        raise TopiError(f"{op}: layout must be 'NCHW' (4-D data) or 'NCDHW' (5-D data), got "
                        f"{layout!r} for {data.ndim}-D data")
    nd = data.ndim - 2
    methods = ("nearest", "bilinear", "bicubic") if nd == 2 else ("nearest", "bilinear")
    if method not in methods:
        raise TopiError(f"{op}: method must be one of {', '.join(methods)} for {layout}, got "
                        f"{method!r}")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise TopiError(f"{op}: padding_mode must be 'zeros', 'border' or 'reflection', got "
                        f"{padding_mode!r}")
    if grid.ndim != data.ndim or get_const_int(grid.shape[1]) != nd:
        raise TopiError(f"{op}: grid must be (N, {nd}, ...) with {nd} spatial axes, got "
                        f"{list(grid.shape)}")
    sizes = [get_const_int(s) for s in data.shape[2:]]
    f32 = "float32"

    def pixel(n, c, idx):
        ok = _op.all(*[v >= 0 for v in idx], *[v < s for v, s in zip(idx, sizes)])
        return _op.if_then_else(ok, _op.cast(f32, data[(n, c, *idx)]), _op.const(0.0, f32))

    def pad_coord(x, size):
        if padding_mode == "reflection":
            return _clip(_reflect(x, size, align_corners), size)
        return _clip(x, size) if padding_mode == "border" else x

    def pad_index(i, size):
        if padding_mode == "zeros":
            return i
        return _op.cast("int32", pad_coord(_op.cast(f32, i), size))

    def f(n, c, *o):
        coords = []
        for k, size in enumerate(sizes):
            g = _op.cast(f32, grid[(n, nd - 1 - k, *o)])
            one = _op.const(1.0, f32)
            if align_corners:
                x = (g + one) * _op.const((size - 1) / 2, f32)
            else:
                x = ((g + one) * _op.const(float(size), f32) - one) * _op.const(0.5, f32)
            coords.append(x)
        if method == "nearest":
            idx = [_op.cast("int32", _op.round(pad_coord(x, s))) for x, s in zip(coords, sizes)]
            return _op.cast(data.dtype, pixel(n, c, idx))
        taps = []
        for x, size in zip(coords, sizes):
            if method == "bilinear":
                x = pad_coord(x, size)
            xf = _op.floor(x)
            x0 = _op.cast("int32", xf)
            t = x - xf
            if method == "bilinear":
                taps.append([(x0, _op.const(1.0, f32) - t), (x0 + 1, t)])
            else:
                taps.append([(pad_index(x0 + (k - 1), size), w)
                             for k, w in enumerate(_cubic_weights(t, -0.75))])
        value = None
        for combo in itertools.product(*taps):
            term = pixel(n, c, [i for i, _ in combo])
            for _, w in combo:
                term = term * w
            value = term if value is None else value + term
        return _op.cast(data.dtype, value)
    shape = [data.shape[0], data.shape[1], *grid.shape[2:]]
    return compute(shape, f, name="grid_sample", tag="grid_sample")
