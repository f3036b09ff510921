"""VTA passes in the one lowering pipeline.

``AnnotatePragmas`` (phase 0) turns the loops carrying a VTA pragma (``dma_copy``, ``alu``,
``vta_gemm``) into ``AttrStmt("pragma_<name>")`` around the loop, so the region survives the
removal of unit loops later in the pipeline; the VTA code generator (:mod:`.codegen`) maps each
region to instructions.
"""
from __future__ import annotations

from ..tir.expr import StringImm
from ..tir.functor import Mutator
from ..tir.stmt import AttrStmt, For
from ..tir.transform.function_pass import prim_func_pass

#: pragmas the VTA code generator consumes
VTA_PRAGMAS = ("dma_copy", "alu", "vta_gemm", "skip_dma_copy", "skip_alu")


class _Annotate(Mutator):
    def visit_For(self, s):
        new = self.generic(s)
        keys = [k for k in (new.annotations or {}) if k.startswith("pragma_")
                and k[len("pragma_"):] in VTA_PRAGMAS]
        if not keys:
            return new
        ann = {k: v for k, v in new.annotations.items() if k not in keys}
        loop = For(new.loop_var, new.min, new.extent, new.kind, new.body, new.thread_binding,
                   ann)
        for k in keys:
            loop = AttrStmt(StringImm(k[len("pragma_"):]), "pragma_" + k[len("pragma_"):],
                            StringImm(""), loop)
        return loop


def _annotate(func, mod, ctx):
    return func.with_body(_Annotate().visit(func.body))


def AnnotatePragmas():  # noqa: N802  (TVM's pass naming)
    """The pass described in the module docstring."""
    return prim_func_pass(_annotate, opt_level=0, name="vta.AnnotatePragmas")
