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

from ..error import TVMError
from ..ir.module import IRModule
from ..ir.transform import PassContext, register_pass_config
from ..runtime.cuda_compile import arch_of, compile_cuda
from ..runtime.cuda_module import LAUNCH_FUNC, attach_cuda
from ..runtime.device import cuda_available, gpu_emulation
from ..target import Target
from ..tir import expr as E
from ..tir import stmt as S
from ..tir.function import PrimFunc
from ..tir.functor import Mutator
from ..tir.transform.gpu_kernels import BARRIER, LOCAL_TAGS
from ..tir.transform.gpu_split_host_device import LAUNCH, split_host_device
from .build_c import build as build_c
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


class _CudaPrinter(_FunctionPrinter):
    def print_function(self) -> str:
        f = self.func
        info = f.attrs["tvmlite.kernel"]
        ptrs = f.attrs.get("tvmlite.ptr_types", {})
        args = []
        for p in f.params:
            n = self.bind_name(p)
            if p in ptrs:
                self.ptr_type[p] = ptrs[p]
                args.append(f"{c_type(ptrs[p])}* __restrict__ {n}")
            else:
                args.append(f"{c_type(p.dtype)} {n}")
        for tag, v in info.vars.items():
            self.names[v] = f"((int){tag})"
        for a in info.shared:
            count = 1
            for e in a.extents:
                count *= int(e.value)
            n = self.bind_name(a.buffer_var)
            self.ptr_type[a.buffer_var] = a.dtype
            self.emit(f"__shared__ {c_type(a.dtype)} {n}[{count}];")
        self.stmt(f.body)
        nthreads = info.threads()
        head = (f'extern "C" __global__ void __launch_bounds__({nthreads}) '
                f"{self.symbol}({', '.join(args)}) {{")
        return "\n".join([head] + self.lines + ["}", ""])

    def emit(self, line: str) -> None:
        # loop hints in nvcc's spelling
        if line.startswith("#pragma GCC unroll"):
            line = line.replace("#pragma GCC unroll", "#pragma unroll", 1)
        elif line == "#pragma GCC ivdep":
            return
        super().emit(line)

    def emit_fail(self, cond, fmt, *args) -> None:
        raise TVMError(f"{self.symbol}: a run-time check cannot be generated in CUDA device "
                       f"code ({fmt})")

    def s_Evaluate(self, s: S.Evaluate) -> None:
        v = s.value
        if isinstance(v, E.Call) and v.op == BARRIER:
            self.emit("__syncthreads();")
            return
        super().s_Evaluate(s)

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
        self.emit(f"{c_type(s.dtype)} {name}[{max(count, 1)}];")
        self.stmt(s.body)
        self.indent -= 1
        self.emit("}")

    def s_For(self, s: S.For) -> None:
        if S.ForKind(s.kind) == S.ForKind.PARALLEL:
            raise TVMError(f"{self.symbol}: loop {s.loop_var.name} is marked parallel inside a "
                           "GPU kernel; bind it to a thread axis instead")
        super().s_For(s)


class CodeGenCUDA(CodeGenC):
    """Prints device PrimFuncs as one CUDA translation unit."""

    def add_function(self, func: PrimFunc, name=None) -> None:
        symbol = str(func.attrs.get("global_symbol", name))
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
