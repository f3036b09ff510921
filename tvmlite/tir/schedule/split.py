"""``split``: divide a loop into a nest of loops."""
from __future__ import annotations

from typing import List, Optional, Sequence

from ...ir import dtype as _dt
from .. import op as _op
from ..expr import IntImm, PrimExpr, Range, Var
from ..functor import post_order_visit
from ..stmt import For, ForKind
from .error import fail
from .state import (
    LoopRV,
    ScheduleState,
    can_prove,
    const_value,
    loop_domains,
    rebind_blocks,
    replace,
    simplify,
)


def split(state: ScheduleState, loop_rv: LoopRV, factors: Sequence[Optional[object]],
          preserve_unit_iters: bool = True) -> List[LoopRV]:
    """Split ``loop`` into ``len(factors)`` nested loops, outermost first.

    One factor may be ``None`` (inferred as ``ceildiv(extent, product of the others)``). When
    the product exceeds the extent, the blocks below get a predicate, so nothing is accessed
    out of bounds.

    Before::

        for i in range(10):
            with T.block("B"):
                vi = T.axis.spatial(10, i)
                B[vi] = A[vi]

    After ``split(i, [None, 4])``::

        for i_0, i_1 in T.grid(3, 4):
            with T.block("B"):
                vi = T.axis.spatial(10, i_0 * 4 + i_1)
                T.where(i_0 * 4 + i_1 < 10)
                B[vi] = A[vi]
    """
    prim = "split"
    path = state.loop_path(loop_rv, prim)
    loop: For = path[-1]
    what = f'loop "{loop.loop_var.name}"'
    if not isinstance(factors, (list, tuple)) or len(factors) < 1:
        raise fail(prim, what, f"factors must be a non-empty list, got {factors!r}")
    if sum(1 for f in factors if f is None) > 1:
        raise fail(prim, what, "at most one factor may be None")
    if loop.kind != ForKind.SERIAL or loop.thread_binding is not None:
        raise fail(prim, what, f"only a serial loop can be split, this one is "
                   f"{loop.kind.name.lower()}")
    if loop.annotations:
        raise fail(prim, what, "the loop has annotations "
                   f"({', '.join(map(str, loop.annotations))}); an annotated loop cannot be split")
    dt = loop.loop_var.dtype
    facs: List[Optional[PrimExpr]] = []
    for f in factors:
        if f is None:
            facs.append(None)
            continue
        if isinstance(f, LoopRV):
            raise fail(prim, what, "factors must be integers, not loops")
        e = _op.convert(f)
        if isinstance(e, IntImm) and e.value <= 0:
            raise fail(prim, what, f"factors must be positive, got {e.value}")
        if not e.dtype.startswith(("int", "uint")):
            raise fail(prim, what, f"factor {f!r} is not an integer")
        if isinstance(e, IntImm) and e.value > _dt.max_value(dt):
            raise fail(prim, what, f"factor {e.value} does not fit the loop variable's dtype "
                       f"{dt} (at most {_dt.max_value(dt)})")
        facs.append(_op.cast(dt, e) if e.dtype != dt else e)
    const_product = 1
    for f in facs:
        if isinstance(f, IntImm):
            const_product *= f.value
    if const_product > _dt.max_value(dt):
        raise fail(prim, what, f"the product of the factors ({const_product}) does not fit the "
                   f"loop variable's dtype {dt} (at most {_dt.max_value(dt)})")
    known = IntImm(dt, 1)
    for f in facs:
        if f is not None:
            known = _op.mul(known, f)
    outer_dom = loop_domains(path[:-1])
    if any(f is None for f in facs):
        inferred = simplify(_op.floordiv(_op.add(loop.extent, _op.sub(known, 1)), known),
                            outer_dom)
        facs = [inferred if f is None else f for f in facs]
        total = _op.mul(known, inferred)
    else:
        total = known
        if not can_prove(_op.ge(total, loop.extent), outer_dom):
            raise fail(prim, what, f"the product of the factors ({total}) is smaller than the "
                       f"loop extent ({loop.extent})")
    exact = can_prove(_op.eq(simplify(total, outer_dom), loop.extent), outer_dom)

    base = loop.loop_var.name
    new_vars = [Var(f"{base}_{k}", dt) for k in range(len(facs))]
    value = IntImm(dt, 0)
    for v, f in zip(new_vars, facs):
        term = v
        if not preserve_unit_iters and const_value(f) == 1:
            term = IntImm(dt, 0)
        value = _op.add(_op.mul(value, f), term)
    if not (isinstance(loop.min, IntImm) and loop.min.value == 0):
        value = _op.add(loop.min, value)
    dom = dict(outer_dom)
    for v, f in zip(new_vars, facs):
        dom[v] = Range(IntImm(dt, 0), f)
    pred = None if exact else _op.lt(value, _op.add(loop.min, loop.extent))
    # as classic: bindings simplified keeping the unit loops preserve_unit_iters asks for,
    # predicates as substituted
    keep = [v for v, r in dom.items() if preserve_unit_iters and const_value(r.extent) == 1]
    if preserve_unit_iters:  # the unit loops inside the split loop too
        post_order_visit(loop.body, lambda x: keep.append(x.loop_var) if isinstance(
            x, For) and const_value(x.extent) == 1 else None)
    body = rebind_blocks(loop.body, {loop.loop_var: value}, dom, pred,
                         simplify_predicates=False, keep_vars=keep)
    for k in range(len(facs) - 1, -1, -1):
        body = For(new_vars[k], IntImm(dt, 0), facs[k], ForKind.SERIAL, body,
                   None, (dict(loop.annotations) if loop.annotations and k == 0 else None))
    replace(state, path, body)
    return [LoopRV(v, loop_rv.func_name) for v in new_vars]
