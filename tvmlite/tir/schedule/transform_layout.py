"""``transform_layout`` and ``set_axis_separator``: change how a buffer is laid out, rewriting
every access to it in the function."""
from __future__ import annotations

import dataclasses
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from ...arith.int_set import relax_region
from .. import op as _op
from ..buffer import Buffer
from ..expr import BufferLoad, FloatImm, IntImm, PrimExpr, Range, Var
from ..functor import Mutator, post_order_visit
from ..index_map import IndexMap, as_index_map
from ..stmt import Block, BufferRegion, BufferStore, For, MatchBufferRegion
from .error import ScheduleError, fail
from .state import BlockRV, ScheduleState, can_prove, simplify

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
    return e if isinstance(out, IntImm) and not isinstance(e, IntImm) else out


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

    A layout that pads the buffer (its image does not fill the new shape) is refused unless
    ``assume_injective_transform`` says the padding is never read; tvmlite does not fill
    padding with ``pad_value`` yet.

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
    dom = {v: Range(_op.const(0, v.dtype), _op.convert(n))
           for v, n in zip(imap.initial_indices, buf.shape)}
    finals = [_op.cast(e, index_dtype) if e.dtype != index_dtype else e
              for e in imap.final_indices]
    imap = IndexMap(imap.initial_indices, finals)
    try:
        boxes = relax_region(finals, dom)
    except ValueError:
        raise fail(prim, what, "the index map's outputs have no bounds over the buffer's "
                   "shape") from None
    for k, b in enumerate(boxes):
        if not can_prove(_op.ge(b.min, 0), {}):
            raise fail(prim, what, f"output index {k} of the index map can be negative")
    new_shape = tuple(simplify(_op.add(b.min, b.extent)) for b in boxes)
    pmap = _pad_value(pad_value, buf, len(new_shape), prim, what)
    old_size = _product(buf.shape)
    new_size = _product(new_shape)
    pads = not can_prove(_op.eq(old_size, new_size))
    if pads and not assume_injective_transform:
        if pmap is None:
            raise fail(prim, what, f'the layout pads buffer "{buf.name}" (shape '
                       f"{list(buf.shape)} -> {list(new_shape)}) and no pad_value is given")
        raise fail(prim, what, f'tvmlite does not implement padding with pad_value: the layout '
                   f'pads buffer "{buf.name}" (shape {list(buf.shape)} -> {list(new_shape)})')
    new_buf = dataclasses.replace(buf, shape=new_shape, strides=(),
                                  axis_separators=tuple(seps) if seps else buf.axis_separators)
    rewrite_buffer(state, buf, new_buf, imap.map_indices, match_separators=bool(seps))
    return spec, given, (pmap if callable(pad_value) else pad_value)


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
