"""A scheduled TE program written back as a hybrid script (classic ``te.hybrid.build``).

The schedule is lowered as far as loops over multi-dimensional buffers (blocks gone, buffers
not yet flattened) and printed as Python: ``range``/``parallel``/``vectorize``/``unroll``/
``bind`` loops, ``allocate`` for intermediate buffers, ``output_tensor`` for the outputs. The
text parses back into a :class:`~tvmlite.te.tensor.HybridOp` and runs as Python on numpy
arrays, as any hybrid script does.
"""
from __future__ import annotations

import builtins
import keyword
import math
import re
from typing import Dict, List, Sequence

from ...error import TVMError
from ...ir import dtype as _dt
from ...tir import expr as E
from ...tir import stmt as S
from ...tir.buffer import Buffer
from ..tensor import Tensor
from .parser import _CASTS, _LOOPS, _MATH
from .runtime import HYBRID_GLOBALS

_KIND_LOOP = {kind: name for name, kind in _LOOPS.items()}
_BIN = {E.Add: "+", E.Sub: "-", E.Mul: "*", E.FloorDiv: "//", E.FloorMod: "%", E.EQ: "==",
        E.NE: "!=", E.LT: "<", E.LE: "<=", E.GT: ">", E.GE: ">=", E.And: "and", E.Or: "or"}
_RESERVED = set(HYBRID_GLOBALS) | set(_MATH) | set(_CASTS) | set(dir(builtins)) | {
    "output_tensor", "allocate", "bind", "likely", "tvm"}


def _bare(text: str) -> str:
    """``text`` without a pair of parentheses around all of it."""
    if not (text.startswith("(") and text.endswith(")")):
        return text
    depth = 0
    for k, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and k < len(text) - 1:
            return text  # the first parenthesis closes before the end
    return text[1:-1]


class _Dumper:
    """Prints one lowered function body as the statements of a hybrid script."""

    def __init__(self):
        self.names: Dict[int, str] = {}  # id(Var) (loop/let/scalar vars, buffer data) -> name
        self.taken: set = set()
        self.lines: List[str] = []

    def name(self, var: E.Var, hint: str) -> str:
        key = id(var)
        if key not in self.names:
            base = re.sub(r"\W", "_", hint) or "v"
            if base[0].isdigit():
                base = "v_" + base
            if keyword.iskeyword(base) or base in _RESERVED:
                base += "_"
            cand, k = base, 0
            while cand in self.taken:
                k += 1
                cand = f"{base}_{k}"
            self.taken.add(cand)
            self.names[key] = cand
        return self.names[key]

    def buf(self, b: Buffer) -> str:
        if id(b.data) not in self.names:
            raise TVMError(f"hybrid.build: buffer {b.name} is used but never allocated")
        return self.names[id(b.data)]

    # ------------------------------------------------------------------ expressions
    def expr(self, e) -> str:
        if isinstance(e, int):
            return str(e)
        if isinstance(e, E.IntImm):
            if _dt.is_bool(e.dtype):
                return "True" if e.value else "False"
            return str(e.value) if e.dtype == "int32" else f"{e.dtype}({e.value})"
        if isinstance(e, E.FloatImm):
            if math.isinf(e.value):
                return f"{'inf' if e.value > 0 else 'ninf'}({e.dtype!r})"
            if math.isnan(e.value):
                raise TVMError("hybrid.build: a NaN constant cannot be written as a script")
            return repr(float(e.value)) if e.dtype == "float32" else \
                f"{e.dtype}({float(e.value)!r})"
        if isinstance(e, E.StringImm):
            return repr(e.value)
        if isinstance(e, E.Var):
            if id(e) not in self.names:
                raise TVMError(f"hybrid.build: variable {e.name} is not defined in the script")
            return self.names[id(e)]
        if isinstance(e, E.BufferLoad):
            return f"{self.buf(e.buffer)}[{self.indices(e.indices)}]"
        op = _BIN.get(type(e))
        if op is not None:
            return f"({self.expr(e.a)} {op} {self.expr(e.b)})"
        if isinstance(e, (E.Div, E.Mod)):
            if _dt.is_float(e.dtype):
                return f"({self.expr(e.a)} {'/' if isinstance(e, E.Div) else '%'} " \
                       f"{self.expr(e.b)})"
            # truncated division of integers, which the lowered loops only use on
            # non-negative operands, where it is the floored one
            return f"({self.expr(e.a)} {'//' if isinstance(e, E.Div) else '%'} " \
                   f"{self.expr(e.b)})"
        if isinstance(e, (E.Min, E.Max)):
            return f"{type(e).__name__.lower()}({self.expr(e.a)}, {self.expr(e.b)})"
        if isinstance(e, E.Not):
            return f"(not {self.expr(e.a)})"
        if isinstance(e, E.Select):
            return f"({self.expr(e.true_value)} if {self.expr(e.condition)} else " \
                   f"{self.expr(e.false_value)})"
        if isinstance(e, E.Cast):
            if e.dtype not in _CASTS:
                raise TVMError(f"hybrid.build: cannot write a cast to {e.dtype}")
            return f"{e.dtype}({self.expr(e.value)})"
        if isinstance(e, E.Call):
            return self.call(e)
        raise TVMError(f"hybrid.build: cannot write {type(e).__name__} as a hybrid script")

    def call(self, e: E.Call) -> str:
        op = e.op[4:] if isinstance(e.op, str) and e.op.startswith("tir.") else e.op
        args = [self.expr(a) for a in e.args]
        if op == "likely":
            return f"likely({_bare(args[0])})"
        if op == "if_then_else":
            return f"({args[1]} if {args[0]} else {args[2]})"
        if op in _MATH:
            return f"{op}({', '.join(args)})"
        raise TVMError(f"hybrid.build: cannot write a call of {op} as a hybrid script")

    def indices(self, idx: Sequence) -> str:
        return ", ".join(_bare(self.expr(i)) for i in idx)

    # ------------------------------------------------------------------ statements
    def emit(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)

    def stmt(self, s, depth: int) -> None:
        if isinstance(s, S.SeqStmt):
            for x in s.seq:
                self.stmt(x, depth)
        elif isinstance(s, S.BufferStore):
            self.emit(depth, f"{self.buf(s.buffer)}[{self.indices(s.indices)}] = "
                      f"{_bare(self.expr(s.value))}")
        elif isinstance(s, S.For):
            self.loop(s, depth)
        elif isinstance(s, S.IfThenElse):
            self.emit(depth, f"if {_bare(self.expr(s.condition))}:")
            self.stmt(s.then_case, depth + 1)
            if s.else_case is not None:
                self.emit(depth, "else:")
                self.stmt(s.else_case, depth + 1)
        elif isinstance(s, S.Allocate):
            shape = ", ".join(self.expr(x) for x in s.extents)
            name = self.name(s.buffer_var, s.buffer_var.name)
            self.emit(depth, f"{name} = allocate(({shape},), {s.dtype!r}, {s.scope!r})")
            self.stmt(s.body, depth)
        elif isinstance(s, S.LetStmt):
            self.emit(depth, f"{self.name(s.var, s.var.name)} = {_bare(self.expr(s.value))}")
            self.stmt(s.body, depth)
        elif isinstance(s, S.AttrStmt):
            if s.attr_key == "thread_extent" and isinstance(s.node, E.IterVar):
                name = self.name(s.node.var, s.node.var.name)
                self.emit(depth, f"for {name} in bind({s.node.thread_tag!r}, "
                          f"{self.expr(s.value)}):")
                self.stmt(s.body, depth + 1)
            else:
                self.stmt(s.body, depth)
        elif isinstance(s, S.AssertStmt):
            self.emit(depth, f"assert {self.expr(s.condition)}, {self.expr(s.message)}")
            self.stmt(s.body, depth)
        elif isinstance(s, S.Evaluate):
            if not isinstance(s.value, (E.IntImm, E.FloatImm)):
                raise TVMError(f"hybrid.build: cannot write the call {s.value} as a hybrid "
                               "script statement")
        else:
            raise TVMError(f"hybrid.build: cannot write {type(s).__name__} as a hybrid script")

    def loop(self, s: S.For, depth: int) -> None:
        name = self.name(s.loop_var, s.loop_var.name)
        ext = self.expr(s.extent)
        if s.kind == S.ForKind.THREAD_BINDING:
            if not (isinstance(s.min, E.IntImm) and s.min.value == 0):
                raise TVMError("hybrid.build: a thread loop must start at 0")
            it = f"bind({s.thread_binding.thread_tag!r}, {ext})"
        else:
            kind = _KIND_LOOP[s.kind]
            if isinstance(s.min, E.IntImm) and s.min.value == 0:
                it = f"{kind}({ext})"
            else:
                lo = self.expr(s.min)
                it = f"{kind}({lo}, {lo} + {ext})"
        self.emit(depth, f"for {name} in {it}:")
        n = len(self.lines)
        self.stmt(s.body, depth + 1)
        if len(self.lines) == n:
            self.emit(depth + 1, "pass")


def dump(func, inputs: Sequence, outputs: Sequence[Tensor], name: str) -> str:
    """The source of a hybrid script ``name(*inputs)`` returning ``outputs`` that runs the
    loops of ``func``, a function lowered to loops over multi-dimensional buffers whose
    parameters are ``inputs + outputs``."""
    d = _Dumper()
    d.taken.add(name)
    params = []
    bufs = [func.buffer_map.get(p) for p in func.params]
    for a, p, b in zip(list(inputs) + list(outputs), func.params, bufs):
        if b is not None:
            d.name(b.data, a.name if isinstance(a, Tensor) else b.name)
        else:
            d.names[id(p)] = d.name(a, a.name)
        if len(params) < len(inputs):
            params.append(d.names[id(b.data) if b is not None else id(p)])
    d.lines.append(f"def {name}({', '.join(params)}):")
    for b in bufs[len(inputs):]:
        shape = ", ".join(d.expr(x) for x in b.shape)
        d.emit(1, f"{d.buf(b)} = output_tensor(({shape},), {b.dtype!r})")
    n = len(d.lines)
    d.stmt(func.body, 1)
    if len(d.lines) == n:
        d.emit(1, "pass")
    d.emit(1, "return " + ", ".join(d.buf(b) for b in bufs[len(inputs):]))
    return "\n".join(d.lines) + "\n"
