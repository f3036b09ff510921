"""TE schedules: the classic declarative facade over the TensorIR schedule engine.

A :class:`Schedule` keeps classic TE's Stage model as it is — ``op``/``origin_op``,
``all_iter_vars``/``leaf_iter_vars``, Split/Fuse relations, ``iter_var_attrs``, the attach type
and IterVar, scope — and records what the user asked for. Nothing is transformed until lowering:
:func:`schedule_to_prim_func` builds the default TensorIR function with ``te.create_prim_func``
and *materializes* the stages onto the engine (``tvmlite.tir.schedule``), consumers first:
inline → compute_at at the attach loop (unit loops kept) → the stage's own splits, fuses and
reorders in call order → loop annotations. Every primitive is implemented once, in the engine.

``cache_read``, ``cache_write`` (and ``rfactor``) rewrite the dataflow graph at once, as classic
TE does: after ``cache_write(C)``, ``s[C]`` is the copy-out stage and keeps ``C``'s IterVars,
while the cache stage gets fresh ``x.c`` IterVars.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Dict, List, Sequence

from .._classic import fallback as _fallback
from ..arith import Analyzer
from ..error import TVMError
from ..ir.transform import PassContext, register_pass_config
from ..tir import op as _op
from ..tir.buffer import (
    Buffer,  # noqa: F401  (classic te.schedule.Buffer)
    decl_buffer,
)
from ..tir.expr import IntImm, IterVar, IterVarType, ProducerLoad, Range, Reduce, Var
from ..tir.function import PrimFunc
from ..tir.functor import Mutator, substitute
from ..tir.stmt import BlockRealize
from .bound import infer_bound as _infer_bound
from .create_prim_func import create_prim_func_with_info
from .graph import (
    create_read_graph,
    post_dfs_order,
    post_dfs_order_of_graph,
    scan_body,
    scan_fix_point_analysis,
)
from .materialize import apply_stages
from .operation import compute
from .rfactor import rfactor as _rfactor
from .stage import (
    INLINE,
    ROOT,
    SCAN_UPDATE,
    SCOPE,
    Fuse,
    IterVarAttr,
    Singleton,
    Split,
    Stage,
    _all_or_nothing,
    attach_spec,
)
from .tensor import (
    ComputeOp,
    ExternOp,
    HybridOp,
    Operation,
    PlaceholderOp,
    ScanOp,
    Tensor,
    TensorComputeOp,
)


class _Rebind(Mutator):
    """Replace ProducerLoads of some tensors by loads of others."""

    def __init__(self, vmap: Dict[Tensor, Tensor]):
        self.vmap = vmap

    def visit_ProducerLoad(self, e):
        idx = self.visit(e.indices)
        t = self.vmap.get(e.producer, e.producer)
        return e if (t is e.producer and idx is e.indices) else ProducerLoad(t, idx)


register_pass_config("te.keep_schedule_record", bool)


def _copy_attr(a: IterVarAttr) -> IterVarAttr:
    c = IterVarAttr()
    for k, v in vars(a).items():
        setattr(c, k, list(v) if isinstance(v, list) else v)
    return c


def _replace_inputs(op: Operation, vmap: Dict[Tensor, Tensor]) -> Operation:
    if isinstance(op, ComputeOp):
        body = _Rebind(vmap).visit(op.body)
        if body is op.body:
            return op
        return ComputeOp(op.name, op.tag, op.attrs, op.axis, body)
    if isinstance(op, TensorComputeOp):
        if not any(t in vmap for t in op.inputs):
            return op
        return TensorComputeOp(op.name, op.tag, op.attrs, op.axis, op.reduce_axis,
                               op.schedulable_ndim, op.intrin, [vmap.get(t, t) for t in op.inputs],
                               op.input_regions, op.scalar_inputs)
    if isinstance(op, ExternOp):
        if not any(t in vmap for t in op.inputs):
            return op
        extra = {"axis": op.axis} if isinstance(op, HybridOp) else {}
        return type(op)(op.name, op.tag, op.attrs, [vmap.get(t, t) for t in op.inputs],
                        op.input_placeholders, op.output_placeholders, op.body, **extra)
    if isinstance(op, ScanOp):
        if not any(t in vmap for t in op.init + op.update):
            return op
        return ScanOp(op.name, op.tag, op.attrs, op.scan_axis,
                      [vmap.get(t, t) for t in op.init], [vmap.get(t, t) for t in op.update],
                      op.state_placeholder, op.inputs)
    return op


class Schedule:
    """The schedule of a set of output operations (``te.create_schedule``)."""

    def __init__(self, ops):
        ops = list(ops) if isinstance(ops, (list, tuple)) else [ops]
        self.outputs: List[Operation] = []
        for o in ops:
            o = o.op if isinstance(o, Tensor) else o
            if not isinstance(o, Operation):
                raise TVMError(f"create_schedule expects operations or tensors, got {o!r}")
            self.outputs.append(o)
        self.stages: List[Stage] = []
        self.stage_map: Dict[Operation, Stage] = {}
        for op in post_dfs_order(self.outputs):
            st = Stage(op, self)
            st.is_output = any(op is o for o in self.outputs)
            self.stages.append(st)
            self.stage_map[op] = st
        self.groups: List[Stage] = []
        for st in list(self.stages):
            if isinstance(st.op, ScanOp):  # classic: a scan's update stages form its group
                sc = st.op
                g = self.create_group(list(sc.update),
                                      list(sc.state_placeholder) + list(sc.inputs))
                g.attach_type, g.attach_stage = SCAN_UPDATE, st
        # with config ``te.keep_schedule_record``: a copy of the schedule after each stage
        # primitive, the first one plain ("vanilla")
        self._keep_record = bool(PassContext.current().converted("te.keep_schedule_record",
                                                                 False))
        self.schedule_record: List[Schedule] = []
        self.primitive_record: List[str] = []
        if self._keep_record:
            self.schedule_record.append(self.copy())
            self.primitive_record.append("vanilla")

    def copy(self) -> "Schedule":
        """A copy whose stages can be scheduled further without changing this one (the
        operations and IterVars are shared, as in classic TE)."""
        new = object.__new__(Schedule)
        smap: Dict[int, Stage] = {}
        for st in self.stages + self.groups:
            c = object.__new__(Stage)
            for k, v in vars(st).items():
                setattr(c, k, list(v) if isinstance(v, list) else dict(v)
                        if isinstance(v, dict) else v)
            c.iter_var_attrs = {iv: _copy_attr(a) for iv, a in st.iter_var_attrs.items()}
            c.sch = new
            smap[id(st)] = c
        for c in smap.values():
            for k in ("attach_stage", "group"):
                ref = getattr(c, k)
                if ref is not None:
                    setattr(c, k, smap.get(id(ref), ref))
        for k, v in vars(self).items():
            setattr(new, k, list(v) if isinstance(v, list) else dict(v)
                    if isinstance(v, dict) else v)
        new.stages = [smap[id(st)] for st in self.stages]
        new.groups = [smap[id(st)] for st in self.groups]
        new.stage_map = {op: smap[id(st)] for op, st in self.stage_map.items()}
        new.schedule_record, new.primitive_record = [], []
        new._keep_record = False
        return new

    def __getitem__(self, k) -> Stage:
        op = k.op if isinstance(k, Tensor) else k
        st = self.stage_map.get(op)
        if st is None:
            name = getattr(op, "name", op)
            raise TVMError(f"Cannot find Stage for operator {name} in the schedule")
        return st

    def __repr__(self):
        return "schedule(" + ", ".join(s.op.name for s in self.stages) + ")"

    def create_group(self, outputs, inputs, include_inputs: bool = False) -> Stage:
        """Group the stages between ``inputs`` and ``outputs`` (the inputs' own stages too with
        ``include_inputs``) into a group stage: ``g.compute_at(...)`` attaches every member
        that is not attached inside the group, together (classic ``create_group``).

        Returns
        -------
        group : Stage
            The group stage (``op`` is None); members have ``.group`` set to it.
        """
        outputs = [outputs] if isinstance(outputs, Tensor) else list(outputs)
        inputs = [inputs] if isinstance(inputs, Tensor) else list(inputs)
        ops = _sub_graph([self._current(t).op for t in outputs],
                         {id(self._current(t).op) for t in inputs}, include_inputs)
        stages = [self[op] for op in ops]
        parent = None
        counter: Dict[int, List] = {}  # id(group) -> [group, members of it in the sub-graph]
        for i, st in enumerate(stages):
            parent = st.group if i == 0 else _common_group(parent, st.group)
            if st.group is not None:
                counter.setdefault(id(st.group), [st.group, 0])[1] += 1
        g = Stage(None, self)
        g.group = parent
        if parent is not None:
            parent.num_child_stages += 1
        # a sub-group wholly inside the new group counts as one member of its own parent
        stack = [e[0] for e in counter.values()
                 if e[0] is not parent and e[0].num_child_stages == e[1]]
        while stack:
            sub = stack.pop()
            if sub.group is not None and sub.group is not parent:
                e = counter.setdefault(id(sub.group), [sub.group, 0])
                e[1] += 1
                if e[1] == sub.group.num_child_stages:
                    stack.append(sub.group)
        for sub, count in counter.values():
            if sub is parent:
                continue
            if sub.num_child_stages != count:
                raise TVMError("create_group: Trying to group region that intersect with an "
                               "already existed group")
            if sub.group is parent:
                self._regroup(sub, g, parent)
        for st in stages:
            if st.group is parent:
                self._regroup(st, g, parent)
        self.groups.append(g)
        return g

    @staticmethod
    def _regroup(st: Stage, g: Stage, parent) -> None:
        st.group = g
        g.num_child_stages += 1
        if parent is not None:
            parent.num_child_stages -= 1

    def normalize(self) -> "Schedule":
        """Rebase loops to start at 0 (tvmlite's loops always do): returns ``self``."""
        return self

    # ------------------------------------------------------------------ dataflow rewrites
    def _current(self, t: Tensor) -> Tensor:
        st = self.stage_map.get(t.op)
        return st.op.output(t.value_index) if st is not None else t

    def _replace_dataflow(self, vmap: Dict[Tensor, Tensor], start: int = 0) -> None:
        """Rewrite every stage from ``start`` on to read ``vmap``'s replacements (transitively)."""
        for st in self.stages[start:]:
            new = _replace_inputs(st.op, vmap)
            if new is not st.op:
                for i in range(st.op.num_outputs):
                    vmap[st.op.output(i)] = new.output(i)
                self._set_op(st, new)

    def _set_op(self, st: Stage, new: Operation) -> None:
        old = st.op
        st.op = new
        self.stage_map[new] = st
        self.outputs = [new if o is old else o for o in self.outputs]

    @_all_or_nothing
    def cache_read(self, tensor: Tensor, scope: str, readers) -> Tensor:
        """A cache of ``tensor`` in ``scope`` read by ``readers`` instead of ``tensor``."""
        if not isinstance(tensor, Tensor):
            raise TVMError(f"cache_read: expected a Tensor, got {tensor!r}")
        readers = readers if isinstance(readers, (list, tuple)) else [readers]
        src = self._current(tensor)
        name = f"{src.op.name}.{scope}" if src.op.num_outputs == 1 else \
            f"{src.op.name}.v{src.value_index}.{scope}"
        cache = compute(src.shape, lambda *i: src(*i), name=name,
                        varargs_names=[f"ax{k}" for k in range(len(src.shape))])
        reader_stages = [self[r] for r in readers]
        for st in reader_stages:
            if not any(t is src for t in st.op.input_tensors):
                raise TVMError(f"cache_read: {st.op.name} does not read {src.op.name}")
        vmap: Dict[Tensor, Tensor] = {}
        for st in reader_stages:
            new = _replace_inputs(st.op, {src: cache})
            for i in range(st.op.num_outputs):
                vmap[st.op.output(i)] = new.output(i)
            self._set_op(st, new)
        pos = self._insert_after(src.op, cache.op, scope)
        self._replace_dataflow(vmap, pos + 1)
        return cache

    def _insert_after(self, producer: Operation, op: Operation, scope: str) -> int:
        st = Stage(op, self)
        st.scope = scope
        pos = next(i for i, s in enumerate(self.stages) if s.op is producer)
        self.stages.insert(pos + 1, st)
        self.stage_map[op] = st
        return pos + 1

    @_all_or_nothing
    def cache_write(self, tensor, scope: str):
        """Compute ``tensor`` into a cache in ``scope``; ``s[tensor]`` becomes the copy-out."""
        tensors = list(tensor) if isinstance(tensor, (list, tuple)) else [tensor]
        st = self[tensors[0]]
        op = st.op
        if not isinstance(op, (ComputeOp, TensorComputeOp)):
            raise TVMError(f"cache_write: {op.name} is not a compute operation")
        if st.attach_type != ROOT or st.iter_var_attrs:
            raise TVMError(f"cache_write: {op.name} is already attached or annotated; "
                           "call cache_write before compute_at/parallel/vectorize/bind...")
        if isinstance(op, TensorComputeOp):
            return self._cache_write_intrin_call(st, scope)
        if st.relations:  # classic: the cache takes the split/fused layout of the stage
            new_axis, body, idx = _relayout(st, op)
            st._log = []
        else:
            new_axis = [IterVar(iv.dom, Var(iv.var.name + ".c", iv.var.dtype), iv.iter_type)
                        for iv in op.axis]
            vmap = {iv.var: nv.var for iv, nv in zip(op.axis, new_axis)}
            body = [substitute(b, vmap) for b in op.body]
            idx = [iv.var for iv in op.axis]
        cache_op = ComputeOp(f"{op.name}.{scope}", op.tag, op.attrs, new_axis, body)
        copy = ComputeOp(op.name, op.tag, op.attrs, op.axis,
                         [cache_op.output(i)(*idx) for i in range(op.num_outputs)])
        cst, pos, old_outs = self._install_write_cache(st, cache_op, copy, scope)
        # a reorder made before (the only structural call allowed here) moves with the
        # computation, onto the cache's IterVars; the copy-out stage starts afresh
        ivmap = dict(zip(op.axis, new_axis))
        for entry in st._log:
            if entry[0] != "reorder":
                raise TVMError(f"cache_write: schedule {op.name} after cache_write, not "
                               f"before ({entry[0]} was called first)")
            cst.reorder(*[ivmap.get(iv, iv) for iv in entry[1]])
        st._log = []
        self._replace_dataflow({o: copy.output(i) for i, o in enumerate(old_outs)}, pos + 2)
        outs = [cache_op.output(i) for i in range(cache_op.num_outputs)]
        return outs[0] if len(outs) == 1 else outs

    def _install_write_cache(self, st: Stage, cache_op: Operation, copy: Operation,
                             scope: str):
        """Put the ``scope`` stage of ``cache_op`` before ``st``, which becomes ``copy`` (the
        copy-out over the op's axes). Returns (cache stage, its position, the old outputs)."""
        op = st.op
        pos = next(i for i, s in enumerate(self.stages) if s is st)
        cst = Stage(cache_op, self)
        cst.scope = scope
        self.stages.insert(pos, cst)
        self.stage_map[cache_op] = cst
        old_outs = [op.output(i) for i in range(op.num_outputs)]
        self._set_op(st, copy)
        st.all_iter_vars = list(copy.axis)
        st.leaf_iter_vars = list(copy.axis)
        st.relations = []
        return cst, pos, old_outs

    def _cache_write_intrin_call(self, st: Stage, scope: str):
        """cache_write of a tensor intrinsic call: the call writes the cache (fresh ``.c``
        axes), the stage becomes an elementwise copy-out over all of the op's axes."""
        op = st.op
        if st._log:
            raise TVMError(f"cache_write: schedule {op.name} (a tensor intrinsic call) after "
                           "cache_write, not before")
        new_axis = [IterVar(iv.dom, Var(iv.var.name + ".c", iv.var.dtype), iv.iter_type)
                    for iv in op.axis]
        vmap = {iv.var: nv.var for iv, nv in zip(op.axis, new_axis)}
        regions = [[Range(substitute(r.min, vmap), substitute(r.extent, vmap)) for r in reg]
                   for reg in op.input_regions]
        cache_op = TensorComputeOp(f"{op.name}.{scope}", op.tag, op.attrs, new_axis,
                                   op.reduce_axis, op.schedulable_ndim, op.intrin, op.inputs,
                                   regions, [substitute(e, vmap) for e in op.scalar_inputs])
        copy_axis = [IterVar(iv.dom, iv.var, IterVarType.DataPar) for iv in op.axis]
        idx = [iv.var for iv in op.axis]
        copy = ComputeOp(op.name, op.tag, op.attrs, copy_axis,
                         [cache_op.output(i)(*idx) for i in range(op.num_outputs)])
        _, pos, old_outs = self._install_write_cache(st, cache_op, copy, scope)
        self._replace_dataflow({o: copy.output(i) for i, o in enumerate(old_outs)}, pos + 2)
        outs = [cache_op.output(i) for i in range(cache_op.num_outputs)]
        return outs[0] if len(outs) == 1 else outs

    @_all_or_nothing
    def rfactor(self, tensor: Tensor, axis: IterVar, factor_axis: int = 0):
        """Factor a reduction over ``axis`` into a partial-result tensor (classic rfactor)."""
        return _rfactor(self, tensor, axis, factor_axis)


def _relayout(st: Stage, op: ComputeOp):
    """Classic ``cache_write`` of a split/fused/reordered stage: the cache's axes are the
    stage's data-parallel leaf IterVars (``x.c``), its body the computation at the root index
    they give (guarded where a split overhangs); the copy-out reads the cache at the leaf
    index of each root position. Returns (cache axes, cache bodies, copy-out indices)."""
    red = {id(iv) for iv in op.reduce_axis}
    ana = Analyzer()
    ext: Dict[IterVar, Any] = {iv: iv.dom.extent for iv in op.axis}
    rels = [r for r in st.relations if not isinstance(r, Singleton)]
    for r in rels:
        ivs = [r.parent, r.outer, r.inner] if isinstance(r, Split) else [r.outer, r.inner]
        if any(iv.iter_type == IterVarType.CommReduce for iv in ivs):
            raise TVMError(f"cache_write: {op.name} has its reduction axis split or fused; "
                           "only data-parallel axes can be re-laid out (split the reduction "
                           "of the cache stage instead)")
        if isinstance(r, Split):
            n = ext[r.parent]
            f = r.factor if r.factor is not None else \
                _op.floordiv(_op.add(n, r.nparts - 1), r.nparts)
            ext[r.inner] = ana.simplify(_op.convert(f))
            ext[r.outer] = ana.simplify(_op.floordiv(_op.add(n, _op.sub(ext[r.inner], 1)),
                                                     ext[r.inner]))
        else:
            ext[r.fused] = ana.simplify(_op.mul(ext[r.outer], ext[r.inner]))
    singles = {id(r.iter) for r in st.relations if isinstance(r, Singleton)}
    leaves = [iv for iv in st.leaf_iter_vars if id(iv) not in red and id(iv) not in singles]
    new_axis = [IterVar(Range(IntImm(ext[iv].dtype, 0), ext[iv]),
                        Var(iv.var.name + ".c", iv.var.dtype), IterVarType.DataPar)
                for iv in leaves]
    # root index from the new leaf variables (pass up), and the overhang guards
    up: Dict[IterVar, Any] = {iv: nv.var for iv, nv in zip(leaves, new_axis)}
    conds = []
    for r in reversed(rels):
        if isinstance(r, Split):
            up[r.parent] = _op.add(_op.mul(up[r.outer], ext[r.inner]), up[r.inner])
            if not ana.can_prove_equal(_op.mul(ext[r.outer], ext[r.inner]), ext[r.parent]):
                conds.append(_op.lt(up[r.parent], ext[r.parent]))
        else:
            up[r.outer] = _op.floordiv(up[r.fused], ext[r.inner])
            up[r.inner] = _op.floormod(up[r.fused], ext[r.inner])
    vmap = {iv.var: up[iv] for iv in op.axis}
    body = [substitute(b, vmap) for b in op.body]
    if conds:
        cond = _op.all(*conds)
        if isinstance(body[0], Reduce):
            body = [Reduce(b.combiner, b.source, b.axis, _op.logical_and(b.condition, cond),
                           b.value_index, b.init) for b in body]
        else:
            body = [_op.if_then_else(cond, b, _op.const(0, b.dtype)) for b in body]
    # leaf index from the root variables (pass down), for the copy-out
    down: Dict[IterVar, Any] = {iv: iv.var for iv in op.axis}
    for r in rels:
        if isinstance(r, Split):
            down[r.outer] = _op.floordiv(down[r.parent], ext[r.inner])
            down[r.inner] = _op.floormod(down[r.parent], ext[r.inner])
        else:
            down[r.fused] = _op.add(_op.mul(down[r.outer], ext[r.inner]), down[r.inner])
    return new_axis, body, [down[iv] for iv in leaves]


def _sub_graph(outputs: List[Operation], boundary: set, include_boundary: bool
               ) -> List[Operation]:
    """The operations on a path from ``outputs`` down to the ``boundary`` ops, producers
    first (classic ``GetSubGraph``)."""
    visited: Dict[int, bool] = {}
    result: List[Operation] = []

    def visit(op) -> bool:
        if id(op) in visited:
            return visited[id(op)]
        if id(op) in boundary:
            visited[id(op)] = True
            if include_boundary:
                result.append(op)
            return True
        visited[id(op)] = False
        reach = False
        for t in op.input_tensors:
            reach = visit(t.op) or reach
        visited[id(op)] = reach
        if reach:
            result.append(op)
        return reach

    for op in outputs:
        visit(op)
    return result


def _common_group(g1, g2):
    """The innermost group holding both groups (None: the schedule's root)."""
    if g1 is None or g2 is None:
        return None
    for a, b in ((g1, g2), (g2, g1)):
        g = a
        while g is not None:
            if g is b:
                return b
            g = g.group
    return None


def create_schedule(ops) -> Schedule:
    """A default schedule for the output operation(s) ``ops``."""
    return Schedule(ops)


def AutoInlineInjective(sch: Schedule) -> None:  # noqa: N802  (classic name)
    """Inline every non-output stage without a reduction (padding, elementwise chains) that
    the user has not scheduled (split, fused, reordered or attached), as classic TE does."""
    for st in sch.stages:
        if st.is_output or not isinstance(st.op, ComputeOp) or st.op.reduce_axis:
            continue
        if st.attach_type == ROOT and not st._log and st.memory_reader() is None:
            st.compute_inline()


def AutoInlineElemWise(sch: Schedule) -> None:  # noqa: N802
    """Inline every non-output elementwise stage."""
    AutoInlineInjective(sch)


def AutoInlineBroadcast(sch: Schedule) -> None:  # noqa: N802
    """Inline every non-output broadcast (injective) stage."""
    AutoInlineInjective(sch)


def ScheduleOps(sch: Schedule, dom_map=None, debug_keep_trivial_loop: bool = False):  # noqa: N802
    """The scheduled loop nest of ``sch`` (classic ``ScheduleOps``): the root block of the
    TensorIR function its stages materialize to, every placeholder and output a parameter.
    Like classic's outermost realize, its ``body`` is the nest (for one stage, its outermost
    loop). ``dom_map`` (InferBound's result) is accepted for compatibility; the bounds are
    recomputed."""
    body = _materialize(sch, None, None)[0].body
    return body.block if isinstance(body, BlockRealize) else body


def InferBound(sch: Schedule) -> Dict[IterVar, Range]:  # noqa: N802
    """The range of every IterVar of every stage, as classic TE's bound inference gives it
    (attached stages get the region their consumers read under the attach loop)."""
    ranges = _infer_bound(sch)
    return ranges if ranges is not None else _materialize(sch, None, None)[1]


def CreateReadGraph(roots) -> Dict[Operation, List[Tensor]]:  # noqa: N802  (classic name)
    """Each operation ``roots`` depend on, mapped to the tensors it reads."""
    return create_read_graph(list(roots))


def PostDFSOrder(roots, graph=None) -> List[Operation]:  # noqa: N802
    """The operations ``roots`` depend on, inputs before their consumers."""
    return post_dfs_order_of_graph(list(roots), graph)


def ScanGetBody(scan_op: ScanOp) -> List[Operation]:  # noqa: N802
    """The operations of a scan's recurrence, inputs before their consumers."""
    return scan_body(scan_op)


def ScanFixPointAnalysis(scan_op: ScanOp) -> Dict[IterVar, IntImm]:  # noqa: N802
    """1 for each spatial axis of the scan that is a fixed point of its recurrence, else 0."""
    return scan_fix_point_analysis(scan_op)


def CreateAttachPath(sch: Schedule) -> Dict[Operation, List[IterVar]]:  # noqa: N802
    """For each stage, the IterVars of the loops it is computed inside, innermost first
    (classic ``CreateAttachPath``)."""
    out: Dict[Operation, List[IterVar]] = {}
    for stage in sch.stages:
        path: List[IterVar] = []
        seen: List[Stage] = []
        st = stage
        while True:
            if any(st is x for x in seen):
                raise TVMError(f"CreateAttachPath: stage {stage._name} is attached in a cycle")
            seen.append(st)
            spec = attach_spec(st)
            if spec.attach_type == SCOPE:
                ivar, started = spec.attach_ivar, False
            elif spec.attach_type == SCAN_UPDATE:
                ivar, started = None, True
            else:
                break
            st = spec.attach_stage
            for iv in reversed(st.leaf_iter_vars):
                started = started or iv is ivar
                if started:
                    path.append(iv)
            if not started:
                raise TVMError(f"CreateAttachPath: cannot find the attach point "
                               f"{ivar.var.name} among the loops of stage {st._name}")
        out.setdefault(stage.op, path)
    return out


def schedule_to_prim_func(sch: Schedule, args: Sequence[Any], binds=None):
    """The scheduled TensorIR function with parameters ``args``."""
    return _materialize(sch, args, binds)[0]


def _scheduled(sch: Schedule) -> bool:
    return any(st._log or st.iter_var_attrs or attach_spec(st).attach_type == SCOPE
               or st.attach_type != ROOT or st.scope or st.storage_aligns
               or st.store_predicate is not None for st in sch.stages)


def _check_attach_cycles(sch: Schedule) -> None:
    """Classic TE accepts any compute_at and refuses a cycle when lowering."""
    for st in sch.stages:
        if st.attach_type == SCOPE and st.attach_stage is st:
            raise TVMError(f"compute_at: cannot attach stage {st._name} to itself")
        seen, cur = [], attach_spec(st)
        while cur.attach_type == SCOPE:
            if any(cur is x for x in seen):
                names = " -> ".join(x._name for x in seen + [cur])
                raise TVMError(f"compute_at: the stages are attached in a cycle ({names}); a "
                               "stage cannot be computed inside itself")
            seen.append(cur)
            cur = attach_spec(cur.attach_stage)


def _default_binds(sch: Schedule, args, binds: Dict) -> Dict:
    """Classic TE's buffers for arguments without one: a tensor with a variable dimension
    broadcasts (``buffer_type="auto_broadcast"``: a dimension of extent 1 at call time gets
    stride 0), unless a stage is tensorized (classic's "compact" lowering then keeps every
    argument compact)."""
    if any(a.tensor_intrin is not None for st in sch.stages for a in st.iter_var_attrs.values()):
        return binds
    out = dict(binds)
    for a in args:
        if isinstance(a, Tensor) and a not in out and any(
                isinstance(d, Var) for d in a.shape):
            out[a] = decl_buffer(a.shape, a.dtype, a.op.name, buffer_type="auto_broadcast")
    return out


def _materialize(sch: Schedule, args, binds):
    _check_attach_cycles(sch)
    infer_only = args is None
    if infer_only:  # InferBound: every placeholder and output
        states = {id(t.op) for st in sch.stages if isinstance(st.op, ScanOp)
                  for t in st.op.state_placeholder}
        args = [st.op.output(i) for st in sch.stages if isinstance(st.op, PlaceholderOp)
                and id(st.op) not in states for i in range(st.op.num_outputs)]
        args += [o.output(i) for o in sch.outputs for i in range(o.num_outputs)]
    cur_args = [sch._current(a) if isinstance(a, Tensor) else a for a in args]
    cur_binds = {sch._current(t): b for t, b in (binds or {}).items()}
    if not infer_only:
        cur_binds = _default_binds(sch, cur_args, cur_binds)
    cur_binds = cur_binds or None
    outs = [o.output(i) for o in sch.outputs for i in range(o.num_outputs)]
    # Classic TE attaches or inlines a stage whose tensor is also an argument (the
    # schedule_primitives tutorial); the engine only moves non-output blocks, so such a tensor
    # is built as an intermediate and turned back into a parameter once the stages are applied
    # (an inlined one is then never written, as in classic TE).
    attached = {st.op for st in sch.stages
                if attach_spec(st).attach_type in (SCOPE, INLINE) and not st.is_output}
    hidden = [k for k, a in enumerate(cur_args) if isinstance(a, Tensor) and a.op in attached]
    if hidden:
        outs += [cur_args[k] for k in hidden]
        build_args = [a for k, a in enumerate(cur_args) if k not in hidden]
    else:
        build_args = cur_args
    func, info = create_prim_func_with_info(build_args, binds=cur_binds, outputs=outs,
                                            check_vars=not infer_only)
    ranges: Dict[IterVar, Range] = {}
    if not _scheduled(sch):
        for st in sch.stages:
            for iv in st.all_iter_vars:
                if iv.dom is not None:
                    ranges[iv] = iv.dom
        return func, ranges
    func, ranges = apply_stages(sch, func, info)
    if hidden:
        func = _restore_params(func, cur_args, hidden,
                               [info.tensor2buffer[cur_args[k]] for k in hidden])
    return func, ranges


def _restore_params(func, args: Sequence[Any], hidden: Sequence[int], bufs: Sequence) -> Any:
    """Make the root allocations ``bufs`` parameters again, at positions ``hidden`` of
    ``args``."""
    realize = func.body
    root = realize.block
    allocs = tuple(b for b in root.alloc_buffers if not any(b is x for x in bufs))
    body = replace(realize, block=replace(root, alloc_buffers=allocs))
    params, bmap, rest, place = [], {}, iter(func.params), dict(zip(hidden, bufs))
    for k, a in enumerate(args):
        if k in place:
            p = Var("var_" + a.name.replace(".", "_"), "handle")
            bmap[p] = place[k]
        else:
            p = next(rest)
            if p in func.buffer_map:
                bmap[p] = func.buffer_map[p]
        params.append(p)
    return PrimFunc(tuple(params), body, func.ret_type, bmap, func.attrs)


__all__ = ["Schedule", "Stage", "create_schedule", "AutoInlineInjective", "AutoInlineElemWise",
           "AutoInlineBroadcast", "ScheduleOps", "InferBound", "IterVarAttr", "Split", "Fuse",
           "Singleton", "CreateReadGraph", "PostDFSOrder", "ScanGetBody", "ScanFixPointAnalysis",
           "CreateAttachPath"]

# Classic names: ``te.schedule.Buffer`` is the TIR buffer; other classic names raise TVMError.
__getattr__ = _fallback(__name__)
