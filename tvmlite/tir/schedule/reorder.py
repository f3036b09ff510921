"""``reorder``: permute loops of one nest."""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

from ..expr import (
    Add,
    And,
    Cast,
    FloorDiv,
    FloorMod,
    IntImm,
    IterVarType,
    Mul,
    PrimExpr,
    Sub,
    Var,
)
from ..functor import collect_vars
from ..stmt import For
from .error import fail
from .state import (
    LoopRV,
    ScheduleState,
    child_blocks,
    const_value,
    find_path,
    is_true,
    replace,
    simplify,
    with_loop_body,
)

# (loop var, lower factor, extent): the loop var's digits ``v // lower % extent``
_Split = Tuple[Var, int, int]


def reorder(state: ScheduleState, loop_rvs: Sequence[LoopRV]) -> None:
    """Reorder loops of a single nest: the given loops take, in the given order, the positions
    the given loops occupy; loops in between that are not given stay where they are.

    Before::

        for i, j in T.grid(4, 6):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj]

    After ``reorder(j, i)``::

        for j, i in T.grid(6, 4):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj]
    """
    prim = "reorder"
    if not loop_rvs:
        return
    paths = [state.loop_path(rv, prim) for rv in loop_rvs]
    loops = [p[-1] for p in paths]
    names = ", ".join(f'"{lp.loop_var.name}"' for lp in loops)
    if len({id(lp) for lp in loops}) != len(loops):
        raise fail(prim, f"loops {names}", "a loop is given twice")
    # the outermost given loop is the one with the shortest path; all must lie on the
    # longest path
    order = sorted(range(len(loops)), key=lambda k: len(paths[k]))
    outer_k, inner_k = order[0], order[-1]
    chain_path = paths[inner_k]
    start = len(paths[outer_k]) - 1
    for lp in loops:
        if not any(s is lp for s in chain_path):
            raise fail(prim, f"loops {names}",
                       f'loop "{lp.loop_var.name}" is not in the same loop nest as loop '
                       f'"{loops[inner_k].loop_var.name}" (the loops must be nested in one '
                       "another)")
    chain: List[For] = list(chain_path[start:])
    for k, s in enumerate(chain[:-1]):
        if not isinstance(s, For):
            raise fail(prim, f"loops {names}", "a block lies between the loops")
        if s.body is not chain[k + 1]:
            raise fail(prim, f"loops {names}", f'loop "{s.loop_var.name}" has more than one '
                       "child statement; only a single-branch loop nest can be reordered")
    _check_blocks_affine(chain, prim)
    given = {id(lp) for lp in loops}
    all_vars = {s.loop_var for s in chain}
    for s in chain:
        if collect_vars(s.min) & all_vars or collect_vars(s.extent) & all_vars:
            raise fail(prim, f'loop "{s.loop_var.name}"', "its range depends on another loop "
                       "of the nest")
    it = iter(loops)
    new_chain = [next(it) if id(s) in given else s for s in chain]
    moved = {s.loop_var for s, t in zip(chain, new_chain) if s is not t}
    for realize in child_blocks(chain[-1]):
        sp, red = set(), set()
        for iv, val in zip(realize.block.iter_vars, realize.iter_values):
            (red if iv.iter_type == IterVarType.CommReduce else sp).update(collect_vars(val))
        for v in moved & sp & red:
            raise fail(prim, f'loop "{v.name}"', f'it feeds both spatial and reduction '
                       f'iterators of block "{realize.block.name_hint}"; reordering it would '
                       "break the reduction's init order")
    body = chain[-1].body
    for s in reversed(new_chain):
        body = with_loop_body(s, body)
    replace(state, chain_path[:start + 1], body)


class _Undecided(Exception):
    """A binding the digit analysis cannot judge: accepted, as before the analysis."""


def _splits(e: PrimExpr, ext: Dict[Var, int]) -> Optional[Dict[_Split, int]]:
    """``e`` as a sum of constant multiples of digits of the loops in ``ext`` plus a part free
    of them (dropped); None when it is no such sum (e.g. ``v * v``)."""
    if not collect_vars(e) & ext.keys():
        return {}
    if isinstance(e, Var):
        return {(e, 1, ext[e]): 1} if ext[e] > 1 else {}
    if isinstance(e, Cast):
        return _splits(e.value, ext)
    if isinstance(e, (Add, Sub)):
        a, b = _splits(e.a, ext), _splits(e.b, ext)
        if a is None or b is None:
            return None
        out = dict(a)
        for k, c in b.items():
            out[k] = out.get(k, 0) + (c if isinstance(e, Add) else -c)
        return {k: c for k, c in out.items() if c}
    if isinstance(e, Mul):
        for x, y in ((e.a, e.b), (e.b, e.a)):
            if isinstance(y, IntImm):
                t = _splits(x, ext)
                return None if t is None else {k: c * y.value for k, c in t.items() if y.value}
        return None
    if isinstance(e, (FloorDiv, FloorMod)) and isinstance(e.b, IntImm) and e.b.value > 0:
        t, d = _splits(e.a, ext), e.b.value
        if t is None:
            return None
        if len(t) > 1 or any(c != 1 for c in t.values()):
            # e.g. ``(x + 64 * y) // 129``, a form fuse + split leave: quasi-affine, but
            # this digit analysis cannot judge it
            raise _Undecided
        if not t:
            return {}
        (v, lo, n), = t
        if isinstance(e, FloorDiv):
            n = -(-n // d)
            return {(v, lo * d, n): 1} if n > 1 else {}
        if n % d and n > d:
            return None
        return {(v, lo, min(n, d)): 1}
    return None


def _check_blocks_affine(chain: List[For], prim: str) -> None:
    """Classic's conditions on the blocks under the loops reordered: data-parallel or reduction
    iterators only, bound to affine maps of those loops (loops outside the range act as
    constants, loops below the innermost given one count): each binding sums scaled digits
    of the loops without gaps, no digit is used twice, and a predicate over several loops
    constrains a fusion some binding uses whole."""
    for realize in child_blocks(chain[-1]):
        # every loop from the top of the range down to the block (those below the innermost
        # loop given too)
        below = find_path(chain[-1], lambda x, r=realize: x is r) or []
        ext: Dict[Var, int] = {}
        for lp in chain[:-1] + [x for x in below if isinstance(x, For)]:
            n = const_value(lp.extent)
            if n is None or const_value(lp.min) != 0:
                break  # symbolic ranges: nothing to check against
            ext[lp.loop_var] = n
        else:
            _check_block_affine(realize, ext, prim)


def _check_block_affine(realize, ext: Dict[Var, int], prim: str) -> None:
    block = realize.block
    what = f'block "{block.name_hint}"'
    for iv in block.iter_vars:
        if iv.iter_type not in (IterVarType.DataPar, IterVarType.CommReduce):
            raise fail(prim, what, f'iterator "{iv.var.name}" is neither data-parallel nor '
                       "a reduction; the loops above it cannot be reordered")
    used: Dict[Var, List[Tuple[int, int]]] = {}
    fused_vars = []
    undecided = set()
    for iv, value in zip(block.iter_vars, realize.iter_values):
        try:
            t = _splits(simplify(value), ext)
        except _Undecided:
            undecided |= collect_vars(value) & ext.keys()
            fused_vars.append(collect_vars(value) & ext.keys())
            continue
        # fused: scaled digits, the smallest scale 1, each scale within the span of the
        # smaller ones (overlapping windows such as ``2 * v0 + v1`` pass, gaps do not)
        span = 1
        for (v, lo, n), c in sorted((t or {}).items(), key=lambda kc: kc[1]):
            if not 0 < c <= span:
                t = None
                break
            span += c * (n - 1)
            used.setdefault(v, []).append((lo, n))
        if t is None:
            raise fail(prim, what, f'the binding {value} of iterator "{iv.var.name}" is not '
                       "an affine map of the loops to be reordered")
        fused_vars.append({v for v, _, _ in t})
    for v, parts in used.items():
        if v in undecided:
            continue
        expect = 1
        for lo, n in sorted(parts):
            if lo != expect:
                raise fail(prim, what, f'the bindings use digits of loop "{v.name}" that '
                           "overlap or leave a gap; they are not an affine map")
            expect = lo * n
    if not is_true(realize.predicate):
        _check_predicate(realize.predicate, ext, fused_vars, prim, what)


def _check_predicate(pred: PrimExpr, ext: Dict[Var, int], fused_vars, prim: str,
                     what: str) -> None:
    if isinstance(pred, And):
        _check_predicate(pred.a, ext, fused_vars, prim, what)
        _check_predicate(pred.b, ext, fused_vars, prim, what)
        return
    inside = {v for v in collect_vars(pred) & ext.keys() if ext[v] > 1}  # unit loops: constants
    if len(inside) > 1 and not any(inside <= f for f in fused_vars):
        raise fail(prim, what, f"its predicate {pred} constrains loops "
                   f"{', '.join(sorted(v.name for v in inside))} together, a fusion no binding "
                   "uses; the bindings are not an affine map of the loops")
