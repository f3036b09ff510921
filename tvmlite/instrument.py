"""``tvm.instrument``: pass instruments (defined in :mod:`tvmlite.ir.instrument`)."""
from .ir.instrument import PassInstrument, PassTimingInstrument, PrintAfterAll, pass_instrument

__all__ = ["PassInstrument", "PassTimingInstrument", "PrintAfterAll", "pass_instrument"]
