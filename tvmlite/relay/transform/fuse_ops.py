"""``FuseOps``: group operators into primitive functions, each lowered to one kernel.

Rules (classic relay's, on a dataflow graph): injective chains fuse together; an element-wise
or broadcast consumer fuses into a group anchored by a conv2d/dense/pool
(``OUT_ELEMWISE_FUSABLE``) as its epilogue; a group holds at most one anchor; a producer is
fused only into its single consumer, so a group's only external use is its root. The groups
become ``Function``s with attribute ``Primitive=1`` called from ``main``; a scalar constant
of a simple dtype (int32, int64, float32, float64, bool) stays inside the function that reads
it, any other constant is passed as an argument. At ``opt_level`` 0 every operator is a group
of its own.
"""
from __future__ import annotations

from typing import Dict, List, Optional

from ...error import TVMError
from ...ir.module import IRModule
from ...ir.transform import ModulePass, Pass, PassContext
from ..expr import (
    Call,
    Constant,
    Expr,
    Function,
    If,
    Let,
    Tuple,
    TupleGetItem,
    Var,
    post_order,
    with_children,
)
from ..op.registry import Op, OpPattern
from .infer_type import infer_type

_ANCHOR = OpPattern.COMM_REDUCE


def _is_op_node(e: Expr) -> bool:
    return (isinstance(e, Call) and isinstance(e.op, Op)) or isinstance(e, TupleGetItem)


def _pattern(e: Expr) -> int:
    # a projection only selects a field: it fuses wherever an element-wise op would
    return e.op.pattern if isinstance(e, Call) else OpPattern.ELEMWISE


def _producers(e: Expr) -> List[Expr]:
    """The data inputs of an op node, a tuple argument's fields included."""
    if isinstance(e, TupleGetItem):
        return [e.tuple_value]
    out = []
    for a in e.args:
        out.extend(a.fields if isinstance(a, Tuple) else [a])
    return out


class _Group:
    __slots__ = ("root", "nodes", "master", "anchors")

    def __init__(self, node: Expr):
        self.root = node
        self.nodes = [node]
        self.master = _pattern(node)
        self.anchors = int(self.master >= _ANCHOR)


def _fusable(g: _Group, n_pattern: int) -> bool:
    if n_pattern <= OpPattern.INJECTIVE and g.master <= OpPattern.INJECTIVE:
        return True
    return n_pattern <= OpPattern.BROADCAST and g.master == OpPattern.OUT_ELEMWISE_FUSABLE


def partition(body: Expr, fuse: bool, max_depth: int) -> List[_Group]:
    """The fusion groups of the dataflow graph ``body``, in topological order of roots."""
    nodes = post_order(body)
    for n in nodes:
        if isinstance(n, (Let, If)) or (isinstance(n, Call) and not isinstance(n.op, Op)):
            raise TVMError(f"FuseOps: {type(n).__name__} is not supported yet (dataflow graphs "
                           "of operator calls only)")
        if isinstance(n, Function) and n is not body:
            raise TVMError("FuseOps: nested functions are not supported yet")
    uses: Dict[int, int] = {}
    arg_tuples = set()  # tuples passed to an operator (concatenate's): part of the consumer
    elsewhere = {id(body)}  # values used other than as an operator's argument
    for n in nodes:
        if _is_op_node(n):  # consumers, not reads: add(%v, %v) uses %v once
            for key in {id(p) for p in _producers(n)}:
                uses[key] = uses.get(key, 0) + 1
            if isinstance(n, Call):
                arg_tuples.update(id(a) for a in n.args if isinstance(a, Tuple))
            elif isinstance(n.tuple_value, Tuple):
                elsewhere.add(id(n.tuple_value))
        elif isinstance(n, Tuple):  # a nested tuple is used by its outer one
            elsewhere.update(id(f) for f in n.fields if isinstance(f, Tuple))
    external = set(elsewhere)  # a tuple output's fields, the result: group roots
    for n in nodes:
        if isinstance(n, Tuple) and (id(n) in elsewhere or id(n) not in arg_tuples):
            external.update(id(f) for f in n.fields)
    group_of: Dict[int, _Group] = {}
    groups: Dict[int, _Group] = {}  # by id, in topological order of their roots
    for n in nodes:
        if not _is_op_node(n):
            continue
        pat = _pattern(n)
        chosen: List[_Group] = []
        anchors, size = int(pat >= _ANCHOR), 1
        if fuse and pat < OpPattern.OPAQUE:
            for p in _producers(n):
                pg = group_of.get(id(p))
                if pg is None or pg in chosen or pg.root is not p:
                    continue
                if uses.get(id(p), 0) != 1 or id(p) in external:
                    continue
                if not _fusable(pg, pat) or anchors + pg.anchors > 1:
                    continue
                if size + len(pg.nodes) > max_depth:
                    continue
                chosen.append(pg)
                anchors += pg.anchors
                size += len(pg.nodes)
        if not chosen and isinstance(n, TupleGetItem) and not isinstance(n.tuple_value, Tuple):
            continue  # a field of a multi-output kernel (topk's): read in main, not a kernel
        if not chosen:
            g = group_of[id(n)] = _Group(n)
            groups[id(g)] = g
            continue
        # grow the largest chosen group (no relabelling of its nodes: linear time)
        base = max(chosen, key=lambda c: len(c.nodes))
        del groups[id(base)]
        for other in chosen:
            if other is base:
                continue
            del groups[id(other)]
            for m in other.nodes:
                group_of[id(m)] = base
            base.nodes.extend(other.nodes)
        base.nodes.append(n)
        base.root = n
        base.master = max([base.master, pat] + [c.master for c in chosen])
        base.anchors = anchors
        group_of[id(n)] = base
        groups[id(base)] = base  # re-inserted: its root is now the latest node
    return list(groups.values())


#: dtypes of the scalar constants a fused function keeps in its body (classic's rule)
_INLINE_CONST_DTYPES = ("int32", "int64", "float32", "float64", "bool")


def _inline_constant(e: Expr) -> bool:
    return (isinstance(e, Constant) and e.data.shape == ()
            and str(e.data.dtype) in _INLINE_CONST_DTYPES)


def group_name(prim: Function) -> str:
    """The kernel name of a fused function: ``fused_`` and its operators' names in order."""
    names = [n.op.name.replace(".", "_") for n in post_order(prim.body)
             if isinstance(n, Call) and isinstance(n.op, Op)]
    return "fused_" + "_".join(names or ["tuple_get_item"])


def fuse_function(func: Function, fuse: bool = True, max_depth: int = 256) -> Function:
    """``func`` with its operators grouped into primitive functions (``Primitive=1``)."""
    infer_type(func)
    groups = partition(func.body, fuse, max_depth)
    group_of = {id(n): g for g in groups for n in g.nodes}
    outer: Dict[int, Expr] = {id(p): p for p in func.params}  # old node -> node in new main
    for n in post_order(func.body):
        if isinstance(n, (Var, Constant)):
            outer[id(n)] = n
            continue
        g = group_of.get(id(n))
        if g is None:  # a tuple outside any group (an output tuple, or a group's argument)
            if isinstance(n, Tuple) and all(id(f) in outer for f in n.fields):
                outer[id(n)] = with_children(n, outer)
            elif isinstance(n, TupleGetItem) and id(n.tuple_value) in outer:
                outer[id(n)] = with_children(n, outer)
            continue
        if g.root is not n:
            continue
        # the group's inputs: every value its nodes read that is not computed inside it
        inside = {id(m) for m in g.nodes}
        params: List[Var] = []
        args: List[Expr] = []
        inner: Dict[int, Expr] = {}
        for m in g.nodes:
            reads = [m.tuple_value] if isinstance(m, TupleGetItem) else list(m.args)
            for a in reads:
                leaves = a.fields if isinstance(a, Tuple) else [a]
                for leaf in leaves:
                    if id(leaf) in inside or id(leaf) in inner:
                        continue
                    if fuse and _inline_constant(leaf):
                        inner[id(leaf)] = leaf
                        continue
                    p = Var(f"p{len(params)}", leaf.checked_type)
                    p._checked_type = leaf.checked_type
                    params.append(p)
                    args.append(outer[id(leaf)])
                    inner[id(leaf)] = p
                if isinstance(a, Tuple) and id(a) not in inner:
                    inner[id(a)] = with_children(a, inner)
            inner[id(m)] = with_children(m, inner)
        prim = Function(params, inner[id(n)], attrs={"Primitive": 1})
        infer_type(prim)
        call = Call(prim, args)
        call._checked_type = n.checked_type
        outer[id(n)] = call
    body = outer[id(func.body)]
    new = Function(func.params, body, func.ret_type, func.type_params, func.attrs)
    return infer_type(new)


def _run(mod: IRModule, ctx: PassContext, fuse_opt_level: Optional[int]) -> IRModule:
    level = ctx.opt_level if fuse_opt_level is None or fuse_opt_level < 0 else fuse_opt_level
    max_depth = int(ctx.config.get("relay.FuseOps.max_depth", 256))
    out = IRModule({}, mod.attrs)
    for name, func in mod.functions.items():
        out[name] = (fuse_function(func, level >= 1, max_depth)
                     if isinstance(func, Function) else func)
    return out


def FuseOps(fuse_opt_level: int = -1) -> Pass:  # noqa: N802
    """The fusion pass (``relay.transform.FuseOps``); ``fuse_opt_level`` -1 takes the
    PassContext's ``opt_level`` (0: no fusion)."""
    return ModulePass(lambda mod, ctx: _run(mod, ctx, fuse_opt_level), "FuseOps",
                      opt_level=0)
