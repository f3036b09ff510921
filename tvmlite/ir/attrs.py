"""Attribute maps of functions and operations, read the classic way.

Classic TVM stores attributes as IR objects: ``func.attrs["calling_conv"].value == 1``,
``op.attrs["arr"][0].value == 10``, and ``str(attrs)`` is JSON-like. tvmlite keeps Python
values, so code comparing, hashing or doing arithmetic with them sees plain numbers: an integer
attribute is an :class:`AttrInt` (an ``int`` with ``.value`` and ``.dtype``), a float one an
:class:`AttrFloat`; lists and tuples keep their type with their items converted; booleans,
strings and IR nodes stay as they are.
"""
from __future__ import annotations

import json
from typing import Any


class AttrInt(int):
    """An integer attribute: an ``int`` that also reads like classic ``IntImm``."""

    __slots__ = ()

    @property
    def value(self) -> int:
        return int(self)

    @property
    def dtype(self) -> str:
        return "int32" if -2 ** 31 <= self < 2 ** 31 else "int64"

    def __reduce__(self):
        return (AttrInt, (int(self),))


class AttrFloat(float):
    """A float attribute: a ``float`` that also reads like classic ``FloatImm``."""

    __slots__ = ()

    @property
    def value(self) -> float:
        return float(self)

    @property
    def dtype(self) -> str:
        return "float32"

    def __reduce__(self):
        return (AttrFloat, (float(self),))


def attr_value(v: Any) -> Any:
    """``v`` in the form attribute maps hold (see the module docstring)."""
    t = type(v)
    if t is int:
        return AttrInt(v)
    if t is float:
        return AttrFloat(v)
    if t is list:
        return [attr_value(x) for x in v]
    if t is tuple:
        return tuple(attr_value(x) for x in v)
    return v


def _plain(v: Any) -> Any:
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, int):
        return int(v)
    if isinstance(v, float):
        return float(v)
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    return str(v)


class AttrMap(dict):
    """A ``dict`` of attributes whose values are converted by :func:`attr_value`; printed as
    JSON, as classic ``Map`` happens to be."""

    def __init__(self, *args, **kw):
        super().__init__()
        self.update(*args, **kw)

    def __setitem__(self, key, value) -> None:
        super().__setitem__(key, attr_value(value))

    def update(self, *args, **kw) -> None:
        for k, v in dict(*args, **kw).items():
            self[k] = v

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def copy(self) -> "AttrMap":
        return AttrMap(self)

    def __reduce__(self):
        return (AttrMap, (dict(self),))

    def __str__(self) -> str:
        return json.dumps(_plain(self))


class DictAttrs(AttrMap):
    """Classic ``DictAttrs``: a map of attributes also read as fields (``attrs.key``)."""

    def __getattr__(self, name: str):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"DictAttrs has no field {name!r}") from None


def make_node(type_key: str, **kwargs) -> Any:
    """Classic ``tvm.ir.make_node`` for the node types tvmlite builds this way:
    ``make_node("DictAttrs", key=value, ...)``."""
    if type_key == "DictAttrs":
        return DictAttrs(kwargs)
    from .._classic import unsupported
    raise unsupported(f"tvm.ir.make_node({type_key!r})")
