"""Schedule test helpers (``tvm.tir.schedule.testing``)."""
from __future__ import annotations

from typing import Sequence, Union

from ... import tir
from ...ir import IRModule, assert_structural_equal
from ..function import PrimFunc
from .schedule import Schedule


class _T:
    """``T`` in a printed trace: the tir package, plus TVMScript's typed constants
    (``T.int64(128)`` in a printed index map)."""

    def __getattr__(self, name: str):
        if hasattr(tir, name):
            return getattr(tir, name)
        if name.rstrip("0123456789") in ("int", "uint", "float", "bool"):
            return lambda value: tir.const(value, name)
        raise AttributeError(name)


def verify_trace_roundtrip(sch: Schedule, mod: Union[PrimFunc, IRModule], *,
                           debug_mask: Union[str, int] = "all",
                           text_format: Union[str, Sequence[str]] = ("python",)) -> Schedule:
    """Check that ``sch``'s trace replays onto a fresh schedule of ``mod`` — directly and, for
    ``"python"`` / ``"json"`` in ``text_format``, through its printed Python or its JSON —
    giving the same module.

    Returns the replayed schedule."""
    formats = [text_format] if isinstance(text_format, str) else list(text_format)
    trace = sch.trace
    replayed = Schedule(mod, debug_mask=debug_mask)
    trace.apply_to_schedule(replayed, remove_postproc=False)
    assert_structural_equal(sch.mod, replayed.mod)
    if "python" in formats:
        from_text = Schedule(mod, debug_mask=debug_mask)
        exec("\n".join(trace.as_python()), {"sch": from_text, "T": _T(), "tir": tir})
        assert_structural_equal(sch.mod, from_text.mod)
    if "json" in formats:
        from_json = Schedule(mod, debug_mask=debug_mask)
        type(trace).apply_json_to_schedule(trace.as_json(), from_json)
        assert_structural_equal(sch.mod, from_json.mod)
    return replayed
