"""OpenCL C: the CUDA dialect of the C printer respelled (``tvm.build(..., "opencl")``).

Kernels print as ``__kernel`` functions with ``__global`` pointer parameters, thread indices as
``get_group_id``/``get_local_id``, shared buffers as ``__local`` arrays and barriers as
``barrier(CLK_LOCAL_MEM_FENCE)``; math calls use OpenCL's overloaded names (``exp``, not
``expf``). tvmlite has no OpenCL runtime: the build gives the source (``imported_modules[0]``).
"""
from __future__ import annotations

from typing import List, Tuple

from ..error import TVMError
from ..ir import dtype as _dt
from ..tir import expr as E
from ..tir import stmt as S
from ..tir.function import PrimFunc
from ..tir.transform.gpu_kernels import BARRIER
from .codegen_c import CodeGenC, c_type
from .codegen_cuda import _CudaPrinter

OPENCL_PREAMBLE = """typedef char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long int64_t;
typedef uchar uint8_t;
typedef ushort uint16_t;
typedef uint uint32_t;
typedef ulong uint64_t;
"""
FP16_PREAMBLE = """#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#define _Float16 half
"""
_INDEX = {"blockIdx": "get_group_id", "threadIdx": "get_local_id"}


class _OpenCLPrinter(_CudaPrinter):
    def print_function(self) -> str:
        f = self.func
        info = f.attrs["tvmlite.kernel"]
        ptrs = f.attrs.get("tvmlite.ptr_types", {})
        args = []
        for p in f.params:
            n = self.bind_name(p)
            if p in ptrs:
                self.ptr_type[p] = ptrs[p]
                args.append(f"__global {c_type(ptrs[p])}* restrict {n}")
            else:
                args.append(f"{c_type(p.dtype)} {n}")
        for tag, v in info.vars.items():
            kind, _, axis = tag.partition(".")
            self.names[v] = f"((int){_INDEX[kind]}({'xyz'.index(axis)}))"
        for a in info.shared:
            count = 1
            for e in a.extents:
                count *= int(e.value)
            n = self.bind_name(a.buffer_var)
            self.ptr_type[a.buffer_var] = a.dtype
            self.emit(f"__local {c_type(a.dtype)} {n}[{count}];")
        self.stmt(f.body)
        return "\n".join([f"__kernel void {self.symbol}({', '.join(args)}) {{"] + self.lines
                         + ["}", ""])

    def emit(self, line: str) -> None:
        if line.startswith("#pragma GCC") or line.startswith("#pragma unroll"):
            return  # loop hints: OpenCL compilers differ in their spelling
        super().emit(line)

    def emit_fail(self, cond, fmt, *args) -> None:
        raise TVMError(f"{self.symbol}: a run-time check cannot be generated in OpenCL device "
                       f"code ({fmt})")

    def s_Evaluate(self, s: S.Evaluate) -> None:
        v = s.value
        if isinstance(v, E.Call) and v.op == BARRIER:
            self.emit("barrier(CLK_LOCAL_MEM_FENCE);")
            return
        super().s_Evaluate(s)

    def e_Call(self, e: E.Call) -> str:
        if e.op in ("likely", "tir.likely"):  # OpenCL C has no __builtin_expect
            return self.expr(e.args[0])
        return super().e_Call(e)

    def _math(self, name: str, dtype: str, args) -> str:
        if not _dt.is_float(dtype):
            raise TVMError(f"{self.symbol}: {name} expects a float argument, got {dtype}")
        sargs = ", ".join(self.expr(a) for a in args)
        return f"{name}({sargs})"


class CodeGenOpenCL(CodeGenC):
    """Prints device PrimFuncs as one OpenCL C program."""

    def add_function(self, func: PrimFunc, name=None) -> None:
        symbol = str(func.attrs.get("global_symbol", name))
        self._funcs.append(_OpenCLPrinter(self, symbol, func).print_function())

    def finish(self, extra_meta=None) -> str:
        body = [*self._decls.values(), *self._helpers.values(), *self._funcs]
        fp16 = any("_Float16" in part for part in body)
        return "\n".join([OPENCL_PREAMBLE] + ([FP16_PREAMBLE] if fp16 else []) + body)


def generate_opencl(devices: List[Tuple[str, PrimFunc]]) -> str:
    """The OpenCL C source of the device functions ``devices``."""
    cg = CodeGenOpenCL()
    for name, f in devices:
        cg.add_function(f, name)
    return cg.finish()


class OpenCLSourceModule:
    """``imported_modules[0]`` of an OpenCL build: the kernels' OpenCL C source."""

    type_key = "opencl"

    def __init__(self, source: str, kernels: List[str]):
        self._source = source
        self.kernels = list(kernels)
        self.imported_modules: list = []

    def get_source(self, fmt: str = "") -> str:
        if fmt not in ("", "cl", "opencl"):
            raise TVMError(f"OpenCL module: unknown source format {fmt!r} (use cl)")
        return self._source

    def __call__(self, *args):
        raise TVMError("tvmlite does not implement an OpenCL runtime (the OpenCL module holds "
                       "source only)")

    def __repr__(self) -> str:
        return f"Module(opencl, {id(self):x})"
