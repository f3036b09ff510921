"""The VTA code generator: a lowered PrimFunc → a :class:`Program` of VTA instructions.

The host part of a VTA function is its loop nest around the VTA regions; its bounds are
constant, so the generator runs it at build time (each host loop iteration once) and emits the
instructions each region makes for those loop values, as the classic runtime does when the
compiled host code calls ``VTALoadBuffer2D``/``VTAPushGEMMOp``:

- a ``dma_copy`` region (a copy loop nest, maybe with an ``if_then_else`` zero padding) → one
  2D ``Load``/``Store`` (its loops fused to rows of ``x_size`` tiles and ``x_stride``);
- a nest of loops over the GEMM intrinsic (``vta_gemm``) or over a zero fill of an accumulator
  buffer → one ``Gemm``: the micro-op kernel is the inner loops' (dst, src, wgt) tile indices,
  the two outer loops that are affine in them are folded into ``iter_out``/``iter_in``;
- an ``alu`` region (``>>``, ``max``, ``min``, ``+``, ``*`` with a constant or a second
  accumulator operand) → one ``Alu``, its loops fused where the indices allow it.

Micro-op kernels are loaded once into the micro-op buffer (cached as the classic runtime
does); on-chip buffers are given addresses while the program runs through its statements and
are freed after their last use; dependence tokens are set between the queues where an
instruction touches SRAM rows another queue's earlier instruction wrote or read.
"""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional, Tuple

import numpy as np

from ..error import TVMError
from ..tir import expr as E
from ..tir import stmt as S
from ..tir.functor import collect_vars, post_order_visit
from . import isa
from .transform import CTHREAD_ATTR

SCOPE_MEM = {"local.inp_buffer": "inp", "local.wgt_buffer": "wgt", "local.acc_buffer": "acc"}


@dataclasses.dataclass
class Program:
    """What a VTA module runs: the instructions, the micro-op table and the arguments."""

    name: str
    insns: List[isa.Insn]
    uops: np.ndarray  # (n, 3) int32: dst, src, wgt
    arg_names: List[str]
    arg_shapes: List[Tuple[int, ...]]
    arg_dtypes: List[str]
    env_cfg: Dict


def _err(msg: str) -> TVMError:
    return TVMError(f"vta.build: {msg}")


# ------------------------------------------------------------------ numpy expression evaluation
def _ev(e, env):  # noqa: C901  (one dispatch)
    if isinstance(e, int):
        return e
    if isinstance(e, E.IntImm):
        return int(e.value)
    if isinstance(e, E.Var):
        if e not in env:
            raise _err(f"variable {e.name} has no value in a VTA region")
        return env[e]
    if isinstance(e, E.Cast):
        return _ev(e.value, env)
    bin_ops = {E.Add: np.add, E.Sub: np.subtract, E.Mul: np.multiply,
               E.FloorDiv: np.floor_divide, E.FloorMod: np.mod, E.Min: np.minimum,
               E.Max: np.maximum, E.LT: np.less, E.LE: np.less_equal, E.GT: np.greater,
               E.GE: np.greater_equal, E.EQ: np.equal, E.NE: np.not_equal,
               E.And: np.logical_and, E.Or: np.logical_or}
    f = bin_ops.get(type(e))
    if f is not None:
        return f(_ev(e.a, env), _ev(e.b, env))
    if isinstance(e, E.Not):
        return np.logical_not(_ev(e.a, env))
    if isinstance(e, E.Select):
        return np.where(_ev(e.condition, env), _ev(e.true_value, env), _ev(e.false_value, env))
    if isinstance(e, E.Call) and e.op in ("likely", "tir.likely"):
        return _ev(e.args[0], env)
    raise _err(f"cannot evaluate {e} in a VTA region index")


def _grid(loops: List[S.For], env) -> Tuple[Dict, Tuple[int, ...]]:
    """``env`` extended with each loop variable as a broadcastable arange."""
    env = dict(env)
    shape = []
    for lp in loops:
        shape.append(int(_ev(lp.extent, env)))
    n = len(loops)
    for k, lp in enumerate(loops):
        sh = [1] * n
        sh[k] = shape[k]
        env[lp.loop_var] = int(_ev(lp.min, env)) + np.arange(shape[k]).reshape(sh)
    return env, tuple(shape)


def _full(x, shape) -> np.ndarray:
    return np.broadcast_to(np.asarray(x, dtype=np.int64), shape)


def _nest(s) -> Tuple[List[S.For], object]:
    """The perfect loop nest at ``s`` (LetStmts are not allowed inside) and its leaf."""
    loops = []
    while isinstance(s, S.For):
        loops.append(s)
        s = s.body
    return loops, s


# ------------------------------------------------------------------------------ the generator
class _Gen:
    def __init__(self, func, env, name):
        self.env = env
        self.name = name
        self.params = [func.buffer_map[p] for p in func.params if p in func.buffer_map]
        self.arg_of = {b.data: i for i, b in enumerate(self.params)}
        self.insns: List[isa.Insn] = []
        self.uop_table: List[Tuple[int, int, int]] = []
        self.kernels: Dict[tuple, Tuple[int, int]] = {}  # kernel → (bgn, end) in uop SRAM
        self.uop_used = 0
        # (data var, virtual thread) → (mem, base, rows); a buffer allocated inside a cthread
        # loop has one copy per thread, keyed by the thread's index path (``()`` outside)
        self.sram: Dict[tuple, Tuple[str, int, int]] = {}
        self.owned: set = set()
        self.vt: tuple = ()
        self._dying: set = set()  # buffers whose last use is the statement being generated
        self._free: Dict[int, tuple] = {}  # id(region) → (region, its free variables)
        self._gemm_cache: Dict[tuple, tuple] = {}
        self.free: Dict[str, List[Tuple[int, int]]] = {}
        self.alloc_info: Dict[object, S.Allocate] = {}
        self.free_at: Dict[int, Dict[int, List]] = {}  # id(SeqStmt) → child → buffers
        self.depth = {"inp": env.INP_BUFF_SIZE // env.INP_ELEM_BYTES,
                      "wgt": env.WGT_BUFF_SIZE // env.WGT_ELEM_BYTES,
                      "acc": env.ACC_BUFF_SIZE // env.ACC_ELEM_BYTES,
                      "uop": env.UOP_BUFF_SIZE // 4}
        self.tile = {"inp": env.BATCH * env.BLOCK_IN, "wgt": env.BLOCK_OUT * env.BLOCK_IN,
                     "acc": env.BATCH * env.BLOCK_OUT}
        for m in ("inp", "wgt", "acc"):
            self.free[m] = [(0, self.depth[m])]

    # -------------------------------------------------------------- SRAM allocation
    def _mem_of(self, buf) -> Optional[str]:
        return SCOPE_MEM.get(buf.scope_name)

    def _key(self, var, vt: Optional[tuple] = None) -> tuple:
        """The key of ``var``'s copy seen from virtual thread ``vt`` (default: the current)."""
        vt = self.vt if vt is None else vt
        while vt and (var, vt) not in self.owned:
            vt = vt[:-1]
        return (var, vt)

    def _base(self, buf) -> int:
        """The SRAM row of ``buf``'s first tile (allocated on first use)."""
        key = self._key(buf.data)
        got = self.sram.get(key)
        if got is not None:
            return got[1]
        mem = self._mem_of(buf)
        alloc = self.alloc_info.get(buf.data)
        if alloc is None:
            raise _err(f"on-chip buffer {buf.name} is not allocated in the function")
        n = 1
        for x in alloc.extents:
            n *= int(_ev(x, {}))
        tile = self.tile[mem]
        if n % tile:
            raise _err(f"buffer {buf.name} in {buf.scope_name} holds {n} elements, not a multiple "
                       f"of the {tile}-element tile (shapes must be divisible by BATCH/BLOCK)")
        rows = n // tile
        for k, (start, size) in enumerate(self.free[mem]):
            if size >= rows:
                self.free[mem][k] = (start + rows, size - rows)
                self.sram[key] = (mem, start, rows)
                return start
        used = self.depth[mem] - sum(sz for _, sz in self.free[mem])
        raise _err(f"buffer {buf.name} needs {rows} rows of {buf.scope_name} but only "
                   f"{self.depth[mem] - used} of its {self.depth[mem]} rows are free (limit "
                   f"{self.depth[mem]} x {tile} elements)")

    def _release(self, key: tuple) -> None:
        got = self.sram.pop(key, None)
        if got is None:
            return
        mem, base, rows = got
        spans = sorted(self.free[mem] + [(base, rows)])
        merged: List[Tuple[int, int]] = []
        for st, sz in spans:
            if sz == 0:
                continue
            if merged and merged[-1][0] + merged[-1][1] == st:
                merged[-1] = (merged[-1][0], merged[-1][1] + sz)
            else:
                merged.append((st, sz))
        self.free[mem] = merged

    # -------------------------------------------------------------- statements
    def _plan_alloc(self, s) -> None:
        """Record the allocation ``s`` and plan to free it after its last use."""
        if s.scope not in SCOPE_MEM:
            raise _err(f"allocation {s.buffer_var.name} in scope {s.scope!r}: "
                       "a VTA function may only allocate on-chip VTA buffers")
        if s.buffer_var in self.alloc_info:
            return  # planned when the host loop around it ran its first iteration
        self.alloc_info[s.buffer_var] = s
        seq = s.body
        while isinstance(seq, (S.Allocate, S.LetStmt)) or (
                isinstance(seq, S.AttrStmt) and not seq.attr_key.startswith("pragma_")):
            seq = seq.body
        if isinstance(seq, S.SeqStmt):  # free the buffer after its last use
            last = _last_uses(seq.seq).get(s.buffer_var)
            if last is not None:
                self.free_at.setdefault(id(seq), {}).setdefault(last, []).append(s.buffer_var)

    def stmt(self, s, env) -> None:  # noqa: C901
        if isinstance(s, S.SeqStmt):
            plan = self.free_at.get(id(s), {})
            for k, c in enumerate(s.seq):
                self._dying = set(plan.get(k, ()))
                self.stmt(c, env)
                for v in plan.get(k, ()):
                    self._release(self._key(v))
        elif isinstance(s, S.Allocate):
            self._plan_alloc(s)
            self.owned.add((s.buffer_var, self.vt))
            self.stmt(s.body, env)
            self._release(self._key(s.buffer_var))
        elif isinstance(s, S.LetStmt):
            self.stmt(s.body, {**env, s.var: _ev(s.value, env)})
        elif isinstance(s, S.AttrStmt):
            if s.attr_key == CTHREAD_ATTR:
                loop = s.body
                lo = int(_ev(loop.min, env))
                self.stmt_vt(loop.body, [(self.vt + (v,), {**env, loop.loop_var: v})
                                         for v in range(lo, lo + int(_ev(loop.extent, env)))])
            elif s.attr_key == "pragma_dma_copy":
                self.dma(s.body, env)
            elif s.attr_key == "pragma_alu":
                self.alu(s.body, env)
            elif s.attr_key in ("pragma_skip_dma_copy", "pragma_skip_alu"):
                pass
            elif s.attr_key == "pragma_vta_gemm":
                self.gemm([], s, env)
            else:
                self.stmt(s.body, env)
        elif isinstance(s, S.For):
            loops, leaf = _nest(s)
            if _is_gemm_leaf(leaf, self):
                self.gemm(loops, leaf, env)
                return
            lo = int(_ev(s.min, env))
            for i in range(lo, lo + int(_ev(s.extent, env))):
                self.stmt(s.body, {**env, s.loop_var: i})
        elif isinstance(s, S.Evaluate):
            if not (isinstance(s.value, E.IntImm)):
                raise _err(f"statement {s} has no VTA equivalent")
        elif isinstance(s, S.BufferStore) and _is_gemm_leaf(s, self):
            self.gemm([], s, env)
        elif isinstance(s, S.IfThenElse):
            if bool(_ev(s.condition, env)):
                self.stmt(s.then_case, env)
            elif s.else_case is not None:
                self.stmt(s.else_case, env)
        else:
            raise _err(f"statement {type(s).__name__} is not mapped to VTA (a copy needs the "
                       f"dma_copy pragma, elementwise work the alu pragma, the product "
                       f"tensorize(env.gemm)): {str(s)[:200]}")

    def stmt_vt(self, s, envs) -> None:  # noqa: C901
        """Generate ``s`` for virtual threads ``envs`` ((thread path, variables) pairs),
        interleaving their instruction streams: each statement of a sequence and each host
        loop iteration runs for every thread before the next one, so one thread's loads
        overlap another thread's compute (classic VTA's latency hiding)."""
        if isinstance(s, S.SeqStmt):
            plan = self.free_at.get(id(s), {})
            for k, c in enumerate(s.seq):
                self._dying = set(plan.get(k, ()))
                self.stmt_vt(c, envs)
                for v in plan.get(k, ()):
                    for vt, _ in envs:
                        self._release(self._key(v, vt))
            return
        if isinstance(s, S.Allocate):
            self._plan_alloc(s)
            for vt, _ in envs:
                self.owned.add((s.buffer_var, vt))
            self.stmt_vt(s.body, envs)
            for vt, _ in envs:
                self._release(self._key(s.buffer_var, vt))
            return
        if isinstance(s, S.LetStmt):
            self.stmt_vt(s.body, [(vt, {**e, s.var: _ev(s.value, e)}) for vt, e in envs])
            return
        if isinstance(s, S.AttrStmt) and s.attr_key == CTHREAD_ATTR:
            loop = s.body
            self.stmt_vt(loop.body, [
                (vt + (v,), {**e, loop.loop_var: v}) for vt, e in envs
                for v in range(int(_ev(loop.min, e)), int(_ev(loop.min, e) + _ev(loop.extent, e)))])
            return
        if isinstance(s, S.AttrStmt) and not s.attr_key.startswith("pragma_"):
            self.stmt_vt(s.body, envs)
            return
        if isinstance(s, S.For) and not _is_gemm_leaf(_nest(s)[1], self):
            bounds = {(int(_ev(s.min, e)), int(_ev(s.extent, e))) for _, e in envs}
            if len(bounds) == 1:
                lo, ext = bounds.pop()
                for i in range(lo, lo + ext):
                    self.stmt_vt(s.body, [(vt, {**e, s.loop_var: i}) for vt, e in envs])
                return
        saved = self.vt  # a VTA region, or a loop whose bounds differ between the threads
        for vt, e in envs:
            self.vt = vt
            self.stmt(s, e)
        self.vt = saved

    # -------------------------------------------------------------- DMA
    def dma(self, body, env) -> None:
        loops, leaf = _nest(body)
        while isinstance(leaf, S.LetStmt):
            env = {**env, leaf.var: _ev(leaf.value, env)}
            more, leaf = _nest(leaf.body)
            loops += more
        if not isinstance(leaf, S.BufferStore):
            raise _err(f"dma_copy region is not a copy loop nest: {str(body)[:200]}")
        genv, shape = _grid(loops, env)
        val, cond = leaf.value, None
        if isinstance(val, E.Call) and val.op in ("if_then_else", "tir.if_then_else"):
            cond, val, other = val.args
            if not (isinstance(other, (E.IntImm, E.Cast)) and int(_ev(other, {})) == 0):
                raise _err("dma_copy padding must be zero")
        while isinstance(val, E.Cast):
            val = val.value
        if not isinstance(val, E.BufferLoad):
            raise _err(f"dma_copy region does not copy a buffer: {str(leaf)[:200]}")
        dst, src = leaf.buffer, val.buffer
        dmem, smem = self._mem_of(dst), self._mem_of(src)
        didx = _full(_ev(leaf.indices[-1], genv), shape).ravel()
        sidx = _full(_ev(val.indices[-1], genv), shape).ravel()
        valid = None if cond is None else _full(_ev(cond, genv), shape).ravel().astype(bool)
        if dmem is not None and smem is None:
            self._load(dmem, dst, src, didx, sidx, valid, shape)
        elif dmem is None and smem == "acc":
            if valid is not None:
                raise _err("a store to DRAM cannot pad")
            self._store(dst, src, didx, sidx, shape)
        else:
            raise _err(f"dma_copy from {src.scope_name} ({src.name}) to {dst.scope_name} "
                       f"({dst.name}) "
                       "is neither a DRAM→SRAM load nor an accumulator→DRAM store")

    def _tiles(self, idx, tile, what):
        rows = idx.reshape(-1, tile)
        first = rows[:, 0]
        if np.any(first % tile) or np.any(rows != first[:, None] + np.arange(tile)):
            raise _err(f"{what}: the copy does not move whole {tile}-element tiles "
                       "(shapes and splits must be multiples of BATCH/BLOCK)")
        return first // tile

    def _dram_arg(self, buf) -> int:
        a = self.arg_of.get(buf.data)
        if a is None:
            raise _err(f"DMA to or from {buf.name}, which is not an argument of the function")
        return a

    def _load(self, mem, dst, src, didx, sidx, valid, shape) -> None:
        tile = self.tile[mem]
        if didx.size % tile:
            raise _err(f"load into {dst.name}: {didx.size} elements is not a whole number of "
                       f"{tile}-element tiles")
        s_t = self._tiles(didx, tile, f"load into {dst.name}")
        if valid is None:
            valid = np.ones(didx.shape, bool)
        vrows = valid.reshape(-1, tile)
        if np.any(vrows.any(1) != vrows.all(1)):
            raise _err(f"load into {dst.name}: padding must cover whole tiles")
        vt = vrows[:, 0]
        d_t = np.full(s_t.shape, -1, np.int64)
        if vt.any():
            d_t[vt] = self._tiles(np.where(valid, sidx, 0)[valid], tile,
                                  f"load from {src.name}")
        if np.any(s_t != s_t[0] + np.arange(s_t.size)):
            raise _err(f"load into {dst.name}: the SRAM side is not contiguous")
        fit = _fit_2d(d_t, _tile_grid(shape, tile))
        if fit is None:
            raise _err(f"load from {src.name}: the copy is not a 2D strided pattern")
        base = self._base(dst)
        if base + s_t[-1] + 1 > base + self.sram[self._key(dst.data)][2]:
            raise _err(f"load into {dst.name} runs past the buffer")
        offset, y, x, stride, ypad, xpad = fit
        q = isa.COMPUTE_Q if mem == "acc" else isa.LOAD_Q
        self.insns.append(isa.Load(q, mem=mem, sram=base + int(s_t[0]), arg=self._dram_arg(src),
                                   offset=offset, y_size=y, x_size=x, x_stride=stride,
                                   y_pad=ypad, x_pad=xpad))

    def _store(self, dst, src, didx, sidx, shape) -> None:
        tile = self.tile["acc"]
        s_t = self._tiles(sidx, tile, f"store from {src.name}")
        d_t = self._tiles(didx, tile, f"store into {dst.name}")
        if np.any(s_t != s_t[0] + np.arange(s_t.size)):
            raise _err(f"store from {src.name}: the SRAM side is not contiguous")
        fit = _fit_2d(d_t, _tile_grid(shape, tile))
        if fit is None or fit[4] != (0, 0) or fit[5] != (0, 0):
            raise _err(f"store into {dst.name}: the copy is not a 2D strided pattern")
        offset, y, x, stride = fit[:4]
        self.insns.append(isa.Store(isa.STORE_Q, sram=self._base(src) + int(s_t[0]),
                                    arg=self._dram_arg(dst), offset=offset, y_size=y,
                                    x_size=x, x_stride=stride))

    # -------------------------------------------------------------- micro-op kernels
    def _kernel(self, uops: np.ndarray) -> Tuple[int, int]:
        key = uops.tobytes()
        got = self.kernels.get(key)
        if got is not None:
            return got
        n = len(uops)
        if n > self.depth["uop"]:
            raise _err(f"a micro-op kernel of {n} micro-ops exceeds the micro-op buffer "
                       f"({self.depth['uop']} entries)")
        if self.uop_used + n > self.depth["uop"]:
            self.kernels.clear()  # the buffer is full: start over, as the runtime's cache does
            self.uop_used = 0
        bgn = self.uop_used
        self.uop_used += n
        table_off = len(self.uop_table)
        self.uop_table.extend(tuple(int(v) for v in u) for u in uops)
        self.insns.append(isa.Load(isa.COMPUTE_Q, mem="uop", sram=bgn, arg=-1,
                                   offset=table_off, y_size=1, x_size=n, x_stride=n))
        self.kernels[key] = (bgn, bgn + n)
        return bgn, bgn + n

    def _emit_uops(self, cls, grid: np.ndarray, **kw) -> None:
        """``grid``: (..., 3) tile indices over the uop loops; fold the two outer loops."""
        folded = []
        while grid.ndim > 1 and len(folded) < 2:
            d = grid.shape[0]
            step = grid[1] - grid[0] if d > 1 else np.zeros_like(grid[0])
            if step.ndim > 1 and np.any(step != step.reshape(-1, 3)[0]):
                break
            st = step.reshape(-1, 3)[0] if step.ndim > 1 else step
            if np.any(grid != grid[0][None] + np.arange(d).reshape((d,) + (1,) * (grid.ndim - 1))
                      * st):
                break
            folded.append((d, tuple(int(v) for v in st)))
            grid = grid[0]
        uops = grid.reshape(-1, 3)
        while len(folded) < 2:
            folded.append((1, (0, 0, 0)))
        (no, fo), (ni, fi) = folded[0], folded[1]
        bgn, end = self._kernel(uops.astype(np.int32))
        ins = cls(isa.COMPUTE_Q, uop_bgn=bgn, uop_end=end, iter_out=no, iter_in=ni,
                  factor_out=fo, factor_in=fi, **kw)
        ins._span = _span(uops, no, ni, fo, fi)
        self.insns.append(ins)

    # -------------------------------------------------------------- GEMM
    def gemm(self, loops, leaf, env) -> None:
        # the micro-ops relative to the buffers depend only on the region's free variables:
        # computed once per distinct value set (the host loops around repeat them)
        node = loops[0] if loops else leaf
        got = self._free.get(id(node))
        if got is None:
            bound = set()
            post_order_visit(node, lambda x: bound.add(x.loop_var) if isinstance(x, S.For)
                             else None)
            got = self._free[id(node)] = (node, [v for v in collect_vars(node) - bound])
        key = (id(node),) + tuple(int(env[v]) if v in env else None for v in got[1])
        cached = self._gemm_cache.get(key)
        if cached is None:
            cached = self._gemm_cache[key] = self._gemm_rel(loops, leaf, env)
        bufs, rel, reset = cached
        bases = np.array([self._base(b) for b in bufs] + [0] * (3 - len(bufs)))
        self._emit_uops(isa.Gemm, rel + bases, reset=reset)

    def _gemm_rel(self, loops, leaf, env):
        """(buffers, micro-op grid relative to their bases, reset) of a GEMM region."""
        tile_loops: List[S.For] = []
        if isinstance(leaf, S.AttrStmt):
            tile_loops, store = _nest(leaf.body)
        else:
            store = leaf
        if not isinstance(store, S.BufferStore):
            raise _err(f"tensorize(env.gemm): the region is not a single update "
                       f"{str(store)[:200]}")
        acc = store.buffer
        genv, shape = _grid(loops + tile_loops, env)
        nuop = len(loops)
        t_acc = self.tile["acc"]
        dst_i = _full(_ev(store.indices[-1], genv), shape)
        if isinstance(store.value, E.IntImm) or (isinstance(store.value, E.Cast)
                                                 and isinstance(store.value.value, E.IntImm)):
            if int(_ev(store.value, {})) != 0:
                raise _err("an accumulator fill must be zero (a GEMM reset)")
            # the fill's innermost loops make a tile
            flat = dst_i.reshape(-1)
            d_t = self._tiles(flat, t_acc, f"reset of {acc.name}")
            inner = 1
            k = len(shape)
            while k > 0 and inner < t_acc:
                k -= 1
                inner *= shape[k]
            if inner != t_acc:
                raise _err(f"reset of {acc.name}: the inner loops do not span one tile")
            d = d_t.reshape(shape[:k] or (1,))
            return [acc], np.stack([d, np.zeros_like(d), np.zeros_like(d)], -1), True
        inp, wgt = _gemm_operands(store, acc)
        src_i = _full(_ev(inp.indices[-1], genv), shape)
        wgt_i = _full(_ev(wgt.indices[-1], genv), shape)
        tshape = shape[nuop:]
        b, o, k = self.env.BATCH, self.env.BLOCK_OUT, self.env.BLOCK_IN
        if int(np.prod(tshape)) != b * o * k:
            raise _err(f"tensorize(env.gemm) of {acc.name}: the tensorized loops are not a "
                       f"{b}x{o}x{k} GEMM tile (extents {tshape})")
        flat = (-1, b * o * k)
        d0, s0, w0 = (x.reshape(flat)[:, :1] for x in (dst_i, src_i, wgt_i))
        bb, oo, kk = np.meshgrid(np.arange(b), np.arange(o), np.arange(k), indexing="ij")
        if np.any(dst_i.reshape(flat) - d0 != (bb * o + oo).ravel()) or \
                np.any(src_i.reshape(flat) - s0 != (bb * k + kk).ravel()) or \
                np.any(wgt_i.reshape(flat) - w0 != (oo * k + kk).ravel()):
            raise _err(f"tensorize(env.gemm) of {acc.name}: the compute does not match the GEMM "
                       "intrinsic (out[b, o] += inp[b, k] * wgt[o, k] over one tile)")
        ushape = shape[:nuop] or (1,)
        parts = []
        for x, t, buf in ((d0, t_acc, acc), (s0, self.tile["inp"], inp.buffer),
                          (w0, self.tile["wgt"], wgt.buffer)):
            if np.any(x % t):
                raise _err(f"tensorize(env.gemm): {buf.name} is not accessed at tile "
                           "boundaries")
            parts.append((x.ravel() // t).reshape(ushape))
        return [acc, inp.buffer, wgt.buffer], np.stack(parts, -1), False

    # -------------------------------------------------------------- ALU
    def alu(self, body, env) -> None:
        loops, store = _nest(body)
        if not isinstance(store, S.BufferStore) or self._mem_of(store.buffer) != "acc":
            raise _err(f"alu region does not write an accumulator buffer: {str(body)[:200]}")
        op, a, bexpr = _alu_op(store.value)
        genv, shape = _grid(loops, env)
        t = self.tile["acc"]
        inner, k = 1, len(shape)
        while k > 0 and inner < t:
            k -= 1
            inner *= shape[k]
        if inner != t:
            raise _err("alu region: its inner loops do not span one accumulator tile")
        ushape = shape[:k] or (1,)

        def tiles(load_or_store, idx_expr):
            flat = _full(_ev(idx_expr, genv), shape).reshape(-1)
            return self._tiles(flat, t, f"alu on {load_or_store.buffer.name}").reshape(ushape)

        dkey, skey = self._key(store.buffer.data), self._key(a.buffer.data)
        dst, src = tiles(store, store.indices[-1]), tiles(a, a.indices[-1])
        moved = False
        if dkey not in self.sram and skey in self.sram and a.buffer.data in self._dying \
                and np.array_equal(dst, src) and store.buffer.data in self.alloc_info:
            # the source dies here: compute in place in its rows (classic merges the
            # elementwise stages' buffers the same way), as VTA's ALU writes its operand
            if self.sram[skey][2] * t == _elems_of(self, store.buffer):
                self.sram[dkey] = self.sram.pop(skey)
                moved = True
        dst = dst + self._base(store.buffer)
        src = src + (self._base(store.buffer) if moved else self._base(a.buffer))
        if isinstance(bexpr, E.BufferLoad):
            other = tiles(bexpr, bexpr.indices[-1]) + self._base(bexpr.buffer)
            if not np.array_equal(src, dst):  # VTA computes dst = op(dst, src): copy first
                self._alu_grid("add", dst, src, True, 0)
            self._alu_grid(op, dst, other, False, 0)
        else:
            imm = int(_ev(bexpr, {}))
            if op == "shl":
                op, imm = "shr", -imm
            self._alu_grid(op, dst, src, True, imm)

    def _alu_grid(self, op, dst, src, use_imm, imm) -> None:
        grid = np.stack([dst, src, np.zeros_like(dst)], -1)
        # fuse loops whose indices continue each other (classic lowers an ALU nest to one loop)
        while grid.ndim > 2:
            a, b = grid.shape[0], grid.shape[1]
            fused = grid.reshape((a * b,) + grid.shape[2:])
            st = fused[1] - fused[0] if a * b > 1 else None
            if st is None or np.any(fused != fused[0][None] + np.arange(a * b).reshape(
                    (-1,) + (1,) * (fused.ndim - 1)) * st):
                break
            grid = fused
        if grid.ndim >= 2:
            n = grid.shape[-2] if grid.ndim > 2 else grid.shape[0]
            if grid.ndim == 2 and n > 1:
                st = grid[1] - grid[0]
                if np.all(grid == grid[0] + np.arange(n)[:, None] * st):
                    self._kernel_alu(op, grid[:1], n, tuple(int(v) for v in st), use_imm, imm)
                    return
        self._emit_uops(isa.Alu, grid, op=op, use_imm=use_imm, imm=imm)

    def _kernel_alu(self, op, uops, n, step, use_imm, imm) -> None:
        bgn, end = self._kernel(uops.astype(np.int32))
        ins = isa.Alu(isa.COMPUTE_Q, uop_bgn=bgn, uop_end=end, iter_out=n, iter_in=1,
                      factor_out=step, factor_in=(0, 0, 0), op=op, use_imm=use_imm, imm=imm)
        ins._span = _span(uops, n, 1, step, (0, 0, 0))
        self.insns.append(ins)


def _elems_of(gen, buf) -> int:
    n = 1
    for x in gen.alloc_info[buf.data].extents:
        n *= int(_ev(x, {}))
    return n


def _is_gemm_leaf(leaf, gen) -> bool:
    if isinstance(leaf, S.AttrStmt) and leaf.attr_key == "pragma_vta_gemm":
        return True
    return (isinstance(leaf, S.BufferStore) and gen._mem_of(leaf.buffer) == "acc"
            and isinstance(leaf.value, (E.IntImm, E.Cast))
            and not isinstance(getattr(leaf.value, "value", None), E.BufferLoad))


def _gemm_operands(store, acc):
    v = store.value
    ok = isinstance(v, E.Add) and isinstance(v.a, E.BufferLoad) and v.a.buffer is acc
    prod = v.b if ok else None
    if ok and isinstance(prod, E.Mul):
        a, b = prod.a, prod.b
        a = a.value if isinstance(a, E.Cast) else a
        b = b.value if isinstance(b, E.Cast) else b
        if isinstance(a, E.BufferLoad) and isinstance(b, E.BufferLoad):
            scopes = {SCOPE_MEM.get(a.buffer.scope_name): a, SCOPE_MEM.get(b.buffer.scope_name): b}
            if "inp" in scopes and "wgt" in scopes:
                return scopes["inp"], scopes["wgt"]
    raise _err(f"tensorize(env.gemm) of {acc.name}: the compute does not match the GEMM "
               "intrinsic (acc += cast(inp) * cast(wgt) with inputs in the inp/wgt buffers): "
               f"{str(store)[:200]}")


def _alu_op(v):
    names = {E.Max: "max", E.Min: "min", E.Add: "add", E.Mul: "mul"}
    if isinstance(v, E.Call) and v.op in ("shift_right", "tir.shift_right", "shift_left",
                                          "tir.shift_left"):
        op, a, b = ("shr" if "right" in v.op else "shl"), v.args[0], v.args[1]
    elif type(v) in names:
        op, a, b = names[type(v)], v.a, v.b
    else:
        raise _err(f"alu region computes {str(v)[:200]}, which is not a VTA ALU operation "
                   "(>>, <<, max, min, +, *)")
    if not isinstance(a, E.BufferLoad) and isinstance(b, E.BufferLoad):
        a, b = b, a
    if not isinstance(a, E.BufferLoad) or not (isinstance(b, (E.BufferLoad, E.IntImm))):
        raise _err(f"alu operands must be accumulator loads or constants: {str(v)[:200]}")
    if isinstance(b, E.BufferLoad) and op in ("shr", "shl"):
        raise _err("alu shifts take a constant amount")
    return op, a, b


def _tile_grid(shape, tile) -> Tuple[int, ...]:
    """The loop extents over tiles: ``shape`` without the inner loops that make one tile."""
    inner, k = 1, len(shape)
    while k > 0 and inner < tile:
        k -= 1
        inner *= shape[k]
    return tuple(shape[:k]) if inner == tile else (int(np.prod(shape)) // tile,)


def _fit_2d(d_t: np.ndarray, grid: Tuple[int, ...]):
    """Fit DRAM tile indices (−1: padding) to ``(offset, y, x, x_stride, y_pad, x_pad)``."""
    cands = [1]  # one tile per row: a strided gather (classic's x_size 1)
    acc = 1
    for e in reversed(grid or (1,)):
        acc *= e
        cands.append(acc)
    for width in sorted(set(cands), reverse=True):
        if d_t.size % width:
            continue
        m = d_t.reshape(-1, width)
        pad_row = np.all(m < 0, 1)
        live = np.nonzero(~pad_row)[0]
        if live.size == 0:
            continue
        y0, y1 = int(live[0]), int(live[-1])
        if np.any(pad_row[y0:y1 + 1]):
            continue
        rows = m[y0:y1 + 1]
        lead = np.argmax(rows >= 0, 1)
        trail = np.argmax(rows[:, ::-1] >= 0, 1)
        if np.any(lead != lead[0]) or np.any(trail != trail[0]):
            continue
        x0, x1 = int(lead[0]), width - int(trail[0])
        body = rows[:, x0:x1]
        if np.any(body != body[:, :1] + np.arange(x1 - x0)):
            continue
        starts = body[:, 0]
        stride = int(starts[1] - starts[0]) if starts.size > 1 else x1 - x0
        if np.any(starts != starts[0] + stride * np.arange(starts.size)):
            continue
        return (int(starts[0]), int(starts.size), x1 - x0, stride,
                (y0, m.shape[0] - 1 - y1), (x0, width - x1))
    return None


def _refs(s, out: set) -> None:
    """Data variables of the buffers ``s`` touches."""
    if isinstance(s, (E.BufferLoad, S.BufferStore)):
        out.add(s.buffer.data)
    if dataclasses.is_dataclass(s):
        for f in dataclasses.fields(s):
            _refs(getattr(s, f.name), out)
    elif isinstance(s, (list, tuple)):
        for x in s:
            _refs(x, out)


def _last_uses(seq) -> Dict[object, int]:
    """Per buffer data variable, the last statement of ``seq`` touching it."""
    last: Dict[object, int] = {}
    for k, c in enumerate(seq):
        vs: set = set()
        _refs(c, vs)
        for v in vs:
            last[v] = k
    return last


class DramHazards:
    """DRAM dependences between instructions: a load that reads DRAM elements an earlier
    store wrote (read after write) and a store that overwrites elements an earlier load read
    (write after read), e.g. two layers in one module or a stage storing then reloading.

    Feed it the instructions in program order (:meth:`needs` then :meth:`record`); regions
    are the 2D transfer's span of elements in its argument (conservative for strided ones).
    """

    def __init__(self, tile: Dict[str, int]):
        self.tile = tile
        self.stores: Dict[int, List[Tuple[int, int, int]]] = {}
        self.loads: Dict[int, List[Tuple[int, int, int, int]]] = {}

    def span(self, ins) -> Optional[Tuple[int, int, int]]:
        """``(arg, lo, hi)``: the elements of the DRAM argument ``ins`` reads or writes."""
        if isinstance(ins, isa.Load) and ins.mem != "uop":
            t = self.tile[ins.mem]
        elif isinstance(ins, isa.Store):
            t = self.tile["acc"]
        else:
            return None
        hi = ins.offset + (ins.y_size - 1) * ins.x_stride + ins.x_size
        return ins.arg, ins.offset * t, hi * t

    def needs(self, ins) -> Dict[int, int]:
        """Per queue, the index of the latest earlier instruction ``ins`` must follow."""
        sp = self.span(ins)
        if sp is None:
            return {}
        arg, lo, hi = sp
        out: Dict[int, int] = {}
        prior = self.stores if isinstance(ins, isa.Load) else self.loads
        for rec in prior.get(arg, ()):
            if rec[0] < hi and lo < rec[1]:
                q = isa.STORE_Q if isinstance(ins, isa.Load) else rec[3]
                out[q] = max(out.get(q, -1), rec[2])
        return out

    def record(self, ins, index: int) -> None:
        sp = self.span(ins)
        if sp is None:
            return
        arg, lo, hi = sp
        if isinstance(ins, isa.Store):
            self.stores.setdefault(arg, []).append((lo, hi, index))
        else:
            self.loads.setdefault(arg, []).append((lo, hi, index, ins.queue))


def insert_dependences(insns: List[isa.Insn], depth: Dict[str, int],
                       tile: Dict[str, int]) -> List[isa.Insn]:
    """Set the dependence flags: an instruction waits for the latest instruction of another
    queue that wrote (or, for a write, read) the SRAM rows or DRAM elements it touches. The
    load and the store queue share no token queue: a :class:`isa.Noop` on the compute queue
    relays their dependences. Returns the instructions with the relays inserted."""
    out: List[isa.Insn] = []
    last_w = {m: np.full(d, -1, np.int64) for m, d in depth.items()}
    last_wq = {m: np.full(d, -1, np.int64) for m, d in depth.items()}
    last_r = {m: np.full((3, d), -1, np.int64) for m, d in depth.items()}
    dram = DramHazards(tile)
    done: Dict[Tuple[int, int], int] = {}  # (from q, to q) → the last instruction waited for

    def link(g: int, dst: isa.Insn, a: int, q: int) -> None:
        src = out[g]
        if q > a:
            src.push_next, dst.pop_prev = True, True
        else:
            src.push_prev, dst.pop_next = True, True

    for ins in insns:
        reads, writes = _rows(ins)
        need = dram.needs(ins)
        for mem, lo, hi in reads + writes:
            w = last_w[mem][lo:hi]
            q = last_wq[mem][lo:hi]
            for a in range(3):
                if a != ins.queue and w.size:
                    sel = w[q == a]
                    if sel.size:
                        need[a] = max(need.get(a, -1), int(sel.max()))
        for mem, lo, hi in writes:
            for a in range(3):
                if a != ins.queue and hi > lo:
                    need[a] = max(need.get(a, -1), int(last_r[mem][a, lo:hi].max()))
        for a, g in sorted(need.items()):
            if a == ins.queue or g < 0 or g <= done.get((a, ins.queue), -1):
                continue
            done[(a, ins.queue)] = g
            if abs(a - ins.queue) == 1:
                link(g, ins, a, ins.queue)
                continue
            relay = isa.Noop(isa.COMPUTE_Q)  # a → compute → ins.queue
            if g > done.get((a, isa.COMPUTE_Q), -1):
                done[(a, isa.COMPUTE_Q)] = g
                link(g, relay, a, isa.COMPUTE_Q)
            out.append(relay)
            link(len(out) - 1, ins, isa.COMPUTE_Q, ins.queue)
            done[(isa.COMPUTE_Q, ins.queue)] = len(out) - 1
        n = len(out)
        out.append(ins)
        dram.record(ins, n)
        for mem, lo, hi in reads:
            last_r[mem][ins.queue, lo:hi] = n
        for mem, lo, hi in writes:
            last_w[mem][lo:hi] = n
            last_wq[mem][lo:hi] = ins.queue
    return out


def _rows(ins):
    """(reads, writes) as lists of (mem, lo, hi) SRAM row spans."""
    if isinstance(ins, isa.Load):
        n = (ins.y_size + sum(ins.y_pad)) * (ins.x_size + sum(ins.x_pad))
        if ins.mem == "uop":
            return [], []
        return [], [(ins.mem, ins.sram, ins.sram + n)]
    if isinstance(ins, isa.Store):
        return [("acc", ins.sram, ins.sram + ins.y_size * ins.x_size)], []
    if isinstance(ins, isa.Gemm):
        lo, hi = ins._span
        if isinstance(ins, isa.Alu):
            return [("acc", lo[1], hi[1] + 1), ("acc", lo[0], hi[0] + 1)], \
                [("acc", lo[0], hi[0] + 1)]
        if ins.reset:
            return [], [("acc", lo[0], hi[0] + 1)]
        return [("inp", lo[1], hi[1] + 1), ("wgt", lo[2], hi[2] + 1),
                ("acc", lo[0], hi[0] + 1)], [("acc", lo[0], hi[0] + 1)]
    return [], []


def generate(func, env, name: str) -> Program:
    """Run the host part of the lowered ``func`` and collect its VTA instructions."""
    gen = _Gen(func, env, name)
    gen.stmt(func.body, {})
    uops = np.array(gen.uop_table, np.int32).reshape(-1, 3)
    insns = insert_dependences(gen.insns, {m: gen.depth[m] for m in ("inp", "wgt", "acc")},
                               gen.tile)
    params = gen.params
    return Program(name, insns, uops, [b.name for b in params],
                   [tuple(int(_ev(x, {})) for x in b.shape) for b in params],
                   [b.dtype for b in params], dict(env.cfg))


def _span(uops, iter_out, iter_in, fo, fi):
    """Lowest and highest (dst, src, wgt) rows an instruction touches."""
    k = uops.astype(np.int64)
    fo, fi = np.array(fo), np.array(fi)
    allv = np.concatenate([k + o * fo + i * fi for o in (0, iter_out - 1)
                           for i in (0, iter_in - 1)])
    return allv.min(0), allv.max(0)
