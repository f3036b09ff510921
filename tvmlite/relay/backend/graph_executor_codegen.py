"""Classic ``tvm.relay.backend.graph_executor_codegen``: the graph code generator of
``relay.build`` as a step of its own (a fused module in; the graph JSON, the lowered kernels
and the params out)."""
from __future__ import annotations

from typing import Any, Dict, Tuple

from ...error import TVMError


class GraphExecutorCodegen:
    """Classic ``GraphExecutorCodegen(mod, target)``: ``codegen(ir_module, func)`` turns the
    fused ``func`` (``relay.optimize``'s ``main``) into ``(graph_json, lowered, params)``;
    ``relay.backend._backend.build(lowered, target)`` compiles the kernels."""

    def __init__(self, mod, target):
        from ..build_module import resolve_target
        self._mod = mod
        self.target = resolve_target(target)

    def codegen(self, ir_module, func) -> Tuple[str, Any, Dict[str, Any]]:
        """``(graph_json, lowered IRModule of PrimFuncs, params by name)`` of ``func``.

        Parameters
        ----------
        ir_module : IRModule
            The module ``func`` belongs to (fused, as ``relay.optimize`` returns it).
        func : relay.Function
            The function to generate the graph of.
        """
        from ..build_module import _GraphCodegen
        from ..expr import Function
        if not isinstance(func, Function):
            raise TVMError(f"GraphExecutorCodegen.codegen: func must be a relay Function, got "
                           f"{type(func).__name__}")
        with self.target:
            cg = _GraphCodegen(func, self.target)
            graph_json = cg.run()
        return graph_json, cg.lowered, dict(cg.params)
