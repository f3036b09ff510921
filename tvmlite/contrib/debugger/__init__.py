"""The debugging graph executor (``tvm.contrib.debugger.debug_executor``)."""
from . import debug_executor
from . import debug_executor as debug_runtime  # the pre-0.8 name

__all__ = ["debug_executor", "debug_runtime"]
