"""Passes over every PrimFunc of a module (``tvm.tir.transform.prim_func_pass``), and the
``(phase, pass)`` entries of the ``tir.add_lower_pass`` config."""
from __future__ import annotations

import inspect
from typing import Callable, List, Optional, Tuple

from ...error import TVMError
from ...ir.module import IRModule
from ...ir.transform import Pass, PassContext, PassInfo, make_pass_decorator
from ..function import PrimFunc
from ..stmt import Stmt


class PrimFuncPass(Pass):
    """A pass applying ``fn(func, mod, ctx) -> func`` to every PrimFunc of a module.

    Also callable on a single PrimFunc (it is run as the module ``{"main": func}``). A module
    where no function changed comes back as the very same object.
    """

    def __init__(self, fn: Callable, name: str, opt_level: int = 0, required=()):
        self._fn = fn
        self.info = PassInfo(opt_level, name, required)

    def __call__(self, mod):
        if isinstance(mod, PrimFunc):
            return super().__call__(IRModule({"main": mod}))["main"]
        return super().__call__(mod)

    def transform_module(self, mod: IRModule, ctx: PassContext) -> IRModule:
        changed = {}
        for name, func in mod.functions.items():
            if isinstance(func, PrimFunc):
                out = self._fn(func, mod, ctx)
                if not isinstance(out, PrimFunc):
                    raise TVMError(f"prim_func pass {self.info.name!r} returned "
                                   f"{type(out).__name__} for function {name!r}, expected a "
                                   "PrimFunc")
                if out is not func:
                    changed[name] = out
        if not changed:
            return mod
        return IRModule({n: changed.get(n, f) for n, f in mod.functions.items()}, mod.attrs)


def prim_func_pass(pass_func: Optional[Callable] = None, opt_level: int = 0,
                   name: Optional[str] = None, required=None):
    """Make ``f(func, mod, ctx) -> func`` (or a class with ``transform_function``) a pass over
    every PrimFunc: ``@prim_func_pass(opt_level=0)``, ``@prim_func_pass`` or
    ``prim_func_pass(f, opt_level=0, name=...)``."""
    return make_pass_decorator(PrimFuncPass, "transform_function", "prim_func_pass",
                               pass_func, opt_level, name, required)


def stmt_pass(fn: Callable, name: str) -> PrimFuncPass:
    """A pass applying ``fn(body, func) -> body`` to every PrimFunc."""

    def f(func, mod, ctx):
        body = fn(func.body, func)
        return func if body is func.body else func.with_body(body)

    return PrimFuncPass(f, name)


# ------------------------------------------------------------------------- tir.add_lower_pass
def _accepts(sig: inspect.Signature, n: int) -> bool:
    try:
        sig.bind(*range(n))
    except TypeError:  # from bind alone: the signature takes no n positional arguments
        return False
    return True


def as_lower_pass(p) -> Pass:
    """A ``tir.add_lower_pass`` entry's pass as a :class:`Pass`, decided once by its signature:
    a Pass as it is, ``f(func, mod, ctx) -> func`` as a prim_func pass, ``f(stmt) -> stmt``
    (the pre-0.8 form) as a pass over each function's body."""
    if isinstance(p, Pass):
        return p
    if not callable(p):
        raise TVMError(f"tir.add_lower_pass: {p!r} is not a pass")
    name = getattr(p, "__name__", type(p).__name__)
    try:
        sig = inspect.signature(p)
    except (TypeError, ValueError):
        raise TVMError(f"tir.add_lower_pass: cannot read the signature of {name}; "
                       "wrap it with tvm.tir.transform.prim_func_pass") from None
    if _accepts(sig, 3):
        return PrimFuncPass(p, name)
    if _accepts(sig, 1):
        def on_body(body, func):
            out = p(body)
            if not isinstance(out, Stmt):
                raise TVMError(f"lower pass {name!r} takes a statement and returned "
                               f"{type(out).__name__}, expected a Stmt")
            return out

        return stmt_pass(on_body, name)
    raise TVMError(f"tir.add_lower_pass: {name}{sig} is neither a Pass, f(func, mod, ctx) "
                   "nor f(stmt)")


def lower_pass_entries(entries) -> List[Tuple[int, Pass]]:
    """Check and convert the ``tir.add_lower_pass`` config: ``(phase, pass)`` pairs with
    phase 0–3, each pass through :func:`as_lower_pass`."""
    out = []
    for item in entries:
        if not (isinstance(item, (tuple, list)) and len(item) == 2):
            raise TVMError(f"tir.add_lower_pass entries must be (phase, pass), got {item!r}")
        phase, p = item
        if phase not in (0, 1, 2, 3):
            raise TVMError(f"tir.add_lower_pass phase must be 0, 1, 2 or 3, got {phase!r}")
        out.append((phase, as_lower_pass(p)))
    return out
