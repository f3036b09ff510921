"""TVMScript: print IR as Python-like text and parse it back (``tvm.script``)."""
from ..ir.printing import register_printer as _register_printer
from . import ir, tir
from .ir import ir_module
from .parser import from_source
from .printer import astext

_register_printer(astext)

__all__ = ["ir", "tir", "ir_module", "from_source", "astext"]


from .._classic import fallback as _fallback  # noqa: E402

__getattr__ = _fallback(__name__)
