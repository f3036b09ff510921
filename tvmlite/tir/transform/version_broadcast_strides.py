"""Give a function with vectorized loops over broadcasting arguments a compact-stride copy.

An argument whose shape has a variable (classic TE gives it an ``auto_broadcast`` buffer)
is indexed through stride variables bound at call time, 0 along a dimension of extent 1.
A vectorized loop cannot load such a buffer as one contiguous vector, so it runs lane by
lane, and the C compiler cannot vectorize a loop whose stride it does not know either. This
pass puts a copy of the body specialised to compact arguments in front, chosen at run time
when every such stride is the compact one; the copy's accesses are contiguous (vector loads,
or loops the C compiler vectorizes), the original (kept for broadcasting calls) runs as
before.

Before::

    for i, j in T.grid(n, 4):  # j vectorized
        C_1[i * stride_2 + j * stride_3] = A_1[i * stride + j * stride_1]

After::

    if stride == 4 and stride_1 == 1 and stride_2 == 4 and stride_3 == 1:
        for i, j in T.grid(n, 4):
            C_1[i * 4 + j] = A_1[i * 4 + j]
    else:
        (the body as before)
"""
from __future__ import annotations

from typing import Dict, List

from ...arith import Analyzer
from .. import expr as E
from .. import op as _op
from .. import stmt as S
from ..functor import post_order_visit
from .fresh_copy import fresh_copy
from .simplify import simplify_stmt


def _has_vectorized_loop(body: S.Stmt) -> bool:
    found = [False]

    def f(x):
        if isinstance(x, S.For) and x.kind == S.ForKind.VECTORIZED:
            found[0] = True

    post_order_visit(body, f)
    return found[0]


def version_broadcast_strides(body: S.Stmt, func=None) -> S.Stmt:
    """``body`` preceded by its compact-stride copy when it vectorizes a loop and takes
    ``auto_broadcast`` buffers."""
    if func is None or not _has_vectorized_loop(body):
        return body
    ana = Analyzer()
    vmap: Dict[E.Var, E.PrimExpr] = {}
    conds: List[E.PrimExpr] = []
    for buf in func.buffer_map.values():
        if buf.buffer_type != "auto_broadcast" or not buf.strides:
            continue
        compact: E.PrimExpr = E.IntImm("int32", 1)
        for k in reversed(range(len(buf.shape))):
            s = buf.strides[k]
            want = compact if compact.dtype == s.dtype else _op.cast(s.dtype, compact)
            if isinstance(s, E.Var) and s not in vmap:
                vmap[s] = ana.simplify(want)
                conds.append(_op.eq(s, vmap[s]))
            compact = _op.mul(compact, buf.shape[k])
    if not vmap:
        return body
    cond = conds[0]
    for c in conds[1:]:
        cond = _op.logical_and(cond, c)
    return S.IfThenElse(cond, simplify_stmt(fresh_copy(body, vmap)), body)
