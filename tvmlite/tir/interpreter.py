"""The reference executor: a small numpy interpreter for TensorIR PrimFuncs (block-level, as
``te.create_prim_func`` and the schedule engine make them). It is the oracle of the
differential tests: it shares no code with lowering or the C backend.

``run(func, *args)`` executes ``func`` on numpy arrays (outputs are written in place) and
scalars. Expressions are compiled once into Python closures. Every buffer access is bounds
checked, so an out-of-range index fails loudly instead of wrapping around.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Dict, Tuple

import numpy as np

from ..ir import dtype as _dt
from . import expr as E
from . import stmt as S
from .buffer import Buffer


def _np_dtype(dtype: str):
    return np.bool_ if dtype == "bool" else np.dtype(dtype).type


def _wrap(v, dtype: str):
    if _dt.is_bool(dtype):
        return bool(v)
    if _dt.is_float(dtype):
        return _np_dtype(dtype)(v)
    v = int(v)
    bits = _dt.bits(dtype)
    v &= (1 << bits) - 1
    if _dt.is_int(dtype) and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


def _trunc_div(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _round_half_away(x):
    return math.copysign(math.floor(abs(x) + 0.5), x)


_UNARY = {
    "exp": math.exp, "exp2": lambda x: 2.0 ** x, "exp10": lambda x: 10.0 ** x,
    "log": math.log, "log2": math.log2, "log10": math.log10, "log1p": math.log1p,
    "sqrt": math.sqrt, "rsqrt": lambda x: 1.0 / math.sqrt(x), "tanh": math.tanh,
    "sigmoid": lambda x: 1.0 / (1.0 + math.exp(-x)), "sin": math.sin, "cos": math.cos,
    "tan": math.tan, "sinh": math.sinh, "cosh": math.cosh, "asin": math.asin,
    "acos": math.acos, "atan": math.atan, "asinh": math.asinh,
    "acosh": math.acosh, "atanh": math.atanh, "erf": math.erf, "floor": math.floor,
    "ceil": math.ceil, "trunc": math.trunc, "round": _round_half_away,
    "nearbyint": lambda x: float(np.rint(x)), "fabs": abs,
}


class Interpreter:
    """Executes a block-level PrimFunc on numpy arrays."""

    def __init__(self, packed_funcs: Dict[str, Callable] | None = None):
        self.packed = packed_funcs or {}
        self.arrays: Dict[Buffer, np.ndarray] = {}
        self.env: Dict[E.Var, Any] = {}
        # id(expr) -> (expr, compiled): holding the expression keeps its id from being reused
        # by another expression while the entry lives (a freed node's id is recycled)
        self._cache: Dict[int, Tuple[Any, Callable]] = {}

    # ------------------------------------------------------------------ expressions
    def expr(self, e) -> Callable[[], Any]:
        hit = self._cache.get(id(e))
        if hit is not None and hit[0] is e:
            return hit[1]
        f = self._compile(e)
        self._cache[id(e)] = (e, f)
        return f

    def _compile(self, e):  # noqa: C901  (one dispatch table)
        env = self.env
        if isinstance(e, (E.IntImm, E.FloatImm)):
            v = _wrap(e.value, e.dtype)
            return lambda: v
        if isinstance(e, E.Var):
            def load_var():
                try:
                    return env[e]
                except KeyError:
                    raise RuntimeError(f"variable {e.name} is not bound") from None
            return load_var
        if isinstance(e, E.IterVar):
            return self.expr(e.var)
        if isinstance(e, E.Cast):
            f, dt = self.expr(e.value), e.dtype
            if _dt.is_integral(dt) and not _dt.is_bool(dt):
                def to_int():
                    v = f()
                    return _wrap(math.trunc(float(v)) if isinstance(v, (float, np.floating))
                                 else v, dt)
                return to_int
            return lambda: _wrap(f(), dt)
        binops = {
            E.Add: lambda a, b: a + b, E.Sub: lambda a, b: a - b, E.Mul: lambda a, b: a * b,
            E.Min: min, E.Max: max,
            E.EQ: lambda a, b: a == b, E.NE: lambda a, b: a != b, E.LT: lambda a, b: a < b,
            E.LE: lambda a, b: a <= b, E.GT: lambda a, b: a > b, E.GE: lambda a, b: a >= b,
        }
        t = type(e)
        if t in binops:
            fa, fb, op, dt = self.expr(e.a), self.expr(e.b), binops[t], e.dtype
            return lambda: _wrap(op(fa(), fb()), dt)
        if t in (E.Div, E.Mod, E.FloorDiv, E.FloorMod):
            fa, fb, dt = self.expr(e.a), self.expr(e.b), e.dtype
            if _dt.is_float(dt):
                op = {E.Div: lambda a, b: a / b, E.Mod: math.fmod,
                      E.FloorDiv: lambda a, b: math.floor(a / b),
                      E.FloorMod: lambda a, b: a - math.floor(a / b) * b}[t]
            else:
                op = {E.Div: _trunc_div, E.Mod: lambda a, b: a - _trunc_div(a, b) * b,
                      E.FloorDiv: lambda a, b: a // b, E.FloorMod: lambda a, b: a % b}[t]
            return lambda: _wrap(op(fa(), fb()), dt)
        if t is E.And:
            fa, fb = self.expr(e.a), self.expr(e.b)
            return lambda: bool(fa()) and bool(fb())
        if t is E.Or:
            fa, fb = self.expr(e.a), self.expr(e.b)
            return lambda: bool(fa()) or bool(fb())
        if t is E.Not:
            fa = self.expr(e.a)
            return lambda: not fa()
        if t is E.Select:
            fc, ft, ff = self.expr(e.condition), self.expr(e.true_value), self.expr(e.false_value)
            return lambda: (lambda c, x, y: x if c else y)(fc(), ft(), ff())
        if t is E.Let:
            fv, fb, var = self.expr(e.value), self.expr(e.body), e.var

            def let():
                env[var] = fv()
                return fb()
            return let
        if t is E.BufferLoad:
            return self._load(e)
        if t is E.Call:
            return self._call(e)
        raise NotImplementedError(f"interpreter: expression {t.__name__}")

    def _index(self, buf, fidx):
        arrays = self.arrays

        def index():
            arr = arrays[buf]
            idx = tuple(int(f()) for f in fidx)
            if len(idx) != arr.ndim:
                raise IndexError(f"{buf.name}: {len(idx)} indices for {arr.ndim}-d buffer")
            for i, n in zip(idx, arr.shape):
                if not 0 <= i < n:
                    raise IndexError(f"{buf.name}{list(idx)} out of bounds {arr.shape}")
            return arr, idx
        return index

    def _load(self, e):
        index, dt = self._index(e.buffer, [self.expr(i) for i in e.indices]), e.dtype

        def load():
            arr, idx = index()
            return _wrap(arr[idx], dt)
        return load

    def _call(self, e):
        args = [self.expr(a) if not isinstance(a, (Buffer, E.StringImm)) else a for a in e.args]
        op, dt = e.op, e.dtype
        if op == "if_then_else":
            c, a, b = args
            return lambda: a() if c() else b()
        if op == "likely":
            return args[0]
        if op in _UNARY:
            f, x = _UNARY[op], args[0]
            return lambda: _wrap(f(float(x())), dt)
        if op == "pow":
            a, b = args
            return lambda: _wrap(float(a()) ** float(b()), dt)
        if op == "fmod":
            a, b = args
            return lambda: _wrap(math.fmod(a(), b()), dt)
        if op == "isnan":
            return lambda: math.isnan(args[0]())
        if op == "isinf":
            return lambda: math.isinf(args[0]())
        if op == "isfinite":
            return lambda: math.isfinite(args[0]())
        ints = {"shift_left": lambda a, b: a << b, "shift_right": lambda a, b: a >> b,
                "bitwise_and": lambda a, b: a & b, "bitwise_or": lambda a, b: a | b,
                "bitwise_xor": lambda a, b: a ^ b}
        if op in ints:
            f, a, b = ints[op], args[0], args[1]
            return lambda: _wrap(f(int(a()), int(b())), dt)
        if op == "bitwise_not":
            return lambda: _wrap(~int(args[0]()), dt)
        if op == "call_packed":
            name = e.args[0].value
            rest = args[1:]

            def packed():
                vals = [self.arrays[a] if isinstance(a, Buffer) else a() for a in rest]
                self.packed[name](*vals)
                return 0
            return packed
        raise NotImplementedError(f"interpreter: call {op}")

    def _match_buffer(self, mb) -> None:
        """A ``T.match_buffer`` of a block: a numpy view of the source region (leading unit
        dimensions dropped), its offset, stride and shape variables bound."""
        arr = self.arrays[mb.source.buffer]
        mins = [int(self.expr(r.min)()) for r in mb.source.region]
        exts = [int(self.expr(r.extent)()) for r in mb.source.region]
        buf = mb.buffer
        lead = len(mins) - len(buf.shape)
        self.arrays[buf] = arr[tuple(mins[:lead]) + tuple(
            slice(m, m + e) for m, e in zip(mins[lead:], exts[lead:]))]
        strides = [st // arr.itemsize for st in arr.strides]
        binds = [(buf.elem_offset, sum(m * st for m, st in zip(mins, strides)))]
        binds += list(zip(buf.strides, strides[lead:])) + list(zip(buf.shape, exts[lead:]))
        for v, x in binds:
            if isinstance(v, E.Var):
                self.env[v] = x

    # ------------------------------------------------------------------ statements
    def stmt(self, s) -> None:  # noqa: C901
        env = self.env
        if isinstance(s, S.SeqStmt):
            for x in s.seq:
                self.stmt(x)
        elif isinstance(s, S.For):
            lo = int(self.expr(s.min)())
            n = int(self.expr(s.extent)())
            for i in range(lo, lo + n):
                env[s.loop_var] = i
                self.stmt(s.body)
        elif isinstance(s, S.BlockRealize):
            if not self.expr(s.predicate)():
                return
            vals = [self.expr(v)() for v in s.iter_values]
            blk = s.block
            for iv, v in zip(blk.iter_vars, vals):
                lo = int(self.expr(iv.dom.min)())
                n = int(self.expr(iv.dom.extent)())
                if not lo <= v < lo + n:
                    raise IndexError(f"block {blk.name_hint}: {iv.var.name}={v} outside "
                                     f"[{lo}, {lo + n})")
                env[iv.var] = v
            for b in blk.alloc_buffers:
                shape = tuple(int(self.expr(x)()) for x in b.shape)
                fill = np.nan if _dt.is_float(b.dtype) else 0
                self.arrays[b] = np.full(shape, fill, dtype=_np_dtype(b.dtype))
            for mb in blk.match_buffers:
                self._match_buffer(mb)
            if blk.init is not None and all(
                    env[iv.var] == int(self.expr(iv.dom.min)()) for iv in blk.iter_vars
                    if iv.iter_type == E.IterVarType.CommReduce):
                self.stmt(blk.init)
            self.stmt(blk.body)
        elif isinstance(s, S.BufferStore):
            index = self._index(s.buffer, [self.expr(i) for i in s.indices])
            arr, idx = index()
            arr[idx] = self.expr(s.value)()
        elif isinstance(s, S.IfThenElse):
            if self.expr(s.condition)():
                self.stmt(s.then_case)
            elif s.else_case is not None:
                self.stmt(s.else_case)
        elif isinstance(s, S.LetStmt):
            env[s.var] = self.expr(s.value)()
            self.stmt(s.body)
        elif isinstance(s, S.Evaluate):
            self.expr(s.value)()
        else:
            raise NotImplementedError(f"interpreter: statement {type(s).__name__}")

    # ------------------------------------------------------------------ functions
    def run(self, func, *args) -> None:
        if len(args) != len(func.params):
            raise TypeError(f"expected {len(func.params)} arguments, got {len(args)}")
        for p, a in zip(func.params, args):
            buf = func.buffer_map.get(p)
            if buf is None:
                self.env[p] = a
                continue
            if not isinstance(a, np.ndarray):
                raise TypeError(f"argument {buf.name} must be a numpy array")
            if a.dtype != np.dtype(_np_dtype(buf.dtype)):
                raise TypeError(f"argument {buf.name}: dtype {a.dtype}, expected {buf.dtype}")
            if len(buf.shape) != a.ndim:
                raise ValueError(f"argument {buf.name}: ndim {a.ndim}, expected {buf.ndim}")
            for d, n in zip(buf.shape, a.shape):
                if isinstance(d, E.Var):
                    if d in self.env and self.env[d] != n:
                        raise ValueError(f"argument {buf.name}: {d.name} is {self.env[d]} "
                                         f"elsewhere but {n} here")
                    self.env[d] = n
            self.arrays[buf] = a
        for p in func.params:  # check the constant / derived dimensions
            buf = func.buffer_map.get(p)
            if buf is not None:
                want = tuple(int(self.expr(d)()) for d in buf.shape)
                if want != self.arrays[buf].shape:
                    raise ValueError(f"argument {buf.name}: shape {self.arrays[buf].shape}, "
                                     f"expected {want}")
        self.stmt(func.body)


def run(func, *args, packed_funcs=None) -> None:
    """Run ``func`` on numpy arrays / scalars; outputs are written in place."""
    Interpreter(packed_funcs).run(func, *args)
