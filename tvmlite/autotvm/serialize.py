"""Shipping template functions to worker processes.

Workers are fresh interpreters, so a template written in a notebook or in the ``__main__``
script cannot be imported there by name. Functions from importable modules travel by reference
(plain pickle); others travel by value: their code object (``marshal``, same interpreter), the
globals they name (modules by name, functions recursively, other values pickled), defaults and
closure cells. ``cloudpickle`` is used instead when it is installed.
"""
from __future__ import annotations

import builtins
import importlib
import marshal
import pickle
import sys
import types
from typing import Any, Dict, Set

_MAIN = ("__main__", "__mp_main__")


def _names(code: types.CodeType, out: Set[str]) -> Set[str]:
    out.update(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            _names(c, out)
    return out


def _by_reference(f) -> bool:
    mod = getattr(f, "__module__", None)
    if mod in _MAIN or mod is None or "<locals>" in getattr(f, "__qualname__", "<locals>"):
        return False
    try:
        m = sys.modules.get(mod) or importlib.import_module(mod)
    except Exception:  # noqa: BLE001  (an unimportable module: ship by value)
        return False
    obj = m
    for part in f.__qualname__.split("."):
        obj = getattr(obj, part, None)
    return obj is f


def _encode_value(v: Any, memo: Dict[int, Any]):
    if isinstance(v, types.ModuleType):
        return ("module", v.__name__)
    if isinstance(v, types.FunctionType):
        if _by_reference(v):
            return ("pickle", pickle.dumps(v))
        if id(v) in memo:
            return ("ref", id(v))
        return ("function", _encode_function(v, memo))
    try:
        return ("pickle", pickle.dumps(v))
    except Exception:  # noqa: BLE001  (unpicklable globals are left out)
        return None


def _encode_function(f: types.FunctionType, memo: Dict[int, Any]) -> dict:
    memo[id(f)] = f
    glob = {}
    for name in sorted(_names(f.__code__, set())):
        if name in f.__globals__:
            enc = _encode_value(f.__globals__[name], memo)
            if enc is not None:
                glob[name] = enc
    closure = None
    if f.__closure__:
        closure = []
        for cell in f.__closure__:
            try:
                closure.append(_encode_value(cell.cell_contents, memo))
            except ValueError:  # an empty cell
                closure.append(None)
    return {"id": id(f), "code": marshal.dumps(f.__code__), "name": f.__name__,
            "qualname": f.__qualname__, "globals": glob,
            "defaults": _encode_value(f.__defaults__, memo) if f.__defaults__ else None,
            "kwdefaults": _encode_value(f.__kwdefaults__, memo) if f.__kwdefaults__ else None,
            "closure": closure, "module": f.__module__}


def _decode_value(enc, made: Dict[int, Any], shared_globals: dict):
    kind, payload = enc
    if kind == "module":
        return importlib.import_module(payload)
    if kind == "pickle":
        return pickle.loads(payload)
    if kind == "ref":
        return made[payload]
    return _decode_function(payload, made, shared_globals)


def _decode_function(d: dict, made: Dict[int, Any], shared_globals: dict):
    code = marshal.loads(d["code"])
    g = shared_globals
    g.setdefault("__builtins__", builtins)
    closure = None
    if d["closure"] is not None:
        closure = tuple(types.CellType() if c is None else types.CellType(None)
                        for c in d["closure"])
    f = types.FunctionType(code, g, d["name"], None, closure)
    made[d["id"]] = f
    f.__qualname__ = d["qualname"]
    f.__module__ = d["module"]
    for name, enc in d["globals"].items():
        if name not in g:
            g[name] = _decode_value(enc, made, shared_globals)
    if d["defaults"] is not None:
        f.__defaults__ = _decode_value(d["defaults"], made, shared_globals)
    if d["kwdefaults"] is not None:
        f.__kwdefaults__ = _decode_value(d["kwdefaults"], made, shared_globals)
    if closure is not None:
        for cell, enc in zip(closure, d["closure"]):
            if enc is not None:
                cell.cell_contents = _decode_value(enc, made, shared_globals)
    return f


def dumps_function(f) -> bytes:
    """Serialize a function for a worker process."""
    if _by_reference(f):
        return pickle.dumps(("ref", pickle.dumps(f)))
    try:
        import cloudpickle  # type: ignore

        return pickle.dumps(("cloudpickle", cloudpickle.dumps(f)))
    except ImportError:
        pass
    return pickle.dumps(("value", _encode_function(f, {})))


def loads_function(data: bytes):
    """Undo :func:`dumps_function`."""
    kind, payload = pickle.loads(data)
    if kind in ("ref", "cloudpickle"):
        return pickle.loads(payload)
    return _decode_function(payload, {}, {"__name__": payload["module"]})
