"""The lowering pipeline and ``tvm.build``.

``lower_passes`` is the whole pipeline: one ordered list of passes, run on the IRModule as one
:class:`~tvmlite.ir.transform.Sequential`. The ``tir.add_lower_pass`` config inserts user
passes after each phase. Print the IR after every pass with the PassContext config
``tvmlite.print_ir_after_all`` or ``TVMLITE_PRINT_IR=1`` (a ``PrintAfterAll`` instrument); time
the passes with ``PassContext(instruments=[tvm.ir.instrument.PassTimingInstrument()])``.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from collections import OrderedDict
from functools import lru_cache
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from ..codegen.build_c import build as build_c
from ..codegen.build_c import compile_flags
from ..codegen.codegen_cuda import build_driver_module, generate_cuda, use_driver_host
from ..codegen.codegen_opencl import OpenCLSourceModule, generate_opencl
from ..contrib.cc import cache_dir
from ..contrib.elf import cached_library_ok
from ..contrib.utils import atomic_write
from ..deep_recursion import deep
from ..error import TVMError
from ..ir.module import IRModule
from ..ir.op import has_lowering_rules, registry_generation
from ..ir.structural import _hash_into, structural_equal, structural_hash
from ..ir.transform import Pass, PassContext, Sequential
from ..runtime.cuda_module import CUDASourceModule
from ..runtime.module import Module
from ..target import Target
from ..te.schedule import Schedule, schedule_to_prim_func
from ..tir import op as _op
from ..tir import transform as _t
from ..tir.expr import Call, StringImm
from ..tir.function import PrimFunc
from ..tir.functor import Mutator
from ..tir.transform.gpu_split_host_device import split_host_device
from ..tir.transform.gpu_vectorize import MarkGPUVectorLoops


def _phase(ctx: PassContext, phase: int) -> List[Pass]:
    """The user passes ``tir.add_lower_pass`` puts after phase ``phase``."""
    return [p for ph, p in ctx.converted("tir.add_lower_pass", ()) if ph == phase]


def _partition_const_loops(ctx: PassContext, for_build: bool) -> bool:
    cfg = ctx.config.get("tir.LoopPartition") or {}
    flag = cfg.get("partition_const_loop") if isinstance(cfg, dict) else None
    return for_build if flag is None else bool(flag)


def loop_passes(ctx: PassContext) -> List[Pass]:
    """The first stage of the lowering pipeline: blocks → loops → flat buffers → simplified.
    Loop kinds (unrolled, vectorized, parallel) are still annotations on the loops: the IR
    AutoTVM's loop-nest features read (as classic's ``ana_lower`` stops before unrolling)."""
    return [
        *_phase(ctx, 0),
        _t.LowerReductionInit(),
        _t.StorageAlign(),
        _t.LowerBlocks(),
        _t.VerifyStaticBounds(not bool(ctx.config.get("tir.instrument_bound_checkers"))),
        *_phase(ctx, 1),
        _t.CompactBufferAllocation(),
        _t.FlattenBuffer(),
        _t.InjectVirtualThread(),  # on flat buffers allocated inside the vthread loops
        _t.Simplify(),
        *_phase(ctx, 2),
    ]


def lower_passes(ctx: PassContext, for_build: bool = False) -> List[Pass]:
    """The lowering pipeline in ``ctx``, in order (:func:`loop_passes`, then partitioned,
    unrolled, vectorized → invariant ``if``s hoisted, as classic's phase 3).

    Loops with constant bounds are partitioned (guard-free main bodies) when building, or when
    the config ``tir.LoopPartition: {"partition_const_loop": True}`` asks for it; ``tvm.lower``
    alone prints the classic form (guards kept, as the seeds show)."""
    checked = bool(ctx.config.get("tir.instrument_bound_checkers"))
    return [
        *loop_passes(ctx),
        _t.NarrowGuardedLoops(),
        # on scalar code, before loops are unrolled or vectorized (a checked loop runs scalar)
        *([_t.InstrumentBoundCheckers()] if checked else []),
        *([_t.LoopPartition()] if _partition_const_loops(ctx, for_build) else []),
        _t.VersionBroadcastStrides(),
        _t.UnrollLoop(),
        _t.VectorizeLoop(),
        _t.HoistIfThenElse(),
        *([_t.VerifyStaticBounds(not checked, lowered=True)] if for_build else []),
        *_phase(ctx, 3),
    ]


def lower_module(mod: IRModule, for_build: bool = False, loops_only: bool = False) -> IRModule:
    """Run the lowering pipeline on every PrimFunc of ``mod`` in the current PassContext
    (only its first stage, :func:`loop_passes`, with ``loops_only``)."""
    ctx = PassContext.current()
    passes = loop_passes(ctx) if loops_only else lower_passes(ctx, for_build)
    return Sequential(passes, name="tvmlite.lower")(mod)


def lower_primfunc(func: PrimFunc, name: str = "main", for_build: bool = False) -> PrimFunc:
    """Lower one PrimFunc in the current PassContext (see :func:`lower_passes`)."""
    return lower_module(IRModule({name: func}), for_build)[name]


def _schedule_to_func(sch, args, name: str, binds) -> PrimFunc:
    func = schedule_to_prim_func(sch, args, binds)
    func = func.with_attr({"global_symbol": name, "from_legacy_te_schedule": True})
    return func.with_attr("tir.noalias", True) if _noalias() else func.without_attr("tir.noalias")


def _noalias() -> bool:
    """Whether lowered functions promise unaliased arguments (config ``tir.noalias``, on by
    default as in classic TVM)."""
    return bool(PassContext.current().converted("tir.noalias", True))


def _to_module(inputs, args, name: str, binds) -> IRModule:
    if isinstance(inputs, Schedule):
        if args is None:
            raise TVMError("lowering a schedule needs the argument list (tensors and vars)")
        return IRModule({name: _schedule_to_func(inputs, args, name, binds)})
    if isinstance(inputs, PrimFunc):  # as classic: named, and unaliased unless configured
        sym = (inputs.attrs or {}).get("global_symbol", name)
        func = inputs if "global_symbol" in (inputs.attrs or {}) else inputs.with_attr(
            "global_symbol", sym)
        if "tir.noalias" not in (func.attrs or {}) and _noalias():
            func = func.with_attr("tir.noalias", True)
        return IRModule({sym: func})
    if isinstance(inputs, IRModule):
        return inputs
    raise TVMError(f"cannot lower {type(inputs).__name__}; expected a te.Schedule, a "
                   "PrimFunc or an IRModule")


def schedule_to_module(sch, args: Optional[Sequence[Any]] = None, name: str = "main",
                       binds=None) -> IRModule:
    """The module of a TE schedule before any lowering pass (classic ``schedule_to_module``)."""
    return _to_module(sch, args, name, binds)


@deep
def lower(inputs, args: Optional[Sequence[Any]] = None, name: str = "main",
          binds: Optional[Dict[Any, Any]] = None, simple_mode: bool = False,
          _for_build: bool = False, _loops_only: bool = False) -> IRModule:
    """Lower a schedule, PrimFunc or IRModule to flat loops (``tvm.lower``).

    Parameters
    ----------
    inputs : te.Schedule, PrimFunc or IRModule
    args : list of te.Tensor, tir.Buffer or tir.Var, for a schedule
    name : the function's name
    binds : optional map from tensors to the buffers to use for them
    simple_mode : accepted for compatibility (the printed form is always TVMScript)
    _loops_only : stop after the pipeline's first stage (:func:`loop_passes`)
    """
    mod = _to_module(inputs, args, name, binds)
    mod = IRModule({fname: func.with_attr("global_symbol", fname)
                    if isinstance(func, PrimFunc) and "global_symbol" not in (func.attrs or {})
                    else func for fname, func in mod.functions.items()}, mod.attrs)
    return lower_module(mod, _for_build, _loops_only)


@deep
def build(inputs, args: Optional[Sequence[Any]] = None, target=None, target_host=None,
          runtime=None, name: str = "default_function", binds=None):
    """Compile to a runtime Module (``tvm.build``); ``target`` defaults to the current target
    or ``"llvm"`` (the host CPU through the C backend)."""
    if isinstance(target, dict):
        if len(target) != 1:
            raise TVMError("building for several targets at once is not supported")
        (target, inputs), = target.items()
    if target is None:
        target = Target.current(allow_none=True) or "llvm"
    tgt = target if isinstance(target, Target) else Target(target, host=target_host)
    kind = tgt.kind.name
    if kind in ("cuda", "nvptx", "opencl"):
        return _build_gpu(_to_module(inputs, args, name, binds), tgt, name)
    if kind not in ("llvm", "c"):
        raise TVMError(f"target {kind!r} is not supported yet by tvmlite")
    mod = _to_module(inputs, args, name, binds)
    key = _cache_key(mod, tgt, compile_flags(tgt))
    hit = _BUILD_CACHE.get(key) if key is not None else None
    # a 64-bit hash may collide: the stored module must also be structurally equal
    if hit is not None and structural_equal(hit[0], mod, map_free_vars=True):
        _BUILD_CACHE.move_to_end(key)
        build_stats["hits"] += 1
        return hit[1]
    disk = _disk_key(mod, key)
    rt = _disk_lookup(disk)
    if rt is None:
        rt = build_c(_lower_intrin(lower(mod, name=name, _for_build=True), kind), tgt)
        _disk_store(disk, rt)
    if key is not None:
        build_stats["misses"] += 1
        _BUILD_CACHE[key] = (mod, rt)
        while len(_BUILD_CACHE) > BUILD_CACHE_SIZE:
            _BUILD_CACHE.popitem(last=False)
    return rt


def _lower_intrin(mod: IRModule, kind: str) -> IRModule:
    """Apply the intrinsic lowering rules registered for ``kind`` (none: ``mod`` itself)."""
    if not has_lowering_rules():
        return mod
    return Sequential([_t.LowerIntrin(kind)], name="tvmlite.lower_intrin")(mod)


# CUDA's fast-math device functions and the C library functions the CPU emulation calls instead
_CUDA_DEVICE_MATH = {f"__{n}f": f"{n}f" for n in (
    "exp", "exp10", "log", "log2", "log10", "sin", "cos", "tan", "pow")}
_CUDA_DEVICE_MATH["__fdividef"] = None  # a / b


class _HostMath(Mutator):
    def visit_Call(self, e):
        e = self.generic(e)
        if e.op in ("call_pure_extern", "call_extern") and e.args and \
                isinstance(e.args[0], StringImm) and e.args[0].value in _CUDA_DEVICE_MATH:
            host = _CUDA_DEVICE_MATH[e.args[0].value]
            if host is None:
                return _op.div(e.args[1], e.args[2])
            return Call(e.dtype, e.op, (StringImm(host),) + tuple(e.args[1:]))
        return e


def _emulated_math(mod: IRModule) -> IRModule:
    """``mod`` with CUDA's device math functions (``__expf``) spelled for the C library."""
    return Sequential([_t.stmt_pass(lambda body, f: _HostMath().visit(body),
                                    "tvmlite.emulated_math")], name="tvmlite.gpu_emulate")(mod)


def gpu_passes(tgt: Target) -> List[Pass]:
    """The passes after :func:`lower_passes` for a GPU target: kernels with launch extents
    (checked against the target's limits), then shared-memory barriers."""
    shared = int(tgt.attrs.get("max_shared_memory_per_block", 49152))
    # classic: OpenCL's warp size is 1 (no shuffles: cross-thread reductions use shared memory)
    warp = int(tgt.attrs.get("thread_warp_size", 1 if tgt.kind.name == "opencl" else 32))
    return [_t.LowerGPUKernels(tgt.max_num_threads, shared, warp), _t.InjectGPUBarriers()]


def _build_gpu(mod: IRModule, tgt: Target, name: str):
    """Build for a GPU target: the CUDA (or OpenCL) source of the kernels
    (``imported_modules[0]``) and a host library. Without a CUDA runtime the host library
    runs the same lowered kernels emulated on the CPU (``TVMLITE_GPU_EMULATION=1`` gives
    ``tvm.cuda(0)`` arrays for it)."""
    # no loop partition: guards stay in kernels (a peeled copy would duplicate shared buffers);
    # vectorized loops stay serial loops, marked for the CUDA dialect's float4-style accesses
    cur = PassContext.current()
    marks = [*cur.config.get("tir.add_lower_pass", ()), (2, MarkGPUVectorLoops())]
    with PassContext(cur.opt_level, cur.required_pass, cur.disabled_pass,
                     config={**cur.config, "tir.disable_vectorize": True,
                             "tir.add_lower_pass": marks}):
        lowered = lower(mod, name=name)
    lowered = Sequential(gpu_passes(tgt), name="tvmlite.gpu")(lowered)
    lowered = _lower_intrin(lowered, tgt.kind.name)
    if tgt.kind.name != "opencl" and use_driver_host():
        return build_driver_module(lowered, tgt)
    devices = []
    for func in lowered.functions.values():
        if isinstance(func, PrimFunc):
            devices += split_host_device(func)[1]
    opencl = tgt.kind.name == "opencl"
    source = generate_opencl(devices) if opencl else generate_cuda(devices)
    check = os.environ.get("TVMLITE_GPU_EMULATION", "").lower() == "check"
    emulated = Sequential([_t.EmulateGPUKernels(check)],
                          name="tvmlite.gpu_emulate")(_emulated_math(lowered))
    rt = build_c(emulated, Target("llvm"))
    dev_mod = OpenCLSourceModule if opencl else CUDASourceModule
    rt.imported_modules.append(dev_mod(source, [n for n, _ in devices]))
    return rt


# ---------------------------------------------------------------------------- front build cache
# ``tvm.build`` of a module it has built before (same structure, target, ISA and pass
# configuration) returns the module already built, skipping lowering, codegen and the compiler.
# For a TE schedule the key is the structural hash of the scheduled PrimFunc it materializes
# to, so equal schedules built from fresh tensors share one entry.
BUILD_CACHE_SIZE = 256
_BUILD_CACHE: "OrderedDict[tuple, Any]" = OrderedDict()
build_stats = {"hits": 0, "misses": 0, "disk_hits": 0}


def clear_build_cache() -> None:
    """Forget every module ``build`` has cached in this process."""
    _BUILD_CACHE.clear()


def _config_key(value):
    if isinstance(value, dict):
        return tuple(sorted((str(k), _config_key(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_config_key(v) for v in value)
    try:
        hash(value)
    except TypeError:
        return _Identity(value)
    return value  # callables and passes by identity (the key keeps them alive)


class _Identity:
    """An unhashable config value in a cache key, by identity. It holds the value: a bare
    ``id()`` would be recycled once the value is freed, and another object at the same address
    (with the same default ``repr``) would hit a module built for the first."""

    __slots__ = ("value",)

    def __init__(self, value) -> None:
        self.value = value

    def __hash__(self) -> int:
        return id(self.value)

    def __eq__(self, other) -> bool:
        return isinstance(other, _Identity) and other.value is self.value

    def __repr__(self) -> str:
        return f"<config value {type(self.value).__name__}>"


def _names(func: PrimFunc) -> tuple:
    """Names that reach the generated code's messages but not the structural hash."""
    out = []
    for p in func.params:
        out.append(p.name)
        buf = func.buffer_map.get(p)
        if buf is not None:
            out.append(buf.name)
            out.extend(d.name for d in buf.shape if hasattr(d, "name"))
    return tuple(out)


def _cache_key(mod: IRModule, tgt, flags) -> Optional[tuple]:
    ctx = PassContext.current()
    if ctx.instruments:  # they must see the passes run (PrintAfterAll among them)
        return None
    funcs = []
    for fname, func in mod.functions.items():
        if not isinstance(func, PrimFunc):
            return None
        funcs.append((fname, structural_hash(func), _names(func)))
    return (tuple(funcs), structural_hash(mod.attrs) if mod.attrs else 0, str(tgt),
            tuple(flags[0]), flags[1], ctx.opt_level, _config_key(ctx.config),
            tuple(sorted(map(str, ctx.disabled_pass))), tuple(map(str, ctx.required_pass)),
            registry_generation())


# ---------------------------------------------------------------------------- disk front cache
# A build in a new process (a warm relay.build) finds the library of an equal module through a
# small record in the kernel cache directory, keyed by a SHA-256 of the module's structure (the
# structural hash's walk), the front cache key and the tvmlite sources: no lowering, no C code.
_UNFAITHFUL = re.compile(rb"<(?![A-Za-z_]\w*\.\w+: -?\d+>)|\.\.\.")  # enums are fine


class _Digest:
    """A hashlib sink for ``structural._hash_into`` that notes ``repr`` text which is no
    faithful key across processes: an object address (``<... at 0x...>``) or an elided array
    (``[1, 2, ..., 9]``); such modules are not cached on disk."""

    def __init__(self) -> None:
        self.h = hashlib.sha256()
        self.portable = True

    def update(self, data: bytes) -> None:
        if _UNFAITHFUL.search(data):
            self.portable = False
        self.h.update(data)


@lru_cache(maxsize=None)
def _package_digest() -> str:
    """SHA-256 of tvmlite's own sources (a changed pass never reuses an old record)."""
    h = hashlib.sha256()
    root = Path(__file__).resolve().parents[1]
    for path in sorted(root.rglob("*.py")):
        h.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def _plain(value) -> bool:
    """Made only of constants (no pass, callable or object keyed by identity)."""
    if isinstance(value, tuple):
        return all(_plain(v) for v in value)
    return value is None or isinstance(value, (str, int, float, bool))


def _disk_key(mod: IRModule, key: Optional[tuple]) -> Optional[str]:
    # user lowering rules (register_intrin_lowering) live in this process only
    if key is None or has_lowering_rules():
        return None
    d = _Digest()
    _hash_into(mod, d, {})
    rest = repr(key[1:]) + repr([f[2] for f in key[0]])  # target, flags, config; names
    d.update(rest.encode())
    if not d.portable or not _plain(key[6]):  # a user pass in the config runs every time
        return None
    d.h.update(_package_digest().encode())
    return d.h.hexdigest()[:40]


def disk_record(disk: Optional[str]):
    """``(library, record)`` stored under the key ``disk`` in the kernel cache directory (the
    record's extra fields included), or None when there is none or its library is gone."""
    if disk is None:
        return None
    try:
        rec = json.loads((cache_dir() / f"front_{disk}.json").read_text())
        lib = cache_dir() / rec["lib"]
        if not cached_library_ok(lib):
            return None
        return Module(str(lib), source=rec["source"]), rec
    except (OSError, ValueError, KeyError, TypeError, TVMError):
        return None


def store_disk_record(disk: Optional[str], rt, **extra) -> None:
    """Record library ``rt`` (built into the kernel cache) under the key ``disk``, with the
    JSON-able ``extra`` fields (``relay.build`` adds the graph and its params file)."""
    lib = Path(getattr(rt, "_path", "") or "")
    if disk is None or lib.parent != cache_dir():
        return
    try:
        atomic_write(cache_dir() / f"front_{disk}.json",
                     json.dumps({"lib": lib.name, "source": rt.get_source(), **extra}).encode())
    except OSError:
        pass


def _disk_lookup(disk: Optional[str]):
    hit = disk_record(disk)
    if hit is None:
        return None
    build_stats["disk_hits"] += 1
    return hit[0]


def _disk_store(disk: Optional[str], rt) -> None:
    store_disk_record(disk, rt)
