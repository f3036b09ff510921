"""Numpy references for the nn operators other than NCHW convolution (classic
``topi.testing`` names). They are written independently of the TE computes, with plain
loops and numpy, so tests compare two implementations."""
from __future__ import annotations

import itertools
import math

import numpy as np

from ..nn.utils import get_pad_tuple, get_pad_tuple_generic
from ..utils import parse_layout
from .conv2d_nchw_python import conv2d_nchw_python


def dilate_python(np_data: np.ndarray, strides, dilation_value=0.0,
                  out_dtype=None) -> np.ndarray:
    """Insert ``strides[d] - 1`` copies of ``dilation_value`` between elements (the result
    in ``out_dtype``, by default the input's)."""
    shape = [(n - 1) * s + 1 for n, s in zip(np_data.shape, strides)]
    out = np.full(shape, dilation_value, dtype=out_dtype or np_data.dtype)
    out[tuple(slice(None, None, s) for s in strides)] = np_data
    return out


def conv2d_nhwc_python(a_np, w_np, stride, padding, groups: int = 1) -> np.ndarray:
    """Input ``(N, H, W, C)``, filter ``(KH, KW, C // groups, F)`` -> ``(N, OH, OW, F)``."""
    out = conv2d_nchw_python(a_np.transpose(0, 3, 1, 2), w_np.transpose(3, 2, 0, 1), stride,
                             padding, groups)
    return out.transpose(0, 2, 3, 1)


def conv2d_hwcn_python(a_np, w_np, stride, padding) -> np.ndarray:
    """Input ``(H, W, C, N)``, filter ``(KH, KW, C, F)`` -> ``(OH, OW, F, N)``."""
    out = conv2d_nchw_python(a_np.transpose(3, 2, 0, 1), w_np.transpose(3, 2, 0, 1), stride,
                             padding)
    return out.transpose(2, 3, 1, 0)


def depthwise_conv2d_python_nhwc(input_np, filter_np, stride, padding) -> np.ndarray:
    """Input ``(N, H, W, C)``, filter ``(KH, KW, C, M)`` -> ``(N, OH, OW, C*M)``."""
    from .conv2d_nchw_python import depthwise_conv2d_python_nchw

    out = depthwise_conv2d_python_nchw(input_np.transpose(0, 3, 1, 2),
                                       filter_np.transpose(2, 3, 0, 1), stride, padding)
    return out.transpose(0, 2, 3, 1)


def conv2d_transpose_nchw_python(a_np, w_np, stride, padding, output_padding=(0, 0),
                                 groups: int = 1) -> np.ndarray:
    """Transposed convolution by scattering: input ``(N, C, H, W)``, filter
    ``(C, F // groups, KH, KW)`` -> ``(N, F, OH, OW)``; group ``g`` maps input channels
    ``g*C/groups ...`` to output channels ``g*F/groups ...``."""
    n, c, h, w = a_np.shape
    _, fg, kh, kw = w_np.shape
    if c % groups or w_np.shape[0] != c:
        raise ValueError(f"conv2d_transpose: {c} input channels, filter {w_np.shape}, "
                         f"groups={groups} do not match")
    sh, sw = (stride, stride) if isinstance(stride, int) else stride
    oph, opw = output_padding
    top, left, bottom, right = get_pad_tuple(padding, (kh, kw))
    cg = c // groups
    full = np.zeros((n, fg * groups, (h - 1) * sh + kh + oph, (w - 1) * sw + kw + opw),
                    np.result_type(a_np, w_np))
    for g in range(groups):
        ag, wg = a_np[:, g * cg:(g + 1) * cg], w_np[g * cg:(g + 1) * cg]
        for y in range(h):
            for x in range(w):
                full[:, g * fg:(g + 1) * fg, y * sh:y * sh + kh, x * sw:x * sw + kw] += \
                    np.einsum("nc,cfij->nfij", ag[:, :, y, x], wg)
    return full[:, :, top:full.shape[2] - bottom, left:full.shape[3] - right]


def conv2d_transpose_nhwc_python(a_nhwc, weight, weight_format, stride, padding,
                                 output_padding=(0, 0)) -> np.ndarray:
    """:func:`conv2d_transpose_nchw_python` of "NHWC" data, the weight in
    ``weight_format`` (an order of I, O, H and W: "HWIO", "HWOI", "OIHW", "IOHW"); the
    output is "NHWC"."""
    w_iohw = np.transpose(weight, [weight_format.index(c) for c in "IOHW"])
    out = conv2d_transpose_nchw_python(a_nhwc.transpose(0, 3, 1, 2), w_iohw, stride, padding,
                                       output_padding)
    return out.transpose(0, 2, 3, 1)


def conv1d_transpose_ncw_python(a_np, w_np, stride, padding, output_padding=(0,)
                                ) -> np.ndarray:
    """Transposed 1-D convolution by scattering: input ``(N, C, W)``, filter ``(C, F, K)``;
    input ``i`` adds ``a[i] * w[k]`` at ``i * stride + k - pad_left``."""
    n, c, w = a_np.shape
    _, f, k = w_np.shape
    s = stride if isinstance(stride, int) else stride[0]
    opad = output_padding if isinstance(output_padding, int) else output_padding[0]
    (left,), (right,) = get_pad_tuple_generic(padding, [k])
    out_w = (w - 1) * s + k - left - right + opad
    full = np.zeros((n, f, max((w - 1) * s + k, left + out_w)), "float64")
    for x in range(w):
        full[:, :, x * s:x * s + k] += np.einsum("nc,cfk->nfk", a_np[:, :, x], w_np)
    return full[:, :, left:left + out_w].astype(a_np.dtype)


def conv3d_transpose_ncdhw_python(a_np, w_np, stride, padding, output_padding
                                  ) -> np.ndarray:
    """Transposed 3-D convolution by scattering: input ``(N, C, D, H, W)``, filter ``(C, F,
    KD, KH, KW)``; input ``(z, y, x)`` adds ``a[z, y, x] * w`` at ``(z, y, x) * stride`` and
    the result is cropped by the padding (front, top, left, back, bottom, right)."""
    n, c, *size = a_np.shape
    _, f, *ks = w_np.shape
    st = [stride] * 3 if isinstance(stride, int) else list(stride)
    opad = [output_padding] * 3 if isinstance(output_padding, int) else list(output_padding)
    begin, end = get_pad_tuple_generic(padding, ks)
    full = np.zeros((n, f, *[(x - 1) * s + k + o for x, s, k, o in zip(size, st, ks, opad)]),
                    "float64")
    for z, y, x in np.ndindex(*size):
        full[:, :, z * st[0]:z * st[0] + ks[0], y * st[1]:y * st[1] + ks[1],
             x * st[2]:x * st[2] + ks[2]] += np.einsum("nc,cfijk->nfijk", a_np[:, :, z, y, x],
                                                       w_np)
    crop = tuple(slice(b, full.shape[2 + i] - e) for i, (b, e) in enumerate(zip(begin, end)))
    return full[(slice(None), slice(None)) + crop].astype(a_np.dtype)


def deformable_conv2d_nchw_python(a_np, offset_np, w_np, stride, padding, dilation,
                                  deformable_groups, groups) -> np.ndarray:
    """Deformable convolution: data ``(N, C, H, W)``, offset ``(N, dg * KH * KW * 2, OH,
    OW)`` ((y, x) per deformable group and tap), weight ``(O, C / groups, KH, KW)``; each tap
    samples bilinearly (0 outside the image)."""
    n, c, h, w = a_np.shape
    o, cg, kh, kw = w_np.shape
    oh, ow = offset_np.shape[2:]
    sh, sw = (stride, stride) if isinstance(stride, int) else stride
    dh, dw = (dilation, dilation) if isinstance(dilation, int) else dilation
    top, left, _, _ = get_pad_tuple(padding, ((kh - 1) * dh + 1, (kw - 1) * dw + 1))
    c_per_dg = c // deformable_groups
    off = offset_np.reshape(n, deformable_groups, kh, kw, 2, oh, ow).astype("float64")

    def sample(img, y, x):  # img (C', H, W) -> (C',)
        if y < 0 or x < 0 or y >= h or x >= w:
            return 0.0
        y0, x0 = int(np.floor(y)), int(np.floor(x))
        val = 0.0
        for yp, wy in ((y0, 1 - (y - y0)), (y0 + 1, y - y0)):
            for xp, wx in ((x0, 1 - (x - x0)), (x0 + 1, x - x0)):
                if 0 <= yp < h and 0 <= xp < w:
                    val = val + wy * wx * img[:, yp, xp]
        return val

    cols = np.zeros((n, c, kh, kw, oh, ow))
    for b, i, j, y, x in np.ndindex(n, kh, kw, oh, ow):
        for g in range(deformable_groups):
            dy, dx = off[b, g, i, j, :, y, x]
            chans = slice(g * c_per_dg, (g + 1) * c_per_dg)
            cols[b, chans, i, j, y, x] = sample(a_np[b, chans].astype("float64"),
                                                y * sh - top + i * dh + dy,
                                                x * sw - left + j * dw + dx)
    out = np.zeros((n, o, oh, ow))
    og = o // groups
    for g in range(groups):
        out[:, g * og:(g + 1) * og] = np.einsum(
            "ncijyx,ocij->noyx", cols[:, g * cg:(g + 1) * cg], w_np[g * og:(g + 1) * og])
    return out.astype(a_np.dtype)


def deformable_conv2d_nhwc_python(a_np, offset_np, w_np, stride, padding, dilation,
                                  deformable_groups, groups) -> np.ndarray:
    """:func:`deformable_conv2d_nchw_python` of NHWC data, an NHWC offset and an HWIO
    weight; the output is NHWC."""
    out = deformable_conv2d_nchw_python(a_np.transpose(0, 3, 1, 2),
                                        offset_np.transpose(0, 3, 1, 2),
                                        w_np.transpose(3, 2, 0, 1), stride, padding, dilation,
                                        deformable_groups, groups)
    return out.transpose(0, 2, 3, 1)


def correlation_nchw_python(a_np, b_np, kernel_size, max_displacement, stride1, stride2,
                            padding, is_multiply) -> np.ndarray:
    """FlowNet correlation: output ``(n, q, i, j)`` is the mean over channels and the
    ``kernel_size`` window centred at ``border + (i, j) * stride1`` of the padded inputs of
    ``a * b`` (or ``|a - b|``), ``b`` displaced by ``(q // D - r, q % D - r) * stride2``."""
    pads = [padding] * 4 if isinstance(padding, int) else \
        list(padding) * 2 if len(padding) == 2 else list(padding)
    top, left, bottom, right = pads
    n, c, h, w = a_np.shape
    widths = ((0, 0), (0, 0), (top, bottom), (left, right))
    pa, pb = np.pad(a_np, widths), np.pad(b_np, widths)
    kr = (kernel_size - 1) // 2
    border = max_displacement + kr
    r = max_displacement // stride2
    d = 2 * r + 1
    out_h = -(-(h + top + bottom - 2 * border) // stride1)
    out_w = -(-(w + left + right - 2 * border) // stride1)
    out = np.zeros((n, d * d, out_h, out_w), a_np.dtype)
    for q in range(d * d):
        dy, dx = (q // d - r) * stride2, (q % d - r) * stride2
        for i in range(out_h):
            for j in range(out_w):
                cy, cx = border + i * stride1, border + j * stride1
                win_a = pa[:, :, cy - kr:cy + kr + 1, cx - kr:cx + kr + 1]
                win_b = pb[:, :, cy + dy - kr:cy + dy + kr + 1, cx + dx - kr:cx + dx + kr + 1]
                v = win_a * win_b if is_multiply else np.abs(win_a - win_b)
                out[:, q, i, j] = v.sum(axis=(1, 2, 3)) / (kernel_size * kernel_size * c)
    return out


def lstm_python(Xs, Wi, Wh, Bi=None, Bh=None, h_init=None, c_init=None, proj=None, p_i=None,
                p_f=None, p_o=None, f_act=None, g_act=None, h_act=None, reverse=False,
                weight_layout: str = "IFGO"):
    """``topi.nn.lstm`` step by step in numpy: returns the hidden and cell states
    ``(seq_len, batch, out_dim)`` and ``(seq_len, batch, hidden)``."""
    def sigmoid(x):
        return 1 / (1 + np.exp(-x))
    f_act, g_act, h_act = f_act or sigmoid, g_act or np.tanh, h_act or np.tanh
    seq_len, batch, _ = Xs.shape
    hidden = Wi.shape[0] // 4
    out_dim = proj.shape[0] if proj is not None else hidden
    h = np.zeros((batch, out_dim), Xs.dtype) if h_init is None else h_init
    c = np.zeros((batch, hidden), Xs.dtype) if c_init is None else c_init
    gate = {g: slice(weight_layout.index(g) * hidden, (weight_layout.index(g) + 1) * hidden)
            for g in "IFGO"}
    hs, cs = [], []
    for step in range(seq_len):
        x = Xs[seq_len - 1 - step if reverse else step]
        z = x @ Wi.T + h @ Wh.T
        if Bi is not None:
            z = z + Bi
        if Bh is not None:
            z = z + Bh
        peep = p_i is not None and p_f is not None
        i = f_act(z[:, gate["I"]] + (p_i * c if peep else 0))
        f = f_act(z[:, gate["F"]] + (p_f * c if peep else 0))
        c = f * c + i * g_act(z[:, gate["G"]])
        o = f_act(z[:, gate["O"]] + (p_o * c if p_o is not None else 0))
        h = o * h_act(c)
        if proj is not None:
            h = h @ proj.T
        hs.append(h)
        cs.append(c)
    return np.stack(hs), np.stack(cs)


def _spatial_first(layout: str) -> list:
    """The axes of ``layout`` ordered N, C, then its spatial axes in D, H, W order."""
    spatial = [c for c in "DHW" if c in layout]
    if sorted(layout) != sorted("NC" + "".join(spatial)):
        raise ValueError(f"poolnd_python: unsupported layout {layout!r}")
    return [layout.index(c) for c in "NC" + "".join(spatial)]


def poolnd_python(np_data, kernel, strides, dilation, padding_before, padding_after,
                  pool_type, count_include_pad=True, ceil_mode=False, dtype="float32",
                  layout=None) -> np.ndarray:
    """1-, 2- or 3-D pooling as classic TOPI's reference computes it: output extent
    ``floor`` (``ceil`` with ``ceil_mode``) of ``(size + pads - dilated kernel) / stride``
    plus one; each window is the part of the padded input it covers; padding counts as 0
    (as the minimum value for a max pool without ``count_include_pad``); an average divides
    by the covered padded window (``count_include_pad``) or its input elements (0 if none).
    ``layout`` names N, C and the spatial axes (default: N, C first)."""
    perm = _spatial_first(layout) if layout else list(range(np_data.ndim))
    data = np_data.transpose(perm)
    nd = data.ndim - 2
    out_shape = list(data.shape[:2])
    for i in range(nd):
        span = (data.shape[2 + i] - (kernel[i] - 1) * dilation[i] - 1 + padding_before[i]
                + padding_after[i]) / strides[i]
        out_shape.append(int(math.ceil(span) if ceil_mode else math.floor(span)) + 1)
    fill = 0
    if pool_type == "max" and not count_include_pad:
        fill = np.finfo(dtype).min if np.dtype(dtype).kind == "f" else np.iinfo(dtype).min
    padded_shape = list(data.shape[:2]) + [data.shape[2 + i] + padding_before[i]
                                           + padding_after[i] for i in range(nd)]
    padded = np.full(padded_shape, fill, dtype=dtype)
    inside = np.zeros(padded_shape[2:], dtype=bool)
    region = tuple(slice(padding_before[i], padding_before[i] + data.shape[2 + i])
                   for i in range(nd))
    padded[(slice(None), slice(None)) + region] = data
    inside[region] = True
    out = np.zeros(out_shape, dtype=dtype)
    axes = tuple(range(2, 2 + nd))
    for coord in itertools.product(*[range(o) for o in out_shape[2:]]):
        window = tuple(slice(o * strides[i], o * strides[i] + (kernel[i] - 1) * dilation[i] + 1,
                             dilation[i]) for i, o in enumerate(coord))
        values = padded[(slice(None), slice(None)) + window]
        at = (slice(None), slice(None)) + coord
        if pool_type == "max":
            out[at] = values.max(axis=axes)
        elif pool_type == "avg":
            count = values[0, 0].size if count_include_pad else int(inside[window].sum())
            out[at] = values.sum(axis=axes) / count if count else 0
        else:
            raise ValueError(f"poolnd_python: pool type {pool_type!r} is not supported")
    return out.transpose(np.argsort(perm)) if layout else out


def _pool2d_pytorch_rules(np_data, kernel, strides, dilation, padding_before, padding_after,
                          pool_type, count_include_pad=True, ceil_mode=False,
                          dtype="float32") -> np.ndarray:
    """2-D pooling of an NCHW array with PyTorch's (and ONNX's) rules for ``ceil_mode`` (no
    window starts in the bottom/right padding) and the average divisor."""
    n, c, h, w = np_data.shape
    outs = []
    for size, k, s, d, lo, hi in zip((h, w), kernel, strides, dilation, padding_before,
                                     padding_after):
        span = size + lo + hi - (k - 1) * d - 1
        o = (-(-span // s) if ceil_mode else span // s) + 1
        if ceil_mode and (o - 1) * s >= size + lo:
            o -= 1
        outs.append(o)
    out = np.zeros((n, c, outs[0], outs[1]), dtype)
    for i in range(outs[0]):
        for j in range(outs[1]):
            ys = [i * strides[0] - padding_before[0] + t * dilation[0] for t in range(kernel[0])]
            xs = [j * strides[1] - padding_before[1] + t * dilation[1] for t in range(kernel[1])]
            vy = [y for y in ys if 0 <= y < h]
            vx = [x for x in xs if 0 <= x < w]
            win = np_data[:, :, vy][:, :, :, vx]
            if pool_type == "max":
                out[:, :, i, j] = win.max(axis=(2, 3)) if win.size else np.finfo(dtype).min
                continue
            if count_include_pad:
                cy = sum(-padding_before[0] <= y < h + padding_after[0] for y in ys)
                cx = sum(-padding_before[1] <= x < w + padding_after[1] for x in xs)
            else:
                cy, cx = len(vy), len(vx)
            out[:, :, i, j] = win.sum(axis=(2, 3)) / max(cy * cx, 1)
    return out


def pool2d_ref(np_data, kernel, strides, dilation, padding, pool_type, ceil_mode=False,
               count_include_pad=True) -> np.ndarray:
    """2-D NCHW pooling with ``topi.nn.pool2d``'s ``(top, left, bottom, right)`` padding and
    PyTorch's (ONNX's) rules, which tvmlite's ``pool2d`` follows."""
    return _pool2d_pytorch_rules(np_data, kernel, strides, dilation, padding[:2], padding[2:],
                                 pool_type, count_include_pad, ceil_mode)


def adaptive_pool(np_data, out_size, pool_type, layout="NCHW") -> np.ndarray:
    """Adaptive 1-, 2- or 3-D pooling in ``layout`` (N, C and the spatial axes, e.g. "NHWC",
    "NCDHW"): output ``o`` of an axis of ``n`` inputs pools ``[floor(o*n/O), ceil((o+1)*n/O))``."""
    perm = _spatial_first(layout)
    data = np_data.transpose(perm)
    out_size = (out_size,) if isinstance(out_size, int) else tuple(out_size)
    out = np.zeros(data.shape[:2] + out_size, np_data.dtype)
    sizes = data.shape[2:]
    axes = tuple(range(2, data.ndim))
    for coord in itertools.product(*[range(o) for o in out_size]):
        window = tuple(slice((o * n) // on, -(-(o + 1) * n // on))
                       for o, n, on in zip(coord, sizes, out_size))
        win = data[(slice(None), slice(None)) + window]
        out[(slice(None), slice(None)) + coord] = win.max(axis=axes) if pool_type == "max" \
            else win.mean(axis=axes)
    return out.transpose(np.argsort(perm))


def softmax_python(a_np, axis=1) -> np.ndarray:
    """Softmax along ``axis``."""
    e = np.exp(a_np - a_np.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def log_softmax_python(a_np, axis=1) -> np.ndarray:
    """Log-softmax along ``axis``."""
    m = a_np - a_np.max(axis=axis, keepdims=True)
    return m - np.log(np.exp(m).sum(axis=axis, keepdims=True))


def batch_norm(x, gamma, beta, moving_mean, moving_var, axis, epsilon, center, scale,
               training=False, momentum=0.1):
    """Batch norm along ``axis``; returns ``[out, new_moving_mean, new_moving_var]``. In
    training the batch mean and biased variance normalize and update the moving ones by
    ``momentum``."""
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]
    if training:
        others = tuple(d for d in range(x.ndim) if d != axis)
        mean, var = x.mean(axis=others), x.var(axis=others)
    else:
        mean, var = moving_mean, moving_var
    out = (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + epsilon)
    if scale:
        out = out * gamma.reshape(shape)
    if center:
        out = out + beta.reshape(shape)
    if training:
        return [out, (1 - momentum) * moving_mean + momentum * mean,
                (1 - momentum) * moving_var + momentum * var]
    return [out, moving_mean, moving_var]


def layer_norm_python(data, gamma, beta, axis, epsilon=1e-5) -> np.ndarray:
    """Layer norm over ``axis`` (gamma and beta have those axes' shape)."""
    axis = tuple(axis) if not isinstance(axis, int) else (axis,)
    mean = data.mean(axis=axis, keepdims=True)
    var = data.var(axis=axis, keepdims=True)
    keep = [1 if k in [a % data.ndim for a in axis] else 0 for k in range(data.ndim)]
    shape = [d if k else 1 for d, k in zip(data.shape, keep)]
    return (data - mean) / np.sqrt(var + epsilon) * gamma.reshape(shape) + beta.reshape(shape)


def lrn_python(a_np, size, axis, bias, alpha, beta) -> np.ndarray:
    """Local response normalisation across ``axis``."""
    radius = size // 2
    sq = np.moveaxis(a_np, axis, 0) ** 2
    acc = np.zeros_like(sq)
    for k in range(sq.shape[0]):
        acc[k] = sq[max(0, k - radius):k + radius + 1].sum(axis=0)
    acc = np.moveaxis(acc, 0, axis)
    return a_np / (bias + alpha * acc / size) ** beta


def l2_normalize_python(a_np, eps, axis=None) -> np.ndarray:
    """``a / sqrt(max(sum(a^2 over axis), eps))`` (all axes when ``axis`` is None)."""
    axis = None if axis is None else tuple(np.atleast_1d(axis).tolist())
    ssum = np.sum(a_np.astype("float64") ** 2, axis=axis, keepdims=True)
    return (a_np / np.sqrt(np.maximum(ssum, eps))).astype(a_np.dtype)


def _axes_of(layout: str, letters: str):
    """Positions of ``letters`` in ``layout`` ("NCHW", "NDHWC", "NCHW16c" ...)."""
    names = [c for c, _ in parse_layout(layout, "resize reference")]
    return tuple(names.index(c) for c in letters)


def _hw_axes(layout: str):
    return _axes_of(layout, "HW")


def _cubic_weights_np(t, alpha):
    """The four cubic-convolution weights of fractions ``t`` (taps at -1, 0, 1, 2)."""
    t2, t3 = t * t, t * t * t
    return [alpha * (t3 - 2 * t2 + t), (alpha + 2) * t3 - (3 + alpha) * t2 + 1,
            -(alpha + 2) * t3 + (3 + 2 * alpha) * t2 - alpha * t, -alpha * t3 + alpha * t2]


def _resize_python(data, scale, layout, letters, method, mode, alpha=-0.5,
                   exclude=False) -> np.ndarray:
    """Resize the ``letters`` axes one after the other (nearest, or linear / cubic: these
    interpolations are separable)."""
    out = data.astype("float64")
    method = {"bilinear": "linear", "trilinear": "linear", "bicubic": "cubic"}.get(method,
                                                                                  method)
    for axis, s in zip(_axes_of(layout, letters), scale):
        n_in = data.shape[axis]
        n_out = int(round(n_in * s))
        o = np.arange(n_out, dtype="float64")
        if mode == "align_corners":
            c = o * ((n_in - 1) / (n_out - 1) if n_out > 1 else 0.0)
        elif mode == "asymmetric":
            c = o * n_in / n_out
        elif mode == "pytorch_half_pixel" and n_out == 1:
            c = np.zeros(1)
        else:
            c = (o + 0.5) * n_in / n_out - 0.5
        if method == "nearest_neighbor":
            near = np.floor(c + 0.5) if mode == "align_corners" else np.floor(c)
            out = np.take(out, np.clip(near, 0, n_in - 1).astype(int), axis=axis)
            continue
        lo = np.floor(c)
        t = c - lo
        if method == "linear":
            offsets, weights = (0, 1), [1 - t, t]
        else:
            offsets, weights = (-1, 0, 1, 2), _cubic_weights_np(t, alpha)
            if exclude:
                weights = [np.where((lo + k < 0) | (lo + k >= n_in), 0.0, w)
                           for k, w in zip(offsets, weights)]
                total = sum(weights)
                weights = [w / total for w in weights]
        shape = [-1 if k == axis else 1 for k in range(out.ndim)]
        out = sum(np.take(out, np.clip(lo + k, 0, n_in - 1).astype(int), axis=axis)
                  * w.reshape(shape) for k, w in zip(offsets, weights))
    return out.astype(data.dtype)


def resize1d_python(data, scale, layout="NCW", method="nearest_neighbor",
                    coordinate_transformation_mode="align_corners") -> np.ndarray:
    """Resize the W axis of an array in ``layout`` by ``scale = (sw,)`` (see
    :func:`resize2d_python`)."""
    return _resize_python(data, scale, layout, "W", method, coordinate_transformation_mode)


def resize2d_python(data, scale, layout="NCHW", method="nearest_neighbor",
                    coordinate_transformation_mode="align_corners") -> np.ndarray:
    """Resize the H and W axes of an array in ``layout`` (any layout naming them) by ``scale
    = (sh, sw)`` (output ``round(size * scale)``), nearest (floor, or round for
    align_corners), bilinear or bicubic ("cubic", spline coefficient -0.5)."""
    return _resize_python(data, scale, layout, "HW", method, coordinate_transformation_mode)


def resize3d_python(data, scale, layout="NCDHW", method="nearest_neighbor",
                    coordinate_transformation_mode="align_corners") -> np.ndarray:
    """Resize the D, H and W axes of an array in ``layout`` by ``scale = (sd, sh, sw)``
    (trilinear for "linear"; see :func:`resize2d_python`)."""
    return _resize_python(data, scale, layout, "DHW", method, coordinate_transformation_mode)


def crop_and_resize_python(image, boxes, box_indices, crop_size, layout,
                           method="bilinear", extrapolation_value=0) -> np.ndarray:
    """Crop ``boxes`` (rows y1, x1, y2, x2 as fractions of the image) out of
    ``image[box_indices]`` and resize each to ``crop_size`` ("bilinear" or
    "nearest_neighbor", corners aligned); samples outside the image are
    ``extrapolation_value``. ``layout`` "NHWC" or "NCHW"."""
    img = np.moveaxis(image, 1, 3) if layout == "NCHW" else image
    h, w = img.shape[1], img.shape[2]
    th, tw = (int(v) for v in crop_size)
    out = np.empty((len(boxes), th, tw, img.shape[3]), dtype="float64")
    for b, (y1, x1, y2, x2) in enumerate(np.asarray(boxes, dtype="float64")):
        ys = y1 * (h - 1) + np.arange(th) * ((h - 1) * (y2 - y1) / (th - 1) if th > 1 else 0)
        xs = x1 * (w - 1) + np.arange(tw) * ((w - 1) * (x2 - x1) / (tw - 1) if tw > 1 else 0)
        src = img[box_indices[b]].astype("float64")
        if method == "nearest_neighbor":
            yi = np.clip(np.round(ys), 0, h - 1).astype(int)
            xi = np.clip(np.round(xs), 0, w - 1).astype(int)
            res = src[yi][:, xi]
        else:
            y0, x0 = np.floor(ys), np.floor(xs)
            ty, tx = (ys - y0)[:, None, None], (xs - x0)[None, :, None]
            y0i, y1i = (np.clip(v, 0, h - 1).astype(int) for v in (y0, y0 + 1))
            x0i, x1i = (np.clip(v, 0, w - 1).astype(int) for v in (x0, x0 + 1))
            top = src[y0i][:, x0i] * (1 - tx) + src[y0i][:, x1i] * tx
            bottom = src[y1i][:, x0i] * (1 - tx) + src[y1i][:, x1i] * tx
            res = top * (1 - ty) + bottom * ty
        outside = ((ys < 0) | (ys > h - 1))[:, None] | ((xs < 0) | (xs > w - 1))[None, :]
        out[b] = np.where(outside[:, :, None], extrapolation_value, res)
    out = out.astype(image.dtype)
    return np.moveaxis(out, 3, 1) if layout == "NCHW" else out


def upsampling_python(data, scale, layout="NCHW") -> np.ndarray:
    """Nearest-neighbour upsampling by integer ``scale = (sh, sw)`` in ``layout``."""
    hax, wax = _hw_axes(layout)
    return data.repeat(int(scale[0]), axis=hax).repeat(int(scale[1]), axis=wax)


def batch_matmul(x, y, out_dtype=None, trans_x=False, trans_y=True) -> np.ndarray:
    """Batched matrix product with a broadcast batch of 1."""
    a = x.transpose(0, 2, 1) if trans_x else x
    b = y.transpose(0, 2, 1) if trans_y else y
    out = np.matmul(a, b)
    return out.astype(out_dtype) if out_dtype else out


def strided_slice_python(data, begin, end, strides, slice_mode="end", axes=None):
    """numpy slicing with ``topi.strided_slice``'s arguments."""
    axes = list(range(len(begin))) if axes is None else list(axes)
    sl = [slice(None)] * data.ndim
    for k, ax in enumerate(axes):
        s = strides[k] if strides is not None and k < len(strides) else 1
        if slice_mode == "size":
            b = begin[k]
            sl[ax] = slice(b, None if end[k] < 0 else b + end[k])
        else:
            sl[ax] = slice(begin[k], end[k] if k < len(end) else None, s)
    return data[tuple(sl)]


def pack_nchwc(x: np.ndarray, bn: int) -> np.ndarray:
    """``(N, C, H, W)`` -> ``(N, C // bn, H, W, bn)`` (layout ``NCHW{bn}c``)."""
    n, c, h, w = x.shape
    return np.ascontiguousarray(x.reshape(n, c // bn, bn, h, w).transpose(0, 1, 3, 4, 2))


def unpack_nchwc(y: np.ndarray) -> np.ndarray:
    """``(N, C // bn, H, W, bn)`` -> ``(N, C, H, W)``."""
    n, cc, h, w, bn = y.shape
    return y.transpose(0, 1, 4, 2, 3).reshape(n, cc * bn, h, w)


def pack_oihw(w: np.ndarray, ic_bn: int, oc_bn: int) -> np.ndarray:
    """Kernel ``(O, I, KH, KW)`` -> ``(O // oc_bn, I // ic_bn, KH, KW, ic_bn, oc_bn)`` (layout
    ``OIHW{ic_bn}i{oc_bn}o``, the kernel of ``conv2d_NCHWc``)."""
    f, c, kh, kw = w.shape
    return np.ascontiguousarray(
        w.reshape(f // oc_bn, oc_bn, c // ic_bn, ic_bn, kh, kw).transpose(0, 2, 4, 5, 3, 1))


def pack_depthwise_kernel(w: np.ndarray, oc_bn: int) -> np.ndarray:
    """Depthwise kernel ``(C, M, KH, KW)`` -> ``(C * M // oc_bn, 1, KH, KW, 1, oc_bn)`` (the
    kernel of ``depthwise_conv2d_NCHWc``; output channel ``c * M + m``)."""
    c, m, kh, kw = w.shape
    w2 = w.reshape(c * m // oc_bn, oc_bn, kh, kw).transpose(0, 2, 3, 1)
    return np.ascontiguousarray(w2[:, None, :, :, None, :])


def conv_nd_python(x, w, stride, pad_lo, pad_hi, dilation, groups=1) -> np.ndarray:
    """N-D grouped convolution of ``(N, C, ...)`` data with an ``(F, C // groups, ...)``
    kernel: a sum over kernel offsets of strided slices."""
    nd = x.ndim - 2
    x = np.pad(x, [(0, 0), (0, 0)] + list(zip(pad_lo, pad_hi)))
    f, cg, *ks = w.shape
    outs = [(x.shape[2 + j] - (ks[j] - 1) * dilation[j] - 1) // stride[j] + 1
            for j in range(nd)]
    out = np.zeros((x.shape[0], f, *outs), "float64")
    fg = f // groups
    for g in range(groups):
        xg, wg = x[:, g * cg:(g + 1) * cg], w[g * fg:(g + 1) * fg]
        for kpos in np.ndindex(*ks):
            sl = tuple(slice(kpos[j] * dilation[j],
                             kpos[j] * dilation[j] + (outs[j] - 1) * stride[j] + 1, stride[j])
                       for j in range(nd))
            out[:, g * fg:(g + 1) * fg] += np.einsum(
                "nc...,fc->nf...", xg[(slice(None), slice(None)) + sl],
                wg[(slice(None), slice(None)) + kpos])
    return out.astype(x.dtype)


def _pads(padding, kernel):
    return get_pad_tuple_generic(padding, list(kernel))


def group_conv1d_ncw_python(a_np, w_np, stride, padding, dilation, groups) -> np.ndarray:
    """Grouped 1-D convolution, NCW data, OIW kernel."""
    s = stride if isinstance(stride, (list, tuple)) else [stride]
    d = dilation if isinstance(dilation, (list, tuple)) else [dilation]
    lo, hi = _pads(padding, [(w_np.shape[2] - 1) * d[0] + 1])
    return conv_nd_python(a_np, w_np, s, lo, hi, d, groups)


def conv1d_ncw_python(a_np, w_np, stride, padding, dilation) -> np.ndarray:
    """1-D convolution, NCW data, OIW kernel."""
    return group_conv1d_ncw_python(a_np, w_np, stride, padding, dilation, 1)


def conv3d_ncdhw_python(a_np, w_np, stride, padding, groups=1) -> np.ndarray:
    """3-D convolution, NCDHW data, OIDHW kernel."""
    s = list(stride) if isinstance(stride, (list, tuple)) else [stride] * 3
    lo, hi = _pads(padding, w_np.shape[2:])
    return conv_nd_python(a_np, w_np, s, lo, hi, [1, 1, 1], groups)


def conv3d_ndhwc_python(a_np, w_np, stride, padding, groups=1) -> np.ndarray:
    """3-D convolution, NDHWC data, DHWIO kernel."""
    out = conv3d_ncdhw_python(a_np.transpose(0, 4, 1, 2, 3), w_np.transpose(4, 3, 0, 1, 2),
                              stride, padding, groups)
    return out.transpose(0, 2, 3, 4, 1)


def instance_norm_python(data, gamma, beta, axis, epsilon=1e-5) -> np.ndarray:
    """Instance norm: layer norm over ``axis``."""
    return layer_norm_python(data, gamma, beta, axis, epsilon)


def group_norm_python(data, gamma, beta, num_groups, channel_axis, axes, epsilon=1e-5):
    """Group norm: each group of channels normalised over its channels and ``axes``."""
    x = np.moveaxis(data, channel_axis, 1)
    axes = [a % data.ndim for a in axes]
    perm = [a for a in range(data.ndim) if a != channel_axis % data.ndim]
    red_after = [perm.index(a) + 1 for a in axes]  # positions in x (channel at 1)
    xs = x.reshape(x.shape[0], num_groups, -1, *x.shape[2:])
    red = (2,) + tuple(p + 1 for p in red_after)
    mean, var = xs.mean(red, keepdims=True), xs.var(red, keepdims=True)
    norm = ((xs - mean) / np.sqrt(var + epsilon)).reshape(x.shape)
    shape = [1] * x.ndim
    shape[1] = x.shape[1]
    return np.moveaxis(norm * gamma.reshape(shape) + beta.reshape(shape), 1, channel_axis)


def depth_to_space_python(data, block_size, mode="DCR") -> np.ndarray:
    """NCHW depth to space."""
    n, c, h, w = data.shape
    b = block_size
    if mode == "DCR":
        y = data.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    else:
        y = data.reshape(n, c // (b * b), b, b, h, w).transpose(0, 1, 4, 2, 5, 3)
    return y.reshape(n, c // (b * b), h * b, w * b)


def space_to_depth_python(data, block_size) -> np.ndarray:
    """NCHW space to depth (the inverse of DCR depth to space)."""
    n, c, h, w = data.shape
    b = block_size
    y = data.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4)
    return y.reshape(n, c * b * b, h // b, w // b)


def nll_loss(predictions, targets, weights, reduction: str = "mean",
             ignore_index: int = -100) -> np.ndarray:
    """``topi.nn.nll_loss``: ``-predictions[n, t, i...] * weights[t]`` per target
    ``t = targets[n, i...]`` (0 where ignored), then "mean" (over the summed weights), "sum"
    or "none"."""
    predictions, targets = np.asarray(predictions), np.asarray(targets)
    moved = np.moveaxis(predictions, 1, -1) if predictions.ndim > 1 else predictions
    keep = targets != ignore_index
    safe = np.where(keep, targets, 0)
    picked = np.take_along_axis(moved, safe[..., None], axis=-1)[..., 0]
    w = np.where(keep, np.asarray(weights)[safe], 0).astype(predictions.dtype)
    losses = np.where(keep, -picked * w, 0).astype(predictions.dtype)
    if reduction == "mean":
        return np.sum(losses) / np.sum(w)
    if reduction == "sum":
        return np.sum(losses)
    return losses
