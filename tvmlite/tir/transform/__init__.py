"""TIR passes (``tvm.tir.transform``): each a :class:`PrimFuncPass` built by a constructor
with TVM's name (``Simplify()``, ``VectorizeLoop()`` …), callable on an IRModule or a PrimFunc.
Each pass is a small module; ``tvmlite.driver.build_module`` lists them in order."""
from ...ir.transform import register_pass_config
from .compact_buffer import compact_buffer_allocation
from .flatten_buffer import flatten_buffer
from .function_pass import (
    PrimFuncPass,
    as_lower_pass,
    lower_pass_entries,
    prim_func_pass,
    stmt_pass,
)
from .gpu_barrier import inject_barriers
from .gpu_emulate import emulate_gpu_kernels
from .gpu_kernels import lower_gpu_kernels
from .hoist_if_then_else import hoist_if_then_else
from .instrument_bound_checkers import instrument_bound_checkers
from .loop_partition import LoopPartition, loop_partition
from .lower_blocks import lower_blocks
from .lower_intrin import lower_intrin
from .lower_match_buffer import lower_match_buffer
from .lower_reduction_init import lower_reduction_init
from .lower_virtual_thread import lower_virtual_thread, lower_virtual_thread_func
from .narrow_guarded_loops import narrow_guarded_loops
from .simplify import Simplify
from .storage_align import apply_storage_align
from .unroll_loop import UnrollLoop, unroll_loop
from .vectorize_loop import VectorizeLoop, vectorize_loop
from .verify_static_bounds import StaticCheckError, verify_static_bounds
from .version_broadcast_strides import version_broadcast_strides

for _key, _kind in [("tir.disable_vectorize", bool), ("tir.disable_assert", bool),
                    ("tir.instrument_bound_checkers", bool), ("tir.noalias", bool),
                    ("tir.UnrollLoop", dict), ("tir.LoopPartition", dict),
                    ("tir.detect_global_barrier", bool), ("tir.debug_keep_trivial_loop", bool)]:
    register_pass_config(_key, _kind)
# a list of (phase 0-3, pass) run by tvm.lower after the built-in passes of that phase
register_pass_config("tir.add_lower_pass", list, lower_pass_entries)


def LowerMatchBuffer() -> PrimFuncPass:  # noqa: N802
    """Turn the ``T.match_buffer`` regions of blocks into accesses of their sources."""
    return stmt_pass(lower_match_buffer, "tir.LowerMatchBuffer")


def LowerReductionInit() -> PrimFuncPass:  # noqa: N802  (TVM's pass-constructor naming)
    """Put each block's ``T.init`` before its reduction loops."""
    return stmt_pass(lower_reduction_init, "tir.LowerReductionInit")


LowerInitBlock = LowerReductionInit  # TVM's name


def StorageAlign() -> PrimFuncPass:  # noqa: N802
    """Apply the ``storage_align`` annotations to the buffers they name."""
    return stmt_pass(apply_storage_align, "tir.StorageAlign")


def LowerVirtualThread() -> PrimFuncPass:  # noqa: N802
    """Interleave the iterations of ``vthread`` loops (classic InjectVirtualThread)."""
    return prim_func_pass(lower_virtual_thread_func, opt_level=0, name="tir.LowerVirtualThread")


InjectVirtualThread = LowerVirtualThread  # TVM's name


def LowerBlocks() -> PrimFuncPass:  # noqa: N802
    """Blocks become loops: bindings substituted, predicates as guards, allocations hoisted."""
    return stmt_pass(lower_blocks, "tir.LowerBlocks")


def VerifyStaticBounds(check_bounds: bool = True, lowered: bool = False) -> PrimFuncPass:  # noqa: N802
    """Refuse provably out-of-bounds accesses, zero divisors and dtype overflows at build;
    ``lowered``: the check of the final loops, after partitioning, unrolling, vectorizing."""
    return stmt_pass(lambda body, func: verify_static_bounds(body, func, check_bounds, lowered),
                     "tir.VerifyLoweredBounds" if lowered else "tir.VerifyStaticBounds")


def CompactBufferAllocation() -> PrimFuncPass:  # noqa: N802
    """Shrink intermediate buffers to the region their loops access."""
    return stmt_pass(compact_buffer_allocation, "tir.CompactBufferAllocation")


def FlattenBuffer() -> PrimFuncPass:  # noqa: N802
    """Multi-dimensional buffer accesses become flat ones."""
    return stmt_pass(flatten_buffer, "tir.FlattenBuffer")


def HoistIfThenElse() -> PrimFuncPass:  # noqa: N802
    """Move loop-invariant ``if`` statements above the loops whose whole body they guard."""
    return stmt_pass(hoist_if_then_else, "tir.HoistIfThenElse")


def NarrowGuardedLoops() -> PrimFuncPass:  # noqa: N802
    """Narrow each serial loop whose whole body is an ``if`` bounding the loop variable by
    loop-invariant values to the iterations that ``if`` lets through."""
    return stmt_pass(narrow_guarded_loops, "tir.NarrowGuardedLoops")


def VersionBroadcastStrides() -> PrimFuncPass:  # noqa: N802
    """Put a copy of the body specialised to compact arguments in front of a function that
    vectorizes loops over ``auto_broadcast`` buffers (chosen at run time by the strides)."""
    return stmt_pass(version_broadcast_strides, "tir.VersionBroadcastStrides")


def InstrumentBoundCheckers() -> PrimFuncPass:  # noqa: N802
    """Guard each buffer access with a bounds check raising ``Out-of-bounds``."""
    return stmt_pass(instrument_bound_checkers, "tir.InstrumentBoundCheckers")


def LowerGPUKernels(max_threads: int = 1024, max_shared: int = 49152,  # noqa: N802
                    warp_size: int = 32) -> PrimFuncPass:
    """Mark GPU kernels with launch extents; check threads and shared memory per block;
    cross-thread reductions use warp shuffles only where ``warp_size`` is 32."""
    return PrimFuncPass(lambda f, m, c: lower_gpu_kernels(f, max_threads, max_shared, warp_size),
                        "tir.LowerGPUKernels")


def InjectGPUBarriers() -> PrimFuncPass:  # noqa: N802
    """Insert ``__syncthreads()`` between shared-memory writes and reads of other threads."""
    return PrimFuncPass(lambda f, m, c: inject_barriers(f), "tir.InjectGPUBarriers")


ThreadSync = InjectGPUBarriers  # TVM's name


def LowerIntrin(target_kind: str = "llvm") -> PrimFuncPass:  # noqa: N802
    """Apply the intrinsic lowering rules registered for ``target_kind`` (then ``default``);
    "llvm" and "c" (both the CPU C backend) share their rules."""
    cpu = ("llvm", "c")
    kinds = ((target_kind,) + tuple(k for k in cpu if k != target_kind)
             if target_kind in cpu else (target_kind,)) + ("default",)
    return stmt_pass(lambda body, f: lower_intrin(body, kinds), "tir.LowerIntrin")


def EmulateGPUKernels(check: bool = False) -> PrimFuncPass:  # noqa: N802
    """Run GPU kernels on the CPU: blocks in parallel, threads as loops split at barriers;
    ``check`` finds shared-memory races and out-of-bounds accesses."""
    return PrimFuncPass(lambda f, m, c: emulate_gpu_kernels(f, check), "tir.EmulateGPUKernels")


__all__ = [
    "PrimFuncPass", "prim_func_pass", "stmt_pass", "as_lower_pass", "lower_pass_entries",
    "LowerGPUKernels", "InjectGPUBarriers", "ThreadSync", "EmulateGPUKernels",
    "LowerIntrin",
    "LowerReductionInit", "LowerInitBlock", "StorageAlign", "LowerVirtualThread",
    "InjectVirtualThread", "LowerBlocks", "CompactBufferAllocation", "FlattenBuffer",
    "Simplify", "HoistIfThenElse", "InstrumentBoundCheckers", "LoopPartition", "UnrollLoop",
    "VectorizeLoop", "hoist_if_then_else",
    "compact_buffer_allocation", "flatten_buffer", "instrument_bound_checkers",
    "loop_partition", "lower_blocks", "lower_reduction_init", "lower_virtual_thread",
    "apply_storage_align", "unroll_loop", "vectorize_loop",
]


from ..._classic import fallback as _fallback  # noqa: E402

__getattr__ = _fallback(__name__)
