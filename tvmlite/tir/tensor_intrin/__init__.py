"""``tvm.tir.TensorIntrin``: a named pair of PrimFuncs — what an intrinsic computes (the
description) and how (the implementation) — for ``Schedule.tensorize``."""
from __future__ import annotations

from typing import Dict

from ...error import TVMError
from ..function import PrimFunc

_REGISTRY: Dict[str, "TensorIntrin"] = {}


class TensorIntrinNotFound(TVMError, ValueError):
    """No intrinsic is registered under the name (a ``ValueError`` too, as in classic TVM)."""


class TensorIntrin:
    """A tensor intrinsic: ``desc`` and ``impl`` take the same buffer parameters, in order.

    ``desc`` is a loop nest over one block (under an optional root block); ``impl`` is any
    body over its buffers (usually ``T.call_extern`` on ``X.data``/``X.elem_offset`` or
    ``X.access_ptr``).
    """

    def __init__(self, desc: PrimFunc, impl: PrimFunc):
        if not isinstance(desc, PrimFunc) or not isinstance(impl, PrimFunc):
            raise TypeError("TensorIntrin expects two PrimFuncs (description, implementation)")
        nd = sum(1 for p in desc.params if p in desc.buffer_map)
        ni = sum(1 for p in impl.params if p in impl.buffer_map)
        if len(desc.params) != len(impl.params) or nd != ni:
            raise ValueError(f"TensorIntrin: the description has {len(desc.params)} parameters "
                             f"and the implementation {len(impl.params)}; they must agree")
        for p, q in zip(desc.params, impl.params):
            d, i = desc.buffer_map.get(p), impl.buffer_map.get(q)
            if (d is None) != (i is None) or (d is not None and (
                    d.dtype != i.dtype or len(d.shape) != len(i.shape))):
                raise ValueError(f"TensorIntrin: parameter {p.name} of the description and "
                                 f"{q.name} of the implementation differ in dtype or rank")
        self.desc = desc
        self.impl = impl

    @staticmethod
    def register(name: str, desc: PrimFunc, impl: PrimFunc, override: bool = False) -> None:
        """Register an intrinsic under ``name`` for ``Schedule.tensorize``."""
        if name in _REGISTRY and not override:
            raise TVMError(f"TensorIntrin {name!r} is already registered (pass override=True "
                           f"to replace it)")
        _REGISTRY[name] = TensorIntrin(desc, impl)

    @staticmethod
    def get(name: str, allow_missing: bool = False) -> "TensorIntrin":
        """The intrinsic registered under ``name``."""
        out = _REGISTRY.get(name)
        if out is None and not allow_missing:
            raise TensorIntrinNotFound(f"no TensorIntrin registered under {name!r} (known: "
                           f"{sorted(_REGISTRY) or 'none'})")
        return out

    @staticmethod
    def name_of(intrin) -> "str | None":
        """The name ``intrin`` is registered under, or None."""
        return next((k for k, v in _REGISTRY.items() if v is intrin), None)

    def __repr__(self) -> str:
        return f"TensorIntrin({(self.desc.attrs or {}).get('global_symbol', 'desc')})"
