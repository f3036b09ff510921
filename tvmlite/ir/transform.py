"""Passes and the pass context (``tvm.transform`` / ``tvm.ir.transform``).

A :class:`Pass` maps an IRModule to an IRModule. Calling it (``mod = pass_(mod)``) runs it in
the current :class:`PassContext`, whose instruments see every pass before and after it runs
(:mod:`tvmlite.ir.instrument`). :class:`Sequential` runs passes in order, skipping those the
context's ``opt_level``, ``required_pass`` and ``disabled_pass`` leave out.

Config options are registered by the layer that reads them (:func:`register_pass_config`), so
this module knows no pass by name.
"""
from __future__ import annotations

import os
import sys
import threading
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple

from ..deep_recursion import register_thread_local
from ..error import TVMError
from .instrument import PassInstrument, PrintAfterAll
from .module import IRModule

PRINT_IR_ENV = "TVMLITE_PRINT_IR"

# key -> (expected type, convert(value) -> the form passes read, raising TVMError on bad values)
_CONFIG: Dict[str, Tuple[type, Optional[Callable[[Any], Any]]]] = {
    "tvmlite.print_ir_after_all": (bool, None),
    # read by the coming relay layer
    "relay.FuseOps.max_depth": (int, None),
    "relay.backend.use_auto_scheduler": (bool, None),
}


def register_pass_config(key: str, kind: type,
                         convert: Optional[Callable[[Any], Any]] = None) -> None:
    """Make ``key`` a valid ``PassContext`` config option (TVM's
    ``TVM_REGISTER_PASS_CONFIG_OPTION``).

    ``convert(value)``, if given, runs once when a context is created: it raises TVMError on a
    bad value and returns the form passes read with :meth:`PassContext.converted`.
    """
    _CONFIG[key] = (kind, convert)


class PassInfo:
    """What a pass is called and at which ``opt_level`` it runs."""

    def __init__(self, opt_level: int, name: str, required: Iterable[str] = ()):
        self.opt_level, self.name, self.required = opt_level, name, list(required)

    def __repr__(self) -> str:
        # classic TVM's printed form
        req = "[]" if not self.required else "[\n" + "".join(f"{r}, " for r in self.required) + "]"
        return (f"The meta data of the pass - pass name: {self.name}, "
                f"opt_level: {self.opt_level}, required passes: {req}\n")


class Pass:
    """A transformation of an IRModule; call it on a module (``mod = pass_(mod)``).

    Subclasses implement ``transform_module(mod, ctx) -> IRModule``.
    """

    info: PassInfo

    @property
    def name(self) -> str:
        return self.info.name

    def __call__(self, mod: IRModule) -> IRModule:
        if not isinstance(mod, IRModule):
            raise TVMError(f"pass {self.info.name!r} runs on an IRModule, got "
                           f"{type(mod).__name__}")
        ctx = PassContext.current()
        if not ctx.instruments:
            return self._checked(self.transform_module(mod, ctx))
        if not ctx._before_pass(mod, self.info):
            return mod
        out = self._checked(self.transform_module(mod, ctx))
        ctx._after_pass(out, self.info)
        return out

    def _checked(self, out) -> IRModule:
        if not isinstance(out, IRModule):
            raise TVMError(f"pass {self.info.name!r} returned {type(out).__name__}, "
                           "expected an IRModule")
        return out

    def transform_module(self, mod, ctx: "PassContext"):
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.info.name}, opt_level={self.info.opt_level})"


class ModulePass(Pass):
    """A pass from a function ``f(mod, ctx) -> mod`` (see :func:`module_pass`)."""

    def __init__(self, fn: Callable, name: str, opt_level: int = 0, required=()):
        self._fn = fn
        self.info = PassInfo(opt_level, name, required)

    def transform_module(self, mod, ctx: "PassContext"):
        return self._fn(mod, ctx)


class Sequential(Pass):
    """Run ``passes`` in order, each one the current context enables
    (:meth:`PassContext.pass_enabled`)."""

    def __init__(self, passes: Optional[List[Pass]] = None, opt_level: int = 0,
                 name: str = "sequential", required=()):
        self.passes = list(passes or [])
        for p in self.passes:
            if not isinstance(p, Pass):
                raise TVMError(f"Sequential {name!r} holds {p!r}, which is not a Pass")
        self.info = PassInfo(opt_level, name, required or ())

    def transform_module(self, mod, ctx: "PassContext"):
        for p in self.passes:
            if ctx.pass_enabled(p.info):
                for req in p.info.required:  # what the pass needs first, as classic TVM
                    mod = get_pass(req)(mod)
                mod = p(mod)
        return mod


# pass name -> a function making that pass: what a Sequential runs for ``PassInfo.required``
_NAMED: Dict[str, Callable[[], Pass]] = {}


def register_pass(name: str, make: Callable[[], Pass]) -> None:
    """Let a pass be required by name (``required=["InferType"]``): ``make()`` creates it."""
    _NAMED[name] = make


def get_pass(name: str) -> Pass:
    """A new instance of the pass registered as ``name`` (:func:`register_pass`)."""
    make = _NAMED.get(name)
    if make is None:
        raise TVMError(f"Cannot use {name!r} to create the pass: no pass of that name is "
                       "registered (tvmlite.ir.transform.register_pass)")
    return make()


def make_pass_decorator(cls: Callable, method: str, kind: str, pass_func=None,
                        opt_level: int = 0, name: Optional[str] = None, required=None):
    """Shared body of :func:`module_pass`, ``relay.transform.function_pass`` and
    ``tir.transform.prim_func_pass``: ``pass_func`` is a function, made a ``cls`` pass, or a
    class with a ``method`` method, made a class of passes (classic TVM's class form: its
    arguments are the decorated class's); without it, return a decorator."""
    def wrap(f):
        pname = name or getattr(f, "__name__", kind)
        if isinstance(f, type):
            if not callable(getattr(f, method, None)):
                raise TVMError(f"a {kind} class needs a {method}() method; "
                               f"{f.__name__} has none")
            return _pass_class(cls, f, method, pname, opt_level, required or ())
        if not callable(f):
            raise TVMError(f"{kind} expects a function or a class, got {f!r}")
        return cls(f, pname, opt_level, required or ())

    return wrap(pass_func) if pass_func is not None else wrap


def _pass_class(base: Callable, user: type, method: str, pname: str, opt_level: int,
                required) -> type:
    """A ``base`` subclass whose instances wrap a ``user(*args, **kwargs)`` object, run its
    ``method`` and show its other attributes."""
    def __init__(self, *args, **kwargs):
        inst = user(*args, **kwargs)
        base.__init__(self, getattr(inst, method), pname, opt_level, required)
        self._inst = inst

    def __getattr__(self, attr):
        inst = self.__dict__.get("_inst")
        if inst is None:
            raise AttributeError(attr)
        return getattr(inst, attr)

    __init__.__doc__ = user.__init__.__doc__
    return type(user.__name__, (base,), {
        "__init__": __init__, "__getattr__": __getattr__, "__doc__": user.__doc__,
        "__module__": user.__module__, "__qualname__": user.__qualname__})


def module_pass(pass_func: Optional[Callable] = None, opt_level: int = 0,
                name: Optional[str] = None, required=None):
    """Make ``f(mod, ctx) -> mod`` (or a class with ``transform_module``) a :class:`Pass`.

    Used as ``@module_pass(opt_level=1)``, ``@module_pass`` or ``module_pass(f, ...)``.
    """
    return make_pass_decorator(ModulePass, "transform_module", "module_pass", pass_func,
                               opt_level, name, required)


def PrintIR(header: str = "", show_meta_data: bool = False) -> Pass:  # noqa: N802
    """A pass printing the module's TVMScript to stderr, headed by ``header``, and returning
    it unchanged (TVM's ``tvm.transform.PrintIR``; ``show_meta_data`` is accepted and
    ignored: the script has no metadata section)."""

    def show(mod: IRModule, ctx: "PassContext") -> IRModule:
        print(f"# PrintIR: {header}\n{mod.script()}", file=sys.stderr)
        return mod

    return ModulePass(show, "PrintIR")


class PassContext:
    """Options for lowering and building, used as ``with PassContext(opt_level=3, config=...)``.

    Parameters
    ----------
    opt_level : passes of a :class:`Sequential` with a higher ``opt_level`` are skipped
    required_pass : names of passes run whatever their ``opt_level``
    disabled_pass : names of passes never run by a :class:`Sequential`
    trace : accepted for compatibility
    config : options registered with :func:`register_pass_config` (``tir.disable_vectorize``,
        ``tir.add_lower_pass``, ``tir.instrument_bound_checkers``, ``tvmlite.print_ir_after_all``…)
    instruments : :class:`tvmlite.ir.instrument.PassInstrument` objects that see every pass run
        in this context. ``tvmlite.print_ir_after_all`` (or ``TVMLITE_PRINT_IR=1`` in the
        environment) adds a :class:`tvmlite.ir.instrument.PrintAfterAll`.
    """

    _local = register_thread_local(threading.local())

    def __init__(self, opt_level: int = 2, required_pass=None, disabled_pass=None,
                 trace=None, config: Optional[Dict[str, Any]] = None, instruments=None):
        self.opt_level = opt_level
        self.required_pass = list(required_pass or [])
        self.disabled_pass = set(disabled_pass or [])
        self.config = dict(config or {})
        self._converted: Dict[str, Any] = {}
        for key, value in self.config.items():
            if key not in _CONFIG:
                raise TVMError(f"AttributeError: Invalid config option '{key}' candidates are: "
                               + ", ".join(sorted(_CONFIG)))
            kind, convert = _CONFIG[key]
            if kind is list and not isinstance(value, (list, tuple)):
                raise TVMError(f"config {key!r} expects a list, got {value!r}")
            if convert is not None:
                self._converted[key] = convert(value)
        self.instruments = _instrument_list(instruments)
        if self.config.get("tvmlite.print_ir_after_all") or _print_ir_env():
            if not any(isinstance(i, PrintAfterAll) for i in self.instruments):
                self.instruments.append(PrintAfterAll())

    def converted(self, key: str, default: Any = None) -> Any:
        """Config ``key`` in the form its registered ``convert`` gave (else as given)."""
        if key in self._converted:
            return self._converted[key]
        return self.config.get(key, default)

    def __enter__(self) -> "PassContext":
        self._enter_instruments()
        self._stack().append(self)
        return self

    def __exit__(self, *exc) -> None:
        self._stack().pop()
        self._exit_instruments()

    def override_instruments(self, instruments) -> None:
        """Exit the current instruments and enter ``instruments`` in their place."""
        self._exit_instruments()
        self.instruments = _instrument_list(instruments)
        self._enter_instruments()

    def _enter_instruments(self) -> None:
        """Enter every instrument. If one raises, the context drops all its instruments, the
        ones already entered are exited and the error goes on (classic TVM's semantics)."""
        entered = []
        try:
            for inst in self.instruments:
                inst.enter_pass_ctx()
                entered.append(inst)
        except Exception:
            self.instruments = []
            for inst in entered:
                inst.exit_pass_ctx()
            raise

    def _exit_instruments(self) -> None:
        """Exit every instrument. If one raises, the context drops all its instruments (those
        after it are not exited) and the error goes on (classic TVM's semantics)."""
        try:
            for inst in self.instruments:
                inst.exit_pass_ctx()
        except Exception:
            self.instruments = []
            raise

    @classmethod
    def _stack(cls) -> list:
        s = getattr(cls._local, "stack", None)
        if s is None:
            s = cls._local.stack = []
        return s

    @classmethod
    def current(cls) -> "PassContext":
        """The innermost context entered with ``with``, else the default one."""
        s = cls._stack()
        if s:
            return s[-1]
        show = _print_ir_env()
        ctx = _DEFAULT.get(show)
        if ctx is None:
            ctx = _DEFAULT[show] = PassContext()
        return ctx

    def pass_enabled(self, info: PassInfo) -> bool:
        """Whether a :class:`Sequential` in this context runs the pass ``info`` describes."""
        if isinstance(info, Pass):
            info = info.info
        if info.name in self.disabled_pass:
            return False
        return info.name in self.required_pass or info.opt_level <= self.opt_level

    def _before_pass(self, mod, info: PassInfo) -> bool:
        run = True
        if info.name not in self.required_pass:
            for inst in self.instruments:
                run = bool(inst.should_run(mod, info)) and run
        if run:
            for inst in self.instruments:
                inst.run_before_pass(mod, info)
        return run

    def _after_pass(self, mod, info: PassInfo) -> None:
        for inst in self.instruments:
            inst.run_after_pass(mod, info)


def _print_ir_env() -> bool:
    return os.environ.get(PRINT_IR_ENV, "") not in ("", "0")


def _instrument_list(instruments) -> list:
    out = list(instruments or [])
    for inst in out:
        if not isinstance(inst, PassInstrument):
            raise TVMError(f"{inst!r} is not a pass instrument: subclass "
                           "tvm.ir.instrument.PassInstrument or decorate its class with "
                           "tvm.ir.instrument.pass_instrument")
    return out


# default contexts, without and with the TVMLITE_PRINT_IR instrument
_DEFAULT: Dict[bool, PassContext] = {}
