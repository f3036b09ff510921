"""Analyses of relay expressions (``relay.analysis``)."""
from __future__ import annotations

from typing import Any, Callable, List

from ..error import TVMError
from .expr import (
    Call,
    Constant,
    Expr,
    Function,
    If,
    Let,
    Tuple,
    TupleGetItem,
    Var,
    children,
    post_order,
)


def all_vars(expr: Expr) -> List[Var]:
    """Every variable in ``expr`` (parameters and let-bound ones included), in post order."""
    out, seen = [], set()
    for n in post_order(expr):
        vs = [n] if isinstance(n, Var) else list(n.params) if isinstance(n, Function) else \
            [n.var] if isinstance(n, Let) else []
        for v in vs:
            if id(v) not in seen:
                seen.add(id(v))
                out.append(v)
    return out


def bound_vars(expr: Expr) -> List[Var]:
    """The variables ``expr`` binds (function parameters and let variables)."""
    out = []
    for n in post_order(expr):
        if isinstance(n, Function):
            out.extend(n.params)
        elif isinstance(n, Let):
            out.append(n.var)
        elif hasattr(n, "_bound_vars"):  # a Match's pattern variables
            out.extend(n._bound_vars())
    return out


def free_vars(expr: Expr) -> List[Var]:
    """The variables used in ``expr`` but not bound in it, in order of first use."""
    bound = {id(v) for v in bound_vars(expr)}
    return [n for n in post_order(expr) if isinstance(n, Var) and id(n) not in bound]


def _visit_children(e: Expr) -> list:
    """Children in classic ``post_order_visit``'s order: a function's parameters, a call's
    operator, then the rest."""
    if isinstance(e, Function):
        return list(e.params) + [e.body]
    if isinstance(e, Call):
        return [e.op] + list(e.args)
    if isinstance(e, Let):
        return [e.var, e.value, e.body]
    return children(e)


def post_order_visit(expr: Expr, fvisit: Callable[[Any], None]) -> None:
    """Call ``fvisit`` on every node of ``expr`` (operators included) once, children first
    (an explicit stack: any depth)."""
    for n in post_order(expr, lambda e: _visit_children(e) if isinstance(e, Expr) else []):
        fvisit(n)


def _numel(shape) -> int:
    out = 1
    for d in shape:
        out *= int(d)
    return out


def _channels(shape, layout: str) -> int:
    """The output channel count of a convolution's output ``shape`` in ``layout`` (``NCHW``,
    ``NHWC``, ``NCHW16c``…: the product of its ``C`` and ``c`` dimensions)."""
    letters = [ch for ch in layout if ch.isalpha()]
    return _numel(d for d, ch in zip(shape, letters) if ch in "Cc")


def _macs(call: Call) -> int:
    name = getattr(call.op, "name", "")
    out_t = call.checked_type
    if not hasattr(out_t, "shape"):
        return 0
    if "conv" in name:  # every layout and grouping: weights per output channel, per element
        a = call.attrs
        layout = a.get("out_layout") or a.get("data_layout") or a.get("layout") or "NCHW"
        w = call.args[1].checked_type.shape
        return _numel(out_t.shape) * _numel(w) // _channels(out_t.shape, layout)
    if name in ("nn.dense", "nn.contrib_dense_pack", "nn.matmul"):
        data = call.args[0].checked_type.shape
        k = data[-2] if name == "nn.matmul" and call.attrs.get("transpose_a") else data[-1]
        return _numel(out_t.shape) * int(k)
    if name == "nn.batch_matmul":
        x = call.args[0].checked_type.shape
        return _numel(out_t.shape) * int(x[-2] if call.attrs.get("transpose_a") else x[-1])
    return 0


def get_total_mac_number(expr: Expr) -> int:
    """The multiply-accumulates of the convolutions (any layout, grouped, transposed), dense
    layers and batch matmuls in the type-checked ``expr``: per call, its output's elements
    times the products each sums."""
    return sum(_macs(n) for n in post_order(expr) if isinstance(n, Call))


class _Scope:
    """A scope of basic block normal form: the root, an ``If`` branch or a function body."""

    __slots__ = ("parent", "depth")

    def __init__(self, parent: "_Scope" = None):
        self.parent = parent
        self.depth = 0 if parent is None else parent.depth + 1


def _lca(a: _Scope, b: _Scope) -> _Scope:
    while a.depth > b.depth:
        a = a.parent
    while b.depth > a.depth:
        b = b.parent
    while a is not b:
        a, b = a.parent, b.parent
    return a


def _uses(e: Expr, scope: _Scope, inner: dict) -> list:
    """(child, the scope it is used in) of each edge out of ``e`` (in ``scope``); ``inner``
    keeps the scope each branch or body opens, one per node."""
    def opened(key):
        if key not in inner:
            inner[key] = _Scope(scope)
        return inner[key]
    if isinstance(e, If):
        return [(e.cond, scope), (e.true_branch, opened((id(e), 1))),
                (e.false_branch, opened((id(e), 2)))]
    if isinstance(e, Function):
        return [(p, scope) for p in e.params] + [(e.body, opened((id(e), 0)))]
    if isinstance(e, Let):
        return [(e.var, scope), (e.value, scope), (e.body, scope)]
    if isinstance(e, Call):
        return [(a, scope) for a in ([e.op] if isinstance(e.op, Expr) else []) + list(e.args)]
    if isinstance(e, Tuple):
        return [(f, scope) for f in e.fields]
    if isinstance(e, TupleGetItem):
        return [(e.tuple_value, scope)]
    return []


def check_basic_block_normal_form(expr: Expr) -> bool:
    """Check that ``expr`` is in basic block normal form: every expression used in more than
    one scope (the branches of an ``If``, function bodies) is also used in the scope that
    encloses all those uses (e.g. bound there by a ``let``), so that where it is computed is
    not ambiguous. Raises TVMError naming the first expression that should be lifted."""
    def kids(e):
        return [c for c, _ in _uses(e, root, {})]
    root = _Scope()
    order = list(reversed(post_order(expr, kids)))  # every user before what it uses
    scope_of = {id(expr): root}
    use_scopes: dict = {}
    inner: dict = {}
    for n in order:
        if id(n) != id(expr):
            scopes = use_scopes[id(n)]
            s = scopes[0]
            for t in scopes[1:]:
                s = _lca(s, t)
            if not isinstance(n, Constant) and all(t is not s for t in scopes):
                raise TVMError("The expression below violates the basic block normal form in "
                               f"that its scope should be lifted:\n{n}")
            scope_of[id(n)] = s
        for child, sc in _uses(n, scope_of[id(n)], inner):
            use_scopes.setdefault(id(child), []).append(sc)
    return True


def unmatched_cases(match, mod=None) -> list:
    """The patterns no clause of relay ``match`` covers (classic
    ``relay.analysis.unmatched_cases``)."""
    from .adt import unmatched_cases as _unmatched
    return _unmatched(match, mod)
