"""Classic ``tvm.relay.backend``: the ``Executor`` and ``Runtime`` descriptions
``relay.build`` takes. tvmlite builds for the graph executor and the C++ runtime only."""
from __future__ import annotations

from typing import Any, Dict, Optional

from ..._classic import fallback as _fallback
from ..._classic import unsupported
from ...error import TVMError
from . import _backend, graph_executor_codegen, te_compiler


class _Described:
    """A named kind with typed options (``Executor("graph", {"link-params": True})``); an
    option not given takes its default (classic's attribute registry)."""

    # kind -> option -> (classic type key, default or None)
    KINDS: Dict[str, Dict[str, tuple]] = {}
    WHAT = ""

    def __init__(self, name: str, options: Optional[Dict[str, Any]] = None):
        if name not in self.KINDS:
            raise TVMError(f'{self.WHAT} "{name}" is not defined (known: '
                           f"{sorted(self.KINDS)})")
        self.name = name
        known = self.KINDS[name]
        given = dict(options or {})
        for key, value in given.items():
            if key not in known:
                raise TVMError(f'Attribute "{key}" is not available on this {self.WHAT} '
                               f"(it has {sorted(known)})")
            want = known[key][0]
            got = _type_key(value)
            if got != want:
                raise TVMError(f'Attribute "{key}" should have type "{want}" but instead found '
                               f'"{got}"')
        self.attrs = {k: d for k, (_, d) in known.items() if d is not None}
        self.attrs.update(given)

    def __contains__(self, key: str) -> bool:
        return key in self.attrs

    def __getitem__(self, key: str):
        return self.attrs[key]

    def get(self, key: str, default=None):
        return self.attrs.get(key, default)

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and (self.name, self.attrs) == (other.name, other.attrs)

    __hash__ = object.__hash__

    @classmethod
    def list_registered(cls) -> list:
        """The registered kinds' names."""
        return sorted(cls.KINDS)

    @classmethod
    def list_registered_options(cls, name: str) -> Dict[str, str]:
        """The options kind ``name`` takes, each with its classic type key."""
        if name not in cls.KINDS:
            raise TVMError(f'{cls.WHAT} "{name}" is not defined (known: {sorted(cls.KINDS)})')
        return {k: t for k, (t, _) in cls.KINDS[name].items()}

    def __repr__(self) -> str:
        opts = "".join(f" -{k}={v}" for k, v in self.attrs.items())
        return f"{self.name}{opts}"


def _type_key(value) -> str:
    """Classic's type key of an option value: strings ``runtime.String``, ints and bools
    ``IntImm``."""
    if isinstance(value, str):
        return "runtime.String"
    if isinstance(value, (bool, int)):
        return "IntImm"
    return type(value).__name__


_BOOL, _INT, _STR = "IntImm", "IntImm", "runtime.String"


class Executor(_Described):
    """How a built module is run (classic ``relay.backend.Executor``): ``"graph"``;
    ``"aot"`` is known but :func:`relay.build` refuses it."""

    KINDS = {"graph": {"link-params": (_BOOL, False)},
             "aot": {"link-params": (_BOOL, False), "unpacked-api": (_BOOL, None),
                     "interface-api": (_STR, None), "workspace-byte-alignment": (_INT, None),
                     "constant-byte-alignment": (_INT, None)}}
    WHAT = "Executor"


class Runtime(_Described):
    """The runtime a built module targets (classic ``relay.backend.Runtime``): ``"cpp"``;
    ``"crt"`` is known but :func:`relay.build` refuses it."""

    KINDS = {"cpp": {"system-lib": (_BOOL, None)}, "crt": {"system-lib": (_BOOL, None)}}
    WHAT = "Runtime"


def check_supported(executor: Optional[Executor], runtime: Optional[Runtime]) -> None:
    """Refuse the executors and runtimes tvmlite's ``relay.build`` cannot produce."""
    if executor is not None and executor.name != "graph":
        raise unsupported(f'tvm.relay.build(executor=Executor("{executor.name}")) (tvmlite '
                          'builds for the graph executor)')
    if runtime is not None and runtime.name != "cpp":
        raise unsupported(f'tvm.relay.build(runtime=Runtime("{runtime.name}")) (tvmlite '
                          'builds for the C++ runtime)')


__all__ = ["Executor", "Runtime", "graph_executor_codegen"]
__getattr__ = _fallback(__name__)
