"""Classic ``tvm.relay.backend._backend``: the build of lowered kernels."""
from __future__ import annotations

from ...driver.build_module import build as _tir_build


def build(mod, target, target_host=None):
    """The runtime module of lowered kernels ``mod`` (``GraphExecutorCodegen.codegen``'s
    second result) for ``target`` (classic ``relay.backend.build``)."""
    return _tir_build(mod, target=target, target_host=target_host)


__all__ = ["build"]
