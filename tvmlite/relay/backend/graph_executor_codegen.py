"""Classic ``tvm.relay.backend.graph_executor_codegen``: tvmlite's graph code generator is
internal to ``relay.build``; this classic entry point is not provided."""
from __future__ import annotations

from ..._classic import unsupported


class GraphExecutorCodegen:
    """Classic ``GraphExecutorCodegen(mod, target)``: not supported (use ``relay.build``)."""

    def __init__(self, mod, target):
        raise unsupported("tvm.relay.backend.graph_executor_codegen.GraphExecutorCodegen "
                          "(use relay.build, which returns the graph, library and params)")
