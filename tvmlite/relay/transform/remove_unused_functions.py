"""``RemoveUnusedFunctions``: drop the global functions no entry function (``main`` by
default) reaches through calls."""
from __future__ import annotations

from typing import Optional, Sequence

from ...ir.module import IRModule
from ...ir.transform import ModulePass, Pass
from ..analysis import CallGraph


def remove_unused_functions(mod: IRModule, entry_functions: Sequence[str] = ("main",)
                            ) -> IRModule:
    """``mod`` with only the functions reachable from ``entry_functions``."""
    calls = CallGraph(mod)._calls
    keep, stack = set(), [e for e in entry_functions if e in mod.functions]
    while stack:
        name = stack.pop()
        if name in keep:
            continue
        keep.add(name)
        stack.extend(c for c in calls.get(name, ()) if c in mod.functions)
    return IRModule({k: v for k, v in mod.functions.items() if k in keep}, mod.attrs)


def RemoveUnusedFunctions(entry_functions: Optional[Sequence[str]] = None) -> Pass:  # noqa: N802
    """Remove the global functions the entries do not reach
    (``relay.transform.RemoveUnusedFunctions()``)."""
    entries = list(entry_functions or ["main"])
    return ModulePass(lambda mod, ctx: remove_unused_functions(mod, entries),
                      "RemoveUnusedFunctions", opt_level=1)
