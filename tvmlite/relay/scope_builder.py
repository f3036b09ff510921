"""``relay.ScopeBuilder``: build nested lets and ifs with ``with`` blocks, as classic does::

    sb = relay.ScopeBuilder()
    with sb.if_scope(cond):
        v = sb.let("v", x)
        sb.ret(v)
    with sb.else_scope():
        sb.ret(y)
    body = sb.get()    # if (%cond) { let %v = %x; %v } else { %y }
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator, List, Optional, Tuple, Union

from ..error import TVMError
from .expr import Expr, If, Let, Var, var
from .ty import Type


def _lets(bindings: List[Tuple[Var, Expr]], ret: Optional[Expr]) -> Expr:
    if ret is None:
        raise TVMError("ScopeBuilder: the scope has no return value (call ret(value))")
    for v, value in reversed(bindings):
        ret = Let(v, value, ret)
    return ret


class ScopeBuilder:
    """Builds a relay expression scope by scope (classic ``relay.ScopeBuilder``)."""

    def __init__(self):
        self._bindings: List[List[Tuple[Var, Expr]]] = [[]]
        self._ret_values: List[Optional[Expr]] = [None]

    def _enter_scope(self) -> None:
        self._bindings.append([])
        self._ret_values.append(None)

    def _exit_scope(self) -> Tuple[List[Tuple[Var, Expr]], Optional[Expr]]:
        return self._bindings.pop(), self._ret_values.pop()

    def let(self, var_or_name: Union[str, Var, Tuple[str, Type]], value: Expr) -> Var:
        """Bind ``value`` to a variable (a Var, a name, or a (name, type) pair) in the current
        scope; the variable."""
        if isinstance(var_or_name, str):
            var_or_name = var(var_or_name)
        elif isinstance(var_or_name, tuple):
            var_or_name = var(*var_or_name)
        self._bindings[-1].append((var_or_name, value))
        return var_or_name

    @contextmanager
    def if_scope(self, cond: Expr) -> Iterator[None]:
        """The true branch of an ``if (cond)``; an :meth:`else_scope` must follow."""
        self._enter_scope()
        yield
        bindings, ret = self._exit_scope()
        if self._ret_values[-1] is not None:
            raise TVMError("ScopeBuilder: the scope's result was returned before this if scope")
        self._ret_values[-1] = If(cond, _lets(bindings, ret), None)

    @contextmanager
    def else_scope(self) -> Iterator[None]:
        """The false branch of the :meth:`if_scope` just closed."""
        self._enter_scope()
        yield
        bindings, ret = self._exit_scope()
        partial = self._ret_values[-1]
        if not isinstance(partial, If) or partial.false_branch is not None:
            raise TVMError("ScopeBuilder: else_scope must follow an if_scope")
        self._ret_values[-1] = If(partial.cond, partial.true_branch, _lets(bindings, ret))

    def ret(self, value: Expr) -> None:
        """Set the value of the current scope."""
        if self._ret_values[-1] is not None:
            raise TVMError("ScopeBuilder: the return value of this scope is already set")
        self._ret_values[-1] = value

    def get(self) -> Expr:
        """The expression built: the outer scope's lets around its return value."""
        if len(self._bindings) != 1:
            raise TVMError("ScopeBuilder.get: a scope is still open")
        return _lets(self._bindings[0], self._ret_values[0])


__all__ = ["ScopeBuilder"]
