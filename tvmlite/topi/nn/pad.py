"""Constant padding (``topi.nn.pad``)."""
from __future__ import annotations

from typing import Optional, Sequence

from ...te.operation import compute
from ...te.tensor import Tensor
from ...tir import op as _op
from ...tir.expr import PrimExpr
from .. import tag
from ..utils import TopiError, equal_const_int


def pad(data: Tensor, pad_before: Sequence, pad_after: Optional[Sequence] = None,
        pad_value=0.0, name: str = "PadInput", attrs=None) -> Tensor:
    """Pad ``data`` with ``pad_value``: ``pad_before[d]`` elements before dimension ``d`` and
    ``pad_after[d]`` (default: ``pad_before``) after it. Only padded dimensions are guarded."""
    if not isinstance(data, Tensor):
        raise TypeError(f"pad expects a Tensor, got {data!r}")
    n = data.ndim
    pad_after = pad_after if pad_after else pad_before
    if len(pad_before) != n:
        raise TopiError(f"pad: Input dimension and pad_before dismatch : {n} vs {len(pad_before)}")
    if len(pad_after) != n:
        raise TopiError(f"pad: Input dimension and pad_after dismatch : {n} vs {len(pad_after)}")
    for p in list(pad_before) + list(pad_after):
        e = _op.convert(p)
        if hasattr(e, "value") and e.value < 0:
            raise TopiError(f"pad: negative padding {e.value}")
    out_shape = tuple(_op.add(_op.add(data.shape[d], pad_before[d]), pad_after[d])
                      for d in range(n))
    value = pad_value if isinstance(pad_value, PrimExpr) else _op.const(pad_value, data.dtype)
    if value.dtype != data.dtype:
        value = _op.cast(data.dtype, value)

    def _pad(*i):
        conds, idx = [], []
        for d in range(n):
            if equal_const_int(pad_before[d], 0) and equal_const_int(pad_after[d], 0):
                idx.append(i[d])
                continue
            idx.append(_op.sub(i[d], pad_before[d]))
            conds.append(_op.ge(i[d], pad_before[d]))
            conds.append(_op.lt(i[d], _op.add(data.shape[d], pad_before[d])))
        if conds:
            return _op.if_then_else(_op.all(*conds), data(*idx), value)
        return data(*idx)

    return compute(out_shape, _pad, name=name, tag=tag.INJECTIVE + ",pad", attrs=attrs)
