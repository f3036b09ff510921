"""TE to TensorIR: turn a graph of TE operations into a ``PrimFunc`` with blocks.

Each compute op becomes one loop nest holding one block (named after the op); its spatial
axes become data-parallel block iterators ``v_<axis>`` and its reduce axes reduction
iterators, bound to fresh loop variables named like the axes. Intermediate tensors are
allocated by the root block; extern ops become opaque blocks.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from ..arith import Analyzer
from ..error import TVMError
from ..ir import dtype as _dt
from ..tir import op as _op
from ..tir.analysis import block_access_regions
from ..tir.buffer import Buffer, decl_buffer
from ..tir.expr import (
    EQ,
    GE,
    GT,
    LE,
    LT,
    NE,
    Add,
    And,
    BufferLoad,
    Call,
    Div,
    FloorDiv,
    FloorMod,
    IntImm,
    IterVar,
    IterVarType,
    Max,
    Min,
    Mod,
    Mul,
    Or,
    PrimExpr,
    ProducerLoad,
    Range,
    Reduce,
    Sub,
    Var,
)
from ..tir.function import PrimFunc
from ..tir.functor import Mutator, Visitor, collect_vars, substitute
from ..tir.schedule.blockize_tensorize import Binding, _BindImpl
from ..tir.stmt import (
    Block,
    BlockRealize,
    BufferRegion,
    BufferStore,
    For,
    ForKind,
    IfThenElse,
    LetStmt,
    SeqStmt,
    Stmt,
)
from .graph import post_dfs_order, scan_body
from .tensor import (
    ComputeOp,
    ExternOp,
    Operation,
    PlaceholderOp,
    ScanOp,
    Tensor,
    TensorComputeOp,
)


@dataclass
class CreateInfo:
    """What the TE schedule facade needs to find TE objects in the generated PrimFunc.

    Attributes
    ----------
    tensor2buffer : the Buffer of every tensor (arguments and intermediates).
    op2block : the (unique) block name of every compute/extern op.
    iter_var_map : for each compute-op IterVar (spatial and reduce), the block iterator and
        the loop variable that replace it.
    ops : the ops in the order their loop nests appear (placeholders included).
    """

    tensor2buffer: Dict[Tensor, Buffer] = field(default_factory=dict)
    op2block: Dict[Operation, str] = field(default_factory=dict)
    iter_var_map: Dict[IterVar, Tuple[IterVar, Var]] = field(default_factory=dict)
    ops: List[Operation] = field(default_factory=list)


# ---------------------------------------------------------------------------- rewriting
class _ToBufferLoads(Mutator):
    """ProducerLoad -> BufferLoad, and op axes -> block iterators."""

    def __init__(self, tensor2buffer: Dict[Tensor, Buffer], vmap: Dict[Var, PrimExpr],
                 retype: bool = False):
        self.tensor2buffer = tensor2buffer
        self.vmap = vmap
        self.retype = retype

    def convert(self, e: PrimExpr) -> PrimExpr:
        e = self.visit(e)
        return _Retype().visit(e) if self.retype else e

    def visit_Var(self, v):
        return self.vmap.get(v, v)

    visit_SizeVar = visit_Var

    def visit_ProducerLoad(self, e: ProducerLoad):
        idx = self.visit(e.indices)
        buf = self.tensor2buffer.get(e.producer)
        if buf is None:
            raise TVMError(f"tensor {e.producer.name} has no buffer (internal error)")
        return BufferLoad(buf, idx)


class _BufferRemap(Mutator):
    """Replace Buffer objects (extern bodies use the op's own placeholder buffers)."""

    def __init__(self, bmap: Dict[Buffer, Buffer], tensor2buffer: Dict[Tensor, Buffer]):
        self.bmap = dict(bmap)
        self.tensor2buffer = tensor2buffer
        # views of a placeholder the body declared itself (``ib.buffer_ptr``: a flat buffer
        # over the placeholder's data) follow it to the buffer that replaces it
        self.data = {ph.data: b.data for ph, b in bmap.items() if ph.data is not b.data}

    def visit_Buffer(self, b):
        if b not in self.bmap and b.data in self.data:
            self.bmap[b] = dataclasses.replace(b, data=self.data[b.data])
        return self.bmap.get(b, b)

    def visit_Var(self, v):
        return self.data.get(v, v)

    def visit_ProducerLoad(self, e: ProducerLoad):
        return BufferLoad(self.tensor2buffer[e.producer], self.visit(e.indices))


class _Retype(Mutator):
    """Rebuild arithmetic whose operands no longer share a dtype (int32 expressions meeting
    int64 iterators after ``index_dtype_override``), with TVM's promotion rules."""

    def _binary(self, e):
        a, b = self.visit(e.a), self.visit(e.b)
        if a is e.a and b is e.b and a.dtype == b.dtype:
            return e
        if a.dtype == b.dtype:
            return type(e)(a, b)
        return _REBUILD[type(e)](a, b)

    def visit_Call(self, e):
        new = self.generic(e)
        if new.op == "if_then_else" and new.args[1].dtype != new.args[2].dtype:
            return _op.if_then_else(*new.args)
        if new.op == "if_then_else" and new.args[1].dtype != new.dtype:
            return Call(new.args[1].dtype, new.op, new.args)
        return new


_REBUILD = {
    Add: _op.add, Sub: _op.sub, Mul: _op.mul, Div: _op.div, Mod: _op.truncmod,
    FloorDiv: _op.floordiv, FloorMod: _op.floormod, Min: _op._min, Max: _op._max,
    EQ: _op.eq, NE: _op.ne, LT: _op.lt, LE: _op.le, GT: _op.gt, GE: _op.ge,
    And: _op.logical_and, Or: _op.logical_or,
}
for _cls in _REBUILD:
    setattr(_Retype, "visit_" + _cls.__name__, _Retype._binary)


def _full_region(buf: Buffer) -> BufferRegion:
    return BufferRegion.full_region(buf)


# ---------------------------------------------------------------------------- main
class _Builder:
    def __init__(self, args, binds, index_dtype, outputs=()):
        self.args = args
        self.outputs = [t for t in outputs if isinstance(t, Tensor)]
        self.index_dtype = index_dtype
        self.info = CreateInfo()
        self.t2b: Dict[Tensor, Buffer] = self.info.tensor2buffer
        if binds:
            for t, b in binds.items():
                if not isinstance(t, Tensor) or not isinstance(b, Buffer):
                    raise TypeError("binds must map Tensors to Buffers")
                self.t2b[t] = b
        self.arg_tensors = [a for a in args if isinstance(a, Tensor)]
        self.arg_ids = {id(t) for t in self.arg_tensors}
        self.root_alloc: List[Buffer] = []
        self.scan_states: set = set()
        self.check_vars = True
        self.block_names: Dict[str, int] = {}
        self._realizes: Dict[Operation, List[BlockRealize]] = {}
        self.split_outputs = False  # one block per output of a multi-output compute
        self.layout_free: set = set()

    def fresh_block_name(self, base: str) -> str:
        n = self.block_names.get(base)
        if n is None:
            self.block_names[base] = 1
            return base
        while True:
            cand = f"{base}_{n}"
            n += 1
            if cand not in self.block_names:
                self.block_names[base] = n
                self.block_names[cand] = 1
                return cand

    def shape(self, shape) -> tuple:
        """A tensor's shape for its buffer: constant dimensions in ``index_dtype_override``."""
        it = self.index_dtype
        if it is None:
            return tuple(shape)
        return tuple(IntImm(it, d.value) if isinstance(d, IntImm) else d for d in shape)

    def buffer_for(self, t: Tensor) -> Buffer:
        b = self.t2b.get(t)
        if b is None:
            b = decl_buffer(self.shape(t.shape), t.dtype, t.name)
            self.t2b[t] = b
        if id(t) not in self.arg_ids and b not in self.root_alloc and not any(
                self.t2b.get(a) is b for a in self.arg_tensors):  # a scan's tied tensors
            self.root_alloc.append(b)
        return b

    # ------------------------------------------------------------------ build
    def build(self) -> PrimFunc:
        for a in self.args:
            if not isinstance(a, (Tensor, Var)):
                raise TypeError(f"create_prim_func arguments must be Tensors or Vars, got {a!r}")
        order = post_dfs_order([t.op for t in self.arg_tensors + self.outputs])
        self.info.ops = order
        # Extern ops bring their own input buffers for placeholders (as TVM binds them).
        for op in order:
            if isinstance(op, ExternOp):
                for t, b in zip(op.inputs, op.input_placeholders):
                    if isinstance(t.op, PlaceholderOp) and t not in self.t2b:
                        self.t2b[t] = b
        body_of = self.bind_scans(order)
        stmts: List[Stmt] = []
        for op in order:
            if op in body_of:
                continue  # emitted inside its scan's loop
            if isinstance(op, PlaceholderOp):
                t = op.output(0)
                if t in self.scan_states:
                    continue
                if id(t) not in self.arg_ids:
                    raise TVMError(
                        f"placeholder {op.name} is used by the computation but is not in the "
                        f"argument list {[getattr(a, 'name', a) for a in self.args]}")
                if t not in self.t2b:
                    self.t2b[t] = decl_buffer(self.shape(op.shape), op.dtype, op.name)
            elif isinstance(op, ComputeOp):
                stmts.append(self.compute_stmt(op))
            elif isinstance(op, TensorComputeOp):
                stmts.append(self.tensor_compute_stmt(op))
            elif isinstance(op, ExternOp):
                stmts.append(self.extern_stmt(op))
            elif isinstance(op, ScanOp):
                stmts.append(self.scan_stmt(op, [b for b in order if body_of.get(b) is op]))
            else:
                raise TVMError(f"unsupported operation {type(op).__name__} ({op.name}); only "
                               "placeholder, compute and extern ops can become a PrimFunc")
        params, buffer_map = [], {}
        for a in self.args:
            if isinstance(a, Tensor):
                p = Var("var_" + a.name.replace(".", "_"), "handle")
                params.append(p)
                buffer_map[p] = self.t2b[a]
            else:
                params.append(a)
        root = Block((), (), (), "root", SeqStmt.flatten(*stmts), None, tuple(self.root_alloc))
        body = BlockRealize((), IntImm("bool", 1), root)
        if self.check_vars:
            self.check_defined(body, params, buffer_map)
        attrs = {"global_symbol": "main", "tir.noalias": True}
        if self.layout_free:
            attrs["layout_free_buffers"] = sorted(self.layout_free)
        return PrimFunc(tuple(params), body, None, buffer_map, attrs)

    def check_defined(self, body, params, buffer_map) -> None:
        """Every variable must be a scalar parameter or a whole dimension (stride, offset) of
        a parameter buffer, as the calling convention can only bind those."""
        defined = {p for p in params if not isinstance(p, Var) or p.dtype != "handle"}
        for b in buffer_map.values():
            for e in b.shape + b.strides + (b.elem_offset,):
                if isinstance(e, Var):
                    defined.add(e)

        def check(vars_, where):
            for v in sorted(vars_ - defined, key=lambda x: x.name):
                raise TVMError(
                    f"variable {v.name} used in {where} is not defined: pass it in the "
                    "argument list (or make it a dimension of an argument tensor)")

        for b in list(buffer_map.values()) + self.root_alloc:
            check(set().union(*[collect_vars(e) for e in b.shape]) if b.shape else set(),
                  f"the shape of {b.name}")
        for op in self.info.ops:
            for blk in (r.block for r in self._realizes.get(op, ())):
                used = set()
                for iv in blk.iter_vars:
                    used |= collect_vars(iv.dom.min) | collect_vars(iv.dom.extent)
                local = {iv.var for iv in blk.iter_vars} | _let_vars(blk.body)
                used |= collect_vars(blk.body) - local
                if blk.init is not None:
                    used |= collect_vars(blk.init) - local
                check(used, f"compute {op.name}")

    # ------------------------------------------------------------------ scan
    def bind_scans(self, order: List[Operation]) -> Dict[Operation, Operation]:
        """Give each scan output one buffer, shared by its state placeholder, init and update
        tensors (classic TE binds them so); return the scan of every recurrence-body op."""
        body_of: Dict[Operation, Operation] = {}
        for sc in order:
            if not isinstance(sc, ScanOp):
                continue
            for op in scan_body(sc):
                if not isinstance(op, ComputeOp):
                    raise TVMError(f"scan {sc.name}: {op.name} in the recurrence must be a "
                                   "compute op")
                if body_of.setdefault(op, sc) is not sc:
                    raise TVMError(f"scan: {op.name} is in the recurrence of two scans")
            for j, out in enumerate(sc.outputs):
                state = sc.state_placeholder[j]
                if id(state) in self.arg_ids and id(out) not in self.arg_ids:
                    buf = self.t2b.get(state) or decl_buffer(state.shape, state.dtype,
                                                            state.name)
                else:
                    buf = self.buffer_for(out)
                for t in (out, sc.init[j], sc.update[j]):
                    if self.t2b.get(t, buf) is not buf:
                        raise TVMError(f"scan {sc.name}: {t.name} is bound to another buffer")
                    self.t2b[t] = buf
                # The recurrence reads earlier rows through an alias of the same memory: the
                # rows it reads (t - 1) and writes (t) never overlap within one step, and the
                # scan loop (serial, outside every block) carries the dependence, so the
                # schedule engine may order the blocks of one step freely.
                if id(state) in self.arg_ids:  # passed: it is the scan's memory itself
                    self.t2b.setdefault(state, buf)
                else:
                    self.t2b[state] = decl_buffer(buf.shape, buf.dtype, buf.name + "_state",
                                                  data=buf.data)
                self.scan_states.add(state)
        return body_of

    def scan_stmt(self, op: ScanOp, body: List[Operation]) -> Stmt:
        """The serial loop over the scan axis, the recurrence ops inside at time ``t``."""
        dom = op.scan_axis.dom
        it = self._index_type(dom)
        idx = Var(op.scan_axis.var.name, it)
        t = _op.add(idx, _op.cast(it, dom.min))
        stmts = [self.compute_stmt(b, time=t) for b in body]
        if not stmts:
            raise TVMError(f"scan {op.name}: the update does not read the state placeholder")
        return For(idx, IntImm(it, 0), _op.cast(it, dom.extent), ForKind.SERIAL,
                   SeqStmt.flatten(*stmts))

    # ------------------------------------------------------------------ compute
    def _index_type(self, dom: Range) -> str:
        if self.index_dtype is not None:
            return self.index_dtype
        b = max(_dt.bits(dom.min.dtype), _dt.bits(dom.extent.dtype))
        return "int64" if b > 32 else "int32"

    def _iter_nest(self, op, axes: List[IterVar], time: Optional[PrimExpr] = None):
        """The loops, block iterators, bindings, axis-to-iterator map and store indices of
        ``axes`` (a 0-d nest gets one unit iterator)."""
        axis_vars = {iv.var for iv in axes}
        loops: List[Tuple[Var, Range]] = []
        block_ivs: List[IterVar] = []
        vmap: Dict[Var, PrimExpr] = {}
        store_idx: List[PrimExpr] = []
        bindings: List[PrimExpr] = []
        self.domain_guards: List[PrimExpr] = []
        for iv in axes:
            dom = iv.dom
            if (collect_vars(dom.min) | collect_vars(dom.extent)) & axis_vars:
                dom = self._reduce_hull(op, iv)
            it = self._index_type(dom)
            dom = Range(_op.cast(it, dom.min), _op.cast(it, dom.extent))
            loop_var = Var(iv.var.name, it)
            bv = Var("v_" + iv.var.name, it)
            kind = (IterVarType.CommReduce if iv.iter_type == IterVarType.CommReduce
                    else IterVarType.DataPar)
            biv = IterVar(dom, bv, kind, iv.thread_tag)
            if time is not None and iv is op.axis[0]:
                loops.append((loop_var, Range(IntImm(it, 0), IntImm(it, 1))))
                bindings.append(_op.add(_op.cast(it, time), loop_var))
            else:
                loops.append((loop_var, dom))
                bindings.append(loop_var)
            block_ivs.append(biv)
            self.info.iter_var_map[iv] = (biv, loop_var)
            vmap[iv.var] = bv
            if kind == IterVarType.DataPar:
                store_idx.append(bv)
        if not block_ivs:  # a 0-d output without reduction still needs one iterator
            bv = Var("vi", "int32")
            block_ivs.append(IterVar(Range(IntImm("int32", 0), IntImm("int32", 1)), bv,
                                     IterVarType.DataPar))
            bindings.append(IntImm("int32", 0))
        return loops, block_ivs, bindings, vmap, store_idx

    def _reduce_hull(self, op, iv: IterVar) -> Range:
        """A reduce axis whose range depends on the compute's spatial axes (classic allows
        ``te.reduce_axis((0, i))``): the block iterates the hull of every such range, and the
        reduction skips the values outside the range of the current output element (recorded
        in ``self.domain_guards``, over the TE axis variables)."""
        dom = iv.dom
        spatial = {a.var: a.dom for a in op.axis}
        used = collect_vars(dom.min) | collect_vars(dom.extent)
        ok = iv.iter_type == IterVarType.CommReduce and isinstance(op, ComputeOp) and \
            not used & {r.var for r in op.reduce_axis} and \
            not any(collect_vars(d.min) | collect_vars(d.extent) for d in spatial.values())
        lo = hi = None
        if ok:
            ana = Analyzer()
            lo = ana.int_set(dom.min, spatial).min_value
            hi = ana.int_set(_op.add(dom.min, dom.extent), spatial).max_value
            ok = all(isinstance(e, PrimExpr) and not collect_vars(e) & set(spatial)
                     for e in (lo, hi))
        if not ok:
            raise TVMError(f"compute {op.name}: the domain of axis {iv.var.name} depends on "
                           "another axis of the same compute; tvmlite supports that only for a "
                           "reduce axis whose range has bounds over the output's axes")
        end = _op.add(dom.min, dom.extent)
        self.domain_guards.append(_op.logical_and(dom.min <= iv.var, iv.var < end))
        return Range(lo, Analyzer().simplify(Max(_op.sub(hi, lo), _op.const(0, hi.dtype))))

    def compute_stmt(self, op: ComputeOp, time: Optional[PrimExpr] = None) -> Stmt:
        """The loop nest and block of ``op``; inside a scan, ``time`` fixes its first axis
        (a unit loop, so the stage keeps one loop per axis)."""
        axes = list(op.axis) + list(op.reduce_axis)
        loops, block_ivs, bindings, vmap, store_idx = self._iter_nest(op, axes, time)
        outs = [self.buffer_for(op.output(i)) for i in range(op.num_outputs)]
        retype = any(bv.var.dtype != iv.var.dtype for bv, iv in zip(block_ivs, axes))
        conv = _ToBufferLoads(self.t2b, vmap, retype)
        idx = tuple(store_idx)
        init = None
        first = op.body[0]
        if isinstance(first, Reduce):
            lhs = [BufferLoad(b, idx) for b in outs]
            rhs = [_simplify(conv.convert(s)) for s in first.source]
            comb = first.combiner
            smap = {**dict(zip(comb.lhs, lhs)), **dict(zip(comb.rhs, rhs))}
            # a combiner may use the axes (classic allows it): those become block iterators too
            results = [_Retype().visit(conv.convert(substitute(r, smap))) for r in comb.result]
            ident = first.init if first.init else comb.identity_element
            init = SeqStmt.flatten(*[_store(b, conv.convert(_op.convert(x)), idx)
                                     for b, x in zip(outs, ident)])
            if len(outs) == 1:
                body: Stmt = _store(outs[0], results[0], idx)
            else:
                temps = [Var("v_" + b.name.replace(".", "_"), b.dtype) for b in outs]
                body = SeqStmt.flatten(*[BufferStore(b, t, idx) for b, t in zip(outs, temps)])
                for t, r in reversed(list(zip(temps, results))):
                    body = LetStmt(t, r, body)
            cond = conv.convert(first.condition)
            for g in self.domain_guards:
                cond = conv.convert(g) if isinstance(cond, IntImm) and cond.value == 1 else \
                    _op.logical_and(conv.convert(g), cond)
            if not (isinstance(cond, IntImm) and cond.value == 1):
                body = IfThenElse(cond, body)
        elif self.split_outputs and len(outs) > 1:
            return self._split_output_blocks(op, loops, block_ivs, bindings, outs,
                                             [_simplify(conv.convert(e)) for e in op.body], idx)
        else:
            body = SeqStmt.flatten(*[_store(b, _simplify(conv.convert(e)), idx)
                                     for b, e in zip(outs, op.body)])
        dom = {iv.var: iv.dom for iv in block_ivs}
        reads, writes = block_access_regions(body, init, (), dom)
        name = self.fresh_block_name(op.name)
        self.info.op2block[op] = name
        annotations = self._annotations(op)
        block = Block(tuple(block_ivs), reads, writes, name, body, init, (), (), annotations)
        stmt: Stmt = BlockRealize(tuple(bindings), IntImm("bool", 1), block)
        self._realizes[op] = [stmt]
        for lv, dom in reversed(loops):
            stmt = For(lv, dom.min, dom.extent, ForKind.SERIAL, stmt)
        return stmt

    def _split_output_blocks(self, op: ComputeOp, loops, block_ivs, bindings, outs, values,
                             idx) -> Stmt:
        """Classic ``create_prim_func``'s form of a multi-output compute without reduction:
        one block per output (``B.v0``, ``B.v1``), each with its own iterators, in one loop
        nest."""
        realizes = []
        annotations = self._annotations(op)
        for k, (buf, value) in enumerate(zip(outs, values)):
            ivs = [IterVar(iv.dom, Var(iv.var.name, iv.var.dtype), iv.iter_type, iv.thread_tag)
                   for iv in block_ivs]
            vmap = {old.var: new.var for old, new in zip(block_ivs, ivs)}
            body = substitute(_store(buf, value, idx), vmap)
            reads, writes = block_access_regions(body, None, (),
                                                 {iv.var: iv.dom for iv in ivs})
            name = self.fresh_block_name(f"{op.name}.v{k}")
            block = Block(tuple(ivs), reads, writes, name, body, None, (), (), annotations)
            realizes.append(BlockRealize(tuple(bindings), IntImm("bool", 1), block))
        self.info.op2block[op] = realizes[0].block.name_hint
        self._realizes[op] = realizes
        stmt: Stmt = SeqStmt.flatten(*realizes)
        for lv, dom in reversed(loops):
            stmt = For(lv, dom.min, dom.extent, ForKind.SERIAL, stmt)
        return stmt

    def tensor_compute_stmt(self, op: TensorComputeOp) -> Stmt:
        """The loop nest over ``op``'s schedulable and reduce axes around one block whose body
        is the intrinsic's implementation, its buffers bound to the regions the call names
        (as the engine's ``tensorize`` binds them); with outer reduce axes the block's init
        is the intrinsic's ``reset`` and its body the ``update``."""
        intrin = op.intrin
        what = f"tensor intrinsic call {op.name}"
        axes = list(op.axis[:op.schedulable_ndim]) + list(op.reduce_axis)
        loops, block_ivs, bindings, vmap, _ = self._iter_nest(op, axes)
        conv = _ToBufferLoads(self.t2b, vmap)
        if op.reduce_axis:
            if intrin.reduce_update is None:
                raise TVMError(f"{what}: the call reduces over "
                               f"{[iv.var.name for iv in op.reduce_axis]} but intrinsic "
                               f"{intrin.name} gives no (body, reset, update) triple")
            body, init = intrin.reduce_update, intrin.reduce_init
        else:
            if intrin.body is None:
                raise TVMError(f"{what}: intrinsic {intrin.name} has no body")
            body, init = intrin.body, None
        n_out = op.schedulable_ndim
        regions = [(self.t2b[t] if t in self.t2b else self.buffer_for(t),
                    [Range(conv.convert(r.min), conv.convert(r.extent)) for r in reg])
                   for t, reg in zip(op.inputs, op.input_regions)]
        out_regions = []
        for i in range(op.num_outputs):
            buf = self.buffer_for(op.output(i))
            out_regions.append((buf, [Range(vmap[iv.var], IntImm(iv.var.dtype, 1))
                                      for iv in op.axis[:n_out]] +
                                [Range(_op.const(0, iv.dom.extent.dtype), iv.dom.extent)
                                 for iv in op.axis[n_out:]]))
        # shape variables of the intrinsic's buffers take the extents of the regions they view
        svmap: Dict[Var, PrimExpr] = {}
        for b, (target, reg) in zip(intrin.buffers, regions + out_regions):
            if len(b.shape) > len(reg):
                raise TVMError(f"{what}: buffer {b.name} of the intrinsic has {len(b.shape)} "
                               f"dimensions, the region of {target.name} only {len(reg)}")
            for d, r in zip(b.shape, reg[len(reg) - len(b.shape):]):
                if isinstance(d, Var):
                    svmap.setdefault(d, r.extent)
                elif isinstance(d, IntImm) and isinstance(r.extent, IntImm) and \
                        d.value != r.extent.value:
                    raise TVMError(f"{what}: buffer {b.name} of the intrinsic has extent "
                                   f"{d.value} where the region of {target.name} has "
                                   f"{r.extent.value}")
        for v, e in zip(intrin.scalar_params, op.scalar_inputs):
            svmap[v] = conv.convert(e)
        bmap = {b: dataclasses.replace(b, shape=tuple(substitute(d, svmap) for d in b.shape))
                for b in intrin.buffers if svmap and collect_vars(b.shape) & set(svmap)}
        binds = [Binding(bmap.get(b, b), target, [r.min for r in reg])
                 for b, (target, reg) in zip(intrin.buffers, regions + out_regions)]

        def bind(stmt: Stmt) -> Stmt:
            stmt = _BufferRemap(bmap, self.t2b).visit(substitute(stmt, svmap))
            return _BindImpl(binds, "te.compute", what).visit(stmt)

        body = bind(body)
        init = bind(init) if init is not None else None
        reads = tuple(BufferRegion(b, tuple(reg)) for b, reg in regions)
        writes = tuple(BufferRegion(b, tuple(reg)) for b, reg in out_regions)
        if init is not None or op.reduce_axis:
            reads = reads + writes
        name = self.fresh_block_name(op.name)
        self.info.op2block[op] = name
        block = Block(tuple(block_ivs), reads, writes, name, body, init, (), (),
                      self._annotations(op))
        stmt: Stmt = BlockRealize(tuple(bindings), IntImm("bool", 1), block)
        for lv, dom in reversed(loops):
            stmt = For(lv, dom.min, dom.extent, ForKind.SERIAL, stmt)
        return stmt

    def _annotations(self, op: Operation):
        if not op.attrs:
            return None
        out = {}
        for k, v in op.attrs.items():
            if k == "layout_free_placeholders" and isinstance(v, (list, tuple)):
                # as classic TE: placeholders passed as arguments become the function's
                # "layout_free_buffers" (their parameter positions); the others stay here
                pos = {id(a): i for i, a in enumerate(self.args)}
                self.layout_free.update(pos[id(t)] for t in v if id(t) in pos and isinstance(
                    t.op, PlaceholderOp))
                v = [t for t in v if not (id(t) in pos and isinstance(t.op, PlaceholderOp))]
                if not v:
                    continue
            if isinstance(v, Tensor):
                v = self.t2b.get(v, v)
            elif isinstance(v, (list, tuple)):
                v = type(v)(self.t2b.get(x, x) if isinstance(x, Tensor) else x for x in v)
            out[k] = v
        return out or None

    # ------------------------------------------------------------------ extern
    def extern_stmt(self, op: ExternOp) -> Stmt:
        bmap: Dict[Buffer, Buffer] = {}
        for t, ph in zip(op.inputs, op.input_placeholders):
            b = self.t2b.get(t)
            if b is None:
                raise TVMError(f"extern {op.name}: input {t.name} has no buffer (internal error)")
            if b is not ph:
                bmap[ph] = b
        outs = []
        for i, ph in enumerate(op.output_placeholders):
            t = op.output(i)
            if t not in self.t2b:
                # an output the function allocates starts at offset 0 (a parameter keeps the
                # placeholder, whose ``elem_offset`` variable the caller's array gives)
                self.t2b[t] = ph if id(t) in self.arg_ids or not isinstance(
                    ph.elem_offset, Var) else dataclasses.replace(
                        ph, elem_offset=IntImm(ph.elem_offset.dtype, 0))
            b = self.buffer_for(t)
            if b is not ph:
                bmap[ph] = b
            outs.append(b)
        body = _BufferRemap(bmap, self.t2b).visit(op.body)
        # offsets the body computed from a placeholder's ``elem_offset`` (``access_ptr``)
        offsets = {ph.elem_offset: b.elem_offset for ph, b in bmap.items()
                   if isinstance(ph.elem_offset, Var) and ph.elem_offset is not b.elem_offset}
        if offsets:
            body = substitute(body, offsets)
        ins = []
        for t in op.inputs:
            b = self.t2b[t]
            if b not in ins:
                ins.append(b)
        reads = tuple(_full_region(b) for b in ins)
        writes = tuple(_full_region(b) for b in outs)
        name = self.fresh_block_name(op.name)
        self.info.op2block[op] = name
        block = Block((), reads, writes, name, body, None, (), (),
                      dict(op.attrs) if op.attrs else None)
        return BlockRealize((), IntImm("bool", 1), block)


def _simplify(e: PrimExpr) -> PrimExpr:
    """A compute body as classic ``create_prim_func`` stores it: simplified, without knowing
    the ranges of the block's iterators (``yy - 1 < 14`` becomes ``yy < 15``)."""
    return Analyzer().simplify(e)


def _store(buf: Buffer, value: PrimExpr, idx) -> BufferStore:
    if value.dtype != buf.dtype:
        value = _op.cast(buf.dtype, value)
    return BufferStore(buf, value, idx)


def _let_vars(node) -> set:
    out = set()

    class _V(Visitor):
        def visit_LetStmt(self, s):
            out.add(s.var)
            self.generic(s)

        def visit_Let(self, e):
            out.add(e.var)
            self.generic(e)

    _V().visit(node)
    return out


def create_prim_func_with_info(args: Sequence, index_dtype_override: Optional[str] = None,
                               binds: Optional[Dict[Tensor, Buffer]] = None,
                               outputs: Sequence[Tensor] = (), check_vars: bool = True,
                               split_outputs: bool = False):
    """Like :func:`create_prim_func`, also returning a :class:`CreateInfo`.

    ``outputs`` are tensors to compute even when they are not arguments (a schedule's
    outputs lowered with ``tvm.lower(s, [A, B])``); those become root allocations.
    ``check_vars=False`` leaves free variables (``m`` of a ``(m * 4,)`` shape) unchecked, for
    analyses such as InferBound that never call the function. ``split_outputs`` gives each
    output of a multi-output compute without reduction its own block (classic's public form;
    the TE schedule keeps one block per op, the stage it schedules).
    """
    if isinstance(args, (Tensor, Var)):
        args = [args]
    args = list(args)
    it = None
    if index_dtype_override is not None:
        it = _dt.canonical(str(index_dtype_override))
        if it not in ("int32", "int64"):
            raise ValueError(f"index_dtype_override must be int32 or int64, got {it}")
    if isinstance(outputs, Tensor):
        outputs = [outputs]
    b = _Builder(args, binds, it, list(outputs))
    b.check_vars = check_vars
    b.split_outputs = split_outputs
    func = b.build()
    return func, b.info


def create_prim_func(args: Sequence, index_dtype_override: Optional[str] = None,
                     binds: Optional[Dict[Tensor, Buffer]] = None) -> PrimFunc:
    """Make a TensorIR ``PrimFunc`` (one block per compute op) from TE tensors.

    Parameters
    ----------
    args : the function's arguments in order: Tensors (inputs and outputs) and scalar Vars.
    index_dtype_override : "int64" to make every loop and block iterator int64.
    binds : optional Buffers to use for some tensors.
    """
    return create_prim_func_with_info(args, index_dtype_override, binds, split_outputs=True)[0]


__all__ = ["create_prim_func", "create_prim_func_with_info", "CreateInfo"]
