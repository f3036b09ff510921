"""VTA instructions: what the code generator emits and the simulator executes.

Queues: 0 load (input/weight loads), 1 compute (GEMM, ALU, micro-op and accumulator loads),
2 store. Each instruction may pop a dependence token from its previous/next queue before it
runs and push one after it ran (``pop_prev``, ``pop_next``, ``push_prev``, ``push_next``).
"""
from __future__ import annotations

import dataclasses
from typing import Tuple

LOAD_Q, COMPUTE_Q, STORE_Q = 0, 1, 2
QUEUE_NAMES = ("load", "compute", "store")
MEM_TYPES = ("uop", "wgt", "inp", "acc")
ALU_OPS = ("min", "max", "add", "shr", "mul")


@dataclasses.dataclass
class Insn:
    """Common fields: the queue and the dependence flags."""

    queue: int
    pop_prev: bool = False
    pop_next: bool = False
    push_prev: bool = False
    push_next: bool = False

    def flags(self) -> str:
        names = ("pop_prev", "pop_next", "push_prev", "push_next")
        return " ".join(n for n in names if getattr(self, n))


@dataclasses.dataclass
class Noop(Insn):
    """A compute-queue instruction that only passes dependence tokens on (classic runtime's
    no-op GEMM): it relays a dependence between the load and the store queue, which share
    no token queue."""


@dataclasses.dataclass
class Load(Insn):
    """A 2D strided DRAM → SRAM copy with zero padding (units: tiles of ``mem``)."""

    mem: str = "inp"
    sram: int = 0
    arg: int = 0  # index of the DRAM argument (-1: the program's micro-op table)
    offset: int = 0
    y_size: int = 1
    x_size: int = 1
    x_stride: int = 1
    y_pad: Tuple[int, int] = (0, 0)
    x_pad: Tuple[int, int] = (0, 0)


@dataclasses.dataclass
class Store(Insn):
    """A 2D strided SRAM (accumulator, narrowed) → DRAM copy."""

    sram: int = 0
    arg: int = 0
    offset: int = 0
    y_size: int = 1
    x_size: int = 1
    x_stride: int = 1


@dataclasses.dataclass
class Gemm(Insn):
    """Run micro-ops ``[uop_bgn, uop_end)`` ``iter_out * iter_in`` times; ``factors`` are the
    (dst, src, wgt) index steps of the outer and the inner loop."""

    reset: bool = False
    uop_bgn: int = 0
    uop_end: int = 0
    iter_out: int = 1
    iter_in: int = 1
    factor_out: Tuple[int, int, int] = (0, 0, 0)
    factor_in: Tuple[int, int, int] = (0, 0, 0)


@dataclasses.dataclass
class Alu(Gemm):
    """A vector ALU operation over accumulator rows: ``dst = op(dst, src or imm)``."""

    op: str = "add"
    use_imm: bool = False
    imm: int = 0
