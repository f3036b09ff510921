"""Hybrid scripts (``tvm.te.hybrid``): Python functions of loops over tensors.

``@te.hybrid.script`` functions called with te Tensors (and tir Vars or Python numbers for
scalars) are parsed into a :class:`~tvmlite.te.tensor.HybridOp`, an extern-like op whose body is
the parsed loop nest; called with numpy arrays they run as plain Python (the emulation).
"""
from __future__ import annotations

import ast
import functools
import linecache
from typing import Any, Callable, Optional, Sequence

from ...error import TVMError
from ...tir.expr import PrimExpr
from ..tensor import Tensor
from . import runtime
from .dump import dump
from .parser import source_to_op

__all__ = ["script", "build", "HybridModule", "runtime"]


def _is_tvm_arg(a: Any) -> bool:
    if isinstance(a, (Tensor, PrimExpr)):
        return True
    if isinstance(a, (list, tuple)) or type(a).__name__ == "Array":
        return any(_is_tvm_arg(x) for x in a) or type(a).__name__ == "Array"
    return False


def script(pyfunc: Callable) -> Callable:
    """Decorate a function as a hybrid script (``tvm.te.hybrid.script``).

    With te Tensors among the arguments the call returns the output tensor(s) of a new
    :class:`HybridOp` named after the function; otherwise it runs the function as Python, with
    ``output_tensor`` / ``allocate`` giving numpy arrays and the loop helpers ``range``.
    """
    @functools.wraps(pyfunc)
    def wrapped(*args, **kwargs):
        if any(_is_tvm_arg(a) for a in args):
            if kwargs:
                raise TypeError(f"hybrid script {pyfunc.__name__}: pass arguments by position")
            op = source_to_op(pyfunc, args)
            outs = list(op.outputs)
            return outs[0] if len(outs) == 1 else outs
        hidden = runtime.enter(pyfunc)
        try:
            return pyfunc(*args, **kwargs)
        finally:
            runtime.leave(pyfunc, hidden)

    wrapped.is_hybrid_script = True
    return wrapped


def build(sch, inputs: Sequence[Any], outputs: Sequence[Tensor],
          name: str = "hybrid_func") -> "HybridModule":
    """A schedule written back as a hybrid script (classic ``te.hybrid.build``).

    Parameters
    ----------
    sch : the te.Schedule.
    inputs : the Tensors and Vars that become the script's parameters, in order.
    outputs : the Tensors the script returns.
    name : the script function's name.

    Returns
    -------
    A :class:`HybridModule` whose source is the scheduled loop nest (splits, reorders, attached
    stages, loop kinds) over multi-dimensional tensors.
    """
    from ...ir import IRModule
    from ...tir import transform as _t
    from ..schedule import schedule_to_prim_func
    inputs = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
    outputs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
    func = schedule_to_prim_func(sch, inputs + outputs)
    mod = IRModule({"main": func})
    for p in (_t.LowerReductionInit(), _t.LowerBlocks()):
        mod = p(mod)
    return HybridModule(dump(mod["main"], inputs, outputs, name), name)


_HEADER = "import tvmlite as tvm\n@tvm.te.hybrid.script\n"


class HybridModule:
    """A hybrid script kept as source text (classic ``te.hybrid.HybridModule``): called with te
    Tensors it builds a HybridOp, with numpy arrays it runs as Python; ``save``/``load`` write
    and read the source."""

    def __init__(self, src: Optional[str] = None, name: Optional[str] = None):
        self.src_ = self.func_ = None
        self.name = name
        if src is not None:
            self._define(_HEADER + src, f"<hybrid module {name or 'script'}>")

    def __call__(self, *args):
        if self.func_ is None:
            raise TVMError("HybridModule: no script loaded")
        return self.func_(*args)

    def get_source(self) -> str:
        """The module's source text."""
        return self.src_

    def save(self, path: str) -> None:
        """Write the source to ``path`` (``.py`` appended when missing)."""
        if not str(path).endswith(".py"):
            path = str(path) + ".py"
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.src_)

    def load(self, path: str) -> None:
        """Read a script saved by :meth:`save` (one decorated function) from ``path``."""
        with open(path, encoding="utf-8") as f:
            self._define(f.read(), str(path))

    def _define(self, src: str, filename: str) -> None:
        funcs = [n for n in ast.parse(src).body if isinstance(n, ast.FunctionDef)]
        if len(funcs) != 1:
            raise TVMError(f"HybridModule: expected one function in {filename}, found "
                           f"{len(funcs)}")
        # the parser reads the function's source back (inspect), so the text is kept in
        # linecache under the name it was compiled with
        linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
        scope: dict = {}
        exec(compile(src, filename, "exec"), scope)  # noqa: S102 - the module's own script
        self.src_ = src
        if self.name is None:
            self.name = funcs[0].name
        self.func_ = scope[funcs[0].name]
