"""Analyses of relay expressions (``relay.analysis``)."""
from __future__ import annotations

import enum
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
from .expr import visit_children as _visit_children


def _classic_children(e) -> list:
    """The sub-expressions of ``e`` in classic ``ExprVisitor`` order (a call's operator
    first), binders aside."""
    if isinstance(e, Call):
        return ([e.op] if isinstance(e.op, Expr) else []) + list(e.args)
    if isinstance(e, (Function, Let)):
        return []  # walked with their binders
    return children(e)


def _walk_vars(expr: Expr) -> tuple:
    """Classic's VarVisitor: every variable in visit order (a binder when it binds) and the
    bound ones; an explicit stack, so any depth."""
    every: dict = {}
    bound: dict = {}

    def mark(vs, is_bound: bool):
        for v in vs:
            every.setdefault(id(v), v)
            if is_bound:
                bound.setdefault(id(v), v)
    seen: set = set()
    stack: list = [expr]
    while stack:
        e = stack.pop()
        if isinstance(e, tuple):  # ("bind", vars): a match clause's pattern variables
            mark(e[1], True)
            continue
        if id(e) in seen:
            continue
        seen.add(id(e))
        if isinstance(e, Var):
            mark([e], False)
        elif isinstance(e, Function):
            mark(e.params, True)
            stack.append(e.body)
        elif isinstance(e, Let):
            mark([e.var], True)
            stack.extend([e.body, e.value])
        elif hasattr(e, "clauses"):  # a Match
            todo = [e.data]
            for c in e.clauses:
                todo.extend([("bind", c.lhs.bound_vars()), c.rhs])
            stack.extend(reversed(todo))
        elif isinstance(e, Expr):
            stack.extend(reversed(_classic_children(e)))
    return list(every.values()), list(bound.values())


def all_vars(expr: Expr) -> List[Var]:
    """Every variable in ``expr`` (parameters and let-bound ones included), in the order
    classic's visitor meets them."""
    return _walk_vars(expr)[0]


def bound_vars(expr: Expr) -> List[Var]:
    """The variables ``expr`` binds (function parameters, let variables, pattern
    variables), in visit order."""
    return _walk_vars(expr)[1]


def free_vars(expr: Expr) -> List[Var]:
    """The variables used in ``expr`` but not bound in it, in order of first use."""
    bound = {id(v) for v in bound_vars(expr)}
    return [n for n in post_order(expr) if isinstance(n, Var) and id(n) not in bound]


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


def _functions_of(expr) -> list:
    """The relay functions of an IRModule, or ``[expr]``."""
    if hasattr(expr, "functions"):
        return [f for f in expr.functions.values() if isinstance(f, Expr)]
    return [expr]


def list_op_freqs(mod) -> dict:
    """How many calls of each operator the module (or expression) makes, fused functions
    included: ``{"nn.conv2d": 2, "add": 1}``."""
    freqs: dict = {}
    seen: set = set()
    for func in _functions_of(mod):
        for n in post_order(func, _visit_children):
            if isinstance(n, Call) and id(n) not in seen and not isinstance(n.op, Expr) \
                    and hasattr(n.op, "name"):
                seen.add(id(n))
                freqs[n.op.name] = freqs.get(n.op.name, 0) + 1
    return freqs


def extract_operators(mod) -> dict:
    """Classic's older name of :func:`list_op_freqs`."""
    return list_op_freqs(mod)


def count_layers(expr, valid_ops) -> int:
    """The length of the deepest chain of calls of the operators named in ``valid_ops`` in
    ``expr`` (a module's ``main``): parallel layers count once, as in classic."""
    if hasattr(expr, "functions"):
        expr = expr["main"]
    names = set(valid_ops)
    depth: dict = {}
    for n in post_order(expr):
        below = max((depth.get(id(c), 0) for c in children(n)), default=0)
        depth[id(n)] = below + (1 if isinstance(n, Call) and not isinstance(n.op, Expr)
                                and getattr(n.op, "name", None) in names else 0)
    return depth[id(expr)]


def well_formed(expr: Expr) -> bool:
    """Whether every variable of ``expr`` is bound at most once (by a let, as a parameter or
    by a match pattern) and used only inside the scope that binds it (free variables are
    allowed)."""
    bound_ever: set = set()
    in_scope: dict = {}
    seen: set = set()
    stack: list = [("visit", expr)]
    while stack:
        action, e = stack.pop()
        if action == "unbind":
            for v in e:
                in_scope[id(v)] -= 1
            continue
        if action == "bind":  # a match clause's pattern variables
            for v in e:
                if id(v) in bound_ever:
                    return False
                bound_ever.add(id(v))
                in_scope[id(v)] = 1
            continue
        if id(e) in seen:
            continue
        if not isinstance(e, Var):  # a variable is checked at every use
            seen.add(id(e))
        binds = [e.var] if isinstance(e, Let) else list(e.params) \
            if isinstance(e, Function) else []
        for v in binds:
            if id(v) in bound_ever:
                return False
            bound_ever.add(id(v))
            in_scope[id(v)] = in_scope.get(id(v), 0) + 1
        if isinstance(e, Var) and id(e) in bound_ever and not in_scope.get(id(e)):
            return False
        if binds:
            stack.append(("unbind", binds))
        kids = [c for c in _visit_children(e) if isinstance(c, Expr)]
        if isinstance(e, Let):
            kids = [e.value, e.body]
        elif isinstance(e, Function):
            kids = [e.body]
        elif hasattr(e, "clauses"):  # a Match: each clause binds its pattern's variables
            todo = [("visit", e.data)]
            for c in e.clauses:
                vs = c.lhs.bound_vars()
                todo += [("bind", vs), ("visit", c.rhs), ("unbind", vs)]
            stack.extend(reversed(todo))
            continue
        for c in reversed(kids):
            stack.append(("visit", c))
    return True


class CallGraph:
    """Classic ``relay.analysis.CallGraph``: which global functions of a module call which
    (every reference by a ``GlobalVar`` call site counts once per call node)."""

    def __init__(self, module):
        from ..ir.module import GlobalVar
        self._module = module
        self._calls: dict = {}  # caller name -> [callee name per call site]
        self._refs: dict = {name: 0 for name in module.functions}
        for name, func in module.functions.items():
            sites = []
            if isinstance(func, Expr):
                for n in post_order(func, _visit_children):
                    if isinstance(n, Call) and isinstance(n.op, GlobalVar):
                        sites.append(n.op.name_hint)
            self._calls[name] = sites
            for callee in sites:
                self._refs[callee] = self._refs.get(callee, 0) + 1

    @property
    def module(self):
        """The module the call graph is of."""
        return self._module

    def _name(self, var) -> str:
        name = var if isinstance(var, str) else getattr(var, "name_hint", None)
        if name not in self._calls:
            raise TVMError(f"CallGraph: global function {name!r} is not in the module")
        return name

    def ref_count(self, var) -> int:
        """How many call sites (in any function, itself included) call ``var``."""
        return self._refs[self._name(var)]

    def global_call_count(self, var) -> int:
        """How many call sites of global functions ``var`` has."""
        return len(self._calls[self._name(var)])

    def is_recursive(self, var) -> bool:
        """Whether ``var`` calls itself."""
        name = self._name(var)
        return name in self._calls[name]

    def print_var(self, var) -> str:
        """The call graph entry of ``var``: its reference count and call sites."""
        name = self._name(var)
        out = f"Call graph node: {name} at: {id(self):#x},  #refs = {self._refs[name]}\n"
        for callee in self._calls[name]:
            out += f"  call site: <{name}> calls {callee}\n"
        return out + "\n"

    def topo_order(self) -> list:
        """The functions, each before those it calls (callers first; cycles broken)."""
        order, state = [], {}

        def visit(root):
            stack = [(root, iter(self._calls[root]))]
            state[root] = 1
            while stack:
                name, it = stack[-1]
                nxt = next((c for c in it if c in self._calls and c not in state), None)
                if nxt is None:
                    stack.pop()
                    order.append(name)
                else:
                    state[nxt] = 1
                    stack.append((nxt, iter(self._calls[nxt])))
        for name in self._calls:
            if name not in state:
                visit(name)
        return order[::-1]

    def __str__(self) -> str:
        return "CallGraph: \n" + "".join(self.print_var(n) for n in self.topo_order())

    __repr__ = __str__


def _walk_type_vars(obj) -> tuple:
    """Every type variable in a type or an expression's annotations, in visit order, and
    the bound ones (type parameters of functions and function types)."""
    from .ty import FuncType, IncompleteType, RefType, TupleType, TypeCall, TypeVar
    every: dict = {}
    bound: dict = {}

    def typ(t):
        while isinstance(t, IncompleteType) and t._link is not None:
            t = t._link
        if isinstance(t, TypeVar):
            every.setdefault(id(t), t)
        elif isinstance(t, FuncType):
            binds(t.type_params)
            for a in t.arg_types:
                typ(a)
            typ(t.ret_type)
        elif isinstance(t, TupleType):
            for f in t.fields:
                typ(f)
        elif isinstance(t, TypeCall):
            for a in t.args:
                typ(a)
        elif isinstance(t, RefType):
            typ(t.value)

    def binds(tps):
        for tp in tps:
            every.setdefault(id(tp), tp)
            bound.setdefault(id(tp), tp)
    if not isinstance(obj, Expr):
        typ(obj)
        return list(every.values()), list(bound.values())
    seen: set = set()
    stack: list = [obj]
    while stack:
        e = stack.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        if isinstance(e, Var):
            typ(e.type_annotation)
        elif isinstance(e, Function):
            binds(e.type_params)
            for p in e.params:
                seen.add(id(p))
                typ(p.type_annotation)
            stack.append(e.body)
            typ(e.ret_type)
        elif isinstance(e, Let):
            seen.add(id(e.var))
            typ(e.var.type_annotation)
            stack.extend([e.body, e.value])
        elif hasattr(e, "clauses"):  # a Match
            todo = [e.data]
            for c in e.clauses:
                todo.extend(c.lhs.bound_vars() + [c.rhs])
            stack.extend(reversed(todo))
        elif isinstance(e, Expr):
            for t in getattr(e, "type_args", ()):
                typ(t)
            stack.extend(reversed(_classic_children(e)))
    return list(every.values()), list(bound.values())


def free_type_vars(expr, mod=None) -> list:
    """The type variables used in ``expr`` (an expression or a type) but not bound in it
    (classic ``relay.analysis.free_type_vars``)."""
    every, bound = _walk_type_vars(expr)
    ids = {id(t) for t in bound}
    return [t for t in every if id(t) not in ids]


def bound_type_vars(expr, mod=None) -> list:
    """The type variables ``expr`` binds: type parameters of its functions and function
    types (classic ``relay.analysis.bound_type_vars``)."""
    return _walk_type_vars(expr)[1]


def all_type_vars(expr, mod=None) -> list:
    """Every type variable in ``expr`` (classic ``relay.analysis.all_type_vars``)."""
    return _walk_type_vars(expr)[0]


def check_kind(t, mod=None):
    """The kind of type ``t`` (classic ``relay.analysis.check_kind``): a type variable's own,
    ``Constraint`` for a relation, ``AdtHandle`` for an ADT's name, else ``Type``; a part of
    the wrong kind (a shape variable as a tuple field...) is a TVMError."""
    from .ty import (
        FuncType,
        GlobalTypeVar,
        IncompleteType,
        RefType,
        TensorType,
        TupleType,
        TypeCall,
        TypeKind,
        TypeRelation,
        TypeVar,
    )

    def want(part, kind, where):
        got = check_kind(part, mod)
        if got != kind:
            raise TVMError(f"check_kind: {where} has kind {TypeKind(got).name}, expected "
                           f"{TypeKind(kind).name}: {part!r}")
    if isinstance(t, (TypeVar, GlobalTypeVar)):
        return TypeKind(t.kind)
    if isinstance(t, (TensorType, IncompleteType)):
        return TypeKind.Type
    if isinstance(t, TupleType):
        for f in t.fields:
            want(f, TypeKind.Type, "a tuple field")
        return TypeKind.Type
    if isinstance(t, RefType):
        want(t.value, TypeKind.Type, "a reference's value type")
        return TypeKind.Type
    if isinstance(t, FuncType):
        for a in t.arg_types:
            want(a, TypeKind.Type, "a function type's argument")
        want(t.ret_type, TypeKind.Type, "a function type's result")
        for c in t.type_constraints:
            want(c, TypeKind.Constraint, "a function type's constraint")
        return TypeKind.Type
    if isinstance(t, TypeRelation):
        for a in t.args:
            want(a, TypeKind.Type, "a type relation's argument")
        return TypeKind.Constraint
    if isinstance(t, TypeCall):
        want(t.func, TypeKind.AdtHandle, "the callee of a type call")
        for a in t.args:
            want(a, TypeKind.Type, "a type call's argument")
        td = mod.type_definitions.get(t.func.name_hint) if mod is not None else None
        if td is not None and len(td.type_vars) != len(t.args):
            raise TVMError(f"check_kind: {t.func.name_hint} takes {len(td.type_vars)} type "
                           f"argument(s), the type call gives {len(t.args)}")
        return TypeKind.Type
    raise TVMError(f"check_kind: {type(t).__name__} is not a relay type")


class Feature(enum.IntEnum):
    """The features a relay program might contain (classic ``relay.analysis.Feature``)."""

    fVar = 0
    fGlobalVar = 1
    fConstant = 2
    fTuple = 3
    fTupleGetItem = 4
    fFunction = 5
    fOp = 6
    fCall = 7
    fLet = 8
    fIf = 9
    fRefCreate = 10
    fRefRead = 11
    fRefWrite = 12
    fConstructor = 13
    fMatch = 14
    fGraph = 15  # a non-atomic expression is used more than once
    fLetRec = 16  # a let-bound function refers to itself


def detect_feature(a, b=None) -> set:
    """The :class:`Feature` s an expression and/or the functions of a module use."""
    from ..ir.module import GlobalVar
    if hasattr(a, "functions"):
        a, b = b, a
    exprs = ([a] if a is not None else []) + (_functions_of(b) if b is not None else [])
    kinds = {Var: Feature.fVar, Constant: Feature.fConstant, Tuple: Feature.fTuple,
             TupleGetItem: Feature.fTupleGetItem, Function: Feature.fFunction,
             Call: Feature.fCall, Let: Feature.fLet, If: Feature.fIf}
    out: set = set()
    for e in exprs:
        uses: dict = {}
        for n in post_order(e, _visit_children):
            if isinstance(n, GlobalVar):
                out.add(Feature.fGlobalVar)
            elif isinstance(n, Expr):
                out.add(kinds[type(n)])
                if isinstance(n, Call) and not isinstance(n.op, (Expr, GlobalVar)):
                    out.add(Feature.fOp)
                if isinstance(n, Call) and isinstance(n.op, GlobalVar):
                    out.add(Feature.fGlobalVar)
                if isinstance(n, Let) and isinstance(n.value, Function) and any(
                        m is n.var for m in post_order(n.value)):
                    out.add(Feature.fLetRec)
                for c in _visit_children(n):
                    uses[id(c)] = uses.get(id(c), 0) + 1
        for n in post_order(e, _visit_children):
            if isinstance(n, (Call, Tuple, TupleGetItem, Let, If, Function)) \
                    and uses.get(id(n), 0) > 1:
                out.add(Feature.fGraph)
    return out


def extract_fused_functions(mod) -> dict:
    """The distinct primitive functions FuseOps(3) makes of ``mod`` (after
    SimplifyInference), keyed by structural hash."""
    from ..ir.structural import structural_hash
    from .transform import FuseOps, InferType, SimplifyInference
    fused = FuseOps(3)(SimplifyInference()(InferType()(mod)))
    out: dict = {}
    for func in _functions_of(fused):
        for n in post_order(func, _visit_children):
            if isinstance(n, Function) and (n.attrs or {}).get("Primitive"):
                out.setdefault(structural_hash(n), n)
    return out


def unmatched_cases(match, mod=None) -> list:
    """The patterns no clause of relay ``match`` covers (classic
    ``relay.analysis.unmatched_cases``)."""
    from .adt import unmatched_cases as _unmatched
    return _unmatched(match, mod)
