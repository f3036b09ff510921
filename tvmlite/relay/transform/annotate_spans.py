"""``relay.transform.AnnotateSpans``: print the module in the text format and parse it back, as
classic does to give every expression a source span. tvmlite tracks no spans, so what remains
is the round trip: the module comes back re-read (fresh nodes) and, as the parser leaves it,
type-inferred."""
from __future__ import annotations

from ...ir.module import IRModule
from ...ir.transform import ModulePass, Pass, register_pass
from ..parser import parse
from ..printer import astext


def _run(mod: IRModule, ctx) -> IRModule:
    return parse(astext(mod, show_meta_data=True), "GeneratedSource")


def AnnotateSpans() -> Pass:  # noqa: N802
    """Classic ``relay.transform.AnnotateSpans()``."""
    return ModulePass(_run, "AnnotateSpans", opt_level=0)


register_pass("AnnotateSpans", AnnotateSpans)
