"""``tvm.lower`` and ``tvm.build``: the one lowering pipeline and the build entry point."""
from .build_module import (
    build,
    lower,
    lower_module,
    lower_passes,
    lower_primfunc,
    schedule_to_module,
)

__all__ = ["build", "lower", "lower_module", "lower_passes", "lower_primfunc",
           "schedule_to_module"]


from .._classic import fallback as _fallback  # noqa: E402

__getattr__ = _fallback(__name__)
