"""``topi.nn.dilate``: insert ``stride - 1`` fill values between elements."""
from __future__ import annotations

from ...te.operation import compute
from ...te.tensor import Tensor
from ...tir import op as _op
from .. import tag
from ..utils import TopiError, check_strides


def dilate(data: Tensor, strides, dilation_value=0.0, name: str = "DilatedInput") -> Tensor:
    """Dilate ``data`` by ``strides`` (one per dimension): output dimension ``d`` has
    ``(n - 1) * strides[d] + 1`` elements; the new ones hold ``dilation_value``."""
    if not isinstance(data, Tensor):
        raise TopiError(f"dilate: data must be a Tensor, got {data!r}")
    n = data.ndim
    if len(strides) != n:
        raise TopiError(f"dilate: strides has {len(strides)} entries for a {n}-D input")
    strides = check_strides(strides, n, "dilate", "strides")
    shape = [_op.add(_op.mul(_op.sub(data.shape[d], 1), s), 1) for d, s in enumerate(strides)]

    def f(*i):
        conds, idx = [], []
        for d, s in enumerate(strides):
            if s == 1:
                idx.append(i[d])
            else:
                idx.append(i[d] // s)
                conds.append(_op.eq(i[d] % s, 0))
        if not conds:
            return data(*idx)
        return _op.if_then_else(_op.all(*conds), data(*idx),
                                _op.const(dilation_value, data.dtype))
    return compute(shape, f, name=name, tag=tag.INJECTIVE + ",dilate")
