"""``topi.einsum``: Einstein summation, as ``numpy.einsum``."""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple, Union

from ..te.operation import compute, reduce_axis
from ..te.tensor import Tensor, _dim_equal
from ..tir import op as _op
from ..tir.expr import IntImm, PrimExpr
from .utils import TopiError

Label = Union[str, int]  # a letter, or the position of an ellipsis dimension


def _parse_term(term: str, ndim: Optional[int], n_ellipsis: int, op: str) -> List[Label]:
    """The labels of one term; its ``...`` stands for the trailing ``n`` of the
    ``n_ellipsis`` broadcast dimensions (``n = ndim - letters``, or all of them when ``ndim``
    is None, for the output)."""
    if term.count("...") > 1 or "." in term.replace("...", ""):
        raise TopiError(f"{op}: bad term {term!r}: at most one '...' and letters")
    before, dots, after = term.partition("...")
    for c in before + after:
        if not c.isalpha():
            raise TopiError(f"{op}: bad label {c!r} in {term!r} (letters only)")
    letters = len(before) + len(after)
    if not dots:
        if ndim is not None and ndim != letters:
            raise TopiError(f"{op}: term {term!r} has {letters} labels for an operand of "
                            f"{ndim} dimensions")
        return list(before)
    n = n_ellipsis if ndim is None else ndim - letters
    if n < 0:
        raise TopiError(f"{op}: term {term!r} has more labels than the operand's {ndim} "
                        f"dimensions")
    return list(before) + list(range(n_ellipsis - n, n_ellipsis)) + list(after)


def _parse(subscripts: str, ops: List[Tensor], op: str) -> Tuple[List[List[Label]],
                                                                  List[Label]]:
    eq = subscripts.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(ops):
        raise TopiError(f"{op}: {len(terms)} operand terms in {subscripts!r} for {len(ops)} "
                        f"operands")
    n_ell = 0
    for t, x in zip(terms, ops):
        if "..." in t:
            n_ell = max(n_ell, x.ndim - len(t.replace("...", "")))
    ins = [_parse_term(t, x.ndim, n_ell, op) for t, x in zip(terms, ops)]
    if arrow:
        out = _parse_term(rhs, None, n_ell, op)
        letters = [lb for lb in out if isinstance(lb, str)]
        if len(set(letters)) != len(letters):
            raise TopiError(f"{op}: the output {rhs!r} repeats a label")
        known = {lb for term in ins for lb in term}
        for lb in letters:
            if lb not in known:
                raise TopiError(f"{op}: output label {lb!r} is in no operand")
    else:  # implicit: the broadcast dimensions, then the letters used once, sorted
        counts: Dict[str, int] = {}
        for term in ins:
            for lb in term:
                if isinstance(lb, str):
                    counts[lb] = counts.get(lb, 0) + 1
        out = list(range(n_ell)) + sorted(lb for lb, c in counts.items() if c == 1)
    return ins, out


def _is_one(d) -> bool:
    return isinstance(d, IntImm) and d.value == 1


def einsum(subscripts: str, *operand: Tensor) -> Tensor:
    """The Einstein summation ``subscripts`` of the operands (``numpy.einsum``): labels
    repeated within an operand take its diagonal, labels absent from the output are summed,
    ``...`` stands for broadcast dimensions, and without ``->`` the output is the broadcast
    dimensions then the labels used once, in alphabetical order. Dimensions of one label
    broadcast (a size 1 meets any size, also at run time for symbolic sizes). Stage
    ``T_einsum``, tag "einsum".

    Parameters
    ----------
    subscripts : str
        The equation, e.g. ``"ij,jk->ik"``.
    operand : Tensor
        The operands, one per term.

    Returns
    -------
    Tensor
        The result, of the first operand's dtype.
    """
    op = "einsum"
    ops = list(operand)
    if not ops or not all(isinstance(x, Tensor) for x in ops):
        raise TopiError(f"{op}: the operands must be one or more Tensors, got {operand!r}")
    ins, out = _parse(subscripts, ops, op)
    extents: Dict[Label, PrimExpr] = {}
    for term, x in zip(ins, ops):
        for lb, d in zip(term, x.shape):
            d = _op.convert(d)
            old = extents.get(lb)
            if old is None or _is_one(old):
                extents[lb] = d
            elif _is_one(d) or _dim_equal(old, d):
                continue
            elif isinstance(old, IntImm) and isinstance(d, IntImm):
                raise TopiError(f"{op}: label {lb!r} has sizes {old.value} and {d.value}, "
                                f"which do not broadcast")
            else:
                extents[lb] = _op._max(old, d)  # symbolic: the one that is not 1
    red = [lb for lb in extents if lb not in out]
    raxes = {lb: reduce_axis((0, extents[lb]), name=f"k_{lb}") for lb in red}
    dtype = ops[0].dtype

    def f(*i):
        at = dict(zip(out, i))
        at.update(raxes)
        prod = None
        for term, x in zip(ins, ops):
            idx = []
            for lb, d in zip(term, x.shape):
                d, v = _op.convert(d), at[lb]
                if _is_one(d):
                    idx.append(IntImm(v.dtype, 0))
                elif _dim_equal(d, extents[lb]):
                    idx.append(v)
                else:  # symbolic: of size 1 or of the label's extent
                    idx.append(_op.floormod(v, d))
            val = x(*idx)
            val = val if val.dtype == dtype else _op.cast(dtype, val)
            prod = val if prod is None else _op.mul(prod, val)
        return _op.sum(prod, axis=list(raxes.values())) if raxes else prod
    return compute([extents[lb] for lb in out], f, name="T_einsum", tag="einsum")


__all__ = ["einsum"]
