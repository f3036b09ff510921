"""Normalisations: ``batch_norm`` (inference), ``layer_norm``, ``instance_norm``,
``group_norm`` and ``lrn``."""
from __future__ import annotations

from typing import List, Optional, Sequence

from ...te.operation import compute, reduce_axis
from ...te.tensor import Tensor, _dim_equal
from ...tir import op as _op
from .. import tag
from ..utils import TopiError, check_strides, get_const_int, prod


def _axis(axis: int, ndim: int, op: str) -> int:
    if not -ndim <= axis < ndim:
        raise TopiError(f"{op}: axis {axis} is out of range for {ndim} dimension(s)")
    return axis + ndim if axis < 0 else axis


def batch_norm(data: Tensor, gamma: Tensor, beta: Tensor, moving_mean: Tensor,
               moving_var: Tensor, axis: Optional[int] = None, epsilon: Optional[float] = None,
               center: Optional[bool] = None, scale: Optional[bool] = None,
               training: Optional[bool] = None,
               momentum: Optional[float] = None) -> List[Tensor]:
    """Batch normalisation along ``axis``: ``(x - mean) / sqrt(var + eps) * gamma + beta``.

    In inference the moving statistics are used; in training the batch's own mean and
    (biased) variance over every axis but ``axis``. The main stage ``T_batch_norm`` (tag
    "broadcast") is ``x * scale[c] + shift[c]`` with the per-channel ``scale`` and ``shift``
    computed first.

    Parameters
    ----------
    data : Tensor
        The input.
    gamma, beta, moving_mean, moving_var : Tensor
        1-D, one entry per channel of ``axis``.
    axis : int
        The channel axis (default 1).
    epsilon : float
        Added to the variance (default 1e-5).
    center, scale : bool
        Whether to add ``beta`` / multiply by ``gamma`` (default both).
    training : bool
        Use the batch statistics (default False).
    momentum : float
        In training, the weight in ``[0, 1]`` of the batch statistics in the updated moving
        ones (default 0.1).

    Returns
    -------
    list of Tensor
        ``[out, new_moving_mean, new_moving_var]``: in training
        ``(1 - momentum) * moving + momentum * batch`` (the variance biased), in inference
        copies of the moving statistics (new tensors, so that no output is an input).
    """
    op = "batch_norm"
    axis = _axis(1 if axis is None else axis, data.ndim, op)
    eps = 1e-5 if epsilon is None else epsilon
    center = True if center is None else center
    scale = True if scale is None else scale
    momentum = 0.1 if momentum is None else momentum
    c = data.shape[axis]
    for name, t in (("gamma", gamma), ("beta", beta), ("moving_mean", moving_mean),
                    ("moving_var", moving_var)):
        if not isinstance(t, Tensor) or t.ndim != 1 or not _dim_equal(t.shape[0], c):
            raise TopiError(f"{op}: {name} must be 1-D of length {c} (data axis {axis})")
    dt = data.dtype
    if training:
        if not 0 <= momentum <= 1:
            raise TopiError(f"{op}: momentum must be in [0, 1], got {momentum}")
        mean, var = _batch_moments(data, axis)
    else:
        mean, var = moving_mean, moving_var

    # per-channel scale and shift first (C square roots, not one per element); their tag is
    # not injective, so schedules keep them as small stages of their own
    def scale_of(ch):
        inv = _op.rsqrt(_op.add(var[ch], _op.const(eps, dt)))
        return _op.mul(inv, gamma[ch]) if scale else inv
    k_scale = compute((c,), scale_of, name="T_batch_norm_scale", tag="batch_norm_param")

    def shift_of(ch):
        sh = _op.neg(_op.mul(mean[ch], k_scale[ch]))
        return _op.add(sh, beta[ch]) if center else sh
    k_shift = compute((c,), shift_of, name="T_batch_norm_shift", tag="batch_norm_param")

    def f(*i):
        return _op.add(_op.mul(data(*i), k_scale[i[axis]]), k_shift[i[axis]])
    out = compute(data.shape, f, name="T_batch_norm", tag=tag.BROADCAST, attrs={"axis": axis})
    keep, new = _op.const(1 - momentum, dt), _op.const(momentum, dt)

    def update(moving, batch, name):
        def g(ch):
            if not training:
                return moving[ch]
            return _op.add(_op.mul(keep, moving[ch]), _op.mul(new, batch[ch]))
        return compute((c,), g, name=f"T_batch_norm_{name}", tag=tag.INJECTIVE)
    return [out, update(moving_mean, mean, "moving_mean"), update(moving_var, var, "moving_var")]


def _batch_moments(data: Tensor, axis: int):
    """The mean and biased variance of ``data`` over every axis but ``axis`` (1-D, one per
    channel; stages ``T_batch_norm_mean`` and ``T_batch_norm_var``)."""
    dims = [d for d in range(data.ndim) if d != axis]
    count = _op.cast(data.dtype, prod([data.shape[d] for d in dims]))

    def moment(f, name):
        rs = [reduce_axis((0, data.shape[d]), name=f"r{d}") for d in dims]

        def g(ch):
            idx = list(rs)
            idx.insert(axis, ch)
            return _op.sum(f(idx, ch), axis=rs) if rs else f(idx, ch)  # 1-D: one sample
        total = compute((data.shape[axis],), g, name=name + "_sum")
        return compute((data.shape[axis],), lambda ch: _op.div(total[ch], count), name=name,
                       tag="batch_norm_param")
    mean = moment(lambda idx, ch: data(*idx), "T_batch_norm_mean")

    def sq(idx, ch):
        d = _op.sub(data(*idx), mean[ch])
        return _op.mul(d, d)
    return mean, moment(sq, "T_batch_norm_var")


def layer_norm(data: Tensor, gamma: Tensor, beta: Tensor, axis: Sequence[int],
               epsilon: float = 1e-5) -> Tensor:
    """``(x - mean) / sqrt(var + eps) * gamma + beta`` with mean and variance over ``axis``;
    ``gamma`` and ``beta`` have the shape of those axes (stages ``T_layer_norm_*``)."""
    return _normalize(data, gamma, beta, axis, epsilon, "layer_norm", "T_layer_norm")


def instance_norm(data: Tensor, gamma: Tensor, beta: Tensor, axis: Sequence[int],
                  epsilon: float = 1e-5) -> Tensor:
    """Instance normalisation: :func:`layer_norm` over ``axis`` (e.g. the spatial axes;
    stages ``T_instance_norm*``)."""
    return _normalize(data, gamma, beta, axis, epsilon, "instance_norm", "T_instance_norm")


def _normalize(data: Tensor, gamma: Tensor, beta: Tensor, axis, epsilon: float, op: str,
               name: str) -> Tensor:
    n = data.ndim
    axes = sorted({_axis(a, n, op) for a in ([axis] if isinstance(axis, int) else axis)})
    if not axes:
        raise TopiError(f"{op}: axis must name at least one axis")
    red_dims = [data.shape[a] for a in axes]
    for arg, t in (("gamma", gamma), ("beta", beta)):
        if t is None:
            continue
        if t.ndim != len(axes) or not all(_dim_equal(a, b) for a, b in zip(t.shape, red_dims)):
            raise TopiError(f"{op}: {arg} must have shape {red_dims}, got {list(t.shape)}")
    keep = [k for k in range(n) if k not in axes]
    red_shape = [data.shape[k] for k in keep]
    count = _op.cast(data.dtype, prod(red_dims))

    def full(i, rs):
        idx = [None] * n
        for pos, k in enumerate(keep):
            idx[k] = i[pos]
        for r, k in zip(rs, axes):
            idx[k] = r
        return idx

    r1 = [reduce_axis((0, data.shape[a]), name=f"k{a}") for a in axes]
    mean = compute(red_shape, lambda *i: _op.sum(_op.div(data(*full(i, r1)), count), axis=r1),
                   name=name + "_mean")
    r2 = [reduce_axis((0, data.shape[a]), name=f"k{a}") for a in axes]

    def sq(*i):
        d = _op.sub(data(*full(i, r2)), mean(*i))
        return _op.sum(_op.div(_op.mul(d, d), count), axis=r2)
    var = compute(red_shape, sq, name=name + "_var")

    def f(*i):
        ri = [i[k] for k in keep]
        gi = [i[k] for k in axes]
        v = _op.mul(_op.sub(data(*i), mean(*ri)),
                    _op.rsqrt(_op.add(var(*ri), _op.const(epsilon, data.dtype))))
        if gamma is not None:
            v = _op.mul(v, gamma(*gi))
        if beta is not None:
            v = _op.add(v, beta(*gi))
        return v
    return compute(data.shape, f, name=name, tag=tag.INJECTIVE)


def lrn(data: Tensor, size: int, axis: int = 1, alpha: float = 0.0001, beta: float = 0.75,
        bias: float = 2) -> Tensor:
    """Local response normalisation across ``axis``:
    ``x / (bias + alpha * sum(x^2 over size neighbours) / size) ** beta``."""
    op = "lrn"
    size = check_strides(size, 1, op, "size")[0]
    if size % 2 == 0:
        raise TopiError(f"{op}: size must be odd, got {size}")
    axis = _axis(axis, data.ndim, op)
    half = size // 2
    c = data.shape[axis]
    r = reduce_axis((0, size), name="rxs")
    dt = data.dtype

    def sqr(*i):
        idx = list(i)
        pos = _op.add(_op.sub(i[axis], half), r)
        idx[axis] = _op._min(_op._max(pos, 0), _op.sub(c, 1))
        v = data(*idx)
        inside = _op.all(_op.ge(pos, 0), _op.lt(pos, c))
        return _op.sum(_op.if_then_else(inside, _op.mul(v, v), _op.const(0, dt)), axis=r)
    sqr_sum = compute(data.shape, sqr, name="tensor", tag="sqr_sum")

    def f(*i):
        base = _op.add(_op.const(bias, dt), _op.mul(_op.const(alpha / size, dt), sqr_sum(*i)))
        return _op.div(data(*i), _op.power(base, _op.const(beta, dt)))
    return compute(data.shape, f, name="tensor", tag=tag.BROADCAST)


def l2_normalize(data: Tensor, eps: float, axis: Optional[Sequence[int]] = None) -> Tensor:
    """``x / sqrt(max(sum(x^2 over axis), eps))`` (all axes when ``axis`` is None)."""
    op = "l2_normalize"
    axes = list(range(data.ndim)) if axis is None else \
        sorted({_axis(int(a), data.ndim, op) for a in axis})
    dt = data.dtype
    rs = [reduce_axis((0, data.shape[a]), name=f"rk{a}") for a in axes]

    def sqr_sum(*i):
        idx, k = list(i), iter(rs)
        for a in axes:
            idx[a] = next(k)
        v = data(*idx)
        return _op.sum(_op.mul(v, v), axis=rs)
    # one element per kept index (the normalised axes are 1), broadcast back below
    kept = [1 if a in axes else data.shape[a] for a in range(data.ndim)]
    ssum = compute(kept, sqr_sum, name="l2_normalize_sum", tag="l2_normalize_sum")

    def f(*i):
        j = [0 if a in axes else i[a] for a in range(data.ndim)]
        norm = _op.sqrt(_op._max(ssum(*j), _op.const(eps, dt)))
        return _op.div(data(*i), norm)
    return compute(data.shape, f, name="l2_normalize", tag="l2_normalize")


def group_norm(data: Tensor, gamma: Tensor, beta: Tensor, num_groups: int, channel_axis: int,
               axes: Sequence[int], epsilon: float = 1e-5) -> Tensor:
    """Group normalisation: the channels (``channel_axis``) split into ``num_groups`` groups,
    each normalised over its channels and ``axes``, then scaled by ``gamma`` and shifted by
    ``beta`` per channel (stages ``T_group_norm*``)."""
    op = "group_norm"
    n = data.ndim
    caxis = _axis(channel_axis, n, op)
    axes = sorted({_axis(a, n, op) for a in ([axes] if isinstance(axes, int) else axes)})
    if caxis in axes:
        raise TopiError(f"{op}: axes must not include the channel_axis {caxis}")
    groups = check_strides(num_groups, 1, op, "num_groups")[0]
    try:
        c = get_const_int(data.shape[caxis])
    except ValueError as e:
        raise TopiError(f"{op}: the channel count must be constant") from e
    if c % groups:
        raise TopiError(f"{op}: num_groups={groups} does not divide the {c} channels")
    for name, t in (("gamma", gamma), ("beta", beta)):
        if t is not None and (t.ndim != 1 or not _dim_equal(t.shape[0], c)):
            raise TopiError(f"{op}: {name} must be 1-D of length {c}, got {list(t.shape)}")
    cg = c // groups
    keep = [k for k in range(n) if k != caxis and k not in axes]
    stat_shape = [data.shape[k] for k in keep] + [groups]
    count = _op.cast(data.dtype, prod([cg] + [data.shape[a] for a in axes]))

    def full(i, rc, rs):
        idx = [None] * n
        for pos, k in enumerate(keep):
            idx[k] = i[pos]
        for r, k in zip(rs, axes):
            idx[k] = r
        idx[caxis] = i[-1] * cg + rc
        return idx

    def stat(kind, mean=None):
        rc = reduce_axis((0, cg), name="rc")
        rs = [reduce_axis((0, data.shape[a]), name=f"k{a}") for a in axes]

        def f(*i):
            v = data(*full(i, rc, rs))
            if mean is not None:
                v = _op.sub(v, mean(*i))
                v = _op.mul(v, v)
            return _op.sum(_op.div(v, count), axis=[rc] + rs)
        return compute(stat_shape, f, name=f"T_group_norm_{kind}")

    mean = stat("mean")
    var = stat("var", mean)

    def f(*i):
        si = [i[k] for k in keep] + [i[caxis] // cg]
        v = _op.mul(_op.sub(data(*i), mean(*si)),
                    _op.rsqrt(_op.add(var(*si), _op.const(epsilon, data.dtype))))
        if gamma is not None:
            v = _op.mul(v, gamma(i[caxis]))
        if beta is not None:
            v = _op.add(v, beta(i[caxis]))
        return v
    return compute(data.shape, f, name="T_group_norm", tag=tag.INJECTIVE)
