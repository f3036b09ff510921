"""TIR passes (``tvm.tir.transform``). Each pass is a small module; ``tvmlite.driver.lower``
runs them in order."""
from .compact_buffer import compact_buffer_allocation
from .flatten_buffer import flatten_buffer
from .function_pass import prim_func_pass, stmt_pass
from .instrument_bound_checkers import instrument_bound_checkers
from .loop_partition import LoopPartition, loop_partition
from .lower_blocks import lower_blocks
from .lower_reduction_init import lower_reduction_init
from .lower_virtual_thread import lower_virtual_thread
from .storage_align import apply_storage_align
from .unroll_loop import UnrollLoop, unroll_loop
from .vectorize_loop import VectorizeLoop, vectorize_loop


def LowerReductionInit():  # noqa: N802  (TVM's pass-constructor naming)
    return stmt_pass(lower_reduction_init, "tir.LowerReductionInit")


def StorageAlign():  # noqa: N802
    return stmt_pass(apply_storage_align, "tir.StorageAlign")


def LowerVirtualThread():  # noqa: N802
    return stmt_pass(lower_virtual_thread, "tir.LowerVirtualThread")


def LowerBlocks():  # noqa: N802
    return stmt_pass(lower_blocks, "tir.LowerBlocks")


def CompactBufferAllocation():  # noqa: N802
    return stmt_pass(compact_buffer_allocation, "tir.CompactBufferAllocation")


def FlattenBuffer():  # noqa: N802
    return stmt_pass(flatten_buffer, "tir.FlattenBuffer")


def InstrumentBoundCheckers():  # noqa: N802
    return stmt_pass(instrument_bound_checkers, "tir.InstrumentBoundCheckers")


def Simplify():  # noqa: N802
    from .simplify import simplify_stmt

    return stmt_pass(lambda body, func: simplify_stmt(body), "tir.Simplify")


from ..._classic import fallback as _fallback  # noqa: E402

__getattr__ = _fallback(__name__)
