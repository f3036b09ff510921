"""Classic ``tvm.relay.backend._backend``: the build of lowered kernels and the graph
executor's memory plan."""
from __future__ import annotations

from ...driver.build_module import build as _tir_build


def build(mod, target, target_host=None):
    """The runtime module of lowered kernels ``mod`` (``GraphExecutorCodegen.codegen``'s
    second result) for ``target`` (classic ``relay.backend.build``)."""
    return _tir_build(mod, target=target, target_host=target_host)


def GraphPlanMemory(func):  # noqa: N802  (classic's name)
    """The graph executor's storage plan of fused, typed ``func``: a ``StaticMemoryPlan``
    whose ``expr_to_storage_info`` maps expressions to their ``StorageInfo``."""
    from ..build_module import plan_memory
    return plan_memory(func)


__all__ = ["build", "GraphPlanMemory"]
