"""``transform_layout`` and ``set_axis_separator``: change how a buffer is laid out, rewriting
every access to it in the function."""
from __future__ import annotations

import dataclasses
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from ...arith.int_set import relax_region
from ...ir.structural import structural_equal
from .. import op as _op
from ..analysis import block_regions
from ..buffer import Buffer
from ..expr import BufferLoad, Call, FloatImm, IntImm, IterVar, IterVarType, PrimExpr, Range, Var
from ..functor import Mutator, Visitor, collect_vars, post_order_visit, substitute
from ..index_map import IndexMap, as_index_map
from ..stmt import (
    Block,
    BlockRealize,
    BufferRegion,
    BufferStore,
    Evaluate,
    For,
    ForKind,
    MatchBufferRegion,
    SeqStmt,
)
from .error import ScheduleError, fail
from .state import BlockRV, ScheduleState, can_prove, const_value, simplify

BufferSpec = Union[Tuple[str, int], str, Buffer]


class BufferIndexError(ScheduleError, AssertionError):
    """A ``("read"|"write", i)`` index out of range (classic TVM asserts on it)."""


def resolve_buffer(state: ScheduleState, block_rv: BlockRV, buffer: BufferSpec,
                   prim: str) -> Tuple[Block, Buffer]:
    """The block of ``block_rv`` and the buffer ``buffer`` names: ``("read", i)`` or
    ``("write", i)`` (the block's i-th read or write region), a buffer name the block
    accesses, or the Buffer itself."""
    block = state.block_path(block_rv, prim)[-1].block
    what = f'block "{block.name_hint}"'
    if isinstance(buffer, Buffer):
        if not any(r.buffer is buffer for r in (*block.reads, *block.writes)):
            raise fail(prim, what, f'the block does not access buffer "{buffer.name}"')
        return block, buffer
    if isinstance(buffer, str):
        found = [r.buffer for r in (*block.reads, *block.writes) if r.buffer.name == buffer]
        if not found:
            raise fail(prim, what, f'the block accesses no buffer named "{buffer}"')
        return block, found[0]
    if isinstance(buffer, (tuple, list)) and len(buffer) == 2:
        kind, index = buffer
        if kind not in ("read", "write"):
            raise fail(prim, what, f'the buffer kind must be "read" or "write", got {kind!r}')
        regions = block.reads if kind == "read" else block.writes
        if not isinstance(index, int) or not 0 <= index < len(regions):
            cond = (f"{kind} buffer index {index!r} is out of range (the block has "
                    f"{len(regions)} {kind} regions)")
            raise BufferIndexError(f"ScheduleError: {prim}: {what}: {cond}", prim, what, cond)
        return block, regions[index].buffer
    raise TypeError(f'{prim}: buffer must be ("read"|"write", index), a buffer name or a '
                    f"Buffer, got {buffer!r}")


def buffer_spec(block: Block, buf: Buffer) -> Tuple[str, int]:
    """``("write", i)`` or ``("read", i)``: where ``block`` lists ``buf`` (writes first)."""
    for kind, regions in (("write", block.writes), ("read", block.reads)):
        for k, r in enumerate(regions):
            if r.buffer is buf:
                return kind, k
    raise ValueError(f'block "{block.name_hint}" does not list buffer "{buf.name}"')


class _LayoutRewriter(Mutator):
    """Replace ``old`` by ``new`` everywhere, sending every index tuple through ``fmap``;
    indices are simplified under the ranges of the loops and block iterators around them.
    With ``match_separators``, buffers matched to a region of ``old`` take ``new``'s axis
    separators (classic ``set_axis_separator``)."""

    def __init__(self, old: Buffer, new: Buffer,
                 fmap: Callable[[Sequence[PrimExpr]], List[PrimExpr]],
                 match_separators: bool = False):
        self.old, self.new, self.fmap = old, new, fmap
        self.match_separators = match_separators
        self.matched: Dict[Buffer, Buffer] = {}
        self.dom: Dict[Var, Range] = {}

    def _target(self, buf: Buffer) -> Optional[Buffer]:
        if buf is self.old:
            return self.new
        return self.matched.get(buf)

    def _indices(self, indices) -> Tuple[PrimExpr, ...]:
        return tuple(self._simplify(e) for e in self.fmap(list(indices)))

    def _simplify(self, e: PrimExpr) -> PrimExpr:
        return simplify_nontrivial(e, self.dom)

    def visit_For(self, s: For):
        self.dom[s.loop_var] = Range(s.min, s.extent)
        try:
            return self.generic(s)
        finally:
            del self.dom[s.loop_var]

    def visit_Block(self, b: Block):
        saved = dict(self.dom)
        for iv in b.iter_vars:
            if iv.dom is not None:
                self.dom[iv.var] = iv.dom
        if self.match_separators:
            for m in b.match_buffers:
                if m.source.buffer is self.old:
                    self.matched[m.buffer] = dataclasses.replace(
                        m.buffer, axis_separators=self.new.axis_separators)
        try:
            b2 = self.generic(b)
        finally:
            self.dom = saved
        if any(x is self.old for x in b2.alloc_buffers):
            b2 = dataclasses.replace(b2, alloc_buffers=tuple(
                self.new if x is self.old else x for x in b2.alloc_buffers))
        return b2

    def visit_BufferLoad(self, e: BufferLoad):
        e2 = self.generic(e)
        if e2.buffer is self.old:
            return BufferLoad(self.new, self._indices(e2.indices))
        if e2.buffer in self.matched:
            return BufferLoad(self.matched[e2.buffer], e2.indices)
        return e2

    def visit_BufferStore(self, s: BufferStore):
        s2 = self.generic(s)
        if s2.buffer is self.old:
            return BufferStore(self.new, s2.value, self._indices(s2.indices))
        if s2.buffer in self.matched:
            return BufferStore(self.matched[s2.buffer], s2.value, s2.indices)
        return s2

    def visit_BufferRegion(self, r: BufferRegion):
        r = self.generic(r)
        if r.buffer is self.old:
            return BufferRegion(self.new, tuple(self.map_region(r.region)))
        if r.buffer in self.matched:
            return BufferRegion(self.matched[r.buffer], r.region)
        return r

    def visit_MatchBufferRegion(self, m: MatchBufferRegion):
        src = self.visit(m.source)
        if src is m.source:
            return m
        return MatchBufferRegion(self.matched.get(m.buffer, m.buffer), src)

    def map_region(self, region: Sequence[Range]) -> List[Range]:
        """The box the image of ``region`` fits in."""
        if all(_is_one(r.extent) for r in region):
            return [Range(e, _op.const(1, e.dtype)) for e in self._indices(r.min for r in region)]
        offs: Dict[Var, Range] = {}
        points = []
        for k, r in enumerate(region):
            if _is_one(r.extent):
                points.append(r.min)
            else:
                t = Var(f"t{k}", r.min.dtype)
                offs[t] = Range(_op.const(0, r.min.dtype), r.extent)
                points.append(_op.add(r.min, t))
        mapped = self.fmap(points)
        try:
            boxes = relax_region(mapped, offs)
        except ValueError:
            return [Range(_op.const(0, n.dtype), n) for n in self.new.shape]
        return [Range(self._simplify(b.min), simplify(b.extent, {**self.dom, **offs}))
                for b in boxes]


def simplify_nontrivial(e: PrimExpr, dom: Dict[Var, Range]) -> PrimExpr:
    """``e`` simplified under ``dom``, unless it would become a constant: as in classic TVM,
    an index that is constant only because an iterator has extent 1 keeps its variables."""
    out = simplify(e, dom)
    return e if isinstance(out, IntImm) and collect_vars(e) else out


def _is_one(e) -> bool:
    return isinstance(e, IntImm) and e.value == 1


def rewrite_buffer(state: ScheduleState, old: Buffer, new: Buffer,
                   fmap: Callable[[Sequence[PrimExpr]], List[PrimExpr]],
                   match_separators: bool = False) -> None:
    """Replace ``old`` by ``new`` in the function (body, allocations, parameters), every
    index tuple sent through ``fmap``."""
    func = state.func
    body = _LayoutRewriter(old, new, fmap, match_separators).visit(func.body)
    bmap = {p: (new if b is old else b) for p, b in func.buffer_map.items()}
    mod = state.mod.copy()
    mod[state.func_name] = dataclasses.replace(func, body=body, buffer_map=bmap)
    state.mod = mod


def _pad_value(pad_value: Any, buf: Buffer, ndim: int, prim: str, what: str
               ) -> Optional[IndexMap]:
    """``pad_value`` as an index map over the transformed indices (None: no padding)."""
    if pad_value is None:
        return None
    if isinstance(pad_value, IndexMap):
        pmap = pad_value
    elif callable(pad_value):
        pmap, _ = as_index_map(pad_value, ndim)
    else:
        # a Python number takes the buffer's type, as in classic TVM
        if isinstance(pad_value, bool):
            pad_value = int(pad_value)
        if isinstance(pad_value, int) and "int" in buf.dtype:
            pad_value = IntImm(buf.dtype, pad_value)
        elif isinstance(pad_value, float) and "float" in buf.dtype:
            pad_value = FloatImm(buf.dtype, pad_value)
        value = _op.convert(pad_value)
        pmap = IndexMap([Var(f"i{k}", "int32") for k in range(ndim)], [value])
    if len(pmap.final_indices) != 1:
        raise fail(prim, what, f"pad_value must give one value, got {len(pmap.final_indices)}")
    value = pmap.final_indices[0]
    if value.dtype != buf.dtype:
        raise fail(prim, what, f'pad_value has dtype {value.dtype}, buffer "{buf.name}" has '
                   f"{buf.dtype}")
    other: List[Buffer] = []
    post_order_visit(value, lambda x: other.append(x.buffer) if isinstance(
        x, BufferLoad) and x.buffer is not buf else None)
    if other:
        raise fail(prim, what, f'pad_value may only read the transformed buffer "{buf.name}", '
                   f'it reads "{other[0].name}"')
    return pmap


def transform_layout(state: ScheduleState, block_rv: BlockRV, buffer: BufferSpec,
                     index_map: Union[IndexMap, Callable], pad_value: Any = None,
                     assume_injective_transform: bool = False) -> Tuple[Any, IndexMap, Any]:
    """Store a buffer ``block`` accesses in the layout ``index_map`` gives: element
    ``idx`` moves to ``index_map(idx)``; its shape, allocation (or parameter) and every
    access in the function change with it.

    A layout that pads the buffer (its image does not fill the new shape) needs
    ``pad_value`` (or ``assume_injective_transform``, saying the padding is never read). As in
    classic TVM, the padding is then filled where the buffer is produced: a producer whose
    loops walk the buffer row-major (and do nothing else) is rewritten to walk the new shape,
    storing ``T.if_then_else(padding, pad_value, value)``; otherwise a block filling the
    padding follows the last write; a buffer nothing writes (an input) gets a leading block of
    ``T.assume`` stating that its padding holds ``pad_value``.

    Before::

        B = T.alloc_buffer((128, 128))
        for i, j in T.grid(128, 128):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * 2.0

    After ``transform_layout(block_B, ("write", 0), lambda i, j: (i // 16, j // 16, i % 16,
    j % 16))``::

        B = T.alloc_buffer((8, 8, 16, 16))
        for i, j in T.grid(128, 128):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi // 16, vj // 16, vi % 16, vj % 16] = A[vi, vj] * 2.0

    Returns the buffer, index map and pad value as the trace records them.
    """
    prim = "transform_layout"
    block, buf = resolve_buffer(state, block_rv, buffer, prim)
    spec = buffer if isinstance(buffer, (str, tuple, list)) else buffer_spec(block, buf)
    what = f'block "{block.name_hint}"'
    index_dtype = buf.shape[0].dtype if buf.shape else "int32"
    try:
        imap, seps = as_index_map(index_map, len(buf.shape), index_dtype)
    except ValueError as err:
        raise fail(prim, what, str(err)) from None
    given = imap
    if len(imap.initial_indices) != len(buf.shape):
        raise fail(prim, what, f"the index map takes {len(imap.initial_indices)} indices, "
                   f'buffer "{buf.name}" has {len(buf.shape)} dimensions')
    finals = [_op.cast(index_dtype, e) if e.dtype != index_dtype else e
              for e in imap.final_indices]
    imap = IndexMap(imap.initial_indices, finals)
    try:
        new_shape = tuple(imap.map_shape(buf.shape))
    except ValueError as err:
        raise fail(prim, what, str(err)) from None
    pmap = _pad_value(pad_value, buf, len(new_shape), prim, what)
    old_size = _product(buf.shape)
    new_size = _product(new_shape)
    pads = not can_prove(_op.eq(old_size, new_size))
    if pads and not assume_injective_transform and pmap is None:
        raise fail(prim, what, f'the layout pads buffer "{buf.name}" (shape '
                   f"{list(buf.shape)} -> {list(new_shape)}) and no pad_value is given")
    new_buf = dataclasses.replace(buf, shape=new_shape, strides=(),
                                  axis_separators=tuple(seps) if seps else buf.axis_separators)
    if pads and not assume_injective_transform:
        try:
            inverse, pad_pred = imap.non_surjective_inverse(buf.shape)
        except ValueError as err:
            raise fail(prim, what, f'tvmlite cannot place the padding of buffer "{buf.name}" '
                       f"(shape {list(buf.shape)} -> {list(new_shape)}): {err}") from None
        if not (isinstance(pad_pred, IntImm) and pad_pred.value == 0):
            plan = _PaddingPlan(state, buf, new_buf, inverse, pad_pred, pmap)
            try:
                state.set_body(plan.apply(state.body))
            except ValueError as err:
                raise fail(prim, what, f'cannot fill the padding of buffer "{buf.name}": '
                           f"{err}") from None
    rewrite_buffer(state, buf, new_buf, imap.map_indices, match_separators=bool(seps))
    # a float is recorded as the index map giving it, which prints with its type
    return spec, given, (pmap if callable(pad_value) or isinstance(pad_value, float)
                         else pad_value)


@dataclasses.dataclass
class _Write:
    """A store to the transformed buffer and where it sits."""

    store: BufferStore
    realize: Optional[BlockRealize]  # the innermost block around it
    loops: List[For]  # the loops its indices depend on, outermost first
    row_major: bool  # those loops walk the buffer's axes in order, each over the whole axis


class _FindWrites(Visitor):
    def __init__(self, buf: Buffer):
        self.buf = buf
        self.loops: List[For] = []
        self.bound: Dict[Var, PrimExpr] = {}
        self.realize: Optional[BlockRealize] = None
        self.writes: List[_Write] = []

    def visit_For(self, s: For):
        self.loops.append(s)
        self.generic(s)
        self.loops.pop()

    def visit_LetStmt(self, s):
        self.bound[s.var] = substitute(s.value, self.bound)
        self.generic(s)
        del self.bound[s.var]

    def visit_BlockRealize(self, r: BlockRealize):
        saved, saved_r = dict(self.bound), self.realize
        for iv, v in zip(r.block.iter_vars, r.iter_values):
            self.bound[iv.var] = substitute(v, self.bound)
        self.realize = r
        self.generic(r)
        self.bound, self.realize = saved, saved_r

    def visit_BufferStore(self, s: BufferStore):
        if s.buffer is not self.buf:
            return
        idx = [substitute(i, self.bound) for i in s.indices]
        depth = {lp.loop_var: k for k, lp in enumerate(self.loops)}
        used = sorted({depth[v] for i in idx for v in collect_vars(i) if v in depth})
        loops = self.loops[used[0]:used[-1] + 1] if used else []
        row_major = bool(loops) and len(loops) == len(self.buf.shape) == len(idx) and all(
            i is lp.loop_var and const_value(lp.min) == 0 and lp.kind == ForKind.SERIAL
            and structural_equal(lp.extent, n) for i, lp, n in zip(idx, loops, self.buf.shape))
        self.writes.append(_Write(s, self.realize, loops, row_major))


class _PaddingPlan:
    """Where and how the padding of a transformed buffer gets ``pad_value`` (classic TVM's
    prologue / replacement / epilogue plans)."""

    def __init__(self, state: ScheduleState, old: Buffer, new: Buffer, inverse: IndexMap,
                 pred: PrimExpr, pad: IndexMap):
        self.state, self.old, self.new = state, old, new
        self.inverse, self.pred, self.pad = inverse, pred, pad

    def _axes(self, prefix: str) -> List[Var]:
        return [Var(prefix + v.name, v.dtype) for v in self.inverse.initial_indices]

    def _at(self, e: PrimExpr, axes: Sequence[PrimExpr]) -> PrimExpr:
        return substitute(e, dict(zip(self.inverse.initial_indices, axes)))

    def _nest(self, loop_vars: List[Var], body) -> For:
        for v, n in reversed(list(zip(loop_vars, self.new.shape))):
            body = For(v, IntImm(v.dtype, 0), n, ForKind.SERIAL, body)
        return body

    def _block(self, kind: str, body_of, predicate: bool) -> For:
        """A loop nest over the new shape around one block whose body ``body_of(axes,
        pred)`` builds from its iterators and the padding predicate over them."""
        loop_vars = self._axes("")
        ivs = [IterVar(Range(IntImm(v.dtype, 0), n), Var("v_" + v.name, v.dtype),
                       IterVarType.DataPar) for v, n in zip(loop_vars, self.new.shape)]
        axes = [iv.var for iv in ivs]
        body = body_of(axes, self._at(self.pred, axes))
        name = self.state.fresh_block_name(f"buffer_{self.old.name}_{kind}")
        block = Block(tuple(ivs), (), (), name, body)
        reads, writes = block_regions(block)
        block = dataclasses.replace(block, reads=reads, writes=writes)
        where = self._at(self.pred, loop_vars) if predicate else IntImm("bool", 1)
        return self._nest(loop_vars, BlockRealize(tuple(loop_vars), where, block))

    def apply(self, body):
        opaque: List[str] = []

        def check(x):
            if isinstance(x, MatchBufferRegion) and x.source.buffer is self.old:
                opaque.append(f"T.match_buffer {x.buffer.name}")
            elif x is self.old.data:
                opaque.append("its data pointer")
            elif isinstance(x, Call) and any(a is self.old for a in x.args):
                opaque.append(f"a call of {x.op}")

        post_order_visit(body, check)
        if opaque:
            raise ValueError(f"the buffer is accessed through {opaque[0]}, so its writes "
                             "cannot be found")
        finder = _FindWrites(self.old)
        finder.visit(body)
        writes = finder.writes
        if not writes:  # an input: state what its padding holds
            prologue = self._block("assumptions", lambda ax, p: Evaluate(_op.assume(
                _op.logical_or(_op.logical_not(p), _op.eq(BufferLoad(self.new, tuple(ax)),
                                                          self.pad.map_indices(ax)[0])))),
                                   False)
            return _prepend(body, self.old, prologue)
        replacements = {}
        for w in writes:
            if w.row_major:
                new = self._replacement(w)
                if new is not None:
                    replacements[id(w.loops[0])] = new
        if replacements:
            return _Replace(replacements).visit(body)
        last = writes[-1]
        epilogue = self._block("padding", lambda ax, p: BufferStore(
            self.new, self.pad.map_indices(ax)[0], tuple(ax)), True)
        target = last.loops[0] if last.loops else last.realize
        if target is None:
            raise ValueError("a write lies outside any loop or block")
        return _InsertAfter(target, epilogue).visit(body)

    def _replacement(self, w: _Write):
        """The producer's loops rewritten to walk the new shape, storing the pad value in the
        padding; None when the loop body does anything else (then the epilogue is used)."""
        loops = w.loops
        if any(a.body is not b for a, b in zip(loops, loops[1:])):
            return None  # statements between the loops would be dropped
        loop_vars = self._axes("")
        remap: Dict[Var, PrimExpr] = {lp.loop_var: e for lp, e in zip(
            loops, self.inverse.map_indices(loop_vars))}
        axes: List[Var] = list(loop_vars)
        realize = None
        r = w.realize
        inside = [False]
        post_order_visit(loops[-1].body, lambda x: inside.__setitem__(0, True)
                         if x is r else None)
        if r is not None and inside[0]:
            ivars = [iv.var for iv in r.block.iter_vars]
            idx = list(w.store.indices)
            start = next((k for k, v in enumerate(ivars) if idx and v is idx[0]), None)
            if start is not None and all(
                    start + k < len(ivars) and i is ivars[start + k]
                    and r.block.iter_vars[start + k].iter_type == IterVarType.DataPar
                    for k, i in enumerate(idx)):
                new_ivs = [IterVar(Range(IntImm(v.dtype, 0), n), Var("v_" + v.name, v.dtype),
                                   IterVarType.DataPar)
                           for v, n in zip(loop_vars, self.new.shape)]
                axes = [iv.var for iv in new_ivs]
                for k, e in enumerate(self.inverse.map_indices(axes)):
                    remap[ivars[start + k]] = e
                ivs = list(r.block.iter_vars)
                vals = list(r.iter_values)
                ivs[start:start + len(idx)] = new_ivs
                vals[start:start + len(idx)] = loop_vars
                realize = (r, tuple(ivs), tuple(vals))
        pred = self._at(self.pred, axes)
        value_at = self.pad.map_indices(axes)[0]
        rw = _ReplaceStores(w.store, self.old, self.new, axes, pred, value_at, remap, realize)
        try:
            inner = rw.visit(loops[-1].body)
        except _CannotReplace:
            return None
        return self._nest(loop_vars, inner)


class _CannotReplace(Exception):
    pass


class _ReplaceStores(Mutator):
    """The body of a row-major producer over the new shape: its stores become
    ``if_then_else(padding, pad, value)``; anything else that could observe the padding
    points (another store, a load outside a stored value, a call) makes it fail."""

    def __init__(self, store, old, new, axes, pred, pad, remap, realize):
        self.store, self.old, self.new = store, old, new
        self.axes, self.pred, self.pad = tuple(axes), pred, pad
        self.remap, self.realize = remap, realize
        self.in_value = False

    def visit_Var(self, v):
        return self.remap.get(v, v)

    def visit_BufferStore(self, s: BufferStore):
        if s.buffer is not self.old or not structural_equal(s.indices, self.store.indices,
                                                             map_free_vars=False):
            raise _CannotReplace
        loads: List[BufferLoad] = []
        post_order_visit(s.value, lambda x: loads.append(x) if isinstance(x, BufferLoad)
                         and x.buffer is self.old else None)
        if any(not structural_equal(ld.indices, s.indices, map_free_vars=False)
               for ld in loads):
            raise _CannotReplace  # reads another element: the new order could break it
        self.in_value = True
        try:
            value = _op.if_then_else(self.pred, self.pad, self.visit(s.value))
        finally:
            self.in_value = False
        return BufferStore(self.new, value, self.axes)

    def visit_BufferLoad(self, e):
        if not self.in_value:
            raise _CannotReplace  # a load outside a stored value runs at the padding points
        return self.generic(e)

    def visit_Evaluate(self, s):
        if not isinstance(s.value, IntImm):
            raise _CannotReplace
        return s

    def visit_BlockRealize(self, r: BlockRealize):
        out = self.generic(r)
        if self.realize is not None and r is self.realize[0]:
            _, ivs, vals = self.realize
            out = BlockRealize(vals, out.predicate,
                               dataclasses.replace(out.block, iter_vars=ivs))
        return out


class _Replace(Mutator):
    def __init__(self, replacements):
        self.replacements = replacements

    def visit_For(self, s: For):
        new = self.replacements.get(id(s))
        return new if new is not None else self.generic(s)


class _InsertAfter(Mutator):
    def __init__(self, target, stmt):
        self.target, self.stmt = target, stmt

    def visit(self, x):
        out = super().visit(x)
        if x is self.target:
            return SeqStmt.flatten(out, self.stmt)
        return out


def _prepend(body, buf: Buffer, stmt):
    """``stmt`` first in the block that allocates ``buf`` (the root block for a parameter)."""
    class _P(Mutator):
        done = False

        def visit_Block(self, b: Block):
            if self.done:
                return b
            if any(x is buf for x in b.alloc_buffers):
                self.done = True
                return dataclasses.replace(b, body=SeqStmt.flatten(stmt, b.body))
            return self.generic(b)

    p = _P()
    out = p.visit(body)
    if p.done:
        return out
    if isinstance(body, BlockRealize) and not body.block.iter_vars:
        return dataclasses.replace(body, block=dataclasses.replace(
            body.block, body=SeqStmt.flatten(stmt, body.block.body)))
    return SeqStmt.flatten(stmt, body)


def _product(shape: Sequence[PrimExpr]) -> PrimExpr:
    out: PrimExpr = _op.const(1, shape[0].dtype if shape else "int32")
    for n in shape:
        out = _op.mul(out, n)
    return simplify(out)


def set_axis_separator(state: ScheduleState, block_rv: BlockRV, buffer: BufferSpec,
                       axis_separators: Optional[Sequence[int]]) -> Any:
    """Set where a buffer's axes are split into groups when it is flattened (each group
    becomes one physical dimension).

    Before::

        B = T.alloc_buffer((128, 128))

    After ``set_axis_separator(block_B, ("write", 0), [1])``::

        B = T.alloc_buffer((128, 128), axis_separators=[1])

    Returns the buffer as the trace records it.
    """
    prim = "set_axis_separator"
    block, buf = resolve_buffer(state, block_rv, buffer, prim)
    seps = tuple(int(s) for s in (axis_separators or ()))
    if any(not 0 < s < len(buf.shape) for s in seps) or list(seps) != sorted(set(seps)):
        raise fail(prim, f'block "{block.name_hint}"', f"axis_separators {list(seps)} must be "
                   f"increasing positions inside the {len(buf.shape)} axes of buffer "
                   f'"{buf.name}"')
    new_buf = dataclasses.replace(buf, axis_separators=seps)
    rewrite_buffer(state, buf, new_buf, list, match_separators=True)
    return buffer if isinstance(buffer, (str, tuple, list)) else buffer_spec(block, buf)
