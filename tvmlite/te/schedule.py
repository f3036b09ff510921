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

from typing import Any, Dict, List, Optional, Sequence, Tuple

from ..error import TVMError
from ..tir.expr import IntImm, IterVar, IterVarType, ProducerLoad, Range, Var
from ..tir.functor import Mutator, substitute
from .tensor import ComputeOp, ExternOp, Operation, PlaceholderOp, Tensor

# attach types (classic TE's AttachType)
ROOT, INLINE, INLINED_ALREADY, SCOPE = 1, 2, 3, 4


class IterVarRelation:
    """Base of the relations between a stage's IterVars."""


class Split(IterVarRelation):
    def __init__(self, parent, outer, inner, factor, nparts):
        self.parent, self.outer, self.inner = parent, outer, inner
        self.factor, self.nparts = factor, nparts

    def __repr__(self):
        return f"Split({self.parent.var.name} -> {self.outer.var.name}, {self.inner.var.name})"


class Fuse(IterVarRelation):
    def __init__(self, outer, inner, fused):
        self.outer, self.inner, self.fused = outer, inner, fused

    def __repr__(self):
        return f"Fuse({self.outer.var.name}, {self.inner.var.name} -> {self.fused.var.name})"


class IterVarAttr:
    """What the schedule says about one IterVar (``stage.iter_var_attrs[iv]``)."""

    def __init__(self):
        self.iter_type: int = IterVarType.DataPar
        self.bind_thread: Optional[IterVar] = None
        self.pragma_keys: List[str] = []
        self.pragma_values: List[Any] = []
        self.tensor_intrin = None

    def __repr__(self):
        return f"IterVarAttr(iter_type={self.iter_type}, bind_thread={self.bind_thread})"


def _check_int(x, what: str) -> int:
    if isinstance(x, IntImm):
        return x.value
    if isinstance(x, bool) or not isinstance(x, int):
        raise TVMError(f"{what} must be a constant integer, got {x!r}")
    return x


class Stage:
    """The schedule of one operation (``s[C]``)."""

    def __init__(self, op: Operation, sch: "Schedule"):
        self.op = op
        self.origin_op = op
        self.sch = sch
        root = list(getattr(op, "axis", ())) + list(getattr(op, "reduce_axis", ()))
        self.all_iter_vars: List[IterVar] = list(root)
        self.leaf_iter_vars: List[IterVar] = list(root)
        self.relations: List[IterVarRelation] = []
        self.iter_var_attrs: Dict[IterVar, IterVarAttr] = {}
        self.attach_type = ROOT
        self.attach_ivar: Optional[IterVar] = None
        self.attach_stage: Optional[Stage] = None
        self.scope = ""
        self.is_output = False
        self.double_buffered = False
        self.storage_aligns: List[Tuple[IterVar, int, int]] = []
        self._log: List[tuple] = []  # structural calls in order, replayed on the engine

    def __repr__(self):
        return f"stage({self.op.name}, {type(self.op).__name__})"

    # ------------------------------------------------------------------ helpers
    def _leaf_index(self, iv, prim: str) -> int:
        if not isinstance(iv, IterVar):
            raise TVMError(f"{prim}: expected an IterVar of stage {self.op.name}, got {iv!r}")
        for i, x in enumerate(self.leaf_iter_vars):
            if x is iv:
                return i
        known = any(x is iv for x in self.all_iter_vars)
        why = "it has already been split or fused" if known else "it is not an axis of this stage"
        raise TVMError(f"{prim}: cannot find IterVar {iv.var.name} in the leaf IterVars of stage "
                       f"{self.op.name} ({why})")

    def _attr(self, iv) -> IterVarAttr:
        a = self.iter_var_attrs.get(iv)
        if a is None:
            a = self.iter_var_attrs[iv] = IterVarAttr()
        return a

    def _new_iv(self, name: str, like: IterVar) -> IterVar:
        return IterVar(None, Var(name, like.var.dtype), like.iter_type, like.thread_tag)

    # ------------------------------------------------------------------ loop structure
    def split(self, parent: IterVar, factor=None, nparts=None) -> Tuple[IterVar, IterVar]:
        """Split ``parent`` into ``(outer, inner)``; ``inner`` has extent ``factor`` (or
        ``outer`` has extent ``nparts``). A non-divisible split guards the tail."""
        i = self._leaf_index(parent, "split")
        if (factor is None) == (nparts is None):
            raise TVMError("split: give exactly one of factor and nparts")
        n = _check_int(factor if factor is not None else nparts,
                       "split factor" if factor is not None else "split nparts")
        if n <= 0:
            raise TVMError(f"split: {'factor' if factor is not None else 'nparts'} must be "
                           f"positive, got {n}")
        name = parent.var.name
        outer = self._new_iv(name + ".outer", parent)
        inner = self._new_iv(name + ".inner", parent)
        self.leaf_iter_vars[i:i + 1] = [outer, inner]
        self.all_iter_vars += [outer, inner]
        self.relations.append(Split(parent, outer, inner, factor and n, nparts and n))
        self._log.append(("split", parent, outer, inner, factor and n, nparts and n))
        return outer, inner

    def fuse(self, *args) -> IterVar:
        """Fuse consecutive leaf IterVars into one (``x.y.fused``)."""
        if len(args) == 1 and isinstance(args[0], (list, tuple)):
            args = tuple(args[0])
        if not args:
            raise TVMError("fuse: needs at least one IterVar")
        fused = args[0]
        self._leaf_index(fused, "fuse")
        for nxt in args[1:]:
            i, j = self._leaf_index(fused, "fuse"), self._leaf_index(nxt, "fuse")
            if j != i + 1:
                raise TVMError(f"fuse: can only fuse IterVars that are consecutive in the loop "
                               f"order; {fused.var.name} and {nxt.var.name} are not")
            red = [x.iter_type == IterVarType.CommReduce for x in (fused, nxt)]
            if red[0] != red[1]:
                raise TVMError(f"fuse: cannot fuse data-parallel and reduction IterVars "
                               f"({fused.var.name}, {nxt.var.name})")
            new = self._new_iv(f"{fused.var.name}.{nxt.var.name}.fused", fused)
            self.leaf_iter_vars[i:i + 2] = [new]
            self.all_iter_vars.append(new)
            self.relations.append(Fuse(fused, nxt, new))
            self._log.append(("fuse", fused, nxt, new))
            fused = new
        return fused

    def reorder(self, *args) -> None:
        """Put the given leaf IterVars in this order (the others keep their places)."""
        if len(args) == 1 and isinstance(args[0], (list, tuple)):
            args = tuple(args[0])
        idx = [self._leaf_index(a, "reorder") for a in args]
        if len(set(idx)) != len(idx):
            raise TVMError("reorder: an IterVar appears twice")
        for pos, a in zip(sorted(idx), args):
            self.leaf_iter_vars[pos] = a
        self._log.append(("reorder", tuple(args)))

    def tile(self, x_parent, y_parent, x_factor, y_factor):
        """Tile two axes: returns ``(x_outer, y_outer, x_inner, y_inner)``."""
        xo, xi = self.split(x_parent, factor=x_factor)
        yo, yi = self.split(y_parent, factor=y_factor)
        self.reorder(xo, yo, xi, yi)
        return xo, yo, xi, yi

    # ------------------------------------------------------------------ annotations
    def _set_type(self, iv, t: int, prim: str):
        self._leaf_index(iv, prim)
        self._attr(iv).iter_type = t  # the last annotation wins

    def parallel(self, var: IterVar) -> None:
        """Run the loop in parallel (OpenMP on CPU)."""
        self._set_type(var, IterVarType.Parallelized, "parallel")

    def vectorize(self, var: IterVar) -> None:
        """Vectorize the loop (a loop that cannot be vectorized stays a serial ``_s`` loop)."""
        self._set_type(var, IterVarType.Vectorized, "vectorize")

    def unroll(self, var: IterVar) -> None:
        """Unroll the loop fully."""
        self._set_type(var, IterVarType.Unrolled, "unroll")

    def bind(self, ivar: IterVar, thread_ivar: IterVar) -> None:
        """Bind the loop to a GPU thread axis (``te.thread_axis("threadIdx.x")``)."""
        self._leaf_index(ivar, "bind")
        if not isinstance(thread_ivar, IterVar) or not thread_ivar.thread_tag:
            raise TVMError("bind: the second argument must be a te.thread_axis")
        a = self._attr(ivar)
        a.iter_type = IterVarType.ThreadIndex
        a.bind_thread = thread_ivar

    def pragma(self, var: IterVar, pragma_type: str, pragma_value=None) -> None:
        """Attach a pragma (``auto_unroll_max_step``, ``unroll_explicit``, …) to the loop."""
        self._leaf_index(var, "pragma")
        a = self._attr(var)
        if pragma_type in a.pragma_keys:
            a.pragma_values[a.pragma_keys.index(pragma_type)] = pragma_value
        else:
            a.pragma_keys.append(pragma_type)
            a.pragma_values.append(pragma_value)

    def prefetch(self, tensor, var, offset) -> None:
        self._leaf_index(var, "prefetch")  # a hint; the C backend ignores it

    def storage_align(self, axis: IterVar, factor: int, offset: int) -> None:
        """Pad the stride of ``axis``'s dimension so ``stride % factor == offset``."""
        if not any(axis is x for x in getattr(self.op, "axis", ())):
            raise TVMError(f"storage_align: {axis!r} is not a root axis of {self.op.name}")
        self.storage_aligns.append((axis, _check_int(factor, "factor"),
                                    _check_int(offset, "offset")))

    def double_buffer(self) -> None:
        self.double_buffered = True

    def set_scope(self, scope: str) -> None:
        """Store this stage's output in ``scope`` ("global", "shared", "local" …)."""
        self.scope = scope

    # ------------------------------------------------------------------ attachment
    def compute_at(self, parent: "Stage", scope: IterVar) -> None:
        """Compute this stage inside ``parent``'s loop ``scope``."""
        if not isinstance(parent, Stage):
            raise TVMError("compute_at: the first argument must be a Stage, e.g. s[C]")
        if isinstance(self.op, PlaceholderOp):
            raise TVMError(f"compute_at: cannot attach placeholder {self.op.name}")
        if parent is self:
            raise TVMError(f"compute_at: cannot attach stage {self.op.name} to itself")
        if not any(scope is x for x in parent.all_iter_vars):
            raise TVMError(f"compute_at: {getattr(scope, 'var', scope)!r} is not an IterVar of "
                           f"stage {parent.op.name}")
        self.attach_type, self.attach_stage, self.attach_ivar = SCOPE, parent, scope

    def compute_inline(self) -> None:
        """Inline this stage into its consumers."""
        if isinstance(self.op, PlaceholderOp):
            raise TVMError(f"compute_inline: cannot inline placeholder {self.op.name}")
        self.attach_type = INLINE
        self.attach_stage = self.attach_ivar = None

    def compute_root(self) -> None:
        """Compute this stage at the root (undo compute_at/compute_inline)."""
        self.attach_type = ROOT
        self.attach_stage = self.attach_ivar = None

    def tensorize(self, var: IterVar, tensor_intrin) -> None:
        self._leaf_index(var, "tensorize")
        a = self._attr(var)
        a.iter_type = IterVarType.Tensorized
        a.tensor_intrin = tensor_intrin


class _Rebind(Mutator):
    """Replace ProducerLoads of some tensors by loads of others."""

    def __init__(self, vmap: Dict[Tensor, Tensor]):
        self.vmap = vmap

    def visit_ProducerLoad(self, e):
        idx = self.visit(e.indices)
        t = self.vmap.get(e.producer, e.producer)
        return e if (t is e.producer and idx is e.indices) else ProducerLoad(t, idx)


def _replace_inputs(op: Operation, vmap: Dict[Tensor, Tensor]) -> Operation:
    if isinstance(op, ComputeOp):
        body = _Rebind(vmap).visit(op.body)
        if body is op.body:
            return op
        return ComputeOp(op.name, op.tag, op.attrs, op.axis, body)
    if isinstance(op, ExternOp):
        if not any(t in vmap for t in op.inputs):
            return op
        return ExternOp(op.name, op.tag, op.attrs, [vmap.get(t, t) for t in op.inputs],
                        op.input_placeholders, op.output_placeholders, op.body)
    return op


def _post_order(ops: Sequence[Operation]) -> List[Operation]:
    order, seen = [], set()

    def visit(op):
        if id(op) in seen:
            return
        seen.add(id(op))
        for t in op.input_tensors:
            visit(t.op)
        order.append(op)

    for o in ops:
        visit(o)
    return order


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
        for op in _post_order(self.outputs):
            st = Stage(op, self)
            st.is_output = any(op is o for o in self.outputs)
            self.stages.append(st)
            self.stage_map[op] = st

    def __getitem__(self, k) -> Stage:
        op = k.op if isinstance(k, Tensor) else k
        st = self.stage_map.get(op)
        if st is None:
            name = getattr(op, "name", op)
            raise TVMError(f"Cannot find Stage for operator {name} in the schedule")
        return st

    def __repr__(self):
        return "schedule(" + ", ".join(s.op.name for s in self.stages) + ")"

    def create_group(self, outputs, inputs, include_inputs: bool = False):
        """Classic stage groups; tvmlite does not implement them (raises ``TVMError``)."""
        from .._classic import unsupported

        raise unsupported("te.Schedule.create_group (stage groups)")

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

    def cache_read(self, tensor: Tensor, scope: str, readers) -> Tensor:
        """A cache of ``tensor`` in ``scope`` read by ``readers`` instead of ``tensor``."""
        from .operation import compute

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

    def cache_write(self, tensor, scope: str):
        """Compute ``tensor`` into a cache in ``scope``; ``s[tensor]`` becomes the copy-out."""
        tensors = list(tensor) if isinstance(tensor, (list, tuple)) else [tensor]
        st = self[tensors[0]]
        op = st.op
        if not isinstance(op, ComputeOp):
            raise TVMError(f"cache_write: {op.name} is not a compute operation")
        if st.relations or st.attach_type != ROOT or st.iter_var_attrs:
            raise TVMError(f"cache_write: schedule {op.name} after cache_write, not before "
                           "(tvmlite does not re-layout an already scheduled stage)")
        new_axis = [IterVar(iv.dom, Var(iv.var.name + ".c", iv.var.dtype), iv.iter_type)
                    for iv in op.axis]
        vmap = {iv.var: nv.var for iv, nv in zip(op.axis, new_axis)}
        body = [substitute(b, vmap) for b in op.body]
        cache_op = ComputeOp(f"{op.name}.{scope}", op.tag, op.attrs, new_axis, body)
        idx = [iv.var for iv in op.axis]
        copy = ComputeOp(op.name, op.tag, op.attrs, op.axis,
                         [cache_op.output(i)(*idx) for i in range(op.num_outputs)])
        pos = next(i for i, s in enumerate(self.stages) if s is st)
        cst = Stage(cache_op, self)
        cst.scope = scope
        self.stages.insert(pos, cst)
        self.stage_map[cache_op] = cst
        old_outs = [op.output(i) for i in range(op.num_outputs)]
        self._set_op(st, copy)
        st.all_iter_vars = list(op.axis)
        st.leaf_iter_vars = list(op.axis)
        self._replace_dataflow({o: copy.output(i) for i, o in enumerate(old_outs)}, pos + 2)
        outs = [cache_op.output(i) for i in range(cache_op.num_outputs)]
        return outs[0] if len(outs) == 1 else outs

    def rfactor(self, tensor: Tensor, axis: IterVar, factor_axis: int = 0):
        """Factor a reduction over ``axis`` into a partial-result tensor (classic rfactor)."""
        from .rfactor import rfactor

        return rfactor(self, tensor, axis, factor_axis)


def create_schedule(ops) -> Schedule:
    """A default schedule for the output operation(s) ``ops``."""
    return Schedule(ops)


def AutoInlineInjective(sch: Schedule) -> None:  # noqa: N802  (classic name)
    """Inline every non-output stage without a reduction (padding, elementwise chains) that
    the user has not scheduled (split, fused, reordered or attached), as classic TE does."""
    for st in sch.stages:
        if st.is_output or not isinstance(st.op, ComputeOp) or st.op.reduce_axis:
            continue
        if st.attach_type == ROOT and not st._log:
            st.compute_inline()


def AutoInlineElemWise(sch: Schedule) -> None:  # noqa: N802
    """Inline every non-output elementwise stage."""
    AutoInlineInjective(sch)


def InferBound(sch: Schedule) -> Dict[IterVar, Range]:  # noqa: N802
    """The range of every IterVar of every stage, as lowering will realise it."""
    return _materialize(sch, None, None)[1]


def schedule_to_prim_func(sch: Schedule, args: Sequence[Any], binds=None):
    """The scheduled TensorIR function with parameters ``args``."""
    return _materialize(sch, args, binds)[0]


def _resolve_leaf(stage: Stage, iv: IterVar) -> IterVar:
    """Follow an attach IterVar through later splits (→ inner) and fuses (→ fused)."""
    while not any(iv is x for x in stage.leaf_iter_vars):
        nxt = None
        for r in stage.relations:
            if isinstance(r, Split) and r.parent is iv:
                nxt = r.inner
            elif isinstance(r, Fuse) and (r.outer is iv or r.inner is iv):
                nxt = r.fused
        if nxt is None:
            raise TVMError(f"compute_at: IterVar {iv.var.name} is no loop of {stage.op.name}")
        iv = nxt
    return iv


def _scheduled(sch: Schedule) -> bool:
    return any(st._log or st.iter_var_attrs or st.attach_type != ROOT or st.scope
               or st.storage_aligns for st in sch.stages)


def _materialize(sch: Schedule, args, binds):
    from .create_prim_func import create_prim_func_with_info

    if args is None:  # InferBound: every placeholder and output
        args = [st.op.output(i) for st in sch.stages if isinstance(st.op, PlaceholderOp)
                for i in range(st.op.num_outputs)]
        args += [o.output(i) for o in sch.outputs for i in range(o.num_outputs)]
    cur_args = [sch._current(a) if isinstance(a, Tensor) else a for a in args]
    cur_binds = {sch._current(t): b for t, b in (binds or {}).items()} or None
    outs = [o.output(i) for o in sch.outputs for i in range(o.num_outputs)]
    func, info = create_prim_func_with_info(cur_args, binds=cur_binds, outputs=outs)
    ranges: Dict[IterVar, Range] = {}
    if not _scheduled(sch):
        for st in sch.stages:
            for iv in st.all_iter_vars:
                if iv.dom is not None:
                    ranges[iv] = iv.dom
        return func, ranges
    from .materialize import apply_stages

    return apply_stages(sch, func, info)


__all__ = ["Schedule", "Stage", "create_schedule", "AutoInlineInjective", "AutoInlineElemWise",
           "InferBound", "IterVarAttr", "Split", "Fuse"]

# Classic names: ``te.schedule.Buffer`` is the TIR buffer; other classic names raise TVMError.
from .._classic import fallback as _fallback  # noqa: E402
from ..tir.buffer import Buffer  # noqa: E402,F401

__getattr__ = _fallback(__name__)
