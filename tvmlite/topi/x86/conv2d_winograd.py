"""x86 Winograd convolution ``F(m x m, 3 x 3)`` (NCHW, stride 1, dilation 1, groups 1) and
its AutoTVM templates ``conv2d_nchw_winograd.x86`` and
``conv2d_nchw_winograd_without_weight_transform.x86``.

The computation runs on channel-blocked data, as ``conv2d_NCHWc.x86`` does, so that every
stage is vectorized along a contiguous channel block:

* ``data_pad`` ``(N, C/icb, H', W', icb)``: the input padded to whole tiles;
* ``V`` ``(alpha, alpha, P, C)``: ``B^T d B`` of each of the ``P`` input tiles and channels
  (``alpha = m + 2``), vectorized over the ``icb`` channels of a block, the ``alpha x alpha``
  positions unrolled into explicit sums (zero coefficients dropped);
* ``M`` ``(alpha, alpha, K/ocb, P, ocb)``: one GEMM per position, ``M = V U`` over the input
  channels, register-blocked (``tile_p`` tiles x ``ocb`` output channels of accumulators,
  one broadcast of ``V`` and one FMA per vector of ``U``), parallel over positions and
  output-channel blocks;
* the output ``(N, K/ocb, OH, OW, ocb)``: ``A^T M A`` per tile (stage ``Y``, computed tile by
  tile in the output's loop nest), an element-wise epilogue fused there.

``U`` ``(alpha, alpha, K/ocb, C, ocb)`` is the kernel's ``G g G^T``, packed by output
channel blocks: computed in the kernel by ``conv2d_nchw_winograd``, given pre-transformed to
``conv2d_nchw_winograd_without_weight_transform`` (which is what a network runs: relay's
AlterOpLayout transforms a constant weight once, at build time).

Knobs: ``tile_size`` (m: 2, 4 or 6), ``tile_ic``/``tile_oc`` (the channel blocks, as in
``conv2d_NCHWc.x86``: the data transform's and the GEMM's vector widths) and ``tile_p``
(tiles per register block of the GEMM).
"""
from __future__ import annotations

from typing import Optional, Tuple

from ... import autotvm
from ...autotvm.space import OtherOptionEntity
from ...te.operation import compute, placeholder, reduce_axis
from ...te.schedule import Schedule
from ...te.tensor import Tensor
from ...tir import op as _op
from ..nn.conv2d import winograd_transposed
from ..nn.pad import pad
from ..nn.utils import get_pad_tuple
from ..nn.winograd_util import row_transform, tile_transform, winograd_fractions
from ..transform import layout_transform
from ..utils import TopiError, check_strides, get_const_int, get_const_tuple
from .dense import _inline_and_find, _tensor_arg, config_of
from .injective import schedule_injective_from_existing
from .utils import get_config, largest_factor, vector_lanes

#: the tile sizes of the ``tile_size`` knob; F(6x6, 3x3) stays within 1e-4 of a float64
#: reference on N(0, 1) data up to 512 channels (tests/test_topi_conv2d_winograd.py)
TILE_SIZES = (2, 4, 6)
#: tiles per register block (``tile_p``)
_TILE_P = (2, 3, 4, 6, 8)
_TAG = "conv2d_nchw_winograd"


def winograd_eligible(kernel_shape, strides, dilation, groups: int = 1,
                      dtype: str = "float32") -> bool:
    """Whether a convolution of ``kernel_shape`` (``OIHW``) can run as
    ``conv2d_nchw_winograd``: a 3x3 kernel, stride 1, dilation 1, groups 1, float32."""
    try:
        kh, kw = (get_const_int(x) for x in kernel_shape[2:4])
        sh, sw = check_strides(strides, 2, "conv2d_nchw_winograd", "strides")
        dh, dw = check_strides(dilation, 2, "conv2d_nchw_winograd", "dilation")
    except (ValueError, TopiError):
        return False
    return (kh, kw, sh, sw, dh, dw) == (3, 3, 1, 1, 1, 1) and int(groups) == 1 \
        and dtype == "float32"


def _check(op: str, strides, dilation, kh: int, kw: int) -> None:
    if (kh, kw) != (3, 3):
        raise TopiError(f"{op}: only 3x3 kernels are supported, got {kh}x{kw}")
    if check_strides(strides, 2, op, "strides") != (1, 1):
        raise TopiError(f"{op}: only stride 1 is supported, got {strides}")
    if check_strides(dilation, 2, op, "dilation") != (1, 1):
        raise TopiError(f"{op}: only dilation 1 is supported, got {dilation}")


def _define(cfg, channels: int, out_channels: int, out_h: int, out_w: int,
            ic_bn: Optional[int] = None, oc_bn: Optional[int] = None,
            tile_size: Optional[int] = None) -> None:
    """The knobs of both templates, and the fallback config (``ic_bn``, ``oc_bn``,
    ``tile_size``: the values pre-packed arguments impose)."""
    cfg.define_knob("tile_size", list(TILE_SIZES))
    # the blocks are vector widths (the data transform's and the GEMM's): multiples of 4
    # where the channels allow one, else any factor
    cfg.define_split("tile_ic", channels, num_outputs=2, filter=_block_filter(channels))
    cfg.define_split("tile_oc", out_channels, num_outputs=2,
                     filter=_block_filter(out_channels))
    cfg.define_knob("tile_p", list(_TILE_P))
    if cfg.is_fallback:
        lanes = vector_lanes("float32")
        cfg["tile_size"] = OtherOptionEntity(tile_size or (4 if min(out_h, out_w) >= 8 else 2))
        cfg.fallback_split("tile_ic", [-1, ic_bn or largest_factor(channels, lanes)])
        cfg.fallback_split("tile_oc", [-1, oc_bn or largest_factor(out_channels, lanes)])
        cfg["tile_p"] = OtherOptionEntity(6 if (oc_bn or lanes) <= lanes else 4)


def _block_filter(channels: int):
    if channels % 4:
        return None
    return lambda e: e.size[-1] % 4 == 0


def _flop(cfg, n: int, c: int, k: int, oh: int, ow: int) -> None:
    # the direct convolution's count, as classic reports a Winograd kernel's GFLOPS
    cfg.add_flop(2 * n * c * k * oh * ow * 9)


def _winograd_core(data: Tensor, U: Tensor, padding, out_h: int, out_w: int, m: int,
                   out_dtype: str) -> Tensor:
    """The packed Winograd convolution: ``data`` ``(N, C/icb, H, W, icb)``, ``U``
    ``(alpha, alpha, K/ocb, C, ocb)`` -> ``(N, K/ocb, OH, OW, ocb)`` (tag
    ``conv2d_nchw_winograd``)."""
    n, cb, h, w, icb = get_const_tuple(data.shape)
    alpha, _, kb, c, ocb = get_const_tuple(U.shape)
    r = alpha - m + 1
    a_mat, b_mat, _ = winograd_fractions(m, r)
    pt, pl, _, _ = padding
    nh, nw = -(-out_h // m), -(-out_w // m)
    p_total = n * nh * nw
    # pad to whole tiles: rows pt .. pt + H of data_pad hold the input; the bottom and right
    # padding cover the requested ones (the tiles cover the output) and round up to a tile
    pb, pr = nh * m + r - 1 - pt - h, nw * m + r - 1 - pl - w
    if (pt, pl, pb, pr) != (0, 0, 0, 0):
        data_pad = pad(data, (0, 0, pt, pl, 0), (0, 0, pb, pr, 0), name="data_pad")
    else:
        data_pad = data
    dt = data.dtype

    def d(p, ci, x, y):
        b_, th, tw = p // (nh * nw), p // nw % nh, p % nw
        return data_pad[b_, ci // icb, th * m + x, tw * m + y, ci % icb]

    # B^T d B in two passes (rows, then columns), each alpha explicit sums of the nonzero
    # coefficients; the first pass is computed per tile and channel block, in the second's
    # loop nest
    V1 = compute((alpha, alpha, p_total, c),
                 lambda eps, y, p, ci: row_transform(b_mat, lambda x: d(p, ci, x, y), eps, dt),
                 name="V1", tag="winograd_data_transform")
    V = compute((alpha, alpha, p_total, c),
                lambda eps, nu, p, ci: row_transform(b_mat, lambda y: V1[eps, y, p, ci], nu,
                                                     dt),
                name="V", tag="winograd_data_transform")
    rc = reduce_axis((0, c), name="rc")
    M = compute((alpha, alpha, kb, p_total, ocb),
                lambda eps, nu, k, p, ki: _op.sum(
                    (V[eps, nu, p, rc] * U[eps, nu, k, rc, ki]).astype(out_dtype), axis=rc),
                name="M", tag="winograd_batch_gemm")

    # A^T M A in two passes, as the data transform
    Y1 = compute((kb, p_total, m, alpha, ocb),
                 lambda k, p, vh, y, ki: row_transform(a_mat, lambda x: M[x, y, k, p, ki], vh,
                                                       out_dtype),
                 name="Y1", tag="winograd_inverse_transform")
    Y = compute((kb, p_total, m, m, ocb),
                lambda k, p, vh, vw, ki: row_transform(a_mat, lambda y: Y1[k, p, vh, y, ki],
                                                       vw, out_dtype),
                name="Y", tag="winograd_inverse_transform")
    return compute((n, kb, out_h, out_w, ocb),
                   lambda b_, k, hh, ww, ki: Y[k, b_ * (nh * nw) + hh // m * nw + ww // m,
                                               hh % m, ww % m, ki],
                   name="conv2d_winograd", tag=_TAG,
                   attrs={"tile_size": m})


def _packed_weight(kernel: Tensor, m: int, oc_bn: int) -> Tensor:
    """``G g G^T`` of an ``OIHW`` kernel, packed ``(alpha, alpha, K/ocb, C, ocb)`` (stage
    ``U``)."""
    k, c, kh, kw = get_const_tuple(kernel.shape)
    _, _, g = winograd_fractions(m, kh)
    gt = winograd_transposed(g)
    alpha = m + kh - 1
    return compute((alpha, alpha, k // oc_bn, c, oc_bn),
                   lambda eps, nu, ko, ci, ki: tile_transform(
                       gt, lambda x, y: kernel[ko * oc_bn + ki, ci, x, y], eps, nu,
                       kernel.dtype), name="U", tag="winograd_kernel_transform")


def _pack_data(data: Tensor, ic_bn: int) -> Tensor:
    out = layout_transform(data, "NCHW", f"NCHW{ic_bn}c")
    out.op.name = "data_vec"
    return out


def _unpack(out: Tensor) -> Tensor:
    res = layout_transform(out, f"NCHW{get_const_int(out.shape[4])}c", "NCHW")
    res.op.name = "output_unpack"
    return res


def _out_size(op: str, h: int, w: int, padding) -> Tuple[Tuple[int, ...], int, int]:
    pt, pl, pb, pr = get_pad_tuple(padding, (3, 3))
    pad4 = tuple(get_const_int(x) for x in (pt, pl, pb, pr))
    oh, ow = h + pad4[0] + pad4[2] - 2, w + pad4[1] + pad4[3] - 2
    if oh <= 0 or ow <= 0:
        raise TopiError(f"{op}: the output would be empty ({oh}x{ow}) for input {h}x{w} and "
                        f"padding {list(pad4)}")
    return pad4, oh, ow


def conv2d_nchw_winograd(data: Tensor, kernel: Tensor, strides, padding, dilation,
                         out_dtype: str = "float32") -> Tensor:
    """Winograd convolution of ``data`` ``(N, C, H, W)`` and a 3x3 ``kernel`` ``(K, C, 3, 3)``
    (stride 1, dilation 1) -> ``(N, K, OH, OW)``, the kernel transformed in the kernel; the
    ``conv2d_nchw_winograd.x86`` knobs are on its config."""
    op = "conv2d_nchw_winograd"
    if not (isinstance(data, Tensor) and data.ndim == 4 and isinstance(kernel, Tensor)
            and kernel.ndim == 4):
        raise TopiError(f"{op}: expects 4-D data (NCHW) and kernel (OIHW)")
    n, c, h, w = get_const_tuple(data.shape)
    k, kc, kh, kw = get_const_tuple(kernel.shape)
    _check(op, strides, dilation, kh, kw)
    if kc != c:
        raise TopiError(f"{op}: the kernel has {kc} input channels, the data {c}")
    pad4, oh, ow = _out_size(op, h, w, padding)
    cfg, workload = get_config("conv2d_nchw_winograd.x86",
                               (data, kernel, strides, padding, dilation, out_dtype))
    _define(cfg, c, k, oh, ow)
    m = cfg["tile_size"].val
    ic_bn, oc_bn = cfg["tile_ic"].size[-1], cfg["tile_oc"].size[-1]
    U = _packed_weight(kernel, m, oc_bn)
    out = _winograd_core(_pack_data(data, ic_bn), U, pad4, oh, ow, m, out_dtype)
    _flop(cfg, n, c, k, oh, ow)
    out.op.attrs["workload"] = workload
    return _unpack(out)


def conv2d_nchw_winograd_without_weight_transform(data: Tensor, kernel: Tensor, strides,
                                                  padding, dilation,
                                                  out_dtype: str = "float32") -> Tensor:
    """Winograd convolution over a pre-transformed kernel: ``kernel`` is ``(alpha, alpha, K,
    C)`` (``topi.nn.conv2d_winograd_weight_transform``) or, packed by output-channel blocks,
    ``(alpha, alpha, K/ocb, C, ocb)``; ``data`` is ``(N, C, H, W)`` (result NCHW) or
    ``(N, C/icb, H, W, icb)`` (result ``(N, K/ocb, OH, OW, ocb)``). The tile size is
    ``alpha - 2``; the ``conv2d_nchw_winograd_without_weight_transform.x86`` knobs are on
    its config (a pre-packed argument fixes its block)."""
    op = "conv2d_nchw_winograd_without_weight_transform"
    if not (isinstance(data, Tensor) and data.ndim in (4, 5) and isinstance(kernel, Tensor)
            and kernel.ndim in (4, 5)):
        raise TopiError(f"{op}: expects 4-D (NCHW) or 5-D (NCHW{{c}}c) data and a 4-D "
                        f"(alpha, alpha, K, C) or 5-D (alpha, alpha, K/ocb, C, ocb) kernel")
    ds, ks = get_const_tuple(data.shape), get_const_tuple(kernel.shape)
    n, h, w = ds[0], ds[2], ds[3]
    c = ds[1] * (ds[4] if data.ndim == 5 else 1)
    alpha = ks[0]
    k = ks[2] * (ks[4] if kernel.ndim == 5 else 1)
    if ks[1] != alpha or ks[3] != c:
        raise TopiError(f"{op}: the kernel {list(ks)} is not a transformed kernel of "
                        f"{c} input channels")
    m = alpha - 2
    if m not in TILE_SIZES:
        raise TopiError(f"{op}: the kernel's alpha = {alpha} gives tile size {m}, not one "
                        f"of {list(TILE_SIZES)}")
    if check_strides(strides, 2, op, "strides") != (1, 1) or \
            check_strides(dilation, 2, op, "dilation") != (1, 1):
        raise TopiError(f"{op}: only stride 1 and dilation 1 are supported, got strides "
                        f"{strides}, dilation {dilation}")
    pad4, oh, ow = _out_size(op, h, w, padding)
    cfg, workload = get_config("conv2d_nchw_winograd_without_weight_transform.x86",
                               (data, kernel, strides, padding, dilation, out_dtype))
    _define(cfg, c, k, oh, ow, ds[4] if data.ndim == 5 else None,
            ks[4] if kernel.ndim == 5 else None, m)
    ic_bn, oc_bn = cfg["tile_ic"].size[-1], cfg["tile_oc"].size[-1]
    if cfg["tile_size"].val != m:
        raise TopiError(f"{op}: the config's tile_size {cfg['tile_size'].val} differs from "
                        f"the kernel's {m}")
    if data.ndim == 5 and ds[4] != ic_bn:
        raise TopiError(f"{op}: the config's tile_ic block {ic_bn} differs from the data's "
                        f"block {ds[4]}")
    if kernel.ndim == 5 and ks[4] != oc_bn:
        raise TopiError(f"{op}: the config's tile_oc block {oc_bn} differs from the kernel's "
                        f"block {ks[4]}")
    if kernel.ndim == 4:
        U = layout_transform(kernel, "HWOI", f"HWOI{oc_bn}o")
        U.op.name = "U"
    else:
        U = kernel
    packed = data if data.ndim == 5 else _pack_data(data, ic_bn)
    out = _winograd_core(packed, U, pad4, oh, ow, m, out_dtype)
    _flop(cfg, n, c, k, oh, ow)
    out.op.attrs["workload"] = workload
    return out if data.ndim == 5 else _unpack(out)


# ---------------------------------------------------------------------------------- schedule
def _parallel_outer(s: Schedule, t: Tensor, n_outer: int) -> None:
    axes = s[t].op.axis
    s[t].parallel(s[t].fuse(*axes[:n_outer]))


def schedule_conv2d_nchw_winograd(outs) -> Schedule:
    """Schedule of :func:`conv2d_nchw_winograd` and
    :func:`conv2d_nchw_winograd_without_weight_transform` with their element-wise consumers
    (fused into the inverse transform's loop nest when the output stays packed)."""
    s, conv, out = _inline_and_find(outs, _TAG)
    cfg = config_of(out)
    tile_p = cfg["tile_p"].val
    m = int(conv.op.attrs["tile_size"])
    Y = conv.op.input_tensors[0]
    Y1 = Y.op.input_tensors[0]
    M = Y1.op.input_tensors[0]
    V, U = M.op.input_tensors
    V1 = V.op.input_tensors[0]
    data_pad = V1.op.input_tensors[0]
    icb = get_const_int(data_pad.shape[4])

    # input: packing and padding, parallel over (n, c block, row) and vectorized
    data_vec = data_pad.op.input_tensors[0] if data_pad.op.name == "data_pad" else data_pad
    if data_vec.op.name == "data_vec":
        if data_vec is data_pad:
            _parallel_outer(s, data_vec, 3)
        else:
            s[data_vec].compute_inline()
    if data_pad.op.name == "data_pad":
        _parallel_outer(s, data_pad, 3)
        s[data_pad].vectorize(s[data_pad].op.axis[4])
    # the weight transform, when it is part of the kernel
    if U.op.name == "U":
        if U.op.tag == "winograd_kernel_transform":
            eps, nu, ko, ci, ki = s[U].op.axis
            s[U].reorder(ko, ci, eps, nu, ki)
            s[U].parallel(ko)
            s[U].vectorize(ki)
        else:  # a layout_transform of a pre-transformed kernel
            _parallel_outer(s, U, 2)

    # data transform: per tile and channel block, the alpha x alpha outputs unrolled
    eps, nu, p, c = s[V].op.axis
    co, ci = s[V].split(c, factor=icb)
    s[V].reorder(p, co, eps, nu, ci)
    pc = s[V].fuse(p, co)
    s[V].parallel(pc)
    s[V].unroll(eps)
    s[V].unroll(nu)
    s[V].vectorize(ci)
    s[V1].compute_at(s[V], pc)
    eps, y, _, ci = s[V1].op.axis
    s[V1].unroll(eps)
    s[V1].unroll(y)
    s[V1].vectorize(ci)

    # batched GEMM: a tile_p x ocb register block per (position, K block, tile block)
    MC = s.cache_write(M, "global")
    eps, nu, k, p, ki = s[M].op.axis
    po, pi = s[M].split(p, factor=tile_p)
    s[M].reorder(eps, nu, k, po, pi, ki)
    s[M].parallel(s[M].fuse(eps, nu, k))
    s[M].vectorize(ki)
    s[MC].compute_at(s[M], po)
    _, _, _, cp, cki = s[MC].op.axis
    (rc,) = s[MC].op.reduce_axis
    s[MC].reorder(rc, cp, cki)
    s[MC].unroll(cp)
    s[MC].vectorize(cki)

    # inverse transform per tile, in the output's loop nest (with the epilogue)
    if out.ndim == 5:
        stage = out
        if out is not conv:
            s[conv].compute_inline()
    else:  # unpacked to NCHW: the packed result is a stage of its own
        stage = conv
        schedule_injective_from_existing(s, out)
    b, k, hh, ww, ki = s[stage].op.axis
    ho, hi = s[stage].split(hh, factor=m)
    wo, wi = s[stage].split(ww, factor=m)
    s[stage].reorder(b, k, ho, wo, hi, wi, ki)
    s[stage].parallel(s[stage].fuse(b, k, ho))
    s[stage].vectorize(ki)
    for t in (Y1, Y):
        s[t].compute_at(s[stage], wo)
        _, _, vh, vw, yki = s[t].op.axis
        s[t].unroll(vh)
        s[t].unroll(vw)
        s[t].vectorize(yki)
    return s


schedule_conv2d_nchw_winograd_without_weight_transform = schedule_conv2d_nchw_winograd


# --------------------------------------------------------------------------------- templates
@autotvm.template("conv2d_nchw_winograd.x86")
def _conv2d_nchw_winograd_template(data, kernel, strides, padding, dilation,
                                   out_dtype="float32"):
    data, kernel = _tensor_arg(data, "data"), _tensor_arg(kernel, "kernel")
    if autotvm.GLOBAL_SCOPE.in_tuning:
        # measured as a network runs it: packed data and a weight transformed ahead of time
        # (AlterOpLayout does both at build time), so a config's time is the convolution's
        cfg = autotvm.get_config()
        n, c, h, w = get_const_tuple(data.shape)
        k = get_const_int(kernel.shape[0])
        m = cfg["tile_size"].val
        ic_bn, oc_bn = cfg["tile_ic"].size[-1], cfg["tile_oc"].size[-1]
        data = placeholder((n, c // ic_bn, h, w, ic_bn), data.dtype, name="data")
        kernel = placeholder((m + 2, m + 2, k // oc_bn, c, oc_bn), kernel.dtype,
                             name="kernel")
        out = conv2d_nchw_winograd_without_weight_transform(data, kernel, strides, padding,
                                                            dilation, out_dtype)
        return schedule_conv2d_nchw_winograd(out), [data, kernel, out]
    out = conv2d_nchw_winograd(data, kernel, strides, padding, dilation, out_dtype)
    return schedule_conv2d_nchw_winograd(out), [data, kernel, out]


@autotvm.template("conv2d_nchw_winograd_without_weight_transform.x86")
def _conv2d_nchw_winograd_wwt_template(data, kernel, strides, padding, dilation,
                                       out_dtype="float32"):
    data, kernel = _tensor_arg(data, "data"), _tensor_arg(kernel, "kernel")
    out = conv2d_nchw_winograd_without_weight_transform(data, kernel, strides, padding,
                                                        dilation, out_dtype)
    return schedule_conv2d_nchw_winograd(out), [data, kernel, out]
