"""tvmlite: the classic TVM deep-learning compiler, in Python.

``import tvmlite as tvm`` gives the classic API: ``tvm.te``, ``tvm.tir``, ``tvm.lower``,
``tvm.build``, ``tvm.nd``, ``tvm.cpu()`` … Submodules load on first use to keep import fast.
"""
from __future__ import annotations

import importlib
import importlib.util

from . import ir, tir
from .error import TVMError
from .ir import IRModule

__version__ = "0.1.0"

_SUBMODULES = {
    "te", "topi", "script", "arith", "runtime", "target", "contrib", "transform", "testing",
    "driver", "autotvm", "relay", "rpc", "exec", "container", "instrument", "parser",
}
_ALIASES = {"nd": "runtime.ndarray"}
_FUNCS = {
    "lower": "driver", "build": "driver",
    "cpu": "runtime", "ext_dev": "runtime", "gpu": "runtime", "cuda": "runtime",
    "device": "runtime", "DataType": "runtime",
    "context": "runtime", "register_func": "runtime", "get_global_func": "runtime",
}


def __getattr__(name: str):
    if name in _SUBMODULES and importlib.util.find_spec(f"{__name__}.{name}") is not None:
        mod = importlib.import_module(f".{name}", __name__)
    elif name in _ALIASES:
        mod = importlib.import_module(f".{_ALIASES[name]}", __name__)
    elif name in _FUNCS:
        mod = getattr(importlib.import_module(f".{_FUNCS[name]}", __name__), name)
    else:
        from ._classic import missing

        return missing(__name__, name)
    globals()[name] = mod
    return mod


def __dir__():
    return sorted(set(globals()) | _SUBMODULES | set(_ALIASES) | set(_FUNCS))
