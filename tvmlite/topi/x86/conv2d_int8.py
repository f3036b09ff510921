"""x86 8-bit convolution (classic ``conv2d_nchw_int8.x86``): uint8 or int8 data with an int8
kernel, accumulated in int32 by the CPU's 8-bit dot-product instructions.

The data is packed to ``NCHW{ic_bn}c`` and the kernel to ``OIHW{ic_bn/4}i16o4i`` (input
channels padded with zeros to a multiple of 4, output channels to a multiple of 16), and
:func:`~tvmlite.topi.nn.conv2d_NCHWc_int8` is tensorized: each 16-output-channel tile takes
``ic_bn`` input channels in one call of a C micro-kernel (attached with the ``import_c``
pragma and compiled with the target's ``-march``). The kernel uses ``vpdpbusd`` where the
CPU has AVX-512 VNNI (cascadelake), else ``pmaddubsw`` (SSSE3 / AVX2 / AVX-512BW: nehalem,
core-avx2, skylake-avx512), as classic TVM does. Unlike classic's ``pmaddubsw`` path, whose
int16 pair sums saturate, the data bytes are split into nibbles so that every result is
exact; int8 data is offset to uint8 (``x ^ 0x80``) with the ``128 * sum(w)`` taken back,
which is what classic's int8 x int8 legalization does in relay.
"""
from __future__ import annotations

from ... import tir
from ...target import Target
from ...target.x86 import target_has_sse42
from ...te.operation import compute, placeholder, reduce_axis
from ...te.schedule import Schedule
from ...te.tensor import Tensor
from ...te.tensor_intrin import decl_tensor_intrin
from ...tir import op as _op
from .. import tag
from ..nn.conv2d import conv2d_NCHWc_int8
from ..utils import TopiError, get_const_int, get_const_tuple
from .dense import _inline_and_find
from .utils import largest_factor

#: int32 lanes of one output tile and int8 elements per dot product
OC_BN, N_ELEMS = 16, 4

_KERNEL = r"""
#include <stdint.h>
#include <string.h>
#if defined(__SSSE3__)
#include <immintrin.h>
#endif
/* c[0:16] += sum_{f < nf, s < 4} a[4 f + s] * b[(16 f + i) 4 + s]: a uint8 (int8 when
   a_signed, then taken as (a ^ 0x80) - 128), b int8, exact int32 sums. */
static inline int32_t tvml_i8_ld4(const void* p) { int32_t v; memcpy(&v, p, 4); return v; }
int32_t tvml_x86_i8_dot_16x4(int32_t* c, const void* a, const int8_t* b, int32_t nf,
                             int32_t a_signed) {
  const uint8_t* pa = (const uint8_t*)a;
  const int32_t flip = a_signed ? (int32_t)0x80808080u : 0;
#if defined(__AVX512VNNI__) && defined(__AVX512F__)
  __m512i acc = _mm512_loadu_si512((const void*)c), corr = _mm512_setzero_si512();
  const __m512i vflip = _mm512_set1_epi32(flip);
  for (int32_t f = 0; f < nf; ++f) {
    __m512i w = _mm512_loadu_si512((const void*)(b + 64 * f));
    __m512i x = _mm512_xor_si512(_mm512_set1_epi32(tvml_i8_ld4(pa + 4 * f)), vflip);
    acc = _mm512_dpbusd_epi32(acc, x, w);
    if (a_signed) corr = _mm512_dpbusd_epi32(corr, vflip, w);
  }
  _mm512_storeu_si512((void*)c, _mm512_sub_epi32(acc, corr));
#elif defined(__AVX512BW__)
  __m512i acc = _mm512_loadu_si512((const void*)c);
  const __m512i ones = _mm512_set1_epi16(1), low = _mm512_set1_epi8(0x0F);
  const __m512i one8 = _mm512_set1_epi8(1), vflip = _mm512_set1_epi32(flip);
  for (int32_t f = 0; f < nf; ++f) {
    __m512i w = _mm512_loadu_si512((const void*)(b + 64 * f));
    __m512i x = _mm512_xor_si512(_mm512_set1_epi32(tvml_i8_ld4(pa + 4 * f)), vflip);
    __m512i lo = _mm512_and_si512(x, low);
    __m512i hi = _mm512_and_si512(_mm512_srli_epi16(x, 4), low);
    acc = _mm512_add_epi32(acc, _mm512_madd_epi16(_mm512_maddubs_epi16(lo, w), ones));
    acc = _mm512_add_epi32(acc, _mm512_slli_epi32(
        _mm512_madd_epi16(_mm512_maddubs_epi16(hi, w), ones), 4));
    if (a_signed)
      acc = _mm512_sub_epi32(acc, _mm512_slli_epi32(
          _mm512_madd_epi16(_mm512_maddubs_epi16(one8, w), ones), 7));
  }
  _mm512_storeu_si512((void*)c, acc);
#elif defined(__AVX2__)
  const __m256i ones = _mm256_set1_epi16(1), low = _mm256_set1_epi8(0x0F);
  const __m256i one8 = _mm256_set1_epi8(1), vflip = _mm256_set1_epi32(flip);
  for (int h = 0; h < 2; ++h) {
    __m256i acc = _mm256_loadu_si256((const __m256i*)(c + 8 * h));
    for (int32_t f = 0; f < nf; ++f) {
      __m256i w = _mm256_loadu_si256((const __m256i*)(b + 64 * f + 32 * h));
      __m256i x = _mm256_xor_si256(_mm256_set1_epi32(tvml_i8_ld4(pa + 4 * f)), vflip);
      __m256i lo = _mm256_and_si256(x, low);
      __m256i hi = _mm256_and_si256(_mm256_srli_epi16(x, 4), low);
      acc = _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(lo, w), ones));
      acc = _mm256_add_epi32(acc, _mm256_slli_epi32(
          _mm256_madd_epi16(_mm256_maddubs_epi16(hi, w), ones), 4));
      if (a_signed)
        acc = _mm256_sub_epi32(acc, _mm256_slli_epi32(
            _mm256_madd_epi16(_mm256_maddubs_epi16(one8, w), ones), 7));
    }
    _mm256_storeu_si256((__m256i*)(c + 8 * h), acc);
  }
#elif defined(__SSSE3__)
  const __m128i ones = _mm_set1_epi16(1), low = _mm_set1_epi8(0x0F);
  const __m128i one8 = _mm_set1_epi8(1), vflip = _mm_set1_epi32(flip);
  for (int q = 0; q < 4; ++q) {
    __m128i acc = _mm_loadu_si128((const __m128i*)(c + 4 * q));
    for (int32_t f = 0; f < nf; ++f) {
      __m128i w = _mm_loadu_si128((const __m128i*)(b + 64 * f + 16 * q));
      __m128i x = _mm_xor_si128(_mm_set1_epi32(tvml_i8_ld4(pa + 4 * f)), vflip);
      __m128i lo = _mm_and_si128(x, low);
      __m128i hi = _mm_and_si128(_mm_srli_epi16(x, 4), low);
      acc = _mm_add_epi32(acc, _mm_madd_epi16(_mm_maddubs_epi16(lo, w), ones));
      acc = _mm_add_epi32(acc, _mm_slli_epi32(
          _mm_madd_epi16(_mm_maddubs_epi16(hi, w), ones), 4));
      if (a_signed)
        acc = _mm_sub_epi32(acc, _mm_slli_epi32(
            _mm_madd_epi16(_mm_maddubs_epi16(one8, w), ones), 7));
    }
    _mm_storeu_si128((__m128i*)(c + 4 * q), acc);
  }
#else
  for (int32_t f = 0; f < nf; ++f)
    for (int i = 0; i < 16; ++i)
      for (int s = 0; s < 4; ++s) {
        int32_t x = a_signed ? (int32_t)((const int8_t*)pa)[4 * f + s] : pa[4 * f + s];
        c[i] += x * (int32_t)b[(16 * f + i) * 4 + s];
      }
#endif
  return 0;
}
int32_t tvml_x86_i8_reset_16(int32_t* c) { memset(c, 0, 16 * sizeof(int32_t)); return 0; }
"""


def is_int8_hw_support(data_dtype: str, kernel_dtype: str) -> bool:
    """Whether the current target's CPU runs uint8 x int8 convolutions on its 8-bit
    dot-product instructions (classic: uint8 data, int8 kernel, an -mcpu with SSE4.2 or
    newer)."""
    target = Target.current(allow_none=True)
    return (data_dtype == "uint8" and kernel_dtype == "int8" and target is not None
            and target_has_sse42(target.mcpu))


def int8_conv2d_applicable(data_dtype: str, kernel_dtype: str, out_dtype: str) -> bool:
    """Whether :func:`conv2d_nchw_int8` computes a convolution of these dtypes on this
    target: 8-bit data (int8 data is offset to uint8 as classic's legalization does), an int8
    kernel, int32 accumulation and a CPU with fast 8-bit instructions."""
    return (is_int8_hw_support("uint8", kernel_dtype) and data_dtype in ("uint8", "int8")
            and out_dtype == "int32")


def _dot_intrin(n_f: int, data_dtype: str):
    """``C[i] += sum(A[4 f + s] * B[f, i, s])`` for a 16-lane tile over ``n_f`` groups of
    4 input channels, implemented by the micro-kernel."""
    a = placeholder((n_f * N_ELEMS,), data_dtype, name="a")
    b = placeholder((n_f, OC_BN, N_ELEMS), "int8", name="b")
    rf = reduce_axis((0, n_f), name="f")
    rs = reduce_axis((0, N_ELEMS), name="s")
    c = compute((OC_BN,), lambda i: _op.sum(
        a[rf * N_ELEMS + rs].astype("int32") * b[rf, i, rs].astype("int32"), axis=[rf, rs]),
        name="c")
    binds = {t: tir.decl_buffer(t.shape, t.dtype, name=t.op.name.upper(), offset_factor=1,
                                strides=[1] * t.ndim if t.ndim == 1 else
                                [OC_BN * N_ELEMS, N_ELEMS, 1])
             for t in (a, b, c)}
    signed = 1 if data_dtype == "int8" else 0

    def intrin(ins, outs):
        aa, bb = ins
        cc = outs[0]
        update = tir.Evaluate(tir.call_extern(
            "int32", "tvml_x86_i8_dot_16x4", cc.access_ptr("rw"), aa.access_ptr("r"),
            bb.access_ptr("r"), n_f, signed))
        reset = tir.Evaluate(tir.call_extern("int32", "tvml_x86_i8_reset_16",
                                             cc.access_ptr("w")))
        return tir.SeqStmt([reset, update]), reset, update
    return decl_tensor_intrin(c.op, intrin, binds=binds)


def conv2d_nchw_int8(data: Tensor, kernel: Tensor, strides, padding, dilation,
                     out_dtype: str = "int32") -> Tensor:
    """NCHW uint8/int8 x int8 -> int32 convolution (groups 1) as
    :func:`~tvmlite.topi.nn.conv2d_NCHWc_int8` on data and kernel packed in the kernel
    (stages ``data_vec``, ``kernel_vec``), unpacked to NCHW (``output_unpack``)."""
    op = "conv2d_nchw_int8"
    if data.ndim != 4 or kernel.ndim != 4:
        raise TopiError(f"{op}: data and kernel must be 4-D (NCHW, OIHW), got {data.ndim}-D "
                        f"and {kernel.ndim}-D")
    if data.dtype not in ("uint8", "int8") or kernel.dtype != "int8" or out_dtype != "int32":
        raise TopiError(f"{op}: needs uint8 or int8 data, an int8 kernel and out_dtype int32, "
                        f"got {data.dtype}, {kernel.dtype}, {out_dtype}")
    n, ic, h, w = get_const_tuple(data.shape)
    oc, kic, kh, kw = get_const_tuple(kernel.shape)
    if kic != ic:
        raise TopiError(f"{op}: the kernel takes {kic} input channels, the data has {ic} "
                        f"(groups must be 1)")
    ic_pad = -(-ic // N_ELEMS) * N_ELEMS
    oc_pad = -(-oc // OC_BN) * OC_BN
    ic_bn = N_ELEMS * largest_factor(ic_pad // N_ELEMS, 4)
    zero_d, zero_k = tir.const(0, data.dtype), tir.const(0, "int8")

    def data_at(b, c, y, x, v):
        ch = c * ic_bn + v
        return data[b, ch, y, x] if ic_pad == ic else tir.if_then_else(
            ch < ic, data[b, tir.Min(ch, tir.const(ic - 1, "int32")), y, x], zero_d)

    data_vec = compute((n, ic_pad // ic_bn, h, w, ic_bn), data_at, name="data_vec",
                       tag="injective")

    def kernel_at(o, c, y, x, f, ob, s):
        oo, ii = o * OC_BN + ob, c * ic_bn + f * N_ELEMS + s
        if ic_pad == ic and oc_pad == oc:
            return kernel[oo, ii, y, x]
        return tir.if_then_else(tir.all(oo < oc, ii < ic),
                                kernel[tir.Min(oo, tir.const(oc - 1, "int32")),
                                       tir.Min(ii, tir.const(ic - 1, "int32")), y, x], zero_k)

    kernel_vec = compute((oc_pad // OC_BN, ic_pad // ic_bn, kh, kw, ic_bn // N_ELEMS, OC_BN,
                          N_ELEMS), kernel_at, name="kernel_vec", tag="injective")
    packed = conv2d_NCHWc_int8(data_vec, kernel_vec, strides, padding, dilation,
                               f"NCHW{ic_bn}c", f"NCHW{OC_BN}c", out_dtype, N_ELEMS)
    return compute((n, oc) + tuple(get_const_tuple(packed.shape)[2:4]),
                   lambda b, c, y, x: packed[b, c // OC_BN, y, x, c % OC_BN],
                   name="output_unpack", tag=tag.INJECTIVE)


def schedule_conv2d_nchw_int8(outs) -> Schedule:
    """Schedule of :func:`conv2d_nchw_int8` and its element-wise consumers: the packing
    stages and the unpacked output parallel over their outer axes, the convolution's
    16-channel tiles tensorized over all ``ic_bn`` channels of a chunk."""
    s, conv, out = _inline_and_find(outs, "conv2d_NCHWc_int8")
    data_pad, kernel_vec = conv.op.input_tensors
    data_vec = data_pad.op.input_tensors[0] if data_pad.op.name == "data_pad" else data_pad
    if data_pad is not data_vec:
        s[data_vec].compute_inline()
    s[data_pad].parallel(s[data_pad].fuse(*s[data_pad].op.axis[:3]))
    s[kernel_vec].parallel(s[kernel_vec].fuse(*s[kernel_vec].op.axis[:2]))
    ic_bn = get_const_int(data_pad.shape[4])

    b, oc_chunk, oh, ow, oc_block = s[conv].op.axis
    kh, kw, ic_outer, ic_f, ic_s = s[conv].op.reduce_axis
    s[conv].reorder(b, oc_chunk, oh, ow, kh, kw, ic_outer, oc_block, ic_f, ic_s)
    fused = s[conv].fuse(b, oc_chunk, oh)
    s[conv].parallel(fused)
    s[conv].tensorize(oc_block, _dot_intrin(ic_bn // N_ELEMS, data_pad.dtype))
    s[conv].pragma(fused, "import_c", _KERNEL)
    if out is not conv:
        axes = s[out].op.axis
        s[out].parallel(s[out].fuse(*axes[:2]))
    return s


__all__ = ["conv2d_nchw_int8", "schedule_conv2d_nchw_int8", "is_int8_hw_support",
           "int8_conv2d_applicable"]
