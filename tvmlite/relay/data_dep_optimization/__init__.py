"""Optimizations that depend on the values of parameters (``relay.data_dep_optimization``)."""
from . import simplify_fc_transpose

__all__ = ["simplify_fc_transpose"]
