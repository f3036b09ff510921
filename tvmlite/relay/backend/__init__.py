"""Classic ``tvm.relay.backend``: the ``Executor`` and ``Runtime`` descriptions
``relay.build`` takes. tvmlite builds for the graph executor and the C++ runtime only."""
from __future__ import annotations

from typing import Any, Dict, Optional

from ..._classic import fallback as _fallback
from ..._classic import unsupported
from ...error import TVMError
from . import graph_executor_codegen, te_compiler


class _Described:
    """A named kind with options (``Executor("graph", {"link-params": True})``)."""

    KINDS: Dict[str, tuple] = {}
    WHAT = ""

    def __init__(self, name: str, options: Optional[Dict[str, Any]] = None):
        if name not in self.KINDS:
            raise TVMError(f"{self.WHAT} {name!r} is not registered (known: "
                           f"{sorted(self.KINDS)})")
        self.name = name
        self.attrs = dict(options or {})
        unknown = set(self.attrs) - set(self.KINDS[name])
        if unknown:
            raise TVMError(f"{self.WHAT} {name!r}: unknown option(s) {sorted(unknown)}")

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
        """The options kind ``name`` takes (names to their type, unstated here)."""
        return {k: "" for k in cls.KINDS[name]}

    def __repr__(self) -> str:
        opts = "".join(f" -{k}={v}" for k, v in self.attrs.items())
        return f"{self.name}{opts}"


class Executor(_Described):
    """How a built module is run (classic ``relay.backend.Executor``): ``"graph"``;
    ``"aot"`` is known but :func:`relay.build` refuses it."""

    KINDS = {"graph": ("link-params",),
             "aot": ("link-params", "unpacked-api", "interface-api", "workspace-byte-alignment",
                     "constant-byte-alignment")}
    WHAT = "Executor"


class Runtime(_Described):
    """The runtime a built module targets (classic ``relay.backend.Runtime``): ``"cpp"``;
    ``"crt"`` is known but :func:`relay.build` refuses it."""

    KINDS = {"cpp": ("system-lib",), "crt": ("system-lib",)}
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
