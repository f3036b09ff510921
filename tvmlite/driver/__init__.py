"""``tvm.lower`` and ``tvm.build``: the one lowering pipeline and the build entry point."""
from .build_module import build, lower, lower_module, lower_passes, lower_primfunc

__all__ = ["build", "lower", "lower_module", "lower_passes", "lower_primfunc"]
