"""The software emulation of hybrid scripts: called with numpy arrays, a script runs as plain
Python with these names in its globals (``output_tensor`` gives numpy zeros, the loop helpers
are ``range``)."""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Tuple

import numpy


def _bind(_tag: str, extent: int) -> range:
    """``bind("threadIdx.x", n)``: the thread loop, run in order."""
    return range(int(extent))


def _allocate(shape, dtype: str = "float32", scope: str = "global") -> numpy.ndarray:
    """``allocate`` / ``output_tensor``: a zero-filled numpy array."""
    del scope
    return numpy.zeros(shape, dtype=dtype)


def _popcount(x) -> int:
    """The number of one bits of ``x``."""
    return bin(int(x) & ((1 << 64) - 1)).count("1")


def _sigmoid(x):
    return 1 / (1 + numpy.exp(-x))


def _rsqrt(x):
    return 1 / numpy.sqrt(x)


def _inf(dtype: str):
    d = numpy.dtype(dtype)
    return numpy.finfo(d).max if d.kind == "f" else numpy.iinfo(d).max


def _ninf(dtype: str):
    d = numpy.dtype(dtype)
    return numpy.finfo(d).min if d.kind == "f" else numpy.iinfo(d).min


HYBRID_GLOBALS: Dict[str, Callable[..., Any]] = {
    "range": range,
    "unroll": range,
    "vectorize": range,
    "parallel": range,
    "const_range": range,
    "bind": _bind,
    "allocate": _allocate,
    "output_tensor": _allocate,
    "sqrt": numpy.sqrt,
    "rsqrt": _rsqrt,
    "log": numpy.log,
    "exp": numpy.exp,
    "tanh": numpy.tanh,
    "power": numpy.power,
    "sigmoid": _sigmoid,
    "popcount": _popcount,
    "round": round,
    "likely": lambda cond: cond,
    "ceil_div": lambda a, b: (a + b - 1) // b,
    "inf": _inf,
    "ninf": _ninf,
    **{name: getattr(numpy, name) for name in (
        "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
        "float32", "float64")},
}
del HYBRID_GLOBALS["range"]  # the builtin serves


def enter(func) -> List[Tuple[str, Any]]:
    """Put the emulation names into ``func``'s globals; returns what they hid."""
    g = func.__globals__
    hidden = [(k, g[k]) for k in HYBRID_GLOBALS if k in g]
    g.update(HYBRID_GLOBALS)
    return hidden


def leave(func, hidden: List[Tuple[str, Any]]) -> None:
    """Undo :func:`enter`."""
    g = func.__globals__
    for k in HYBRID_GLOBALS:
        g.pop(k, None)
    g.update(hidden)
