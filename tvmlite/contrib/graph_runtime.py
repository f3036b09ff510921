"""The old name of :mod:`tvmlite.contrib.graph_executor` (``graph_runtime.create``)."""
from .graph_executor import GraphModule, create

__all__ = ["GraphModule", "create"]
