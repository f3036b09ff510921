"""Visitors and mutators over the IR.

Dispatch goes through a per-class table: a subclass defines ``visit_<ClassName>`` for the nodes
it cares about; every other node is traversed generically over its dataclass fields. Mutators
return the very same node when nothing below it changed, so identity marks "unchanged".
"""
from __future__ import annotations

import dataclasses
from operator import attrgetter
from typing import Any, Callable, Dict

from .buffer import Buffer
from .expr import IterVar, Node, Var
from .op import convert

_FIELDS: Dict[type, tuple] = {}
_VALUES: Dict[type, Callable[[Any], tuple]] = {}


def node_fields(cls) -> tuple:
    """Names of the dataclass fields of an IR node class (cached)."""
    f = _FIELDS.get(cls)
    if f is None:
        f = tuple(x.name for x in dataclasses.fields(cls))
        _FIELDS[cls] = f
    return f


def field_values(cls) -> Callable[[Any], tuple]:
    """A function giving the tuple of a ``cls`` node's field values (one C-level call)."""
    get = _VALUES.get(cls)
    if get is None:
        names = node_fields(cls)
        if len(names) > 1:
            get = attrgetter(*names)
        elif names:
            one = attrgetter(names[0])

            def get(x):
                return (one(x),)
        else:
            def get(x):
                return ()
        _VALUES[cls] = get
    return get


def _is_ir(x) -> bool:
    return isinstance(x, Node) and not isinstance(x, Buffer)


def _dispatch(table: Dict[type, Callable], owner: type, cls: type, visit_tuple: Callable,
              skip: Callable) -> Callable:
    """The method of ``owner`` (a visitor class) for values of ``cls``, recorded in ``table``:
    tuples visit their items, other non-nodes are skipped, nodes go to ``visit_<Class>`` or
    ``generic``."""
    if issubclass(cls, tuple):
        fn = visit_tuple
    elif not issubclass(cls, Node):
        fn = skip
    else:
        fn = getattr(owner, "visit_" + cls.__name__, None) or owner.generic
    table[cls] = fn
    return fn


class Visitor:
    """Read-only traversal. Override ``visit_<ClassName>(node)``; call ``self.generic(node)`` to
    continue into the children. Buffers are not entered (override ``visit_Buffer`` to do so)."""

    _table: Dict[type, Callable] = {}

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        cls._table = {}

    def visit(self, x) -> None:
        cls = type(x)
        fn = self._table.get(cls)
        if fn is None:
            fn = _dispatch(self._table, type(self), cls, Visitor._visit_tuple, Visitor._skip)
        fn(self, x)

    def _visit_tuple(self, x: tuple) -> None:
        for y in x:
            self.visit(y)

    def _skip(self, x) -> None:
        return None

    def generic(self, x) -> None:
        if isinstance(x, Buffer):
            return
        for v in field_values(type(x))(x):
            if isinstance(v, (Node, tuple)):
                self.visit(v)


class Mutator:
    """Rebuilding traversal. Override ``visit_<ClassName>(node)`` returning a node; call
    ``self.generic(node)`` to rebuild from mutated children. Buffers are left as they are
    unless ``visit_Buffer`` is defined."""

    _table: Dict[type, Callable] = {}

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        cls._table = {}

    def visit(self, x):
        cls = type(x)
        fn = self._table.get(cls)
        if fn is None:
            fn = _dispatch(self._table, type(self), cls, Mutator._visit_tuple, Mutator._keep)
        return fn(self, x)

    def _visit_tuple(self, x: tuple):
        out = tuple(self.visit(y) for y in x)
        return x if all(a is b for a, b in zip(out, x)) else out

    def _keep(self, x):
        return x

    def generic(self, x):
        if isinstance(x, Buffer):
            return x
        vals = field_values(type(x))(x)
        new = [self.visit(v) if isinstance(v, (Node, tuple)) else v for v in vals]
        for a, b in zip(new, vals):
            if a is not b:
                return type(x)(*new)
        return x


class _Substitute(Mutator):
    def __init__(self, vmap: Dict[Var, Any]):
        self.vmap = vmap

    def visit_Var(self, v):
        return self.vmap.get(v, v)

    visit_SizeVar = visit_Var


def substitute(node, vmap: Dict[Var, Any]):
    """Replace variables by expressions (``vmap`` keyed by Var objects)."""
    if not vmap:
        return node

    vmap = {k.var if isinstance(k, IterVar) else k: convert(v) for k, v in vmap.items()}
    return _Substitute(vmap).visit(node)


def _children(x) -> list:
    if isinstance(x, Buffer):
        return []
    return [v for v in field_values(type(x))(x) if isinstance(v, (Node, tuple))]


_POST = object()  # on post_order_visit's stack: the node below it is done


def post_order_visit(node, fvisit: Callable[[Any], None]) -> None:
    """Call ``fvisit`` on every node below ``node`` (children first).

    An explicit stack, not recursion: expressions nested 10,000 deep are fine."""
    stack = [node]
    push, pop = stack.append, stack.pop
    while stack:
        x = pop()
        if x is _POST:
            fvisit(pop())
        elif isinstance(x, tuple):
            stack.extend(reversed(x))
        elif isinstance(x, Node):
            push(x)
            push(_POST)
            if not isinstance(x, Buffer):  # fields that are no node are popped and dropped
                stack.extend(reversed(field_values(type(x))(x)))


def pre_order_visit(node, fvisit: Callable[[Any], Any]) -> None:
    """Call ``fvisit`` on every node below ``node`` (parents first); when it returns False the
    node's children are skipped. An explicit stack, as :func:`post_order_visit`."""
    stack = [node]
    while stack:
        x = stack.pop()
        if isinstance(x, tuple):
            stack.extend(reversed(x))
        elif isinstance(x, Node):
            if not isinstance(x, Buffer) and fvisit(x) is False:
                continue
            stack.extend(reversed(_children(x)))


def _type_key_names(only_enable) -> set | None:
    if only_enable is None:
        return None
    return {k.rsplit(".", 1)[-1] for k in only_enable}


class _IRTransform(Mutator):
    def __init__(self, preorder, postorder, only_enable):
        self.pre, self.post = preorder, postorder
        self.enabled = _type_key_names(only_enable)

    def visit(self, x):
        if not _is_ir(x) or (self.enabled is not None
                             and type(x).__name__ not in self.enabled):
            return super().visit(x)
        if self.pre is not None:
            r = self.pre(x)
            if r is not None:
                return r
        y = super().visit(x)
        if self.post is not None:
            r = self.post(y)
            if r is not None:
                return r
        return y


def ir_transform(node, preorder: Callable | None, postorder: Callable | None,
                 only_enable=None):
    """Rewrite ``node`` (TVM's ``tvm.tir.stmt_functor.ir_transform``).

    ``preorder(n)`` runs before ``n``'s children: a non-None result replaces ``n`` and its
    children are not visited. ``postorder(n)`` runs on the node rebuilt from its rewritten
    children: a non-None result replaces it. ``only_enable`` limits both to node types given by
    type key (``"tir.For"``) or class name (``"For"``).
    """
    return _IRTransform(preorder, postorder, only_enable).visit(node)


def collect_vars(node) -> set:
    """The set of Vars used in ``node`` (buffers not entered)."""
    out = set()

    def f(x):
        if isinstance(x, Var):
            out.add(x)

    post_order_visit(node, f)
    return out
