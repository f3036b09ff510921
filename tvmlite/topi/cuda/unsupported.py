"""Classic ``topi.cuda`` operators that tvmlite has no GPU version of (their CPU versions are
extern calls into host code, which a GPU cannot run). Each name exists, so that programs that
list it in a dispatch table load, and raises ``UnsupportedError`` when called."""
from __future__ import annotations

from typing import Callable

from ..._classic import unsupported


def _missing(name: str, what: str) -> Callable:
    def f(*args, **kwargs):
        raise unsupported(f"tvm.topi.cuda.{name} ({what} on a GPU; use the llvm target)")
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"Classic ``topi.cuda.{name}``: not implemented (raises UnsupportedError)."
    f.tvmlite_unsupported = True
    return f


_NAMES = {"sort": "sorting", "argsort": "sorting", "topk": "top-k selection",
          "schedule_sort": "sorting", "schedule_argsort": "sorting",
          "schedule_topk": "top-k selection", "searchsorted": "binary search",
          "scatter_nd": "scatter_nd", "argwhere": "argwhere",
          "schedule_argwhere": "argwhere", "unique": "unique",
          "dft": "the discrete Fourier transform"}

globals().update({name: _missing(name, what) for name, what in _NAMES.items()})

__all__ = list(_NAMES)
