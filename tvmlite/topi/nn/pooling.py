"""Pooling (``topi.nn.pool1d``, ``pool2d``, ``pool3d``, ``global_pool``, ``adaptive_pool``)
over the ``W`` / ``H, W`` / ``D, H, W`` axes of any layout that has them ("NCHW", "NHWC",
"NCHW16c", ...)."""
from __future__ import annotations

import re
from typing import Sequence, Tuple

from ...te.operation import compute, reduce_axis
from ...te.tensor import Tensor
from ...tir import op as _op
from .. import tag
from ..utils import TopiError, check_strides, const_ints, get_const_int
from .pad import pad
from .utils import conv_out_size


def _layout_axes(data: Tensor, layout: str, op: str, letters: str) -> Tuple[int, ...]:
    """Positions in ``layout`` of the axes ``letters`` (e.g. "HW")."""
    if not isinstance(data, Tensor):
        raise TopiError(f"{op}: data must be a Tensor, got {data!r}")
    tokens = re.findall(r"\d*[A-Za-z]", layout) if isinstance(layout, str) else []
    if "".join(tokens) != layout or any(c not in tokens for c in letters):
        example = {"W": "NCW", "HW": "NCHW", "DHW": "NCDHW"}[letters]
        names = " and ".join(", ".join(letters).rsplit(", ", 1))
        raise TopiError(f"{op}: layout must name the {names} axes (e.g. '{example}'), got "
                        f"{layout!r}")
    if len(tokens) != data.ndim:
        raise TopiError(f"{op}: Unsupported layout {layout}: it has {len(tokens)} axes but "
                        f"data is {data.ndim}-D")
    return tuple(tokens.index(c) for c in letters)


def _hw_axes(data: Tensor, layout: str, op: str) -> Tuple[int, int]:
    return _layout_axes(data, layout, op, "HW")


def _check_pool_type(pool_type: str, op: str) -> None:
    if pool_type not in ("max", "avg"):
        raise TopiError(f"{op}: pool_type must be 'max' or 'avg', got {pool_type!r}")


def _taps(o, stride: int, dil: int, k: int, lo: int, hi):
    """How many of the taps ``o*stride - lo + t*dil`` (``0 <= t < k``) fall in ``[0, hi)``."""
    start = _op.sub(_op.mul(o, stride), lo)
    t_lo = _op._max(_op.floordiv(_op.add(_op.neg(start), dil - 1), dil), 0)
    t_hi = _op._min(_op.floordiv(_op.sub(_op.sub(hi, 1), start), dil), k - 1)
    return _op._max(_op.add(_op.sub(t_hi, t_lo), 1), 0)


_DIM_NAMES = {"D": "depth", "H": "height", "W": "width"}


def _pool(data: Tensor, kernel, stride, dilation, padding, pool_type: str, ceil_mode: bool,
          layout: str, count_include_pad: bool, letters: str, op: str) -> Tensor:
    """Pooling over the axes ``letters`` of ``layout``; ``padding`` lists the padding before
    each of them, then after each."""
    axes = _layout_axes(data, layout, op, letters)
    _check_pool_type(pool_type, op)
    nd = len(axes)
    ks = check_strides(kernel, nd, op, "kernel")
    ss = check_strides(stride, nd, op, "stride")
    ds = check_strides(dilation, nd, op, "dilation")
    pads = const_ints(padding, 2 * nd, op, "padding")
    if min(pads) < 0:
        raise TopiError(f"{op}: padding must be non-negative, got {list(padding)}")
    lo, hi = list(pads[:nd]), list(pads[nd:])
    sizes = [data.shape[a] for a in axes]
    outs = [conv_out_size(op, n, k, d, b, e, st, _DIM_NAMES[c])
            for n, k, d, b, e, st, c in zip(sizes, ks, ds, lo, hi, ss, letters)]
    ehi = list(hi)
    if ceil_mode:
        for j in range(nd):
            n, o = get_const_int(sizes[j]), get_const_int(outs[j])
            dk = (ks[j] - 1) * ds[j] + 1
            o2 = -(-(n + lo[j] + hi[j] - dk) // ss[j]) + 1
            # the last window must start inside the input or the leading padding
            o2 -= (o2 - 1) * ss[j] >= n + lo[j]
            ehi[j] += max((o2 - 1) * ss[j] + dk - (n + lo[j] + hi[j]), 0)
            outs[j] = _op.convert(max(o, o2))
    padded = data
    if any(lo) or any(ehi):
        before, after = [0] * data.ndim, [0] * data.ndim
        for j, a in enumerate(axes):
            before[a], after[a] = lo[j], ehi[j]
        value = _op.min_value(data.dtype) if pool_type == "max" else _op.const(0, data.dtype)
        padded = pad(data, before, after, value, name="pad_temp")
    rs = [reduce_axis((0, k), name=f"rv{j}") for j, k in enumerate(ks)]
    shape = list(data.shape)
    for a, o in zip(axes, outs):
        shape[a] = o

    def window(*i):
        idx = list(i)
        for j, a in enumerate(axes):
            idx[a] = i[a] * ss[j] + rs[j] * ds[j]
        return padded(*idx)

    if pool_type == "max":
        return compute(shape, lambda *i: _op.max(window(*i), axis=rs), name="tensor",
                       tag="pool_max")
    psum = compute(shape, lambda *i: _op.sum(window(*i), axis=rs), name="tensor",
                   tag="pool_sum")
    if count_include_pad and not ceil_mode:
        return compute(shape, lambda *i: _op.div(psum(*i), _op.const(_prod(ks), data.dtype)),
                       name="tensor", tag=tag.ELEMWISE)

    def avg(*i):
        count = _op.convert(1)
        for j, a in enumerate(axes):
            if count_include_pad:
                c = _taps(i[a], ss[j], ds[j], ks[j], 0, _op.add(sizes[j], lo[j] + hi[j]))
            else:
                c = _taps(i[a], ss[j], ds[j], ks[j], lo[j], sizes[j])
            count = _op.mul(count, c)
        return _op.div(psum(*i), _op.cast(data.dtype, _op._max(count, 1)))
    return compute(shape, avg, name="tensor", tag=tag.ELEMWISE)


def _prod(xs) -> int:
    r = 1
    for x in xs:
        r *= x
    return r


def pool1d(data: Tensor, kernel, stride, dilation=(1,), padding=(0, 0), pool_type: str = "max",
           ceil_mode: bool = False, layout: str = "NCW", count_include_pad: bool = True
           ) -> Tensor:
    """Max or average pooling over W; ``padding`` is ``(left, right)`` (see :func:`pool2d`)."""
    return _pool(data, kernel, stride, dilation, padding, pool_type, ceil_mode, layout,
                 count_include_pad, "W", "pool1d")


def pool2d(data: Tensor, kernel: Sequence[int], stride: Sequence[int],
           dilation: Sequence[int] = (1, 1), padding: Sequence[int] = (0, 0, 0, 0),
           pool_type: str = "max", ceil_mode: bool = False, layout: str = "NCHW",
           count_include_pad: bool = True) -> Tensor:
    """Max or average pooling over H and W; ``padding`` is ``(top, left, bottom, right)``.

    The result is a stage named ``tensor`` tagged "pool_max", or for "avg" a ``pool_sum``
    stage followed by an elementwise division. ``ceil_mode`` rounds the output size up
    (extra windows may not start in the bottom/right padding, as in PyTorch); the average
    divides by the taps inside the padded input (``count_include_pad``) or the input.
    """
    return _pool(data, kernel, stride, dilation, padding, pool_type, ceil_mode, layout,
                 count_include_pad, "HW", "pool2d")


def pool3d(data: Tensor, kernel, stride, dilation=(1, 1, 1), padding=(0, 0, 0, 0, 0, 0),
           pool_type: str = "max", ceil_mode: bool = False, layout: str = "NCDHW",
           count_include_pad: bool = True) -> Tensor:
    """Max or average pooling over D, H and W; ``padding`` is ``(front, top, left, back,
    bottom, right)`` (see :func:`pool2d`)."""
    return _pool(data, kernel, stride, dilation, padding, pool_type, ceil_mode, layout,
                 count_include_pad, "DHW", "pool3d")


def global_pool(data: Tensor, pool_type: str, layout: str = "NCHW") -> Tensor:
    """Pool each channel over H and W to one value: ``(N, C, H, W) -> (N, C, 1, 1)``."""
    op = "global_pool"
    hax, wax = _hw_axes(data, layout, op)
    _check_pool_type(pool_type, op)
    h, w = data.shape[hax], data.shape[wax]
    rh = reduce_axis((0, h), name="rv0")
    rw = reduce_axis((0, w), name="rv1")
    shape = list(data.shape)
    shape[hax] = shape[wax] = 1

    def window(*i):
        idx = list(i)
        idx[hax], idx[wax] = rh, rw
        return data(*idx)

    if pool_type == "max":
        return compute(shape, lambda *i: _op.max(window(*i), axis=[rh, rw]),
                       name="tensor", tag="global_pool_max")
    psum = compute(shape, lambda *i: _op.sum(window(*i), axis=[rh, rw]),
                   name="tensor", tag="global_pool_sum")
    size = _op.cast(data.dtype, _op.mul(h, w))
    return compute(shape, lambda *i: _op.div(psum(*i), size), name="tensor", tag=tag.ELEMWISE)


def adaptive_pool(data: Tensor, output_size, pool_type: str, layout: str = "NCHW") -> Tensor:
    """Adaptive 2-D pooling to ``output_size`` ``(OH, OW)``: output ``o`` pools input rows
    ``[floor(o*H/OH), ceil((o+1)*H/OH))`` (stage ``tensor``, tag "adaptive_pool_<type>")."""
    return _adaptive_pool(data, output_size, pool_type, layout, "HW", "adaptive_pool")


def adaptive_pool1d(data: Tensor, output_size, pool_type: str, layout: str = "NCW") -> Tensor:
    """Adaptive 1-D pooling of the ``W`` axis to ``output_size`` (see :func:`adaptive_pool`)."""
    return _adaptive_pool(data, output_size, pool_type, layout, "W", "adaptive_pool1d")


def adaptive_pool3d(data: Tensor, output_size, pool_type: str,
                    layout: str = "NCDHW") -> Tensor:
    """Adaptive 3-D pooling of the ``D``, ``H``, ``W`` axes to ``output_size`` (see
    :func:`adaptive_pool`)."""
    return _adaptive_pool(data, output_size, pool_type, layout, "DHW", "adaptive_pool3d")


def _adaptive_pool(data: Tensor, output_size, pool_type: str, layout: str, letters: str,
                   op: str) -> Tensor:
    axes = _layout_axes(data, layout, op, letters)
    _check_pool_type(pool_type, op)
    nd = len(letters)
    if isinstance(output_size, int):
        output_size = (output_size,) * nd
    outs = check_strides(output_size, nd, op, "output_size")
    ins = [get_const_int(data.shape[a]) for a in axes]

    def bounds(o, n_in, n_out):
        return _op.floordiv(o * n_in, n_out), _op.floordiv((o + 1) * n_in + n_out - 1, n_out)

    def kmax(n_in, n_out):
        return max(-(-(o + 1) * n_in // n_out) - (o * n_in) // n_out for o in range(n_out))

    red = [reduce_axis((0, kmax(n, o)), name=f"rv{k}") for k, (n, o) in enumerate(zip(ins,
                                                                                         outs))]
    shape = list(data.shape)
    for a, o in zip(axes, outs):
        shape[a] = o
    identity = _op.min_value(data.dtype) if pool_type == "max" else _op.const(0, data.dtype)

    def window(*i):
        idx, inside = list(i), []
        for a, n, o, r in zip(axes, ins, outs, red):
            lo, hi = bounds(i[a], n, o)
            idx[a] = _op._min(lo + r, n - 1)
            inside.append(_op.lt(lo + r, hi))
        return _op.if_then_else(_op.all(*inside), data(*idx), identity)

    if pool_type == "max":
        return compute(shape, lambda *i: _op.max(window(*i), axis=red),
                       name="tensor", tag="adaptive_pool_max")
    psum = compute(shape, lambda *i: _op.sum(window(*i), axis=red),
                   name="tensor", tag="adaptive_pool_sum")

    def avg(*i):
        count = None
        for a, n, o in zip(axes, ins, outs):
            lo, hi = bounds(i[a], n, o)
            count = hi - lo if count is None else count * (hi - lo)
        return _op.div(psum(*i), _op.cast(data.dtype, count))
    return compute(shape, avg, name="tensor", tag=tag.ELEMWISE)
