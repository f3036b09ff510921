"""Binary neural-network operators (``topi.nn.binarize_pack``, ``binary_dense``): signs
packed 32 to a ``uint32`` word, a dense layer of +-1 values by XOR and popcount."""
from __future__ import annotations

from typing import Optional

from ...te.operation import compute, reduce_axis
from ...te.tensor import Tensor
from ...tir import op as _op
from .. import tag
from ..utils import TopiError, get_const_int


def binarize_pack(data: Tensor, axis: Optional[int] = None,
                  name: str = "PackedInput") -> Tensor:
    """Pack the signs of ``data`` (bit 1 for ``x >= 0``) along ``axis`` (default the last),
    32 to a ``uint32``, the first element in the most significant bit. The axis must be a
    multiple of 32. Tag "binarize_pack"."""
    op = "binarize_pack"
    if not isinstance(data, Tensor):
        raise TopiError(f"{op}: data must be a Tensor, got {data!r}")
    n = data.ndim
    axis = n - 1 if axis is None else axis
    if not -n <= axis < n:
        raise TopiError(f"{op}: axis {axis} is out of range for {n}-D data")
    axis %= n
    extent = get_const_int(data.shape[axis])
    if extent % 32:
        raise TopiError(f"{op}: axis {axis} has {extent} elements, not a multiple of 32")
    shape = [extent // 32 if i == axis else d for i, d in enumerate(data.shape)]
    zero = _op.const(0, data.dtype)

    def pack(*idx):
        word = _op.const(0, "uint32")
        for j in range(32):
            at = [idx[i] * 32 + j if i == axis else idx[i] for i in range(n)]
            bit = _op.cast("uint32", _op.ge(data(*at), zero))
            word = _op.bitwise_or(_op.shift_left(word, _op.const(1, "uint32")), bit)
        return word
    return compute(shape, pack, name=name, tag="binarize_pack")


def binary_dense(data: Tensor, weight: Tensor) -> Tensor:
    """Dense layer of packed +-1 values: ``data`` ``(batch, in_dim)`` and ``weight``
    ``(out_dim, in_dim)``, both ``uint32`` from :func:`binarize_pack`; the float32 result is
    ``32 * in_dim - 2 * popcount(data ^ weight)`` summed (the dot product of the signs)."""
    op = "binary_dense"
    for nm, t in (("data", data), ("weight", weight)):
        if not isinstance(t, Tensor) or t.ndim != 2 or t.dtype != "uint32":
            raise TopiError(f"{op}: {nm} must be a 2-D uint32 Tensor")
    batch, in_dim = data.shape
    out_dim, w_in = weight.shape
    if get_const_int(in_dim) != get_const_int(w_in):
        raise TopiError(f"{op}: data has {in_dim} words per row, weight {w_in}")
    k = reduce_axis((0, in_dim), name="k")
    matmul = compute((batch, out_dim), lambda i, j: _op.sum(
        _op.popcount(_op.bitwise_xor(data[i, k], weight[j, k])), axis=k), tag="binary_dense")
    total = float(32 * get_const_int(in_dim))
    return compute((batch, out_dim), lambda i, j: _op.sub(
        _op.const(total, "float32"),
        _op.mul(_op.const(2.0, "float32"), _op.cast("float32", matmul(i, j)))),
        tag=tag.ELEMWISE)
