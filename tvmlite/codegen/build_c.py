"""The CPU backend: lowered IRModule -> C -> shared library (cached) -> runtime.Module."""
from __future__ import annotations

from typing import List, Optional, Tuple, Union

from ..contrib.cc import build_shared_cached, object_cached
from ..contrib.clang import C_KERNEL_HEADER
from ..error import CompileError, TVMError
from ..ir.module import IRModule
from ..runtime.module import Module
from ..target.isa import isa_flags
from ..target.target import Target
from ..tir.function import PrimFunc
from ..tir.functor import post_order_visit
from ..tir.stmt import AttrStmt, For
from .codegen_c import (
    LINKED_SUPPORT_MACRO,
    SUPPORT_SOURCE,
    CodeGenC,
    explain_symbol_clash,
)

# -fno-tree-loop-if-convert: GCC 12.2 at -O3 -march=native miscompiles loops whose body is a
# select (``o[i*5+j] = (float)i > a[..] ? a[..] : b[..]`` in a 4x5 nest: it peels the outer
# loop, if-converts and vectorizes, and reuses the first row's blend mask for every row; see
# tests/test_codegen_build_c_miscompile.py). Not if-converting keeps such loops scalar and
# keeps GCC's loop vectorizer for straight-line loops, which schedules without an explicit
# ``vectorize`` rely on (-fno-tree-loop-vectorize costs 7-11x on the book's reorder/parallel
# matmul); tvmlite vectorizes guarded and select code itself (masked or lane loops).
BASE_FLAGS = ("-O3", "-std=gnu11", "-fPIC", "-shared", "-ffp-contract=fast", "-fno-math-errno",
              "-fno-tree-loop-if-convert", "-Wno-unused-label", "-Wno-unused-variable")
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
    _check_triple(target)
    mcpu = target.attrs.get("mcpu")
    isa, resolved = isa_flags(str(mcpu) if mcpu not in (None, True) else None)
    return list(BASE_FLAGS) + list(isa), resolved


def _entry_of(funcs: dict) -> Union[str, None]:
    for name, f in funcs.items():
        if (f.attrs or {}).get("tir.is_entry_func"):
            return name
    if len(funcs) == 1 or "main" in funcs:
        return next(iter(funcs)) if len(funcs) == 1 else "main"
    return next(iter(funcs), None)


def generate_source(mod: Union[IRModule, PrimFunc], target: Target,
                    extra_meta: Optional[dict] = None) -> Tuple[str, List[str], str]:
    """(C source, compiler flags, resolved ISA) for a lowered module; ``extra_meta`` joins the
    metadata embedded in the library (a CUDA host module's kernels)."""
    if isinstance(mod, PrimFunc):
        mod = IRModule({(mod.attrs or {}).get("global_symbol", "default_function"): mod})
    flags, isa = compile_flags(target)
    cg = CodeGenC()
    symbols = {}
    for name, f in mod.functions.items():
        if not isinstance(f, PrimFunc):
            raise TVMError(f"the C backend builds PrimFuncs, got {type(f).__name__} for {name}")
        cg.add_function(f, name)
        symbols[name] = str((f.attrs or {}).get("global_symbol", name))
    entry = _entry_of(mod.functions)
    meta = {"entry": symbols.get(entry) if entry else None, "target": str(target),
            "type_key": target.kind.name, "cflags": flags, **(extra_meta or {})}
    imported = imported_c_sources(mod)
    if imported:  # kept with the library: its assembly and exported objects include them
        meta["imported_c"] = imported
    if cg.uses_openmp:
        flags.append(OPENMP_FLAG)
    return cg.finish(meta), flags, isa


def build(mod: Union[IRModule, PrimFunc], target: Union[Target, str] = "llvm",
          extra_meta: Optional[dict] = None):
    """Compile a lowered IRModule for the CPU and load it (``runtime.Module``)."""
    target = target if isinstance(target, Target) else Target(target)
    if target.kind.name not in ("llvm", "c"):
        raise TVMError(f"the C backend builds for llvm/c targets, not {target.kind.name}")
    source, flags, isa = generate_source(mod, target, extra_meta)
    flags += imported_objects(mod, flags, isa) + link_support(flags, isa)
    try:
        path = build_shared_cached(source, flags, isa)
    except CompileError as e:
        funcs = mod.functions.items() if isinstance(mod, IRModule) else [("", mod)]
        clash = explain_symbol_clash(str(e), [str((f.attrs or {}).get("global_symbol", n))
                                              for n, f in funcs])
        if clash:
            raise TVMError(clash) from None
        raise
    return Module(path, source=source)


IMPORT_C_KEYS = ("pragma_import_c",)


def _c_kernel_header() -> str:
    return C_KERNEL_HEADER


def _is_c_kernel(v) -> bool:
    return str(getattr(v, "value", v)).startswith(_c_kernel_header())


def imported_c_sources(mod: Union[IRModule, PrimFunc]) -> List[str]:
    """C sources attached with the ``import_c`` pragma (``s[C].pragma(x, "import_c", src)``
    or ``sch.annotate(loop, "pragma_import_c", src)``), in program order, without repeats."""
    funcs = [mod] if isinstance(mod, PrimFunc) else [
        f for f in mod.functions.values() if isinstance(f, PrimFunc)]
    out: List[str] = []

    def add(v):
        text = getattr(v, "value", v)
        if not isinstance(text, str):
            raise TVMError(f"pragma import_c expects C source text, got {type(text).__name__}")
        if text not in out:
            out.append(text)

    def visit(x):
        if isinstance(x, For):
            items = (x.annotations or {}).items()
        elif isinstance(x, AttrStmt):
            items = [(x.attr_key, x.value)]
        else:
            return
        for k, v in items:
            if k in IMPORT_C_KEYS:
                add(v)
            elif k == "pragma_import_llvm" and _is_c_kernel(v):
                llvm_kernels.append(v)  # contrib.clang.create_llvm kept the kernel as C
            elif k == "pragma_import_llvm":
                raise TVMError("pragma import_llvm is not supported by the C backend; attach "
                               "the micro-kernel's C source with the import_c pragma instead")

    llvm_kernels: list = []
    for f in funcs:
        post_order_visit(f.body, visit)
    # Classic links import_llvm modules outermost pragma first, keeping the first definition of
    # a symbol (LinkOnlyNeeded); imported_objects links with muldefs to the same effect.
    for v in reversed(llvm_kernels):
        add(v)
    return out


def imported_objects(mod: Union[IRModule, PrimFunc], flags: List[str],
                     isa: str = "") -> List[str]:
    """Compile each imported C source to an object file in the cache; their paths (to link)."""
    sources = imported_c_sources(mod)
    objs = [object_cached(src, flags, isa, "import_") for src in sources]
    if any(src.startswith(_c_kernel_header()) for src in sources):
        objs.append("-Wl,-z,muldefs")
    return objs


def link_support(flags: List[str], isa: str) -> List[str]:
    """Flags that link the support object (compiled once per compiler, flags and ISA) into a
    library instead of compiling the support functions with its source."""
    obj = object_cached(SUPPORT_SOURCE, [f for f in flags if f != OPENMP_FLAG], isa, "support_")
    return [f"-D{LINKED_SUPPORT_MACRO}", obj]
