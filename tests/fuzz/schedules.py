"""Random schedule-primitive sequences for both schedule APIs.

A step is plain data: the primitive's name and a few integers (``a``, ``b``, ``c``, ``d``)
resolved *at apply time* modulo what exists then (the stages/blocks, their loops). So every
subsequence of a sequence still applies, which is what the shrinker relies on: it deletes
steps one by one and keeps the failure.
"""
from __future__ import annotations

import random
from typing import List, Tuple

from tvmlite import te
from tvmlite.te.tensor import ComputeOp
from tvmlite.tir.functor import post_order_visit
from tvmlite.tir.schedule import Schedule
from tvmlite.tir.stmt import Block

TE_OPS = ["split", "split", "split_nparts", "fuse", "reorder", "tile", "compute_at",
          "compute_at", "compute_inline", "compute_root", "cache_read", "cache_write",
          "rfactor", "vectorize", "parallel", "unroll", "bind_vthread", "pragma",
          "storage_align", "set_scope"]
TIR_OPS = ["split", "split", "fuse", "reorder", "compute_at", "compute_at",
           "reverse_compute_at", "compute_inline", "reverse_compute_inline", "cache_read",
           "cache_write", "rfactor", "decompose_reduction", "blockize", "vectorize", "parallel",
           "unroll", "annotate", "storage_align", "set_scope", "bind_vthread",
           "unsafe_set_dtype", "read_at", "write_at", "reindex_cache_read",
           "reindex_cache_write", "decompose_padding", "rolling_buffer", "pad_einsum"]
SCOPES = ["local", "shared", "global"]


def random_steps(rng: random.Random, api: str) -> List[dict]:
    """1 to 8 random steps for ``api`` ("te" or "tir")."""
    ops = TE_OPS if api == "te" else TIR_OPS
    return [{"op": rng.choice(ops), "a": rng.randrange(64), "b": rng.randrange(64),
             "c": rng.randrange(64), "d": rng.randrange(64)}
            for _ in range(rng.randint(1, 8))]


def step_text(step: dict) -> str:
    return f"{step['op']}({step['a']},{step['b']},{step['c']},{step['d']})"


# ---------------------------------------------------------------------------------------- TE
def _pick(seq, i):
    return seq[i % len(seq)] if seq else None


def apply_te_step(s: te.Schedule, prog, step: dict) -> str:
    """Apply one step to a TE schedule; returns what it did in classic-TE syntax ("" when the
    step does not apply here). Raises what the facade raises."""
    op, a, b, c, d = step["op"], step["a"], step["b"], step["c"], step["d"]
    stages = [st for st in s.stages if isinstance(st.op, ComputeOp)]
    if op in ("compute_inline", "storage_align", "set_scope") and d % 4:
        # mostly on intermediate stages: on an output they are refused
        inner = [x for x in stages if not any(x.op is o for o in s.outputs)]
        stages = inner or stages
    st = _pick(stages, a)
    if st is None:
        return ""
    name = st.op.name
    leaves = list(st.leaf_iter_vars)
    iv = _pick(leaves, b)
    ivn = iv.var.name if iv is not None else ""
    if op == "split" and iv is not None:
        st.split(iv, factor=1 + c % 9)
        return f"s[{name}].split({ivn}, factor={1 + c % 9})"
    if op == "split_nparts" and iv is not None:
        st.split(iv, nparts=1 + c % 5)
        return f"s[{name}].split({ivn}, nparts={1 + c % 5})"
    if op == "fuse" and len(leaves) > 1:
        i = b % (len(leaves) - 1)
        st.fuse(leaves[i], leaves[i + 1])
        return f"s[{name}].fuse({leaves[i].var.name}, {leaves[i + 1].var.name})"
    if op == "reorder" and len(leaves) > 1:
        perm = leaves[:]
        random.Random(c).shuffle(perm)
        st.reorder(*perm)
        return f"s[{name}].reorder({', '.join(x.var.name for x in perm)})"
    if op == "tile" and len(leaves) > 1:
        i = b % (len(leaves) - 1)
        st.tile(leaves[i], leaves[i + 1], 1 + c % 6, 1 + d % 6)
        return (f"s[{name}].tile({leaves[i].var.name}, {leaves[i + 1].var.name}, {1 + c % 6}, "
                f"{1 + d % 6})")
    if op == "compute_at":
        others = [x for x in stages if x is not st]
        readers = [x for x in others if any(t.op is st.op for t in x.op.input_tensors)]
        tgt = _pick(readers if readers and c % 5 else others, c)  # mostly at a consumer
        if tgt is None or not tgt.leaf_iter_vars:
            return ""
        tiv = _pick(list(tgt.leaf_iter_vars), d)
        st.compute_at(tgt, tiv)
        return f"s[{name}].compute_at(s[{tgt.op.name}], {tiv.var.name})"
    if op == "compute_inline":
        st.compute_inline()
        return f"s[{name}].compute_inline()"
    if op == "compute_root":
        st.compute_root()
        return f"s[{name}].compute_root()"
    if op == "cache_read":
        tensors = list(prog.inputs) + [x.op.output(0) for x in stages]
        t = _pick(tensors, b)
        readers = [x.op for x in stages if any(r.op is t.op for r in x.op.input_tensors)]
        if not readers:
            return ""
        scope = SCOPES[c % 3]
        s.cache_read(t, scope, readers)
        return f"s.cache_read({t.op.name}, {scope!r}, [{', '.join(r.name for r in readers)}])"
    if op == "cache_write":
        scope = SCOPES[c % 3]
        s.cache_write(st.op.output(0), scope)
        return f"s.cache_write({name}, {scope!r})"
    if op == "rfactor":
        red = [x for x in leaves if x.iter_type == 2]
        if not red:
            return ""
        riv = _pick(red, b)
        s.rfactor(st.op.output(0), riv, c % 2)
        return f"s.rfactor({name}, {riv.var.name}, factor_axis={c % 2})"
    if op in ("vectorize", "parallel", "unroll") and iv is not None:
        getattr(st, op)(iv)
        return f"s[{name}].{op}({ivn})"
    if op == "bind_vthread" and iv is not None:
        st.bind(iv, te.thread_axis("vthread"))
        return f's[{name}].bind({ivn}, te.thread_axis("vthread"))'
    if op == "pragma" and iv is not None:
        key, val = [("unroll_explicit", True), ("auto_unroll_max_step", 16),
                    ("parallel_launch_point", None)][c % 3]
        st.pragma(iv, key, val) if val is not None else st.pragma(iv, key)
        return f"s[{name}].pragma({ivn}, {key!r}, {val!r})"
    if op == "storage_align":
        axes = list(st.op.axis)
        if not axes:
            return ""
        ax = _pick(axes, b)
        f = [2, 4, 8, 16][c % 4]
        st.storage_align(ax, f, d % f)
        return f"s[{name}].storage_align({ax.var.name}, {f}, {d % f})"
    if op == "set_scope":
        scope = SCOPES[c % 3]
        st.set_scope(scope)
        return f"s[{name}].set_scope({scope!r})"
    return ""


# --------------------------------------------------------------------------------------- TIR
def block_names(sch: Schedule) -> List[str]:
    """Names of every block but the root, in program order."""
    names = []

    def visit(x):
        if isinstance(x, Block) and x.name_hint != "root":
            names.append(x.name_hint)

    post_order_visit(sch.mod["main"].body, visit)
    return names


def apply_tir_step(sch: Schedule, step: dict) -> str:
    """Apply one step to a ``tir.Schedule``; returns it in TVMScript-schedule syntax."""
    op, a, b, c, d = step["op"], step["a"], step["b"], step["c"], step["d"]
    names = block_names(sch)
    if not names:
        return ""
    bname = _pick(names, a)
    blk = sch.get_block(bname)
    loops = sch.get_loops(blk)
    li = b % len(loops) if loops else None
    loop = loops[li] if loops else None
    at = f"sch.get_loops(sch.get_block({bname!r}))[{li}]"
    if op == "split" and loop is not None:
        f = 1 + c % 7
        factors = [[None, f], [f, None], [2, None, f], [None, 1 + d % 4, f]][d % 4]
        sch.split(loop, factors)
        return f"sch.split({at}, {factors})"
    if op == "fuse" and loop is not None:
        k = min(len(loops) - li, 1 + c % 3)
        sch.fuse(*loops[li:li + k])
        return f"sch.fuse(*sch.get_loops(sch.get_block({bname!r}))[{li}:{li + k}])"
    if op == "reorder" and len(loops) > 1:
        idx = list(range(len(loops)))
        r = random.Random(c)
        sub = r.sample(idx, 2 + d % (len(loops) - 1))
        sch.reorder(*[loops[i] for i in sub])
        return f"sch.reorder(*[sch.get_loops(sch.get_block({bname!r}))[i] for i in {sub}])"
    if op in ("compute_at", "reverse_compute_at"):
        other = _pick([n for n in names if n != bname], c)
        if other is None:
            return ""
        ol = sch.get_loops(sch.get_block(other))
        if not ol:
            return ""
        oi = d % len(ol)
        keep = bool(d & 32)
        getattr(sch, op)(blk, ol[oi], preserve_unit_loops=keep)
        return (f"sch.{op}(sch.get_block({bname!r}), sch.get_loops(sch.get_block({other!r}))"
                f"[{oi}], preserve_unit_loops={keep})")
    if op in ("compute_inline", "reverse_compute_inline"):
        getattr(sch, op)(blk)
        return f"sch.{op}(sch.get_block({bname!r}))"
    if op == "cache_read":
        reads = sch.get(blk).reads
        if not reads:
            return ""
        ri, scope = c % len(reads), SCOPES[d % 3]
        sch.cache_read(blk, ri, scope)
        return f"sch.cache_read(sch.get_block({bname!r}), {ri}, {scope!r})"
    if op == "cache_write":
        scope = SCOPES[d % 3]
        sch.cache_write(blk, 0, scope)
        return f"sch.cache_write(sch.get_block({bname!r}), 0, {scope!r})"
    if op == "rfactor" and loop is not None:
        sch.rfactor(loop, c % 2)
        return f"sch.rfactor({at}, {c % 2})"
    if op == "decompose_reduction" and loop is not None:
        sch.decompose_reduction(blk, loop)
        return f"sch.decompose_reduction(sch.get_block({bname!r}), {at})"
    if op == "decompose_padding" and loop is not None:
        sch.decompose_padding(blk, loop)
        return f"sch.decompose_padding(sch.get_block({bname!r}), {at})"
    if op == "rolling_buffer":
        if not sch.get(blk).writes:
            return ""
        sch.rolling_buffer(blk, 0)
        return f"sch.rolling_buffer(sch.get_block({bname!r}), 0)"
    if op == "pad_einsum":
        padding = [(c >> (2 * k)) % 3 for k in range(len(sch.get(blk).iter_vars))]
        sch.pad_einsum(blk, padding)
        return f"sch.pad_einsum(sch.get_block({bname!r}), {padding})"
    if op == "blockize" and loop is not None:
        sch.blockize(loop)
        return f"sch.blockize({at})"
    if op in ("vectorize", "parallel", "unroll") and loop is not None:
        getattr(sch, op)(loop)
        return f"sch.{op}({at})"
    if op == "annotate" and loop is not None:
        key, val = [("pragma_auto_unroll_max_step", 16), ("pragma_unroll_explicit", 1)][c % 2]
        sch.annotate(loop, key, val)
        return f"sch.annotate({at}, {key!r}, {val!r})"
    if op == "bind_vthread" and loop is not None:
        sch.bind(loop, "vthread.x")
        return f'sch.bind({at}, "vthread.x")'
    if op == "storage_align":
        nd = len(sch.get(blk).writes[0].buffer.shape) if sch.get(blk).writes else 0
        if nd == 0:
            return ""
        f = [2, 4, 8, 16][c % 4]
        sch.storage_align(blk, 0, d % nd, f, d % f)
        return f"sch.storage_align(sch.get_block({bname!r}), 0, {d % nd}, {f}, {d % f})"
    if op == "set_scope":
        scope = SCOPES[c % 3]
        sch.set_scope(blk, 0, scope)
        return f"sch.set_scope(sch.get_block({bname!r}), 0, {scope!r})"
    if op == "unsafe_set_dtype":  # a wider type keeps every result within tolerance
        sch.unsafe_set_dtype(blk, 0, "float64")
        return f'sch.unsafe_set_dtype(sch.get_block({bname!r}), 0, "float64")'
    if op in ("read_at", "write_at") and loop is not None:
        regions = sch.get(blk).reads if op == "read_at" else sch.get(blk).writes
        if not regions:
            return ""
        ri, scope = c % len(regions), SCOPES[d % 3]
        getattr(sch, op)(loop, blk, ri, scope)
        return f"sch.{op}({at}, sch.get_block({bname!r}), {ri}, {scope!r})"
    if op in ("reindex_cache_read", "reindex_cache_write"):
        b = sch.get(blk)
        regions = b.reads if op == "reindex_cache_read" else b.writes
        if not regions or not b.iter_vars:
            return ""
        ri, scope, n = c % len(regions), SCOPES[d % 3], len(b.iter_vars)
        perm = list(range(n))
        random.Random(d).shuffle(perm)  # the iterators in another order: always injective
        getattr(sch, op)(blk, ri, scope, lambda *vs: [vs[k] for k in perm])
        return (f"sch.{op}(sch.get_block({bname!r}), {ri}, {scope!r}, "
                f"lambda *vs: [vs[k] for k in {perm}])")
    return ""


def describe(steps: List[dict]) -> Tuple[str, ...]:
    return tuple(step_text(s) for s in steps)
