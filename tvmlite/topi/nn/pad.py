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
        pad_value=0.0, name: str = "PadInput", attrs=None,
        pad_mode: str = "constant") -> Tensor:
    """Pad ``data`` with ``pad_value``: ``pad_before[d]`` elements before dimension ``d`` and
    ``pad_after[d]`` (default: ``pad_before``) after it. Only padded dimensions are guarded.

    ``pad_mode`` (classic C++ ``topi::pad``): "constant" (``pad_value``), "edge" (the
    border element repeated) or "reflect" (the mirror image without the border, see
    :func:`mirror_pad`)."""
    if not isinstance(data, Tensor):
        raise TypeError(f"pad expects a Tensor, got {data!r}")
    if pad_mode not in ("constant", "edge", "reflect"):
        raise TopiError(f"pad: pad_mode must be 'constant', 'edge' or 'reflect', got "
                        f"{pad_mode!r}")
    if pad_mode == "reflect":
        return mirror_pad(data, pad_before, pad_after, "REFLECT", name)
    if pad_mode == "edge":
        return _edge_pad(data, pad_before, pad_after or pad_before, name)
    n = data.ndim
    pad_after = pad_after if pad_after else pad_before
    out_shape = _padded_shape(data, pad_before, pad_after)
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


def mirror_pad(data: Tensor, pad_before: Sequence, pad_after: Optional[Sequence] = None,
               mode: str = "SYMMETRIC", name: str = "MirrorPadInput") -> Tensor:
    """Pad ``data`` with its own mirror image: "SYMMETRIC" repeats the edge element,
    "REFLECT" does not (``numpy.pad`` modes "symmetric" / "reflect").

    Parameters
    ----------
    data : Tensor
        The input, any layout.
    pad_before, pad_after : list of int
        Padding before / after each dimension (``pad_after`` defaults to ``pad_before``); at
        most the dimension's extent ("SYMMETRIC") or one less ("REFLECT").
    mode : str
        "SYMMETRIC" or "REFLECT".
    name : str
        The stage name.
    """
    op = "mirror_pad"
    if not isinstance(data, Tensor):
        raise TopiError(f"{op}: data must be a Tensor, got {data!r}")
    n = data.ndim
    pad_after = pad_after if pad_after else pad_before
    if len(pad_before) != n or len(pad_after) != n:
        raise TopiError(f"{op}: pad_before and pad_after need {n} entries, got "
                        f"{len(pad_before)} and {len(pad_after)}")
    if mode not in ("SYMMETRIC", "REFLECT"):
        raise TopiError(f"{op}: mode must be 'SYMMETRIC' or 'REFLECT', got {mode!r}")
    sym = 1 if mode == "SYMMETRIC" else 0
    for d in range(n):
        size = _op.convert(data.shape[d])
        for p in (pad_before[d], pad_after[d]):
            e = _op.convert(p)
            if hasattr(e, "value") and (e.value < 0 or (
                    hasattr(size, "value") and e.value > size.value - 1 + sym)):
                raise TopiError(f"{op}: padding {e.value} of dimension {d} (extent "
                                f"{size}) is negative or too large for {mode}")
    out_shape = tuple(_op.add(_op.add(data.shape[d], pad_before[d]), pad_after[d])
                      for d in range(n))

    def _pad(*i):
        idx = []
        for d in range(n):
            if equal_const_int(pad_before[d], 0) and equal_const_int(pad_after[d], 0):
                idx.append(i[d])
                continue
            j = _op.sub(i[d], pad_before[d])
            size = data.shape[d]
            j = _op.if_then_else(_op.lt(j, 0), _op.sub(_op.neg(j), sym), j)
            j = _op.if_then_else(_op.ge(j, size),
                                 _op.add(_op.sub(_op.mul(2, _op.sub(size, 1)), j), sym), j)
            idx.append(j)
        return data(*idx)
    return compute(out_shape, _pad, name=name)


def _padded_shape(data: Tensor, pad_before: Sequence, pad_after: Sequence) -> tuple:
    """The shape of ``data`` padded by ``pad_before``/``pad_after`` (one non-negative width
    per dimension each, classic's messages otherwise)."""
    n = data.ndim
    if len(pad_before) != n:
        raise TopiError(f"pad: Input dimension and pad_before dismatch : {n} vs {len(pad_before)}")
    if len(pad_after) != n:
        raise TopiError(f"pad: Input dimension and pad_after dismatch : {n} vs {len(pad_after)}")
    for p in list(pad_before) + list(pad_after):
        e = _op.convert(p)
        if hasattr(e, "value") and e.value < 0:
            raise TopiError(f"pad: negative padding {e.value}")
    return tuple(_op.add(_op.add(data.shape[d], pad_before[d]), pad_after[d]) for d in range(n))


def _edge_pad(data: Tensor, pad_before: Sequence, pad_after: Sequence, name: str) -> Tensor:
    """``data`` padded by repeating its border elements (``numpy.pad`` mode "edge")."""
    out_shape = _padded_shape(data, pad_before, pad_after)

    def f(*i):
        return data(*[i[d] if equal_const_int(pad_before[d], 0) and
                      equal_const_int(pad_after[d], 0) else
                      _op._min(_op._max(_op.sub(i[d], pad_before[d]), 0),
                               _op.sub(data.shape[d], 1)) for d in range(data.ndim)])
    return compute(out_shape, f, name=name, tag=tag.INJECTIVE + ",pad")
