"""``tvm._ffi.base``: classic code catches ``tvm._ffi.base.TVMError`` and decodes C strings with
``py_str``."""
from ..error import TVMError  # noqa: F401


def py_str(x: bytes) -> str:
    """Bytes from C as a Python string (UTF-8), as classic ``tvm._ffi.base.py_str``."""
    return x.decode("utf-8")
