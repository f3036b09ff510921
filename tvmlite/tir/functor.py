"""Visitors and mutators over the IR.

Dispatch goes through a per-class table: a subclass defines ``visit_<ClassName>`` for the nodes
it cares about; every other node is traversed generically over its dataclass fields. Mutators
return the very same node when nothing below it changed, so identity marks "unchanged".
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable, Dict

from .buffer import Buffer
from .expr import IterVar, Node, Var
from .op import convert

_FIELDS: Dict[type, tuple] = {}


def node_fields(cls) -> tuple:
    """Names of the dataclass fields of an IR node class (cached)."""
    f = _FIELDS.get(cls)
    if f is None:
        f = tuple(x.name for x in dataclasses.fields(cls))
        _FIELDS[cls] = f
    return f


def _is_ir(x) -> bool:
    return isinstance(x, Node) and not isinstance(x, Buffer)


class Visitor:
    """Read-only traversal. Override ``visit_<ClassName>(node)``; call ``self.generic(node)`` to
    continue into the children. Buffers are not entered (override ``visit_Buffer`` to do so)."""

    _table: Dict[type, Callable] = {}

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        cls._table = {}

    def visit(self, x) -> None:
        if isinstance(x, tuple):
            for y in x:
                self.visit(y)
            return
        if not isinstance(x, Node):
            return
        cls = type(x)
        fn = self._table.get(cls)
        if fn is None:
            fn = getattr(type(self), "visit_" + cls.__name__, None) or type(self).generic
            self._table[cls] = fn
        fn(self, x)

    def generic(self, x) -> None:
        if isinstance(x, Buffer):
            return
        for name in node_fields(type(x)):
            v = getattr(x, name)
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
        if isinstance(x, tuple):
            out = tuple(self.visit(y) for y in x)
            return x if all(a is b for a, b in zip(out, x)) else out
        if not isinstance(x, Node):
            return x
        cls = type(x)
        fn = self._table.get(cls)
        if fn is None:
            fn = getattr(type(self), "visit_" + cls.__name__, None) or type(self).generic
            self._table[cls] = fn
        return fn(self, x)

    def generic(self, x):
        if isinstance(x, Buffer):
            return x
        names = node_fields(type(x))
        vals = [getattr(x, n) for n in names]
        new = [self.visit(v) if isinstance(v, (Node, tuple)) else v for v in vals]
        if all(a is b for a, b in zip(new, vals)):
            return x
        return type(x)(*new)


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
    return [v for v in (getattr(x, n) for n in node_fields(type(x)))
            if isinstance(v, (Node, tuple))]


def post_order_visit(node, fvisit: Callable[[Any], None]) -> None:
    """Call ``fvisit`` on every node below ``node`` (children first).

    An explicit stack, not recursion: expressions nested 10,000 deep are fine."""
    stack = [(node, False)]
    while stack:
        x, done = stack.pop()
        if isinstance(x, tuple):
            stack.extend((y, False) for y in reversed(x))
        elif isinstance(x, Node):
            if done:
                fvisit(x)
            else:
                stack.append((x, True))
                stack.extend((y, False) for y in reversed(_children(x)))


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
