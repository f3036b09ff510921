"""Classic AutoTVM's touch features (``autotvm.feature.get_itervar_feature`` and friends).

Every loop of the lowered, flattened function is an "itervar"; for each, in order of first
appearance: its length, nesting level, the product of the lengths down to it (top-down) and the
largest ``count * reuse`` of a buffer below it (bottom-up), a one-hot of its annotation, the
float adds/multiplies/divides directly inside it, and for each buffer access below it (named
``<data var>_<n>`` in order of appearance) the touch pattern: the stride of the loop variable in
the flat index, ``mod`` (always -1), how many distinct elements the loops inside touch
(``count``, multiplied by each inner loop that strides the access) and how often each is reused
(``reuse``, multiplied by each inner loop that does not), and the same two figures below the
nearest parallel level (``thread_count``/``thread_reuse``).
"""
from __future__ import annotations

import math
from dataclasses import replace
from typing import Dict, List

import numpy as np

from .. import driver
from ..ir import IRModule
from ..ir import dtype as _dt
from ..ir.transform import PassContext
from ..tir import expr as E
from ..tir import stmt as S
from ..tir.functor import Visitor, ir_transform

# annotation kinds, in classic's one-hot order
(BLOCK_X, BLOCK_Y, BLOCK_Z, THREAD_X, THREAD_Y, THREAD_Z, UNROLLED, VECTORIZED, PARALLEL, SERIAL,
 VIRTUAL_THREAD) = range(11)
N_ANN = 11
_THREAD_ANN = {"blockIdx.x": BLOCK_X, "blockIdx.y": BLOCK_Y, "blockIdx.z": BLOCK_Z,
               "threadIdx.x": THREAD_X, "threadIdx.y": THREAD_Y, "threadIdx.z": THREAD_Z}
_KIND_ANN = {S.ForKind.PARALLEL: PARALLEL, S.ForKind.UNROLLED: UNROLLED,
             S.ForKind.VECTORIZED: VECTORIZED, S.ForKind.SERIAL: SERIAL}


def _parallel_level(ann: int) -> int:
    if ann in (BLOCK_X, BLOCK_Y, BLOCK_Z):
        return 2
    if ann in (THREAD_X, THREAD_Y, THREAD_Z, PARALLEL):
        return 1
    return 0


class _Touch:
    __slots__ = ("stride", "mod", "count", "reuse", "thread_count", "thread_reuse")

    def __init__(self, stride: int = 0):
        self.stride, self.mod, self.count, self.reuse = stride, -1, 1, 1
        self.thread_count = self.thread_reuse = 0

    def values(self) -> List[int]:
        return [self.stride, self.mod, self.count, self.reuse, self.thread_count,
                self.thread_reuse]


class _Itervar:
    def __init__(self, var: E.Var, length: int, nest: int, ann: int, topdown: int, order: int):
        self.var, self.length, self.nest_level, self.ann = var, length, nest, ann
        self.topdown, self.bottomup, self.order = topdown, -1, order
        self.add_ct = self.mul_ct = self.div_ct = 0
        self.touch: Dict[str, _Touch] = {}


class _Strides(Visitor):
    """The stride of each variable of a flat index (``v * c`` gives c, a bare ``v`` 1; the
    first occurrence counts), read in classic's visiting order."""

    def __init__(self):
        self.out: Dict[E.Var, int] = {}
        self.next = 1

    def visit_Var(self, e: E.Var) -> None:
        if e not in self.out:
            self.out[e] = self.next
            self.next = 1

    def visit_Mul(self, e: E.Mul) -> None:
        if isinstance(e.a, E.Var) and isinstance(e.b, E.IntImm):
            self.next = e.b.value
        self.generic(e)


class _Extractor(Visitor):
    def __init__(self):
        self.itervars: Dict[E.Var, _Itervar] = {}
        self.stack: List[E.Var] = []
        self.topdown = 1
        self.counter = 0
        self.buffer_counter: Dict[str, int] = {}

    # -------------------------------------------------------------- loops
    def enter(self, var: E.Var, length: int, ann: int) -> None:
        self.stack.append(var)
        self.topdown *= length
        if var in self.itervars:  # the same thread axis bound twice: keep both
            self.itervars[E.Var(var.name, var.dtype)] = self.itervars.pop(var)
        self.itervars[var] = _Itervar(var, length, len(self.stack), ann, self.topdown,
                                      self.counter)
        self.counter += 1

    def exit(self) -> None:
        var = self.stack[-1]
        me = self.itervars[var]
        for buf, t in me.touch.items():
            for sv in self.stack:
                up = self.itervars[sv].touch[buf]
                if t.stride != 0:
                    up.count *= me.length
                else:
                    up.reuse *= me.length
        self.stack.pop()
        if me.length != 0:
            self.topdown //= me.length
        me.bottomup = max([t.count * t.reuse for t in me.touch.values()], default=-1)
        level = _parallel_level(me.ann)
        if self.stack and _parallel_level(self.itervars[self.stack[-1]].ann) == level + 1:
            for buf, t in me.touch.items():
                for sv in self.stack:
                    up = self.itervars[sv]
                    if _parallel_level(up.ann) == level + 1:
                        up.touch[buf].thread_reuse = -t.reuse
                        up.touch[buf].thread_count = -t.count
        for t in me.touch.values():
            if t.thread_count < 0:
                t.thread_count = t.count // -t.thread_count
                t.thread_reuse = t.reuse // -t.thread_reuse

    # -------------------------------------------------------------- statements
    def visit_For(self, s: S.For) -> None:
        ext = s.extent.value if isinstance(s.extent, E.IntImm) else -1
        if s.kind == S.ForKind.THREAD_BINDING and s.thread_binding is not None:
            tag = s.thread_binding.thread_tag
            ann = VIRTUAL_THREAD if tag.startswith("vthread") else _THREAD_ANN.get(tag, PARALLEL)
        else:
            ann = _KIND_ANN.get(s.kind, SERIAL)
        self.enter(s.loop_var, ext, ann)
        self.visit(s.min)
        self.visit(s.extent)
        self.visit(s.body)
        self.exit()

    def visit_AttrStmt(self, s: S.AttrStmt) -> None:
        if s.attr_key not in ("thread_extent", "virtual_thread") or \
                not isinstance(s.node, E.IterVar):
            self.generic(s)
            return
        ext = s.value.value if isinstance(s.value, E.IntImm) else -1
        ann = VIRTUAL_THREAD if s.attr_key == "virtual_thread" else _THREAD_ANN.get(
            s.node.thread_tag, PARALLEL)
        self.enter(s.node.var, ext, ann)
        self.visit(s.body)
        self.exit()

    def visit_BufferStore(self, s: S.BufferStore) -> None:
        self.mem(s.buffer, s.indices)
        self.visit(s.value)
        self.visit(s.indices)

    def visit_BufferLoad(self, e: E.BufferLoad) -> None:
        self.mem(e.buffer, e.indices)
        self.generic(e)

    def _arith(self, e, kind: str) -> None:
        if self.stack and _dt.parse(e.dtype).code in (_dt.FLOAT, _dt.BFLOAT):
            f = self.itervars[self.stack[-1]]
            setattr(f, kind, getattr(f, kind) + 1)
        self.generic(e)

    def visit_Add(self, e) -> None:
        self._arith(e, "add_ct")

    visit_Sub = visit_Add

    def visit_Mul(self, e) -> None:
        self._arith(e, "mul_ct")

    def visit_Div(self, e) -> None:
        self._arith(e, "div_ct")

    visit_Mod = visit_Div

    def mem(self, buf, indices) -> None:
        name = buf.data.name
        key = f"{name}_{self.buffer_counter.get(name, 0)}"
        self.buffer_counter[name] = self.buffer_counter.get(name, 0) + 1
        strides = _Strides()
        if len(indices) == 1:
            strides.visit(indices[0])
        for var in self.stack:
            self.itervars[var].touch[key] = _Touch(strides.out.get(var, 0))

    def ordered(self) -> List[_Itervar]:
        return sorted(self.itervars.values(), key=lambda f: f.order)


def _trans(take_log: bool):
    if not take_log:
        return lambda x: x
    return lambda x: -math.log2(-x + 1) if x < 0 else math.log2(x + 1)


def ana_lower(sch, args, binds=None, simple_mode: bool = True):
    """The flattened loop nest of a schedule with every loop kept (unit loops included), none
    vectorized away, and, as in classic ``ana_lower``, without the reductions' init stores."""
    cur = PassContext.current()
    config = dict(cur.config)
    config.update({"tir.debug_keep_trivial_loop": True, "tir.disable_vectorize": True})
    # virtual threads stay loops, as in classic (its ana_lower stops before their injection):
    # interleaving them would make the feature vector's length depend on the config
    with PassContext(opt_level=cur.opt_level, config=config,
                     disabled_pass=set(cur.disabled_pass) | {"tir.LowerVirtualThread"}):
        mod = driver.build_module.schedule_to_module(sch, args, binds=binds)
        mod = IRModule({name: f.with_body(ir_transform(
            f.body, None, lambda n: replace(n, init=None) if n.init is not None else None,
            ["Block"])) for name, f in mod.functions.items()})
        mod = driver.lower(mod)
    return next(iter(mod.functions.values())).body


def _extract(sch, args) -> _Extractor:
    ext = _Extractor()
    ext.visit(ana_lower(sch, args))
    return ext


def get_itervar_feature(sch, args, take_log: bool = False) -> list:
    """Touch features of every loop of ``sch`` lowered with ``args`` (see the module text):
    ``[[("_itervar_", var), ("_attr_", ...), ("_arith_", ...), (buffer, ...), ...], ...]``
    as lists."""
    tr = _trans(take_log)
    rows = []
    for f in _extract(sch, args).ordered():
        row = [["_itervar_", f.var],
               ["_attr_", tr(f.length), f.nest_level, tr(f.topdown), tr(f.bottomup)]
               + [i == f.ann for i in range(N_ANN)],
               ["_arith_", tr(f.add_ct), tr(f.mul_ct), tr(f.div_ct)]]
        for buf in sorted(f.touch):
            row.append([buf] + [tr(v) for v in f.touch[buf].values()])
        rows.append(row)
    return rows


def flatten_itervar_feature(fea: list) -> np.ndarray:
    """The rows of :func:`get_itervar_feature` as one vector."""
    return np.concatenate([np.asarray(pair[1:], dtype="float64") for axis in fea
                           for pair in axis[1:]])


def get_itervar_feature_flatten(sch, args, take_log: bool = True) -> np.ndarray:
    """:func:`get_itervar_feature` flattened, as float32."""
    return flatten_itervar_feature(get_itervar_feature(sch, args, take_log)).astype("float32")


def get_flatten_name(fea: list) -> List[str]:
    """The name of each entry of :func:`flatten_itervar_feature` of ``fea``."""
    names_of = {"_attr_": ["length", "nest_level", "topdown", "bottomup"]
                + [f"ann_{i}" for i in range(20)],
                "_arith_": ["add", "mul", "div"],
                "buf_touch": ["stride", "mod", "count", "reuse", "T_count", "T_reuse"]}
    names, ct = [], 0
    for row in fea:
        var_name = str(getattr(row[0][1], "name", row[0][1]))
        for pair in row[1:]:
            key = pair[0]
            lst = names_of.get(key, names_of["buf_touch"])
            for i in range(len(pair) - 1):
                names.append(".".join([f"f{ct}", var_name, key, lst[i]]))
                ct += 1
    return names


def get_buffer_curve_sample_flatten(sch, args, sample_n: int = 30) -> np.ndarray:
    """Curves relating count, reuse and the top-down product of each buffer touched at the
    innermost loop level, each sampled at ``sample_n`` points (classic's relation feature):
    ``sample_n * buffers * 4 curves * 2`` numbers."""
    ordered = _extract(sch, args).ordered()
    max_depth = max((f.nest_level for f in ordered), default=0)
    innermost, added = set(), set()
    for f in reversed(ordered):
        if f.nest_level != max_depth:
            continue
        for buf in f.touch:
            raw = buf[:buf.rfind("_")].split(".")[0]
            if raw not in added:
                innermost.add(buf)
                added.add(raw)
    curves: Dict[str, List[List[float]]] = {b: [[0.0], [0.0], [0.0]] for b in innermost}
    for f in ordered:
        for buf, t in f.touch.items():
            if buf in innermost:
                count, reuse, top = curves[buf]
                count.append(_log2(t.count))
                reuse.append(_log2(t.reuse))
                top.append(_log2(f.topdown))
    out: List[float] = []

    def sample(x: List[float], y: List[float]) -> None:
        for i in range(sample_n):
            for j in range(len(x) - 1, -1, -1):
                if i > x[j] - 1e-6:
                    out.extend((y[j], i - x[j]))
                    break

    for buf in sorted(innermost):
        count, reuse, top = (sorted(c) for c in curves[buf])
        sample(count, reuse)
        sample(reuse, count)
        sample(count, top)
        sample(top, count)
    return np.asarray(out, dtype="float32")


def _log2(x: int) -> float:
    return math.log2(x) if x > 0 else float("-inf") if x == 0 else float("nan")


__all__ = ["ana_lower", "get_itervar_feature", "flatten_itervar_feature",
           "get_itervar_feature_flatten", "get_flatten_name", "get_buffer_curve_sample_flatten"]
