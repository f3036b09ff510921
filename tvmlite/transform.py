"""Passes and the pass context (``tvm.transform``)."""
from __future__ import annotations

import threading
from typing import Any, Callable, Dict, Iterable, List, Optional

from .error import TVMError

_KNOWN_CONFIG = {
    "tir.disable_vectorize": bool,
    "tir.disable_assert": bool,
    "tir.add_lower_pass": list,
    "tir.instrument_bound_checkers": bool,
    "tir.noalias": bool,
    "tir.UnrollLoop": dict,
    "tir.LoopPartition": dict,
    "tir.detect_global_barrier": bool,
    "tir.debug_keep_trivial_loop": bool,
    "tvmlite.print_ir_after_all": bool,
    "relay.FuseOps.max_depth": int,
    "relay.backend.use_auto_scheduler": bool,
}


class PassInfo:
    def __init__(self, opt_level: int, name: str, required: Iterable[str] = ()):
        self.opt_level, self.name, self.required = opt_level, name, list(required)


class Pass:
    """A transformation of an IRModule; call it on a module (``mod = pass_(mod)``)."""

    def __init__(self, fn: Callable, name: str, opt_level: int = 0):
        self._fn = fn
        self.info = PassInfo(opt_level, name)

    @property
    def name(self) -> str:
        return self.info.name

    def __call__(self, mod):
        return self._fn(mod, PassContext.current())

    def __repr__(self):
        return f"Pass({self.info.name}, opt_level={self.info.opt_level})"


class Sequential(Pass):
    """Run passes in order."""

    def __init__(self, passes: Optional[List[Pass]] = None, opt_level: int = 0,
                 name: str = "sequential", required=None):
        self.passes = list(passes or [])

        def run(mod, ctx):
            for p in self.passes:
                if ctx.pass_enabled(p):
                    mod = p(mod)
            return mod

        super().__init__(run, name, opt_level)


def module_pass(pass_func=None, opt_level: int = 0, name: Optional[str] = None, required=None):
    """Decorator making ``f(mod, ctx) -> mod`` a :class:`Pass`."""
    def wrap(f):
        return Pass(f, name or getattr(f, "__name__", "module_pass"), opt_level)

    return wrap(pass_func) if pass_func is not None else wrap


class PassContext:
    """Options for lowering and building, used as ``with PassContext(opt_level=3, config=...)``.

    Known config keys: ``tir.disable_vectorize``, ``tir.add_lower_pass`` (a list of
    ``(phase, pass)`` with phase 0–3), ``tir.instrument_bound_checkers``, ``tir.disable_assert``,
    ``tvmlite.print_ir_after_all`` (print the IR after every lowering pass).
    """

    _local = threading.local()

    def __init__(self, opt_level: int = 2, required_pass=None, disabled_pass=None,
                 trace=None, config: Optional[Dict[str, Any]] = None, instruments=None):
        self.opt_level = opt_level
        self.required_pass = list(required_pass or [])
        self.disabled_pass = set(disabled_pass or [])
        self.config = dict(config or {})
        self.instruments = list(instruments or [])
        for key, value in self.config.items():
            if key not in _KNOWN_CONFIG:
                raise TVMError(f"AttributeError: Invalid config option '{key}' candidates are: "
                               + ", ".join(sorted(_KNOWN_CONFIG)))
            want = _KNOWN_CONFIG[key]
            if want is list and not isinstance(value, (list, tuple)):
                raise TVMError(f"config {key!r} expects a list of (phase, pass), got {value!r}")

    def __enter__(self):
        stack = self._stack()
        stack.append(self)
        return self

    def __exit__(self, *exc):
        self._stack().pop()

    @classmethod
    def _stack(cls) -> list:
        s = getattr(cls._local, "stack", None)
        if s is None:
            s = cls._local.stack = []
        return s

    @classmethod
    def current(cls) -> "PassContext":
        s = cls._stack()
        return s[-1] if s else _DEFAULT

    def pass_enabled(self, p: Pass) -> bool:
        if p.info.name in self.disabled_pass:
            return False
        return p.info.opt_level <= self.opt_level or p.info.name in self.required_pass

    def key(self) -> tuple:
        """What in this context changes the generated code (for build caches)."""
        items = []
        for k, v in sorted(self.config.items()):
            items.append((k, tuple(map(repr, v)) if isinstance(v, (list, tuple)) else repr(v)))
        return (self.opt_level, tuple(sorted(self.disabled_pass)), tuple(items))


_DEFAULT = PassContext()
