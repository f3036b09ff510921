"""Walks over the TE operation graph."""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

from ..error import TVMError
from ..tir.expr import IntImm, IterVar, ProducerLoad, Var
from ..tir.functor import collect_vars, post_order_visit
from .tensor import BaseComputeOp, Operation, ScanOp, Tensor


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


def create_read_graph(roots: Sequence[Operation]) -> Dict[Operation, List[Tensor]]:
    """Each operation ``roots`` depend on, mapped to the tensors it reads (classic
    ``CreateReadGraph``)."""
    return {op: op.input_tensors for op in post_dfs_order(list(roots))}


def post_dfs_order_of_graph(roots: Sequence[Operation],
                            graph: Optional[Dict[Operation, List[Tensor]]] = None
                            ) -> List[Operation]:
    """Classic ``PostDFSOrder(roots, read_graph)``: inputs before their consumers."""
    if graph is not None:
        missing = [op.name for op in post_dfs_order(list(roots)) if op not in graph]
        if missing:
            raise TVMError(f"PostDFSOrder: the read graph lacks operations {missing}")
    return post_dfs_order(list(roots))


# A tensor dimension: (id of the operation, output index, dimension).
_DimKey = Tuple[int, int, int]


def _dim(t: Tensor, k: int) -> _DimKey:
    return (id(t.op), t.value_index, k)


def _loads(op: BaseComputeOp) -> List[ProducerLoad]:
    out: List[ProducerLoad] = []
    for e in op.body:
        post_order_visit(e, lambda n: out.append(n) if isinstance(n, ProducerLoad) else None)
    return out


def scan_fix_point_analysis(scan_op: ScanOp) -> Dict[IterVar, IntImm]:
    """Which spatial axes of a scan are fixed points of its recurrence (classic
    ``ScanFixPointAnalysis``): 1 where element ``i`` of that dimension of the update depends
    only on element ``i`` of the same dimension of the state, else 0.

    Exact index-for-index reads carry a state dimension through the body; a dimension read
    through any other index expression, or reaching two state dimensions, is not fixed; nor is
    one whose update dimension reaches another state dimension.
    """
    body = scan_body(scan_op)
    exact: Dict[_DimKey, int] = {}  # tensor dimension -> the spatial axis it carries exactly
    fail: set = set()
    sp = 0
    axis_of: List[Tuple[Tensor, Tensor, int, IterVar]] = []
    for state, upd in zip(scan_op.state_placeholder, scan_op.update):
        for k in range(1, len(upd.shape)):
            iv = scan_op.spatial_axis_[sp]
            exact[_dim(state, k)] = sp
            axis_of.append((state, upd, k, iv))
            sp += 1

    def merge(dst: _DimKey, src: _DimKey) -> None:
        if src not in exact:
            return
        if dst not in exact:
            exact[dst] = exact[src]
        elif exact[dst] != exact[src]:
            fail.update((exact[dst], exact[src]))

    for op in body:
        if isinstance(op, ScanOp):
            for i, (upd, init) in enumerate(zip(op.update, op.init)):
                for k in range(1, len(upd.shape)):
                    merge(_dim(op.output(i), k), _dim(upd, k))
                    merge(_dim(op.output(i), k), _dim(init, k))
        elif isinstance(op, BaseComputeOp):
            vmap: Dict[Var, List[_DimKey]] = {
                iv.var: [_dim(op.output(j), i) for j in range(op.num_outputs)]
                for i, iv in enumerate(op.axis)}
            for ld in _loads(op):
                for i, idx in enumerate(ld.indices):
                    src = _dim(ld.producer, i)
                    if isinstance(idx, Var) and idx in vmap:
                        for key in vmap[idx]:
                            merge(key, src)
                    elif src in exact:
                        fail.add(exact[src])

    reach = _reach_graph(body)
    state_dims = {_dim(st, k) for st in scan_op.state_placeholder for k in range(len(st.shape))}
    result: Dict[IterVar, IntImm] = {}
    for n, (state, upd, k, iv) in enumerate(axis_of):
        key, target = _dim(upd, k), _dim(state, k)
        ok = n not in fail and exact.get(key) == n
        if ok:  # the update dimension may reach no other state dimension
            seen, stack = {key}, [key]
            while stack:
                cur = stack.pop()
                if cur != target and cur in state_dims:
                    ok = False
                    break
                for nxt in reach.get(cur, ()):
                    if nxt not in seen:
                        seen.add(nxt)
                        stack.append(nxt)
        result[iv] = IntImm("int32", int(ok))
    return result


def _reach_graph(ops: Sequence[Operation]) -> Dict[_DimKey, List[_DimKey]]:
    """For each output dimension of ``ops``, the input dimensions whose index uses it."""
    inside = {id(op) for op in ops}
    reach: Dict[_DimKey, List[_DimKey]] = {}
    for op in ops:
        if isinstance(op, ScanOp):
            for i, (upd, init) in enumerate(zip(op.update, op.init)):
                for k in range(1, len(upd.shape)):
                    reach.setdefault(_dim(op.output(i), k), []).extend(
                        [_dim(upd, k), _dim(init, k)])
        elif isinstance(op, BaseComputeOp):
            vmap = {iv.var: _dim(op.output(0), i) for i, iv in enumerate(op.axis)}
            for key in vmap.values():
                reach.setdefault(key, [])
            for ld in _loads(op):
                if id(ld.producer.op) not in inside:
                    continue
                for i, idx in enumerate(ld.indices):
                    for v in collect_vars(idx):
                        if v in vmap:
                            reach[vmap[v]].append(_dim(ld.producer, i))
    return reach


__all__ = ["post_dfs_order", "scan_body", "create_read_graph", "post_dfs_order_of_graph",
           "scan_fix_point_analysis"]
