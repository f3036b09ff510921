"""The text-printer hook of the IR: ``script()``, ``repr`` and ``str`` of every node print
through the printer registered here.

``tvmlite.script`` registers the TVMScript printer when it is imported; the first print loads
it through the root package's lazy loader (as ``tvm.script`` does), so ``import tvmlite`` stays
fast and ``ir`` and the ``tir`` nodes never import the printer that sits above them.
"""
from __future__ import annotations

import sys
from typing import Any, Callable, List, Optional, Tuple

from ..error import TVMError

_PRINTER: Optional[Callable[..., str]] = None
# (applies(node) -> bool, printer(node) -> str) pairs tried first: relay registers its own
_NODE_PRINTERS: List[Tuple[Callable[[Any], bool], Callable[[Any], str]]] = []


def register_printer(printer: Callable[..., str]) -> None:
    """Make ``printer(node, **kwargs) -> str`` the text form of every IR node."""
    global _PRINTER
    _PRINTER = printer


def register_node_printer(applies: Callable[[Any], bool], printer: Callable[[Any], str]) -> None:
    """Print the nodes ``applies`` accepts (modules of relay functions) with ``printer``."""
    _NODE_PRINTERS.append((applies, printer))


def astext(node, **kwargs) -> str:
    """Text of ``node`` by the registered printer (TVMScript, loaded on first use)."""
    for applies, printer in _NODE_PRINTERS:
        if applies(node):
            return printer(node)
    if _PRINTER is None:  # first print: tvmlite.__getattr__ loads tvmlite.script, which registers
        _ = sys.modules[__name__.partition(".")[0]].script
    if _PRINTER is None:
        raise TVMError("no IR printer is registered: import tvmlite.script")
    return _PRINTER(node, **kwargs)
