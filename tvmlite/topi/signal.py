"""Signal processing operators (``topi.dft``)."""
from __future__ import annotations

import math
from typing import List

from ..te.operation import compute, reduce_axis
from ..te.tensor import Tensor, _dim_equal
from ..tir import op as _op
from .utils import TopiError, get_const_int


def dft(re_data: Tensor, im_data: Tensor, inverse: bool) -> List[Tensor]:
    """The discrete Fourier transform along the last axis of the complex signal
    ``re_data + i im_data``: ``X[k] = sum_n x[n] exp(-+2 pi i k n / N)``, divided by ``N``
    when ``inverse`` (``numpy.fft.fft`` / ``ifft``). A direct sum per output (quadratic in
    ``N``; stages ``T_dft_re`` and ``T_dft_im``), accumulated in float32 for float16 data.

    Parameters
    ----------
    re_data, im_data : Tensor
        The real and imaginary parts, of one float shape and dtype.
    inverse : bool
        The inverse transform.

    Returns
    -------
    list of Tensor
        ``[re_output, im_output]``, of the input's shape and dtype.
    """
    op = "dft"
    for name, t in (("re_data", re_data), ("im_data", im_data)):
        if not isinstance(t, Tensor) or t.ndim < 1 or not t.dtype.startswith("float"):
            raise TopiError(f"{op}: {name} must be a float Tensor of rank >= 1, got {t!r}")
    if re_data.dtype != im_data.dtype or re_data.ndim != im_data.ndim or not all(
            _dim_equal(a, b) for a, b in zip(re_data.shape, im_data.shape)):
        raise TopiError(f"{op}: re_data and im_data must have one shape and dtype")
    dtype = re_data.dtype
    acc = "float32" if dtype == "float16" else dtype
    n = re_data.shape[-1]
    sign = 1.0 if inverse else -1.0

    def part(imag: bool):
        r = reduce_axis((0, n), name="n")

        def f(*i):
            k = i[-1]
            # the angle from (k * n) mod N keeps its argument small and exact
            theta = _op.mul(_op.cast(acc, _op.floormod(_op.mul(k, r), n)),
                            _op.div(_op.const(sign * 2 * math.pi, acc), _op.cast(acc, n)))
            c, s = _op.cos(theta), _op.sin(theta)
            x = _op.cast(acc, re_data(*i[:-1], r))
            y = _op.cast(acc, im_data(*i[:-1], r))
            # (x + i y)(c + i s) = (x c - y s) + i (x s + y c)
            term = _op.add(_op.mul(x, s), _op.mul(y, c)) if imag else \
                _op.sub(_op.mul(x, c), _op.mul(y, s))
            return _op.sum(term, axis=[r])
        total = compute(re_data.shape, f, name="T_dft_im" if imag else "T_dft_re", tag=op)
        if not inverse and acc == dtype:
            return total
        return compute(re_data.shape, lambda *i: _op.cast(
            dtype, _op.div(total(*i), _op.cast(acc, n)) if inverse else total(*i)),
            name="T_dft_im_out" if imag else "T_dft_re_out", tag="elemwise")
    return [part(False), part(True)]


__all__ = ["dft", "stft"]


def stft(data: Tensor, n_fft: int, hop_length: int, win_length: int, window: Tensor,
         normalized: bool, onesided: bool, output_shape=None) -> Tensor:
    """The short-time Fourier transform of ``data`` ``(batch, time)`` or ``(time,)``:
    ``out[b, w, m] = sum_k win[k] * data[b, m * hop_length + k] * exp(-2 pi i w k /
    n_fft)`` as ``(re, im)`` in a last axis of 2, ``win`` the ``window`` ``(win_length,)``
    centred in ``n_fft`` zeros; ``w`` runs over ``n_fft // 2 + 1`` frequencies when
    ``onesided`` (else ``n_fft``), ``m`` over the ``(time - n_fft) // hop_length + 1``
    frames; divided by ``sqrt(n_fft)`` when ``normalized``. Stage ``T_stft``, tag "stft".
    """
    op = "stft"
    if not isinstance(data, Tensor) or data.ndim not in (1, 2) or \
            not data.dtype.startswith("float"):
        raise TopiError(f"{op}: data must be a 1-D or 2-D float Tensor, got {data!r}")
    if not isinstance(window, Tensor) or window.ndim != 1:
        raise TopiError(f"{op}: window must be a 1-D Tensor, got {window!r}")
    n_fft, hop, win_len = int(n_fft), int(hop_length), int(win_length)
    size = get_const_int(data.shape[-1])
    if not 0 < win_len <= n_fft <= size or hop < 1:
        raise TopiError(f"{op}: need 0 < win_length ({win_len}) <= n_fft ({n_fft}) <= the "
                        f"signal length ({size}) and hop_length ({hop}) >= 1")
    if get_const_int(window.shape[0]) != win_len:
        raise TopiError(f"{op}: window has {window.shape[0]} entries, win_length is {win_len}")
    rows = n_fft // 2 + 1 if onesided else n_fft
    cols = (size - n_fft) // hop + 1
    lpad = (n_fft - win_len) // 2
    dtype = data.dtype
    acc = "float32" if dtype == "float16" else dtype
    scale = 1.0 / math.sqrt(n_fft) if normalized else 1.0

    k = reduce_axis((0, n_fft), name="k")

    def f(*i):
        *b, w, m, part = i
        inside = _op.all(k >= lpad, k < lpad + win_len)
        win = _op.if_then_else(inside, _op.cast(acc, window[_op._max(k - lpad, 0)]),
                               _op.const(0.0, acc))
        theta = _op.cast(acc, _op.floormod(w * k, n_fft)) * _op.const(2 * math.pi / n_fft, acc)
        trig = _op.if_then_else(part == 0, _op.cos(theta), -_op.sin(theta))
        x = _op.cast(acc, data[(*b, m * hop + k)])
        return _op.sum(win * x * trig * _op.const(scale, acc), axis=[k])
    shape = [*data.shape[:-1], rows, cols, 2]
    out = compute(shape, f, name="T_stft", tag=op)
    if acc == dtype:
        return out
    return compute(shape, lambda *i: _op.cast(dtype, out(*i)), name="T_stft_cast", tag=op)
