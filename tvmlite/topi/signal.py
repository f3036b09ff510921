"""Signal processing operators (``topi.dft``)."""
from __future__ import annotations

import math
from typing import List

from ..te.operation import compute, reduce_axis
from ..te.tensor import Tensor, _dim_equal
from ..tir import op as _op
from .utils import TopiError


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


__all__ = ["dft"]
