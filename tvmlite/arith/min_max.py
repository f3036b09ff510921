"""``min``/``max`` rewrites on polynomials."""
from __future__ import annotations

from ..tir.expr import IntImm, Min
from .poly import Poly
from .rules import fire, rules

rules({"min_max": {
    "prove": "min(x, x + 1) -> x, max(i, 0) -> i for i >= 0",
    "nested_const": "min(min(x, 4), 2) -> min(x, 2)",
}})


class MinMaxMixin:
    """Rewrites of ``min`` and ``max`` (rules ``min_max.*``)."""

    def _minmax(self, cls, pa: Poly, pb: Poly) -> Poly:
        d = pa.sub(pb)
        le = self._prove_le0(d)
        if le:
            return fire("min_max.prove", pa if cls is Min else pb)
        if self._prove_le0(d.scale(-1)):
            return fire("min_max.prove", pb if cls is Min else pa)
        if pb.is_const:
            inner = pa.single_atom()
            if inner is not None and type(inner) is cls and type(inner.b) is IntImm:
                fire("min_max.nested_const")
                pick = min if cls is Min else max
                return self._minmax(cls, self._lin(inner.a),
                                    Poly.constant(pa.dtype, pick(inner.b.value, pb.const)))
        return self._atom(cls, pa, pb, commutative=True)
