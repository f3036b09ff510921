"""``topi.image.resize1d/2d/3d``: nearest-neighbour and (multi)linear resizing of the
spatial axes."""
from __future__ import annotations

from typing import Optional, Sequence, Tuple

from ...te.operation import compute
from ...te.tensor import Tensor
from ...tir import op as _op
from .. import tag
from ..utils import TopiError, get_const_int, parse_layout

_COORD_MODES = ("half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel",
                "tf_half_pixel_for_nn")


def _in_coord(x, in_size: int, out_size: int, mode: str):
    """The input coordinate (float32) of output coordinate ``x``."""
    xf = _op.cast("float32", x)
    if mode == "align_corners":
        scale = (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
        return _op.mul(xf, _op.const(scale, "float32"))
    scale = _op.const(in_size / out_size, "float32")
    if mode in ("asymmetric",):
        return _op.mul(xf, scale)
    if mode == "tf_half_pixel_for_nn":
        return _op.mul(_op.add(xf, _op.const(0.5, "float32")), scale)
    if mode == "pytorch_half_pixel" and out_size == 1:
        return _op.const(0.0, "float32")
    return _op.sub(_op.mul(_op.add(xf, _op.const(0.5, "float32")), scale),
                   _op.const(0.5, "float32"))


def _clamp(i, size: int):
    return _op._min(_op._max(i, 0), size - 1)


def spatial_axes(data: Tensor, layout: str, op: str, letters: str) -> Tuple[int, ...]:
    """Positions of the spatial axes ``letters`` ("W", "HW", "DHW") of ``data`` in ``layout``:
    channels first or last ("NCHW", "NHWC"), possibly packed ("NCHW16c", "NCHW1n16c": blocked
    batch or channels as trailing axes)."""
    names = [c for c, _ in parse_layout(layout, op)] if isinstance(layout, str) else []
    if "".join(c for c in names if c.isupper()) not in ("NC" + letters, "N" + letters + "C"):
        raise TopiError(f"{op}: layout must be 'NC{letters}' (possibly packed, "
                        f"'NC{letters}16c') or 'N{letters}C', got {layout!r}")
    if any(c.upper() in letters for c in names if c.islower()):
        raise TopiError(f"{op}: layout {layout!r} may not block a spatial axis")
    if not isinstance(data, Tensor) or data.ndim != len(names):
        raise TopiError(f"{op}: data must be a {len(names)}-D {layout} tensor")
    return tuple(names.index(c) for c in letters)


def hw_axes(data: Tensor, layout: str, op: str) -> Tuple[int, int]:
    """Positions of the H and W axes of ``data`` in ``layout`` (see :func:`spatial_axes`)."""
    return spatial_axes(data, layout, op, "HW")


def resize1d(data: Tensor, roi: Sequence[float], size: Sequence, layout: str = "NCW",
             method: str = "linear", coordinate_transformation_mode: str = "half_pixel",
             rounding_method: str = "", bicubic_alpha: float = -0.5,
             bicubic_exclude: int = 0, extrapolation_value: float = 0.0,
             out_dtype: Optional[str] = None, output_shape=None) -> Tensor:
    """Resize the W axis of an "NCW"/"NWC" tensor to ``size = (OW,)`` (see :func:`resize2d`)."""
    return _resize(data, size, layout, "W", "resize1d", method,
                   coordinate_transformation_mode, rounding_method, out_dtype)


def resize2d(data: Tensor, roi: Sequence[float], size: Sequence, layout: str = "NCHW",
             method: str = "linear", coordinate_transformation_mode: str = "half_pixel",
             rounding_method: str = "", bicubic_alpha: float = -0.5,
             bicubic_exclude: int = 0, extrapolation_value: float = 0.0,
             out_dtype: Optional[str] = None, output_shape=None) -> Tensor:
    """Resize the H and W axes of an "NCHW", "NHWC" (or packed "NCHW16c") tensor to
    ``size = (OH, OW)``.

    ``method`` is "nearest_neighbor" or "linear" ("bilinear"); coordinates map by
    ``coordinate_transformation_mode`` (half_pixel, align_corners, asymmetric,
    pytorch_half_pixel, tf_half_pixel_for_nn). Stage ``resize``, tag "injective".
    """
    return _resize(data, size, layout, "HW", "resize2d", method,
                   coordinate_transformation_mode, rounding_method, out_dtype)


def resize3d(data: Tensor, roi: Sequence[float], size: Sequence, layout: str = "NCDHW",
             method: str = "linear", coordinate_transformation_mode: str = "half_pixel",
             rounding_method: str = "", bicubic_alpha: float = -0.5,
             bicubic_exclude: int = 0, extrapolation_value: float = 0.0,
             out_dtype: Optional[str] = None, output_shape=None) -> Tensor:
    """Resize the D, H and W axes of an "NCDHW"/"NDHWC" tensor to ``size = (OD, OH, OW)``
    ("linear" is trilinear; see :func:`resize2d`)."""
    return _resize(data, size, layout, "DHW", "resize3d", method,
                   coordinate_transformation_mode, rounding_method, out_dtype)


def _resize(data: Tensor, size: Sequence, layout: str, letters: str, op: str, method: str,
            mode: str, rounding_method: str, out_dtype: Optional[str]) -> Tensor:
    axes = spatial_axes(data, layout, op, letters)
    if method in ("bilinear", "trilinear"):
        method = "linear"
    if method not in ("nearest_neighbor", "linear"):
        raise TopiError(f"{op}: method must be 'nearest_neighbor' or 'linear', got {method!r}")
    if mode not in _COORD_MODES:
        raise TopiError(f"{op}: unknown coordinate_transformation_mode {mode!r}")
    if len(size) != len(axes):
        raise TopiError(f"{op}: size must have {len(axes)} values, got {list(size)}")
    ins = [get_const_int(data.shape[a]) for a in axes]
    outs = [get_const_int(s) for s in size]
    if min(outs) <= 0:
        raise TopiError(f"{op}: size must be positive, got {list(size)}")
    out_dtype = out_dtype or data.dtype
    if not rounding_method:
        rounding_method = "round" if mode in ("align_corners", "tf_half_pixel_for_nn") \
            else "floor"
    if rounding_method not in ("floor", "round", "ceil", "round_prefer_floor",
                               "round_prefer_ceil"):
        raise TopiError(f"{op}: unknown rounding_method {rounding_method!r}")
    shape = list(data.shape)
    for a, o in zip(axes, outs):
        shape[a] = o

    def at(i, positions):
        idx = list(i)
        for a, p in zip(axes, positions):
            idx[a] = p
        return _op.cast("float32", data(*idx))

    def nearest(v, n):
        if rounding_method == "floor":
            r = _op.floor(v)
        elif rounding_method == "ceil":
            r = _op.ceil(v)
        elif rounding_method == "round_prefer_floor":
            r = _op.ceil(_op.sub(v, _op.const(0.5, "float32")))
        else:  # "round" (half away from zero; coordinates are >= -0.5) and round_prefer_ceil
            r = _op.floor(_op.add(v, _op.const(0.5, "float32")))
        return _clamp(_op.cast("int32", r), n)

    def nearest_index(o, n_in, n_out):
        if mode == "asymmetric" and rounding_method == "floor" and n_out % n_in == 0:
            # an integer upscale: floor(o * in / out) is o // (out / in), exactly, and an
            # integer division lets region analysis bound what a tile reads (compute_at)
            return _op.floordiv(o, n_out // n_in)
        return nearest(_in_coord(o, n_in, n_out, mode), n_in)

    one = _op.const(1.0, "float32")

    def lerp(a, b, t):
        return _op.add(_op.mul(a, _op.sub(one, t)), _op.mul(b, t))

    def f(*i):
        if method == "nearest_neighbor":
            return _op.cast(out_dtype, at(i, [nearest_index(i[a], n, o)
                                              for a, n, o in zip(axes, ins, outs)]))
        corners = []  # per axis: the two neighbouring positions and the weight of the second
        for a, n, o in zip(axes, ins, outs):
            c = _in_coord(i[a], n, o, mode)
            c0f = _op.floor(c)
            c0 = _op.cast("int32", c0f)
            corners.append((_clamp(c0, n), _clamp(c0 + 1, n), _op.sub(c, c0f)))

        def interp(k, positions):
            if k == len(corners):
                return at(i, positions)
            lo, hi, t = corners[k]
            return lerp(interp(k + 1, positions + [lo]), interp(k + 1, positions + [hi]), t)
        return _op.cast(out_dtype, interp(0, []))
    return compute(shape, f, name="resize", tag=tag.INJECTIVE)
