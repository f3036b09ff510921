"""Pass instruments (``tvm.ir.instrument``): code that sees every pass a
:class:`~tvmlite.ir.transform.PassContext` runs.

Give them as ``PassContext(instruments=[...])``. An instrument subclasses
:class:`PassInstrument`, or is any class decorated with :func:`pass_instrument`, and defines
some of ``enter_pass_ctx()``, ``exit_pass_ctx()``, ``should_run(mod, info)``,
``run_before_pass(mod, info)`` and ``run_after_pass(mod, info)``.
"""
from __future__ import annotations

import sys
import threading
import time
from typing import List, Optional

from ..error import TVMError


class PassInstrument:
    """Base of pass instruments; every hook does nothing (``should_run`` is not asked)."""

    @property
    def name(self) -> str:
        return type(self).__name__

    def enter_pass_ctx(self) -> None:
        """Called when the instrumented ``PassContext`` is entered."""

    def exit_pass_ctx(self) -> None:
        """Called when the instrumented ``PassContext`` is exited."""

    def should_run(self, mod, info) -> bool:
        """Return False to skip the pass ``info`` on ``mod`` (a required pass always runs)."""
        return True

    def run_before_pass(self, mod, info) -> None:
        """Called before each pass runs, with its input module."""

    def run_after_pass(self, mod, info) -> None:
        """Called after each pass runs, with its output module."""


def pass_instrument(pi_cls: Optional[type] = None):
    """Class decorator making a plain class a :class:`PassInstrument` (``@pass_instrument``
    or ``@pass_instrument()``); the hooks it does not define do nothing.

    Examples
    --------
    .. code-block:: python

        @tvm.ir.instrument.pass_instrument
        class SkipVectorize:
            def should_run(self, mod, info):
                return info.name != "tir.VectorizeLoop"
    """

    def make(cls):
        if not isinstance(cls, type):
            raise TVMError(f"pass_instrument decorates a class, got {cls!r}")
        if issubclass(cls, PassInstrument):
            return cls
        return type(cls.__name__, (cls, PassInstrument),
                    {"__doc__": cls.__doc__, "__module__": cls.__module__,
                     "__qualname__": cls.__qualname__})

    return make(pi_cls) if pi_cls is not None else make


class _Profile:
    __slots__ = ("name", "start", "duration", "children")

    def __init__(self, name: str):
        self.name, self.start, self.duration = name, time.perf_counter(), 0.0
        self.children: List[_Profile] = []


_TIMING = threading.local()


def _timing_state():
    if not hasattr(_TIMING, "root"):
        _TIMING.root, _TIMING.stack = _Profile("root"), []
    return _TIMING


class PassTimingInstrument(PassInstrument):
    """Times every pass, nested passes under the pass that runs them; read the profile with
    :meth:`render` before the context exits (exiting clears it, as in TVM)."""

    def run_before_pass(self, mod, info) -> None:
        st = _timing_state()
        prof = _Profile(info.name)
        (st.stack[-1] if st.stack else st.root).children.append(prof)
        st.stack.append(prof)

    def run_after_pass(self, mod, info) -> None:
        st = _timing_state()
        prof = st.stack.pop()
        prof.duration = time.perf_counter() - prof.start

    def exit_pass_ctx(self) -> None:
        st = _timing_state()
        st.root.children.clear()
        st.stack.clear()

    @staticmethod
    def render() -> str:
        """The profile of this thread's timed passes, one line per pass in TVM's format:
        ``name: total_us [self_us] (% of all; % of parent)``, nested passes indented by a tab.
        """
        st = _timing_state()
        if st.stack:
            raise TVMError("cannot render the pass profile while a pass is running")
        top = sum(p.duration for p in st.root.children)
        lines: List[str] = []

        def walk(prof: _Profile, depth: int, parent: float) -> None:
            own = prof.duration - sum(c.duration for c in prof.children)
            lines.append(f"{chr(9) * depth}{prof.name}: {prof.duration * 1e6:.0f}us "
                         f"[{own * 1e6:.0f}us] ({_pct(prof.duration, top)}%; "
                         f"{_pct(prof.duration, parent)}%)")
            for c in prof.children:
                walk(c, depth + 1, prof.duration)

        for p in st.root.children:
            walk(p, 0, top)
        return "".join(line + "\n" for line in lines)


def _pct(part: float, whole: float) -> str:
    return f"{100.0 * part / whole:.2f}" if whole > 0 else "0.00"


class PrintAfterAll(PassInstrument):
    """Print each function's TVMScript to stderr after every pass that runs no nested pass
    (a :class:`Sequential`'s own result is its last pass's), headed ``# IR after <pass>``.

    ``PassContext(config={"tvmlite.print_ir_after_all": True})`` and ``TVMLITE_PRINT_IR=1``
    add one to the context.
    """

    def __init__(self, file=None):
        self._file = file
        self._nested: List[bool] = []  # per running pass: has it run a nested pass?

    def run_before_pass(self, mod, info) -> None:
        if self._nested:
            self._nested[-1] = True
        self._nested.append(False)

    def run_after_pass(self, mod, info) -> None:
        if self._nested.pop():
            return
        out = self._file or sys.stderr
        for func in mod.functions.values():
            script = getattr(func, "script", None)
            if script is not None:
                print(f"# IR after {info.name}\n{script()}", file=out)

    def exit_pass_ctx(self) -> None:
        self._nested.clear()


__all__ = ["PassInstrument", "pass_instrument", "PassTimingInstrument", "PrintAfterAll"]
