"""Neural-network operators (``relay.nn``): relations and constructors. Each is lowered by
its TOPI compute (see ``strategy``)."""
from __future__ import annotations

import re
from typing import Tuple

from ...error import TVMError
from ..expr import (
    Constant,  # noqa: F401  (classic code reads relay.nn.Constant)
    Expr,
    TupleWrapper,
)
from ..ty import TensorType, TupleType
from ._rel import RelayTypeError, ndim_arg, norm_axis, same_dtype, tensor_arg, topi_rel
from .registry import REQUIRED, OpPattern, make_call, register, register_arg_types


def _check_weight_attrs(op: str, attrs, out_channels, kernel) -> None:
    """A convolution's ``kernel_size`` and ``channels`` attributes, where given, must be the
    weight's."""
    if attrs.kernel_size is not None and tuple(attrs.kernel_size) != tuple(kernel):
        raise RelayTypeError(f"{op}: kernel_size {tuple(attrs.kernel_size)} differs from the "
                             f"weight's {tuple(kernel)}")
    if attrs.channels is not None and int(attrs.channels) != out_channels:
        raise RelayTypeError(f"{op}: channels={attrs.channels} differs from the weight's "
                             f"{out_channels}")


def _pair(op: str, v, what: str) -> Tuple[int, int]:
    v = (v, v) if isinstance(v, int) else tuple(int(x) for x in v)
    if len(v) == 1:
        v = (v[0], v[0])
    if len(v) != 2 or min(v) < 1:
        raise RelayTypeError(f"{op}: {what} must be one or two positive ints, got {v}")
    return v


def pad4(op: str, padding) -> Tuple[int, int, int, int]:
    """Relay padding (1, 2 or 4 ints) as ``(top, left, bottom, right)``."""
    p = (padding,) if isinstance(padding, int) else tuple(int(x) for x in padding)
    if len(p) == 1:
        p = p * 4
    elif len(p) == 2:
        p = (p[0], p[1], p[0], p[1])
    if len(p) != 4 or min(p) < 0:
        raise RelayTypeError(f"{op}: padding must be 1, 2 or 4 non-negative ints, got "
                             f"{padding!r}")
    return p


def _out_size(op: str, size: int, k: int, d: int, lo: int, hi: int, s: int, what: str,
              ceil_mode: bool = False) -> int:
    eff = (k - 1) * d + 1
    span = size + lo + hi - eff
    if span < 0:
        raise RelayTypeError(f"{op}: the {what} window {eff} (kernel {k}, dilation {d}) is "
                             f"larger than the padded input {size + lo + hi}")
    out = -(-span // s) + 1 if ceil_mode else span // s + 1
    if ceil_mode and (out - 1) * s >= size + lo:
        out -= 1
    return out


#: the data layouts of ``nn.conv2d`` (a weight in any permutation of "OIHW")
CONV2D_DATA_LAYOUTS = ("NCHW", "NHWC")


def conv2d_layouts(attrs) -> Tuple[str, str]:
    """The (data, kernel) layouts of an ``nn.conv2d``'s attributes, checked: data "NCHW" or
    "NHWC", the kernel any order of "OIHW" ("OIHW", "HWIO", "OHWI", "HWOI"…; O the output
    channels, I the input channels per group), the output the data's layout."""
    op = "nn.conv2d"
    dl = attrs.get("data_layout") or "NCHW"
    kl = attrs.get("kernel_layout") or ("OIHW" if dl == "NCHW" else "HWIO")
    if dl not in CONV2D_DATA_LAYOUTS:
        raise RelayTypeError(f"{op}: data_layout {dl!r} is not supported (only "
                             f"{' or '.join(CONV2D_DATA_LAYOUTS)})")
    if len(kl) != 4 or sorted(kl) != sorted("OIHW"):
        raise RelayTypeError(f"{op}: kernel_layout {kl!r} is not supported (an order of "
                             "O, I, H and W: 'OIHW', 'HWIO', 'OHWI', 'HWOI')")
    ol = attrs.get("out_layout") or ""
    if ol not in ("", dl):
        raise RelayTypeError(f"{op}: out_layout {ol!r} differs from data_layout {dl!r} (not "
                             "supported)")
    return dl, kl


def hw_layout_axes(op: str, layout: str, ndim: int) -> Tuple[int, int]:
    """Positions of H and W in ``layout`` ("NCHW", "NHWC", "NCHW8c"…) of an ``ndim``-D value,
    else a type error naming ``op`` and the layout."""
    tokens = re.findall(r"\d*[A-Za-z]", layout) if isinstance(layout, str) else []
    if ("".join(tokens) != layout or len(set(tokens)) != len(tokens)
            or not all(c in tokens for c in "NCHW")):
        raise RelayTypeError(f"{op}: layout {layout!r} is not supported (it must name N, C, "
                             "H and W, e.g. 'NCHW' or 'NHWC')")
    if len(tokens) != ndim:
        raise RelayTypeError(f"{op}: layout {layout!r} has {len(tokens)} axes but the data is "
                             f"{ndim}-D")
    return tokens.index("H"), tokens.index("W")


# -------------------------------------------------------------------------------------- conv2d
def _conv_out_shape(op: str, full: dict, ol: str) -> tuple:
    """The output shape of a 2-D convolution in layout ``ol`` (N, C, H, W in any order, C
    possibly split) from its NCHW extents ``full``."""
    from ...tir.data_layout import Layout
    out = Layout(ol)
    axes = [out[i] for i in range(len(out))]
    if sorted(a for a in axes if a.isupper()) != sorted("NCHW"):
        raise RelayTypeError(f"{op}: out_layout {ol!r} must order N, C, H and W (any of them "
                             f"split)")
    what = {"N": "batch", "C": "output channels", "H": "output rows", "W": "output columns"}
    shape = []
    for a in axes:
        if a.islower():
            shape.append(out.factor_of(a))
        elif a.lower() in axes:
            if full[a] % out.factor_of(a):
                raise RelayTypeError(f"{op}: {full[a]} {what[a]} do not split by "
                                     f"{out.factor_of(a)} ({ol})")
            shape.append(full[a] // out.factor_of(a))
        else:
            shape.append(full[a])
    return tuple(shape)


def _conv2d_rel(types, attrs):
    op = "nn.conv2d"
    if general_conv2d_layouts(attrs):
        return _general_conv2d_rel(types, attrs)
    dl, kl = conv2d_layouts(attrs)
    data = ndim_arg(op, types, 0, 4, "data", dl)
    weight = ndim_arg(op, types, 1, 4, "weight", kl)
    if not attrs.out_dtype:  # mixed dtypes (uint8 data, int8 weight) need an out_dtype
        same_dtype(op, data, weight, "data and weight")
    n, c, h, w = (data.shape[dl.index(x)] for x in "NCHW")
    o, i, kh, kw = (weight.shape[kl.index(x)] for x in "OIHW")
    groups = int(attrs.groups)
    if groups < 1 or c % groups or o % groups:
        raise RelayTypeError(f"{op}: groups={groups} must divide the {c} input and {o} output "
                             "channels")
    if i * groups != c:
        raise RelayTypeError(f"{op}: weight {weight.shape} ({kl}) expects {i * groups} input "
                             f"channels ({i} per group x {groups} groups), data {data.shape} "
                             f"({dl}) has {c}")
    _check_weight_attrs(op, attrs, o, (kh, kw))
    sh, sw = _pair(op, attrs.strides, "strides")
    dh, dw = _pair(op, attrs.dilation, "dilation")
    top, left, bottom, right = pad4(op, attrs.padding)
    oh = _out_size(op, h, kh, dh, top, bottom, sh, "height")
    ow = _out_size(op, w, kw, dw, left, right, sw, "width")
    dims = dict(zip("NCHW", (n, o, oh, ow)))
    return TensorType(tuple(dims[x] for x in dl), attrs.out_dtype or data.dtype)


def general_conv2d_layouts(attrs) -> bool:
    """Whether ``attrs`` name layouts beyond NCHW/NHWC data in their own layout: blocked
    ones (``NCHW16c`` data, ``OIHW16i16o`` kernel) or another output layout."""
    dl = attrs.get("data_layout") or "NCHW"
    kl = attrs.get("kernel_layout") or ""
    ol = attrs.get("out_layout") or ""
    return dl not in CONV2D_DATA_LAYOUTS or kl != kl.upper() or ol not in ("", dl)


def _layout_sizes(op: str, what: str, layout: str, shape, primal: str, subs: str) -> dict:
    """The full size of each primal axis of a value of ``shape`` in ``layout`` (an order of
    the ``primal`` axes, some split by the lower-case ``subs``)."""
    from ...tir.data_layout import Layout
    try:
        lay = Layout(layout)
    except TVMError as e:
        raise RelayTypeError(f"{op}: {what} layout {layout!r}: {e}") from None
    axes = [lay[i] for i in range(len(lay))]
    if sorted(a for a in axes if a.isupper()) != sorted(primal) or \
            any(a.islower() and a not in subs for a in axes):
        raise RelayTypeError(f"{op}: {what} layout {layout!r} must order the axes {primal} "
                             f"(split ones: {', '.join(subs)})")
    if len(shape) != len(axes):
        raise RelayTypeError(f"{op}: {what} of shape {tuple(shape)} does not have the "
                             f"{len(axes)} axes of layout {layout!r}")
    sizes = {}
    for a in primal:
        n = int(shape[axes.index(a)])
        if a.lower() in axes:
            sub = int(shape[axes.index(a.lower())])
            if sub != lay.factor_of(a):
                raise RelayTypeError(f"{op}: {what} axis {a.lower()} of size {sub} is not the "
                                     f"{lay.factor_of(a)} of layout {layout!r}")
            n *= sub
        sizes[a] = n
    return sizes


def _general_conv2d_rel(types, attrs):
    """The type of an ``nn.conv2d`` in any data, kernel and output layouts (classic's
    relation: the convolution of the full NCHW/OIHW sizes, laid out as ``out_layout``)."""
    op = "nn.conv2d"
    dl = attrs.get("data_layout") or "NCHW"
    kl = attrs.get("kernel_layout") or "OIHW"
    ol = attrs.get("out_layout") or dl
    data = tensor_arg(op, types, 0, "data")
    weight = tensor_arg(op, types, 1, "weight")
    d = _layout_sizes(op, "data", dl, data.shape, "NCHW", "nchw")
    k = _layout_sizes(op, "kernel", kl, weight.shape, "OIHW", "oihw")
    groups = int(attrs.groups)
    if groups < 1 or d["C"] % groups or k["O"] % groups or k["I"] * groups != d["C"]:
        raise RelayTypeError(f"{op}: weight {weight.shape} ({kl}) and data {data.shape} ({dl}) "
                             f"do not match with groups={groups}")
    _check_weight_attrs(op, attrs, k["O"], (k["H"], k["W"]))
    sh, sw = _pair(op, attrs.strides, "strides")
    dh, dw = _pair(op, attrs.dilation, "dilation")
    top, left, bottom, right = pad4(op, attrs.padding)
    full = {"N": d["N"], "C": k["O"],
            "H": _out_size(op, d["H"], k["H"], dh, top, bottom, sh, "height"),
            "W": _out_size(op, d["W"], k["W"], dw, left, right, sw, "width")}
    return TensorType(_conv_out_shape(op, full, ol), attrs.out_dtype or data.dtype)


register("nn.conv2d", 2, _conv2d_rel, OpPattern.OUT_ELEMWISE_FUSABLE,
         {"strides": (1, 1), "padding": (0, 0, 0, 0), "dilation": (1, 1), "groups": 1,
          "channels": None, "kernel_size": None, "data_layout": "NCHW",
          "kernel_layout": "OIHW", "out_layout": "", "out_dtype": ""})


def _conv2d_arg_types(types, attrs):
    """An unknown weight from the data, ``channels``, ``kernel_size`` and ``groups``."""
    data, weight = types
    if weight is not None or data is None or attrs.channels is None \
            or attrs.kernel_size is None:
        return types
    if general_conv2d_layouts(attrs):
        from ...tir.data_layout import Layout
        dl = attrs.get("data_layout") or "NCHW"
        kl = attrs.get("kernel_layout") or "OIHW"
        d = _layout_sizes("nn.conv2d", "data", dl, data.shape, "NCHW", "nchw")
        dims = dict(zip("OIHW", (int(attrs.channels), d["C"] // int(attrs.groups),
                                 *attrs.kernel_size)))
        lay = Layout(kl)
        axes = [lay[i] for i in range(len(lay))]
        shape = [lay.factor_of(a) if a.islower() else
                 dims[a] // lay.factor_of(a) if a.lower() in axes else dims[a] for a in axes]
        return [data, TensorType(tuple(shape), data.dtype)]
    dl, kl = conv2d_layouts(attrs)
    c = tensor_arg("nn.conv2d", types, 0, "data").shape[dl.index("C")]
    dims = dict(zip("OIHW", (int(attrs.channels), c // int(attrs.groups),
                             *attrs.kernel_size)))
    return [data, TensorType(tuple(dims[x] for x in kl), data.dtype)]


register_arg_types("nn.conv2d", _conv2d_arg_types)


def conv2d(data: Expr, weight: Expr, strides=(1, 1), padding=(0, 0), dilation=(1, 1),
           groups: int = 1, channels=None, kernel_size=None, data_layout: str = "NCHW",
           kernel_layout: str = "OIHW", out_layout: str = "", out_dtype: str = "") -> Expr:
    """2-D convolution: data "NCHW" or "NHWC", the weight in ``kernel_layout`` (any order of
    "OIHW"; "HWIO" for NHWC when left empty); ``padding`` is 1, 2 or 4 ints (top, left,
    bottom, right)."""
    return make_call("nn.conv2d", [data, weight], strides=_pair("nn.conv2d", strides, "strides"),
                     padding=pad4("nn.conv2d", padding),
                     dilation=_pair("nn.conv2d", dilation, "dilation"), groups=int(groups),
                     channels=channels,
                     kernel_size=None if kernel_size is None else _pair(
                         "nn.conv2d", kernel_size, "kernel_size"),
                     data_layout=data_layout,
                     kernel_layout=kernel_layout or ("OIHW" if data_layout == "NCHW" else "HWIO"),
                     out_layout=out_layout, out_dtype=out_dtype)


# --------------------------------------------------------------------------------------- dense
def _dense_rel(types, attrs):
    op = "nn.dense"
    data = tensor_arg(op, types, 0, "data")
    weight = ndim_arg(op, types, 1, 2, "weight", "units x in")
    if not attrs.out_dtype:  # mixed dtypes (uint8 data, int8 weight) need an out_dtype
        same_dtype(op, data, weight, "data and weight")
    if len(data.shape) < 1:
        raise RelayTypeError(f"{op}: data must have at least one dimension (..., in)")
    k = data.shape[-1]
    if isinstance(k, int) and isinstance(weight.shape[1], int) and k != weight.shape[1]:
        raise RelayTypeError(f"{op}: data {data.shape} and weight {weight.shape} disagree on "
                             f"the reduction dimension ({k} vs {weight.shape[1]})")
    if attrs.units is not None and isinstance(weight.shape[0], int) \
            and int(attrs.units) != weight.shape[0]:
        raise RelayTypeError(f"{op}: units={attrs.units} differs from the weight's "
                             f"{weight.shape[0]}")
    return TensorType(tuple(data.shape[:-1]) + (weight.shape[0],),
                      attrs.out_dtype or data.dtype)


register("nn.dense", 2, _dense_rel, OpPattern.OUT_ELEMWISE_FUSABLE,
         {"units": None, "out_dtype": ""})


def _dense_arg_types(types, attrs):
    """An unknown weight ``(units, in)`` from the data and ``units``."""
    data, weight = types
    if weight is not None or data is None or attrs.units is None:
        return types
    t = tensor_arg("nn.dense", types, 0, "data")
    return [data, TensorType((int(attrs.units), t.shape[-1]), t.dtype)]


register_arg_types("nn.dense", _dense_arg_types)


def dense(data: Expr, weight: Expr, units=None, out_dtype: str = "") -> Expr:
    """``data @ weight.T``: data ``(..., in)``, weight ``(units, in)`` -> ``(..., units)``."""
    return make_call("nn.dense", [data, weight], units=units, out_dtype=out_dtype)


# ------------------------------------------------------------------------ element-wise, bias
def _bias_add_rel(types, attrs):
    op = "nn.bias_add"
    data = tensor_arg(op, types, 0, "data")
    bias = ndim_arg(op, types, 1, 1, "bias")
    same_dtype(op, data, bias, "data and bias")
    axis = norm_axis(op, attrs.axis, len(data.shape))
    if bias.shape[0] != data.shape[axis]:
        raise RelayTypeError(f"{op}: bias of length {bias.shape[0]} does not match data "
                             f"{data.shape} on axis {axis} ({data.shape[axis]})")
    return data


register("nn.bias_add", 2, _bias_add_rel, OpPattern.BROADCAST, {"axis": 1})


def _channel_vectors(op: str, first: int):
    """Unknown arguments from ``first`` on: vectors of the data's length on ``axis``."""
    def fill(types, attrs):
        if types[0] is None:
            return types
        data = tensor_arg(op, types, 0, "data")
        c = data.shape[norm_axis(op, attrs.axis, len(data.shape))]
        return [t if t is not None or i < first else TensorType((c,), data.dtype)
                for i, t in enumerate(types)]
    return fill


register_arg_types("nn.bias_add", _channel_vectors("nn.bias_add", 1))


def bias_add(data: Expr, bias: Expr, axis: int = 1) -> Expr:
    """Add the 1-D ``bias`` along ``axis`` of ``data``."""
    return make_call("nn.bias_add", [data, bias], axis=int(axis))


def _identity_rel(name: str):
    def rel(types, attrs):
        return tensor_arg(name, types, 0, "data")
    return rel


register("nn.relu", 1, _identity_rel("nn.relu"), OpPattern.ELEMWISE)


def relu(data: Expr) -> Expr:
    """``max(data, 0)``."""
    return make_call("nn.relu", [data])


def _softmax_rel(types, attrs):
    t = tensor_arg("nn.softmax", types, 0, "data")
    norm_axis("nn.softmax", attrs.axis, len(t.shape))
    return t


register("nn.softmax", 1, _softmax_rel, OpPattern.OPAQUE, {"axis": -1})


def softmax(data: Expr, axis: int = -1) -> Expr:
    """Softmax along ``axis``."""
    return make_call("nn.softmax", [data], axis=int(axis))


register("nn.fast_softmax", 1, _softmax_rel, OpPattern.OPAQUE, {"axis": -1})


def fast_softmax(data: Expr, axis: int = -1) -> Expr:
    """Softmax along ``axis`` with a fast approximation of exp (what FastMath swaps in)."""
    return make_call("nn.fast_softmax", [data], axis=int(axis))


def _batch_flatten_rel(types, attrs):
    t = tensor_arg("nn.batch_flatten", types, 0, "data")
    if not t.shape:
        raise RelayTypeError("nn.batch_flatten: data must have at least one dimension")
    rest = 1
    for d in t.shape[1:]:
        rest *= d
    return TensorType((t.shape[0], rest), t.dtype)


register("nn.batch_flatten", 1, _batch_flatten_rel, OpPattern.INJECTIVE)


def batch_flatten(data: Expr) -> Expr:
    """Flatten all dimensions but the first."""
    return make_call("nn.batch_flatten", [data])


# ------------------------------------------------------------------------------------ pooling
def _pool_rel(name: str):
    def rel(types, attrs):
        data = tensor_arg(name, types, 0, "data")
        hax, wax = hw_layout_axes(name, attrs.layout, len(data.shape))
        h, w = data.shape[hax], data.shape[wax]
        kh, kw = _pair(name, attrs.pool_size, "pool_size")
        sh, sw = _pair(name, attrs.strides, "strides")
        dh, dw = _pair(name, attrs.dilation, "dilation")
        top, left, bottom, right = pad4(name, attrs.padding)
        if top >= kh or bottom >= kh or left >= kw or right >= kw:
            # every window must see at least one input element
            raise RelayTypeError(f"{name}: padding {(top, left, bottom, right)} must be "
                                 f"smaller than the pool size {(kh, kw)}")
        shape = list(data.shape)
        shape[hax] = _out_size(name, h, kh, dh, top, bottom, sh, "height", attrs.ceil_mode)
        shape[wax] = _out_size(name, w, kw, dw, left, right, sw, "width", attrs.ceil_mode)
        return TensorType(tuple(shape), data.dtype)
    return rel


_POOL_DEFAULTS = {"pool_size": REQUIRED, "strides": (1, 1), "dilation": (1, 1),
                  "padding": (0, 0, 0, 0), "layout": "NCHW", "ceil_mode": False}
register("nn.max_pool2d", 1, _pool_rel("nn.max_pool2d"), OpPattern.OUT_ELEMWISE_FUSABLE,
         _POOL_DEFAULTS)
register("nn.avg_pool2d", 1, _pool_rel("nn.avg_pool2d"), OpPattern.OUT_ELEMWISE_FUSABLE,
         {**_POOL_DEFAULTS, "count_include_pad": False})


def _pool_attrs(name, pool_size, strides, dilation, padding, layout, ceil_mode):
    return dict(pool_size=_pair(name, pool_size, "pool_size"),
                strides=_pair(name, strides, "strides"),
                dilation=_pair(name, dilation, "dilation"), padding=pad4(name, padding),
                layout=layout, ceil_mode=bool(ceil_mode))


def max_pool2d(data: Expr, pool_size=(1, 1), strides=(1, 1), dilation=(1, 1), padding=(0, 0),
               layout: str = "NCHW", out_layout: str = "", ceil_mode: bool = False) -> Expr:
    """2-D max pooling over the H and W axes of ``layout`` ("NCHW", "NHWC"…)."""
    return make_call("nn.max_pool2d", [data], **_pool_attrs(
        "nn.max_pool2d", pool_size, strides, dilation, padding, layout, ceil_mode))


def avg_pool2d(data: Expr, pool_size=(1, 1), strides=(1, 1), dilation=(1, 1), padding=(0, 0),
               layout: str = "NCHW", out_layout: str = "", ceil_mode: bool = False,
               count_include_pad: bool = False) -> Expr:
    """2-D average pooling over the H and W axes of ``layout`` ("NCHW", "NHWC"…)."""
    return make_call("nn.avg_pool2d", [data], count_include_pad=bool(count_include_pad),
                     **_pool_attrs("nn.avg_pool2d", pool_size, strides, dilation, padding,
                                   layout, ceil_mode))


def _global_pool_rel(types, attrs):
    name = "nn.global_avg_pool2d"
    data = tensor_arg(name, types, 0, "data")
    hax, wax = hw_layout_axes(name, attrs.layout, len(data.shape))
    shape = list(data.shape)
    shape[hax] = shape[wax] = 1
    return TensorType(tuple(shape), data.dtype)


register("nn.global_avg_pool2d", 1, _global_pool_rel, OpPattern.OUT_ELEMWISE_FUSABLE,
         {"layout": "NCHW"})


def global_avg_pool2d(data: Expr, layout: str = "NCHW", out_layout: str = "") -> Expr:
    """Average over H and W: ``(N, C, H, W) -> (N, C, 1, 1)`` (H, W of ``layout``)."""
    return make_call("nn.global_avg_pool2d", [data], layout=layout)


# --------------------------------------------------------------------------------- batch_norm
def _batch_norm_rel(types, attrs):
    op = "nn.batch_norm"
    data = tensor_arg(op, types, 0, "data")
    axis = norm_axis(op, attrs.axis, len(data.shape))
    c = data.shape[axis]
    names = ("gamma", "beta", "moving_mean", "moving_var")
    for i, what in enumerate(names, start=1):
        t = ndim_arg(op, types, i, 1, what)
        same_dtype(op, data, t, f"data and {what}")
        if t.shape[0] != c:
            raise RelayTypeError(f"{op}: {what} has length {t.shape[0]}, data {data.shape} "
                                 f"has {c} channels on axis {axis}")
    vec = TensorType((c,), data.dtype)
    return TupleType([data, vec, vec])


register("nn.batch_norm", 5, _batch_norm_rel, OpPattern.BROADCAST,
         {"axis": 1, "epsilon": 1e-5, "center": True, "scale": True})
register_arg_types("nn.batch_norm", _channel_vectors("nn.batch_norm", 1))


def batch_norm(data: Expr, gamma: Expr, beta: Expr, moving_mean: Expr, moving_var: Expr,
               axis: int = 1, epsilon: float = 1e-5, center: bool = True,
               scale: bool = True) -> TupleWrapper:
    """Inference batch normalisation; returns a 3-tuple (use ``[0]``) as classic relay."""
    call = make_call("nn.batch_norm", [data, gamma, beta, moving_mean, moving_var],
                     axis=int(axis), epsilon=float(epsilon), center=bool(center),
                     scale=bool(scale))
    return TupleWrapper(call, 3)


__all__ = ["conv2d", "dense", "bias_add", "relu", "softmax", "batch_flatten", "max_pool2d",
           "avg_pool2d", "global_avg_pool2d", "batch_norm", "pad4"]




# ------------------------------------------------------------------ ops the frontends need
register("nn.leaky_relu", 1, _identity_rel("nn.leaky_relu"), OpPattern.ELEMWISE,
         {"alpha": 0.01})


def leaky_relu(data: Expr, alpha: float = 0.01) -> Expr:
    """``data if data > 0 else alpha * data``."""
    return make_call("nn.leaky_relu", [data], alpha=float(alpha))


def _softmax_like_rel(name: str):
    def rel(types, attrs):
        t = tensor_arg(name, types, 0, "data")
        norm_axis(name, attrs.axis, len(t.shape))
        return t
    return rel


register("nn.log_softmax", 1, _softmax_like_rel("nn.log_softmax"), OpPattern.OPAQUE,
         {"axis": -1})


def log_softmax(data: Expr, axis: int = -1) -> Expr:
    """``log(softmax(data))`` along ``axis``, computed stably."""
    return make_call("nn.log_softmax", [data], axis=int(axis))


register("nn.layer_norm", 3, topi_rel("nn.layer_norm"), OpPattern.OPAQUE,
         {"axis": -1, "epsilon": 1e-5, "center": True, "scale": True})


def layer_norm(data: Expr, gamma: Expr, beta: Expr, axis: int = -1, epsilon: float = 1e-5,
               center: bool = True, scale: bool = True) -> Expr:
    """Normalise ``data`` over ``axis`` (mean 0, variance 1), then scale by ``gamma`` and
    shift by ``beta``."""
    return make_call("nn.layer_norm", [data, gamma, beta], axis=int(axis),
                     epsilon=float(epsilon), center=bool(center), scale=bool(scale))


def _pad_rel(types, attrs):
    op = "nn.pad"
    data = tensor_arg(op, types, 0, "data")
    if len(types) == 2:
        value = tensor_arg(op, types, 1, "pad_value")
        if value.shape:
            raise RelayTypeError(f"{op}: pad_value must be a scalar, got shape {value.shape}")
    elif len(types) != 1:
        raise RelayTypeError(f"{op}: takes the data and an optional pad_value, got "
                             f"{len(types)} arguments")
    width = attrs.pad_width
    if len(width) != len(data.shape):
        raise RelayTypeError(f"{op}: pad_width has {len(width)} entries for the "
                             f"{len(data.shape)}-D data")
    shape = []
    for d, (dim, (lo, hi)) in enumerate(zip(data.shape, width)):
        if isinstance(dim, int):
            if dim + lo + hi < 0:
                raise RelayTypeError(f"{op}: padding ({lo}, {hi}) crops dimension {d} of size "
                                     f"{dim} below zero")
            shape.append(dim + lo + hi)
        else:
            shape.append(dim + (lo + hi) if lo + hi else dim)
    return TensorType(tuple(shape), data.dtype)


register("nn.pad", -1, _pad_rel, OpPattern.INJECTIVE,
         {"pad_width": (), "pad_value": 0.0, "pad_mode": "constant"})


def pad(data: Expr, pad_width, pad_value=0.0, pad_mode: str = "constant") -> Expr:
    """Pad each dimension by ``pad_width[d] = (before, after)`` elements (a negative width
    crops): of ``pad_value`` (a number, or a scalar relay expression) for "constant", the
    border element for "edge", the mirror image for "reflect"."""
    if pad_mode not in ("constant", "edge", "reflect"):
        raise RelayTypeError(f"nn.pad: pad_mode must be 'constant', 'edge' or 'reflect', got "
                             f"{pad_mode!r}")
    if isinstance(pad_width, Expr):
        if isinstance(pad_width, Constant):
            pad_width = pad_width.data.numpy().tolist()
        else:  # widths computed at run time
            from .dyn import dyn_call
            value = pad_value if isinstance(pad_value, Expr) else None
            attrs = {} if value is not None else {"pad_value": float(pad_value)}
            return dyn_call("nn.pad", [data] + ([value] if value is not None else []),
                            [pad_width], pad_mode=pad_mode, **attrs)
    width = tuple((int(a), int(b)) for a, b in pad_width)
    if isinstance(pad_value, Expr):
        return make_call("nn.pad", [data, pad_value], pad_width=width, pad_mode=pad_mode)
    return make_call("nn.pad", [data], pad_width=width, pad_value=float(pad_value),
                     pad_mode=pad_mode)


register("nn.batch_matmul", 2, topi_rel("nn.batch_matmul"), OpPattern.OUT_ELEMWISE_FUSABLE,
         {"out_dtype": "", "transpose_a": False, "transpose_b": True})


def batch_matmul(x: Expr, y: Expr, out_dtype: str = "", transpose_a: bool = False,
                 transpose_b: bool = True) -> Expr:
    """Batched ``x @ y.T`` (``transpose_b``): x ``(B, M, K)``, y ``(B, N, K)``; a batch of
    one broadcasts."""
    return make_call("nn.batch_matmul", [x, y], out_dtype=out_dtype,
                     transpose_a=bool(transpose_a), transpose_b=bool(transpose_b))


__all__ += ["leaky_relu", "log_softmax", "layer_norm", "pad", "batch_matmul", "fast_softmax"]


# ----------------------------------------------------------- 1-D and 3-D conv and pooling
def _ntuple(op: str, v, n: int, what: str) -> tuple:
    """``n`` positive ints from an int or 1 or ``n`` ints."""
    v = (int(v),) if isinstance(v, int) else tuple(int(x) for x in v)
    if len(v) == 1:
        v = v * n
    if len(v) != n or min(v) < 1:
        raise RelayTypeError(f"{op}: {what} must be one or {n} positive ints, got {v}")
    return v


def _padn(op: str, padding, n: int) -> tuple:
    """Relay padding of an ``n``-D window (1, ``n`` or ``2n`` ints) as ``2n`` ints: the
    padding before each dimension, then after each."""
    p = (int(padding),) if isinstance(padding, int) else tuple(int(x) for x in padding)
    if len(p) == 1:
        p = p * (2 * n)
    elif len(p) == n and n > 1:
        p = p + p
    if len(p) != 2 * n or min(p) < 0:
        raise RelayTypeError(f"{op}: padding must be 1, {n} or {2 * n} non-negative ints, "
                             f"got {padding!r}" if n > 1 else
                             f"{op}: padding must be 1 or 2 non-negative ints, got {padding!r}")
    return p


def _conv_defaults(n: int, data_layout: str, kernel_layout: str) -> dict:
    return {"strides": (1,) * n, "padding": (0,) * (2 * n), "dilation": (1,) * n, "groups": 1,
            "channels": None, "kernel_size": None, "data_layout": data_layout,
            "kernel_layout": kernel_layout, "out_layout": "", "out_dtype": ""}


def _conv_rel(name: str):
    base = topi_rel(name)

    def rel(types, attrs):
        t = base(types, attrs)
        w = tensor_arg(name, types, 1, "weight")
        if not attrs.out_dtype:  # mixed dtypes need an out_dtype
            same_dtype(name, tensor_arg(name, types, 0, "data"), w, "data and weight")
        klayout = attrs.kernel_layout
        _check_weight_attrs(name, attrs, w.shape[klayout.index("O")],
                           tuple(w.shape[k] for k, c in enumerate(klayout) if c not in "OI"))
        return t
    return rel


register("nn.conv1d", 2, _conv_rel("nn.conv1d"), OpPattern.OUT_ELEMWISE_FUSABLE,
         _conv_defaults(1, "NCW", "OIW"))
register("nn.conv3d", 2, _conv_rel("nn.conv3d"), OpPattern.OUT_ELEMWISE_FUSABLE,
         _conv_defaults(3, "NCDHW", "OIDHW"))


def _conv_call(name: str, n: int, data, weight, strides, padding, dilation, groups, channels,
               kernel_size, data_layout, kernel_layout, out_layout, out_dtype) -> Expr:
    if out_layout not in ("", data_layout):
        raise RelayTypeError(f"{name}: out_layout {out_layout!r} differs from data_layout "
                             f"{data_layout!r} (not supported)")
    return make_call(name, [data, weight], **_window_attrs(
        name, n, strides, padding, dilation, groups, channels, kernel_size),
        data_layout=data_layout, kernel_layout=kernel_layout, out_layout=out_layout,
        out_dtype=out_dtype)


def _window_attrs(name: str, n: int, strides, padding, dilation, groups, channels,
                  kernel_size) -> dict:
    """The normalised window attributes of an n-D (transposed) convolution."""
    return dict(strides=_ntuple(name, strides, n, "strides"), padding=_padn(name, padding, n),
                dilation=_ntuple(name, dilation, n, "dilation"), groups=int(groups),
                channels=None if channels is None else int(channels),
                kernel_size=None if kernel_size is None else _ntuple(
                    name, kernel_size, n, "kernel_size"))


def conv1d(data: Expr, weight: Expr, strides=1, padding=0, dilation=1, groups: int = 1,
           channels=None, kernel_size=None, data_layout: str = "NCW",
           kernel_layout: str = "OIW", out_layout: str = "", out_dtype: str = "") -> Expr:
    """1-D convolution ("NCW" data with "OIW" weight, or "NWC" with "WIO"); ``padding`` is
    1 or 2 ints (left, right)."""
    return _conv_call("nn.conv1d", 1, data, weight, strides, padding, dilation, groups,
                      channels, kernel_size, data_layout, kernel_layout, out_layout, out_dtype)


def conv3d(data: Expr, weight: Expr, strides=(1, 1, 1), padding=(0, 0, 0), dilation=(1, 1, 1),
           groups: int = 1, channels=None, kernel_size=None, data_layout: str = "NCDHW",
           kernel_layout: str = "OIDHW", out_layout: str = "", out_dtype: str = "") -> Expr:
    """3-D convolution ("NCDHW" data with "OIDHW" weight, or "NDHWC" with "DHWIO");
    ``padding`` is 1, 3 or 6 ints (front, top, left, back, bottom, right)."""
    return _conv_call("nn.conv3d", 3, data, weight, strides, padding, dilation, groups,
                      channels, kernel_size, data_layout, kernel_layout, out_layout, out_dtype)


def conv_arg_types(name: str, transpose: bool = False):
    """Unknown weight of an N-D (transposed) convolution from the data, ``channels``,
    ``kernel_size`` and ``groups``, in ``kernel_layout``: O = ``channels`` (``channels /
    groups`` for a transposed one), I = input channels / ``groups`` (all of them for a
    transposed one), the spatial axes ``kernel_size``."""
    def fill(types, attrs):
        data, weight = types
        if weight is not None or data is None or attrs.channels is None \
                or attrs.kernel_size is None:
            return types
        t = tensor_arg(name, types, 0, "data")
        c = t.shape[attrs.data_layout.index("C")]
        g = int(attrs.groups)
        dims = {"O": int(attrs.channels) // g if transpose else int(attrs.channels),
                "I": c if transpose else c // g}
        spatial = [x for x in attrs.kernel_layout if x not in "OI"]
        if len(spatial) != len(attrs.kernel_size):
            raise RelayTypeError(f"{name}: kernel_layout {attrs.kernel_layout!r} does not "
                                 f"match kernel_size {tuple(attrs.kernel_size)}")
        dims.update(zip(spatial, attrs.kernel_size))
        return [data, TensorType(tuple(dims[x] for x in attrs.kernel_layout), t.dtype)]
    return fill


register_arg_types("nn.conv1d", conv_arg_types("nn.conv1d"))
register_arg_types("nn.conv3d", conv_arg_types("nn.conv3d"))


# ------------------------------------------------------------- transposed convolutions
def conv_transpose_layouts(name: str, attrs, n: int) -> Tuple[str, str]:
    """The checked (data, kernel) layouts of an ``n``-D transposed convolution: the data a
    permutation of N, C and the spatial axes, the kernel one of I (input channels), O
    (output channels per group) and the spatial axes."""
    sp = "DHW"[3 - n:]
    dl, kl = attrs.data_layout, attrs.kernel_layout
    if sorted(dl) != sorted("NC" + sp) or len(dl) != n + 2:
        raise RelayTypeError(f"{name}: data_layout {dl!r} must order N, C and {sp}")
    if sorted(kl) != sorted("IO" + sp) or len(kl) != n + 2:
        raise RelayTypeError(f"{name}: kernel_layout {kl!r} must order I, O and {sp}")
    if attrs.out_layout not in ("", dl):
        raise RelayTypeError(f"{name}: out_layout {attrs.out_layout!r} differs from "
                             f"data_layout {dl!r} (not supported)")
    return dl, kl


def _conv_transpose_rel(name: str):
    def rel(types, attrs):
        data = tensor_arg(name, types, 0, "data")
        w = tensor_arg(name, types, 1, "weight")
        if not attrs.out_dtype:
            same_dtype(name, data, w, "data and weight")
        n = len(data.shape) - 2
        if n < 1 or len(w.shape) != n + 2:
            raise RelayTypeError(f"{name}: data {data.shape} and weight {w.shape} must both "
                                 f"be {n + 2}-D")
        dl, kl = conv_transpose_layouts(name, attrs, n)
        c = data.shape[dl.index("C")]
        if w.shape[kl.index("I")] != c:
            raise RelayTypeError(f"{name}: weight {w.shape} ({kl}) expects "
                                 f"{w.shape[kl.index('I')]} input channels, data {data.shape} "
                                 f"({dl}) has {c}")
        # (in - 1) * stride - padding + dilated kernel + output_padding, per spatial axis
        shape = list(data.shape)
        shape[dl.index("C")] = w.shape[kl.index("O")] * int(attrs.groups)
        for k, ax in enumerate("DHW"[3 - n:]):
            size, kk = data.shape[dl.index(ax)], w.shape[kl.index(ax)]
            ext = (kk - 1) * attrs.dilation[k] + 1 + attrs.output_padding[k] \
                - attrs.padding[k] - attrs.padding[n + k]
            shape[dl.index(ax)] = (size - 1) * attrs.strides[k] + ext
        t = TensorType(tuple(shape), attrs.out_dtype or data.dtype)
        _check_weight_attrs(name, attrs, w.shape[kl.index("O")] * int(attrs.groups),
                           tuple(w.shape[k] for k, c in enumerate(kl) if c not in "OI"))
        return t
    return rel


for _n, _dl, _kl in ((1, "NCW", "IOW"), (2, "NCHW", "IOHW"), (3, "NCDHW", "IODHW")):
    _name = f"nn.conv{_n}d_transpose"
    register(_name, 2, _conv_transpose_rel(_name), OpPattern.OUT_ELEMWISE_FUSABLE,
             {**_conv_defaults(_n, _dl, _kl), "output_padding": (0,) * _n})
    register_arg_types(_name, conv_arg_types(_name, transpose=True))


def _conv_transpose_call(n: int, data, weight, strides, padding, dilation, groups, channels,
                         kernel_size, data_layout, kernel_layout, out_layout, output_padding,
                         out_dtype) -> Expr:
    name = f"nn.conv{n}d_transpose"
    opad = (int(output_padding),) * n if isinstance(output_padding, int) else tuple(
        int(x) for x in output_padding)
    if len(opad) == 1:
        opad = opad * n
    if len(opad) != n or min(opad) < 0:
        raise RelayTypeError(f"{name}: output_padding must be one or {n} non-negative ints, "
                             f"got {output_padding!r}")
    return make_call(name, [data, weight], **_window_attrs(
        name, n, strides, padding, dilation, groups, channels, kernel_size),
        data_layout=data_layout, kernel_layout=kernel_layout, out_layout=out_layout or "",
        output_padding=opad, out_dtype=out_dtype)


def conv1d_transpose(data: Expr, weight: Expr, strides=(1,), padding=(0,), dilation=(1,),
                     groups: int = 1, channels=None, kernel_size=None,
                     data_layout: str = "NCW", kernel_layout: str = "IOW",
                     out_layout: str = "", output_padding=(0,), out_dtype: str = "") -> Expr:
    """Transposed 1-D convolution (the gradient of ``conv1d`` with respect to its data):
    the weight is I (input channels), O (output channels) and W in ``kernel_layout``."""
    return _conv_transpose_call(1, data, weight, strides, padding, dilation, groups,
                                channels, kernel_size, data_layout, kernel_layout, out_layout,
                                output_padding, out_dtype)


def conv2d_transpose(data: Expr, weight: Expr, strides=(1, 1), padding=(0, 0),
                     dilation=(1, 1), groups: int = 1, channels=None, kernel_size=None,
                     data_layout: str = "NCHW", kernel_layout: str = "IOHW",
                     out_layout: str = "", output_padding=(0, 0), out_dtype: str = "") -> Expr:
    """Transposed 2-D convolution: data in ``data_layout`` ("NCHW", "NHWC"…), the weight
    in ``kernel_layout`` (an order of I, O (per group), H, W: "IOHW", "OIHW", "HWOI"…);
    ``padding`` 1, 2 or 4 ints."""
    return _conv_transpose_call(2, data, weight, strides, padding, dilation, groups,
                                channels, kernel_size, data_layout, kernel_layout, out_layout,
                                output_padding, out_dtype)


def conv3d_transpose(data: Expr, weight: Expr, strides=(1, 1, 1), padding=(0, 0, 0),
                     dilation=(1, 1, 1), groups: int = 1, channels=None, kernel_size=None,
                     data_layout: str = "NCDHW", kernel_layout: str = "IODHW",
                     out_layout: str = "", output_padding=(0, 0, 0),
                     out_dtype: str = "") -> Expr:
    """Transposed 3-D convolution ("NCDHW" or "NDHWC" data, an "IODHW"-like weight);
    ``padding`` 1, 3 or 6 ints."""
    return _conv_transpose_call(3, data, weight, strides, padding, dilation, groups,
                                channels, kernel_size, data_layout, kernel_layout, out_layout,
                                output_padding, out_dtype)


__all__ += ["conv1d_transpose", "conv2d_transpose", "conv3d_transpose"]


def _pool_defaults(n: int, layout: str) -> dict:
    return {"pool_size": REQUIRED, "strides": (1,) * n, "dilation": (1,) * n,
            "padding": (0,) * (2 * n), "layout": layout, "ceil_mode": False}


for _n, _layout in ((1, "NCW"), (3, "NCDHW")):
    register(f"nn.max_pool{_n}d", 1, topi_rel(f"nn.max_pool{_n}d"),
             OpPattern.OUT_ELEMWISE_FUSABLE, _pool_defaults(_n, _layout))
    register(f"nn.avg_pool{_n}d", 1, topi_rel(f"nn.avg_pool{_n}d"),
             OpPattern.OUT_ELEMWISE_FUSABLE,
             {**_pool_defaults(_n, _layout), "count_include_pad": False})


def _pool_n(name: str, n: int, data, pool_size, strides, dilation, padding, layout, ceil_mode,
            **extra) -> Expr:
    return make_call(name, [data], pool_size=_ntuple(name, pool_size, n, "pool_size"),
                     strides=_ntuple(name, strides, n, "strides"),
                     dilation=_ntuple(name, dilation, n, "dilation"),
                     padding=_padn(name, padding, n), layout=layout,
                     ceil_mode=bool(ceil_mode), **extra)


def max_pool1d(data: Expr, pool_size=(1,), strides=(1,), dilation=(1,), padding=(0,),
               layout: str = "NCW", out_layout: str = "", ceil_mode: bool = False) -> Expr:
    """1-D max pooling; ``padding`` is 1 or 2 ints (left, right)."""
    return _pool_n("nn.max_pool1d", 1, data, pool_size, strides, dilation, padding, layout,
                   ceil_mode)


def avg_pool1d(data: Expr, pool_size=(1,), strides=(1,), dilation=(1,), padding=(0,),
               layout: str = "NCW", out_layout: str = "", ceil_mode: bool = False,
               count_include_pad: bool = False) -> Expr:
    """1-D average pooling; ``padding`` is 1 or 2 ints (left, right)."""
    return _pool_n("nn.avg_pool1d", 1, data, pool_size, strides, dilation, padding, layout,
                   ceil_mode, count_include_pad=bool(count_include_pad))


def max_pool3d(data: Expr, pool_size=(1, 1, 1), strides=(1, 1, 1), dilation=(1, 1, 1),
               padding=(0, 0, 0), layout: str = "NCDHW", out_layout: str = "",
               ceil_mode: bool = False) -> Expr:
    """3-D max pooling; ``padding`` is 1, 3 or 6 ints."""
    return _pool_n("nn.max_pool3d", 3, data, pool_size, strides, dilation, padding, layout,
                   ceil_mode)


def avg_pool3d(data: Expr, pool_size=(1, 1, 1), strides=(1, 1, 1), dilation=(1, 1, 1),
               padding=(0, 0, 0), layout: str = "NCDHW", out_layout: str = "",
               ceil_mode: bool = False, count_include_pad: bool = False) -> Expr:
    """3-D average pooling; ``padding`` is 1, 3 or 6 ints."""
    return _pool_n("nn.avg_pool3d", 3, data, pool_size, strides, dilation, padding, layout,
                   ceil_mode, count_include_pad=bool(count_include_pad))


# ------------------------------------------------------------ adaptive and global pooling
def _adaptive_rel(name: str, spatial: str):
    """Classic ``AdaptivePool{1,2,3}DRel``: the ``spatial`` axes of the layout ("W", "HW",
    "DHW") become ``output_size`` (one value for all of them; kept when None); the shape
    may be symbolic."""
    def rel(types, attrs):
        data = tensor_arg(name, types, 0, "data")
        layout = attrs.layout
        tokens = re.findall(r"\d*[A-Za-z]", layout) if isinstance(layout, str) else []
        if "".join(tokens) != layout or any(c not in tokens for c in "NC" + spatial) or \
                any(c.lower() in tokens for c in spatial):
            raise RelayTypeError(f"{name}: layout {layout!r} must name N, C and "
                                 f"{', '.join(spatial)} (those unsplit)")
        if len(tokens) != len(data.shape):
            raise RelayTypeError(f"{name}: layout {layout!r} has {len(tokens)} axes but the "
                                 f"data is {len(data.shape)}-D")
        size = list(attrs.output_size or ())
        if len(size) == 1:
            size = size * len(spatial)
        if size and len(size) != len(spatial):
            raise RelayTypeError(f"{name}: output_size must have 1 or {len(spatial)} values, "
                                 f"got {tuple(size)}")
        shape = list(data.shape)
        for axis, n in zip(spatial, size):
            if n is not None:
                shape[tokens.index(axis)] = int(n)
        return TensorType(tuple(shape), data.dtype)
    return rel


for _name, _layout, _spatial in (
        ("nn.adaptive_avg_pool1d", "NCW", "W"), ("nn.adaptive_max_pool1d", "NCW", "W"),
        ("nn.adaptive_avg_pool2d", "NCHW", "HW"), ("nn.adaptive_max_pool2d", "NCHW", "HW"),
        ("nn.adaptive_avg_pool3d", "NCDHW", "DHW"),
        ("nn.adaptive_max_pool3d", "NCDHW", "DHW")):
    register(_name, 1, _adaptive_rel(_name, _spatial), OpPattern.OUT_ELEMWISE_FUSABLE,
             {"output_size": None, "layout": _layout, "out_layout": ""})
register("nn.global_max_pool2d", 1, topi_rel("nn.global_max_pool2d"),
         OpPattern.OUT_ELEMWISE_FUSABLE, {"layout": "NCHW", "out_layout": ""})


def _adaptive(name: str, data, output_size, layout) -> Expr:
    if output_size is not None:
        output_size = (int(output_size),) if isinstance(output_size, int) else tuple(
            int(x) for x in output_size)
    return make_call(name, [data], output_size=output_size, layout=layout)


def adaptive_avg_pool1d(data: Expr, output_size=None, layout: str = "NCW",
                        out_layout: str = "") -> Expr:
    """Adaptive average pooling over W to ``output_size`` (W itself when None)."""
    return _adaptive("nn.adaptive_avg_pool1d", data, output_size, layout)


def adaptive_max_pool1d(data: Expr, output_size=None, layout: str = "NCW",
                        out_layout: str = "") -> Expr:
    """Adaptive max pooling over W to ``output_size`` (W itself when None)."""
    return _adaptive("nn.adaptive_max_pool1d", data, output_size, layout)


def adaptive_avg_pool2d(data: Expr, output_size=None, layout: str = "NCHW",
                        out_layout: str = "") -> Expr:
    """Adaptive average pooling over H and W to ``output_size`` (one int for both; H, W
    themselves when None)."""
    return _adaptive("nn.adaptive_avg_pool2d", data, output_size, layout)


def adaptive_max_pool2d(data: Expr, output_size=None, layout: str = "NCHW",
                        out_layout: str = "") -> Expr:
    """Adaptive max pooling over H and W to ``output_size``."""
    return _adaptive("nn.adaptive_max_pool2d", data, output_size, layout)


def adaptive_avg_pool3d(data: Expr, output_size=None, layout: str = "NCDHW",
                        out_layout: str = "") -> Expr:
    """Adaptive average pooling over D, H and W to ``output_size`` (one int for all three;
    D, H, W themselves when None)."""
    return _adaptive("nn.adaptive_avg_pool3d", data, output_size, layout)


def adaptive_max_pool3d(data: Expr, output_size=None, layout: str = "NCDHW",
                        out_layout: str = "") -> Expr:
    """Adaptive max pooling over D, H and W to ``output_size``."""
    return _adaptive("nn.adaptive_max_pool3d", data, output_size, layout)


def global_max_pool1d(data: Expr, layout: str = "NCW", out_layout: str = "") -> Expr:
    """Maximum over W (classic: ``adaptive_max_pool1d`` to size 1)."""
    return _adaptive("nn.adaptive_max_pool1d", data, (1,), layout)


def global_avg_pool1d(data: Expr, layout: str = "NCW", out_layout: str = "") -> Expr:
    """Mean over W (classic: ``adaptive_avg_pool1d`` to size 1)."""
    return _adaptive("nn.adaptive_avg_pool1d", data, (1,), layout)


def global_max_pool3d(data: Expr, layout: str = "NCDHW", out_layout: str = "") -> Expr:
    """Maximum over D, H and W (classic: ``adaptive_max_pool3d`` to size 1)."""
    return _adaptive("nn.adaptive_max_pool3d", data, (1, 1, 1), layout)


def global_avg_pool3d(data: Expr, layout: str = "NCDHW", out_layout: str = "") -> Expr:
    """Mean over D, H and W (classic: ``adaptive_avg_pool3d`` to size 1)."""
    return _adaptive("nn.adaptive_avg_pool3d", data, (1, 1, 1), layout)


def global_max_pool2d(data: Expr, layout: str = "NCHW", out_layout: str = "") -> Expr:
    """Maximum over H and W: ``(N, C, H, W) -> (N, C, 1, 1)``."""
    return make_call("nn.global_max_pool2d", [data], layout=layout)


# ----------------------------------------------------------------------- normalisation
_NORM_DEFAULTS = {"axis": 1, "epsilon": 1e-5, "center": True, "scale": True}
register("nn.instance_norm", 3, topi_rel("nn.instance_norm"), OpPattern.OPAQUE,
         _NORM_DEFAULTS)
register("nn.group_norm", 3, topi_rel("nn.group_norm"), OpPattern.OPAQUE,
         {**_NORM_DEFAULTS, "num_groups": 1})
def _lrn_rel(types, attrs):
    # classic's relation checks the axis only; an even size fails in the TOPI compute
    t = tensor_arg("nn.lrn", types, 0, "data")
    norm_axis("nn.lrn", attrs.axis, len(t.shape))
    return t


register("nn.lrn", 1, _lrn_rel, OpPattern.OPAQUE,
         {"size": 5, "axis": 1, "bias": 2.0, "alpha": 1e-5, "beta": 0.75})
register("nn.l2_normalize", 1, topi_rel("nn.l2_normalize"), OpPattern.OPAQUE,
         {"eps": 1e-12, "axis": None})


def instance_norm(data: Expr, gamma: Expr, beta: Expr, axis: int = 1, epsilon: float = 1e-5,
                  center: bool = True, scale: bool = True) -> Expr:
    """Normalise each instance and channel (``axis``) over the remaining axes, then scale by
    ``gamma`` and shift by ``beta`` (both of the channels' length)."""
    return make_call("nn.instance_norm", [data, gamma, beta], axis=int(axis),
                     epsilon=float(epsilon), center=bool(center), scale=bool(scale))


def group_norm(data: Expr, gamma: Expr, beta: Expr, num_groups: int, axis: int = 1,
               epsilon: float = 1e-5, center: bool = True, scale: bool = True) -> Expr:
    """Normalise each instance's ``num_groups`` groups of channels (``axis``) over the
    group's channels and the remaining axes, then scale and shift per channel."""
    return make_call("nn.group_norm", [data, gamma, beta], num_groups=int(num_groups),
                     axis=int(axis), epsilon=float(epsilon), center=bool(center),
                     scale=bool(scale))


def l2_normalize(data: Expr, eps: float, axis=None) -> Expr:
    """``x / sqrt(max(sum(x^2 over axis), eps))`` (all axes when ``axis`` is None)."""
    axis = None if axis is None else tuple(int(a) for a in axis)
    return make_call("nn.l2_normalize", [data], eps=float(eps), axis=axis)


def lrn(data: Expr, size: int = 5, axis: int = 1, bias: float = 2, alpha: float = 0.00001,
        beta: float = 0.75) -> Expr:
    """Local response normalisation across ``axis``:
    ``x / (bias + alpha * sum(x^2 over size neighbours) / size) ** beta``."""
    return make_call("nn.lrn", [data], size=int(size), axis=int(axis), bias=float(bias),
                     alpha=float(alpha), beta=float(beta))


# ------------------------------------------------------------- layout-moving, padding, misc
register("nn.depth_to_space", 1, topi_rel("nn.depth_to_space"), OpPattern.INJECTIVE,
         {"block_size": 1, "layout": "NCHW", "mode": "DCR"})
register("nn.space_to_depth", 1, topi_rel("nn.space_to_depth"), OpPattern.INJECTIVE,
         {"block_size": 1, "layout": "NCHW"})
register("nn.mirror_pad", 1, topi_rel("nn.mirror_pad"), OpPattern.INJECTIVE,
         {"pad_width": (), "mode": "SYMMETRIC"})
register("nn.upsampling", 1, topi_rel("nn.upsampling"), OpPattern.INJECTIVE,
         {"scale_h": 1.0, "scale_w": 1.0, "layout": "NCHW", "method": "nearest_neighbor",
          "align_corners": False})
register("nn.upsampling3d", 1, topi_rel("nn.upsampling3d"), OpPattern.INJECTIVE,
         {"scale_d": 1.0, "scale_h": 1.0, "scale_w": 1.0, "layout": "NCDHW",
          "method": "nearest_neighbor", "coordinate_transformation_mode": "half_pixel"})
register("nn.prelu", 2, topi_rel("nn.prelu"), OpPattern.BROADCAST, {"axis": 1})
register_arg_types("nn.prelu", _channel_vectors("nn.prelu", 1))
register("nn.dropout", 1, topi_rel("nn.dropout"), OpPattern.INJECTIVE, {"rate": 0.5})


def depth_to_space(data: Expr, block_size: int, layout: str = "NCHW",
                   mode: str = "DCR") -> Expr:
    """``(N, C, H, W) -> (N, C / b^2, H * b, W * b)``; ``mode`` "DCR" or "CRD"."""
    return make_call("nn.depth_to_space", [data], block_size=int(block_size), layout=layout,
                     mode=mode)


def space_to_depth(data: Expr, block_size: int, layout: str = "NCHW") -> Expr:
    """``(N, C, H, W) -> (N, C * b^2, H / b, W / b)``."""
    return make_call("nn.space_to_depth", [data], block_size=int(block_size), layout=layout)


def mirror_pad(data: Expr, pad_width, mode: str = "SYMMETRIC") -> Expr:
    """Pad each dimension by ``pad_width[d] = (before, after)`` with ``data``'s mirror image
    ("SYMMETRIC" repeats the edge, "REFLECT" does not)."""
    width = tuple((int(a), int(b)) for a, b in pad_width)
    return make_call("nn.mirror_pad", [data], pad_width=width, mode=mode)


def _scale(s):
    """A scale for a dyn upsampling: an expression, or a number as a float32 constant."""
    from ..expr import const
    return s if isinstance(s, Expr) else const(float(s), "float32")


def upsampling(data: Expr, scale_h: float = 1, scale_w: float = 1, layout: str = "NCHW",
               method: str = "nearest_neighbor", align_corners: bool = False) -> Expr:
    """Scale H and W by ``scale_h`` / ``scale_w`` ("nearest_neighbor" or "bilinear")."""
    if any(isinstance(s, Expr) for s in (scale_h, scale_w)):  # scales computed at run time
        from .dyn import dyn_call
        return dyn_call("nn.upsampling", [data], [_scale(scale_h), _scale(scale_w)],
                        layout=layout, method=method, align_corners=bool(align_corners))
    return make_call("nn.upsampling", [data], scale_h=float(scale_h), scale_w=float(scale_w),
                     layout=layout, method=method, align_corners=bool(align_corners))


def upsampling3d(data: Expr, scale_d: float = 1, scale_h: float = 1, scale_w: float = 1,
                 layout: str = "NCDHW", method: str = "nearest_neighbor",
                 coordinate_transformation_mode: str = "half_pixel") -> Expr:
    """Scale D, H and W by ``scale_d``, ``scale_h``, ``scale_w`` ("nearest_neighbor" or
    "trilinear"; coordinates mapped by ``coordinate_transformation_mode``)."""
    if any(isinstance(s, Expr) for s in (scale_d, scale_h, scale_w)):
        from .dyn import dyn_call  # scales computed at run time
        return dyn_call("nn.upsampling3d", [data], [_scale(s) for s in
                                                    (scale_d, scale_h, scale_w)],
                        layout=layout, method=method,
                        coordinate_transformation_mode=coordinate_transformation_mode)
    return make_call("nn.upsampling3d", [data], scale_d=float(scale_d),
                     scale_h=float(scale_h), scale_w=float(scale_w), layout=layout,
                     method=method,
                     coordinate_transformation_mode=coordinate_transformation_mode)


def prelu(data: Expr, alpha: Expr, axis: int = 1) -> Expr:
    """``data if data > 0 else alpha[c] * data`` with ``c`` the index along ``axis``."""
    return make_call("nn.prelu", [data, alpha], axis=int(axis))


def dropout_raw(data: Expr, rate: float = 0.5) -> TupleWrapper:
    """Dropout as classic relay's raw op: a 2-tuple (output, mask); at inference the output
    is ``data`` (``SimplifyInference`` removes the op)."""
    return TupleWrapper(make_call("nn.dropout", [data], rate=float(rate)), 2)


def dropout(data: Expr, rate: float = 0.5) -> Expr:
    """Dropout: ``data`` itself at inference (the first field of :func:`dropout_raw`)."""
    return dropout_raw(data, rate)[0]


# ---------------------------------------------------------------------------------- matmul
def _matmul_rel(types, attrs):
    """Classic ``MatmulRel``: ``tensor_a`` ``(..., M, K)`` (``(..., K, M)`` transposed), a 2-D
    ``tensor_b``; a symbolic reduced dimension matches a known one."""
    name = "nn.matmul"
    a, b = tensor_arg(name, types, 0, "tensor_a"), ndim_arg(name, types, 1, 2, "tensor_b")
    if not attrs.out_dtype:
        same_dtype(name, a, b, "tensor_a and tensor_b")
    if len(a.shape) < 2:
        raise RelayTypeError(f"{name}: tensor_a must have at least 2 dimensions, got "
                             f"{a.shape}")
    ta, tb = bool(attrs.transpose_a), bool(attrs.transpose_b)
    k_a = a.shape[-2] if ta else a.shape[-1]
    k_b, n = (b.shape[1], b.shape[0]) if tb else (b.shape[0], b.shape[1])
    if isinstance(k_a, int) and isinstance(k_b, int) and k_a != k_b:
        raise RelayTypeError(f"{name}: the reduced dimensions differ: tensor_a {a.shape} has "
                             f"{k_a}, tensor_b {b.shape} has {k_b}")
    if attrs.units is not None and isinstance(n, int) and int(attrs.units) != n:
        raise RelayTypeError(f"{name}: units={attrs.units} differs from tensor_b's {n}")
    m = a.shape[-1] if ta else a.shape[-2]
    return TensorType(tuple(a.shape[:-2]) + (m, n), attrs.out_dtype or a.dtype)


register("nn.matmul", 2, _matmul_rel, OpPattern.OUT_ELEMWISE_FUSABLE,
         {"units": None, "out_dtype": "", "transpose_a": False, "transpose_b": False})


def _matmul_arg_types(types, attrs):
    """An unknown ``tensor_b`` from ``tensor_a`` and ``units``: ``(K, units)``, or
    ``(units, K)`` when ``transpose_b``."""
    a, b = types
    if b is not None or a is None or attrs.units is None:
        return types
    t = tensor_arg("nn.matmul", types, 0, "tensor_a")
    if len(t.shape) < 2:
        raise RelayTypeError(f"nn.matmul: tensor_a must have at least 2 dimensions, got "
                             f"{t.shape}")
    k = t.shape[-2] if attrs.transpose_a else t.shape[-1]
    shape = (int(attrs.units), k) if attrs.transpose_b else (k, int(attrs.units))
    return [a, TensorType(shape, t.dtype)]


register_arg_types("nn.matmul", _matmul_arg_types)


def matmul(tensor_a: Expr, tensor_b: Expr, units=None, out_dtype: str = "",
           transpose_a: bool = False, transpose_b: bool = False) -> Expr:
    """``tensor_a @ tensor_b``, either transposed first: ``tensor_a`` ``(..., M, K)``
    (``(..., K, M)`` if ``transpose_a``), 2-D ``tensor_b`` ``(K, N)`` (``(N, K)`` if
    ``transpose_b``) -> ``(..., M, N)``."""
    return make_call("nn.matmul", [tensor_a, tensor_b], units=units, out_dtype=out_dtype,
                     transpose_a=bool(transpose_a), transpose_b=bool(transpose_b))


__all__ += ["conv1d", "conv3d", "max_pool1d", "avg_pool1d", "max_pool3d", "avg_pool3d",
            "adaptive_avg_pool1d", "adaptive_max_pool1d", "adaptive_avg_pool2d",
            "adaptive_max_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool3d",
            "global_max_pool2d", "global_max_pool1d", "global_avg_pool1d",
            "global_max_pool3d", "global_avg_pool3d", "instance_norm", "group_norm", "lrn",
            "l2_normalize", "depth_to_space", "space_to_depth", "mirror_pad", "upsampling",
            "upsampling3d", "prelu",
            "dropout", "dropout_raw", "matmul"]


# --------------------------------------------- space/batch reshuffles, loss, correlation
register("nn.space_to_batch_nd", 1, topi_rel("nn.space_to_batch_nd"), OpPattern.INJECTIVE,
         {"block_shape": (), "paddings": (), "pad_value": 0.0})
register("nn.batch_to_space_nd", 1, topi_rel("nn.batch_to_space_nd"), OpPattern.INJECTIVE,
         {"block_shape": (), "crops": ()})
register("nn.nll_loss", 3, topi_rel("nn.nll_loss"), OpPattern.OUT_ELEMWISE_FUSABLE,
         {"reduction": "mean", "ignore_index": -100})
register("nn.correlation", 2, topi_rel("nn.correlation"), OpPattern.OUT_ELEMWISE_FUSABLE,
         {"kernel_size": 1, "max_displacement": 1, "stride1": 1, "stride2": 1,
          "padding": (0, 0, 0, 0), "is_multiply": True, "layout": "NCHW"})


def _pairs(op: str, v, what: str) -> tuple:
    pairs = tuple((int(a), int(b)) for a, b in v)
    if any(a < 0 or b < 0 for a, b in pairs):
        raise RelayTypeError(f"{op}: {what} must be non-negative, got {pairs}")
    return pairs


def space_to_batch_nd(data: Expr, block_shape, paddings, pad_value: float = 0) -> Expr:
    """Pad the spatial dimensions (1 .. M) of ``data`` by ``paddings`` ``[[before, after],
    ...]`` and move ``block_shape`` blocks of them into the batch."""
    op = "nn.space_to_batch_nd"
    return make_call(op, [data], block_shape=tuple(int(b) for b in block_shape),
                     paddings=_pairs(op, paddings, "paddings"), pad_value=float(pad_value))


def batch_to_space_nd(data: Expr, block_shape, crops) -> Expr:
    """The inverse of :func:`space_to_batch_nd`: move blocks of the batch into the spatial
    dimensions, then crop them by ``crops`` ``[[begin, end], ...]``."""
    op = "nn.batch_to_space_nd"
    return make_call(op, [data], block_shape=tuple(int(b) for b in block_shape),
                     crops=_pairs(op, crops, "crops"))


def nll_loss(predictions: Expr, targets: Expr, weights: Expr, reduction: str = "mean",
             ignore_index: int = -100) -> Expr:
    """Negative log likelihood: ``-predictions[n, t, ...] * weights[t]`` with ``t =
    targets[n, ...]`` (0 where ``t == ignore_index``), reduced by ``reduction`` ("mean":
    divided by the sum of the weights used, "sum" or "none")."""
    if reduction not in ("mean", "sum", "none"):
        raise RelayTypeError(f"nn.nll_loss: reduction must be 'mean', 'sum' or 'none', got "
                             f"{reduction!r}")
    return make_call("nn.nll_loss", [predictions, targets, weights], reduction=reduction,
                     ignore_index=int(ignore_index))


def correlation(data1: Expr, data2: Expr, kernel_size: int, max_displacement: int,
                stride1: int, stride2: int, padding, is_multiply: bool, layout: str) -> Expr:
    """FlowNet correlation of two "NCHW" feature maps: for each position and displacement
    (multiples of ``stride2`` up to ``max_displacement``) the channel and ``kernel_size``
    window mean of ``a * b`` (``is_multiply``) or ``|a - b|``."""
    op = "nn.correlation"
    if layout != "NCHW":
        raise RelayTypeError(f"{op}: only layout 'NCHW' is supported, got {layout!r}")
    return make_call(op, [data1, data2], kernel_size=int(kernel_size),
                     max_displacement=int(max_displacement), stride1=int(stride1),
                     stride2=int(stride2), padding=pad4(op, padding),
                     is_multiply=bool(is_multiply), layout=layout)


__all__ += ["space_to_batch_nd", "batch_to_space_nd", "nll_loss", "correlation"]


# ------------------------------------------------------------------- deformable_conv2d
def deformable_layouts(attrs) -> Tuple[str, str]:
    """The checked (data, kernel) layouts of an ``nn.deformable_conv2d``'s attributes."""
    op = "nn.deformable_conv2d"
    dl, kl = attrs.data_layout, attrs.kernel_layout
    if dl not in ("NCHW", "NHWC"):
        raise RelayTypeError(f"{op}: data_layout must be 'NCHW' or 'NHWC', got {dl!r}")
    if len(kl) != 4 or sorted(kl) != sorted("OIHW"):
        raise RelayTypeError(f"{op}: kernel_layout {kl!r} must order O, I, H and W")
    if attrs.out_layout not in ("", dl):
        raise RelayTypeError(f"{op}: out_layout {attrs.out_layout!r} differs from data_layout "
                             f"{dl!r} (not supported)")
    return dl, kl


def _deformable_arg_types(types, attrs):
    """An unknown offset from the data and the output size, an unknown weight from
    ``channels`` and ``kernel_size``."""
    op = "nn.deformable_conv2d"
    data, offset, weight = types
    if data is None or attrs.kernel_size is None:
        return types
    dl, kl = deformable_layouts(attrs)
    t = tensor_arg(op, types, 0, "data")
    n, c, h, w = (t.shape[dl.index(x)] for x in "NCHW")
    kh, kw = attrs.kernel_size
    if weight is None and attrs.channels is not None:
        dims = dict(zip("OIHW", (int(attrs.channels), c // int(attrs.groups), kh, kw)))
        weight = TensorType(tuple(dims[x] for x in kl), t.dtype)
    if offset is None:
        top, left, bottom, right = attrs.padding
        (sh, sw), (dh, dw) = attrs.strides, attrs.dilation
        oh = _out_size(op, h, kh, dh, top, bottom, sh, "height")
        ow = _out_size(op, w, kw, dw, left, right, sw, "width")
        oc = 2 * kh * kw * int(attrs.deformable_groups)
        offset = TensorType((n, oc, oh, ow) if dl == "NCHW" else (n, oh, ow, oc), t.dtype)
    return [data, offset, weight]


register("nn.deformable_conv2d", 3, topi_rel("nn.deformable_conv2d"),
         OpPattern.OUT_ELEMWISE_FUSABLE,
         {"strides": (1, 1), "padding": (0, 0, 0, 0), "dilation": (1, 1),
          "deformable_groups": 1, "groups": 1, "channels": None, "kernel_size": None,
          "data_layout": "NCHW", "kernel_layout": "OIHW", "out_layout": "", "out_dtype": ""})
register_arg_types("nn.deformable_conv2d", _deformable_arg_types)


def deformable_conv2d(data: Expr, offset: Expr, weight: Expr, strides=(1, 1), padding=(0, 0),
                      dilation=(1, 1), deformable_groups: int = 1, groups: int = 1,
                      channels=None, kernel_size=None, data_layout: str = "NCHW",
                      kernel_layout: str = "OIHW", out_layout: str = "",
                      out_dtype: str = "") -> Expr:
    """Deformable 2-D convolution: each kernel tap samples ``data`` bilinearly at its
    position shifted by ``offset`` (per deformable group and tap, (y, x); ``(N, dg * KH * KW
    * 2, OH, OW)`` for "NCHW" data, channels last for "NHWC"). See
    ``topi.nn.deformable_conv2d_nchw``."""
    op = "nn.deformable_conv2d"
    return make_call(op, [data, offset, weight], strides=_pair(op, strides, "strides"),
                     padding=pad4(op, padding), dilation=_pair(op, dilation, "dilation"),
                     deformable_groups=int(deformable_groups), groups=int(groups),
                     channels=None if channels is None else int(channels),
                     kernel_size=None if kernel_size is None else _pair(
                         op, kernel_size, "kernel_size"),
                     data_layout=data_layout, kernel_layout=kernel_layout,
                     out_layout=out_layout or "", out_dtype=out_dtype or "")


__all__ += ["deformable_conv2d"]


# ------------------------------------------------------------------------------ cross entropy
def _cross_entropy_rel(name: str):
    def rel(types, attrs):
        p = tensor_arg(name, types, 0, "predictions")
        t = tensor_arg(name, types, 1, "targets")
        same_dtype(name, p, t, "predictions and targets")
        if tuple(p.shape) != tuple(t.shape) or not p.shape:
            raise RelayTypeError(f"{name}: predictions {tuple(p.shape)} and targets "
                                 f"{tuple(t.shape)} must have the same (batched) shape")
        return TensorType((), p.dtype)
    return rel


register("nn.cross_entropy", 2, _cross_entropy_rel("nn.cross_entropy"), OpPattern.OPAQUE)
register("nn.cross_entropy_with_logits", 2,
         _cross_entropy_rel("nn.cross_entropy_with_logits"), OpPattern.OPAQUE)


def cross_entropy(predictions: Expr, targets: Expr) -> Expr:
    """``-sum(log(predictions) * targets) / batch`` (a scalar)."""
    return make_call("nn.cross_entropy", [predictions, targets])


def cross_entropy_with_logits(predictions: Expr, targets: Expr) -> Expr:
    """``-sum(predictions * targets) / batch`` of log-probabilities (a scalar)."""
    return make_call("nn.cross_entropy_with_logits", [predictions, targets])


__all__ += ["cross_entropy", "cross_entropy_with_logits"]


# ---------------------------------------------------------------------------------- bitserial
def _pack_bits(op: str, pack_type: str) -> int:
    from ...topi.nn.bitserial import _WORD_BITS  # TOPI's table: one place for the words
    if pack_type not in _WORD_BITS:
        raise RelayTypeError(f"{op}: pack type must be one of {sorted(_WORD_BITS)}, got "
                             f"{pack_type!r}")
    return _WORD_BITS[pack_type]


def _bitpack_rel(types, attrs):
    """Classic ``BitPackRel``: ``pack_axis`` divided by the word size, ``bits`` planes
    inserted at ``bit_axis``."""
    op = "nn.bitpack"
    data = tensor_arg(op, types, 0, "data")
    width = _pack_bits(op, attrs.pack_type)
    shape, ndim = list(data.shape), len(data.shape)
    pack_axis, bit_axis = int(attrs.pack_axis), int(attrs.bit_axis)
    if not 0 <= pack_axis < ndim or not 0 <= bit_axis <= ndim:
        raise RelayTypeError(f"{op}: pack_axis {pack_axis} / bit_axis {bit_axis} out of range "
                             f"for {ndim}-D data")
    if isinstance(shape[pack_axis], int) and shape[pack_axis] % width:
        raise RelayTypeError(f"{op}: axis {pack_axis} of size {shape[pack_axis]} is not a "
                             f"multiple of the {width} bits of {attrs.pack_type}")
    shape[pack_axis] = shape[pack_axis] // width
    shape.insert(bit_axis, int(attrs.bits))
    return TensorType(tuple(shape), attrs.pack_type)


register("nn.bitpack", 1, _bitpack_rel, OpPattern.INJECTIVE,
         {"bits": 1, "pack_axis": 1, "bit_axis": 2, "pack_type": "uint32", "name": "BitPack"})


def bitpack(data: Expr, bits: int = 1, pack_axis: int = 1, bit_axis: int = 2,
            pack_type: str = "uint32", name: str = "BitPack") -> Expr:
    """The low ``bits`` bit planes of ``data`` packed into ``pack_type`` words along
    ``pack_axis`` (which shrinks by the word size), the planes on a new axis ``bit_axis``."""
    return make_call("nn.bitpack", [data], bits=int(bits), pack_axis=int(pack_axis),
                     bit_axis=int(bit_axis), pack_type=str(pack_type), name=str(name))


def _bitserial_conv2d_rel(types, attrs):
    """Classic ``BinaryConv2DRel``: ``(N, channels, OH, OW)`` in the data layout (NCHW or
    NHWC), of ``out_dtype``."""
    op = "nn.bitserial_conv2d"
    data = tensor_arg(op, types, 0, "data")
    dl = attrs.data_layout
    if dl not in ("NCHW", "NHWC"):
        raise RelayTypeError(f"{op}: data_layout must be 'NCHW' or 'NHWC', got {dl!r}")
    if len(data.shape) != 4:
        raise RelayTypeError(f"{op}: data must be 4-D ({dl}), got shape {data.shape}")
    if attrs.channels is None or attrs.kernel_size is None:
        raise RelayTypeError(f"{op}: channels and kernel_size must be given")
    kh, kw = _pair(op, attrs.kernel_size, "kernel_size")
    sh, sw = _pair(op, attrs.strides, "strides")
    top, left, bottom, right = pad4(op, attrs.padding)
    n, h, w = (data.shape[dl.index(x)] for x in "NHW")
    full = {"N": n, "C": int(attrs.channels),
            "H": _out_size(op, h, kh, 1, top, bottom, sh, "height"),
            "W": _out_size(op, w, kw, 1, left, right, sw, "width")}
    return TensorType(tuple(full[x] for x in dl), attrs.out_dtype)


register("nn.bitserial_conv2d", 2, _bitserial_conv2d_rel, OpPattern.OUT_ELEMWISE_FUSABLE,
         {"strides": (1, 1), "padding": (0, 0), "channels": None, "kernel_size": (3, 3),
          "activation_bits": 1, "weight_bits": 1, "data_layout": "NCHW",
          "kernel_layout": "OIHW", "pack_dtype": "uint32", "out_dtype": "int16",
          "unipolar": True})


def bitserial_conv2d(data: Expr, weight: Expr, strides=(1, 1), padding=(0, 0), channels=None,
                     kernel_size=(3, 3), activation_bits: int = 1, weight_bits: int = 1,
                     data_layout: str = "NCHW", kernel_layout: str = "OIHW",
                     pack_dtype: str = "uint32", out_dtype: str = "int16",
                     unipolar: bool = True) -> Expr:
    """2-D convolution of the low ``activation_bits`` / ``weight_bits`` bits of data and
    weight, computed bit-serially (``unipolar``: weight bits are +1 / -1); data NCHW with an
    OIHW weight or NHWC with HWIO, channels a multiple of ``pack_dtype``'s bits."""
    op = "nn.bitserial_conv2d"
    return make_call(op, [data, weight], strides=_pair(op, strides, "strides"),
                     padding=tuple(int(p) for p in (
                         padding if isinstance(padding, (tuple, list)) else (padding,))),
                     channels=None if channels is None else int(channels),
                     kernel_size=_pair(op, kernel_size, "kernel_size"),
                     activation_bits=int(activation_bits), weight_bits=int(weight_bits),
                     data_layout=data_layout, kernel_layout=kernel_layout,
                     pack_dtype=str(pack_dtype), out_dtype=str(out_dtype),
                     unipolar=bool(unipolar))


def _bitserial_dense_rel(types, attrs):
    """Classic ``BinaryDenseRel``: the data's last axis becomes ``units``."""
    op = "nn.bitserial_dense"
    data = tensor_arg(op, types, 0, "data")
    if not data.shape:
        raise RelayTypeError(f"{op}: data must have at least one dimension")
    if attrs.units is None:
        raise RelayTypeError(f"{op}: units must be given")
    return TensorType(tuple(data.shape[:-1]) + (int(attrs.units),),
                      attrs.out_dtype or data.dtype)


register("nn.bitserial_dense", 2, _bitserial_dense_rel, OpPattern.OUT_ELEMWISE_FUSABLE,
         {"units": None, "data_bits": 1, "weight_bits": 1, "pack_dtype": "uint32",
          "out_dtype": "int16", "unipolar": True})


def bitserial_dense(data: Expr, weight: Expr, units=None, data_bits: int = 1,
                    weight_bits: int = 1, pack_dtype: str = "uint32",
                    out_dtype: str = "int16", unipolar: bool = True) -> Expr:
    """``data @ weight.T`` of the low ``data_bits`` / ``weight_bits`` bits, computed
    bit-serially (``unipolar``: weight bits are +1 / -1); weight ``(units, in_dim)``."""
    return make_call("nn.bitserial_dense", [data, weight],
                     units=None if units is None else int(units), data_bits=int(data_bits),
                     weight_bits=int(weight_bits), pack_dtype=str(pack_dtype),
                     out_dtype=str(out_dtype), unipolar=bool(unipolar))


__all__ += ["bitpack", "bitserial_conv2d", "bitserial_dense"]


from ..._classic import fallback as _fallback  # noqa: E402

__getattr__ = _fallback(__name__)


def contrib_conv2d_nchwc(data: Expr, kernel: Expr, strides=(1, 1), padding=(0, 0),
                         dilation=(1, 1), groups: int = 1, channels=None, kernel_size=None,
                         data_layout: str = "NCHW8c", kernel_layout: str = "OIHW",
                         out_layout: str = "", out_dtype: str = "") -> Expr:
    """Classic ``relay.nn.contrib_conv2d_nchwc``: a convolution of packed data
    (``NCHW{c}c``) and kernel (``OIHW{i}i{o}o``); ``out_layout`` "" is the data's layout.
    Only ``groups`` 1 (tvmlite's packed convolution)."""
    from ..._classic import unsupported
    from .layout import contrib_conv2d_nchwc as packed
    if int(groups) != 1:
        raise unsupported("relay.nn.contrib_conv2d_nchwc with groups != 1")
    return packed(data, kernel, strides, pad4("nn.contrib_conv2d_nchwc", padding), dilation,
                  channels, kernel_size, data_layout, kernel_layout, out_layout or data_layout,
                  out_dtype)


__all__ += ["contrib_conv2d_nchwc"]


# ------------------------------------------------------------------------------------ winograd
def _winograd_weight_transform_rel(types, attrs):
    """``(O, I, K, K)`` -> ``(alpha, alpha, O, I)``, ``alpha = tile_size + K - 1``."""
    op = "nn.contrib_conv2d_winograd_weight_transform"
    w = ndim_arg(op, types, 0, 4, "weight", "OIHW")
    o, i, kh, kw = w.shape
    if kh != kw:
        raise RelayTypeError(f"{op}: the kernel must be square, got {kh}x{kw}")
    m = int(attrs.tile_size)
    if m < 2:
        raise RelayTypeError(f"{op}: tile_size must be at least 2, got {m}")
    alpha = m + kh - 1
    return TensorType((alpha, alpha, o, i), w.dtype)


register("nn.contrib_conv2d_winograd_weight_transform", 1, _winograd_weight_transform_rel,
         OpPattern.OUT_ELEMWISE_FUSABLE, {"tile_size": 4})


def contrib_conv2d_winograd_weight_transform(weight: Expr, tile_size: int) -> Expr:
    """The Winograd transform ``G g G^T`` of an ``OIHW`` weight for ``F(tile_size, K)``:
    ``(alpha, alpha, O, I)`` (classic ``relay.nn.contrib_conv2d_winograd_weight_transform``;
    computed once at build time when the weight is constant)."""
    return make_call("nn.contrib_conv2d_winograd_weight_transform", [weight],
                     tile_size=int(tile_size))


def _winograd_conv_rel(types, attrs):
    """Data ``NCHW`` with a weight ``(alpha, alpha, O, I)``, or ``NCHW{c}c`` with a weight
    ``(alpha, alpha, O/o, I, o)``; output in ``out_layout`` (default: the data's layout,
    ``NCHW{o}c`` for packed data)."""
    op = "nn.contrib_conv2d_winograd_without_weight_transform"
    dl = attrs.get("data_layout") or "NCHW"
    data = tensor_arg(op, types, 0, "data")
    weight = tensor_arg(op, types, 1, "weight")
    d = _layout_sizes(op, "data", dl, data.shape, "NCHW", "c")
    if len(weight.shape) not in (4, 5):
        raise RelayTypeError(f"{op}: the weight must be (alpha, alpha, O, I) or (alpha, "
                             f"alpha, O/o, I, o), got shape {weight.shape}")
    alpha = weight.shape[0]
    o_blk = weight.shape[4] if len(weight.shape) == 5 else 1
    out_c, in_c = weight.shape[2] * o_blk, weight.shape[3]
    if weight.shape[1] != alpha or in_c != d["C"]:
        raise RelayTypeError(f"{op}: weight {weight.shape} does not transform a kernel of "
                             f"{d['C']} input channels")
    if int(attrs.groups) != 1:
        raise RelayTypeError(f"{op}: only groups 1 is supported, got {attrs.groups}")
    ks = _pair(op, attrs.kernel_size or (3, 3), "kernel_size")
    m = int(attrs.tile_size)
    if ks[0] != ks[1] or alpha != m + ks[0] - 1:
        raise RelayTypeError(f"{op}: weight alpha {alpha} is not tile_size {m} + kernel "
                             f"{ks[0]} - 1")
    if _pair(op, attrs.strides, "strides") != (1, 1) or \
            _pair(op, attrs.dilation, "dilation") != (1, 1):
        raise RelayTypeError(f"{op}: only strides 1 and dilation 1 are supported")
    if attrs.channels is not None and int(attrs.channels) != out_c:
        raise RelayTypeError(f"{op}: channels {attrs.channels} but the weight has {out_c}")
    top, left, bottom, right = pad4(op, attrs.padding)
    full = {"N": d["N"], "C": out_c,
            "H": _out_size(op, d["H"], ks[0], 1, top, bottom, 1, "height"),
            "W": _out_size(op, d["W"], ks[1], 1, left, right, 1, "width")}
    ol = attrs.get("out_layout") or dl
    return TensorType(_conv_out_shape(op, full, ol), attrs.out_dtype or data.dtype)


register("nn.contrib_conv2d_winograd_without_weight_transform", 2, _winograd_conv_rel,
         OpPattern.OUT_ELEMWISE_FUSABLE,
         {"tile_size": 4, "strides": (1, 1), "padding": (0, 0, 0, 0), "dilation": (1, 1),
          "groups": 1, "channels": None, "kernel_size": None, "data_layout": "NCHW",
          "kernel_layout": "OIHW", "out_layout": "", "out_dtype": ""})


def contrib_conv2d_winograd_without_weight_transform(
        data: Expr, weight: Expr, tile_size: int, strides=(1, 1), padding=(0, 0),
        dilation=(1, 1), groups: int = 1, channels=None, kernel_size=None,
        data_layout: str = "NCHW", kernel_layout: str = "OIHW", out_layout: str = "",
        out_dtype: str = "") -> Expr:
    """Winograd 2-D convolution over a weight transformed by
    :func:`contrib_conv2d_winograd_weight_transform` (classic
    ``relay.nn.contrib_conv2d_winograd_without_weight_transform``): data ``NCHW`` and weight
    ``(alpha, alpha, O, I)``, or (tvmlite's packed form, which AlterOpLayout makes) data
    ``NCHW{c}c`` and weight ``(alpha, alpha, O/o, I, o)``; stride 1, dilation 1, groups 1."""
    op = "nn.contrib_conv2d_winograd_without_weight_transform"
    return make_call(op, [data, weight], tile_size=int(tile_size),
                     strides=_pair(op, strides, "strides"), padding=pad4(op, padding),
                     dilation=_pair(op, dilation, "dilation"), groups=int(groups),
                     channels=None if channels is None else int(channels),
                     kernel_size=None if kernel_size is None else _pair(
                         op, kernel_size, "kernel_size"),
                     data_layout=data_layout, kernel_layout=kernel_layout,
                     out_layout=out_layout or "", out_dtype=out_dtype or "")


__all__ += ["contrib_conv2d_winograd_weight_transform",
            "contrib_conv2d_winograd_without_weight_transform"]
