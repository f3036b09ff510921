"""C code generation for lowered PrimFuncs (the CPU backend).

Each PrimFunc becomes ``int32_t NAME(void** args, int32_t* type_codes, int32_t num_args)``:
``args[i]`` points to a DLTensor (type code 7), an int64_t (0) or a double (2). The function
checks its arguments (count, type codes, ndim, dtype, shape, strides, byte_offset, device,
data), binds symbolic shape variables, then runs the body. A failure stores a message in a
thread-local buffer (``__tvmlite_get_last_error``) and returns -1, after freeing every heap
workspace that is live at that point.
"""
from __future__ import annotations

import json
import math
import re
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..arith.analyzer import Analyzer
from ..arith.bound import NEG_INF, POS_INF, ConstIntBound
from ..error import TVMError
from ..ir import dtype as _dt
from ..tir import expr as E
from ..tir import stmt as S
from ..tir.buffer import Buffer
from ..tir.function import PrimFunc
from ..tir.op import const as _const
from .c_text import _strip, c_type
from .codegen_c_vector import VectorPrinterMixin

STACK_ALLOC_LIMIT = 4096

_C_KEYWORDS = frozenset("""
auto break case char const continue default do double else enum extern float for goto if inline
int long register restrict return short signed sizeof static struct switch typedef union unsigned
void volatile while _Bool _Complex _Float16 main NULL abs exp log sqrt pow floor ceil round
""".split())

# What the kernels and the support functions both see: C library headers, the DLTensor layout.
_HEADER = r"""#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <stdarg.h>
#include <stdio.h>

typedef struct { int32_t device_type; int32_t device_id; } tvml_device_t;
typedef struct { uint8_t code; uint8_t bits; uint16_t lanes; } tvml_dtype_t;
typedef struct {
  void* data;
  tvml_device_t device;
  int32_t ndim;
  tvml_dtype_t dtype;
  int64_t* shape;
  int64_t* strides;
  uint64_t byte_offset;
} DLTensor;

#define TVML_UNUSED __attribute__((unused))

/* one parameter of a function, as tvml_check_args expects it */
typedef struct {
  const char* name;
  int32_t code;              /* the type code: a tensor, an int or a float */
  int32_t ndim;              /* a tensor's ndim, dtype and device */
  tvml_dtype_t dtype;
  const char* dtype_name;
  int32_t dev;
  const char* dev_name;
  int32_t layout;            /* a tensor whose layout is checked there: */
  const int64_t* shape;      /*   its shape (compact strides), */
  int64_t elem_offset;       /*   elem_offset and */
  int32_t elem_bytes;        /*   element size */
} tvml_param_t;
"""

# What only a kernel file holds. The pragma: a libm call in a file without <math.h> (see
# _MATH_WORDS) must not compile as an implicit declaration returning int.
_KERNEL_HEAD = r"""#pragma GCC diagnostic error "-Wimplicit-function-declaration"
int32_t (*__tvmlite_packed_cb)(const char*, void**, int32_t*, int32_t) = 0;

/* malloc: the result aliases no other pointer, so restrict arguments and workspaces are
   known apart (lets the compiler keep accumulators in registers) */
static TVML_UNUSED __attribute__((malloc, assume_aligned(64))) void* tvml_alloc(size_t n) {
  void* p = 0;
  if (posix_memalign(&p, 64, n ? n : 64) != 0) return 0;
  return p;
}
"""

# The support functions: the error buffer and the argument checks, shared by every function of
# a library. A function checks its arguments in one call of tvml_check_args (from a table of
# its parameters) instead of a dozen inline tests, which keeps the C compiler's work (and the
# build time) small; each check returns -1 with the error message set when it fails.
# Each definition starts with ``TVML_SUPPORT``: static in a self-contained file, hidden globals
# in the support object (``SUPPORT_SOURCE``).
_SUPPORT = r"""static __thread char tvml_err_buf[1024];
const char* __tvmlite_get_last_error(void) { return tvml_err_buf; }

TVML_SUPPORT __attribute__((format(printf, 1, 2))) void tvml_set_err(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(tvml_err_buf, sizeof(tvml_err_buf), fmt, ap);
  va_end(ap);
}

TVML_SUPPORT const char* tvml_dtype_str(tvml_dtype_t t, char* buf, size_t n) {
  const char* kind = @DTYPE_NAMES@;
  if (t.code == @UINT@ && t.bits == 1) snprintf(buf, n, "bool");
  else snprintf(buf, n, "%s%d", kind, (int)t.bits);
  if (t.lanes != 1) {
    size_t k = 0;
    while (buf[k]) ++k;
    snprintf(buf + k, n - k, "x%d", (int)t.lanes);
  }
  return buf;
}

TVML_SUPPORT const char* tvml_dev_str(tvml_device_t d, char* buf, size_t n) {
  const char* name = d.device_type == 1 ? "cpu" : d.device_type == 2 ? "cuda"
                   : d.device_type == 3 ? "cuda_host" : d.device_type == 4 ? "opencl"
                   : d.device_type == 7 ? "vulkan" : d.device_type == 8 ? "metal"
                   : d.device_type == 12 ? "ext_dev" : "device";
  snprintf(buf, n, "%s(%d)", name, (int)d.device_id);
  return buf;
}

TVML_SUPPORT const char* tvml_type_code_str(int32_t c) {
  return @ARG_TYPE_NAMES@;
}

TVML_SUPPORT __attribute__((noinline, cold)) int tvml_check_arg(
    void** args, const int32_t* codes, int i, const char* fn, const char* name, int32_t ndim,
    int code, int bits, int lanes, const char* dtype_name, int32_t dev, const char* dev_name) {
  char s[32];
  if (codes[i] != @ARG_DLTENSOR@) {
    tvml_set_err("%s: Argument %s is expected to be a tensor (DLTensor*), got %s", fn, name,
                 tvml_type_code_str(codes[i]));
    return -1;
  }
  const DLTensor* t = (const DLTensor*)args[i];
  if (t->ndim != ndim) {
    tvml_set_err("%s: Argument %s.ndim is expected to be %d, got %d", fn, name, (int)ndim,
                 (int)t->ndim);
    return -1;
  }
  if (t->dtype.code != code || t->dtype.bits != bits || t->dtype.lanes != lanes) {
    tvml_set_err("%s: Argument %s.dtype is expected to be %s, got %s", fn, name, dtype_name,
                 tvml_dtype_str(t->dtype, s, sizeof(s)));
    return -1;
  }
  if (t->device.device_type != dev) {
    tvml_set_err("%s: Argument %s is expected to be on %s(0), got %s", fn, name, dev_name,
                 tvml_dev_str(t->device, s, sizeof(s)));
    return -1;
  }
  if (t->data == NULL) {
    tvml_set_err("%s: Argument %s.data is NULL", fn, name);
    return -1;
  }
  return 0;
}

/* shape[k0 .. k0+n) == want[0 .. n) */
TVML_SUPPORT __attribute__((noinline, cold)) int tvml_check_shape(
    const DLTensor* t, const char* fn, const char* name, int k0, int n, const int64_t* want) {
  for (int k = k0; k < k0 + n; ++k) {
    if (t->shape[k] != want[k - k0]) {
      tvml_set_err("%s: Argument %s.shape[%d] has an unsatisfied constraint: %lld == "
                   "%s.shape[%d], got %lld", fn, name, k, (long long)want[k - k0], name, k,
                   (long long)t->shape[k]);
      return -1;
    }
  }
  return 0;
}

/* strides absent, or those of a compact row-major array (extent-1 dimensions exempt) */
TVML_SUPPORT __attribute__((noinline, cold)) int tvml_check_compact(
    const DLTensor* t, const char* fn, const char* name) {
  if (t->strides == NULL) return 0;
  int64_t want = 1;
  int bad = 0;
  for (int k = t->ndim - 1; k >= 0; --k) {
    if (t->shape[k] != 1 && t->strides[k] != want) bad = 1;
    want *= t->shape[k];
  }
  if (bad) {
    tvml_set_err("%s: Argument %s.strides: expected to be compact array", fn, name);
    return -1;
  }
  return 0;
}

/* The checks of a function's arguments that need no shape variable, in one call: the count,
   each parameter's type code (a tensor's ndim, dtype, device and data), then the layout of
   each tensor that ``params`` gives one, in parameter order. */
TVML_SUPPORT __attribute__((noinline, cold)) int tvml_check_args(
    void** args, const int32_t* codes, int32_t num_args, const char* fn, int32_t n,
    const tvml_param_t* params) {
  if (num_args != n) {
    tvml_set_err("%s: expects %d arguments, got %d", fn, (int)n, (int)num_args);
    return -1;
  }
  for (int i = 0; i < n; ++i) {
    const tvml_param_t* p = &params[i];
    if (p->code == @ARG_DLTENSOR@) {
      if (tvml_check_arg(args, codes, i, fn, p->name, p->ndim, p->dtype.code, p->dtype.bits,
                         p->dtype.lanes, p->dtype_name, p->dev, p->dev_name) != 0)
        return -1;
    } else if (codes[i] != p->code) {
      tvml_set_err("%s: Argument %s is expected to be %s, got %s", fn, p->name,
                   p->code == @ARG_FLOAT@ ? "float" : "int", tvml_type_code_str(codes[i]));
      return -1;
    }
  }
  for (int i = 0; i < n; ++i) {
    const tvml_param_t* p = &params[i];
    if (!p->layout) continue;
    const DLTensor* t = (const DLTensor*)args[i];
    if (p->ndim > 0 && (tvml_check_shape(t, fn, p->name, 0, p->ndim, p->shape) != 0
                        || tvml_check_compact(t, fn, p->name) != 0))
      return -1;
    if (t->byte_offset != (uint64_t)p->elem_offset * p->elem_bytes) {
      tvml_set_err("%s: Argument %s.byte_offset is expected to be %lld, got %llu", fn, p->name,
                   (long long)p->elem_offset, (unsigned long long)t->byte_offset);
      return -1;
    }
  }
  return 0;
}
"""


def _c_names(var: str, names: dict, default: str) -> str:
    """A C conditional expression naming the code held in ``var``."""
    return "".join(f'{var} == {c} ? "{n}" : ' for c, n in names.items()) + f'"{default}"'


_SUPPORT = (_SUPPORT
            .replace("@ARG_TYPE_NAMES@", _c_names("c", _dt.ARG_TYPE_NAMES, "object"))
            .replace("@DTYPE_NAMES@", _c_names("t.code", _dt.TYPE_CODE_NAMES, "unknown"))
            .replace("@UINT@", str(_dt.UINT))
            .replace("@ARG_DLTENSOR@", str(_dt.ARG_DLTENSOR))
            .replace("@ARG_FLOAT@", str(_dt.ARG_FLOAT)))
_HIDDEN = '#define TVML_SUPPORT __attribute__((visibility("hidden")))\n'

#: the support object's source: the support functions as hidden globals, compiled once per
#: compiler and flags and linked into each library instead of compiled with every kernel
SUPPORT_SOURCE = _HEADER + _HIDDEN + _SUPPORT
#: defined (``-D``) when a build links the support object in: the generated file then only
#: declares the support functions (their definitions' heads); without it, it is self-contained
LINKED_SUPPORT_MACRO = "TVML_LINKED_SUPPORT"
PREAMBLE = (_HEADER + _KERNEL_HEAD
            + f"\n#ifdef {LINKED_SUPPORT_MACRO}  /* the support object is linked in */\n"
            + _HIDDEN
            + "".join(m[1] + ";\n" for m in re.finditer(r"^(TVML_SUPPORT\b[^{]*?) \{$",
                                                         _SUPPORT, re.M))
            + "#else\n#define TVML_SUPPORT static TVML_UNUSED\n" + _SUPPORT + "#endif\n")


# Parallel regions use the thread count the runtime sets when it loads the library
# (TVM_NUM_THREADS or the physical cores, see runtime/threading.py); OpenMP's default otherwise.
_THREADS_HELPER = r"""int omp_get_max_threads(void);
static int32_t tvml_nthreads = 0;
void __tvmlite_set_num_threads(int32_t n) { tvml_nthreads = n; }
static inline int tvml_num_threads(void) {
  return tvml_nthreads > 0 ? tvml_nthreads : omp_get_max_threads();
}
"""

_LIBM_UNARY = ("exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "cbrt", "tanh",
               "sin", "cos", "tan", "sinh", "cosh", "asin", "acos", "atan", "asinh", "acosh",
               "atanh", "erf", "erfc", "floor", "ceil", "trunc", "nearbyint", "rint", "fabs",
               "lgamma", "tgamma")
_LIBM_BINARY = ("pow", "fmod", "atan2", "hypot", "copysign", "nextafter", "fmin", "fmax", "ldexp")
_LIBM_NAMES = frozenset(n + s for n in _LIBM_UNARY + _LIBM_BINARY + ("round", "lround")
                        for s in ("", "f", "l")) | frozenset({"abs", "labs", "llabs"})
# what the printer may take from <math.h>: a file includes the header only when its text names
# one of them (parsing it is a tenth of the C compiler's time on a small kernel); a call
# missed here would be an implicit declaration, which the file makes an error
_MATH_WORDS = re.compile(r"\b(?:%s)\b" % "|".join(sorted(
    _LIBM_NAMES | {"NAN", "INFINITY", "HUGE_VAL", "isnan", "isinf", "isfinite"})))

# C library names a kernel may be called (classic tests name a kernel after its op): its C
# function and symbol are named apart (see ``print_function``)
_LIBRARY_SYMBOLS = _LIBM_NAMES | frozenset(
    "isnan isinf isfinite isnormal signbit fpclassify".split())


def c_string(s: str) -> str:
    """A C string literal for ``s``."""
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif 32 <= o < 127:
            out.append(ch)
        else:
            for b in ch.encode():
                out.append(f'\\{b:03o}')
    out.append('"')
    return "".join(out)


def _pct(s: str) -> str:
    return s.replace("%", "%%")


def int_literal(value: int, dtype: str) -> str:
    d = _dt.parse(dtype)
    if d.code == _dt.UINT and d.bits == 1:
        return "1" if value else "0"
    if d.code == _dt.INT:
        if d.bits == 64:
            if value == -(1 << 63):
                return "(-INT64_C(9223372036854775807) - 1)"
            return f"INT64_C({value})" if value >= 0 else f"(-INT64_C({-value}))"
        if value == -(1 << 31) and d.bits == 32:
            return "(-2147483647 - 1)"
        lit = str(value) if value >= 0 else f"(-{-value})"
        return lit if d.bits == 32 else f"(({c_type(dtype)}){lit})"
    if d.code == _dt.UINT:
        if d.bits == 64:
            return f"UINT64_C({value})"
        return f"{value}U" if d.bits == 32 else f"(({c_type(dtype)}){value}U)"
    raise TVMError(f"integer constant of dtype {dtype}")


def float_literal(value: float, dtype: str) -> str:
    bits = _dt.bits(dtype)
    if bits == 64:
        if math.isnan(value):
            return "((double)NAN)"
        if math.isinf(value):
            return "HUGE_VAL" if value > 0 else "(-HUGE_VAL)"
        lit = float(value).hex()
    else:
        v = float(np.float32(value)) if bits == 32 else float(value)
        if math.isnan(v):
            lit = "NAN"
        elif math.isinf(v):
            lit = "INFINITY" if v > 0 else "(-INFINITY)"
        else:
            lit = v.hex() + "f"
        if bits == 16:
            return f"((_Float16){lit})"
    return f"({lit})" if lit.startswith("-") else lit


def explain_symbol_clash(message: str, symbols) -> Optional[str]:
    """When the C compiler's ``message`` says a function name clashes with a declaration of
    the C library, the user-facing explanation; else None."""
    for sym in symbols:
        for q in ("‘%s’" % sym, "'%s'" % sym):
            if f"conflicting types for {q}" in message or f"{q} redeclared" in message:
                return (f"function name {sym!r} clashes with the C library's {sym}; give the "
                        "function another name")
    return None


class CodeGenC:
    """Prints lowered PrimFuncs as one C translation unit."""

    def __init__(self) -> None:
        self._helpers: Dict[str, str] = {}
        self._decls: Dict[str, str] = {}
        self._funcs: List[str] = []
        self.metadata: Dict[str, dict] = {}
        self.uses_openmp = False

    # ================================================================== module level
    def add_function(self, func: PrimFunc, name: Optional[str] = None) -> None:
        """Generate the C function for ``func`` (named by its ``global_symbol``)."""
        symbol = str((func.attrs or {}).get("global_symbol", name or "default_function"))
        if not re.fullmatch(r"[A-Za-z_]\w*", symbol):
            raise TVMError(f"global_symbol {symbol!r} is not a valid C identifier")
        if symbol in self.metadata or symbol.startswith(("__tvmlite", "tvml_")) \
                or symbol in _C_KEYWORDS and symbol not in _LIBRARY_SYMBOLS | {"main"}:
            raise TVMError(f"duplicate or reserved function name {symbol!r} (C keywords, "
                           "common C library names and the tvml_ prefix are reserved)")
        printer = _FunctionPrinter(self, symbol, func)
        self._funcs.append(printer.print_function())
        self.metadata[symbol] = printer.signature

    def finish(self, extra_meta: Optional[dict] = None) -> str:
        """The complete C source, with the metadata the runtime reads back from the library."""
        meta = {"version": 1, "functions": self.metadata, **(extra_meta or {})}
        parts = list(self._decls.values())
        parts += list(self._helpers.values())
        parts += self._funcs
        text = json.dumps(meta, sort_keys=True)
        parts.append(f"const char __tvmlite_metadata[] = {c_string(text)};\n")
        code = "\n".join(parts)
        head = "#include <math.h>\n" + PREAMBLE if _MATH_WORDS.search(code) else PREAMBLE
        return head + "\n" + code

    def helper(self, name: str, code: str) -> str:
        self._helpers.setdefault(name, code)
        return name

    def declare(self, name: str, code: str) -> None:
        self._decls.setdefault(name, code)


class _FunctionPrinter(VectorPrinterMixin):
    """Prints one PrimFunc. Tracks names, pointer types and live heap workspaces."""

    def __init__(self, cg: CodeGenC, symbol: str, func: PrimFunc):
        self.cg = cg
        self.symbol = symbol
        self.func = func
        self.noalias = bool((func.attrs or {}).get("tir.noalias", False))
        self.lines: List[str] = []
        self.indent = 1
        self.names: Dict[E.Var, str] = {}
        self.used: set = set()
        self.ptr_type: Dict[E.Var, str] = {}  # data var -> element dtype of its C pointer
        self.heap: List[str] = []  # live heap workspaces, innermost last
        self.par: Optional[Tuple[str, str, int]] = None  # (label, flag, heap depth at entry)
        self.tmp = 0
        self.signature: dict = {}
        self.mask: Optional[str] = None  # C name of the active lane mask (vector if_then_else)
        self.mask_dtype: str = ""
        self._tensor_names: Dict[Buffer, str] = {}
        self._bind_site: Dict[E.Var, tuple] = {}  # var -> (tensor, field, dim) that binds it
        self._loop_bounds: Optional[Analyzer] = None  # constant loop ranges, for _nonneg_div

    # ------------------------------------------------------------------ helpers
    def name_of(self, v: E.Var) -> str:
        n = self.names.get(v)
        if n is None:
            raise TVMError(f"{self.symbol}: variable {v.name!r} is used but not defined "
                           f"(it is neither a parameter, a shape variable, nor bound by a loop, "
                           f"let or allocation)")
        return n

    def bind_name(self, v: E.Var, hint: Optional[str] = None) -> str:
        base = re.sub(r"\W", "_", hint or v.name or "v") or "v"
        if base[0].isdigit() or base in _C_KEYWORDS or base.startswith("tvml_") or \
                base.startswith("__"):
            base = "v_" + base
        name, k = base, 0
        while name in self.used:
            k += 1
            name = f"{base}_{k}"
        self.used.add(name)
        self.names[v] = name
        return name

    def fresh(self, base: str) -> str:
        self.tmp += 1
        return f"tvml_{base}{self.tmp}"

    def emit(self, line: str) -> None:
        self.lines.append("  " * self.indent + line)

    def emit_fail(self, cond: Optional[str], fmt: str, *args: str) -> None:
        """Emit: if ``cond`` holds, set the error message and leave with -1."""
        call = ", ".join((c_string(fmt),) + args)
        if cond is not None:
            self.emit(f"if (__builtin_expect(!!({cond}), 0)) {{")
        else:
            self.emit("{")
        self.indent += 1
        if self.par is None:
            self.emit(f"tvml_set_err({call});")
            for p in reversed(self.heap):
                self.emit(f"free({p});")
            self.emit("return -1;")
        else:
            label, flag, depth = self.par
            self.emit(f"if (!__atomic_exchange_n(&{flag}, 1, __ATOMIC_RELAXED)) "
                      f"snprintf({flag}_msg, sizeof({flag}_msg), {call});")
            for p in reversed(self.heap[depth:]):
                self.emit(f"free({p});")
            self.emit(f"goto {label};")
        self.indent -= 1
        self.emit("}")

    # ------------------------------------------------------------------ function
    def print_function(self) -> str:
        f = self.func
        params = list(f.params)
        sig = []
        tensors = []
        rows = []  # the parameter table of tvml_check_args
        tabled = True  # the tensors so far all have a constant layout, checked by the table
        for i, p in enumerate(params):
            if not isinstance(p, E.Var):
                raise TVMError(f"{self.symbol}: parameter {i} is not a Var")
            buf = f.buffer_map.get(p)
            if buf is not None:
                tabled = tabled and _constant_layout(buf)
                tensors.append((i, buf, tabled))
                sig.append({"name": buf.name, "kind": "tensor", "dtype": buf.dtype,
                            "ndim": len(buf.shape)})
                rows.append(self._tensor_row(buf, tabled))
            elif p.dtype == "handle":
                raise TVMError(f"{self.symbol}: handle parameter {p.name} has no buffer in "
                               f"buffer_map (tvmlite does not implement raw pointer parameters; "
                               f"declare a buffer for it)")
            else:
                sig.append(self._scalar_param(i, p))
                rows.append(f"{{{c_string(p.name)}, "
                            f"{_dt.ARG_FLOAT if sig[-1]['kind'] == 'float' else _dt.ARG_INT}}}")
        table = "NULL"
        if rows:
            table = f"tvml_params_{self.symbol}"
            self.cg.declare(table, f"static const tvml_param_t {table}[] = {{\n  "
                                   + ",\n  ".join(rows) + "};\n")
        self.emit_check(f"tvml_check_args(args, type_codes, num_args, {c_string(self.symbol)}, "
                        f"{len(params)}, {table})")
        for i, p in enumerate(params):
            buf = f.buffer_map.get(p)
            if buf is None:
                n = self.bind_name(p)
                src = "double" if sig[i]["kind"] == "float" else "int64_t"
                self.emit(f"{c_type(p.dtype)} {n} = ({c_type(p.dtype)})(*({src}*)args[{i}]);")
            else:
                t = self._tensor_names[buf] = self.fresh("arg")
                self.emit(f"DLTensor* {t} = (DLTensor*)args[{i}];")
        # bind shape variables at their first occurrence, then check everything else
        for _i, buf, _ in tensors:
            self._bind_dims(buf, "shape", buf.shape)
            if buf.strides:
                self._bind_dims(buf, "strides", buf.strides)
            if isinstance(buf.elem_offset, E.Var) and buf.elem_offset not in self.names:
                n = self.bind_name(buf.elem_offset)
                self.emit(f"{c_type(buf.elem_offset.dtype)} {n} = ({c_type(buf.elem_offset.dtype)})"
                          f"({self._t(buf)}->byte_offset / {max(_dt.bits(buf.dtype), 8) // 8});")
        for _i, buf, tabled in tensors:
            if not tabled:
                self._check_layout(buf)
            ptr = self.bind_name(buf.data, buf.name)
            self.ptr_type[buf.data] = buf.dtype
            restrict = " restrict" if self.noalias else ""
            ct = c_type(buf.dtype)
            self.emit(f"{ct}*{restrict} {ptr} = ({ct}*)({self._t(buf)}->data);")
        self.signature = {"args": sig}
        self.stmt(f.body)
        self.emit("return 0;")
        params = "void** args, int32_t* type_codes, int32_t num_args"
        c_name = self.symbol
        if self.symbol in _LIBRARY_SYMBOLS:
            # a C library name (``exp``, the macro ``isfinite``): the C function and its
            # exported symbol take another name, which the metadata gives the runtime (an
            # exported ``exp`` could also capture the kernel's own calls to libm's)
            c_name = self.signature["c_symbol"] = f"tvml_fn_{self.symbol}"
        head = f"int32_t {c_name}({params}) {{"
        unused = "  (void)type_codes; (void)args;"
        return "\n".join([head, unused] + self.lines + ["}", ""])

    def _t(self, buf: Buffer) -> str:
        return self._tensor_names[buf]

    def _scalar_param(self, i: int, p: E.Var) -> dict:
        dt = p.dtype
        if _dt.lanes(dt) != 1 or not (_dt.is_int(dt) or _dt.is_uint(dt) or _dt.is_float(dt)
                                      or _dt.is_bool(dt)):
            raise TVMError(f"{self.symbol}: parameter {p.name} has unsupported dtype {dt}")
        return {"name": p.name, "kind": "float" if _dt.is_float(dt) else "int", "dtype": dt}

    def _tensor_row(self, buf: Buffer, layout: bool) -> str:
        """The parameter table's entry of tensor ``buf`` (with its constant layout when
        ``layout``)."""
        code, bits, lanes = _dt.parse(buf.dtype)
        # a GPU function emulated on the CPU takes arrays of the emulated device
        dev = int((self.func.attrs or {}).get("tvmlite.arg_device_type", 1))
        row = (f"{{{c_string(buf.name)}, {_dt.ARG_DLTENSOR}, {len(buf.shape)}, "
               f"{{{code}, {bits}, {lanes}}}, {c_string(buf.dtype)}, {dev}, "
               f"\"{'cuda' if dev == 2 else 'cpu'}\"")
        if layout:
            shape = ", ".join(str(d.value) for d in buf.shape)
            row += (f", 1, {f'(const int64_t[]){{{shape}}}' if shape else 'NULL'}, "
                    f"{buf.elem_offset.value}, {max(_dt.bits(buf.dtype), 8) // 8}")
        return row + "}"

    def emit_check(self, call: str) -> None:
        """Emit a call of a support check (it sets the message itself): -1 when it fails."""
        self.emit(f"if (__builtin_expect(!!({call} != 0), 0)) {{")
        for p in reversed(self.heap):
            self.emit(f"  free({p});")
        self.emit("  return -1;")
        self.emit("}")

    def _bind_dims(self, buf: Buffer, field: str, dims) -> None:
        t = self._t(buf)
        for k, d in enumerate(dims):
            if isinstance(d, E.Var) and d not in self.names:
                n = self.bind_name(d)
                self._bind_site[d] = (t, field, k)
                ct = c_type(d.dtype)
                if field == "shape":
                    src = f"{t}->shape[{k}]"
                else:
                    src = f"({t}->strides ? {t}->strides[{k}] : {self._compact_stride(t, k)})"
                    if buf.buffer_type == "auto_broadcast":
                        src = f"({t}->shape[{k}] == 1 ? 0 : {src})"
                self.emit(f"{ct} {n} = ({ct})({src});")

    def _compact_stride(self, t: str, k: int) -> str:
        nd = len(next(b for b, n in self._tensor_names.items() if n == t).shape)
        terms = [f"{t}->shape[{j}]" for j in range(k + 1, nd)]
        return "(" + " * ".join(terms) + ")" if terms else "1"

    def _check_dims(self, buf: Buffer, field: str, dims) -> None:
        t = self._t(buf)
        name = _pct(buf.name)
        run: List[Tuple[int, int]] = []  # consecutive constant extents: one support call
        for k, d in enumerate(list(dims) + [None]):
            if field == "shape" and isinstance(d, E.IntImm):
                run.append((k, d.value))
                continue
            if run:
                want = ", ".join(str(v) for _, v in run)
                self.emit_check(f"tvml_check_shape({t}, {c_string(self.symbol)}, "
                                f"{c_string(buf.name)}, {run[0][0]}, {len(run)}, "
                                f"(const int64_t[]){{{want}}})")
                run = []
            if d is None or isinstance(d, E.Var) and self._bind_site.get(d) == (t, field, k):
                continue
            want = self.expr(d)
            got = (f"{t}->shape[{k}]" if field == "shape" else
                   f"({t}->strides ? {t}->strides[{k}] : {self._compact_stride(t, k)})")
            text = _pct(_expr_text(d))
            extra, args = "", [f"(long long){got}"]
            if not isinstance(d, E.IntImm):
                extra = f" ({text} = %lld)"
                args.append(f"(long long)({want})")
            self.emit_fail(f"(int64_t)({want}) != {got}",
                           f"{self.symbol}: Argument {name}.{field}[{k}] has an unsatisfied "
                           f"constraint: {text} == {name}.{field}[{k}], got %lld{extra}", *args)

    def _check_layout(self, buf: Buffer) -> None:
        """Shape, strides and byte offset of ``buf``, in the function (a shape variable or
        expression takes part)."""
        self._check_dims(buf, "shape", buf.shape)
        self._check_strides(buf)
        if not isinstance(buf.elem_offset, E.Var):
            t = self._t(buf)
            off = self.expr(buf.elem_offset)
            nb = max(_dt.bits(buf.dtype), 8) // 8
            self.emit_fail(f"{t}->byte_offset != (uint64_t)({off}) * {nb}",
                           f"{self.symbol}: Argument {_pct(buf.name)}.byte_offset is expected "
                           f"to be {_pct(str(_const_or(buf.elem_offset)))}, got %llu",
                           f"(unsigned long long){t}->byte_offset")

    def _check_strides(self, buf: Buffer) -> None:
        t = self._t(buf)
        if buf.strides:
            self._check_dims(buf, "strides", buf.strides)
            return
        if buf.shape:
            self.emit_check(f"tvml_check_compact({t}, {c_string(self.symbol)}, "
                            f"{c_string(buf.name)})")

    # ================================================================== statements
    def stmt(self, s) -> None:
        fn = getattr(self, "s_" + type(s).__name__, None)
        if fn is None:
            raise TVMError(f"{self.symbol}: the C backend cannot print {type(s).__name__} "
                           f"statements (lower the function first)")
        fn(s)

    def s_SeqStmt(self, s: S.SeqStmt) -> None:
        for x in s.seq:
            self.stmt(x)

    def s_Evaluate(self, s: S.Evaluate) -> None:
        v = s.value
        if isinstance(v, (E.IntImm, E.FloatImm)) or (isinstance(v, E.Call)
                                                     and v.op == "assume"):
            return  # an assumption informs the compiler, it computes nothing
        if isinstance(v, E.Call) and v.op == "call_packed":
            self.call_packed(v)
            return
        self.emit(f"(void)({self.expr(v)});")

    def s_LetStmt(self, s: S.LetStmt) -> None:
        value = self.expr(s.value)
        self.emit("{")
        self.indent += 1
        n = self.bind_name(s.var)
        if s.var.dtype == "handle":
            self.emit(f"void* {n} = (void*)({value});")
        else:
            self.emit(f"{self.ct(s.var.dtype)} {n} = {value};")
        self.stmt(s.body)
        self.indent -= 1
        self.emit("}")

    def s_AttrStmt(self, s: S.AttrStmt) -> None:
        if s.attr_key in ("thread_extent", "virtual_thread"):
            iv = s.node
            nm = getattr(getattr(iv, "var", iv), "name", "?")
            raise TVMError(f"{self.symbol}: loop variable {nm} is bound to a GPU thread "
                           f"({getattr(iv, 'thread_tag', '')}); GPU loops cannot be built for "
                           f"the CPU target")
        if s.attr_key.startswith("pragma_") or s.attr_key in ("pragma",):
            self.emit(f"/* {s.attr_key} */")
        self.stmt(s.body)

    def s_AssertStmt(self, s: S.AssertStmt) -> None:
        msg = s.message.value if isinstance(s.message, E.StringImm) else str(s.message)
        self.emit_fail(f"!({self.expr(s.condition)})", "%s", c_string(msg))
        self.stmt(s.body)

    def s_IfThenElse(self, s: S.IfThenElse) -> None:
        self.emit(f"if ({_strip(self.expr(s.condition))}) {{")
        self.indent += 1
        self.stmt(s.then_case)
        self.indent -= 1
        if s.else_case is not None:
            self.emit("} else {")
            self.indent += 1
            self.stmt(s.else_case)
            self.indent -= 1
        self.emit("}")

    def s_Prefetch(self, s: S.Prefetch) -> None:
        pass  # a hint; the C compiler prefetches on its own

    def s_While(self, s: S.While) -> None:
        self.emit(f"while ({_strip(self.expr(s.condition))}) {{")
        self.indent += 1
        self.stmt(s.body)
        self.indent -= 1
        self.emit("}")

    def s_BufferStore(self, s: S.BufferStore) -> None:
        if s.indices and _dt.lanes(s.indices[-1].dtype) != 1:
            self.emit(self.vector_store(s) + ";")
            return
        self.emit(f"{self.buffer_ref(s.buffer, s.indices)} = {_strip(self.expr(s.value))};")

    def s_For(self, s: S.For) -> None:
        kind = S.ForKind(s.kind)
        if kind == S.ForKind.THREAD_BINDING:
            iv = s.thread_binding
            tag = getattr(iv, "thread_tag", "") if iv is not None else ""
            raise TVMError(f"{self.symbol}: loop variable {s.loop_var.name} is bound to a GPU "
                           f"thread{f' ({tag})' if tag else ''}; GPU loops cannot be built for "
                           f"the CPU target")
        lo = self.expr(s.min)
        ext = self.expr(s.extent)
        end = ext if _is_zero(s.min) else f"{lo} + {ext}"
        parallel = kind == S.ForKind.PARALLEL and self.par is None
        ct = c_type(s.loop_var.dtype)
        if parallel:
            label, flag = self.fresh("par_end"), self.fresh("perr")
            self.emit("{")
            self.indent += 1
            self.emit(f"int {flag} = 0;")
            self.emit(f"char {flag}_msg[512];")
            self.emit("#pragma omp parallel for schedule(static) num_threads(tvml_num_threads())")
            self.cg.uses_openmp = True
            self.cg.helper("tvml_num_threads", _THREADS_HELPER)
        elif kind == S.ForKind.UNROLLED:
            n = int(s.extent.value) if isinstance(s.extent, E.IntImm) else 8
            self.emit(f"#pragma GCC unroll {max(1, min(n, 65534))}")
        elif kind == S.ForKind.VECTORIZED:
            self.emit("#pragma GCC ivdep")
        v = self.bind_name(s.loop_var)
        if self._loop_bounds is None:
            self._loop_bounds = Analyzer()
        # override: loop partition leaves one variable on several loops
        low = s.min.value if isinstance(s.min, E.IntImm) else NEG_INF
        high = low + s.extent.value - 1 if isinstance(s.extent, E.IntImm) and low > NEG_INF \
            else POS_INF
        self._loop_bounds.update(s.loop_var, ConstIntBound(low, high), override=True)
        self.emit(f"for ({ct} {v} = {_strip(lo)}; {v} < {end}; ++{v}) {{")
        self.indent += 1
        saved = self.par
        if parallel:
            self.par = (label, flag, len(self.heap))
        self.stmt(s.body)
        if parallel:
            self.par = saved
            self.emit(f"{label}: ;")
        self.indent -= 1
        self.emit("}")
        if parallel:
            self.emit_fail(flag, "%s", f"{flag}_msg")
            self.indent -= 1
            self.emit("}")

    def s_Allocate(self, s: S.Allocate) -> None:
        dt = s.dtype
        ct = c_type(dt)
        esize = max(_dt.bits(dt), 8) // 8
        count: Optional[int] = 1
        for e in s.extents:
            count = count * int(e.value) if isinstance(e, E.IntImm) and count is not None \
                else None
        name = self.bind_name(s.buffer_var)
        self.ptr_type[s.buffer_var] = dt
        self.emit("{")
        self.indent += 1
        data = (s.annotations or {}).get(S.ALLOCATE_CONST_DATA)
        if data is not None:  # T.allocate_const
            values = ", ".join(self.expr(_const(v, dt)) for v in data)
            self.emit(f"static const {ct} {name}[{max(len(data), 1)}] = {{{values}}};")
            self.stmt(s.body)
        # per call, or per thread inside a parallel loop: a stack array lets the C compiler
        # keep it in registers (an accumulator tile)
        elif count is not None and count * esize <= STACK_ALLOC_LIMIT:
            self.emit(f"{ct} {name}[{max(count, 1)}] __attribute__((aligned(64)));")
            self.stmt(s.body)
        else:
            size = " * ".join(f"(size_t)({self.expr(e)})" for e in s.extents) or "1"
            self.emit(f"{ct}* restrict {name} = ({ct}*)tvml_alloc({size} * {esize});")
            self.emit_fail(f"{name} == NULL",
                           f"{self.symbol}: failed to allocate %zu bytes for workspace "
                           f"{_pct(s.buffer_var.name)}", f"{size} * {esize}")
            self.heap.append(name)
            self.stmt(s.body)
            self.heap.pop()
            self.emit(f"free({name});")
        self.indent -= 1
        self.emit("}")

    # ------------------------------------------------------------------ call_packed
    def call_packed(self, c: E.Call) -> None:
        fname = c.args[0].value if isinstance(c.args[0], E.StringImm) else None
        if fname is None:
            raise TVMError(f"{self.symbol}: call_packed expects the function name first")
        args = c.args[1:]
        n = len(args)
        self.emit("{")
        self.indent += 1
        pa, pc = self.fresh("pa"), self.fresh("pc")
        self.emit(f"void* {pa}[{max(n, 1)}];")
        self.emit(f"int32_t {pc}[{max(n, 1)}];")
        for k, a in enumerate(args):
            if isinstance(a, Buffer):
                t, sh = self.fresh("pt"), self.fresh("ps")
                nd = len(a.shape)
                dims = ", ".join(f"(int64_t)({self.expr(d)})" for d in a.shape) or "0"
                self.emit(f"int64_t {sh}[{max(nd, 1)}] = {{{dims}}};")
                code, bits, lanes = _dt.parse(a.dtype)
                data = self.name_of(a.data)
                off = "" if _is_zero(a.elem_offset) else f" + ({self.expr(a.elem_offset)})"
                self.emit(f"DLTensor {t} = {{(void*)({data}{off}), {{1, 0}}, {nd}, "
                          f"{{{code}, {bits}, {lanes}}}, {sh}, NULL, 0}};")
                self.emit(f"{pa}[{k}] = &{t}; {pc}[{k}] = {_dt.ARG_DLTENSOR};")
            elif isinstance(a, E.StringImm):
                self.emit(f"{pa}[{k}] = (void*){c_string(a.value)}; {pc}[{k}] = 11;")
            elif a.dtype == "handle":
                h = self.fresh("ph")
                self.emit(f"void* {h} = (void*)({self.expr(a)});")
                self.emit(f"{pa}[{k}] = &{h}; {pc}[{k}] = {_dt.ARG_HANDLE};")
            elif _dt.is_float(a.dtype):
                h = self.fresh("pf")
                self.emit(f"double {h} = (double)({self.expr(a)});")
                self.emit(f"{pa}[{k}] = &{h}; {pc}[{k}] = {_dt.ARG_FLOAT};")
            else:
                h = self.fresh("pi")
                self.emit(f"int64_t {h} = (int64_t)({self.expr(a)});")
                self.emit(f"{pa}[{k}] = &{h}; {pc}[{k}] = {_dt.ARG_INT};")
        name = c_string(fname)
        self.emit_fail("__tvmlite_packed_cb == 0",
                       f"{self.symbol}: call_packed({_pct(fname)}): no runtime to call into")
        self.emit_fail(f"__tvmlite_packed_cb({name}, {pa}, {pc}, {n}) != 0",
                       f"{self.symbol}: call_packed({_pct(fname)}) failed")
        self.indent -= 1
        self.emit("}")

    # ================================================================== expressions
    def buffer_ref(self, buf: Buffer, indices: Sequence) -> str:
        if len(indices) != 1:
            raise TVMError(f"{self.symbol}: buffer {buf.name} is accessed with {len(indices)} "
                           f"indices; the C backend expects flattened (1-D) accesses")
        idx = indices[0]
        if _dt.lanes(idx.dtype) != 1:
            raise TVMError(f"{self.symbol}: vector access to {buf.name} used as a scalar")
        return f"{self.buffer_ptr(buf)}[{_strip(self.expr(idx))}]"

    def buffer_ptr(self, buf: Buffer) -> str:
        ptr = self.name_of(buf.data)
        declared = self.ptr_type.get(buf.data)
        if declared is not None and declared != buf.dtype:
            ptr = f"(({c_type(buf.dtype)}*){ptr})"
        return ptr

    def expr(self, e) -> str:
        if isinstance(e, (int, float)) and not isinstance(e, E.PrimExpr):
            e = E.IntImm("int32", e) if isinstance(e, int) else E.FloatImm("float32", e)
        if isinstance(e, E.PrimExpr) and not isinstance(e, E.StringImm):
            dt = e.dtype
            if dt not in ("handle", "void", "") and _dt.lanes(dt) != 1:
                return self.vector_expr(e)
        fn = getattr(self, "e_" + type(e).__name__, None)
        if fn is None:
            raise TVMError(f"{self.symbol}: the C backend cannot print {type(e).__name__} "
                           f"expressions (lower the function first)")
        return fn(e)

    def e_Var(self, e: E.Var) -> str:
        return self.name_of(e)

    e_SizeVar = e_Var

    def e_IterVar(self, e: E.IterVar) -> str:
        return self.name_of(e.var)

    def e_IntImm(self, e: E.IntImm) -> str:
        return int_literal(e.value, e.dtype)

    def e_FloatImm(self, e: E.FloatImm) -> str:
        return float_literal(e.value, e.dtype)

    def e_StringImm(self, e: E.StringImm) -> str:
        return c_string(e.value)

    def e_Cast(self, e: E.Cast) -> str:
        return f"(({c_type(e.dtype)})({_strip(self.expr(e.value))}))"

    def _wrap(self, text: str, dtype: str) -> str:
        # C promotes narrow integers to int; cast back so arithmetic wraps in the dtype
        if _dt.is_integral(dtype) and not _dt.is_bool(dtype) and _dt.bits(dtype) < 32:
            return f"(({c_type(dtype)}){text})"
        return text

    def _bin(self, e, op: str) -> str:
        return self._wrap(f"({self.expr(e.a)} {op} {self.expr(e.b)})", e.dtype)

    def e_Add(self, e):
        return self._bin(e, "+")

    def e_Sub(self, e):
        return self._bin(e, "-")

    def e_Mul(self, e):
        return self._bin(e, "*")

    def e_Div(self, e):
        return self._bin(e, "/")

    def e_Mod(self, e):
        if _dt.is_float(e.dtype):
            return self._math("fmod", e.dtype, [e.a, e.b])
        return self._bin(e, "%")

    def _int_helper(self, kind: str, dtype: str) -> str:
        ct = c_type(dtype)
        name = f"tvml_{kind}_{dtype}"
        if kind == "floordiv":
            body = (f"  {ct} q = ({ct})(a / b), r = ({ct})(a % b);\n"
                    f"  return (r != 0 && ((r < 0) != (b < 0))) ? ({ct})(q - 1) : q;\n")
        elif kind == "floormod":
            body = (f"  {ct} r = ({ct})(a % b);\n"
                    f"  return (r != 0 && ((r < 0) != (b < 0))) ? ({ct})(r + b) : r;\n")
        elif kind == "min":
            body = "  return a < b ? a : b;\n"
        else:
            body = "  return a > b ? a : b;\n"
        code = f"static inline TVML_UNUSED {ct} {name}({ct} a, {ct} b) {{\n{body}}}\n"
        return self.cg.helper(name, code)

    def _nonneg_div(self, e) -> bool:
        """True when C's truncating ``/``/``%`` equal floor division here: a positive constant
        divisor and a dividend that the enclosing loops' constant ranges keep non-negative (the
        floor helpers' sign tests cost GCC ~60 ms on a fused conv2d, in OpenMP bodies above all,
        where they make it version the loops)."""
        return (isinstance(e.b, E.IntImm) and e.b.value > 0 and _dt.lanes(e.dtype) == 1
                and self._loop_bounds is not None
                and self._loop_bounds.const_int_bound(e.a).min_value >= 0)

    def e_FloorDiv(self, e):
        dt = e.dtype
        if _dt.is_float(dt):
            return self._math("floor", dt, [E.Div(e.a, e.b)])
        if _dt.is_int(dt) and not self._nonneg_div(e):
            return f"{self._int_helper('floordiv', dt)}({self.expr(e.a)}, {self.expr(e.b)})"
        return self._bin(e, "/")

    def e_FloorMod(self, e):
        dt = e.dtype
        if _dt.is_float(dt):
            a, b = self.expr(e.a), self.expr(e.b)
            ct = c_type(dt)
            fl = "floorf" if _dt.bits(dt) != 64 else "floor"
            return (f"({{ {ct} tvml_a = {a}, tvml_b = {b}; "
                    f"({ct})(tvml_a - {fl}(tvml_a / tvml_b) * tvml_b); }})")
        if _dt.is_int(dt) and not self._nonneg_div(e):
            return f"{self._int_helper('floormod', dt)}({self.expr(e.a)}, {self.expr(e.b)})"
        return self._bin(e, "%")

    def e_Min(self, e):
        return f"{self._int_helper('min', e.dtype)}({self.expr(e.a)}, {self.expr(e.b)})"

    def e_Max(self, e):
        return f"{self._int_helper('max', e.dtype)}({self.expr(e.a)}, {self.expr(e.b)})"

    def e_EQ(self, e):
        return f"({self.expr(e.a)} == {self.expr(e.b)})"

    def e_NE(self, e):
        return f"({self.expr(e.a)} != {self.expr(e.b)})"

    def e_LT(self, e):
        return f"({self.expr(e.a)} < {self.expr(e.b)})"

    def e_LE(self, e):
        return f"({self.expr(e.a)} <= {self.expr(e.b)})"

    def e_GT(self, e):
        return f"({self.expr(e.a)} > {self.expr(e.b)})"

    def e_GE(self, e):
        return f"({self.expr(e.a)} >= {self.expr(e.b)})"

    def e_And(self, e):
        return f"({self.expr(e.a)} && {self.expr(e.b)})"

    def e_Or(self, e):
        return f"({self.expr(e.a)} || {self.expr(e.b)})"

    def e_Not(self, e):
        return f"(!{self.expr(e.a)})"

    def e_Select(self, e):
        return (f"({_strip(self.expr(e.condition))} ? {self.expr(e.true_value)} : "
                f"{self.expr(e.false_value)})")

    def e_Let(self, e: E.Let) -> str:
        value = self.expr(e.value)
        saved = dict(self.names), set(self.used)
        n = self.bind_name(e.var)
        ct = "void*" if e.var.dtype == "handle" else self.ct(e.var.dtype)
        out = f"({{ {ct} {n} = {_strip(value)}; {_strip(self.expr(e.body))}; }})"
        self.names, self.used = saved
        self.used.add(n)  # keep the name reserved: it may shadow nothing later
        return out

    def e_BufferLoad(self, e: E.BufferLoad) -> str:
        ref = self.buffer_ref(e.buffer, e.indices)
        if self.mask is not None:  # under a lane-varying if_then_else: load only if a lane needs it
            return f"({self.vhelper('any', self.mask_dtype)}({self.mask}) ? {ref} : 0)"
        return ref


    # ------------------------------------------------------------------ calls
    def _math(self, name: str, dtype: str, args) -> str:
        """A libm call in the precision of ``dtype`` (float16 computes in float)."""
        bits = _dt.bits(dtype) if _dt.is_float(dtype) else 32
        if not _dt.is_float(dtype):
            raise TVMError(f"{self.symbol}: {name} expects a float argument, got {dtype}")
        sargs = [_strip(self.expr(a)) for a in args]
        if bits == 64:
            return f"{name}({', '.join(sargs)})"
        call = f"{name}f({', '.join(f'(float)({a})' if bits == 16 else a for a in sargs)})"
        return f"((_Float16){call})" if bits == 16 else call

    def e_Call(self, e: E.Call) -> str:
        op = e.op[4:] if e.op.startswith("tir.") else e.op
        a = e.args
        dt = e.dtype
        if op in _LIBM_UNARY and len(a) == 1:
            return self._math(op, dt, a)
        if op in _LIBM_BINARY and len(a) == 2:
            return self._math(op, dt, a)
        if op == "round":
            return self._math("nearbyint", dt, a)
        if op == "exp10":
            return self._math("pow", dt, [E.FloatImm(dt, 10.0), a[0]])
        if op == "rsqrt":
            one = E.FloatImm(dt, 1.0)
            return self._wrap_f16(f"({self.expr(one)} / {self._math('sqrt', dt, a)})", dt)
        if op == "sigmoid":
            one = self.expr(E.FloatImm(dt, 1.0))
            neg = E.Sub(E.FloatImm(dt, 0.0), a[0])
            return self._wrap_f16(f"({one} / ({one} + {self._math('exp', dt, [neg])}))", dt)
        if op in ("isnan", "isinf", "isfinite"):
            return f"({op}({self.expr(a[0])}) != 0)"
        if op == "if_then_else":
            return (f"({_strip(self.expr(a[0]))} ? {self.expr(a[1])} : {self.expr(a[2])})")
        if op == "likely":
            return f"__builtin_expect(!!({_strip(self.expr(a[0]))}), 1)"
        if op in ("shift_left", "shift_right", "bitwise_and", "bitwise_or", "bitwise_xor"):
            sym = {"shift_left": "<<", "shift_right": ">>", "bitwise_and": "&",
                   "bitwise_or": "|", "bitwise_xor": "^"}[op]
            return self._wrap(f"({self.expr(a[0])} {sym} {self.expr(a[1])})", dt)
        if op == "bitwise_not":
            return self._wrap(f"(~{self.expr(a[0])})", dt)
        if op == "popcount":
            fn = "__builtin_popcountll" if _dt.bits(dt) == 64 else "__builtin_popcount"
            ut = "uint64_t" if _dt.bits(dt) == 64 else "uint32_t"
            mask = "" if _dt.bits(dt) >= 32 else f" & {(1 << _dt.bits(dt)) - 1}U"
            return f"(({c_type(dt)}){fn}(({ut})({self.expr(a[0])}){mask}))"
        if op == "reinterpret":
            src = a[0].dtype
            return (f"({{ {c_type(src)} tvml_s = {_strip(self.expr(a[0]))}; {c_type(dt)} tvml_r;"
                    f" __builtin_memcpy(&tvml_r, &tvml_s, sizeof(tvml_r)); tvml_r; }})")
        if op in ("call_extern", "call_pure_extern"):
            return self._call_extern(e)
        if op == "address_of":
            ld = a[0]
            if not isinstance(ld, E.BufferLoad):
                raise TVMError(f"{self.symbol}: address_of expects a BufferLoad")
            return f"(&{self.buffer_ref(ld.buffer, ld.indices)})"
        if op == "address_of_elem":
            buf = a[0]
            return f"((void*)(&{self.buffer_ref(buf, (a[1],))}))"
        if op == "tvm_access_ptr":  # (type_annotation(dtype), data or Buffer, offset, ...)
            if len(a) != 5 or not isinstance(a[0], E.Call):
                raise TVMError(f"{self.symbol}: tvm_access_ptr expects (type_annotation, data, "
                               f"offset, extent, mask), got {len(a)} arguments")
            data = a[1].data if isinstance(a[1], Buffer) else a[1]
            return (f"((void*)((({c_type(a[0].dtype)}*){self.name_of(data)}) + "
                    f"{_strip(self.expr(a[2]))}))")
        if op == "call_packed":
            raise TVMError(f"{self.symbol}: call_packed can only be used as a statement "
                           f"(wrap it in tir.Evaluate)")
        if op == "abs":
            if _dt.is_float(dt):
                return self._math("fabs", dt, a)
            x = self.expr(a[0])
            ct = c_type(dt)
            return f"({{ {ct} tvml_x = {x}; tvml_x < 0 ? ({ct})-tvml_x : tvml_x; }})"
        raise TVMError(f"{self.symbol}: the C backend does not support the intrinsic {e.op!r}")

    def _wrap_f16(self, text: str, dtype: str) -> str:
        return f"((_Float16){text})" if _dt.bits(dtype) == 16 else text

    def _call_extern(self, e: E.Call) -> str:
        if not e.args or not isinstance(e.args[0], E.StringImm):
            raise TVMError(f"{self.symbol}: {e.op} expects the function name as a string")
        fname = e.args[0].value
        if not re.fullmatch(r"[A-Za-z_]\w*", fname):
            raise TVMError(f"{self.symbol}: {fname!r} is not a valid C function name")
        args = e.args[1:]
        texts = []
        for x in args:
            texts.append(self.name_of(x.data) if isinstance(x, Buffer) else _strip(self.expr(x)))
        if fname not in _LIBM_NAMES:
            ret = "void" if e.dtype in ("void", "") else (
                "void*" if e.dtype == "handle" else c_type(e.dtype))
            ptypes = ["void*" if isinstance(x, Buffer) or x.dtype == "handle" else c_type(x.dtype)
                      for x in args]
            self.cg.declare(fname, f"{ret} {fname}({', '.join(ptypes) or 'void'});\n")
        return f"{fname}({', '.join(texts)})"


def _constant_layout(buf: Buffer) -> bool:
    """Whether ``buf``'s shape and byte offset are constants and its strides compact: the
    parameter table of ``tvml_check_args`` can hold its layout checks."""
    return all(isinstance(d, E.IntImm) for d in buf.shape) and not buf.strides \
        and isinstance(buf.elem_offset, E.IntImm)


def _is_zero(e) -> bool:
    return isinstance(e, E.IntImm) and e.value == 0


def _const_or(e):
    return e.value if isinstance(e, (E.IntImm, E.FloatImm)) else _expr_text(e)


def _expr_text(e) -> str:
    """A short readable form of a shape expression for error messages."""
    if isinstance(e, E.IntImm):
        return str(e.value)
    if isinstance(e, E.Var):
        return e.name
    ops = {E.Add: "+", E.Sub: "-", E.Mul: "*", E.FloorDiv: "//", E.FloorMod: "%", E.Div: "/"}
    op = ops.get(type(e))
    if op is not None:
        return f"({_expr_text(e.a)} {op} {_expr_text(e.b)})"
    return type(e).__name__
