"""The CPU backend: lowered IRModule -> C -> shared library (cached) -> runtime.Module."""
from __future__ import annotations

from typing import List, Tuple, Union

from ..error import TVMError
from ..ir.module import IRModule
from ..tir.function import PrimFunc
from .codegen_c import CodeGenC
from .target import Target

BASE_FLAGS = ("-O3", "-std=gnu11", "-fPIC", "-shared", "-ffp-contract=fast", "-fno-math-errno",
              "-Wno-unused-label", "-Wno-unused-variable")
# added only when the code has a parallel loop: linking libgomp costs ~20 ms of build time
OPENMP_FLAG = "-fopenmp"


def _check_triple(target: Target) -> None:
    triple = target.attrs.get("mtriple")
    if triple is None or triple is True:
        return
    t = str(triple)
    if not (t.startswith(("x86_64", "x86-64", "amd64")) and "linux" in t):
        raise TVMError(f"target {target}: cross-compilation to {t!r} is not supported (tvmlite "
                       f"builds C for this x86_64 Linux host only)")


def compile_flags(target: Target) -> Tuple[List[str], str]:
    """Compiler flags for ``target`` and the resolved ISA string (part of the cache key)."""
    from .isa import isa_flags

    _check_triple(target)
    mcpu = target.attrs.get("mcpu")
    isa, resolved = isa_flags(str(mcpu) if mcpu not in (None, True) else None)
    return list(BASE_FLAGS) + list(isa), resolved


def _entry_of(funcs: dict) -> Union[str, None]:
    for name, f in funcs.items():
        if f.attrs.get("tir.is_entry_func"):
            return name
    if len(funcs) == 1 or "main" in funcs:
        return next(iter(funcs)) if len(funcs) == 1 else "main"
    return next(iter(funcs), None)


def generate_source(mod: Union[IRModule, PrimFunc], target: Target) -> Tuple[str, List[str], str]:
    """(C source, compiler flags, resolved ISA) for a lowered module."""
    if isinstance(mod, PrimFunc):
        mod = IRModule({mod.attrs.get("global_symbol", "default_function"): mod})
    flags, isa = compile_flags(target)
    cg = CodeGenC()
    symbols = {}
    for name, f in mod.functions.items():
        if not isinstance(f, PrimFunc):
            raise TVMError(f"the C backend builds PrimFuncs, got {type(f).__name__} for {name}")
        cg.add_function(f, name)
        symbols[name] = str(f.attrs.get("global_symbol", name))
    entry = _entry_of(mod.functions)
    meta = {"entry": symbols.get(entry) if entry else None, "target": str(target),
            "type_key": target.kind.name, "cflags": flags}
    if cg.uses_openmp:
        flags.append(OPENMP_FLAG)
    return cg.finish(meta), flags, isa


def build(mod: Union[IRModule, PrimFunc], target: Union[Target, str] = "llvm"):
    """Compile a lowered IRModule for the CPU and load it (``runtime.Module``)."""
    from ..contrib.cc import build_shared_cached
    from ..runtime.module import Module

    target = target if isinstance(target, Target) else Target(target)
    if target.kind.name not in ("llvm", "c"):
        raise TVMError(f"the C backend builds for llvm/c targets, not {target.kind.name}")
    source, flags, isa = generate_source(mod, target)
    path = build_shared_cached(source, flags, isa)
    return Module(path, source=source)
