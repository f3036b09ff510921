"""``min``/``max`` rewrites on polynomials."""
from __future__ import annotations

from ..tir.expr import (
    IntImm,
    Min,
)
from .poly import Poly


class MinMaxMixin:
    """Rewrites of ``min`` and ``max``."""

    def _minmax(self, cls, pa: Poly, pb: Poly) -> Poly:
        d = pa.sub(pb)
        le = self._prove_le0(d)
        if le:
            return pa if cls is Min else pb
        if self._prove_le0(d.scale(-1)):
            return pb if cls is Min else pa
        if pb.is_const:
            inner = pa.single_atom()
            if inner is not None and type(inner) is cls and type(inner.b) is IntImm:
                pick = min if cls is Min else max
                return self._minmax(cls, self._lin(inner.a),
                                    Poly.constant(pa.dtype, pick(inner.b.value, pb.const)))
        return self._atom(cls, pa, pb, commutative=True)
