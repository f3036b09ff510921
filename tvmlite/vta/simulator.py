"""A functional simulator of the VTA instruction set, in numpy (whole instructions at once).

Three modules (load, compute, store) run their queues; an instruction whose ``pop_*`` flag
finds no token in the matching dependence queue waits. When no module can go on before all
instructions ran, that is a deadlock; tokens left over at the end are a token mismatch: both
raise a :class:`TVMError`.

Beyond classic, each run also estimates cycles (:func:`utilisation`): every module executes its
queue in order, an instruction starts when its module is free and the tokens it pops were
pushed, and lasts ``_cycles(ins)`` (a 64-bit DMA bus, one micro-op per cycle): so the figures
show how far the load, compute and store queues overlap (virtual threads hide latency).
"""
from __future__ import annotations

import collections
import time
from typing import Dict, List, Optional

import numpy as np

from ..error import TVMError
from . import isa
from .codegen import DramHazards

STAT_KEYS = ("inp_load_nbytes", "wgt_load_nbytes", "acc_load_nbytes", "uop_load_nbytes",
             "out_store_nbytes", "gemm_counter", "alu_counter")

_STATS: Dict[str, int] = dict.fromkeys(STAT_KEYS, 0)
_EXTRA: Dict[str, float] = {}
_TRACE: Optional[List[str]] = None


def clear_stats() -> None:
    """Reset the statistics (classic ``vta.testing.simulator.clear_stats``)."""
    for k in STAT_KEYS:
        _STATS[k] = 0
    _EXTRA.clear()


def stats() -> Dict[str, int]:
    """The statistics of the runs since the last :func:`clear_stats` (bytes moved by DMA and
    GEMM/ALU micro-op executions, as classic counts them)."""
    return dict(_STATS)


def utilisation() -> Dict[str, float]:
    """Beyond classic, per queue: instructions, busy cycles, utilisation (busy / total) and
    seconds of simulation; overall: ``total_cycles`` (with the queues overlapping) and
    ``serial_cycles`` (their sum, with no overlap), since the last :func:`clear_stats`."""
    out = dict(_EXTRA)
    total = out.get("total_cycles", 0)
    for name in isa.QUEUE_NAMES:
        out[f"{name}_utilisation"] = out.get(f"{name}_cycles", 0) / total if total else 0.0
    return out


#: fixed cycles of an instruction (fetch, decode, pipeline fill) and DMA bus bytes per cycle
_INSN_CYCLES, _BUS_BYTES = 4, 8


def _cycles(ins, dev) -> int:
    """Estimated cycles of ``ins``."""
    if isinstance(ins, isa.Load):
        if ins.mem == "uop":
            return _INSN_CYCLES + -(-ins.x_size * 4 // _BUS_BYTES)
        tiles = (ins.y_size + sum(ins.y_pad)) * (ins.x_size + sum(ins.x_pad))
        return _INSN_CYCLES + -(-tiles * dev.elem_bytes[ins.mem] // _BUS_BYTES)
    if isinstance(ins, isa.Store):
        return _INSN_CYCLES + -(-ins.y_size * ins.x_size * dev.elem_bytes["out"] // _BUS_BYTES)
    if isinstance(ins, isa.Noop):
        return _INSN_CYCLES
    return _INSN_CYCLES + (ins.uop_end - ins.uop_bgn) * ins.iter_out * ins.iter_in


def trace(enable: bool = True) -> None:
    """Record every executed instruction (``trace_dump()`` returns them)."""
    global _TRACE
    _TRACE = [] if enable else None


def trace_dump() -> List[str]:
    """The instructions executed since ``trace()`` was called, one line each."""
    return list(_TRACE or [])


class Device:
    """SRAM contents of one VTA core."""

    def __init__(self, cfg_env):
        e = cfg_env
        self.b, self.i, self.o = e.BATCH, e.BLOCK_IN, e.BLOCK_OUT
        self.inp = np.zeros((e.INP_BUFF_SIZE // e.INP_ELEM_BYTES, e.BATCH, e.BLOCK_IN),
                            e.inp_dtype)
        self.wgt = np.zeros((e.WGT_BUFF_SIZE // e.WGT_ELEM_BYTES, e.BLOCK_OUT, e.BLOCK_IN),
                            e.wgt_dtype)
        self.acc = np.zeros((e.ACC_BUFF_SIZE // e.ACC_ELEM_BYTES, e.BATCH, e.BLOCK_OUT),
                            e.acc_dtype)
        self.uop = np.zeros((e.UOP_BUFF_SIZE // 4, 3), np.int64)
        self.out_dtype = e.out_dtype
        self.elem_bytes = {"inp": e.INP_ELEM_BYTES, "wgt": e.WGT_ELEM_BYTES,
                           "acc": e.ACC_ELEM_BYTES, "out": e.OUT_ELEM_BYTES}


def _indices(dev, ins):
    k = dev.uop[ins.uop_bgn:ins.uop_end]
    o = np.arange(ins.iter_out)[:, None, None, None]
    i = np.arange(ins.iter_in)[None, :, None, None]
    idx = k[None, None] + o * np.array(ins.factor_out) + i * np.array(ins.factor_in)
    return idx.reshape(-1, 3)


def _bounds(dev, rows, mem, what):
    depth = getattr(dev, mem).shape[0]
    if rows.size and (rows.min() < 0 or rows.max() >= depth):
        raise TVMError(f"VTA simulator: {what} touches {mem} row {int(rows.max())} outside "
                       f"the buffer ({depth} rows)")


def _run(dev, ins, args, uops) -> None:  # noqa: C901
    if isinstance(ins, isa.Noop):
        return
    if isinstance(ins, isa.Load):
        if ins.mem == "uop":
            dev.uop[ins.sram:ins.sram + ins.x_size] = uops[ins.offset:ins.offset + ins.x_size]
            _STATS["uop_load_nbytes"] += ins.x_size * 4
            return
        sram = getattr(dev, ins.mem)
        tile = sram.shape[1:]
        dram = args[ins.arg].reshape((-1,) + tile)
        w = ins.x_pad[0] + ins.x_size + ins.x_pad[1]
        h = ins.y_pad[0] + ins.y_size + ins.y_pad[1]
        rows = np.arange(ins.y_size)[:, None] * ins.x_stride + np.arange(ins.x_size) \
            + ins.offset
        if rows.size and (rows.min() < 0 or rows.max() >= dram.shape[0]):
            raise TVMError(f"VTA simulator: a load reads tile {int(rows.max())} beyond "
                           f"argument {ins.arg} ({dram.shape[0]} tiles)")
        block = np.zeros((h, w) + tile, sram.dtype)
        block[ins.y_pad[0]:ins.y_pad[0] + ins.y_size, ins.x_pad[0]:ins.x_pad[0] + ins.x_size] = \
            dram[rows]
        _bounds(dev, np.array([ins.sram, ins.sram + h * w - 1]), ins.mem, "a load")
        sram[ins.sram:ins.sram + h * w] = block.reshape((-1,) + tile)
        _STATS[f"{ins.mem}_load_nbytes"] += ins.y_size * ins.x_size * dev.elem_bytes[ins.mem]
    elif isinstance(ins, isa.Store):
        dram = args[ins.arg].reshape((-1,) + dev.acc.shape[1:])
        rows = (np.arange(ins.y_size)[:, None] * ins.x_stride + np.arange(ins.x_size)
                + ins.offset).ravel()
        if rows.size and (rows.min() < 0 or rows.max() >= dram.shape[0]):
            raise TVMError(f"VTA simulator: a store writes tile {int(rows.max())} beyond "
                           f"argument {ins.arg} ({dram.shape[0]} tiles)")
        n = ins.y_size * ins.x_size
        _bounds(dev, np.array([ins.sram, ins.sram + n - 1]), "acc", "a store")
        dram[rows] = dev.acc[ins.sram:ins.sram + n].astype(dram.dtype)
        _STATS["out_store_nbytes"] += n * dev.elem_bytes["out"]
    elif isinstance(ins, isa.Alu):
        idx = _indices(dev, ins)
        d, s = idx[:, 0], idx[:, 1]
        _bounds(dev, idx[:, :2], "acc", "an ALU operation")
        a = dev.acc[s] if ins.use_imm else dev.acc[d]
        b = np.int32(ins.imm) if ins.use_imm else dev.acc[s]
        if ins.op == "add":
            r = a + b
        elif ins.op == "mul":
            r = a * b
        elif ins.op == "min":
            r = np.minimum(a, b)
        elif ins.op == "max":
            r = np.maximum(a, b)
        elif ins.op == "shr":
            r = a >> b if ins.imm >= 0 or not ins.use_imm else a << -ins.imm
        else:
            raise TVMError(f"VTA simulator: unknown ALU operation {ins.op}")
        dev.acc[d] = r.astype(dev.acc.dtype)
        _STATS["alu_counter"] += len(idx)
    elif isinstance(ins, isa.Gemm):
        idx = _indices(dev, ins)
        _bounds(dev, idx[:, 0], "acc", "a GEMM")
        if ins.reset:
            dev.acc[idx[:, 0]] = 0
            return
        _bounds(dev, idx[:, 1], "inp", "a GEMM")
        _bounds(dev, idx[:, 2], "wgt", "a GEMM")
        x = dev.inp[idx[:, 1]].astype(np.int32)
        w = dev.wgt[idx[:, 2]].astype(np.int32)
        prod = np.matmul(x, w.transpose(0, 2, 1))
        np.add.at(dev.acc, idx[:, 0], prod)
        _STATS["gemm_counter"] += len(idx)


def _dram_order(insns, dev) -> Dict[int, List]:
    """Per instruction with DRAM predecessors in another queue, ``(queue, position in that
    queue)`` of each: the run checks they executed first (a missing dependence is an error,
    never a wrong answer)."""
    tile = {m: int(np.prod(getattr(dev, m).shape[1:])) for m in ("inp", "wgt", "acc")}
    hazards = DramHazards(tile)
    qpos, counts = [], [0, 0, 0]
    out: Dict[int, List] = {}
    for n, ins in enumerate(insns):
        qpos.append(counts[ins.queue])
        counts[ins.queue] += 1
        need = [(a, g) for a, g in hazards.needs(ins).items() if a != ins.queue]
        if need:
            out[id(ins)] = [(a, qpos[g]) for a, g in need]
        hazards.record(ins, n)
    return out


def run(program, args: List[np.ndarray], env) -> None:
    """Execute ``program`` on the numpy arrays ``args`` (outputs are written in place)."""
    dev = Device(env)
    queues: List[List[isa.Insn]] = [[], [], []]
    for ins in program.insns:
        queues[ins.queue].append(ins)
    pos = [0, 0, 0]
    # dependence queues: the cycle at which each pending token was pushed
    tokens = {(a, b): collections.deque() for a in range(3) for b in range(3) if abs(a - b) == 1}
    clock = [0, 0, 0]
    busy = [0, 0, 0]
    spent = [0.0, 0.0, 0.0]
    uops = program.uops.astype(np.int64)
    after = _dram_order(program.insns, dev)
    while True:
        progressed = False
        for q in range(3):
            while pos[q] < len(queues[q]):
                ins = queues[q][pos[q]]
                if ins.pop_prev and (q == 0 or not tokens[(q - 1, q)]):
                    if q == 0:
                        raise TVMError("VTA simulator: a load instruction pops a token from "
                                       "a previous queue, which the load queue has not")
                    break
                if ins.pop_next and (q == 2 or not tokens[(q + 1, q)]):
                    if q == 2:
                        raise TVMError("VTA simulator: a store instruction pops a token from "
                                       "a next queue, which the store queue has not")
                    break
                start = clock[q]
                if ins.pop_prev:
                    start = max(start, tokens[(q - 1, q)].popleft())
                if ins.pop_next:
                    start = max(start, tokens[(q + 1, q)].popleft())
                for a, k in after.get(id(ins), ()):
                    if pos[a] <= k:
                        raise TVMError(
                            f"VTA simulator: missing dependence: {isa.QUEUE_NAMES[q]} "
                            f"instruction {pos[q]} ({type(ins).__name__} of argument {ins.arg}) "
                            f"runs before {isa.QUEUE_NAMES[a]} instruction {k}, which "
                            f"{'writes' if a == isa.STORE_Q else 'reads'} the DRAM it "
                            f"{'reads' if a == isa.STORE_Q else 'overwrites'}, and no "
                            "dependence token orders them")
                cost = _cycles(ins, dev)
                clock[q] = start + cost
                busy[q] += cost
                t0 = time.perf_counter()
                _run(dev, ins, args, uops)
                spent[q] += time.perf_counter() - t0
                if _TRACE is not None:
                    _TRACE.append(f"{isa.QUEUE_NAMES[q]:7s} {ins}")
                if ins.push_prev:
                    if q == 0:
                        raise TVMError("VTA simulator: a load pushes to a previous queue")
                    tokens[(q, q - 1)].append(clock[q])
                if ins.push_next:
                    if q == 2:
                        raise TVMError("VTA simulator: a store pushes to a next queue")
                    tokens[(q, q + 1)].append(clock[q])
                pos[q] += 1
                progressed = True
        if all(pos[q] == len(queues[q]) for q in range(3)):
            break
        if not progressed:
            heads = ", ".join(f"{isa.QUEUE_NAMES[q]} at instruction {pos[q]} "
                              f"({queues[q][pos[q]].flags()})"
                              for q in range(3) if pos[q] < len(queues[q]))
            raise TVMError(f"VTA simulator: deadlock: every queue waits for a dependence "
                           f"token ({heads})")
    left = {f"{isa.QUEUE_NAMES[a]}->{isa.QUEUE_NAMES[b]}": len(n)
            for (a, b), n in tokens.items() if n}
    if left:
        raise TVMError(f"VTA simulator: dependence token mismatch: tokens pushed but never "
                       f"popped: {left}")
    for q in range(3):
        name = isa.QUEUE_NAMES[q]
        _EXTRA[f"{name}_insns"] = _EXTRA.get(f"{name}_insns", 0) + len(queues[q])
        _EXTRA[f"{name}_seconds"] = _EXTRA.get(f"{name}_seconds", 0.0) + spent[q]
        _EXTRA[f"{name}_cycles"] = _EXTRA.get(f"{name}_cycles", 0) + busy[q]
    _EXTRA["total_cycles"] = _EXTRA.get("total_cycles", 0) + max(clock)
    _EXTRA["serial_cycles"] = _EXTRA.get("serial_cycles", 0) + sum(busy)
