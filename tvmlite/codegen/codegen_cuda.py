"""CUDA C: a dialect of the one C printer (:mod:`codegen_c`).

Device functions made by :mod:`~tvmlite.tir.transform.gpu_split_host_device` print as
``extern "C" __global__`` kernels: pointer parameters, thread indices as ``threadIdx.x``,
shared buffers as ``__shared__`` arrays at the top, local buffers as per-thread arrays and
barriers as ``__syncthreads()``. Everything else (expressions, loops, vectors) is the C
printer's.
"""
from __future__ import annotations

from typing import List, Tuple

from ..error import TVMError
from ..tir import expr as E
from ..tir import stmt as S
from ..tir.function import PrimFunc
from ..tir.transform.gpu_kernels import BARRIER, LOCAL_TAGS
from .codegen_c import CodeGenC, _FunctionPrinter, c_type

# the C printer spells float16 _Float16; CUDA spells it __half
CUDA_PREAMBLE = """#include <cuda_fp16.h>
#include <stdint.h>
#define TVML_UNUSED __device__ __attribute__((unused))
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
        return "\n".join([CUDA_PREAMBLE, *self._decls.values(), *self._helpers.values(),
                          *self._funcs])


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


__all__ = ["CodeGenCUDA", "generate_cuda", "launch_dims"]
