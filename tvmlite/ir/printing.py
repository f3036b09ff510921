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


# (applies(node) -> bool, astext(node, show_meta_data, annotate) -> str): relay's text format
_TEXT_FORMATS: List[Tuple[Callable[[Any], bool], Callable[..., str]]] = []


def register_node_printer(applies: Callable[[Any], bool], printer: Callable[[Any], str],
                          text_format: Optional[Callable[..., str]] = None) -> None:
    """Print the nodes ``applies`` accepts (modules of relay functions) with ``printer``;
    ``text_format(node, show_meta_data, annotate)`` is their ``astext``."""
    _NODE_PRINTERS.append((applies, printer))
    if text_format is not None:
        _TEXT_FORMATS.append((applies, text_format))


def text_format(node, show_meta_data: bool = True, annotate=None) -> Optional[str]:
    """The ``astext`` of ``node`` by a registered text format, or None when none applies."""
    for applies, fmt in _TEXT_FORMATS:
        if applies(node):
            return fmt(node, show_meta_data, annotate)
    return None


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
