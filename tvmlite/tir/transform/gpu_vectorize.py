"""Keep the ``vectorize`` of a GPU kernel's loop for the CUDA printer.

CUDA vectors are memory types (``float4``, ``int2``, ``__half2``…), not arithmetic ones, so a
GPU build does not turn vectorized loops into vector expressions (``tir.disable_vectorize``):
each becomes a serial loop, which the CPU emulation runs as it is. This pass, run before
``VectorizeLoop``, marks every vectorized loop with the annotation ``VECTOR_ATTR``; the CUDA
dialect prints a marked loop of 2 or 4 lanes with vector loads and stores where the accesses
are contiguous and provably aligned, and as the scalar loop otherwise. Before::

    for i in T.vectorized(4):
        C[tx * 4 + i] = A[tx * 4 + i] * 3.0

After (``VectorizeLoop`` then makes the loop serial, keeping the annotation)::

    for i in T.vectorized(4, annotations={"tvmlite.gpu_vectorized": 1}):
        C[tx * 4 + i] = A[tx * 4 + i] * 3.0
"""
from __future__ import annotations

from ..analysis.verify_gpu_code import VECTOR_ATTR
from ..expr import IntImm
from ..functor import Mutator
from ..stmt import For, ForKind
from .function_pass import PrimFuncPass, stmt_pass


class _Mark(Mutator):
    def visit_For(self, s):
        new = self.generic(s)
        if s.kind != ForKind.VECTORIZED:
            return new
        ann = {**(new.annotations or {}), VECTOR_ATTR: IntImm("int32", 1)}
        return For(new.loop_var, new.min, new.extent, new.kind, new.body, new.thread_binding,
                   ann)


def mark_gpu_vector_loops(body, func=None):
    """Annotate every vectorized loop of ``body`` with ``VECTOR_ATTR`` (module docstring)."""
    return _Mark().visit(body)


def MarkGPUVectorLoops() -> PrimFuncPass:  # noqa: N802
    """The pass of :func:`mark_gpu_vector_loops`."""
    return stmt_pass(mark_gpu_vector_loops, "tir.MarkGPUVectorLoops")


__all__ = ["VECTOR_ATTR", "mark_gpu_vector_loops", "MarkGPUVectorLoops"]
