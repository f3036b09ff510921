"""``rfactor``: split a reduction into per-lane partial results and a final combine."""
from __future__ import annotations

import dataclasses
from typing import Callable, Dict, List, Optional, Tuple

from ...ir.structural import structural_equal
from .. import op as _op
from ..analysis import block_regions
from ..buffer import Buffer
from ..expr import (
    EQ,
    GE,
    GT,
    LE,
    LT,
    Add,
    And,
    BufferLoad,
    IntImm,
    IterVar,
    IterVarType,
    Max,
    Min,
    Mul,
    Or,
    PrimExpr,
    Range,
    Select,
    Var,
)
from ..functor import collect_vars, post_order_visit, substitute
from ..stmt import Block, BlockRealize, BufferStore, For, ForKind, LetStmt, SeqStmt, Stmt
from .error import fail
from .state import (
    BlockRV,
    LoopRV,
    ScheduleState,
    _with_child,
    add_alloc,
    child_blocks,
    conj,
    is_one,
    is_quasi_affine,
    loop_domains,
    loops_above,
    replace,
    simplify,
)

_COMBINERS: Dict[type, Callable] = {Add: _op.add, Mul: _op.mul, Min: _op.min, Max: _op.max}
# the combiner's identity: what each partial starts from (a user init may be anything; it
# belongs to the write-back block only, once per output element)
_IDENTITIES: Dict[type, Callable[[str], PrimExpr]] = {
    Add: lambda dt: _op.const(0, dt), Mul: lambda dt: _op.const(1, dt),
    Min: _op.max_value, Max: _op.min_value}


def _conjuncts(e) -> list:
    if isinstance(e, And):
        return _conjuncts(e.a) + _conjuncts(e.b)
    return [e]


@dataclasses.dataclass
class _Reduction:
    """``bufs[k][idx] = combine(xs, ys)[k]`` with ``xs`` the buffers' own elements and ``ys``
    the values ``rhs`` folded in; partial results start from ``identity``, the output from
    the block's own ``init``."""

    bufs: List[Buffer]
    idx: Tuple[PrimExpr, ...]
    rhs: List[PrimExpr]
    combine: Callable[[List[PrimExpr], List[PrimExpr]], List[PrimExpr]]
    identity: List[PrimExpr]
    init: List[PrimExpr]

    def update(self, targets: List[Buffer], idx, ys: List[PrimExpr]) -> Stmt:
        """The combine of ``targets[k][idx]`` with ``ys``; a tuple reduction computes every
        value (into let variables) before storing any, as classic TVM prints it."""
        vals = self.combine([BufferLoad(b, tuple(idx)) for b in targets], ys)
        if len(targets) == 1:
            return BufferStore(targets[0], vals[0], tuple(idx))
        lets = [Var(f"v_{b.name}", b.dtype) for b in targets]
        body: Stmt = stores(targets, idx, lets)
        for v, val in reversed(list(zip(lets, vals))):
            body = LetStmt(v, val, body)
        return body


def stores(targets: List[Buffer], idx, values) -> Stmt:
    return SeqStmt.flatten(*[BufferStore(b, v, tuple(idx)) for b, v in zip(targets, values)])


def _x(k: int, dt: str) -> Var:
    return Var(f"x{k}", dt)


def _y(k: int, dt: str) -> Var:
    return Var(f"y{k}", dt)


def _argmax_idx(x, y):  # the larger value; of equal ones the smaller index (exact)
    return Select(Or(GT(x[1], y[1]), And(EQ(x[1], y[1]), LT(x[0], y[0]))), x[0], y[0])


def _argmin_idx(x, y):
    return Select(Or(LT(x[1], y[1]), And(EQ(x[1], y[1]), LT(x[0], y[0]))), x[0], y[0])


# tuple reducers rfactor knows, as (combiner over placeholders x, y; identity per dtype):
# sum pairs, and argmax/argmin breaking ties by the smaller index (classic TOPI's form, and
# tvmlite TOPI's, whose value also follows the index condition)
_TUPLE_REDUCERS = [
    (lambda x, y: [Add(x[0], y[0]), Add(x[1], y[1])],
     lambda dts: [_op.const(0, dts[0]), _op.const(0, dts[1])]),
    (lambda x, y: [_argmax_idx(x, y), Select(GT(x[1], y[1]), x[1], y[1])],
     lambda dts: [_op.const(-1, dts[0]), _op.min_value(dts[1])]),
    (lambda x, y: [_argmax_idx(x, y), Select(_argmax_idx(x, y).condition, x[1], y[1])],
     lambda dts: [_op.const(-1, dts[0]), _op.min_value(dts[1])]),
    (lambda x, y: [_argmin_idx(x, y), Select(LT(x[1], y[1]), x[1], y[1])],
     lambda dts: [_op.const(-1, dts[0]), _op.max_value(dts[1])]),
    (lambda x, y: [_argmin_idx(x, y), Select(_argmin_idx(x, y).condition, x[1], y[1])],
     lambda dts: [_op.const(-1, dts[0]), _op.max_value(dts[1])]),
]
# argmax/argmin keeping the first of equal values: which index a tie gives depends on the
# order values arrive in, which rfactor changes
_ORDER_DEPENDENT = [
    lambda x, y: [Select(GE(x[1], y[1]), x[0], y[0]), Select(GE(x[1], y[1]), x[1], y[1])],
    lambda x, y: [Select(LE(x[1], y[1]), x[0], y[0]), Select(LE(x[1], y[1]), x[1], y[1])],
]


def _unify(p, e, holes: Dict[Var, Optional[PrimExpr]]) -> bool:
    """Whether ``e`` is ``p`` with its hole variables filled (consistently) by
    subexpressions, recorded in ``holes``."""
    if isinstance(p, Var) and p in holes:
        if holes[p] is None:
            holes[p] = e
            return True
        return _same(holes[p], e)
    if isinstance(p, (list, tuple)):
        return (isinstance(e, (list, tuple)) and len(p) == len(e)
                and all(_unify(a, b, holes) for a, b in zip(p, e)))
    if type(p) is not type(e):
        return False
    if isinstance(p, Var):
        return p is e
    if dataclasses.is_dataclass(p):
        return all(_unify(getattr(p, f.name), getattr(e, f.name), holes)
                   for f in dataclasses.fields(p))
    return p == e


def _match_reduction(block: Block, prim: str, what: str) -> _Reduction:
    """The reduction ``block`` computes: ``B[i] = B[i] <op> rhs`` (a let-bound value
    allowed), or a tuple of buffers updated through let variables (argmax/argmin)."""
    body, init = block.body, block.init
    if init is None:
        raise fail(prim, what, "the block is not a reduction block (it has no init)")
    if isinstance(init, SeqStmt):
        return _match_tuple(block, prim, what)
    if isinstance(body, LetStmt) and isinstance(body.body, BufferStore) \
            and body.body.value is body.var:
        body = BufferStore(body.body.buffer, body.value, body.body.indices)
    if not isinstance(body, BufferStore) or not isinstance(init, BufferStore):
        raise fail(prim, what, "the block's body and init must each be a single store, or "
                   "let-bound values stored to a tuple of buffers")
    buf, idx = body.buffer, body.indices
    comb = _COMBINERS.get(type(body.value))
    if comb is None:
        raise fail(prim, what, "the update is not a sum, product, min or max of the output "
                   "and a value")

    def is_self(e):
        return (isinstance(e, BufferLoad) and e.buffer is buf and len(e.indices) == len(idx)
                and all(a is b or _same(a, b) for a, b in zip(e.indices, idx)))

    v = body.value
    if is_self(v.a):
        rhs = v.b
    elif is_self(v.b):
        rhs = v.a
    else:
        raise fail(prim, what, "the update does not combine the output element with a value")
    if init.buffer is not buf or not all(_same(a, b) for a, b in zip(init.indices, idx)):
        raise fail(prim, what, "the init does not store to the updated element")
    return _Reduction([buf], tuple(idx), [rhs], lambda xs, ys: [comb(xs[0], ys[0])],
                      [_IDENTITIES[type(v)](buf.dtype)], [init.value])


def _match_tuple(block: Block, prim: str, what: str) -> _Reduction:
    inits = list(block.init.seq)
    if not all(isinstance(x, BufferStore) for x in inits) or \
            len({id(x.buffer) for x in inits}) != len(inits):
        raise fail(prim, what, "the init must store once to each buffer of the tuple")
    n = len(inits)
    lets: List[LetStmt] = []
    s = block.body
    while isinstance(s, LetStmt):
        lets.append(s)
        s = s.body
    seq = list(s.seq) if isinstance(s, SeqStmt) else [s]
    if len(lets) != n or len(seq) != n:
        raise fail(prim, what, f"a tuple reduction of {n} buffers must compute {n} let-bound "
                   f"values, then store each")
    by_var = {}
    for st in seq:
        if not isinstance(st, BufferStore) or not any(st.value is lt.var for lt in lets) \
                or st.value in by_var:
            raise fail(prim, what, "each store of the tuple must store one of the let values")
        by_var[st.value] = st
    ordered = [by_var[lt.var] for lt in lets]  # the buffers in the order their values come
    bufs = [st.buffer for st in ordered]
    idx = tuple(ordered[0].indices)
    init_of = {id(x.buffer): x for x in inits}
    for st in ordered:
        ini = init_of.get(id(st.buffer))
        if ini is None:
            raise fail(prim, what, f'the init does not store to buffer "{st.buffer.name}"')
        if len(st.buffer.shape) != len(idx) or not all(
                _same(a, b) for a, b in zip(st.buffer.shape, bufs[0].shape)):
            raise fail(prim, what, "the buffers of the tuple have different shapes")
        if not all(len(x) == len(idx) and all(_same(a, b) for a, b in zip(x, idx))
                   for x in (st.indices, ini.indices)):
            raise fail(prim, what, "the tuple's stores and inits must all be at the same "
                       "indices")
    # the let values may use earlier let variables: see them expanded
    env: Dict[Var, PrimExpr] = {}
    values = []
    for lt in lets:
        values.append(substitute(lt.value, env))
        env[lt.var] = values[-1]
    xs = [BufferLoad(b, idx) for b in bufs]
    dts = [b.dtype for b in bufs]
    xh = [_x(k, dt) for k, dt in enumerate(dts)]
    yh = [_y(k, dt) for k, dt in enumerate(dts)]
    init_values = [init_of[id(b)].value for b in bufs]
    for pattern in _ORDER_DEPENDENT:
        holes = {v: None for v in xh + yh}
        if n == 2 and _unify(pattern(xh, yh), values, holes) and all(
                _same(holes[x], ld) for x, ld in zip(xh, xs)):
            raise fail(prim, what, "the tuple reducer keeps the first of equal values "
                       "(Select(x1 >= y1, ...) or <=), so which index a tie gives depends on "
                       "the order rfactor changes; break ties by the index, as "
                       "(x1 > y1 or x1 == y1 and x0 < y0)")
    for pattern, identity in _TUPLE_REDUCERS:
        holes = {v: None for v in xh + yh}
        if n != 2 or not _unify(pattern(xh, yh), values, holes):
            continue
        if not all(_same(holes[x], ld) for x, ld in zip(xh, xs)):
            continue
        ident = identity(dts)
        if not all(_same(a, b) for a, b in zip(ident, init_values)):
            raise fail(prim, what, f"the init {init_values} is not the reducer's identity "
                       f"{ident}")
        return _Reduction(bufs, idx, [holes[y] for y in yh],
                          lambda xs_, ys_, p=pattern, h=xh + yh: [
                              substitute(e, dict(zip(h, list(xs_) + list(ys_))))
                              for e in p(xh, yh)],
                          ident, init_values)
    raise fail(prim, what, "the tuple update matches no reducer rfactor knows (sum pairs, "
               "argmax/argmin breaking ties by the index)")


def _ordered_vars(e) -> List[Var]:
    out: List[Var] = []
    post_order_visit(e, lambda x: out.append(x) if isinstance(x, Var) and x not in out else None)
    return out


def _check_reduction_block(block: Block, realize: BlockRealize, idx, prim: str,
                           what: str) -> None:
    """Conditions classic TVM puts on a block it factors: quasi-affine bindings and output
    indices free of reduction iterators. (An init other than the combiner's identity is
    accepted: it goes to the write-back block only, which is exact.)"""
    loop_vars = set()
    for v in realize.iter_values:
        loop_vars |= collect_vars(v)
    for iv, val in zip(block.iter_vars, realize.iter_values):
        if not is_quasi_affine(val, loop_vars):
            raise fail(prim, what, f'the binding of iterator "{iv.var.name}", {val!r}, is not '
                       "quasi-affine")
    red = {iv.var for iv in block.iter_vars if iv.iter_type == IterVarType.CommReduce}
    for i in idx:
        if collect_vars(i) & red:
            raise fail(prim, what, f"the output index {i!r} uses a reduction iterator")


def _same(a, b) -> bool:
    return a is b or structural_equal(a, b, map_free_vars=False)


def rfactor(state: ScheduleState, loop_rv: LoopRV, factor_axis: int) -> BlockRV:
    """Factor the reduction of the block under ``loop`` (a reduction loop): a new block
    ``<block>_rf`` accumulates one partial result per iteration of ``loop`` into
    ``<buffer>_rf`` (the loop's axis inserted at ``factor_axis``), and the original block
    becomes the combine of those partials. Returns the ``_rf`` block.

    The update is a sum, product, min or max (a let-bound value allowed), or a tuple
    reduction over several buffers written through let variables: sum pairs, and
    argmax/argmin breaking ties by the smaller index (one ``_rf`` buffer per element). An
    argmax keeping the first of equal values is refused: rfactor changes the order values
    arrive in, so which index a tie gives.

    Before::

        for i, k in T.grid(8, 16):
            with T.block("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    B[vi] = 0.0
                B[vi] = B[vi] + A[vi, vk]

    After splitting ``k`` by 4 and ``rfactor(k_1, 0)``::

        for i, k_0, k_1 in T.grid(8, 4, 4):
            with T.block("B_rf"):
                vk_1, vi, vk_0 = T.axis.remap("SSR", [k_1, i, k_0])
                with T.init():
                    B_rf[vk_1, vi] = 0.0
                B_rf[vk_1, vi] = B_rf[vk_1, vi] + A[vi, vk_0 * 4 + vk_1]
        for i, k_1 in T.grid(8, 4):
            with T.block("B"):
                vi, vk_1 = T.axis.remap("SR", [i, k_1])
                with T.init():
                    B[vi] = 0.0
                B[vi] = B[vi] + B_rf[vk_1, vi]
    """
    prim = "rfactor"
    lpath = state.loop_path(loop_rv, prim)
    loop: For = lpath[-1]
    lwhat = f'loop "{loop.loop_var.name}"'
    blocks = child_blocks(loop)
    if len(blocks) != 1:
        raise fail(prim, lwhat, f"the loop must hold exactly one block, it holds {len(blocks)}")
    realize = blocks[0]
    block = realize.block
    what = f'block "{block.name_hint}" at loop "{loop.loop_var.name}"'
    red = _match_reduction(block, prim, what)
    idx = red.idx
    if not (isinstance(loop.min, IntImm) and loop.min.value == 0):
        raise fail(prim, what, "the loop must start at 0")
    bpath = state.block_path(BlockRV(block.name_hint), prim)
    loops = loops_above(bpath)
    red_vars, sp_vars = set(), set()
    for iv, val in zip(block.iter_vars, realize.iter_values):
        (red_vars if iv.iter_type == IterVarType.CommReduce else sp_vars).update(
            collect_vars(val))
        if iv.iter_type not in (IterVarType.CommReduce, IterVarType.DataPar):
            raise fail(prim, what, f'iterator "{iv.var.name}" is neither spatial nor reduction')
    r = loop.loop_var
    if loop.kind != ForKind.SERIAL:
        raise fail(prim, what, f"the loop is {loop.kind.name.lower()}, rfactor needs a serial "
                   "loop")
    if r in sp_vars:
        raise fail(prim, what, "the loop does not iterate over a reduction iterator (it binds a "
                   "spatial one)")
    if r not in red_vars and not is_one(loop.extent):
        raise fail(prim, what, "the loop does not iterate over a reduction iterator")
    mixed = red_vars & sp_vars & {lp.loop_var for lp in loops}
    if mixed:
        raise fail(prim, what, f'loop "{next(iter(mixed)).name}" feeds both spatial and '
                   "reduction iterators")
    _check_reduction_block(block, realize, idx, prim, what)
    scope = next((x for x in reversed(bpath[:-1]) if isinstance(x, Block)), None)
    if scope is not None and not state._get_cached_flags(scope).stage_pipeline:
        # classic: a block whose inputs are not fully produced (or are overwritten after
        # being read) in its scope cannot be factored
        raise fail(prim, what, f'the scope block "{scope.name_hint}" is not a stage pipeline '
                   "(a consumer reads a region its producers do not cover, or a buffer is "
                   "written after it is read)")
    # the rfactor nest runs before the whole outermost loop (as in classic TVM, which computes
    # this case wrongly): a block under that loop must not write what the reduction reads
    reads = {r.buffer for r in block.reads}
    for other in child_blocks(loops[0]):
        if other is not realize:
            hit = next((w.buffer for w in other.block.writes if w.buffer in reads), None)
            if hit is not None:
                raise fail(prim, what, f'block "{other.block.name_hint}" under loop '
                           f'"{loops[0].loop_var.name}", the outermost loop of the block, '
                           f'writes "{hit.name}" that the block reads, and the rfactor block '
                           "would run before it")
    first_red = next((k for k, lp in enumerate(loops) if lp.loop_var in red_vars), None)
    if first_red is not None:
        if len(child_blocks(loops[first_red])) != 1:
            raise fail(prim, what, f'loop "{loops[first_red].loop_var.name}", the outermost '
                       "loop feeding the reduction, must hold only this block")
        for lp in loops[first_red:]:
            if (lp.loop_var not in red_vars and lp.loop_var not in sp_vars
                    and not is_one(lp.extent)):
                raise fail(prim, what, f'loop "{lp.loop_var.name}" under a reduction loop binds '
                           "no block iterator and its extent is not 1")
    ndim = len(idx)
    if not isinstance(factor_axis, int) or not -(ndim + 1) <= factor_axis <= ndim:
        raise fail(prim, what, f"factor_axis {factor_axis!r} is out of range for a "
                   f"{ndim}-dimensional output")
    fa = factor_axis + ndim + 1 if factor_axis < 0 else factor_axis

    rf_bufs = []
    for buf in red.bufs:
        rf_shape = tuple(buf.shape[:fa]) + (loop.extent,) + tuple(buf.shape[fa:])
        rf_name = f"{buf.name}_rf"
        rf_bufs.append(Buffer(Var(rf_name, "handle"), buf.dtype, rf_shape, (),
                              IntImm("int32", 0), rf_name, buf.data_alignment,
                              buf.offset_factor, "global"))
    dt = r.dtype
    loop_of = {lp.loop_var: lp for lp in loops}

    # ---- the rfactor block: an iterator for the rfactor loop, then the block's iterators in
    # order, those reduction iterators that use the rfactor loop replaced by one reduction
    # iterator per loop their binding uses
    vr = Var(f"v{r.name}", dt)
    rf_ivs: List[IterVar] = [IterVar(Range(loop.min, loop.extent), vr, IterVarType.DataPar)]
    rf_vals: List[PrimExpr] = [r]
    lvmap: Dict[Var, PrimExpr] = {r: vr}
    ivmap: Dict[Var, PrimExpr] = {}
    for iv, val in zip(block.iter_vars, realize.iter_values):
        if iv.iter_type == IterVarType.DataPar or r not in collect_vars(val):
            rf_ivs.append(iv)
            rf_vals.append(val)
            continue
        for v in _ordered_vars(val):
            lp = loop_of.get(v)
            if lp is None or v in lvmap:
                continue
            nv = Var(f"v{v.name}", v.dtype)
            lvmap[v] = nv
            rf_ivs.append(IterVar(Range(lp.min, lp.extent), nv, IterVarType.CommReduce))
            rf_vals.append(v)
        ivmap[iv.var] = substitute(val, lvmap)
    rf_idx = tuple(idx[:fa]) + (vr,) + tuple(idx[fa:])
    rf_rhs = [substitute(y, ivmap) for y in red.rhs]
    if any(iv.iter_type == IterVarType.CommReduce for iv in rf_ivs):
        rf_body = red.update(rf_bufs, rf_idx, rf_rhs)
        rf_init = stores(rf_bufs, rf_idx, red.identity)
    else:  # every reduction loop is the rfactor loop: each partial is a single value
        rf_body, rf_init = stores(rf_bufs, rf_idx, rf_rhs), None
    rf_block_name = state.fresh_block_name(f"{block.name_hint}_rf")
    rf_block = Block(tuple(rf_ivs), (), (), rf_block_name, rf_body, rf_init, (), (),
                     block.annotations)
    reads, writes = block_regions(rf_block)
    rf_block = dataclasses.replace(rf_block, reads=reads, writes=writes)
    # the rfactor block runs under fresh copies of all the block's loops
    copies = {lp.loop_var: Var(lp.loop_var.name, lp.loop_var.dtype) for lp in loops}
    rf: Stmt = BlockRealize(tuple(substitute(v, copies) for v in rf_vals),
                            substitute(realize.predicate, copies), rf_block)
    for lp in reversed(loops):
        rf = For(copies[lp.loop_var], lp.min, lp.extent, lp.kind, rf, lp.thread_binding,
                 lp.annotations)

    # ---- the write-back block: the rfactor iterator, then the spatial ones; it keeps the
    # original loops except those feeding only the reduction (the rfactor loop stays)
    vr_wb = Var(f"v{r.name}", dt)
    wb_ivs = [IterVar(Range(loop.min, loop.extent), vr_wb, IterVarType.CommReduce)]
    wb_vals: List[PrimExpr] = [r]
    wb_map: Dict[Var, PrimExpr] = {}
    for iv, val in zip(block.iter_vars, realize.iter_values):
        if iv.iter_type == IterVarType.DataPar:
            nv = Var(iv.var.name, iv.var.dtype)
            wb_map[iv.var] = nv
            wb_ivs.append(IterVar(iv.dom, nv, IterVarType.DataPar))
            wb_vals.append(val)
    dropped = {lp.loop_var for lp in loops if lp.loop_var in red_vars and lp.loop_var is not r}
    # a partial result exists where the rf block ran its init: where the predicate holds with
    # the other reduction loops at their minimum (exact for the monotone guards split adds)
    at_min = {v: loop_of[v].min for v in dropped}
    pred = IntImm("bool", 1)
    for c in _conjuncts(realize.predicate):
        if not collect_vars(c) & dropped:
            pred = conj(pred, c)
        elif not collect_vars(c) - set(loop_of):
            pred = conj(pred, substitute(c, at_min))
    if not (isinstance(pred, IntImm) and pred.value):
        pred = simplify(pred, loop_domains(bpath[:-1]))
        if isinstance(pred, IntImm) and pred.value:
            pred = IntImm("bool", 1)
    out_idx = tuple(substitute(i, wb_map) for i in idx)
    wb_rf_idx = tuple(out_idx[:fa]) + (vr_wb,) + tuple(out_idx[fa:])
    wb_body = red.update(red.bufs, out_idx, [b[wb_rf_idx] for b in rf_bufs])
    wb_init = stores(red.bufs, out_idx, [substitute(v, wb_map) for v in red.init])
    wb_block = Block(tuple(wb_ivs), (), (), block.name_hint, wb_body, wb_init, (), (),
                     block.annotations)
    reads, writes = block_regions(wb_block)
    # the partial results first, in the order of the reducer's elements (as classic TVM)
    order = {id(b): k for k, b in enumerate(rf_bufs)}
    reads = tuple(sorted(reads, key=lambda x: order.get(id(x.buffer), len(order))))
    wb_block = dataclasses.replace(wb_block, reads=reads, writes=writes)
    wb: Stmt = BlockRealize(tuple(wb_vals), pred, wb_block)

    # ---- rewrite: the rfactor nest, then the original outermost loop around the write-back
    top = next(k for k, s in enumerate(bpath) if s is loops[0])
    old: Stmt = realize
    for s in reversed(bpath[top:-1]):
        if isinstance(s, For) and s.loop_var in dropped:
            if s.body is not old:
                raise fail(prim, what, f'loop "{s.loop_var.name}" feeds the reduction and '
                           "holds other statements")
        else:
            wb = _with_child(s, old, wb)
        old = s
    replace(state, bpath[:top + 1], SeqStmt.flatten(rf, wb))
    for b in rf_bufs:
        add_alloc(state, b)
    return BlockRV(rf_block_name, loop_rv.func_name)
