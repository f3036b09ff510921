"""Vector expressions for the C backend, with GCC vector extensions.

A vector dtype ``float32x8`` prints as ``tvml_float32x8`` (``typedef float tvml_float32x8
__attribute__((vector_size(32)))``); arithmetic uses the vector operators directly, so the
generated code does not depend on the auto-vectorizer. Contiguous loads and stores
(``A[T.Ramp(b, 1, n)]``) go through an unaligned twin type ``tvml_float32x8_u``; other vector
indices gather/scatter lane by lane. Boolean vectors (``uint1x8``) are lane masks of ``int32``
(-1 true, 0 false).

A lane-varying ``if_then_else(c, t, f)`` is lazy per lane: when every lane of ``c`` holds it
evaluates ``t`` alone, when none does ``f`` alone, otherwise both under masks, where vector
loads become masked loads and scalar loads happen only if some lane needs them, so a guarded
load never touches memory for an inactive lane. The larger branch is written once (under its
mask, which covers the case where it alone is needed), so the C text of nested
``if_then_else`` chains (a concatenate of many inputs) grows linearly, not exponentially.
"""
from __future__ import annotations

import math
from typing import Callable, List

from ..error import TVMError
from ..ir import dtype as _dt
from ..tir import expr as E
from .c_text import _strip, c_type

_ARITH = {E.Add: "+", E.Sub: "-", E.Mul: "*"}
# integer vector operators GCC has lane-wise (shifts wrap within each lane as C's do)
_INT_VECTOR_OPS = {"shift_left": "<<", "shift_right": ">>", "bitwise_and": "&",
                   "bitwise_or": "|", "bitwise_xor": "^"}
_CMP = {E.EQ: "==", E.NE: "!=", E.LT: "<", E.LE: "<=", E.GT: ">", E.GE: ">="}


def _mask_dtype(lanes: int) -> str:
    return _dt.with_lanes("bool", lanes)


class VectorPrinterMixin:
    """Vector parts of the function printer (``_FunctionPrinter`` in ``codegen_c``)."""

    # ------------------------------------------------------------------ types and helpers
    def ct(self, dtype: str) -> str:
        """The C type of ``dtype``, declaring vector typedefs on first use."""
        lanes = _dt.lanes(dtype)
        if lanes == 1:
            return c_type(dtype)
        if lanes & (lanes - 1):
            raise TVMError(f"{self.symbol}: vector dtype {dtype} has {lanes} lanes; the C "
                           f"backend needs a power of two (VectorizeLoop splits other counts)")
        el = _dt.element(dtype)
        if _dt.is_bool(el):
            el = "int32"
        if _dt.is_float(el) and _dt.bits(el) == 16:
            raise TVMError(f"{self.symbol}: float16 vectors are not supported by the C backend")
        ect = c_type(el)
        nb = _dt.bits(el) // 8
        name = f"tvml_{dtype}"
        self.cg.declare(name, f"typedef {ect} {name} __attribute__((vector_size({nb * lanes})));\n"
                              f"typedef {ect} {name}_u __attribute__((vector_size({nb * lanes}), "
                              f"aligned({nb})));\n")
        return name

    def vhelper(self, kind: str, dtype: str, idx_dtype: str = "") -> str:
        """Name of the helper ``kind`` for vector ``dtype`` (defined on first use)."""
        T = self.ct(dtype)
        L = _dt.lanes(dtype)
        el = _dt.element(dtype)
        E_ = c_type("int32" if _dt.is_bool(el) else el)
        M = self.ct(_mask_dtype(L))
        name = f"tvml_{kind}_{dtype}" + (f"_{idx_dtype}" if idx_dtype else "")
        loop = f"for (int l = 0; l < {L}; ++l)"
        IT = self.ct(idx_dtype) if idx_dtype else ""
        bodies = {
            "bcast": (f"{T} {name}({E_} x)", f"{T} r; {loop} r[l] = x; return r;"),
            "ramp": (f"{T} {name}({E_} b, {E_} s)",
                     f"{T} r; {loop} r[l] = ({E_})(b + ({E_})l * s); return r;"),
            "any": (f"int {name}({T} m)", f"int32_t a = 0; {loop} a |= m[l]; return a != 0;"),
            "all": (f"int {name}({T} m)", f"int32_t a = -1; {loop} a &= m[l]; return a != 0;"),
            "select": (f"{T} {name}({M} m, {T} t, {T} f)",
                       f"{T} r; {loop} r[l] = m[l] ? t[l] : f[l]; return r;"),
            # every lane active (the common case under an if_then_else): one vector load
            "mload": (f"{T} {name}(const {E_}* p, int64_t b, {M} m)",
                      f"int32_t a = -1; {loop} a &= m[l]; "
                      f"if (a) return *(const {T}_u*)(p + b); "
                      f"{T} r = {{0}}; {loop} if (m[l]) r[l] = p[b + l]; return r;"),
            "gather": (f"{T} {name}(const {E_}* p, {IT} i)",
                       f"{T} r; {loop} r[l] = p[i[l]]; return r;"),
            "mgather": (f"{T} {name}(const {E_}* p, {IT} i, {M} m)",
                        f"{T} r = {{0}}; {loop} if (m[l]) r[l] = p[i[l]]; return r;"),
            "scatter": (f"void {name}({E_}* p, {IT} i, {T} v)", f"{loop} p[i[l]] = v[l];"),
        }
        head, body = bodies[kind]
        return self.cg.helper(name, f"static inline TVML_UNUSED {head} {{ {body} }}\n")

    # ------------------------------------------------------------------ expressions
    def vector_expr(self, e) -> str:
        """C text of an expression whose dtype has more than one lane."""
        dt = e.dtype
        L = _dt.lanes(dt)
        T = self.ct(dt)
        if isinstance(e, E.Ramp):
            iota = ", ".join(str(k) for k in range(L))
            return f"(({self.expr(e.base)}) + ({self.expr(e.stride)}) * ({T}){{{iota}}})"
        if isinstance(e, E.Broadcast):
            return self.broadcast(self.expr(e.value), dt)
        int_div = isinstance(e, (E.Div, E.Mod)) and not _dt.is_float(dt)
        if int_div and self.mask is not None:
            # under a lane-varying if_then_else: divide only the active lanes (an inactive
            # one may hold a zero divisor)
            return self.lanewise(e, (e.a, e.b), lambda xs: type(e)(*xs))
        if type(e) in _ARITH or int_div or (isinstance(e, E.Div) and _dt.is_float(dt)):
            op = _ARITH.get(type(e)) or ("/" if isinstance(e, E.Div) else "%")
            return f"({self.expr(e.a)} {op} {self.expr(e.b)})"
        if type(e) in _CMP:
            return (f"__builtin_convertvector(({self.expr(e.a)} {_CMP[type(e)]} "
                    f"{self.expr(e.b)}), {T})")
        if isinstance(e, E.And):
            return f"({self.expr(e.a)} & {self.expr(e.b)})"
        if isinstance(e, E.Or):
            return f"({self.expr(e.a)} | {self.expr(e.b)})"
        if isinstance(e, E.Not):
            return f"(~{self.expr(e.a)})"
        if isinstance(e, E.Select):
            if _dt.lanes(e.condition.dtype) == 1:
                return (f"({self.expr(e.condition)} ? {self.expr(e.true_value)} : "
                        f"{self.expr(e.false_value)})")
            return (f"{self.vhelper('select', dt)}({self.expr(e.condition)}, "
                    f"{self.expr(e.true_value)}, {self.expr(e.false_value)})")
        if isinstance(e, E.Cast):
            src = e.value.dtype
            if _dt.is_bool(dt):
                return f"__builtin_convertvector(({self.expr(e.value)} != 0), {T})"
            if _dt.is_bool(src):
                return f"__builtin_convertvector(-({self.expr(e.value)}), {T})"
            return f"__builtin_convertvector({self.expr(e.value)}, {T})"
        if isinstance(e, E.BufferLoad):
            return self.vector_load(e)
        if isinstance(e, E.Call):
            op = e.op[4:] if e.op.startswith("tir.") else e.op
            if op == "if_then_else":
                return self.vector_ite(e)
            if op == "likely":
                return self.expr(e.args[0])
            if op == "floor" and _dt.is_float(dt) and _dt.bits(dt) in (32, 64):
                return self.float_floor(e.args[0])
            if op in ("exp", "erf") and _dt.element(dt) == "float32":
                helper = self.vhelper_exp(dt) if op == "exp" else self.vhelper_erf(dt)
                return f"{helper}({self.expr(e.args[0])})"
            if op == "reinterpret" and _dt.bits(e.args[0].dtype) == _dt.bits(dt):
                # a cast between vector types of one size keeps the bits (GCC)
                return f"(({T})({self.expr(e.args[0])}))"
            if op in _INT_VECTOR_OPS and not _dt.is_float(dt) and not _dt.is_bool(dt):
                a, b = e.args
                return f"({self.expr(a)} {_INT_VECTOR_OPS[op]} {self.expr(b)})"
            return self.lanewise(e, e.args, lambda xs: E.Call(_dt.element(dt), e.op, tuple(xs)))
        if isinstance(e, (E.Min, E.Max)) and _dt.is_float(dt) and _dt.bits(dt) in (32, 64):
            return self.float_minmax(e)
        if isinstance(e, (E.FloorDiv, E.FloorMod, E.Min, E.Max, E.Mod)):
            return self.lanewise(e, (e.a, e.b), lambda xs: type(e)(*xs))
        if isinstance(e, (E.Var, E.Let)):
            return getattr(self, "e_" + type(e).__name__)(e)
        raise TVMError(f"{self.symbol}: the C backend cannot print the vector expression "
                       f"{type(e).__name__} ({dt})")

    def float_minmax(self, e) -> str:
        """``a > b ? a : b`` (max; ``<`` for min) in every lane, as the scalar helpers do
        (NaN operands alike), by a comparison mask and bitwise blend GCC keeps in vector
        registers (a lane loop calling the scalar helper stays scalar)."""
        T = self.ct(e.dtype)
        IT = self.ct(f"int{_dt.bits(e.dtype)}x{_dt.lanes(e.dtype)}")
        a, b = self.fresh("a"), self.fresh("b")
        cmp = ">" if isinstance(e, E.Max) else "<"
        m = self.fresh("m")
        return (f"({{ {T} {a} = {self.expr(e.a)}; {T} {b} = {self.expr(e.b)}; "
                f"{IT} {m} = ({a} {cmp} {b}); "
                f"({T})((({IT}){a} & {m}) | (({IT}){b} & ~{m})); }})")

    def float_floor(self, x) -> str:
        """``floor`` in every lane without a libm call per lane: truncate through the integer
        vector, subtract 1 where that rounded up, keep the sign of a zero; lanes of magnitude
        ``>= 2**mantissa`` (integral already), infinities and NaN pass through unchanged."""
        dt = x.dtype
        bits, lanes = _dt.bits(dt), _dt.lanes(dt)
        T, IT = self.ct(dt), self.ct(f"int{bits}x{lanes}")
        big = "0x1p23f" if bits == 32 else "0x1p52"
        sign = "(1U << 31)" if bits == 32 else "(1ULL << 63)"
        a, f, m, s, sm = (self.fresh(n) for n in ("a", "f", "m", "s", "sm"))
        return (f"({{ {T} {a} = {self.expr(x)}; "
                f"{IT} {sm} = ({IT}){{0}} | (int{bits}_t){sign}; {IT} {s} = ({IT}){a} & {sm}; "
                f"{T} {f} = __builtin_convertvector(__builtin_convertvector({a}, {IT}), {T}); "
                f"{f} -= ({T})(({IT})({f} > {a}) & ({IT})(({T}){{0}} + 1)); "
                f"{f} = ({T})(({IT}){f} | {s}); "
                f"{IT} {m} = (({T})(({IT}){a} & ~{sm}) < {big}); "
                f"({T})((({IT}){f} & {m}) | (({IT}){a} & ~{m})); }})")

    def vhelper_exp(self, dtype: str) -> str:
        """Name of the vector ``expf`` of ``dtype`` (float32 lanes), defined on first use: a
        lane loop calling ``expf`` stays scalar, this one stays in vector registers.

        ``n = round(x / ln 2)``, ``r = x - n ln 2`` in two parts (Cody-Waite; exact with FMA),
        ``e**r`` by its Taylor polynomial of degree 7 (truncation below 6e-9 relative on
        ``|r| <= ln 2 / 2``), times ``2**n`` built in the exponent bits as two factors so that
        results in the subnormal range round once. Within 2 ulp of glibc's ``expf``; overflow
        gives inf, underflow 0, NaN passes through."""
        T = self.ct(dtype)
        IT = self.ct(f"int32x{_dt.lanes(dtype)}")
        name = f"tvml_exp_{dtype}"
        taylor = " ".join(f"p = p * r + {1.0 / math.factorial(k)!r}f;" for k in range(6, -1, -1))
        # GCC's C has no vector ?:, so lanes are chosen by comparison masks (-1/0)
        pick = "({T})((({IT})({a}) & {m}) | (({IT})({b}) & ~{m}))"
        body = (f"{T} z = ({T}){{0}}; {IT} hi = x > 88.7228394f, lo = x < -104.0f; "
                f"{T} c = {pick.format(T=T, IT=IT, a='z + 88.7228394f', b='x', m='hi')}; "
                f"c = {pick.format(T=T, IT=IT, a='z - 104.0f', b='c', m='lo')}; "
                f"{T} t = c * 1.44269504f + 12582912.0f; {T} n = t - 12582912.0f; "
                f"{T} r = c - n * 0.693145751953125f; r = r - n * 1.42860677e-06f; "
                f"{T} p = z + {1.0 / math.factorial(7)!r}f; {taylor} "
                f"{IT} ni = __builtin_convertvector(n, {IT}); {IT} n1 = ni >> 1; "
                f"{T} s1 = ({T})((n1 + 127) << 23); {T} s2 = ({T})((ni - n1 + 127) << 23); "
                f"p = p * s1 * s2; "
                f"p = {pick.format(T=T, IT=IT, a='z + __builtin_inff()', b='p', m='hi')}; "
                f"p = ({T})(({IT})p & ~lo); "
                f"{IT} nan = x != x; "
                f"return {pick.format(T=T, IT=IT, a='x', b='p', m='nan')};")
        return self.cg.helper(name, f"static inline TVML_UNUSED {T} {name}({T} x) {{ {body} }}\n")

    def vhelper_erf(self, dtype: str) -> str:
        """Name of the vector ``erff`` of ``dtype`` (float32 lanes), defined on first use (a
        lane loop calling glibc's ``erff`` runs ~15x slower: GELU in BERT).

        ``|x| < 0.875``: ``x * P(x**2)``, ``P`` of degree 5. Above: ``1 - exp(-x**2) Q(t)``,
        ``t = 1 / (1 + |x| / 2)``, ``Q`` of degree 6, ``|x|`` clamped to 4 (``erf`` is 1 in
        float32 beyond 3.92), ``x**2`` split into its rounded value and the FMA residual. Both
        polynomials are least-squares fits of the relative error. Within 2.4 ulp of ``erf``
        (checked on 2.1M points); NaN passes through, ``+-inf`` give ``+-1``."""
        T = self.ct(dtype)
        IT = self.ct(f"int32x{_dt.lanes(dtype)}")
        name = f"tvml_erf_{dtype}"
        small = (1.1283791065216064, -0.376125693321228, 0.11282679438591003,
                 -0.02680043876171112, 0.005046708043664694, -0.0006284877308644354)
        large = (0.0006169754778966308, 0.27346980571746826, 0.33170628547668457,
                 0.09858949482440948, 0.4084615707397461, -0.0615481473505497,
                 -0.05196363106369972)

        def horner(coefs, var: str, acc: str) -> str:
            steps = " ".join(f"{acc} = {acc} * {var} + {c!r}f;" for c in reversed(coefs[:-1]))
            return f"{T} {acc} = z + {coefs[-1]!r}f; {steps}"
        pick = "({T})((({IT})({a}) & {m}) | (({IT})({b}) & ~{m}))"
        sign = f"(({IT}){{0}} | (int32_t)(1U << 31))"
        body = (f"{T} z = ({T}){{0}}; {IT} sm = {sign}; "
                f"{T} ax = ({T})(({IT})x & ~sm); {T} x2 = x * x; "
                f"{horner(small, 'x2', 'p')} p = x * p; "
                f"{T} c = {pick.format(T=T, IT=IT, a='z + 4.0f', b='ax', m='(ax > 4.0f)')}; "
                f"{T} hi = c * c; {T} lo = c * c - hi; "
                f"{T} t = (z + 1.0f) / (z + 1.0f + 0.5f * c); {horner(large, 't', 'q')} "
                f"{T} r = 1.0f - {self.vhelper_exp(dtype)}(-hi) * (1.0f - lo) * q; "
                f"r = ({T})(({IT})r | (({IT})x & sm)); "
                f"r = {pick.format(T=T, IT=IT, a='p', b='r', m='(ax < 0.875f)')}; "
                f"return {pick.format(T=T, IT=IT, a='x', b='r', m='(x != x)')};")
        return self.cg.helper(name, f"static inline TVML_UNUSED {T} {name}({T} x) {{ {body} }}\n")

    def broadcast(self, scalar: str, dtype: str) -> str:
        """``scalar`` in every lane (GCC widens a scalar operand of a vector operation; ``x - 0``
        is ``x`` exactly, signed zeros included). An integer scalar is cast to the element
        type first: C promotes narrow integers to ``int`` (``c ? B[i] : 0``), which GCC will
        not narrow into a vector implicitly, and the cast wraps as the IR's dtype does."""
        el = _dt.element(dtype)
        if _dt.is_int(el) or _dt.is_uint(el):
            scalar = f"({c_type(el)})({scalar})"
        return f"(({scalar}) - ({self.ct(dtype)}){{0}})"

    def lanewise(self, e, args, build: Callable[[List], E.PrimExpr]) -> str:
        """Evaluate ``e`` lane by lane: vector arguments into temporaries, then a lane loop
        printing the scalar form ``build(scalar args)``."""
        T = self.ct(e.dtype)
        L = _dt.lanes(e.dtype)
        decls, scal = [], []
        lane = self.fresh("l")
        saved = dict(self.names)
        for a in args:
            if not isinstance(a, E.PrimExpr) or isinstance(a, E.StringImm):
                scal.append(a)
                continue
            t = self.fresh("a")
            decls.append(f"{self.ct(a.dtype)} {t} = {self.expr(a)};")
            sv = E.Var(t, _dt.element(a.dtype))
            self.names[sv] = f"{t}[{lane}]" if _dt.lanes(a.dtype) != 1 else t
            scal.append(sv)
        r = self.fresh("r")
        body = self.expr(build(scal))
        self.names = saved
        if self.mask is not None:
            # under a lane-varying if_then_else only the active lanes are evaluated (an
            # inactive one may divide by zero or index out of range); the others are 0
            k = self.fresh("k")
            decls.append(f"{self.ct(self.mask_dtype)} {k} = {self.mask};")
            body = f"{k}[{lane}] ? ({body}) : ({self.ct(_dt.element(e.dtype))})0"
        return (f"({{ {T} {r}; {' '.join(decls)} for (int {lane} = 0; {lane} < {L}; ++{lane}) "
                f"{r}[{lane}] = {body}; {r}; }})")

    def _vindex(self, e):
        if len(e.indices) != 1:
            raise TVMError(f"{self.symbol}: vector access to {e.buffer.name} with "
                           f"{len(e.indices)} indices; expected a flattened (1-D) access")
        return e.indices[0]

    def vector_load(self, e: E.BufferLoad) -> str:
        dt = e.dtype
        idx = self._vindex(e)
        ptr = self.buffer_ptr(e.buffer)
        if isinstance(idx, E.Ramp) and isinstance(idx.stride, E.IntImm) and \
                idx.stride.value == 0:
            scalar = E.BufferLoad(e.buffer, (idx.base,))
            return self.broadcast(self.expr(scalar), dt)
        if _dt.is_bool(e.buffer.dtype):
            # a bool buffer holds one byte (0 or 1) per element: load the bytes, make a mask
            raw = self._load_lanes(idx, _dt.with_lanes("uint8", _dt.lanes(dt)),
                                   f"((uint8_t*){ptr})")
            return f"(-__builtin_convertvector({raw}, {self.ct(dt)}))"
        return self._load_lanes(idx, dt, ptr)

    def _load_lanes(self, idx, dt: str, ptr: str) -> str:
        if isinstance(idx, E.Ramp) and isinstance(idx.stride, E.IntImm) and \
                idx.stride.value == 1:
            base = self.expr(idx.base)
            if self.mask is not None:
                return f"{self.vhelper('mload', dt)}({ptr}, {base}, {self.mask})"
            return f"(*({self.ct(dt)}_u*)({ptr} + {base}))"
        ix = self.expr(idx)
        if self.mask is not None:
            return f"{self.vhelper('mgather', dt, idx.dtype)}({ptr}, {ix}, {self.mask})"
        return f"{self.vhelper('gather', dt, idx.dtype)}({ptr}, {ix})"

    def vector_store(self, s) -> str:
        """C text of a store with a vector index."""
        idx = self._vindex(s)
        ptr = self.buffer_ptr(s.buffer)
        dt = s.value.dtype
        value = _strip(self.expr(s.value))
        if _dt.is_bool(s.buffer.dtype):  # a mask (-1/0 lanes) stored as bytes 1/0
            dt = _dt.with_lanes("uint8", _dt.lanes(dt))
            value = f"__builtin_convertvector(-({value}), {self.ct(dt)})"
            ptr = f"((uint8_t*){ptr})"
        if isinstance(idx, E.Ramp) and isinstance(idx.stride, E.IntImm) and idx.stride.value == 1:
            return f"*({self.ct(dt)}_u*)({ptr} + {self.expr(idx.base)}) = {value}"
        return f"{self.vhelper('scatter', dt, idx.dtype)}({ptr}, {self.expr(idx)}, {value})"

    def vector_ite(self, e: E.Call) -> str:
        cond, t, f = e.args
        if _dt.lanes(cond.dtype) == 1:
            return f"({_strip(self.expr(cond))} ? {self.expr(t)} : {self.expr(f)})"
        dt = e.dtype
        L = _dt.lanes(dt)
        T, M = self.ct(dt), self.ct(_mask_dtype(L))
        m, r = self.fresh("m"), self.fresh("r")
        outer, outer_dt = self.mask, self.mask_dtype
        head = f"{M} {m} = {self.expr(cond)};"
        mt, mf = (f"({m} & {outer})", f"(~{m} & {outer})") if outer else (m, f"(~{m})")
        self.mask, self.mask_dtype = mt, _mask_dtype(L)
        t_part = self.expr(t)
        self.mask = mf
        f_part = self.expr(f)
        self.mask, self.mask_dtype = outer, outer_dt
        all_, any_ = self.vhelper("all", _mask_dtype(L)), self.vhelper("any", _mask_dtype(L))
        sel = self.vhelper("select", dt)
        if len(f_part) >= len(t_part):
            # f once, under its mask (all its lanes when no lane of c holds)
            t_full = self.expr(t)  # every lane active: the outer mask (if any) still applies
            body = (f"if ({all_}({m})) {r} = {t_full}; else {{ {r} = {f_part}; "
                    f"if ({any_}({m})) {r} = {sel}({m}, {t_part}, {r}); }}")
        else:
            f_full = self.expr(f)
            body = (f"if (!{any_}({m})) {r} = {f_full}; else {{ {r} = {t_part}; "
                    f"if (!{all_}({m})) {r} = {sel}({m}, {r}, {f_part}); }}")
        return f"({{ {head} {T} {r}; {body} {r}; }})"
