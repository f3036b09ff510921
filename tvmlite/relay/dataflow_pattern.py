"""The relay dataflow pattern language (``tvm.relay.dataflow_pattern``).

A pattern (``is_op("nn.relu")(wildcard())``, ``dominates(parent, path, child)``...) is matched
against an expression with :meth:`DFPattern.match`; :func:`rewrite` replaces every match by what
a :class:`DFPatternCallback` returns, to a fixed point; :func:`partition` turns every match into
a call of a function holding the matched subgraph.

Matching follows classic TVM: each pattern node binds one expression (a pattern used twice must
match the same expression twice), ``add`` and ``multiply`` calls also match with their
arguments swapped, and a dominator pattern matches a child whose every input path runs through
``path`` nodes up to one ``parent`` node it post-dominates. Graphs are walked with explicit
stacks, so chains of any length are handled; only the pattern itself is recursed into.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence

import numpy as np

from ..error import TVMError
from ..ir.module import GlobalVar, IRModule
from ..ir.structural import structural_equal
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
    post_order,
    replace_children,
)
from .expr import visit_children as _visit_children
from .op import registry
from .op.registry import Op
from .ty import TensorType, Type


# ------------------------------------------------------------------------------------ patterns
class DFPattern:
    """Base class of the dataflow patterns; patterns compare by identity, as IR objects do."""

    def __str__(self) -> str:
        return _pattern_text(self)

    __repr__ = __str__

    def astext(self, show_meta_data: bool = True, annotate=None) -> str:
        """The text form of this pattern."""
        return str(self)

    def __call__(self, *args) -> "CallPattern":
        """A call of this pattern: ``is_op("add")(x, y)``; ``p(None)`` matches any arguments."""
        args = list(args)
        if len(args) == 1 and args[0] is None:
            return CallPattern(self, None)
        return CallPattern(self, args)

    def __or__(self, other: "DFPattern") -> "AltPattern":
        return AltPattern(self, other)

    def __add__(self, other):
        return is_op("add")(self, other)

    def __sub__(self, other):
        return is_op("subtract")(self, other)

    def __mul__(self, other):
        return is_op("multiply")(self, other)

    def __truediv__(self, other):
        return is_op("divide")(self, other)

    def has_attr(self, attrs: Dict[str, Any]) -> "AttrPattern":
        """This pattern, where the matched op, call or function also has ``attrs``."""
        return AttrPattern(self, attrs)

    def has_type(self, ttype: Type) -> "TypePattern":
        """This pattern, where the matched expression also has type ``ttype``."""
        return has_type(ttype, self)

    def has_dtype(self, dtype: str) -> "DataTypePattern":
        """This pattern, where the matched expression is also a tensor of ``dtype``."""
        return has_dtype(dtype, self)

    def has_shape(self, shape: Sequence[Any]) -> "ShapePattern":
        """This pattern, where the matched expression is also a tensor of ``shape``."""
        return has_shape(shape, self)

    def match(self, expr: Expr) -> bool:
        """Whether this pattern matches ``expr``."""
        return match(self, expr)

    def partition(self, expr: Expr, attrs: Optional[Dict[str, Any]] = None,
                  check: Callable[[Expr], bool] = lambda x: True) -> Expr:
        """``expr`` with each match replaced by a call of a function of the match (see
        :func:`partition`)."""
        return partition(self, expr, attrs, check)

    def dominates(self, parent: "DFPattern", path: Optional["DFPattern"] = None
                  ) -> "DominatorPattern":
        """This pattern as the child of ``parent`` along ``path`` nodes (any by default)."""
        return DominatorPattern(parent, wildcard() if path is None else path, self)

    def optional(self, option_constructor: Callable[["DFPattern"], "DFPattern"]
                 ) -> "AltPattern":
        """This pattern, or ``option_constructor(self)``: ``conv.optional(is_op("nn.relu"))``
        matches a convolution with or without a relu after it."""
        return self | option_constructor(self)


def _as_pattern(p, what: str) -> DFPattern:
    if isinstance(p, DFPattern):
        return p
    if isinstance(p, (Expr, Op, GlobalVar)):
        return ExprPattern(p)
    raise TVMError(f"{what}: expected a dataflow pattern, got {type(p).__name__}")


def _patterns(items, what: str) -> Optional[tuple]:
    return None if items is None else tuple(_as_pattern(p, what) for p in items)


class ExprPattern(DFPattern):
    """Matches an expression structurally equal to ``expr`` (an operator for ``is_op``)."""

    def __init__(self, expr):
        self.expr = expr


class VarPattern(DFPattern):
    """Matches a variable, of name ``name_hint`` unless that is empty."""

    def __init__(self, name_hint: str = ""):
        self.name_hint = str(name_hint)

    @property
    def name(self) -> str:
        return self.name_hint


class ConstantPattern(DFPattern):
    """Matches a constant."""


class WildcardPattern(DFPattern):
    """Matches any expression."""


class CallPattern(DFPattern):
    """Matches a call of ``op`` on ``args`` (any arguments when ``args`` is None)."""

    def __init__(self, op: DFPattern, args: Optional[Sequence[DFPattern]]):
        self.op = _as_pattern(op, "CallPattern op")
        self.args = _patterns(args, "CallPattern argument")


class FunctionPattern(DFPattern):
    """Matches a function of ``params`` (any when None) and ``body``."""

    def __init__(self, params: Optional[Sequence[DFPattern]], body: DFPattern):
        self.params = _patterns(params, "FunctionPattern parameter")
        self.body = _as_pattern(body, "FunctionPattern body")


class IfPattern(DFPattern):
    """Matches ``if (cond) {true_branch} else {false_branch}``."""

    def __init__(self, cond: DFPattern, true_branch: DFPattern, false_branch: DFPattern):
        self.cond = _as_pattern(cond, "IfPattern cond")
        self.true_branch = _as_pattern(true_branch, "IfPattern true_branch")
        self.false_branch = _as_pattern(false_branch, "IfPattern false_branch")


class LetPattern(DFPattern):
    """Matches ``let var = value; body``."""

    def __init__(self, var: DFPattern, value: DFPattern, body: DFPattern):
        self.var = _as_pattern(var, "LetPattern var")
        self.value = _as_pattern(value, "LetPattern value")
        self.body = _as_pattern(body, "LetPattern body")


class TuplePattern(DFPattern):
    """Matches a tuple of ``fields`` (any fields when None)."""

    def __init__(self, fields: Optional[Sequence[DFPattern]]):
        self.fields = _patterns(fields, "TuplePattern field")

    def __getitem__(self, index: int) -> DFPattern:
        if self.fields is None:
            raise TVMError("TuplePattern: a pattern of any fields has no field to index")
        return self.fields[index]

    def __len__(self) -> int:
        return 0 if self.fields is None else len(self.fields)

    def astype(self, _):
        raise TVMError("TuplePattern: a tuple has no dtype to cast")


class TupleGetItemPattern(DFPattern):
    """Matches field ``index`` (any field when -1) of a tuple matching ``tuple``."""

    def __init__(self, tuple_value: DFPattern, index: Optional[int] = None):
        self.tuple = _as_pattern(tuple_value, "TupleGetItemPattern tuple")
        self.index = -1 if index is None else int(index)


class AltPattern(DFPattern):
    """Matches what ``left`` matches, else what ``right`` matches."""

    def __init__(self, left: DFPattern, right: DFPattern):
        self.left = _as_pattern(left, "AltPattern left")
        self.right = _as_pattern(right, "AltPattern right")


class TypePattern(DFPattern):
    """Matches what ``pattern`` matches when its type is ``type``."""

    def __init__(self, pattern: DFPattern, ttype: Type):
        self.pattern = _as_pattern(pattern, "TypePattern")
        self.type = ttype


class DataTypePattern(DFPattern):
    """Matches what ``pattern`` matches when it is a tensor of ``dtype``."""

    def __init__(self, pattern: DFPattern, dtype: str):
        self.pattern = _as_pattern(pattern, "DataTypePattern")
        self.dtype = str(dtype)


class ShapePattern(DFPattern):
    """Matches what ``pattern`` matches when it is a tensor of ``shape``."""

    def __init__(self, pattern: DFPattern, shape: Sequence[Any]):
        self.pattern = _as_pattern(pattern, "ShapePattern")
        self.shape = tuple(shape)


class PatternAttrs(dict):
    """The attributes an :class:`AttrPattern` requires (classic ``DictAttrs``)."""

    def __getattr__(self, name: str):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


class AttrPattern(DFPattern):
    """Matches what ``pattern`` matches when the op, call or function also has ``attrs``."""

    def __init__(self, pattern: DFPattern, attrs: Dict[str, Any]):
        self.pattern = _as_pattern(pattern, "AttrPattern")
        if attrs is None:
            attrs = {}
        if not hasattr(attrs, "items"):
            raise TVMError(f"has_attr: expected a dict of attributes, got {type(attrs).__name__}")
        self.attrs = PatternAttrs(attrs.items())


class DominatorPattern(DFPattern):
    """Matches ``child`` when every input path of it runs through nodes matching ``path`` up
    to one node matching ``parent``, which ``child`` post-dominates."""

    def __init__(self, parent: DFPattern, path: DFPattern, child: DFPattern):
        self.parent = _as_pattern(parent, "DominatorPattern parent")
        self.path = _as_pattern(path, "DominatorPattern path")
        self.child = _as_pattern(child, "DominatorPattern child")


# --------------------------------------------------------------------------------- constructors
def is_var(name: str = "") -> VarPattern:
    """A pattern of a variable (named ``name``, any if empty)."""
    return VarPattern(name)


def is_constant() -> ConstantPattern:
    """A pattern of any constant."""
    return ConstantPattern()


def is_expr(expr: Expr) -> ExprPattern:
    """A pattern of an expression structurally equal to ``expr``."""
    return ExprPattern(expr)


def is_op(op_name: str) -> ExprPattern:
    """A pattern of the operator ``op_name`` (call it for a call pattern)."""
    return ExprPattern(registry.get(op_name))


def is_tuple(fields: Optional[Sequence[DFPattern]]) -> TuplePattern:
    """A pattern of a tuple of ``fields`` (any fields when None)."""
    return TuplePattern(fields)


def is_tuple_get_item(tuple_value: DFPattern, index: Optional[int] = None
                      ) -> TupleGetItemPattern:
    """A pattern of field ``index`` (any when None) of a tuple matching ``tuple_value``."""
    return TupleGetItemPattern(tuple_value, index)


def is_if(cond: DFPattern, true_branch: DFPattern, false_branch: DFPattern) -> IfPattern:
    """A pattern of an ``If``."""
    return IfPattern(cond, true_branch, false_branch)


def is_let(var: DFPattern, value: DFPattern, body: DFPattern) -> LetPattern:
    """A pattern of a ``Let``."""
    return LetPattern(var, value, body)


def wildcard() -> WildcardPattern:
    """A pattern matching any expression."""
    return WildcardPattern()


def has_type(ttype: Type, pattern: Optional[DFPattern] = None) -> TypePattern:
    """``pattern`` (a wildcard by default) where the match has type ``ttype``."""
    return TypePattern(wildcard() if pattern is None else pattern, ttype)


def has_dtype(dtype: str, pattern: Optional[DFPattern] = None) -> DataTypePattern:
    """``pattern`` (a wildcard by default) where the match is a tensor of ``dtype``."""
    return DataTypePattern(wildcard() if pattern is None else pattern, dtype)


def has_shape(shape: Sequence[Any], pattern: Optional[DFPattern] = None) -> ShapePattern:
    """``pattern`` (a wildcard by default) where the match is a tensor of ``shape``."""
    return ShapePattern(wildcard() if pattern is None else pattern, shape)


def has_attr(attrs: Dict[str, Any], pattern: Optional[DFPattern] = None) -> AttrPattern:
    """``pattern`` (a wildcard by default) where the match has attributes ``attrs``."""
    return (wildcard() if pattern is None else pattern).has_attr(attrs)


def dominates(parent: DFPattern, path: DFPattern, child: DFPattern) -> DominatorPattern:
    """A pattern of ``child`` dominating ``parent`` along ``path`` nodes."""
    return DominatorPattern(parent, path, child)


# ---------------------------------------------------------------------------------- the graphs
def _pattern_children(p: DFPattern) -> list:
    """The sub-patterns of ``p`` in classic's visiting order."""
    if isinstance(p, CallPattern):
        return [p.op] + list(p.args or ())
    if isinstance(p, FunctionPattern):
        return list(p.params or ()) + [p.body]
    if isinstance(p, TuplePattern):
        return list(p.fields or ())
    if isinstance(p, TupleGetItemPattern):
        return [p.tuple]
    if isinstance(p, AltPattern):
        return [p.left, p.right]
    if isinstance(p, (TypePattern, DataTypePattern, ShapePattern, AttrPattern)):
        return [p.pattern]
    if isinstance(p, DominatorPattern):
        return [p.parent, p.path, p.child]
    if isinstance(p, IfPattern):
        return [p.cond, p.true_branch, p.false_branch]
    if isinstance(p, LetPattern):
        return [p.var, p.value, p.body]
    return []


def _dataflow_inputs(e) -> list:
    """(input, consumer) edges into ``e``: a function depends on its body only, a let's
    variable on its value."""
    if isinstance(e, Call):
        return [(c, e) for c in [e.op] + list(e.args)]
    if isinstance(e, Function):
        return [(e.body, e)]
    if isinstance(e, Let):
        return [(e.value, e.var), (e.body, e)]
    return [(c, e) for c in _visit_children(e)]


class _Node:
    __slots__ = ("ref", "index", "inputs", "outputs", "depth", "dom_parent", "dom_children")

    def __init__(self, ref, index: int):
        self.ref, self.index = ref, index
        self.inputs: List["_Node"] = []
        self.outputs: List["_Node"] = []
        self.depth = 0
        self.dom_parent: Optional["_Node"] = None
        self.dom_children: List["_Node"] = []

    def dominates(self, other: "_Node") -> bool:
        """Whether ``other`` is below this node in the post-dominator tree."""
        stack, seen = [self], set()
        while stack:
            for n in stack.pop().dom_children:
                if id(n) not in seen:
                    if n is other:
                        return True
                    seen.add(id(n))
                    stack.append(n)
        return False


class _Graph:
    """An expression's or pattern's nodes in post order, with their dataflow edges and the
    post-dominator tree (classic ``IndexedGraph``)."""

    def __init__(self, root, children_of, inputs_of):
        self.order = [_Node(n, i) for i, n in enumerate(post_order(root, children_of))]
        self.by_id = {id(n.ref): n for n in self.order}
        for node in self.order:
            for child, consumer in inputs_of(node.ref):
                c, u = self.by_id.get(id(child)), self.by_id.get(id(consumer))
                if c is not None and u is not None:
                    c.outputs.append(u)
                    u.inputs.append(c)
        root_node = self.by_id[id(root)]
        for node in reversed(self.order):
            parent = None if node is root_node else self._lca(node.outputs)
            node.depth = 1 if parent is None else parent.depth + 1
            node.dom_parent = parent
            if parent is not None:
                parent.dom_children.append(node)

    @staticmethod
    def _lca(nodes: List[_Node]) -> Optional[_Node]:
        if not nodes:
            return None
        a = nodes[0]
        for b in nodes[1:]:
            while a is not b:
                if a is None or b is None:
                    return None
                if a.depth < b.depth:
                    b = b.dom_parent
                elif a.depth > b.depth:
                    a = a.dom_parent
                else:
                    a, b = a.dom_parent, b.dom_parent
        return a

    def node(self, e) -> _Node:
        return self.by_id[id(e)]


def _expr_graph(expr) -> _Graph:
    return _Graph(expr, _visit_children, _dataflow_inputs)


def _pattern_graph(pattern: DFPattern) -> _Graph:
    return _Graph(pattern, _pattern_children,
                  lambda p: [(c, p) for c in _pattern_children(p)])


# ------------------------------------------------------------------------------------ matching
def _plain(v):
    """An attribute value as plain Python data: IR immediates to numbers and strings,
    sequences to tuples."""
    kind = type(v).__name__
    if kind in ("IntImm", "FloatImm", "StringImm") and hasattr(v, "value"):
        return v.value
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, (list, tuple)) or kind == "Array":
        return tuple(_plain(x) for x in v)
    if kind == "DataType":
        return str(v)
    return v


def _attr_matches(want, got) -> bool:
    """Whether a pattern's attribute value ``want`` equals an IR attribute value ``got``."""
    a, b = _plain(want), _plain(got)
    plain = (int, float, str, bool, tuple, type(None))
    if isinstance(a, plain) and isinstance(b, plain):
        if isinstance(a, tuple) and isinstance(b, tuple):
            return len(a) == len(b) and all(_attr_matches(x, y) for x, y in zip(a, b))
        return type(a) is type(b) and a == b if isinstance(a, str) or isinstance(b, str) \
            else a == b
    return structural_equal(want, got, map_free_vars=True)


def _type_of(expr) -> Type:
    """The type of ``expr``, inferring it (and its sub-expressions') first if needed."""
    if not isinstance(expr, Expr):
        raise TVMError(f"a type pattern cannot match {type(expr).__name__}, which has no type")
    if expr._checked_type is None:
        from .transform.infer_type import infer_type
        infer_type(expr)
    return expr._checked_type


def _op_name(p: DFPattern) -> Optional[str]:
    """The operator name of a call pattern whose op is ``is_op(name)``."""
    if isinstance(p, CallPattern) and isinstance(p.op, ExprPattern) \
            and isinstance(p.op.expr, Op):
        return p.op.expr.name
    return None


def _is_call_of(e, name: str) -> bool:
    return isinstance(e, Call) and isinstance(e.op, Op) and e.op.name == name


class _Matcher:
    """Classic ``DFPatternMatcher``: each pattern node binds the expressions it matched
    (``memo``), undone when a surrounding match fails."""

    def __init__(self, graph: _Graph):
        self.graph = graph
        self.memo: Dict[DFPattern, List[Any]] = {}
        self.matched: List[DFPattern] = []
        self.memoize = True

    def match(self, pattern: DFPattern, expr) -> bool:
        self.memo.clear()
        self.matched.clear()
        return self.visit(pattern, expr)

    def _clear(self, watermark: int) -> None:
        for p in self.matched[watermark:]:
            self.memo.pop(p, None)
        del self.matched[watermark:]

    def visit(self, pattern: DFPattern, expr) -> bool:
        if self.memoize and pattern in self.memo:
            return expr is self.memo[pattern][0]
        watermark = len(self.matched)
        out = self._dispatch(pattern, expr)
        if out:
            self.memo.setdefault(pattern, []).append(expr)
            self.matched.append(pattern)
        else:
            self._clear(watermark)
        return out

    def _dispatch(self, p: DFPattern, e) -> bool:  # noqa: C901 (one branch per pattern kind)
        if isinstance(p, WildcardPattern):
            return True
        if isinstance(p, ExprPattern):
            return p.expr is e or (not isinstance(p.expr, Op)
                                   and structural_equal(p.expr, e, map_free_vars=False))
        if isinstance(p, VarPattern):
            return isinstance(e, Var) and (not p.name_hint or p.name_hint == e.name_hint)
        if isinstance(p, ConstantPattern):
            return isinstance(e, Constant)
        if isinstance(p, CallPattern):
            return self._call(p, e)
        if isinstance(p, AltPattern):
            return self.visit(p.left, e) or self.visit(p.right, e)
        if isinstance(p, AttrPattern):
            return self.visit(p.pattern, e) and self._attrs(p, e)
        if isinstance(p, TypePattern):
            return structural_equal(p.type, _type_of(e)) and self.visit(p.pattern, e)
        if isinstance(p, DataTypePattern):
            t = _type_of(e)
            return isinstance(t, TensorType) and t.dtype == p.dtype and self.visit(p.pattern, e)
        if isinstance(p, ShapePattern):
            t = _type_of(e)
            return isinstance(t, TensorType) and _attr_matches(p.shape, tuple(t.shape)) \
                and self.visit(p.pattern, e)
        if isinstance(p, TuplePattern):
            if not isinstance(e, Tuple):
                return False
            return p.fields is None or self._all(p.fields, e.fields)
        if isinstance(p, TupleGetItemPattern):
            return isinstance(e, TupleGetItem) and (p.index in (-1, e.index)) \
                and self.visit(p.tuple, e.tuple_value)
        if isinstance(p, FunctionPattern):
            if not isinstance(e, Function):
                return False
            if p.params is not None and not self._all(p.params, e.params):
                return False
            return self.visit(p.body, e.body)
        if isinstance(p, IfPattern):
            return isinstance(e, If) and self.visit(p.cond, e.cond) \
                and self.visit(p.true_branch, e.true_branch) \
                and self.visit(p.false_branch, e.false_branch)
        if isinstance(p, LetPattern):
            return isinstance(e, Let) and self.visit(p.var, e.var) \
                and self.visit(p.value, e.value) and self.visit(p.body, e.body)
        if isinstance(p, DominatorPattern):
            return self._dominator(p, e)
        raise TVMError(f"dataflow pattern: cannot match with {type(p).__name__}")

    def _all(self, patterns, exprs) -> bool:
        if len(patterns) != len(exprs):
            return False
        return all(self.visit(p, x) for p, x in zip(patterns, exprs))

    def _attrs(self, p: AttrPattern, e) -> bool:
        if isinstance(e, Op):
            return all(e.has_attr(k) and e.get_attr(k) is not None
                       and _attr_matches(v, e.get_attr(k)) for k, v in p.attrs.items())
        if isinstance(e, Call):
            have = e.attrs if e.attrs is not None else {}
            return all(k in have and _attr_matches(v, have[k]) for k, v in p.attrs.items())
        if isinstance(e, Function):
            have = e.attrs or {}
            return all(k in have and _attr_matches(v, have[k]) for k, v in p.attrs.items())
        return False

    def _call(self, p: CallPattern, e) -> bool:
        watermark = len(self.matched)
        if not isinstance(e, Call):
            return False
        if self.visit(p.op, e.op):
            watermark2 = len(self.matched)

            def args_match(pattern_args) -> bool:
                ok = pattern_args is None or self._all(pattern_args, e.args)
                if not ok:
                    self._clear(watermark2)
                return ok
            if args_match(p.args):
                return True
            if _op_name(p) in ("add", "multiply") and p.args is not None:
                return args_match(tuple(reversed(p.args)))
            return False
        self._clear(watermark)
        # (a * b) / c also matches a * (b / c) and (a / c) * b, and the converse
        name = _op_name(p)
        if name == "divide" and p.args and _op_name(p.args[0]) == "multiply" \
                and _is_call_of(e, "multiply") \
                and (_is_call_of(e.args[0], "divide") or _is_call_of(e.args[1], "divide")):
            mul = p.args[0]
            for i in range(2):
                div = CallPattern(p.op, [mul.args[i], p.args[1]])
                alt = CallPattern(mul.op, [mul.args[(i + 1) % 2], div])
                if self.visit(alt, e):
                    return True
                self._clear(watermark)
            return False
        if name == "multiply" and p.args:
            for i in range(2):
                arg = p.args[i]
                if _op_name(arg) == "divide" and _is_call_of(e, "divide") \
                        and (_is_call_of(e.args[0], "multiply")
                             or _is_call_of(e.args[1], "multiply")):
                    mul = CallPattern(p.op, [arg.args[0], p.args[(i + 1) % 2]])
                    return self.visit(CallPattern(arg.op, [mul, arg.args[1]]), e)
        return False

    def _matches_path(self, p: DominatorPattern, expr) -> bool:
        """Every input path of ``expr`` runs through ``p.path`` matches to a ``p.parent``
        match (an explicit stack standing for classic's recursion)."""
        stack = [(expr, iter(self.graph.node(expr).inputs))]
        while stack:
            e, it = stack[-1]
            for node in it:
                if isinstance(e, Call) and node.ref is e.op:
                    continue
                self.memoize = True
                if self.visit(p.parent, node.ref):
                    stack.pop()  # classic returns true at the first parent reached
                    break
                self.memoize = False
                if not self.visit(p.path, node.ref):
                    return False
                stack.append((node.ref, iter(node.inputs)))
                break
            else:
                stack.pop()
        return True

    def _dominator(self, p: DominatorPattern, e) -> bool:
        if not self.visit(p.child, e):
            return False
        on_path = self._matches_path(p, e)
        self.memoize = True
        if not on_path:
            return False
        stack, seen = [self.graph.node(e)], set()
        while stack:
            for n in stack.pop().dom_children:
                if id(n) not in seen:
                    if self.visit(p.parent, n.ref):
                        return True
                    stack.append(n)
                    seen.add(id(n))
        return False


def match(pattern: DFPattern, expr: Expr) -> bool:
    """Whether ``pattern`` matches ``expr``."""
    if not isinstance(pattern, DFPattern):
        raise TVMError(f"match: expected a dataflow pattern, got {type(pattern).__name__}")
    return _Matcher(_expr_graph(expr)).match(pattern, expr)


# ------------------------------------------------------------------------------------ grouping
class _Group:
    __slots__ = ("gid", "root", "matched", "args", "function", "name")


_PARTITIONED = "PartitionedFromPattern"


def _mutate(root, fpost: Callable[[Any, Any, Dict[int, Any]], Any],
            stop: Optional[Dict[int, Any]] = None):
    """Rebuild ``root`` bottom-up (an explicit stack): each node from its rebuilt children,
    then ``fpost(pre, post, memo)``; nodes in ``stop`` (by id) are replaced by their values
    there and not walked into. A node whose children are unchanged is kept as it is.
    Returns (new root, memo of id -> (pre, post) of the nodes walked)."""
    stop = stop or {}
    memo: Dict[int, Any] = {}

    def kids(e):
        return [] if id(e) in stop else _visit_children(e)

    def sub(c):
        if id(c) in stop:
            return stop[id(c)]
        hit = memo.get(id(c))
        return c if hit is None else hit[1]
    for n in post_order(root, kids):
        if id(n) in stop:
            continue
        memo[id(n)] = (n, fpost(n, replace_children(n, sub), memo))
    return sub(root), memo


def _node_name(e) -> str:
    if isinstance(e, Call):
        return e.op.name + "_" if isinstance(e.op, Op) else "Call_"
    if isinstance(e, Tuple):
        return "Tuple_"
    if isinstance(e, Function):
        return "Function"
    if isinstance(e, Let):
        return "Let_"
    if isinstance(e, If):
        return "If_"
    if isinstance(e, TupleGetItem):
        return f"TupleGetItem{e.index}_"
    return ""


class _Grouper:
    """Classic ``PatternGrouper``: the non-overlapping matches of a pattern, from the root of
    the expression down, each with the function it would be partitioned into."""

    def __init__(self, pattern: DFPattern, expr):
        self.pattern = pattern
        self.pattern_graph = _pattern_graph(pattern)
        self.matcher = _Matcher(_expr_graph(expr))
        self.groups: Dict[int, _Group] = {}
        self.gid_of: Dict[int, int] = {}
        self.graph_number = 0
        pre_partitioned = set()
        for node in reversed(self.matcher.graph.order):
            cur = node.ref
            if id(cur) in self.gid_of:
                continue
            if isinstance(cur, Function) and _PARTITIONED in (cur.attrs or {}):
                pre_partitioned.add(id(cur))
                pre_partitioned.update(id(n) for n in post_order(cur.body, _visit_children))
            if id(cur) not in pre_partitioned and isinstance(cur, Expr) \
                    and self.matcher.match(pattern, cur):
                self._create_group(cur)

    def root_group(self, e) -> Optional[_Group]:
        """The group whose root is ``e``, if any."""
        gid = self.gid_of.get(id(e))
        if gid is None:
            return None
        group = self.groups[gid]
        return group if group.root is e else None

    def _embed_const(self, e, p: DFPattern) -> bool:
        if not isinstance(e, Constant):
            return False
        if isinstance(p, ConstantPattern):
            return True
        if isinstance(p, ExprPattern):
            return isinstance(p.expr, Constant)
        if isinstance(p, AltPattern):
            if _Matcher(self.matcher.graph).match(p.left, e):
                return self._embed_const(e, p.left)
            return self._embed_const(e, p.right)
        return False

    def _create_group(self, expr) -> None:  # noqa: C901 (classic's one procedure)
        node_map = {p: list(v) for p, v in self.matcher.memo.items()}
        fuzzy = set()
        for pnode in self.pattern_graph.order:
            p = pnode.ref
            if isinstance(p, DominatorPattern):
                for q in (p.parent, p.path):
                    fuzzy.update(id(m) for m in node_map.get(q, ()))
            if isinstance(p, FunctionPattern):
                for m in node_map.get(p, ()):
                    fuzzy.update(id(n) for n in post_order(m.body, _visit_children))
        inputs: Dict[int, Var] = {}
        args: list = []
        params: list = []
        var_number = 0
        for pnode in self.pattern_graph.order:
            p = pnode.ref

            def make_input(e, p=p):
                nonlocal var_number
                if id(e) in fuzzy or isinstance(e, (Op, Function)) or self._embed_const(e, p):
                    return
                if id(e) in inputs:
                    return
                v = Var(f"FunctionVar_{self.graph_number}_{var_number}")
                inputs[id(e)] = v
                args.append(e)
                params.append(v)
                var_number += 1
            matches = node_map.get(p, ())
            if isinstance(p, TuplePattern) and p.fields is None:
                for m in matches:
                    for f in m.fields:
                        make_input(f)
            elif isinstance(p, CallPattern) and p.args is None:
                for m in matches:
                    for a in m.args:
                        make_input(a)
            elif not pnode.inputs:
                for m in matches:
                    make_input(m)
        self.graph_number += 1

        body, memo = _mutate(expr, lambda pre, post, memo: post, inputs)
        name = "".join(_node_name(pre) for pre, _ in memo.values())
        graph = self.matcher.graph
        root = graph.node(expr)
        for pre, post in memo.values():
            if isinstance(pre, (Op, Function, Constant)):
                continue
            if id(pre) in self.gid_of:
                return  # overlaps an earlier group
            if post is not body:
                for out in graph.node(pre).outputs:
                    # an inner value used outside the group: fine only if that use flows back
                    # into the group's root, else the partition would create a cycle
                    if id(out.ref) not in memo and not root.dominates(out):
                        return
        group = _Group()
        self.groups[len(self.groups) + 1] = group
        group.gid = len(self.groups)
        group.root, group.matched, group.args = expr, node_map, args
        group.function = Function(params, body)
        group.name = name
        for key in memo:
            self.gid_of[key] = group.gid


# ---------------------------------------------------------------------------- rewrite/partition
class DFPatternCallback:
    """A rewrite: set ``self.pattern`` and override :meth:`callback`; ``require_type`` types
    the expression before matching, ``rewrite_once`` stops after the first change."""

    def __init__(self, require_type: bool = False, rewrite_once: bool = False):
        self.pattern: Optional[DFPattern] = None
        self.require_type = require_type
        self.rewrite_once = rewrite_once

    def rewrite(self, expr: Expr) -> Expr:
        """``expr`` rewritten by this callback (:func:`rewrite`)."""
        return rewrite(self, expr)

    def callback(self, pre: Expr, post: Expr, node_map: Dict[DFPattern, List[Expr]]) -> Expr:
        """The replacement of a match: ``pre`` is the matched expression, ``post`` it with its
        inputs rewritten, ``node_map`` each pattern's (rewritten) matches."""
        raise TVMError(f"{type(self).__name__} does not override DFPatternCallback.callback")


_MAX_REWRITES = 100


def _rewrite_once(cb: DFPatternCallback, expr):
    grouper = _Grouper(cb.pattern, expr)

    def fpost(pre, post, memo):
        group = grouper.root_group(pre)
        if group is None:
            return post
        node_map = {}
        for p, exprs in group.matched.items():
            node_map[p] = [memo[id(x)][1] if id(x) in memo else x for x in exprs]
        out = cb.callback(pre, post, node_map)
        if not isinstance(out, Expr):
            raise TVMError(f"{type(cb).__name__}.callback returned {type(out).__name__}, not a "
                           "relay expression")
        return out
    return _mutate(expr, fpost)[0]


def _infer_types(expr, mod: Optional[IRModule]):
    from .transform.infer_type import infer_type
    return infer_type(expr)


def rewrite(callbacks, expr: Expr, mod: Optional[IRModule] = None) -> Expr:
    """``expr`` with the matches of each callback's pattern replaced by what its callback
    returns, repeated until the expression stops changing (at most 100 rounds)."""
    if isinstance(callbacks, DFPatternCallback):
        callbacks = [callbacks]
    callbacks = list(callbacks)
    for cb in callbacks:
        if not isinstance(getattr(cb, "pattern", None), DFPattern):
            raise TVMError(f"rewrite: {type(cb).__name__} has no pattern (set self.pattern)")
    done = set()
    post = expr
    count = 0
    while True:
        last = post
        for i, cb in enumerate(callbacks):
            if i in done:
                continue
            before = post
            if cb.require_type:
                post = _infer_types(post, mod)
            post = _rewrite_once(cb, post)
            count += 1
            if cb.rewrite_once and not (post is before or structural_equal(before, post)):
                done.add(i)
        if post is last or structural_equal(last, post) or count >= _MAX_REWRITES:
            break
    if count >= _MAX_REWRITES:
        raise TVMError(f"rewrite: observed {_MAX_REWRITES} rewrite passes, possibly "
                       "conflicting callbacks")
    return post


def partition(pattern: DFPattern, expr: Expr, attrs: Optional[Dict[str, Any]] = None,
              check: Callable[[Expr], bool] = lambda x: True) -> Expr:
    """``expr`` with each match of ``pattern`` for which ``check(match)`` holds replaced by
    a call of a function of the matched subgraph (its inputs become parameters), with
    attribute ``PartitionedFromPattern`` (the matched ops' names) and ``attrs``."""
    if not isinstance(pattern, DFPattern):
        raise TVMError(f"partition: expected a dataflow pattern, got {type(pattern).__name__}")
    if isinstance(pattern, FunctionPattern):
        return expr  # classic: partitioning a function that is not called does not apply
    grouper = _Grouper(pattern, expr)
    extra = dict(attrs or {})

    def fpost(pre, post, memo):
        group = grouper.root_group(pre)
        if group is None or not check(pre):
            return post
        func = group.function
        func = Function(func.params, func.body, None, None,
                        {_PARTITIONED: group.name, **extra})
        args = [memo[id(a)][1] if id(a) in memo else a for a in group.args]
        return Call(func, args)
    return _mutate(expr, fpost)[0]


# --------------------------------------------------------------------------------- printing
def _pattern_text(root: DFPattern) -> str:
    """A one-line text of a pattern (shared sub-patterns printed again)."""
    out: Dict[int, str] = {}

    def text(p):
        return out[id(p)]
    for p in post_order(root, _pattern_children):
        if isinstance(p, WildcardPattern):
            s = "*"
        elif isinstance(p, ExprPattern):
            s = p.expr.name if isinstance(p.expr, Op) else str(p.expr).replace("\n", " ")
        elif isinstance(p, VarPattern):
            s = f"%{p.name_hint}" if p.name_hint else "%*"
        elif isinstance(p, ConstantPattern):
            s = "const"
        elif isinstance(p, CallPattern):
            s = f"{text(p.op)}(" + ("..." if p.args is None else
                                   ", ".join(text(a) for a in p.args)) + ")"
        elif isinstance(p, FunctionPattern):
            s = "fn (" + ("..." if p.params is None else ", ".join(text(a) for a in p.params)) \
                + f") {{ {text(p.body)} }}"
        elif isinstance(p, TuplePattern):
            s = "(" + ("..." if p.fields is None else ", ".join(text(a) for a in p.fields)) + ")"
        elif isinstance(p, TupleGetItemPattern):
            s = f"{text(p.tuple)}.{'*' if p.index == -1 else p.index}"
        elif isinstance(p, AltPattern):
            s = f"({text(p.left)} | {text(p.right)})"
        elif isinstance(p, AttrPattern):
            s = f"{text(p.pattern)} has attrs {dict(p.attrs)}"
        elif isinstance(p, TypePattern):
            s = f"{text(p.pattern)} has type {p.type}"
        elif isinstance(p, DataTypePattern):
            s = f"{text(p.pattern)} has dtype {p.dtype}"
        elif isinstance(p, ShapePattern):
            s = f"{text(p.pattern)} has shape {list(p.shape)}"
        elif isinstance(p, DominatorPattern):
            s = f"{text(p.child)} dominates {text(p.parent)} along {text(p.path)}"
        elif isinstance(p, IfPattern):
            s = f"if ({text(p.cond)}) {{ {text(p.true_branch)} }} else " \
                f"{{ {text(p.false_branch)} }}"
        elif isinstance(p, LetPattern):
            s = f"let {text(p.var)} = {text(p.value)}; {text(p.body)}"
        else:
            s = type(p).__name__
        out[id(p)] = s
    return out[id(root)]


__all__ = [
    "DFPattern", "ExprPattern", "VarPattern", "ConstantPattern", "WildcardPattern",
    "CallPattern", "FunctionPattern", "IfPattern", "LetPattern", "TuplePattern",
    "TupleGetItemPattern", "AltPattern", "TypePattern", "DataTypePattern", "ShapePattern",
    "AttrPattern", "DominatorPattern", "DFPatternCallback", "is_var", "is_constant", "is_expr",
    "is_op", "is_tuple", "is_tuple_get_item", "is_if", "is_let", "wildcard", "has_type",
    "has_dtype", "has_shape", "has_attr", "dominates", "match", "rewrite", "partition",
]
