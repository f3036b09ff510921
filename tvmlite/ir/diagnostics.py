"""Classic ``tvm.ir.diagnostics``: diagnostics (level, span, message) gathered in a context
and shown by the current renderer, which ``override_renderer`` replaces (tests capture
messages with it)."""
from __future__ import annotations

import enum
import sys
from typing import Callable, List, Optional

from ..error import DiagnosticError


class DiagnosticLevel(enum.IntEnum):
    """How serious a diagnostic is."""

    BUG = 10
    ERROR = 20
    WARNING = 30
    NOTE = 40
    HELP = 50


class Diagnostic:
    """One message about a source location (``span`` may be None)."""

    def __init__(self, level: DiagnosticLevel, span, message: str):
        self.level, self.span, self.message = level, span, str(message)


class DiagnosticRenderer:
    """Shows a context's diagnostics by ``render_func(ctx)``."""

    def __init__(self, render_func: Callable[["DiagnosticContext"], None]):
        self._render_func = render_func

    def render(self, ctx: "DiagnosticContext") -> None:
        self._render_func(ctx)


def _print(ctx: "DiagnosticContext") -> None:
    for d in ctx.diagnostics:
        print(f"{d.level.name.lower()}: {d.message}", file=sys.stderr)


_DEFAULT = DiagnosticRenderer(_print)
_current: List[DiagnosticRenderer] = [_DEFAULT]


def get_renderer() -> DiagnosticRenderer:
    """The renderer diagnostics are shown by."""
    return _current[0]


def override_renderer(render_func: Optional[Callable[["DiagnosticContext"], None]]) -> None:
    """Show diagnostics by ``render_func(ctx)`` from now on (None: the default printer)."""
    _current[0] = _DEFAULT if render_func is None else DiagnosticRenderer(render_func)


class DiagnosticContext:
    """Diagnostics about ``module``, shown together by :meth:`render`."""

    def __init__(self, module, renderer: Optional[DiagnosticRenderer] = None):
        self.module = module
        self.renderer = renderer or get_renderer()
        self.diagnostics: List[Diagnostic] = []

    def emit(self, diagnostic: Diagnostic) -> None:
        self.diagnostics.append(diagnostic)

    def render(self) -> None:
        """Show the diagnostics; raise ``DiagnosticError`` if any is an error."""
        self.renderer.render(self)
        if any(d.level <= DiagnosticLevel.ERROR for d in self.diagnostics):
            raise DiagnosticError("diagnostics were emitted, please check rendered error "
                                  "message")


__all__ = ["DiagnosticLevel", "Diagnostic", "DiagnosticRenderer", "DiagnosticContext",
           "get_renderer", "override_renderer"]
