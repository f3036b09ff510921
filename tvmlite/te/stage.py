"""The classic TE stage model: ``Stage`` (``s[C]``), its IterVar relations (Split, Fuse) and
attributes, attach types. :mod:`.schedule` (the ``Schedule`` facade), :mod:`.materialize` and
:mod:`.rfactor` build on it.
"""
from __future__ import annotations

import functools
from typing import Any, Callable, Dict, List, Optional, Tuple

from ..error import TVMError
from ..ir import dtype as _dt
from ..tir.expr import IntImm, IterVar, IterVarType, PrimExpr, Range, StringImm, Var
from .tensor import ExternOp, HybridOp, Operation, PlaceholderOp, ScanOp

# attach types (classic TE's AttachType; ROOT is kGroupRoot: the root of the stage's group)
ROOT, INLINE, INLINED_ALREADY, SCOPE, SCAN_UPDATE = 1, 2, 3, 4, 5


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


class Singleton(IterVarRelation):
    """The unit IterVar ``fuse()`` of no IterVars creates (a 0-d stage's only loop)."""

    def __init__(self, iter_var):
        self.iter = iter_var

    def __repr__(self):
        return f"Singleton({self.iter.var.name})"


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


def _all_or_nothing(method: Callable) -> Callable:
    """Run a scheduling call of a :class:`Stage` or :class:`Schedule` all-or-nothing: the
    bookkeeping it may change (a Stage method: that stage's IterVars, relations and
    attributes; a Schedule method: every stage and the dataflow) is saved before and restored
    in place when the call raises, as classic TE leaves a schedule unchanged by a refused
    call. The saved state is a shallow copy of a few lists per stage."""
    @functools.wraps(method)
    def run(self, *args, **kwargs):
        stages = [self] if isinstance(self, Stage) else self.stages
        saved = [] if isinstance(self, Stage) else [_fields(self)]
        for st in stages:
            saved.append(_fields(st))
            saved.extend(_fields(a) for a in st.iter_var_attrs.values())
        try:
            result = method(self, *args, **kwargs)
        except BaseException:
            for obj, fields in saved:
                for name, value, contents in fields:
                    if isinstance(value, list):
                        value[:] = contents
                    elif isinstance(value, dict):
                        value.clear()
                        value.update(contents)
                    setattr(obj, name, value)
            raise
        if isinstance(self, Stage) and method.__name__ in _RECORDED:
            sch = self.sch
            if getattr(sch, "_keep_record", False):
                name = method.__name__
                if name == "split" and (len(args) < 2 or args[1] is None) and \
                        kwargs.get("factor") is None:
                    name = "split_by_nparts"
                sch.schedule_record.append(sch.copy())
                sch.primitive_record.append(name)
        return result

    return run


# Stage primitives classic TE records with ``te.keep_schedule_record`` (``tile`` records the
# splits and the reorder it makes).
_RECORDED = frozenset("""set_scope compute_at compute_inline compute_root bind env_threads
    set_store_predicate split fuse reorder vectorize tensorize unroll parallel pragma prefetch
    storage_align double_buffer rolling_buffer transform_layout set_axis_separators""".split())


def _fields(obj) -> tuple:
    """``obj`` with its attributes and a copy of the contents of those that are lists or
    dicts (restored in place, so that references the user holds stay right)."""
    return obj, [(k, v, list(v) if isinstance(v, list) else dict(v) if isinstance(v, dict)
                  else None) for k, v in vars(obj).items()]


class Stage:
    """The schedule of one operation (``s[C]``)."""

    def __init__(self, op: Operation, sch):  # sch: the te.Schedule that owns the stage
        self.op = op
        self.origin_op = op
        self.sch = sch
        if isinstance(op, ScanOp):
            root = [op.scan_axis] + list(op.spatial_axis_)
        else:
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
        self.store_predicate: Optional[PrimExpr] = None
        self._log: List[tuple] = []  # structural calls in order, replayed on the engine
        self.group: Optional[Stage] = None  # the group stage this stage belongs to
        self.num_child_stages = 0  # for a group stage (``op`` None): its direct members

    def __repr__(self):
        if self.op is None:
            return f"group_stage({self.num_child_stages} children)"
        return f"stage({self.op.name}, {type(self.op).__name__})"

    @property
    def _name(self) -> str:
        return self.op.name if self.op is not None else "group"

    # ------------------------------------------------------------------ helpers
    def _leaf_index(self, iv, prim: str) -> int:
        if not isinstance(iv, IterVar):
            raise TVMError(f"{prim}: expected an IterVar of stage {self.op.name}, got {iv!r}")
        if isinstance(self.op, HybridOp):
            raise TVMError(f"{prim}: tvmlite does not schedule the loops of hybrid script "
                           f"{self.op.name}; annotate them in the script instead (parallel, "
                           "vectorize, unroll, bind)")
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
    @_all_or_nothing
    def split(self, parent: IterVar, factor=None, nparts=None) -> Tuple[IterVar, IterVar]:
        """Split ``parent`` into ``(outer, inner)``; ``inner`` has extent ``factor`` (or
        ``outer`` has extent ``nparts``). A non-divisible split guards the tail."""
        i = self._leaf_index(parent, "split")
        if (factor is None) == (nparts is None):
            raise TVMError("split: give exactly one of factor and nparts")
        what = "factor" if factor is not None else "nparts"
        given = factor if factor is not None else nparts
        if isinstance(given, PrimExpr) and not isinstance(given, IntImm):
            # classic TE splits by a symbolic factor too (the loop count becomes a ceildiv)
            if not _dt.is_integral(given.dtype) or _dt.is_bool(given.dtype):
                raise TVMError(f"split {what} must be an integer expression, got {given!r}")
            n = given
        else:
            n = _check_int(given, f"split {what}")
            if n <= 0:
                raise TVMError(f"split: {what} must be positive, got {n}")
        name = parent.var.name
        outer = self._new_iv(name + ".outer", parent)
        inner = self._new_iv(name + ".inner", parent)
        self.leaf_iter_vars[i:i + 1] = [outer, inner]
        self.all_iter_vars += [outer, inner]
        fac, npt = (n, None) if factor is not None else (None, n)
        self.relations.append(Split(parent, outer, inner, fac, npt))
        self._log.append(("split", parent, outer, inner, fac, npt))
        return outer, inner

    @_all_or_nothing
    def fuse(self, *args) -> IterVar:
        """Fuse consecutive leaf IterVars into one (``x.y.fused``)."""
        if len(args) == 1 and isinstance(args[0], (list, tuple)):
            args = tuple(args[0])
        if not args:  # classic: a unit IterVar (what a 0-d stage can be scheduled by)
            iv = IterVar(Range(IntImm("int32", 0), IntImm("int32", 1)), Var("singleton", "int32"),
                         IterVarType.DataPar)
            self.relations.append(Singleton(iv))
            self.all_iter_vars.append(iv)
            self.leaf_iter_vars.insert(0, iv)
            return iv
        fused = args[0]
        self._leaf_index(fused, "fuse")
        for nxt in args[1:]:
            i, j = self._leaf_index(fused, "fuse"), self._leaf_index(nxt, "fuse")
            if j != i + 1:
                raise TVMError(f"fuse: can only fuse IterVars that are consecutive in the loop "
                               f"order; {fused.var.name} and {nxt.var.name} are not")
            # as in classic TE, fusing a data-parallel with a reduction IterVar gives a
            # reduction IterVar (the output is initialised where the reduction part is 0)
            like = nxt if nxt.iter_type == IterVarType.CommReduce else fused
            new = self._new_iv(f"{fused.var.name}.{nxt.var.name}.fused", like)
            self.leaf_iter_vars[i:i + 2] = [new]
            self.all_iter_vars.append(new)
            self.relations.append(Fuse(fused, nxt, new))
            self._log.append(("fuse", fused, nxt, new))
            fused = new
        return fused

    @_all_or_nothing
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

    @_all_or_nothing
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

    @_all_or_nothing
    def parallel(self, var: IterVar) -> None:
        """Run the loop in parallel (OpenMP on CPU)."""
        self._set_type(var, IterVarType.Parallelized, "parallel")

    @_all_or_nothing
    def vectorize(self, var: IterVar) -> None:
        """Vectorize the loop (a loop that cannot be vectorized stays a serial ``_s`` loop).

        As in classic TE, a reduction axis (or a part of one) cannot be vectorized."""
        if isinstance(var, IterVar) and var.iter_type == IterVarType.CommReduce:
            raise TVMError(f"vectorize: cannot vectorize on the reduction axis {var.var.name} "
                           f"of stage {self.op.name}")
        self._set_type(var, IterVarType.Vectorized, "vectorize")

    @_all_or_nothing
    def unroll(self, var: IterVar) -> None:
        """Unroll the loop fully."""
        self._set_type(var, IterVarType.Unrolled, "unroll")

    @_all_or_nothing
    def bind(self, ivar: IterVar, thread_ivar: IterVar) -> None:
        """Bind the loop to a GPU thread axis (``te.thread_axis("threadIdx.x")``)."""
        self._leaf_index(ivar, "bind")
        if not isinstance(thread_ivar, IterVar) or not thread_ivar.thread_tag:
            raise TVMError("bind: the second argument must be a te.thread_axis")
        tag = thread_ivar.thread_tag
        for other, attr in self.iter_var_attrs.items():
            if other is not ivar and attr.bind_thread is not None and not tag.startswith(
                    ("vthread", "cthread")) and attr.bind_thread.thread_tag == tag and any(
                    other is x for x in self.leaf_iter_vars):
                raise TVMError(f"bind: stage {self.op.name} binds {tag} twice, to "
                               f"{other.var.name} and {ivar.var.name}")
        a = self._attr(ivar)
        a.iter_type = IterVarType.ThreadIndex
        a.bind_thread = thread_ivar

    @_all_or_nothing
    def pragma(self, var: IterVar, pragma_type: str, pragma_value=None) -> None:
        """Attach a pragma (``auto_unroll_max_step``, ``unroll_explicit``, …) to the loop;
        as in classic TE, ``"vectorize"``/``"unroll"``/``"parallel"`` set the loop's kind.
        Keys are kept as ``StringImm`` (``iter_var_attrs[iv].pragma_keys[0].value``)."""
        kinds = {"vectorize": self.vectorize, "unroll": self.unroll, "parallel": self.parallel}
        if pragma_type in kinds:
            kinds[pragma_type](var)
            return
        self._leaf_index(var, "pragma")
        a = self._attr(var)
        keys = [k.value for k in a.pragma_keys]
        if pragma_type in keys:
            a.pragma_values[keys.index(pragma_type)] = pragma_value
        else:
            a.pragma_keys.append(StringImm(pragma_type))
            a.pragma_values.append(pragma_value)

    @_all_or_nothing
    def prefetch(self, tensor, var, offset) -> None:
        self._leaf_index(var, "prefetch")  # a hint; the C backend ignores it

    @_all_or_nothing
    def storage_align(self, axis: IterVar, factor: int, offset: int) -> None:
        """Pad the stride of ``axis``'s dimension so ``stride % factor == offset``."""
        if not any(axis is x for x in getattr(self.op, "axis", ())):
            raise TVMError(f"storage_align: {axis!r} is not a root axis of {self.op.name}")
        self.storage_aligns.append((axis, _check_int(factor, "factor"),
                                    _check_int(offset, "offset")))

    @_all_or_nothing
    def set_store_predicate(self, predicate) -> None:
        """Store this stage's output only where ``predicate`` holds (elements elsewhere keep
        what the buffer held). The predicate may use the stage's IterVars and the thread axes
        it binds; a reduction's store predicate may not use a serial reduction IterVar.

        Parameters
        ----------
        predicate : PrimExpr
            A boolean expression, e.g. ``tx.var.equal(0)``.
        """
        if isinstance(predicate, bool):
            predicate = IntImm("bool", int(predicate))
        if not isinstance(predicate, PrimExpr) or not _dt.is_bool(predicate.dtype):
            raise TVMError(f"set_store_predicate: stage {self.op.name} needs a boolean "
                           f"expression, got {predicate!r}")
        self.store_predicate = predicate

    @_all_or_nothing
    def double_buffer(self) -> None:
        self.double_buffered = True

    @_all_or_nothing
    def set_scope(self, scope: str) -> None:
        """Store this stage's output in ``scope`` ("global", "shared", "local" …)."""
        self.scope = scope

    # ------------------------------------------------------------------ attachment
    @_all_or_nothing
    def compute_at(self, parent: "Stage", scope: IterVar) -> None:
        """Compute this stage inside ``parent``'s loop ``scope``."""
        if not isinstance(parent, Stage):
            raise TVMError("compute_at: the first argument must be a Stage, e.g. s[C]")
        if isinstance(self.op, PlaceholderOp):
            raise TVMError(f"compute_at: cannot attach placeholder {self.op.name}")
        # attaching a stage to itself is refused when lowering, as classic TE does
        if not any(scope is x for x in parent.all_iter_vars):
            raise TVMError(f"compute_at: {getattr(scope, 'var', scope)!r} is not an IterVar of "
                           f"stage {parent._name}")
        if self.group is not None:
            pg = parent.group
            while pg is not None and pg is not self.group:
                pg = pg.group
            if pg is not self.group:
                raise TVMError(f"compute_at of {self._name} at {parent._name}: Can only assign "
                               "compute_at to stages within the same group")
        self.attach_type, self.attach_stage, self.attach_ivar = SCOPE, parent, scope

    @_all_or_nothing
    def compute_inline(self) -> None:
        """Inline this stage into its consumers."""
        if isinstance(self.op, PlaceholderOp):
            raise TVMError(f"compute_inline: cannot inline placeholder {self.op.name}")
        if self.op is None:
            raise TVMError("tvmlite does not implement compute_inline of a stage group")
        reader = self.memory_reader()
        if reader is not None:
            raise TVMError(f"compute_inline: cannot inline {self.op.name}: {reader.name} "
                           f"({type(reader).__name__}) reads it from memory")
        self.attach_type = INLINE
        self.attach_stage = self.attach_ivar = None

    def memory_reader(self) -> Optional[Operation]:
        """A consumer of this stage that reads its buffer rather than its expression (an
        extern or hybrid op), or None."""
        for st in self.sch.stages:
            if isinstance(st.op, ExternOp) and any(t.op is self.op for t in st.op.inputs):
                return st.op
        return None

    @_all_or_nothing
    def compute_root(self) -> None:
        """Compute this stage at the root (undo compute_at/compute_inline)."""
        self.attach_type = ROOT
        self.attach_stage = self.attach_ivar = None

    @_all_or_nothing
    def tensorize(self, var: IterVar, tensor_intrin) -> None:
        self._leaf_index(var, "tensorize")
        a = self._attr(var)
        a.iter_type = IterVarType.Tensorized
        a.tensor_intrin = tensor_intrin


def attach_spec(stage: Stage) -> Stage:
    """The stage whose attachment ``stage`` follows: a stage at the root of its group attaches
    where the group does (classic ``GetAttachSpec``)."""
    s = stage
    while s.attach_type == ROOT and s.group is not None:
        s = s.group
    return s


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
