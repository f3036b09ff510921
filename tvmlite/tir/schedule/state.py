"""The schedule state: an IRModule of immutable nodes, handles that survive rewrites, and the
tree and region utilities every primitive shares.

Handles are stable keys, not nodes: a :class:`BlockRV` names a block (block names are unique
within a function; primitives that create blocks give them fresh names), a :class:`LoopRV`
holds its loop's variable (every loop of a function has its own Var; primitives that remove a
loop remove its Var with it, so the handle of a split or fused-away loop becomes invalid, as in
TVM). ``get(rv)`` finds the current node by walking from the root; at the sizes schedules deal
with this is cheap and leaves nothing to keep in sync.

A primitive rewrites a subtree and :func:`replace` rebuilds the path to the root.
"""
from __future__ import annotations

import dataclasses
import enum
from typing import (
    Callable,
    Dict,
    Iterable,
    List,
    NamedTuple,
    Optional,
    Sequence,
    Tuple,
    Union,
)

from ...arith import Analyzer
from ...arith.int_set import relax_region
from ...ir.module import IRModule
from .. import op as _op
from ..analysis.regions import union_ranges
from ..buffer import Buffer
from ..expr import (
    Add,
    BufferLoad,
    Cast,
    FloorDiv,
    FloorMod,
    IntImm,
    IterVarType,
    Mul,
    PrimExpr,
    Range,
    Sub,
    Var,
)
from ..function import PrimFunc
from ..functor import Mutator, Visitor, collect_vars, field_values, substitute
from ..stmt import (
    Allocate,
    AssertStmt,
    AttrStmt,
    Block,
    BlockRealize,
    BufferRegion,
    BufferStore,
    Evaluate,
    For,
    IfThenElse,
    LetStmt,
    MatchBufferRegion,
    SeqStmt,
    Stmt,
)
from .error import HandleError, ScheduleError


# --------------------------------------------------------------------------- handles
class ScheduleDebugMask(enum.IntEnum):
    """The checks ``Schedule(debug_mask=...)`` may run after each primitive (classic bits)."""

    VERIFY_SREF_TREE = 1
    VERIFY_CACHED_FLAGS = 2


class BlockRV:
    """A handle to a block, valid across rewrites while the block exists (``BlockRV()``: a
    placeholder, equal only to itself, for building a trace by hand)."""

    __slots__ = ("name", "func_name")

    def __init__(self, name: Optional[str] = None, func_name: str = "main"):
        self.name = name
        self.func_name = func_name

    def __repr__(self) -> str:
        return f"BlockRV({self.name!r})"

    def same_as(self, other) -> bool:
        """Identity, as classic TVM's ``same_as``."""
        return self is other

    def __eq__(self, other):
        if self.name is None:
            return self is other
        return isinstance(other, BlockRV) and (other.name, other.func_name) == (
            self.name, self.func_name)

    def __hash__(self):
        return id(self) if self.name is None else hash((self.name, self.func_name))


class LoopRV:
    """A handle to a loop, identified by its loop variable (``LoopRV()``: a placeholder for
    building a trace by hand)."""

    __slots__ = ("var", "func_name")

    def __init__(self, var: Optional[Var] = None, func_name: str = "main"):
        if var is None:
            var = Var("l", "int32")
        self.var = var
        self.func_name = func_name

    def __repr__(self) -> str:
        return f"LoopRV({self.var.name!r})"

    def same_as(self, other) -> bool:
        """Identity, as classic TVM's ``same_as``."""
        return self is other

    def __eq__(self, other):
        return isinstance(other, LoopRV) and other.var is self.var

    def __hash__(self):
        return id(self.var)


# --------------------------------------------------------------------------- state
class CachedFlags(NamedTuple):
    """The flags classic ScheduleState caches for a block (``_get_cached_flags``)."""

    affine_binding: bool
    region_cover: bool
    stage_pipeline: bool


class StmtSRef:
    """Classic TVM's schedule reference to a block or loop: here the node and the state it
    was looked up in (tvmlite keeps no sref tree; nodes are immutable)."""

    def __init__(self, state: "ScheduleState", stmt: Stmt):
        self.state, self.stmt = state, stmt

    def same_as(self, other) -> bool:
        return (isinstance(other, StmtSRef) and other.state is self.state
                and other.stmt is self.stmt)

    def __repr__(self) -> str:
        return f"StmtSRef({type(self.stmt).__name__})"


class ScheduleState:
    """The module being scheduled and the function primitives currently work on.

    Classic TVM's public ``tir.ScheduleState(mod, debug_mask=...)`` is this class too: ``mod``
    (an IRModule or a PrimFunc, which becomes ``main``), :meth:`get_sref` and :meth:`replace`.
    Nodes are immutable, so :meth:`replace` always builds a new function and module (classic
    writes in place when nothing else holds the old nodes; the bit-level reuse is not offered)
    and leaves every node the user holds unchanged."""

    def __init__(self, mod, func_name: Optional[str] = None, *,
                 debug_mask: Union[str, int] = "none", enable_check: bool = True):
        if isinstance(mod, PrimFunc):
            mod = IRModule({func_name or "main": mod})
        if not isinstance(mod, IRModule):
            raise TypeError(f"ScheduleState expects an IRModule or a PrimFunc, got "
                            f"{type(mod).__name__}")
        if func_name is None:
            prims = [k for k, f in mod.functions.items() if isinstance(f, PrimFunc)]
            if not prims:
                raise TypeError("ScheduleState: the module has no PrimFunc")
            func_name = "main" if "main" in prims else prims[0]
        self.mod = mod
        self.func_name = func_name
        self._srefs: Dict[int, StmtSRef] = {}
        # (function, old block name) -> new name, for handles to a block a primitive renamed
        # (decompose_reduction's ``B`` -> ``B_update``); replaced, never mutated, so a
        # transaction restores it with one reference
        self.renamed: Dict[Tuple[str, str], str] = {}
        self._paths: Optional[_Paths] = None
        # (body, facts about it) a primitive may carry to the body it makes (compute_inline's
        # opaque buffer uses); keyed by the body object, so any other change drops it
        self.body_facts: Dict[str, Tuple[Stmt, object]] = {}

    @property
    def func(self) -> PrimFunc:
        return self.mod[self.func_name]

    @property
    def body(self) -> Stmt:
        return self.func.body

    def set_body(self, body: Stmt) -> None:
        mod = self.mod.copy()
        mod[self.func_name] = self.func.with_body(body)
        self.mod = mod

    def copy(self) -> "ScheduleState":
        out = ScheduleState(self.mod.copy(), self.func_name)
        out.renamed = self.renamed
        return out

    def rename_block(self, old: str, new: str) -> None:
        """Record that the block ``old`` is now called ``new`` (handles to it follow)."""
        self.renamed = {**self.renamed, (self.func_name, old): new}

    def _get_cached_flags(self, block_sref: StmtSRef):
        """Classic's cached flags of a block (``affine_binding``, ``region_cover``,
        ``stage_pipeline``), see :mod:`tvmlite.tir.schedule.block_flags`."""
        from .block_flags import compute_flags  # the analysis stands on this module
        body = self.body
        cached = self.body_facts.get("cached_flags")
        if cached is None or cached[0] is not body:
            cached = (body, compute_flags(body))
            self.body_facts = {**self.body_facts, "cached_flags": cached}
        stmt = block_sref.stmt if isinstance(block_sref, StmtSRef) else block_sref
        flags = cached[1].get(id(stmt))
        if flags is None:
            raise ScheduleError("_get_cached_flags: the sref is not a block of the function")
        return flags

    # ---- lookups
    def get_sref(self, stmt: Stmt) -> StmtSRef:
        """The reference to ``stmt`` (a Block or For of the function); asked twice for one
        node, the same reference."""
        ref = self._srefs.get(id(stmt))
        if ref is None or ref.stmt is not stmt:
            ref = self._srefs[id(stmt)] = StmtSRef(self, stmt)
        return ref

    def replace(self, src_sref: StmtSRef, tgt_stmt: Stmt,
                block_sref_reuse: Optional[Dict[Block, Block]] = None) -> None:
        """Replace the node ``src_sref`` refers to by ``tgt_stmt`` (classic TVM's
        ``ScheduleState.replace``): a Block by a Block, a loop by a loop or a BlockRealize.

        Parameters
        ----------
        src_sref : StmtSRef
            The reference to the node to replace.
        tgt_stmt : Stmt
            The new node.
        block_sref_reuse : dict of Block to Block, optional
            Blocks of the old tree that ``tgt_stmt`` holds in a new form: their references
            follow them. Other references to nodes no longer in the function get ``stmt``
            None.
        """
        old = src_sref.stmt
        if old is None:
            raise ScheduleError("ScheduleError: replace: the reference's statement was removed "
                                "by an earlier replace", "replace", "sref", "removed")
        if isinstance(old, Block) and not isinstance(tgt_stmt, Block):
            raise TypeError(f"replace: a Block must be replaced by a Block, got "
                            f"{type(tgt_stmt).__name__}")
        if isinstance(old, For) and not isinstance(tgt_stmt, (For, BlockRealize)):
            raise TypeError(f"replace: a loop must be replaced by a loop or a BlockRealize, "
                            f"got {type(tgt_stmt).__name__}")
        hits = ((n, f, find_path(f.body, lambda x: x is old))
                for n, f in self.mod.functions.items() if isinstance(f, PrimFunc))
        name, func, path = next((h for h in hits if h[2] is not None), (None, None, None))
        if path is None:
            raise ScheduleError("ScheduleError: replace: the reference's statement is not in "
                                "the module", "replace", "sref", "not in the module")
        mod = self.mod.copy()
        mod[name] = func.with_body(rebuild(path, tgt_stmt))
        self.mod = mod
        moved = {id(k): v for k, v in (block_sref_reuse or {}).items()}
        alive: set = set()
        for f in mod.functions.values():
            if isinstance(f, PrimFunc):
                walk_stmts(f.body, lambda x: alive.add(id(x)))
        refs = dict(self._srefs)
        refs.setdefault(id(old), src_sref)
        self._srefs = {}
        for ref in refs.values():
            if ref.stmt is not None and id(ref.stmt) in moved:
                ref.stmt = moved[id(ref.stmt)]
            elif ref.stmt is None or id(ref.stmt) not in alive:
                ref.stmt = None
                continue
            self._srefs[id(ref.stmt)] = ref

    def _index(self) -> "_Paths":
        """The paths to the loops and blocks of the current body (built once per body: the IR
        is immutable, so a primitive's new body is a new object)."""
        body = self.body
        if self._paths is None or self._paths.body is not body:
            self._paths = _Paths(body)
        return self._paths

    def block_path(self, rv: BlockRV, primitive: str = "get") -> List[Stmt]:
        """The path from the function body to the BlockRealize of ``rv``."""
        if not isinstance(rv, BlockRV):
            raise TypeError(f"{primitive}: expected a BlockRV, got {type(rv).__name__}")
        blocks = self._index().blocks
        name, seen = rv.name, set()
        path = blocks.get(name)
        while path is None and (self.func_name, name) in self.renamed and name not in seen:
            seen.add(name)
            name = self.renamed[(self.func_name, name)]
            path = blocks.get(name)
        if path is None:
            what = f'block "{rv.name}"'
            cond = "the block is not in the function (removed by an earlier primitive?)"
            raise HandleError(f"ScheduleError: {primitive}: {what}: {cond}", primitive, what,
                              cond)
        return list(path)

    def loop_path(self, rv: LoopRV, primitive: str = "get") -> List[Stmt]:
        """The path from the function body to the For of ``rv``."""
        if not isinstance(rv, LoopRV):
            raise TypeError(f"{primitive}: expected a LoopRV, got {type(rv).__name__}")
        path = self._index().loops.get(id(rv.var))
        if path is None or path[-1].loop_var is not rv.var:
            what = f'loop "{rv.var.name}"'
            cond = ("the loop is not in the function (split, fused or removed by an earlier "
                    "primitive?)")
            raise HandleError(f"ScheduleError: {primitive}: {what}: {cond}", primitive, what,
                              cond)
        return list(path)

    def block_names(self) -> set:
        return set(self._index().blocks)

    def fresh_block_name(self, base: str) -> str:
        names = self.block_names()
        if base not in names:
            return base
        k = 1
        while f"{base}_{k}" in names:
            k += 1
        return f"{base}_{k}"

    def is_output_buffer(self, buf: Buffer) -> bool:
        return any(b is buf for b in self.func.buffer_map.values())


class _Paths:
    """The path from ``body`` to the first (pre-order) loop of each loop variable (by id) and
    to the first BlockRealize of each block name."""

    def __init__(self, body: Stmt):
        self.body = body
        self.loops: Dict[int, List[Stmt]] = {}
        self.blocks: Dict[str, List[Stmt]] = {}
        path: List[Stmt] = []

        def enter(x) -> bool:
            path.append(x)
            if isinstance(x, For):
                self.loops.setdefault(id(x.loop_var), list(path))
            elif isinstance(x, BlockRealize):
                self.blocks.setdefault(x.block.name_hint, list(path))
            return True

        StmtWalker(enter, lambda x: path.pop()).visit(body)


# --------------------------------------------------------------------------- tree utilities
def _stmt_children(s: Stmt) -> List[Stmt]:
    """The statements directly under ``s``, in field order (a block's: its body alone)."""
    t = type(s)
    if t is Block or t is For:
        return [s.body]
    if t is BlockRealize:
        return [s.block]
    if t is SeqStmt:
        return list(s.seq)
    if t is BufferStore:
        return []
    out: List[Stmt] = []
    stack = [v for v in field_values(type(s))(s) if isinstance(v, (Stmt, tuple))]
    stack.reverse()
    while stack:  # expressions and regions hold no statements; tuples are flattened
        v = stack.pop()
        if isinstance(v, Stmt):
            out.append(v)
        elif isinstance(v, tuple):
            stack.extend(reversed(v))
    return out


class StmtWalker:
    """A parents-first walk over the statements under a node (expressions, regions and a
    block's ``init`` are not entered): ``enter(stmt)`` is called on each and a false result
    skips the statement's children; ``leave(stmt)`` follows them."""

    def __init__(self, enter: Callable[[Stmt], bool], leave: Optional[Callable] = None):
        self.enter = enter
        self.leave = leave

    def visit(self, x) -> None:
        if isinstance(x, Stmt):
            if self.enter(x):
                for c in _stmt_children(x):
                    self.visit(c)
            if self.leave is not None:
                self.leave(x)
        elif isinstance(x, tuple):
            for y in x:
                self.visit(y)


def children(s: Stmt) -> List[Stmt]:
    """Direct statement children of ``s`` (a block's ``init`` is not entered)."""
    out: List[Stmt] = []
    StmtWalker(lambda x: x is s or out.append(x)).visit(s)
    return out


def walk_stmts(s: Stmt, f: Callable[[Stmt], None]) -> None:
    """Call ``f`` on every statement under ``s``, parents first."""
    StmtWalker(lambda x: f(x) or True).visit(s)


def find_path(root: Stmt, match: Callable[[Stmt], bool]) -> Optional[List[Stmt]]:
    """The path ``[root, ..., node]`` to the first node satisfying ``match``."""
    path: List[Stmt] = []
    found: List[List[Stmt]] = []

    def enter(x):
        if found:
            return False
        path.append(x)
        if match(x):
            found.append(list(path))
            return False
        return True

    StmtWalker(enter, lambda x: None if found else path.pop()).visit(root)
    return found[0] if found else None


def _with_child(parent: Stmt, old: Stmt, new: Optional[Stmt]) -> Stmt:
    """``parent`` with its child ``old`` replaced by ``new`` (None removes it)."""
    if isinstance(parent, SeqStmt):
        items = []
        for c in parent.seq:
            if c is old:
                if new is not None:
                    items.append(new)
            else:
                items.append(c)
        return SeqStmt.flatten(*items)
    if new is None:
        new = Evaluate(IntImm("int32", 0))
    if isinstance(parent, BlockRealize):
        return dataclasses.replace(parent, block=new)
    if isinstance(parent, IfThenElse):
        if parent.then_case is old:
            return dataclasses.replace(parent, then_case=new)
        return dataclasses.replace(parent, else_case=new)
    return dataclasses.replace(parent, body=new)


def rebuild(path: Sequence[Stmt], new: Optional[Stmt]) -> Optional[Stmt]:
    """``path[0]`` with ``path[-1]`` replaced by ``new`` (None deletes it), the nodes between
    rebuilt."""
    cur = new
    for i in range(len(path) - 1, 0, -1):
        cur = _with_child(path[i - 1], path[i], cur)
    return cur


def replace(state: ScheduleState, path: Sequence[Stmt], new: Optional[Stmt]) -> Stmt:
    """Replace ``path[-1]`` by ``new`` (None deletes it) and rebuild the path to the root;
    returns the new root (also stored in ``state``)."""
    cur = rebuild(path, new)
    if cur is None:
        cur = Evaluate(IntImm("int32", 0))
    state.set_body(cur)
    return cur


def loops_above(path: Sequence[Stmt]) -> List[For]:
    """The loops between the nearest enclosing block and ``path[-1]``, outermost first."""
    out: List[For] = []
    for s in reversed(path[:-1]):
        if isinstance(s, (Block, BlockRealize)):
            break
        if isinstance(s, For):
            out.append(s)
    return out[::-1]


def scope_index(path: Sequence[Stmt]) -> int:
    """Index in ``path`` of the BlockRealize of the scope block enclosing ``path[-1]``
    (-1 when the target is not under any block)."""
    for i in range(len(path) - 2, -1, -1):
        if isinstance(path[i], BlockRealize):
            return i
    return -1


def loop_domains(path: Iterable[Stmt]) -> Dict[Var, Range]:
    """``{loop_var: Range}`` of every loop on ``path``."""
    return {s.loop_var: Range(s.min, s.extent) for s in path if isinstance(s, For)}


def child_blocks(s: Stmt) -> List[BlockRealize]:
    """The BlockRealizes under ``s`` not nested inside another block, in program order."""
    out: List[BlockRealize] = []

    def enter(x):
        if isinstance(x, BlockRealize) and x is not s:
            out.append(x)
            return False
        return True

    StmtWalker(enter).visit(s)
    return out


def is_leaf_block(block: Block) -> bool:
    """Whether ``block`` holds no other block."""
    body = block.body
    if type(body) is BufferStore:
        return True
    # child_blocks(s) looks inside s when s is itself a BlockRealize: a body that is one
    # realize is a child, not a leaf
    return not isinstance(body, BlockRealize) and not child_blocks(body)


def exclusive_subtree(path: Sequence[Stmt]) -> int:
    """Index in ``path`` of the highest loop holding nothing but ``path[-1]`` (the target
    itself when its parent has other children)."""
    k = len(path) - 1
    while k > 0 and isinstance(path[k - 1], For):
        k -= 1
    return k


def with_loop_body(loop: For, body: Stmt) -> For:
    return For(loop.loop_var, loop.min, loop.extent, loop.kind, body, loop.thread_binding,
               loop.annotations)


def is_one(e) -> bool:
    return isinstance(e, IntImm) and e.value == 1


def is_true(e) -> bool:
    return isinstance(e, IntImm) and e.value != 0


def const_value(e) -> Optional[int]:
    return e.value if isinstance(e, IntImm) else None


def conj(a: PrimExpr, b: PrimExpr) -> PrimExpr:
    if is_true(a):
        return b
    if is_true(b):
        return a
    return _op.logical_and(a, b)


# --------------------------------------------------------------------------- arithmetic
def analyzer(dom: Optional[Dict[Var, Range]] = None):
    """An ``arith.Analyzer`` with ``dom``'s variables bound to their ranges."""
    ana = Analyzer()
    for v, r in (dom or {}).items():
        ana.bind(v, r)
    return ana


def simplify(e: PrimExpr, dom: Optional[Dict[Var, Range]] = None) -> PrimExpr:
    return analyzer(dom).simplify(e)


def can_prove(e: PrimExpr, dom: Optional[Dict[Var, Range]] = None) -> bool:
    e = _op.convert(e)
    if isinstance(e, IntImm):
        return bool(e.value)
    return bool(analyzer(dom).can_prove(e))


def relax_indices(indices: Sequence[PrimExpr], relax: Dict[Var, Range],
                  outer: Dict[Var, Range]) -> List[Range]:
    """The region ``indices`` cover when the variables of ``relax`` sweep their ranges (the
    variables of ``outer`` stay symbolic; their ranges help simplification)."""
    rs = relax_region(list(indices), relax)
    out = []
    for r in rs:
        out.append(Range(simplify(r.min, outer), simplify(r.extent, {**outer, **relax})))
    return out


def union_regions(regions: List[List[Range]], dom: Dict[Var, Range]) -> List[Range]:
    """The smallest box holding every region of ``regions`` (all of one rank)."""
    assert regions
    if len(regions) == 1:
        return list(regions[0])
    ana = analyzer(dom)
    return [union_ranges(rs, ana) for rs in zip(*regions)]


# --------------------------------------------------------------------------- accesses
class Access:
    """One load or store of ``buffer`` at ``indices``; ``inner`` are the ranges of loops inside
    the analysed statement that enclose the access."""

    __slots__ = ("buffer", "indices", "inner", "is_write")

    def __init__(self, buffer, indices, inner, is_write):
        self.buffer, self.indices, self.inner, self.is_write = buffer, indices, inner, is_write


class _AccessCollector(Visitor):
    def __init__(self):
        self.out: List[Access] = []
        self.inner: Dict[Var, Range] = {}
        self.vmap: Dict[Var, PrimExpr] = {}

    def _idx(self, indices):
        return tuple(substitute(i, self.vmap) for i in indices) if self.vmap else tuple(indices)

    def visit_BufferLoad(self, e):
        self.out.append(Access(e.buffer, self._idx(e.indices), dict(self.inner), False))
        self.generic(e)

    def visit_BufferStore(self, s):
        self.out.append(Access(s.buffer, self._idx(s.indices), dict(self.inner), True))
        self.generic(s)

    def visit_For(self, s):
        self.visit(s.min)
        self.visit(s.extent)
        self.inner[s.loop_var] = Range(substitute(s.min, self.vmap),
                                       substitute(s.extent, self.vmap))
        self.visit(s.body)
        del self.inner[s.loop_var]

    def visit_BlockRealize(self, r):
        for v in r.iter_values:
            self.visit(v)
        saved = dict(self.vmap)
        for iv, v in zip(r.block.iter_vars, r.iter_values):
            self.vmap[iv.var] = substitute(v, saved) if saved else v
        b = r.block
        start = len(self.out)
        if b.init is not None:
            self.visit(b.init)
        self.visit(b.body)
        # a buffer the body reaches only through an opaque pointer (an intrinsic's
        # tvm_access_ptr) is accessed over the region the block declares for it
        seen = {id(a.buffer) for a in self.out[start:]}
        for regions, is_write in ((b.reads, False), (b.writes, True)):
            for reg in regions:
                if id(reg.buffer) not in seen:
                    self._declared(reg, is_write)
        self.vmap = saved

    def _declared(self, reg, is_write: bool) -> None:
        inner, idx = dict(self.inner), []
        for k, rg in enumerate(reg.region):
            mn, ext = substitute(rg.min, self.vmap), substitute(rg.extent, self.vmap)
            if is_one(ext):
                idx.append(mn)
                continue
            v = Var(f"{reg.buffer.name}_ax{k}", mn.dtype)
            inner[v] = Range(IntImm(mn.dtype, 0), ext)
            idx.append(_op.add(mn, v))
        self.out.append(Access(reg.buffer, tuple(idx), inner, is_write))


def collect_accesses(s) -> List[Access]:
    """Every buffer access under ``s`` (a statement or a Block), indices in terms of the
    variables visible at ``s`` (nested blocks' iterators replaced by their bindings)."""
    c = _AccessCollector()
    if isinstance(s, Block):
        if s.init is not None:
            c.visit(s.init)
        c.visit(s.body)
    else:
        c.visit(s)
    return c.out


def realize_accesses(realize: BlockRealize) -> List[Access]:
    """Accesses of a block instance, in terms of the loop variables around it."""
    c = _AccessCollector()
    c.visit(realize)
    return c.out


def access_region(accesses: List[Access], buffer: Buffer, relax: Dict[Var, Range],
                  outer: Dict[Var, Range], writes: Optional[bool] = None) -> Optional[List[Range]]:
    """The union over ``accesses`` of ``buffer`` of the indices relaxed over ``relax`` and each
    access's inner loops; None when ``buffer`` is not accessed."""
    regions = []
    for a in accesses:
        if a.buffer is not buffer or (writes is not None and a.is_write != writes):
            continue
        try:
            regions.append(relax_indices(a.indices, {**relax, **a.inner}, outer))
        except ValueError:  # an index no interval bounds (floormod by a symbolic extent)
            regions.append([Range(IntImm("int32", 0), n) for n in buffer.shape])
    if not regions:
        return None
    return union_regions(regions, {**outer, **relax})


# (id(block), is_write) -> (block, buffers): the IR is immutable, so what a Block object
# accesses never changes; primitives ask it of every block of a function on each call
_BUFFERS_MEMO: Dict[Tuple[int, bool], Tuple[Block, Tuple[Buffer, ...]]] = {}


def _buffers(block: Block, is_write: bool) -> List[Buffer]:
    """The buffers ``block`` accesses (``is_write``: stores), then those it declares."""
    hit = _BUFFERS_MEMO.get((id(block), is_write))
    if hit is not None and hit[0] is block:
        return list(hit[1])
    out: List[Buffer] = []
    declared = [r.buffer for r in (block.writes if is_write else block.reads)]
    for buf in [a.buffer for a in collect_accesses(block) if a.is_write == is_write] + declared:
        if all(b is not buf for b in out):
            out.append(buf)
    if len(_BUFFERS_MEMO) > 8192:
        _BUFFERS_MEMO.clear()
    _BUFFERS_MEMO[(id(block), is_write)] = (block, tuple(out))
    return out


def buffers_written(block: Block) -> List[Buffer]:
    return _buffers(block, True)


def buffers_read(block: Block) -> List[Buffer]:
    return _buffers(block, False)


def with_block(realize: BlockRealize, **changes) -> BlockRealize:
    return dataclasses.replace(realize, block=dataclasses.replace(realize.block, **changes))


def is_reduction_block(block: Block) -> bool:
    return block.init is not None or any(
        iv.iter_type == IterVarType.CommReduce for iv in block.iter_vars)


class ReplaceBuffer:
    """Rewrite every use of some buffers (loads, stores, regions, allocations)."""

    def __init__(self, bmap: Dict[Buffer, Buffer]):
        self.bmap = bmap

    def __call__(self, node):
        bmap = self.bmap

        class _M(Mutator):
            def visit_BufferLoad(self, e):
                e2 = self.generic(e)
                nb = bmap.get(e2.buffer)
                return BufferLoad(nb, e2.indices) if nb is not None else e2

            def visit_BufferStore(self, s):
                s2 = self.generic(s)
                nb = bmap.get(s2.buffer)
                return BufferStore(nb, s2.value, s2.indices) if nb is not None else s2

            def visit_BufferRegion(self, r):
                nb = bmap.get(r.buffer)
                return BufferRegion(nb, r.region) if nb is not None else r

            def visit_Block(self, b):
                b2 = self.generic(b)
                allocs = tuple(bmap.get(x, x) for x in b2.alloc_buffers)
                if any(x is not y for x, y in zip(allocs, b2.alloc_buffers)):
                    b2 = dataclasses.replace(b2, alloc_buffers=allocs)
                matches = tuple(
                    MatchBufferRegion(bmap.get(m.buffer, m.buffer),
                                      self.visit_BufferRegion(m.source))
                    for m in b2.match_buffers)
                if any(x.buffer is not y.buffer or x.source is not y.source
                       for x, y in zip(matches, b2.match_buffers)):
                    b2 = dataclasses.replace(b2, match_buffers=matches)
                return b2

        return _M().visit(node)


def ensure_root_block(state: ScheduleState) -> None:
    """Wrap the function body in a root block when it has none (allocations need one)."""
    body = state.body
    if isinstance(body, BlockRealize) and not body.block.iter_vars:
        return
    root = Block((), (), (), "root", body)
    state.set_body(BlockRealize((), IntImm("bool", 1), root))


def add_alloc(state: ScheduleState, buf: Buffer) -> None:
    """Allocate ``buf`` in the root block."""
    ensure_root_block(state)
    root = state.body
    state.set_body(with_block(root, alloc_buffers=root.block.alloc_buffers + (buf,)))


def remove_alloc(state: ScheduleState, buf: Buffer) -> None:
    """Drop ``buf`` from whichever block allocates it."""
    path = find_path(state.body, lambda s: isinstance(s, BlockRealize)
                     and any(b is buf for b in s.block.alloc_buffers))
    if path is None:
        return
    r = path[-1]
    new = with_block(r, alloc_buffers=tuple(b for b in r.block.alloc_buffers if b is not buf))
    replace(state, path, new)


__all__ = ["BlockRV", "LoopRV", "ScheduleState", "ScheduleError"]


def rebind_blocks(s: Stmt, vmap: Dict[Var, PrimExpr], outer: Dict[Var, Range],
                  extra_pred: Optional[PrimExpr] = None, simplify_predicates: bool = True,
                  keep_vars: Iterable[Var] = ()) -> Stmt:
    """Substitute ``vmap`` into the bindings and predicates of the outermost blocks under
    ``s`` (and into loop bounds on the way), simplify the bindings under the loop ranges, and
    add ``extra_pred`` (after substitution) to each predicate.

    An opaque block (one without iterators) that uses a substituted variable gets it replaced
    everywhere inside, and the bindings of the blocks nested in it are simplified in turn.
    ``simplify_predicates=False`` keeps predicates as substituted (classic split's spelling);
    ``keep_vars`` are left out of the ranges the simplifier knows, so a unit loop the caller
    keeps is not folded to its constant value."""
    keep = set(keep_vars)

    def rec(x, dom, vm, pred_extra):
        if isinstance(x, BlockRealize):
            vals = x.iter_values
            if vals:  # one analyzer of the loop ranges for all bindings
                ana = analyzer({v: r for v, r in dom.items() if v not in keep})
                vals = tuple(ana.simplify(substitute(v, vm)) for v in vals)
            pred = substitute(x.predicate, vm)
            if pred_extra is not None:
                pred = conj(pred, pred_extra)
            if simplify_predicates and not is_true(pred):
                pred = simplify(pred, dom)
            if is_true(pred):
                pred = IntImm("bool", 1)
            block = x.block
            if not x.iter_values and vm and collect_vars(block) & set(vm):
                block = substitute(block, vm)
                block = dataclasses.replace(block, body=rec(block.body, dom, {}, None))
            elif not x.iter_values and not vm:
                block = dataclasses.replace(block, body=rec(block.body, dom, {}, None))
            return BlockRealize(vals, pred, block)
        if isinstance(x, For):
            mn, ext = substitute(x.min, vm), substitute(x.extent, vm)
            d2 = dict(dom)
            d2[x.loop_var] = Range(mn, ext)
            body = rec(x.body, d2, vm, pred_extra)
            return For(x.loop_var, mn, ext, x.kind, body, x.thread_binding, x.annotations)
        if isinstance(x, SeqStmt):
            return SeqStmt.flatten(*[rec(c, dom, vm, pred_extra) for c in x.seq])
        if isinstance(x, (IfThenElse,)):
            return IfThenElse(substitute(x.condition, vm), rec(x.then_case, dom, vm, pred_extra),
                              rec(x.else_case, dom, vm, pred_extra)
                              if x.else_case is not None else None)
        if isinstance(x, (LetStmt, AttrStmt, AssertStmt, Allocate)):
            return substitute(dataclasses.replace(x, body=rec(x.body, dom, vm, pred_extra)), vm)
        return substitute(x, vm)

    return rec(s, dict(outer), vmap, extra_pred)


def bound_vars_of_loop(s: Stmt, var: Var) -> List[Tuple[BlockRealize, List]]:
    """For each outermost block under ``s``: the block iterators whose binding uses ``var``."""
    out = []
    for r in child_blocks(s):
        ivs = [iv for iv, v in zip(r.block.iter_vars, r.iter_values) if var in collect_vars(v)]
        out.append((r, ivs))
    return out


def is_quasi_affine(e: PrimExpr, loop_vars: Iterable[Var]) -> bool:
    """Whether ``e`` is built from ``loop_vars`` and constants by ``+``, ``-``, products with a
    constant, and ``//``/``%`` by a positive constant (the bindings primitives can reason
    about; e.g. ``k * k`` is not)."""
    lv = set(loop_vars)

    def rec(x) -> bool:
        if isinstance(x, (IntImm, Var)):
            return not isinstance(x, Var) or x in lv
        if isinstance(x, (Add, Sub)):
            return rec(x.a) and rec(x.b)
        if isinstance(x, Mul):
            return (isinstance(x.a, IntImm) and rec(x.b)) or (isinstance(x.b, IntImm) and rec(x.a))
        if isinstance(x, (FloorDiv, FloorMod)):
            return isinstance(x.b, IntImm) and x.b.value > 0 and rec(x.a)
        if isinstance(x, Cast):
            return rec(x.value)
        return False

    return rec(e)
