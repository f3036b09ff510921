"""Passes over every relay function of a module (``relay.transform.function_pass``)."""
from __future__ import annotations

from typing import Callable, Optional

from ...error import TVMError
from ...ir.module import IRModule
from ...ir.transform import Pass, PassContext, PassInfo, make_pass_decorator
from ..expr import Function


def _optimizable(func) -> bool:
    """A relay function a function pass rewrites: not an external one (``Compiler``) nor one
    marked ``SkipOptimization`` (classic's rule)."""
    attrs = func.attrs or {}
    return (isinstance(func, Function) and not attrs.get("Compiler")
            and not attrs.get("SkipOptimization"))


class FunctionPass(Pass):
    """A pass applying ``fn(func, mod, ctx) -> func`` to every relay function of a module; the
    result is type-checked, as classic TVM does after a function pass."""

    def __init__(self, fn: Callable, name: str, opt_level: int = 0, required=()):
        self._fn = fn
        self.info = PassInfo(opt_level, name, required)

    def transform_module(self, mod: IRModule, ctx: PassContext) -> IRModule:
        out = IRModule(dict(mod.functions), mod.attrs)
        for name, func in mod.functions.items():
            if not _optimizable(func):
                continue
            new = self._fn(func, out, ctx)
            if not isinstance(new, Function):
                raise TVMError(f"function pass {self.info.name!r} returned "
                               f"{type(new).__name__} for function {name!r}, expected a relay "
                               "Function")
            out[name] = new
        from .infer_type import InferType
        return InferType()(out)  # classic type-checks after a function pass (a pass run)


def function_pass(pass_func: Optional[Callable] = None, opt_level: int = 0,
                  name: Optional[str] = None, required=None):
    """Make ``f(func, mod, ctx) -> func`` (or a class with ``transform_function``, whose
    instances are then passes) a :class:`FunctionPass`: ``@function_pass(opt_level=1)``,
    ``@function_pass`` or ``function_pass(f, opt_level=1, name=...)``."""
    return make_pass_decorator(FunctionPass, "transform_function", "function_pass",
                               pass_func, opt_level, name, required)
