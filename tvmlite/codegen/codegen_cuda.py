"""CUDA C: a dialect of the one C printer (:mod:`codegen_c`).

Device functions made by :mod:`~tvmlite.tir.transform.gpu_split_host_device` print as
``extern "C" __global__`` kernels: pointer parameters, thread indices as ``threadIdx.x``,
shared buffers as ``__shared__`` arrays at the top, local buffers as per-thread arrays and
barriers as ``__syncthreads()``. Everything else (expressions, loops, vectors) is the C
printer's.
"""
from __future__ import annotations

import base64
import hashlib
from typing import List, Tuple

from ..arith.analyzer import Analyzer
from ..arith.linear import detect_linear_equation
from ..error import TVMError
from ..ir import dtype as _dt
from ..ir.module import IRModule
from ..ir.structural import structural_equal
from ..ir.transform import PassContext, register_pass_config
from ..runtime.cuda_compile import arch_of, compile_cuda
from ..runtime.cuda_module import LAUNCH_FUNC, attach_cuda
from ..runtime.device import cuda_available, gpu_emulation
from ..target import Target
from ..tir import expr as E
from ..tir import op as _op
from ..tir import stmt as S
from ..tir.function import PrimFunc
from ..tir.functor import Mutator, collect_vars, post_order_visit, substitute
from ..tir.transform.gpu_kernels import BARRIER, LOCAL_TAGS, SHUFFLE_DOWN
from ..tir.transform.gpu_split_host_device import LAUNCH, split_host_device
from ..tir.transform.gpu_vectorize import VECTOR_ATTR
from .build_c import build as build_c
from .c_text import _strip
from .codegen_c import CodeGenC, _FunctionPrinter, c_type

# how a CUDA build's host code runs kernels: "auto" (the driver API where a GPU and
# cuda-python are present, else the CPU emulation), "driver" or "emulation"
register_pass_config("cuda.host", str)

# NVRTC has no system headers: the fixed-width integer types are spelled out there
CUDA_PREAMBLE = """#ifdef __CUDACC_RTC__
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
#else
#include <stdint.h>
#endif
#define TVML_UNUSED __device__ __attribute__((unused))
"""
# the C printer spells float16 _Float16; CUDA spells it __half
FP16_PREAMBLE = """#include <cuda_fp16.h>
#define _Float16 __half
"""


# CUDA's vector memory types: (element dtype, lanes) -> (type, constructor)
VECTOR_TYPES = {
    ("float32", 2): ("float2", "make_float2"), ("float32", 4): ("float4", "make_float4"),
    ("int32", 2): ("int2", "make_int2"), ("int32", 4): ("int4", "make_int4"),
    ("uint32", 2): ("uint2", "make_uint2"), ("uint32", 4): ("uint4", "make_uint4"),
    ("float64", 2): ("double2", "make_double2"), ("int64", 2): ("longlong2", "make_longlong2"),
    ("int8", 4): ("char4", "make_char4"), ("uint8", 4): ("uchar4", "make_uchar4"),
    ("float16", 2): ("__half2", "__halves2half2"),
}
_LANE = "xyzw"


class _SwapLoads(Mutator):
    """Replace the given BufferLoad nodes (by identity) with variables."""

    def __init__(self, table):
        self.table = table

    def visit_BufferLoad(self, e):
        v = self.table.get(id(e))
        return v if v is not None else self.generic(e)


class _CudaPrinter(_FunctionPrinter):
    """A kernel in CUDA C; the OpenCL printer overrides the dialect hooks below."""

    LANGUAGE = "CUDA"
    BARRIER_TEXT = "__syncthreads();"

    def ptr_param(self, ctype: str, name: str) -> str:
        return f"{ctype}* __restrict__ {name}"

    def thread_index(self, tag: str) -> str:
        return f"((int){tag})"

    def shared_decl(self, ctype: str, name: str, count: int) -> str:
        # 16-byte aligned, for float4-style accesses
        return f"__shared__ {ctype} __align__(16) {name}[{count}];"

    def head(self, args: str, info) -> str:
        return (f'extern "C" __global__ void __launch_bounds__({info.threads()}) '
                f"{self.symbol}({args}) {{")

    def print_function(self) -> str:
        f = self.func
        info = f.attrs["tvmlite.kernel"]
        ptrs = (f.attrs or {}).get("tvmlite.ptr_types", {})
        args = []
        for p in f.params:
            n = self.bind_name(p)
            if p in ptrs:
                self.ptr_type[p] = ptrs[p]
                args.append(self.ptr_param(c_type(ptrs[p]), n))
            else:
                args.append(f"{c_type(p.dtype)} {n}")
        for tag, v in info.vars.items():
            self.names[v] = self.thread_index(tag)
        for a in info.shared:
            count = 1
            for e in a.extents:
                count *= int(e.value)
            n = self.bind_name(a.buffer_var)
            self.ptr_type[a.buffer_var] = a.dtype
            self.emit(self.shared_decl(c_type(a.dtype), n, count))
        self.stmt(f.body)
        return "\n".join([self.head(", ".join(args), info)] + self.lines + ["}", ""])

    def emit(self, line: str) -> None:
        # loop hints in nvcc's spelling
        if line.startswith("#pragma GCC unroll"):
            line = line.replace("#pragma GCC unroll", "#pragma unroll", 1)
        elif line == "#pragma GCC ivdep":
            return
        super().emit(line)

    def emit_fail(self, cond, fmt, *args) -> None:
        raise TVMError(f"{self.symbol}: a run-time check cannot be generated in "
                       f"{self.LANGUAGE} device code ({fmt})")

    def s_Evaluate(self, s: S.Evaluate) -> None:
        v = s.value
        if isinstance(v, E.Call) and v.op == BARRIER:
            warp = isinstance(v.args[0], E.StringImm) and v.args[0].value == "warp"
            self.emit(f"__syncwarp({self.warp_mask()});" if warp else self.BARRIER_TEXT)
            return
        super().s_Evaluate(s)

    def warp_mask(self) -> str:
        """The lanes of this thread's warp that exist: all 32 but in a block's last, partial
        warp. Warp shuffles and syncs name them (``__activemask()`` would name only the lanes
        that happen to run together, which need not be all after a divergent branch)."""
        info = self.func.attrs["tvmlite.kernel"]
        n = info.threads()
        if n % 32 == 0:
            return "0xffffffffu"
        last = f"{hex((1 << (n % 32)) - 1)}u"
        if n < 32:
            return last
        tid = None
        for tag in reversed(LOCAL_TAGS):  # z outermost
            if tag in info.vars:
                idx = self.thread_index(tag)
                tid = idx if tid is None else f"({tid} * {int(info.extent(tag).value)} + {idx})"
        return f"(({tid} >> 5) == {n // 32} ? {last} : 0xffffffffu)"

    def e_Call(self, e: E.Call) -> str:
        if e.op == SHUFFLE_DOWN:
            v, off, width = (_strip(self.expr(a)) for a in e.args)
            return f"__shfl_down_sync({self.warp_mask()}, {v}, {off}, {width})"
        return super().e_Call(e)

    def s_Allocate(self, s: S.Allocate) -> None:
        count = 1
        for e in s.extents:
            if not isinstance(e, E.IntImm):
                raise TVMError(f"{self.symbol}: buffer {s.buffer_var.name} has a symbolic size "
                               "in device code")
            count *= int(e.value)
        name = self.bind_name(s.buffer_var)
        self.ptr_type[s.buffer_var] = s.dtype
        self.emit("{")
        self.indent += 1
        self.emit(f"{c_type(s.dtype)} __align__(16) {name}[{max(count, 1)}];")
        self.stmt(s.body)
        self.indent -= 1
        self.emit("}")

    def s_For(self, s: S.For) -> None:
        if S.ForKind(s.kind) == S.ForKind.PARALLEL:
            raise TVMError(f"{self.symbol}: loop {s.loop_var.name} is marked parallel inside a "
                           "GPU kernel; bind it to a thread axis instead")
        if VECTOR_ATTR in (s.annotations or {}) and self._vector_loop(s):
            return
        super().s_For(s)

    # ------------------------------------------------------------ float4-style accesses
    def _aligned_base(self, buf, idx, loop: S.For, lanes: int):
        """The index of lane 0 when ``buf[idx]`` reads ``lanes`` consecutive elements over
        ``loop`` from a vector-aligned element (so one vector access covers them), else
        None."""
        if (_dt.element(buf.dtype), lanes) not in VECTOR_TYPES or _dt.lanes(buf.dtype) != 1:
            return None
        if not (isinstance(buf.elem_offset, E.IntImm) and buf.elem_offset.value == 0):
            return None
        coef = detect_linear_equation(idx, [loop.loop_var])
        if not coef or not (isinstance(coef[0], E.IntImm) and coef[0].value == 1):
            return None
        base = _op.add(coef[1], loop.min)
        if loop.loop_var in collect_vars(base):
            return None
        ana = Analyzer()
        if not ana.can_prove(_op.eq(_op.floormod(base, E.IntImm(base.dtype, lanes)), 0)):
            return None
        return ana.simplify(base)

    def _vector_loop(self, s: S.For) -> bool:
        """Print a marked loop of 2 or 4 lanes with vector loads/stores; False (nothing
        printed) when no access is contiguous and aligned, or when lanes could see each
        other's stores (then the scalar loop is printed)."""
        if not isinstance(s.extent, E.IntImm) or s.extent.value not in (2, 4):
            return False
        lanes = int(s.extent.value)
        v = s.loop_var
        body, cond = s.body, None
        if isinstance(body, S.IfThenElse) and body.else_case is None \
                and v not in collect_vars(body.condition):
            body, cond = body.then_case, body.condition
        if not isinstance(body, S.BufferStore) or len(body.indices) != 1:
            return False
        store = body
        loads = []
        post_order_visit(store.value, lambda e: loads.append(e)
                         if isinstance(e, E.BufferLoad) else None)
        vec_loads = []
        for ld in loads:
            if len(ld.indices) != 1:
                return False
            if ld.buffer.data is store.buffer.data \
                    and not structural_equal(ld.indices[0], store.indices[0]):
                return False  # a lane would read what another lane stores
            base = self._aligned_base(ld.buffer, ld.indices[0], s, lanes)
            if base is not None:
                vec_loads.append((ld, base))
        store_base = self._aligned_base(store.buffer, store.indices[0], s, lanes)
        if store_base is None and not vec_loads:
            return False
        if cond is not None:
            self.emit(f"if ({_strip(self.expr(cond))}) {{")
        else:
            self.emit("{")
        self.indent += 1
        tables = [dict() for _ in range(lanes)]
        for ld, base in vec_loads:
            vt, _ = VECTOR_TYPES[(_dt.element(ld.buffer.dtype), lanes)]
            t = self.fresh(f"{ld.buffer.name}_v")
            self.emit(f"{vt} {t} = *(const {vt}*)({self.buffer_ptr(ld.buffer)} + "
                      f"({_strip(self.expr(base))}));")
            for k in range(lanes):
                lane = E.Var(f"{t}_{k}", ld.dtype)
                self.names[lane] = f"{t}.{_LANE[k]}"
                tables[k][id(ld)] = lane
        values = []
        for k in range(lanes):
            at = {v: _op.add(s.min, E.IntImm(v.dtype, k))}
            values.append(_strip(self.expr(substitute(_SwapLoads(tables[k]).visit(store.value),
                                                      at))))
        if store_base is not None:
            vt, make = VECTOR_TYPES[(_dt.element(store.buffer.dtype), lanes)]
            self.emit(f"*({vt}*)({self.buffer_ptr(store.buffer)} + "
                      f"({_strip(self.expr(store_base))})) = {make}({', '.join(values)});")
        else:
            for k in range(lanes):
                idx = substitute(store.indices[0], {v: _op.add(s.min, E.IntImm(v.dtype, k))})
                self.emit(f"{self.buffer_ref(store.buffer, [idx])} = {values[k]};")
        self.indent -= 1
        self.emit("}")
        return True


class CodeGenCUDA(CodeGenC):
    """Prints device PrimFuncs as one CUDA translation unit."""

    def add_function(self, func: PrimFunc, name=None) -> None:
        symbol = str((func.attrs or {}).get("global_symbol", name))
        printer = _CudaPrinter(self, symbol, func)
        self._funcs.append(printer.print_function())

    def finish(self, extra_meta=None) -> str:
        body = [*self._decls.values(), *self._helpers.values(), *self._funcs]
        fp16 = any("_Float16" in part for part in body)
        return "\n".join([CUDA_PREAMBLE] + ([FP16_PREAMBLE] if fp16 else []) + body)


def generate_cuda(devices: List[Tuple[str, PrimFunc]]) -> str:
    """The CUDA C source of the device functions ``devices``."""
    cg = CodeGenCUDA()
    for name, f in devices:
        cg.add_function(f, name)
    return cg.finish()


def launch_dims(func: PrimFunc) -> dict:
    """``{"grid": (x, y, z), "block": (x, y, z)}`` of a device function (extent expressions)."""
    info = func.attrs["tvmlite.kernel"]
    grid = tuple(info.extent(t) for t in ("blockIdx.x", "blockIdx.y", "blockIdx.z"))
    return {"grid": grid, "block": tuple(info.extent(t) for t in LOCAL_TAGS)}


def use_driver_host() -> bool:
    """Whether ``tvm.build(..., "cuda")`` makes host code that launches kernels through the
    CUDA driver (config ``cuda.host``; by default where a GPU is present and the CPU emulation
    is not asked for)."""
    mode = str(PassContext.current().config.get("cuda.host", "auto"))
    if mode not in ("auto", "driver", "emulation"):
        raise TVMError(f"config cuda.host must be auto, driver or emulation, got {mode!r}")
    if mode == "auto":
        return cuda_available() and not gpu_emulation()
    return mode == "driver"


class _Launches(Mutator):
    """``launch_kernel(name, args...)`` → ``call_packed(LAUNCH_FUNC, key, name,
    grid x/y/z, block x/y/z, args...)``."""

    def __init__(self, key: str, dims: dict):
        self.key, self.dims = key, dims

    def visit_Call(self, e):
        if e.op != LAUNCH:
            return self.generic(e)
        name = e.args[0].value
        grid, block = self.dims[name]
        return E.Call("int32", "call_packed", (E.StringImm(LAUNCH_FUNC),
                                               E.StringImm(self.key), e.args[0], *grid,
                                               *block, *e.args[1:]))


def build_driver_module(lowered: IRModule, tgt: Target):
    """The host library of a CUDA build run by the driver API: its kernels compiled to PTX with
    NVRTC (for the target's ``-arch``) and embedded with their CUDA source, its launches
    calls into :mod:`tvmlite.runtime.cuda_module`."""
    hosts, devices = {}, []
    for name, func in lowered.functions.items():
        if isinstance(func, PrimFunc):
            host, devs = split_host_device(func)
            hosts[name] = host.with_attr("tvmlite.arg_device_type", 2)
            devices += devs
        else:
            hosts[name] = func
    source = generate_cuda(devices)
    arch = arch_of(tgt)
    ptx = compile_cuda(source, arch, "ptx").decode()
    cubin = compile_cuda(source, arch, "cubin")  # the same NVRTC run made it
    key = hashlib.sha256(ptx.encode()).hexdigest()[:24]
    dims, kernels = {}, {}
    for name, f in devices:
        d = launch_dims(f)
        dims[name] = (d["grid"], d["block"])
        kernels[name] = [("handle" if p.dtype == "handle" else p.dtype) for p in f.params]
    host_mod = IRModule({n: (f.with_body(_Launches(key, dims).visit(f.body))
                             if isinstance(f, PrimFunc) else f) for n, f in hosts.items()},
                        lowered.attrs)
    meta = {"cuda": {"key": key, "arch": arch, "ptx": ptx, "source": source,
                     "cubin": base64.b64encode(cubin).decode(), "kernels": kernels}}
    rt = build_c(host_mod, Target("llvm"), extra_meta=meta)
    attach_cuda(rt, meta["cuda"])
    return rt


__all__ = ["CodeGenCUDA", "generate_cuda", "launch_dims", "build_driver_module",
           "use_driver_host"]
