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


def SpanCheck() -> Pass:  # noqa: N802
    """Classic ``relay.SpanCheck()``: report expressions without a source span. tvmlite
    keeps spans only on calls the parser made, so running it is an UnsupportedError."""
    def run(mod, ctx):
        from ..._classic import UnsupportedError
        raise UnsupportedError("relay.SpanCheck: tvmlite does not track source spans on every "
                               "expression")
    return ModulePass(run, "SpanCheck", opt_level=0)
