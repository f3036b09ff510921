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
from ..tir.function import PrimFunc
from .codegen_c import CodeGenC
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
    LANGUAGE = "OpenCL"
    BARRIER_TEXT = "barrier(CLK_LOCAL_MEM_FENCE);"

    def ptr_param(self, ctype: str, name: str) -> str:
        return f"__global {ctype}* restrict {name}"

    def thread_index(self, tag: str) -> str:
        kind, _, axis = tag.partition(".")
        return f"((int){_INDEX[kind]}({'xyz'.index(axis)}))"

    def shared_decl(self, ctype: str, name: str, count: int) -> str:
        return f"__local {ctype} {name}[{count}];"

    def head(self, args: str, info) -> str:
        return f"__kernel void {self.symbol}({args}) {{"

    def emit(self, line: str) -> None:
        if line.startswith("#pragma GCC") or line.startswith("#pragma unroll"):
            return  # loop hints: OpenCL compilers differ in their spelling
        super().emit(line)

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
        symbol = str((func.attrs or {}).get("global_symbol", name))
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
