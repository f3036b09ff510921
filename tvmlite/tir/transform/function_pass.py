"""Passes over every PrimFunc of a module."""
from __future__ import annotations

from typing import Callable, Optional

from ...ir.module import IRModule
from ...transform import Pass
from ..function import PrimFunc


def prim_func_pass(pass_func: Optional[Callable] = None, opt_level: int = 0,
                   name: Optional[str] = None, required=None):
    """Make ``f(func, mod, ctx) -> func`` a pass over every PrimFunc (decorator or call)."""

    def wrap(f):
        if isinstance(f, type):  # a class with transform_function, as in TVM
            inst = f()
            f = inst.transform_function

        def run(mod, ctx):
            if isinstance(mod, PrimFunc):
                return f(mod, IRModule({"main": mod}), ctx)
            out = IRModule({}, mod.attrs)
            for gv_name, func in mod.functions.items():
                out[gv_name] = f(func, mod, ctx) if isinstance(func, PrimFunc) else func
            return out

        return Pass(run, name or getattr(f, "__name__", "prim_func_pass"), opt_level)

    return wrap(pass_func) if pass_func is not None else wrap


def stmt_pass(fn: Callable, name: str) -> Pass:
    """A pass applying ``fn(body, func) -> body`` to every PrimFunc."""

    def f(func, mod, ctx):
        body = fn(func.body, func)
        return func if body is func.body else func.with_body(body)

    return prim_func_pass(f, name=name)
