"""``tvm._ffi.base``: classic code catches ``tvm._ffi.base.TVMError``."""
from ..error import TVMError  # noqa: F401
