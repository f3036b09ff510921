"""``topi.image.resize1d/2d/3d`` and ``crop_and_resize``: nearest-neighbour, (multi)linear
and (multi)cubic resizing of the spatial axes."""
from __future__ import annotations

import itertools
from typing import List, Optional, Sequence, Tuple

from ...te.operation import compute
from ...te.tensor import Tensor
from ...tir import op as _op
from .. import tag
from ..utils import TopiError, check_tensors, get_const_int, is_const, parse_layout

_COORD_MODES = ("half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel",
                "tf_half_pixel_for_nn", "tf_crop_and_resize")
_ROUNDING = ("floor", "round", "ceil", "round_prefer_floor", "round_prefer_ceil")
# classic nudges floor / ceil by this much so a coordinate a rounding error below an
# integer still selects it
_EPS = 1e-5


def _f32(v):
    """``v`` (a Python number or an integer expression) as a float32 expression."""
    if isinstance(v, (int, float)):
        return _op.const(float(v), "float32")
    return _op.cast("float32", v)


def _static(v):
    """``v`` as a Python int when it is constant, else the expression itself."""
    return get_const_int(v) if is_const(v) else v


def _in_coord(x, in_size, out_size, mode: str, start=0.0, end=1.0,
              scale: Optional[float] = None):
    """The input coordinate (float32) of output coordinate ``x`` under ``mode``; ``start``
    and ``end`` bound the region of interest (``tf_crop_and_resize``, fractions of the
    input); ``scale`` (output / input), when given, replaces the ratio of the sizes in the
    modes that scale coordinates (ONNX's rule for a Resize given ``scales``)."""
    xf = _op.cast("float32", x)
    static = isinstance(in_size, int) and isinstance(out_size, int)
    if mode == "tf_crop_and_resize":
        if static and out_size == 1:
            return _op.const(0.5 * (start + end) * (in_size - 1), "float32")
        step = _f32(in_size - 1) * _op.const(end - start, "float32") / _f32(out_size - 1)
        base = _op.const(float(start), "float32") * _f32(in_size - 1)
        if static:
            return base + xf * step
        return _op.if_then_else(out_size > 1, base + xf * step,
                                _op.const(0.5 * (start + end), "float32") * _f32(in_size - 1))
    if mode == "align_corners":
        if static:
            return xf * _op.const((in_size - 1) / (out_size - 1) if out_size > 1 else 0.0,
                                  "float32")
        return xf * _f32(in_size - 1) / _f32(_op._max(out_size - 1, 1))
    # input units per output unit
    if scale is not None:
        step = _op.const(1.0 / scale, "float32")
    elif static:
        step = _op.const(in_size / out_size, "float32")
    else:
        step = _f32(in_size) / _f32(out_size)
    half = _op.const(0.5, "float32")
    if mode == "asymmetric":
        return xf * step
    if mode == "tf_half_pixel_for_nn":
        return (xf + half) * step
    if mode == "pytorch_half_pixel":
        if static:
            return _op.const(0.0, "float32") if out_size == 1 else (xf + half) * step - half
        return _op.if_then_else(out_size > 1, (xf + half) * step - half,
                                _op.const(0.0, "float32"))
    return (xf + half) * step - half  # half_pixel


def _clamp(i, size):
    return _op._min(_op._max(i, 0), size - 1)


def _round(v, rounding_method: str):
    """``v`` rounded to an int32 index by ``rounding_method``."""
    half = _op.const(0.5, "float32")
    if rounding_method == "floor":
        r = _op.floor(v + _op.const(_EPS, "float32"))
    elif rounding_method == "ceil":
        r = _op.ceil(v - _op.const(_EPS, "float32"))
    elif rounding_method == "round_prefer_floor":
        r = _op.ceil(v - half)
    elif rounding_method == "half_to_even":  # crop_and_resize's boxes (classic's te.round)
        r = _op.round(v)
    else:  # "round" and "round_prefer_ceil": halves go up (away from zero for the
        # coordinates, which are >= -0.5)
        r = _op.floor(v + half)
    return _op.cast("int32", r)


def _cubic_weights(t, alpha: float) -> List:
    """The four cubic-convolution weights of fraction ``t`` (taps at -1, 0, 1, 2)."""
    a = _op.const(float(alpha), "float32")
    one, two, three = (_op.const(float(k), "float32") for k in (1, 2, 3))
    t2 = t * t
    t3 = t2 * t
    return [a * (t3 - two * t2 + t),
            (a + two) * t3 - (three + a) * t2 + one,
            -(a + two) * t3 + (three + two * a) * t2 - a * t,
            -a * t3 + a * t2]


def _taps(c, n, method: str, rounding_method: str, alpha: float, exclude: bool,
          int_div=None) -> List[Tuple]:
    """``[(index, weight or None)]``: the input positions along one axis that output
    coordinate ``c`` (float32) reads, clamped to ``[0, n)``, and their weights."""
    if method == "nearest_neighbor":
        return [(int_div if int_div is not None else _clamp(_round(c, rounding_method), n),
                 None)]
    cf = _op.floor(c)
    c0 = _op.cast("int32", cf)
    t = c - cf
    if method == "linear":
        return [(_clamp(c0, n), _op.const(1.0, "float32") - t), (_clamp(c0 + 1, n), t)]
    weights = _cubic_weights(t, alpha)
    if exclude:
        zero = _op.const(0.0, "float32")
        weights = [_op.if_then_else(_op.any(c0 + (k - 1) < 0, c0 + (k - 1) >= n), zero, w)
                   for k, w in enumerate(weights)]
        total = weights[0] + weights[1] + weights[2] + weights[3]
        weights = [w / total for w in weights]
    return [(_clamp(c0 + (k - 1), n), w) for k, w in enumerate(weights)]


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


_RESIZE_DOC = """

    ``method`` is "nearest_neighbor", "linear" (also "bilinear", "trilinear") or "cubic"
    ("bicubic"; the spline of ``bicubic_alpha``, taps outside the image excluded and the
    rest renormalised when ``bicubic_exclude``). Output coordinates map to input ones by
    ``coordinate_transformation_mode``: half_pixel, align_corners, asymmetric,
    pytorch_half_pixel, tf_half_pixel_for_nn or tf_crop_and_resize (the region ``roi`` =
    starts then ends, fractions of the input; outside the input ``extrapolation_value``).
    Nearest neighbours round by ``rounding_method`` (floor, round, ceil,
    round_prefer_floor, round_prefer_ceil; empty: round for align_corners, else floor).
    ``scales`` (output / input per resized axis, a tvmlite extension), when given, maps
    coordinates in place of the ratio of the sizes, except in align_corners and
    tf_crop_and_resize (ONNX's Resize given non-integer scales). Stage ``resize``, tag
    "injective"."""


def resize1d(data: Tensor, roi: Sequence[float], size: Sequence, layout: str = "NCW",
             method: str = "linear", coordinate_transformation_mode: str = "half_pixel",
             rounding_method: str = "", bicubic_alpha: float = -0.5,
             bicubic_exclude: int = 0, extrapolation_value: float = 0.0,
             out_dtype: Optional[str] = None, output_shape=None,
             scales: Optional[Sequence[float]] = None) -> Tensor:
    return _resize(data, roi, size, layout, "W", "resize1d", method,
                   coordinate_transformation_mode, rounding_method, bicubic_alpha,
                   bicubic_exclude, extrapolation_value, out_dtype, scales=scales)


def resize2d(data: Tensor, roi: Sequence[float], size: Sequence, layout: str = "NCHW",
             method: str = "linear", coordinate_transformation_mode: str = "half_pixel",
             rounding_method: str = "", bicubic_alpha: float = -0.5,
             bicubic_exclude: int = 0, extrapolation_value: float = 0.0,
             out_dtype: Optional[str] = None, output_shape=None,
             scales: Optional[Sequence[float]] = None) -> Tensor:
    return _resize(data, roi, size, layout, "HW", "resize2d", method,
                   coordinate_transformation_mode, rounding_method, bicubic_alpha,
                   bicubic_exclude, extrapolation_value, out_dtype, scales=scales)


def resize3d(data: Tensor, roi: Sequence[float], size: Sequence, layout: str = "NCDHW",
             method: str = "linear", coordinate_transformation_mode: str = "half_pixel",
             rounding_method: str = "", bicubic_alpha: float = -0.5,
             bicubic_exclude: int = 0, extrapolation_value: float = 0.0,
             out_dtype: Optional[str] = None, output_shape=None,
             scales: Optional[Sequence[float]] = None) -> Tensor:
    return _resize(data, roi, size, layout, "DHW", "resize3d", method,
                   coordinate_transformation_mode, rounding_method, bicubic_alpha,
                   bicubic_exclude, extrapolation_value, out_dtype, scales=scales)


resize1d.__doc__ = ("Resize the W axis of an \"NCW\"/\"NWC\" (or packed) tensor to "
                    "``size = (OW,)``; ``roi`` is (start_w, end_w)." + _RESIZE_DOC)
resize2d.__doc__ = ("Resize the H and W axes of an \"NCHW\"/\"NHWC\" (or packed, "
                    "\"NCHW16c\") tensor to ``size = (OH, OW)``; ``roi`` is (start_h, "
                    "start_w, end_h, end_w)." + _RESIZE_DOC)
resize3d.__doc__ = ("Resize the D, H and W axes of an \"NCDHW\"/\"NDHWC\" tensor to "
                    "``size = (OD, OH, OW)``; ``roi`` is (start_d, start_h, start_w, end_d, "
                    "end_h, end_w)." + _RESIZE_DOC)


def _check_method(op: str, method: str, allowed=("nearest_neighbor", "linear", "cubic")) -> str:
    method = method.lower() if isinstance(method, str) else method
    method = {"bilinear": "linear", "trilinear": "linear", "bicubic": "cubic",
              "nearest": "nearest_neighbor"}.get(method, method)
    if method not in allowed:
        raise TopiError(f"{op}: method must be one of {', '.join(allowed)}, got {method!r}")
    return method


def _resize(data: Tensor, roi, size: Sequence, layout: str, letters: str, op: str,
            method: str, mode: str, rounding_method: str, alpha: float, exclude,
            extrapolation_value, out_dtype: Optional[str], boxes: Optional[Tensor] = None,
            box_indices: Optional[Tensor] = None,
            scales: Optional[Sequence[float]] = None) -> Tensor:
    axes = spatial_axes(data, layout, op, letters)
    method = _check_method(op, method)
    if mode not in _COORD_MODES:
        raise TopiError(f"{op}: unknown coordinate_transformation_mode {mode!r} (one of "
                        f"{', '.join(_COORD_MODES)})")
    if size is None or len(size) != len(axes):
        raise TopiError(f"{op}: size must have {len(axes)} values, got {size!r}")
    ins = [_static(data.shape[a]) for a in axes]
    outs = [_static(s) for s in size]
    if any(isinstance(o, int) and o <= 0 for o in outs):
        raise TopiError(f"{op}: size must be positive, got {list(size)}")
    roi = [0.0] * (2 * len(axes)) if roi is None else [float(r) for r in roi]
    if scales is not None:
        scales = [float(v) for v in scales]
        if len(scales) != len(axes) or not all(v > 0 for v in scales):
            raise TopiError(f"{op}: scales must be {len(axes)} positive values, got {scales}")
    if len(roi) != 2 * len(axes):
        raise TopiError(f"{op}: roi must have {2 * len(axes)} values, got {roi}")
    out_dtype = out_dtype or data.dtype
    if not rounding_method:
        rounding_method = "round" if mode in ("align_corners", "tf_half_pixel_for_nn") \
            else "floor"
    if rounding_method not in _ROUNDING:
        raise TopiError(f"{op}: unknown rounding_method {rounding_method!r}")
    shape = list(data.shape)
    for a, o in zip(axes, outs):
        shape[a] = o
    if box_indices is not None:
        shape[0] = box_indices.shape[0]
    extrapolate = mode == "tf_crop_and_resize"
    ext = _op.const(float(extrapolation_value or 0.0), "float32")
    nd = len(axes)

    def coord(i, k):
        a, n, o = axes[k], ins[k], outs[k]
        if boxes is None:
            return _in_coord(i[a], n, o, mode, roi[k], roi[k + nd],
                             None if scales is None else scales[k])
        # crop_and_resize: box (y1, x1, y2, x2) of the image, corners aligned
        lo, hi = boxes[i[0], k], boxes[i[0], k + 2]
        step = _f32(n - 1) * (hi - lo) / _f32(o - 1)
        return lo * _f32(n - 1) + _op.cast("float32", i[a]) * step

    def int_div(i, k):
        """An integer upscale in asymmetric nearest mode: ``o // (out / in)`` exactly (an
        integer division lets region analysis bound what a tile reads)."""
        n, o = ins[k], outs[k]
        if (method == "nearest_neighbor" and mode == "asymmetric" and boxes is None
                and rounding_method == "floor" and isinstance(n, int) and isinstance(o, int)
                and o % n == 0 and (scales is None or scales[k] == o // n)):
            return _op.floordiv(i[axes[k]], o // n)
        return None

    def f(*i):
        coords = [coord(i, k) for k in range(nd)]
        taps = [_taps(c, n, method, "half_to_even" if boxes is not None else rounding_method,
                      alpha, bool(exclude), int_div(i, k))
                for k, (c, n) in enumerate(zip(coords, ins))]
        batch = i[0] if box_indices is None else box_indices[i[0]]
        value = None
        for combo in itertools.product(*taps):
            idx = list(i)
            idx[0] = batch
            term = None
            for a, (p, w) in zip(axes, combo):
                idx[a] = p
                if w is not None:
                    term = w if term is None else term * w
            pixel = _op.cast("float32", data(*idx))
            term = pixel if term is None else pixel * term
            value = term if value is None else value + term
        if extrapolate:
            outside = [_op.any(c < _op.const(0.0, "float32"), c > _f32(n - 1))
                       for c, n in zip(coords, ins)]
            value = _op.if_then_else(_op.any(*outside) if nd > 1 else outside[0], ext, value)
        return _op.cast(out_dtype, value)
    return compute(shape, f, name="crop_and_resize" if boxes is not None else "resize",
                   tag=tag.INJECTIVE)


def crop_and_resize(data: Tensor, boxes: Tensor, box_indices: Tensor, crop_size: Sequence,
                    layout: str = "NCHW", method: str = "bilinear",
                    extrapolation_value: Optional[float] = None,
                    out_dtype: Optional[str] = None) -> Tensor:
    """Crop boxes out of the images and resize each to ``crop_size = (OH, OW)``.

    ``boxes`` ``(num_boxes, 4)`` holds (y1, x1, y2, x2) as fractions of the image (corners
    aligned), ``box_indices`` ``(num_boxes,)`` the image each box is cut from; ``method``
    "bilinear" or "nearest_neighbor" (rounds); a sample outside the image is
    ``extrapolation_value``. The output is ``(num_boxes, C, OH, OW)`` ("NCHW") or
    ``(num_boxes, OH, OW, C)`` ("NHWC"). Stage ``crop_and_resize``, tag "injective"."""
    op = "crop_and_resize"
    check_tensors(op, data=data, boxes=boxes, box_indices=box_indices)
    if boxes.ndim != 2 or get_const_int(boxes.shape[1]) != 4:
        raise TopiError(f"{op}: boxes must be (num_boxes, 4), got {list(boxes.shape)}")
    if box_indices.ndim != 1:
        raise TopiError(f"{op}: box_indices must be 1-D, got {list(box_indices.shape)}")
    method = _check_method(op, method, ("nearest_neighbor", "linear"))
    return _resize(data, None, list(crop_size), layout, "HW", op, method,
                   "tf_crop_and_resize", "round", -0.5, 0, extrapolation_value, out_dtype,
                   boxes=boxes, box_indices=box_indices)
