"""PackedFunc, the global function registry and the ``call_packed`` bridge from C to Python."""
from __future__ import annotations

import ctypes
import importlib
import threading
from typing import Callable, Dict, Optional

from ..error import TVMError
from ..ir.dtype import ARG_DLTENSOR as DLTENSOR
from ..ir.dtype import ARG_FLOAT as FLOAT
from ..ir.dtype import ARG_HANDLE as HANDLE
from ..ir.dtype import ARG_INT as INT
from ..ir.dtype import ARG_STR as STR
from .ndarray import from_dltensor

_REGISTRY: Dict[str, "PackedFunc"] = {}


class PackedFunc:
    """A callable function object (``tvm.runtime.PackedFunc``)."""

    __slots__ = ("_func", "name")

    def __init__(self, func: Callable, name: str = ""):
        self._func = func
        self.name = name or getattr(func, "__name__", "")

    def __call__(self, *args):
        return self._func(*args)

    def __repr__(self) -> str:
        return f"PackedFunc({self.name})"


def register_func(func_name, f: Optional[Callable] = None, override: bool = False):
    """Register a Python function under a global name (``tvm.register_func``).

    Used as ``@register_func("name")``, ``@register_func`` or ``register_func("name", f)``.
    Generated code reaches it through ``tvm.tir.call_packed("name", ...)``.
    """
    if callable(func_name) and f is None:
        f, func_name = func_name, func_name.__name__
    if not isinstance(func_name, str):
        raise TypeError("register_func expects the function name as a string")

    def register(fn: Callable):
        if not callable(fn):
            raise TypeError(f"register_func({func_name!r}) expects a callable")
        if func_name in _REGISTRY and not override:
            raise TVMError(f"Global PackedFunc {func_name} is already registered")
        _REGISTRY[func_name] = fn if isinstance(fn, PackedFunc) else PackedFunc(fn, func_name)
        return fn

    return register(f) if f is not None else register


# classic globals whose Python lives in a package loaded on first use: name -> module
_LAZY = {"test.op.InferTensorizeRegion": "tvmlite.testing.te_hooks",
         "test.op.MatchTensorizeBody": "tvmlite.testing.te_hooks",
         **{f"tvm.contrib.sort.{n}": "tvmlite.runtime.contrib_sort"
            for n in ("sort", "argsort", "argsort_nms", "topk")}}


def get_global_func(name: str, allow_missing: bool = False) -> Optional[PackedFunc]:
    """The function registered under ``name`` (None if missing and ``allow_missing``)."""
    f = _REGISTRY.get(name)
    if f is None and name in _LAZY:
        importlib.import_module(_LAZY[name])  # registers it
        f = _REGISTRY.get(name)
    if f is None and not allow_missing:
        raise TVMError(f"Cannot find global function {name}")
    return f


def list_global_func_names() -> list:
    return sorted(set(_REGISTRY) | set(_LAZY))


def remove_global_func(name: str) -> None:
    _REGISTRY.pop(name, None)


# --------------------------------------------------------------------------- C -> Python
_PENDING = threading.local()

PACKED_CB_TYPE = ctypes.CFUNCTYPE(
    ctypes.c_int32, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p),
    ctypes.POINTER(ctypes.c_int32), ctypes.c_int32)


def _convert_arg(ptr: int, code: int):
    if code == DLTENSOR:
        return from_dltensor(ptr)
    if code == INT:
        return ctypes.c_int64.from_address(ptr).value
    if code == FLOAT:
        return ctypes.c_double.from_address(ptr).value
    if code == STR:
        return ctypes.string_at(ptr).decode()
    if code == HANDLE:
        return ctypes.c_void_p.from_address(ptr).value
    raise TVMError(f"call_packed: unsupported argument type code {code}")


def _packed_callback(name, args, codes, num_args) -> int:
    try:
        fname = name.decode()
        f = get_global_func(fname)
        f(*[_convert_arg(args[i], codes[i]) for i in range(num_args)])
        return 0
    except BaseException as e:  # noqa: BLE001  (anything raised must not unwind through C)
        _PENDING.error = e
        return -1


_CALLBACK = PACKED_CB_TYPE(_packed_callback)
CALLBACK_ADDRESS = ctypes.cast(_CALLBACK, ctypes.c_void_p).value


def take_pending_error() -> Optional[BaseException]:
    """The exception a Python callback raised during the last native call on this thread."""
    e = getattr(_PENDING, "error", None)
    _PENDING.error = None
    return e
