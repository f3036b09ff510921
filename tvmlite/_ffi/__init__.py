"""``tvm._ffi``: the names classic code reaches through TVM's FFI package (its error class and
the global function registry); tvmlite has no FFI, these are its own objects."""
from ..runtime.packed_func import get_global_func, register_func  # noqa: F401
from . import base  # noqa: F401
