"""Bit-serial operators (classic ``topi.nn.bitpack``, ``bitserial_dense``,
``bitserial_conv2d_nchw`` / ``_nhwc``): low-bit integers split into bit planes packed into
unsigned words, multiplied with ``popcount(a & b)`` shifted by the planes' weights.

With ``unipolar`` the weight's bits stand for +1 / -1 (``popcount(a & w) - popcount(a & ~w)``),
else for 1 / 0. Only the low ``bits`` bits of each value take part.
"""
from __future__ import annotations

from typing import List

from ...te.operation import compute, reduce_axis
from ...te.tensor import Tensor
from ...tir import const
from ...tir import op as _op
from ..utils import TopiError, get_const_int, get_const_tuple
from .pad import pad
from .utils import get_pad_tuple

_WORD_BITS = {"uint8": 8, "uint16": 16, "uint32": 32, "uint64": 64}


def _word_bits(op: str, pack_type: str) -> int:
    if pack_type not in _WORD_BITS:
        raise TopiError(f"{op}: pack type must be one of {sorted(_WORD_BITS)}, got "
                        f"{pack_type!r}")
    return _WORD_BITS[pack_type]


def bitpack(data: Tensor, bits: int, pack_axis: int, bit_axis: int, pack_type: str,
            name: str = "QuantizeInput") -> Tensor:
    """Bit planes of ``data`` packed along ``pack_axis``: the axis shrinks by the word size
    (element ``k`` of a group in bit ``word - 1 - k``) and a new axis of ``bits`` planes
    (plane ``b`` holds bit ``b`` of each value) is inserted at ``bit_axis`` of the output.
    Tag "bitpack"."""
    op = "bitpack"
    width = _word_bits(op, pack_type)
    shape = list(data.shape)
    ndim = len(shape)
    if not 0 <= pack_axis < ndim or not 0 <= bit_axis <= ndim:
        raise TopiError(f"{op}: pack_axis {pack_axis} / bit_axis {bit_axis} out of range for "
                        f"{ndim}-D data")
    if not 1 <= int(bits) <= 8:
        raise TopiError(f"{op}: bits must be 1 to 8, got {bits}")
    extent = get_const_int(shape[pack_axis])
    if extent % width:
        raise TopiError(f"{op}: axis {pack_axis} of size {extent} is not a multiple of the "
                        f"{width} bits of {pack_type}")
    out_shape = list(shape)
    out_shape[pack_axis] = extent // width
    out_shape.insert(bit_axis, int(bits))

    def word(*idx):
        plane = idx[bit_axis]
        rest = list(idx[:bit_axis]) + list(idx[bit_axis + 1:])
        value = const(0, pack_type)
        for k in range(width):
            src = list(rest)
            src[pack_axis] = rest[pack_axis] * width + k
            bit = ((data[tuple(src)].astype("int32") >> plane.astype("int32")) & 1)
            value = value | (bit.astype(pack_type) << const(width - 1 - k, pack_type))
        return value
    return compute(tuple(out_shape), word, name=name, tag="bitpack")


def _bit_product(a, w, unipolar: bool, out_dtype: str):
    """``popcount(a & w)`` (minus ``popcount(a & ~w)`` when ``unipolar``) in ``out_dtype``
    (the counts are unsigned words: they are cast before subtracting)."""
    both = _op.popcount(a & w).astype(out_dtype)
    if unipolar:
        both = both - _op.popcount(a & ~w).astype(out_dtype)
    return both


def bitserial_dense(data: Tensor, weight: Tensor, data_bits: int, weight_bits: int,
                    pack_dtype: str = "uint32", out_dtype: str = "int16",
                    unipolar: bool = True) -> Tensor:
    """``data (batch, in_dim) x weight (out_dim, in_dim)^T`` bit-serially (``in_dim`` a
    multiple of the word size; a 3-D weight ``(out_dim, weight_bits, in_dim / word)`` is
    taken as packed). Tag "bitserial_dense" ("bitserial_dense_unipolar")."""
    op = "bitserial_dense"
    if data.ndim != 2 or weight.ndim not in (2, 3):
        raise TopiError(f"{op}: data must be 2-D and weight 2-D (or packed 3-D), got "
                        f"{data.ndim}-D and {weight.ndim}-D")
    dp = bitpack(data, data_bits, 1, 1, pack_dtype, name="data_packed")
    wp = weight if weight.ndim == 3 else bitpack(weight, weight_bits, 1, 1, pack_dtype,
                                                 name="weight_packed")
    y, db_n, k_n = get_const_tuple(dp.shape)
    x, wb_n, k_w = get_const_tuple(wp.shape)
    if k_n != k_w:
        raise TopiError(f"{op}: data and weight disagree on in_dim ({k_n} vs {k_w} words)")
    k = reduce_axis((0, k_n), name="k")
    db = reduce_axis((0, db_n), name="db")
    wb = reduce_axis((0, wb_n), name="wb")
    return compute((y, x), lambda i, j: _op.sum(
        _bit_product(dp[i, db, k], wp[j, wb, k], unipolar, out_dtype)
        << (db + wb).astype(out_dtype), axis=[wb, db, k]),
        name="bitserial_dense", tag="bitserial_dense_unipolar" if unipolar
        else "bitserial_dense")


def _bitserial_conv2d(op: str, data: Tensor, kernel: Tensor, stride, padding,
                      activation_bits: int, weight_bits: int, pack_dtype: str, out_dtype: str,
                      unipolar: bool, nhwc: bool) -> Tensor:
    if data.ndim != 4 or kernel.ndim != 4:
        layouts = "NHWC, HWIO" if nhwc else "NCHW, OIHW"
        raise TopiError(f"{op}: data and kernel must be 4-D ({layouts}; prepacked kernels "
                        f"are not supported), got {data.ndim}-D and {kernel.ndim}-D")
    sh, sw = (stride, stride) if isinstance(stride, int) else tuple(stride)
    if nhwc:
        n, h, w, c = get_const_tuple(data.shape)
        kh, kw, ci, co = get_const_tuple(kernel.shape)
        dq = bitpack(data, activation_bits, 3, 3, pack_dtype, name="data_q")  # N,H,W,AB,C/
        kq = bitpack(kernel, weight_bits, 2, 2, pack_dtype, name="kernel_q")  # KH,KW,WB,I/,O
    else:
        n, c, h, w = get_const_tuple(data.shape)
        co, ci, kh, kw = get_const_tuple(kernel.shape)
        dq = bitpack(data, activation_bits, 1, 1, pack_dtype, name="data_q")  # N,AB,C/,H,W
        kq = bitpack(kernel, weight_bits, 1, 1, pack_dtype, name="kernel_q")  # O,WB,I/,KH,KW
    if ci != c:
        raise TopiError(f"{op}: the kernel takes {ci} input channels, the data has {c}")
    top, left, bottom, right = get_pad_tuple(padding, (kh, kw))
    oh = (h + top + bottom - kh) // sh + 1
    ow = (w + left + right - kw) // sw + 1
    if nhwc:
        dp = pad(dq, [0, top, left, 0, 0], [0, bottom, right, 0, 0], name="data_pad")
    else:
        dp = pad(dq, [0, 0, 0, top, left], [0, 0, 0, bottom, right], name="data_pad")
    words = get_const_int(dq.shape[4 if nhwc else 2])
    rc = reduce_axis((0, words), name="rc")
    ry = reduce_axis((0, kh), name="ry")
    rx = reduce_axis((0, kw), name="rx")
    ab = reduce_axis((0, int(activation_bits)), name="ab")
    wb = reduce_axis((0, int(weight_bits)), name="wb")
    axes: List = [ry, rx, rc, ab, wb]
    shift = (ab + wb).astype(out_dtype)
    tag = "spatial_bitserial_conv_" + ("nhwc" if nhwc else "nchw")
    if nhwc:
        return compute((n, oh, ow, co), lambda b, y, x, o: _op.sum(
            _bit_product(dp[b, y * sh + ry, x * sw + rx, ab, rc], kq[ry, rx, wb, rc, o],
                         unipolar, out_dtype) << shift, axis=axes),
            name="conv_vec", tag=tag)
    return compute((n, co, oh, ow), lambda b, o, y, x: _op.sum(
        _bit_product(dp[b, ab, rc, y * sh + ry, x * sw + rx], kq[o, wb, rc, ry, rx],
                     unipolar, out_dtype) << shift, axis=axes),
        name="conv_vec", tag=tag)


def bitserial_conv2d_nchw(data: Tensor, kernel: Tensor, stride, padding,
                          activation_bits: int, weight_bits: int, pack_dtype: str = "uint32",
                          out_dtype: str = "int16", unipolar: bool = True) -> Tensor:
    """Bit-serial 2-D convolution: data NCHW, kernel OIHW (channels a multiple of the word
    size) -> NCHW."""
    return _bitserial_conv2d("bitserial_conv2d_nchw", data, kernel, stride, padding,
                             activation_bits, weight_bits, pack_dtype, out_dtype, unipolar,
                             False)


def bitserial_conv2d_nhwc(data: Tensor, kernel: Tensor, stride, padding,
                          activation_bits: int, weight_bits: int, pack_dtype: str = "uint32",
                          out_dtype: str = "int16", unipolar: bool = True) -> Tensor:
    """Bit-serial 2-D convolution: data NHWC, kernel HWIO -> NHWC."""
    return _bitserial_conv2d("bitserial_conv2d_nhwc", data, kernel, stride, padding,
                             activation_bits, weight_bits, pack_dtype, out_dtype, unipolar,
                             True)


__all__ = ["bitpack", "bitserial_dense", "bitserial_conv2d_nchw", "bitserial_conv2d_nhwc"]
