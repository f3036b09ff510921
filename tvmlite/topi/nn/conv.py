"""Convolutions of any dimension and layout: the generic ``conv`` and the 1-D, 3-D and
grouped NHWC operators built on it (``conv1d_ncw``, ``conv3d_ndhwc``, ``group_conv2d_nhwc``
...). The result is tagged and named ``[group_]conv{dim}d_{layout}``, as classic TOPI does."""
from __future__ import annotations

from typing import Optional

from ...te.operation import compute, reduce_axis
from ...te.tensor import Tensor, _dim_equal
from ...tir import op as _op
from ..utils import TopiError, check_strides, check_tensors, get_const_int
from .pad import pad
from .utils import conv_out_size, get_pad_tuple_generic

_SPATIAL = ("yy", "xx", "zz")


def _layout_perm(layout: str, first: str, second: str, ndim: int, what: str, op: str):
    """Positions in ``layout`` of ``first``, ``second`` and then the spatial letters."""
    if not isinstance(layout, str) or len(layout) != ndim or len(set(layout)) != ndim or \
            first not in layout or second not in layout:
        raise TopiError(f"{op}: {what} must have {ndim} distinct letters including {first!r} "
                        f"and {second!r}, got {layout!r}")
    return [layout.index(first), layout.index(second)] + [
        k for k, c in enumerate(layout) if c not in (first, second)]


def conv(inp: Tensor, filt: Tensor, stride, padding, dilation, groups: int, data_layout: str,
         kernel_layout: str = "", out_dtype: Optional[str] = None, op: str = "conv") -> Tensor:
    """N-D (grouped) convolution in any ``data_layout`` naming ``N``, ``C`` and the spatial
    dimensions (e.g. "NCW", "NDHWC"); ``kernel_layout`` names ``O``, ``I`` and the spatial
    dimensions (default: OI... when C precedes the spatial dimensions, ...IO else).

    The padded input is ``pad_temp``; the stage is named and tagged
    ``[group_]conv{dim}d_{data_layout.lower()}``.
    """
    check_tensors(op, data=inp, kernel=filt)
    if filt.ndim != inp.ndim or inp.ndim < 3:
        raise TopiError(f"{op}: data and kernel must have the same rank (>= 3), got "
                        f"{inp.ndim}-D data and {filt.ndim}-D kernel")
    dim = inp.ndim - 2
    dperm = _layout_perm(data_layout, "N", "C", inp.ndim, "data_layout", op)
    if not kernel_layout:
        spatial_first = [k for k, c in enumerate(data_layout) if c not in "NC"][0]
        kperm = list(range(dim + 2)) if dperm[1] < spatial_first else \
            [dim + 1, dim] + list(range(dim))
    else:
        kperm = _layout_perm(kernel_layout, "O", "I", filt.ndim, "kernel_layout", op)
    out_dtype = out_dtype or inp.dtype
    strides = check_strides(stride, dim, op, "stride")
    dilations = check_strides(dilation, dim, op, "dilation")
    groups = check_strides(groups, 1, op, "groups")[0]
    batch, in_channel, *sizes = [inp.shape[k] for k in dperm]
    num_filter, channel, *ksizes = [filt.shape[k] for k in kperm]
    try:
        ksizes = [get_const_int(k) for k in ksizes]
        ic, f = get_const_int(in_channel), get_const_int(num_filter)
    except ValueError as e:
        raise TopiError(f"{op}: the kernel size and channel counts must be constant") from e
    if ic % groups:
        raise TopiError(f"{op}: groups={groups} does not divide the {ic} input channels")
    if f % groups:
        raise TopiError(f"{op}: groups={groups} does not divide the {f} output channels")
    if not _dim_equal(channel, ic // groups):
        raise TopiError(f"{op}: kernel has {channel} input channels, expected "
                        f"{ic} // {groups} = {ic // groups}")
    dk = [(k - 1) * d + 1 for k, d in zip(ksizes, dilations)]
    try:
        begin, end = get_pad_tuple_generic(padding, dk)
    except TypeError as e:
        raise TopiError(f"{op}: bad padding {padding!r}") from e
    if any(not isinstance(p, int) or p < 0 for p in begin + end):
        raise TopiError(f"{op}: padding must be non-negative integers, got {padding!r}")
    out_sizes = [conv_out_size(op, s, k, d, b, e, st, f"dimension {n}")
                 for n, (s, k, d, b, e, st) in enumerate(
                     zip(sizes, ksizes, dilations, begin, end, strides))]
    # positions in the layout -> logical (N, C, spatial...) and back
    inv = [0] * (dim + 2)
    for logical, pos in enumerate(dperm):
        inv[pos] = logical
    kinv = [0] * (dim + 2)
    for logical, pos in enumerate(kperm):
        kinv[pos] = logical
    before, after = [0] * (dim + 2), [0] * (dim + 2)
    for s in range(dim):
        before[dperm[2 + s]], after[dperm[2 + s]] = begin[s], end[s]
    temp = pad(inp, before, after, name="pad_temp")
    cg, fg = ic // groups, f // groups
    rc = reduce_axis((0, cg), name="rc")
    rs = [reduce_axis((0, k), name=f"r{'yxz'[n]}") for n, k in enumerate(ksizes)]
    # reduction axes in the order the data layout lists C and the spatial dimensions
    red = [rc] + rs
    red_order = [red[inv[p] - 1] for p in range(dim + 2) if inv[p] != 0]
    logical_shape = [batch, num_filter] + out_sizes

    def body(*args):
        nn, ff, *pos = [args[dperm[k]] for k in range(dim + 2)]
        chan = rc if groups == 1 else ff // fg * cg + rc
        dlog = [nn, chan] + [p * st + r * d for p, st, r, d in zip(pos, strides, rs, dilations)]
        klog = [ff, rc] + rs
        x = temp(*[dlog[inv[p]] for p in range(dim + 2)])
        w = filt(*[klog[kinv[p]] for p in range(dim + 2)])
        return _op.sum(x.astype(out_dtype) * w.astype(out_dtype), axis=red_order)

    names = ["nn", "ff", *_SPATIAL[:dim]]
    if dim > len(_SPATIAL):
        names = ["nn", "ff"] + [f"s{k}" for k in range(dim)]
    name = f"{'group_' if groups > 1 else ''}conv{dim}d_{data_layout.lower()}"
    return compute([logical_shape[inv[p]] for p in range(dim + 2)], body, name=name, tag=name,
                   varargs_names=[names[inv[p]] for p in range(dim + 2)])


def conv1d(data: Tensor, kernel: Tensor, strides=1, padding="VALID", dilation=1,
           data_layout: str = "NCW", kernel_layout: str = "",
           out_dtype: Optional[str] = None) -> Tensor:
    """1-D convolution: data "NCW" (kernel OIW) or "NWC" (kernel WIO)."""
    if data_layout not in ("NCW", "NWC"):
        raise TopiError(f"conv1d: data_layout must be 'NCW' or 'NWC', got {data_layout!r}")
    return conv(data, kernel, strides, padding, dilation, 1, data_layout, kernel_layout,
                out_dtype, op="conv1d")


def conv1d_ncw(data: Tensor, kernel: Tensor, strides=1, padding="VALID", dilation=1,
               out_dtype: Optional[str] = None) -> Tensor:
    """1-D convolution: data ``(N, C, W)``, kernel ``(F, C, KW)`` -> ``(N, F, OW)``."""
    return conv(data, kernel, strides, padding, dilation, 1, "NCW", "OIW", out_dtype,
                op="conv1d_ncw")


def conv1d_nwc(data: Tensor, kernel: Tensor, strides=1, padding="VALID", dilation=1,
               out_dtype: Optional[str] = None) -> Tensor:
    """1-D convolution: data ``(N, W, C)``, kernel ``(KW, C, F)`` -> ``(N, OW, F)``."""
    return conv(data, kernel, strides, padding, dilation, 1, "NWC", "WIO", out_dtype,
                op="conv1d_nwc")


def group_conv1d_ncw(data: Tensor, kernel: Tensor, strides=1, padding="VALID", dilation=1,
                     groups: int = 1, out_dtype: Optional[str] = None) -> Tensor:
    """Grouped 1-D convolution: data ``(N, C, W)``, kernel ``(F, C // groups, KW)``."""
    return conv(data, kernel, strides, padding, dilation, groups, "NCW", "OIW", out_dtype,
                op="group_conv1d_ncw")


def group_conv1d_nwc(data: Tensor, kernel: Tensor, strides=1, padding="VALID", dilation=1,
                     groups: int = 1, out_dtype: Optional[str] = None) -> Tensor:
    """Grouped 1-D convolution: data ``(N, W, C)``, kernel ``(KW, C // groups, F)``."""
    return conv(data, kernel, strides, padding, dilation, groups, "NWC", "WIO", out_dtype,
                op="group_conv1d_nwc")


def conv3d_ncdhw(Input: Tensor, Filter: Tensor, stride, padding, dilation, groups: int,
                 out_dtype: Optional[str] = None) -> Tensor:
    """3-D convolution: Input ``(N, C, D, H, W)``, Filter ``(F, C // groups, KD, KH, KW)``."""
    return conv(Input, Filter, stride, padding, dilation, groups, "NCDHW", "OIDHW", out_dtype,
                op="conv3d_ncdhw")


def conv3d_ndhwc(Input: Tensor, Filter: Tensor, stride, padding, dilation, groups: int,
                 out_dtype: str = "float32") -> Tensor:
    """3-D convolution: Input ``(N, D, H, W, C)``, Filter ``(KD, KH, KW, C // groups, F)``."""
    return conv(Input, Filter, stride, padding, dilation, groups, "NDHWC", "DHWIO", out_dtype,
                op="conv3d_ndhwc")


def group_conv2d_nhwc(Input: Tensor, Filter: Tensor, stride, padding, dilation, groups: int,
                      out_dtype: Optional[str] = None) -> Tensor:
    """Grouped 2-D convolution: Input ``(N, H, W, C)``, Filter ``(KH, KW, C // groups, F)``
    -> ``(N, OH, OW, F)``."""
    return conv(Input, Filter, stride, padding, dilation, groups, "NHWC", "HWIO", out_dtype,
                op="group_conv2d_nhwc")
