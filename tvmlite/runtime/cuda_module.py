"""The device part of a module built for ``cuda``: the CUDA C source of its kernels."""
from __future__ import annotations

from typing import List

from ..error import TVMError


class CUDASourceModule:
    """``mod.imported_modules[0]`` of a CUDA build: ``get_source()`` is the CUDA C source."""

    type_key = "cuda"

    def __init__(self, source: str, kernels: List[str]):
        self._source = source
        self.kernels = list(kernels)
        self.imported_modules: list = []

    def get_source(self, fmt: str = "") -> str:
        """The CUDA C source of the kernels."""
        return self._source

    def __call__(self, *args):
        raise TVMError("the CUDA device module is launched through its host module; call "
                       "the module tvm.build returned")

    def __repr__(self) -> str:
        return f"Module(cuda, {id(self):x})"
