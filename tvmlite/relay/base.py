"""Classic ``tvm.relay.base``: source locations and the printing helpers under their classic
module path."""
from ..ir.base import SourceName, Span
from .printer import astext, pretty_print

__all__ = ["SourceName", "Span", "astext", "pretty_print"]
