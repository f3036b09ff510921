"""Walks over the TE operation graph."""
from __future__ import annotations

from typing import Dict, List, Sequence

from ..error import TVMError
from .tensor import Operation


def post_dfs_order(roots: Sequence[Operation]) -> List[Operation]:
    """Every operation ``roots`` depend on (themselves included), each once, inputs before
    their consumers (depth first, inputs in order; iterative, so deep graphs are fine).

    Raises
    ------
    TVMError
        When an operation depends on itself.
    """
    order: List[Operation] = []
    state: Dict[int, int] = {}  # 1 = on the stack, 2 = done
    for root in roots:
        if state.get(id(root)) == 2:
            continue
        state[id(root)] = 1
        stack = [(root, iter(root.input_tensors))]
        while stack:
            op, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                stack.pop()
                state[id(op)] = 2
                order.append(op)
                continue
            child = nxt.op
            st = state.get(id(child))
            if st == 1:
                raise TVMError(f"operation {child.name} depends on itself (cycle in the graph)")
            if st is None:
                state[id(child)] = 1
                stack.append((child, iter(child.input_tensors)))
    return order


def scan_body(scan_op) -> List[Operation]:
    """The operations of a scan's recurrence (classic ``ScanGetBody``): those between its
    ``update`` tensors and its state placeholders or declared ``inputs`` that read one of
    them, inputs before their consumers."""
    boundary = {id(t.op) for t in list(scan_op.state_placeholder) + list(scan_op.inputs)}
    reach: Dict[int, bool] = {}
    out: List[Operation] = []
    for op in post_dfs_order([t.op for t in scan_op.update]):
        if id(op) in boundary:
            reach[id(op)] = True
            continue
        reach[id(op)] = any(reach.get(id(t.op), False) for t in op.input_tensors)
        if reach[id(op)]:
            out.append(op)
    return out


__all__ = ["post_dfs_order", "scan_body"]
