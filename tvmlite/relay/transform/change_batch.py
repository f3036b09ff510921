"""``ChangeBatch``: give chosen parameters a new batch size (classic relay): each variable
of ``data`` gets its dimension ``data[var]`` set to ``batch_size``, and types are inferred
again."""
from __future__ import annotations

from typing import Dict

from ...error import TVMError
from ...ir.module import IRModule
from ...ir.transform import ModulePass, Pass
from ..expr import Function, Var, substitute
from ..ty import TensorType
from .infer_type import InferType


def change_batch(mod: IRModule, data: Dict[Var, int], batch_size: int) -> IRModule:
    """``mod`` with the variables of ``data`` re-annotated with batch ``batch_size``."""
    new_vars: Dict[int, Var] = {}
    for v, axis in data.items():
        t = v.type_annotation or v._checked_type
        if not isinstance(v, Var) or not isinstance(t, TensorType):
            raise TVMError(f"ChangeBatch: {v!r} is not a variable of a known tensor type")
        shape = list(t.shape)
        if not -len(shape) <= int(axis) < len(shape):
            raise TVMError(f"ChangeBatch: dimension {axis} is out of range for %{v.name_hint} "
                           f"of shape {tuple(shape)}")
        shape[int(axis)] = int(batch_size)
        new_vars[id(v)] = Var(v.name_hint, TensorType(tuple(shape), t.dtype))
    out = IRModule({}, mod.attrs)
    for name, func in mod.functions.items():
        if isinstance(func, Function):
            params = [new_vars.get(id(p), p) for p in func.params]
            body = substitute(func.body, new_vars)
            func = Function(params, body, None, func.type_params, func.attrs)
        out[name] = func
    return InferType()(out)


def ChangeBatch(data: Dict[Var, int], batch_size: int = 16) -> Pass:  # noqa: N802
    """Change the batch dimension of the parameters in ``data`` (``relay.transform``)."""
    return ModulePass(lambda mod, ctx: change_batch(mod, data, batch_size), "ChangeBatch",
                      opt_level=1)


__all__ = ["ChangeBatch", "change_batch"]
