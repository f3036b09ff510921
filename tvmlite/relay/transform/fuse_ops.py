"""``FuseOps``: group operators into primitive functions, each lowered to one kernel.

Classic relay's algorithm, on the dataflow graph of each function:

* a graph of the values, each with its fusion pattern (its operator's; a tuple ``TUPLE``, a
  projection ``INJECTIVE``, a scalar constant of a simple dtype ``ELEMWISE``, anything else
  ``OPAQUE``) and its consumers by edge pattern (a broadcast op reading an operand of its own
  output shape reads it element-wise);
* the post-dominator tree of that graph (the immediate post-dominator of a value is the
  nearest node every path from it to the output passes through), with the combined pattern
  of the edges on the way;
* three phases over the values in topological order, each value fused into the group of its
  post-dominator when every node on every path between them allows it: an
  ``OUT_ELEMWISE_FUSABLE`` anchor (conv2d, dense) takes its element-wise/broadcast epilogue
  (phase 0); element-wise and broadcast ops fuse into injective or reducing consumers
  (phase 0 and on); injective ops and tuples fuse along injective paths (phase 1); injective
  ops fuse into a tuple that already joined an injective consumer (phase 2, concatenate's
  inputs). A group holds at most ``relay.FuseOps.max_depth`` nodes (default 256).

Control flow is opaque, as in classic: a ``let``'s value and body, an ``if``'s condition and
branches and a nested function's body are fused within, each a boundary no group crosses
outwards.

Each group becomes a ``Function`` with attribute ``Primitive=1``, called from ``main`` with the
values it reads from other groups as arguments (a constant stays inside when the config
``relay.FuseOps.link_params`` is true). A scalar constant of a simple dtype usually joins its
consumer's group, so it stays inside. ``annotation.stop_fusion`` is dropped, its input kept
out of its consumers' groups. Calls of functions that are already primitive are left as they
are (fusing twice changes nothing). At ``opt_level`` 0 every operator is a group of its own.
"""
from __future__ import annotations

from typing import Dict, List, Optional

from ...error import TVMError
from ...ir.module import IRModule
from ...ir.transform import ModulePass, Pass, PassContext, register_pass_config
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
    dataflow_children,
    post_order,
    with_children,
)
from ..op.registry import Op, OpPattern
from ..ty import TensorType, TupleType
from .infer_type import infer_type

register_pass_config("relay.FuseOps.link_params", bool)

#: classic's default ``relay.FuseOps.max_depth``
MAX_FUSED_OPS = 256
#: dtypes of the scalar constants that fuse into their consumer (classic's rule)
_INLINE_CONST_DTYPES = ("int32", "int64", "float32", "float64", "bool")
_STOP_FUSION = "annotation.stop_fusion"
_P = OpPattern


def _is_primitive(f: Expr) -> bool:
    return isinstance(f, Function) and bool(f.attrs) and bool(int(f.attrs.get("Primitive", 0)))


class _Node:
    """A value of the dataflow graph: its pattern, its consumers as (node, edge pattern), and
    whether something outside the graph (the function's result, a variable's binding) uses
    it."""

    __slots__ = ("expr", "index", "pattern", "outputs", "extern")

    def __init__(self, expr: Expr, index: int):
        self.expr, self.index = expr, index
        self.pattern = _P.OPAQUE
        self.outputs: List[tuple] = []
        self.extern = False


def _fusion_children(e: Expr) -> List[Expr]:
    """The inputs of ``e`` in the fusion graph: the dataflow inputs, and for control flow
    (classic: opaque nodes) a let's value and body, an if's condition and branches, a
    (non-primitive) function's body, a called function or variable."""
    if isinstance(e, Call):
        callee = [] if isinstance(e.op, Op) or _is_primitive(e.op) or \
            not isinstance(e.op, Expr) else [e.op]
        return list(e.args) + callee
    if isinstance(e, Let):
        return [e.value, e.body]
    if isinstance(e, If):
        return [e.cond, e.true_branch, e.false_branch]
    if isinstance(e, Function):
        return [] if _is_primitive(e) else [e.body]
    return dataflow_children(e)


def _graph(body: Expr) -> List[_Node]:
    """The indexed forward graph of ``body``, in topological (post-DFS) order."""
    exprs = post_order(body, _fusion_children)
    nodes = [_Node(e, i) for i, e in enumerate(exprs)]
    of = {id(e): n for e, n in zip(exprs, nodes)}
    of[id(body)].extern = True
    for node in nodes:
        e = node.expr
        if isinstance(e, Var):
            node.extern = True
        elif isinstance(e, Constant):
            if e.data.shape == () and str(e.data.dtype) in _INLINE_CONST_DTYPES:
                node.pattern = _P.ELEMWISE
        elif isinstance(e, Call):
            pat = _P.OPAQUE
            if isinstance(e.op, Op):
                pat = e.op.pattern if e.op.pattern is not None else _P.OPAQUE
            node.pattern = pat
            rtype = e.checked_type
            shape_only = isinstance(e.op, Op) and e.op.name in _SHAPE_ONLY
            for k, a in enumerate(e.args):
                edge = pat
                if shape_only and k == 0:
                    # it reads only the operand's shape: fused after the operand's op, that
                    # op's result would be computed by no stage of the kernel
                    edge = _P.OPAQUE
                atype = a.checked_type
                if (edge == _P.BROADCAST and isinstance(rtype, TensorType)
                        and isinstance(atype, TensorType)
                        and tuple(rtype.shape) == tuple(atype.shape)):
                    edge = _P.ELEMWISE
                of[id(a)].outputs.append((node, edge))
            if not isinstance(e.op, Op) and id(e.op) in of:
                of[id(e.op)].outputs.append((node, _P.OPAQUE))
        elif isinstance(e, (Let, If, Function)):
            # control flow: opaque, its parts fused within (classic)
            for c in _fusion_children(e):
                of[id(c)].outputs.append((node, _P.OPAQUE))
        elif isinstance(e, Tuple):
            node.pattern = _P.TUPLE
            for f in e.fields:
                if isinstance(f.checked_type, TensorType):
                    of[id(f)].outputs.append((node, _P.INJECTIVE))
                else:
                    of[id(f)].extern = True
        elif isinstance(e, TupleGetItem):
            t = e.tuple_value.checked_type
            if isinstance(t, TupleType) and all(isinstance(f, TensorType) for f in t.fields):
                node.pattern = _P.INJECTIVE
                of[id(e.tuple_value)].outputs.append((node, _P.INJECTIVE))
            else:
                of[id(e.tuple_value)].extern = True
    return nodes



#: operators that read only the shape of their first operand
_SHAPE_ONLY = ("zeros_like", "ones_like", "full_like", "shape_of", "ndarray_size")


class _DomNode:
    """A node of the post-dominator tree: its graph index, parent, depth and the combined
    pattern of the edges on the way to the parent."""

    __slots__ = ("index", "parent", "depth", "pattern")

    def __init__(self, index: int, parent: Optional["_DomNode"], pattern: int):
        self.index, self.parent, self.pattern = index, parent, pattern
        self.depth = parent.depth + 1 if parent is not None else 1


def _post_dominators(nodes: List[_Node]) -> List[_DomNode]:
    """The post-dominator tree: per node its immediate post-dominator (the least common
    ancestor of its consumers) and the combined pattern of the edges on the way."""
    tree: List[Optional[_DomNode]] = [None] * len(nodes)
    for node in reversed(nodes):
        if node.extern:
            tree[node.index] = _DomNode(node.index, None, _P.OPAQUE)
            continue
        pattern = _P.ELEMWISE
        parent: Optional[_DomNode] = None
        for k, (out, edge) in enumerate(node.outputs):
            if k == 0:
                parent = tree[out.index]
            else:
                parent, pattern = _lca(parent, tree[out.index], pattern)
            pattern = max(pattern, edge)
        tree[node.index] = _DomNode(node.index, parent, pattern)
    return tree  # type: ignore[return-value]


def _lca(a: Optional[_DomNode], b: Optional[_DomNode], pattern: int):
    """The least common ancestor of ``a`` and ``b`` and ``pattern`` combined with the
    patterns on the way to it."""
    while a is not b:
        if a is None or b is None:
            return None, pattern
        if a.depth < b.depth:
            pattern, b = max(pattern, b.pattern), b.parent
        elif b.depth < a.depth:
            pattern, a = max(pattern, a.pattern), a.parent
        else:
            pattern = max(pattern, a.pattern, b.pattern)
            a, b = a.parent, b.parent
    return a, pattern


class _Group:
    """A union-find set of nodes: the root group holds the pattern, the root expression
    (the group's output), the anchor and the size."""

    __slots__ = ("parent", "pattern", "root_ref", "anchor", "num_nodes")

    def __init__(self, node: _Node):
        self.parent: Optional[_Group] = None
        self.pattern = node.pattern
        self.root_ref = node.expr
        self.anchor = node.expr if node.pattern == _P.OUT_ELEMWISE_FUSABLE else None
        self.num_nodes = 1

    def root(self) -> "_Group":
        r = self
        while r.parent is not None:
            r = r.parent
        g = self
        while g is not r:  # path compression
            g.parent, g = r, g.parent
        return r


class _Partitioner:
    def __init__(self, nodes: List[_Node], max_depth: int):
        self.nodes = nodes
        self.max_depth = max_depth
        self.groups = [_Group(n) for n in nodes]

    def _reaches(self, src: _Node, sink: _Node, cond) -> bool:
        """Whether every node on every path from ``src``'s consumers to ``sink`` passes
        ``cond(group pattern, is the sink)``."""
        seen = set()
        stack = [out for out, _ in src.outputs]
        while stack:
            n = stack.pop()
            if n.index in seen:
                continue
            seen.add(n.index)
            if not cond(self.groups[n.index].root().pattern, n is sink):
                return False
            if n is not sink:
                stack.extend(out for out, _ in n.outputs)
        return True

    def _merge(self, child: _Group, parent: _Group) -> None:
        child, parent = child.root(), parent.root()
        if child is parent:
            return
        parent.num_nodes += child.num_nodes
        child.parent = parent
        if child.anchor is not None:
            parent.anchor = child.anchor
            parent.pattern = max(child.pattern, parent.pattern)

    @staticmethod
    def _between(src: _Node, sink: _Node):
        """Each node on the paths from ``src`` up to (not including) ``sink``, once."""
        seen = set()
        stack = [src]
        while stack:
            n = stack.pop()
            if n is sink or n.index in seen:
                continue
            seen.add(n.index)
            yield n
            stack.extend(out for out, _ in n.outputs)

    def _commit(self, src: _Node, sink: _Node) -> None:
        """Merge every node on the paths from ``src`` to ``sink`` into ``sink``'s group."""
        target = self.groups[sink.index]
        for n in self._between(src, sink):
            self._merge(self.groups[n.index], target)

    def _count_with(self, child: _Node, sink: _Node) -> int:
        """The size of ``sink``'s group with the nodes from ``child`` up to it added."""
        return self.groups[sink.index].root().num_nodes + sum(
            self.groups[n.index].num_nodes for n in self._between(child, sink))

    def run(self, tree: List[_DomNode]) -> None:
        for phase in range(3):
            for node, dom in zip(self.nodes, tree):
                self._visit(node, dom, phase)

    def _visit(self, node: _Node, dom: _DomNode, phase: int) -> None:
        group = self.groups[node.index]
        if group.pattern == _P.OPAQUE or dom.parent is None:
            return
        sink = self.nodes[dom.parent.index]
        if self._count_with(node, sink) > self.max_depth:
            return
        sink_group = self.groups[sink.index]
        if phase == 2:
            # injective ops join a tuple that already went into an injective consumer
            if group.pattern > _P.INJECTIVE:
                return
            sink_root = sink_group.root()
            if sink_root.pattern == _P.TUPLE:
                return
            if sink_group.pattern == _P.TUPLE and sink_root.pattern <= _P.INJECTIVE:
                if self._reaches(node, sink, lambda k, last: k <= _P.INJECTIVE):
                    self._commit(node, sink)
            return
        if group.root() is sink_group.root() or sink_group.pattern == _P.TUPLE:
            return
        if group.pattern == _P.OUT_ELEMWISE_FUSABLE:
            if phase == 0 and dom.pattern == _P.ELEMWISE and self._reaches(
                    node, sink, lambda k, last: k <= _P.BROADCAST):
                self._commit(node, sink)
        elif group.pattern <= _P.BROADCAST:
            if dom.pattern <= _P.INJECTIVE or dom.pattern == _P.COMM_REDUCE:
                if self._reaches(node, sink, _broadcast_path):
                    self._commit(node, sink)
        elif group.pattern in (_P.INJECTIVE, _P.TUPLE):
            if phase == 1 and self._reaches(node, sink, lambda k, last: k <= _P.INJECTIVE):
                self._commit(node, sink)


def _broadcast_path(kind: int, is_sink: bool) -> bool:
    """An element-wise/broadcast node fuses through injective branches into an injective,
    reducing or anchored sink."""
    if not is_sink:
        return kind <= _P.INJECTIVE
    return kind <= _P.COMM_REDUCE or kind == _P.OUT_ELEMWISE_FUSABLE


def partition(body: Expr, fuse: bool, max_depth: int) -> Dict[int, _Group]:
    """The root group of each node of the dataflow graph ``body`` (by ``id``)."""
    for n in post_order(body, _fusion_children):
        if not isinstance(n, (Call, Tuple, TupleGetItem, Var, Constant, Let, If, Function)):
            raise TVMError(f"FuseOps: {type(n).__name__} is not supported yet")
    nodes = _graph(body)
    part = _Partitioner(nodes, max_depth)
    if fuse:
        part.run(_post_dominators(nodes))
    return {id(n.expr): g.root() for n, g in zip(nodes, part.groups)}


def group_name(prim: Function) -> str:
    """The kernel name of a fused function: ``fused_`` and its operators' names in order."""
    names = [n.op.name.replace(".", "_") for n in post_order(prim.body)
             if isinstance(n, Call) and isinstance(n.op, Op)]
    return "fused_" + "_".join(names or ["tuple_get_item"])


class _Fuser:
    """Rewrites a function's body by its groups: one primitive function per group."""

    def __init__(self, group_of: Dict[int, _Group], link_params: bool):
        self.group_of = group_of
        self.link_params = link_params
        self.new: Dict[int, Expr] = {}
        self.params: Dict[int, List[Var]] = {}  # id(group) -> its parameters
        self.args: Dict[int, List[Expr]] = {}  # id(group) -> its arguments in main

    def _param(self, group: _Group, arg: Expr, ty) -> Var:
        args = self.args.setdefault(id(group), [])
        params = self.params.setdefault(id(group), [])
        for a, p in zip(args, params):
            if a is arg:
                return p
        p = Var(f"p{len(params)}", ty)
        p._checked_type = ty
        params.append(p)
        args.append(arg)
        return p

    def _inputs(self, exprs, group: _Group) -> List[Expr]:
        out = []
        for e in exprs:
            new = self.new[id(e)]
            if self.group_of[id(e)] is not group and not (
                    self.link_params and isinstance(new, Constant)):
                new = self._param(group, new, e.checked_type)
            out.append(new)
        return out

    def _function(self, group: _Group, body: Expr, ty) -> Expr:
        params, args = self.params.get(id(group), []), self.args.get(id(group), [])
        if not any(isinstance(x, Call) for x in post_order(body)):
            # tuple plumbing alone (a field of a tuple literal): no kernel, read in main
            memo: Dict[int, Expr] = {id(p): a for p, a in zip(params, args)}
            for x in post_order(body):
                if id(x) not in memo:
                    memo[id(x)] = with_children(x, memo)
            return memo[id(body)]
        prim = Function(params, body, attrs={"Primitive": 1})
        infer_type(prim)
        call = Call(prim, list(args))
        call._checked_type = ty
        return call

    def visit(self, n: Expr) -> Expr:
        if isinstance(n, (Var, Constant)):
            return n
        if isinstance(n, (Let, If, Function)):
            return n if _is_primitive(n) else with_children(n, self.new)
        group = self.group_of[id(n)]
        if isinstance(n, Call) and not isinstance(n.op, Op):
            return Call(self.new.get(id(n.op), n.op), [self.new[id(a)] for a in n.args],
                        n.attrs, n.type_args)
        if isinstance(n, Call):
            if n.op.name == _STOP_FUSION:
                return self.new[id(n.args[0])]
            call = Call(n.op, self._inputs(n.args, group), n.attrs, n.type_args)
            return self._function(group, call, n.checked_type) if group.root_ref is n \
                else call
        if isinstance(n, Tuple):
            if group.root_ref is n:
                return Tuple([self.new[id(f)] for f in n.fields])
            return Tuple(self._inputs(n.fields, group))
        # TupleGetItem
        if group.root_ref is n and self.group_of[id(n.tuple_value)] is not group:
            # a field of another group's (multi-output) result: read in main
            return TupleGetItem(self.new[id(n.tuple_value)], n.index)
        item = TupleGetItem(self._inputs([n.tuple_value], group)[0], n.index)
        return self._function(group, item, n.checked_type) if group.root_ref is n else item


def fuse_function(func: Function, fuse: bool = True, max_depth: int = MAX_FUSED_OPS,
                  link_params: bool = False) -> Function:
    """``func`` with its operators grouped into primitive functions (``Primitive=1``)."""
    infer_type(func)
    group_of = partition(func.body, fuse, max_depth)
    fuser = _Fuser(group_of, link_params)
    for n in post_order(func.body, _fusion_children):
        fuser.new[id(n)] = fuser.visit(n)
    new = Function(func.params, fuser.new[id(func.body)], func.ret_type, func.type_params,
                   func.attrs)
    return infer_type(new)


def _run(mod: IRModule, ctx: PassContext, fuse_opt_level: Optional[int]) -> IRModule:
    level = ctx.opt_level if fuse_opt_level is None or fuse_opt_level < 0 else fuse_opt_level
    max_depth = int(ctx.config.get("relay.FuseOps.max_depth", MAX_FUSED_OPS))
    link_params = bool(ctx.config.get("relay.FuseOps.link_params", False))
    out = IRModule({}, mod.attrs)
    for name, func in mod.functions.items():
        out[name] = (fuse_function(func, level >= 1, max_depth, link_params)
                     if isinstance(func, Function) and not _is_primitive(func) else func)
    return out


def FuseOps(fuse_opt_level: int = -1) -> Pass:  # noqa: N802
    """The fusion pass (``relay.transform.FuseOps``); ``fuse_opt_level`` -1 takes the
    PassContext's ``opt_level`` (0: no fusion)."""
    return ModulePass(lambda mod, ctx: _run(mod, ctx, fuse_opt_level), "FuseOps",
                      opt_level=0)
