"""Transform operators (``relay.strided_slice``, ``take``, ``squeeze``, ``expand_dims``,
``broadcast_to``, ``split``) and reductions (``sum``, ``mean``, ``max``, ``min``).

Their output types come from the TOPI computes themselves (``topi_rel``): one place holds
each op's shape rule.
"""
from __future__ import annotations

from typing import Optional, Sequence

from ..expr import Expr, Tuple, TupleWrapper
from ._rel import RelayTypeError, topi_rel
from .registry import OpPattern, make_call, register

register("strided_slice", 1, topi_rel("strided_slice"), OpPattern.INJECTIVE,
         {"begin": (), "end": (), "strides": None, "axes": None})
register("take", 2, topi_rel("take"), OpPattern.INJECTIVE, {"axis": None, "mode": "clip"})
register("squeeze", 1, topi_rel("squeeze"), OpPattern.INJECTIVE, {"axis": None})
register("expand_dims", 1, topi_rel("expand_dims"), OpPattern.BROADCAST,
         {"axis": 0, "num_newaxis": 1})
register("broadcast_to", 1, topi_rel("broadcast_to"), OpPattern.BROADCAST, {"shape": ()})
for _name in ("sum", "mean", "max", "min"):
    register(_name, 1, topi_rel(_name), OpPattern.COMM_REDUCE,
             {"axis": None, "keepdims": False})


def _ints(v) -> Optional[tuple]:
    if v is None:
        return None
    return (int(v),) if isinstance(v, int) else tuple(int(x) for x in v)


def strided_slice(data: Expr, begin, end, strides=None, axes=None) -> Expr:
    """``data[begin:end:strides]`` on ``axes`` (all axes when None), NumPy semantics."""
    return make_call("strided_slice", [data], begin=_ints(begin), end=_ints(end),
                     strides=_ints(strides), axes=_ints(axes))


def take(data: Expr, indices: Expr, axis: Optional[int] = None, mode: str = "clip") -> Expr:
    """Gather ``data`` at ``indices`` along ``axis`` (of the flattened data when None)."""
    return make_call("take", [data, indices], axis=None if axis is None else int(axis),
                     mode=mode)


def squeeze(data: Expr, axis=None) -> Expr:
    """Remove the unit dimensions in ``axis`` (all of them when None)."""
    return make_call("squeeze", [data], axis=_ints(axis))


def expand_dims(data: Expr, axis: int, num_newaxis: int = 1) -> Expr:
    """Insert ``num_newaxis`` unit dimensions at ``axis``."""
    return make_call("expand_dims", [data], axis=int(axis), num_newaxis=int(num_newaxis))


def broadcast_to(data: Expr, shape: Sequence[int]) -> Expr:
    """Broadcast ``data`` to ``shape`` (NumPy rules)."""
    return make_call("broadcast_to", [data], shape=_ints(shape))


def split(data: Expr, indices_or_sections, axis: int = 0) -> TupleWrapper:
    """Split ``data`` along ``axis`` into equal sections or at indices; each piece is a
    ``strided_slice`` (so every piece fuses into its consumer)."""
    from ..transform.infer_type import infer_type
    shape = infer_type(data).checked_type.shape
    axis = int(axis)
    if not -len(shape) <= axis < len(shape):
        raise RelayTypeError(f"split: axis {axis} is out of range for shape {shape}")
    size = shape[axis]
    if isinstance(indices_or_sections, int):
        sec = indices_or_sections
        if sec <= 0 or size % sec:
            raise RelayTypeError(f"split: {sec} sections do not divide dimension {axis} of "
                                 f"size {size}")
        bounds = [size // sec * k for k in range(sec + 1)]
    else:
        idx = [int(x) for x in indices_or_sections]
        if any(b < a for a, b in zip(idx, idx[1:])) or any(x < 0 or x > size for x in idx):
            raise RelayTypeError(f"split: indices {idx} must be sorted and within "
                                 f"[0, {size}]")
        bounds = [0] + idx + [size]
    pieces = [strided_slice(data, [lo], [hi], [1], [axis]) for lo, hi in
              zip(bounds, bounds[1:])]
    return _Pieces(pieces)


class _Pieces(TupleWrapper):
    """``split``'s result: ``[i]`` is the i-th slice itself (not a projection of a tuple),
    so each piece fuses with its consumer; ``astuple()`` gives the tuple."""

    def __init__(self, pieces):
        super().__init__(Tuple(pieces), len(pieces))
        self.pieces = list(pieces)

    def __getitem__(self, index: int) -> Expr:
        return self.pieces[index]


def _reduce(name: str):
    def f(data: Expr, axis=None, keepdims: bool = False) -> Expr:
        return make_call(name, [data], axis=_ints(axis), keepdims=bool(keepdims))
    f.__name__ = name
    f.__doc__ = f"``{name}`` over ``axis`` (all axes when None)."
    return f


sum, mean, max, min = (_reduce(n) for n in ("sum", "mean", "max", "min"))  # noqa: A001


__all__ = ["strided_slice", "take", "squeeze", "expand_dims", "broadcast_to", "split", "sum",
           "mean", "max", "min"]
