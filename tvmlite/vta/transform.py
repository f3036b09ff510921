"""VTA passes in the one lowering pipeline.

``AnnotatePragmas`` (phase 0) turns the loops carrying a VTA pragma (``dma_copy``, ``alu``,
``vta_gemm``) into ``AttrStmt("pragma_<name>")`` around the loop, so the region survives the
removal of unit loops later in the pipeline; the VTA code generator (:mod:`.codegen`) maps each
region to instructions. A loop bound to a ``cthread`` (VTA's virtual thread) becomes a serial
loop inside ``AttrStmt("vta.cthread")``: the code generator interleaves the threads' instruction
streams (the generic virtual-thread lowering would run them one after the other).
"""
from __future__ import annotations

from ..tir.expr import StringImm
from ..tir.functor import Mutator
from ..tir.stmt import AttrStmt, For, ForKind
from ..tir.transform.function_pass import prim_func_pass

#: pragmas the VTA code generator consumes
VTA_PRAGMAS = ("dma_copy", "alu", "vta_gemm", "skip_dma_copy", "skip_alu")
#: attribute marking a virtual-thread loop whose iterations the code generator interleaves
CTHREAD_ATTR = "vta.cthread"


class _Annotate(Mutator):
    def visit_For(self, s):
        new = self.generic(s)
        tb = new.thread_binding
        if new.kind == ForKind.THREAD_BINDING and tb is not None and tb.thread_tag == "cthread":
            loop = For(new.loop_var, new.min, new.extent, ForKind.SERIAL, new.body, None,
                       new.annotations)
            return AttrStmt(StringImm("cthread"), CTHREAD_ATTR, StringImm(""), loop)
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
