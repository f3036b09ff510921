"""Check a GPU function against a device's limits (classic ``tvm.tir.analysis.verify_gpu_code``).

Each kernel (an outermost loop bound to ``blockIdx``/``threadIdx``/``vthread``, or a kernel
marked by ``LowerGPUKernels``) is checked on its own: threads per block and per axis, the
product of its virtual-thread extents, the bytes of its ``shared`` and ``local`` allocations,
and the bytes of every vector access (a vector dtype, or a loop kept for the CUDA printer's
``float4`` accesses). It works at any point of the lowering: on loops still bound to virtual
threads (before ``InjectVirtualThread``, phase 1 of ``tir.add_lower_pass``), after injection
(which records the largest product in the function attribute :data:`VIRTUAL_THREAD_ATTR`),
and on kernels after ``LowerGPUKernels``. Memory is counted
from the allocations as they stand, so check it after buffers are compacted (phase 2).
"""
from __future__ import annotations

from typing import Dict, List, Mapping, Optional

from ...error import TVMError
from ...ir import dtype as _dt
from ..expr import BufferLoad, Cast, IntImm
from ..functor import Visitor
from ..stmt import BufferStore, ForKind

#: the AttrStmt key ``LowerGPUKernels`` puts around each kernel (node: its KernelInfo)
KERNEL_ATTR = "tvmlite.gpu_kernel"
THREAD_TAGS = ("blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x", "threadIdx.y",
               "threadIdx.z")
LOCAL_TAGS = THREAD_TAGS[3:]
VIRTUAL_THREADS = ("vthread", "vthread.x", "vthread.y", "vthread.z", "cthread")
#: function attribute: the largest product of nested vthread extents, set by their injection
VIRTUAL_THREAD_ATTR = "tvmlite.virtual_thread"
#: annotation of a vectorized loop kept for the CUDA printer (see ``gpu_vectorize``)
VECTOR_ATTR = "tvmlite.gpu_vectorized"

CONSTRAINTS = ("max_local_memory_per_block", "max_shared_memory_per_block",
               "max_threads_per_block", "max_thread_x", "max_thread_y", "max_thread_z",
               "max_vthread", "max_vector_bytes", "max_kernels")


def _int(value, key: str) -> int:
    if isinstance(value, IntImm):
        value = value.value
    if isinstance(value, bool) or not isinstance(value, int):
        raise TVMError(f"verify_gpu_code: constraint {key} must be an integer, got {value!r}")
    return value


def _const(e) -> Optional[int]:
    return e.value if isinstance(e, IntImm) else None


class _Kernel:
    def __init__(self, name: str):
        self.name = name
        self.threads: Dict[str, int] = {}
        self.vthread = 1
        self.shared = 0
        self.local = 0


class _Verifier(Visitor):
    def __init__(self, limits: Dict[str, int]):
        self.limits = limits
        self.errors: List[str] = []
        self.kernel: Optional[_Kernel] = None
        self.kernels = 0
        self.vthreads = 1  # product of the virtual-thread extents around the statement
        self.fname = ""

    # ------------------------------------------------------------------ helpers
    def _err(self, msg: str) -> None:
        self.errors.append(f"{self.kernel.name}: {msg}" if self.kernel else msg)

    def _limit(self, key: str, used: int, what: str) -> None:
        m = self.limits.get(key)
        if m is not None and used > m:
            self._err(f"{what} ({used}) is greater than the allowed maximum ({m}) [{key}]")

    def _kernel(self, visit_body, extents=None, shared=()):
        """Visit one kernel, then check its totals."""
        if self.kernel is not None:
            visit_body()
            return
        self.kernels += 1
        k = self.kernel = _Kernel(f"{self.fname}: kernel {self.kernels - 1}")
        for tag, e in (extents or {}).items():
            if tag in LOCAL_TAGS:
                self._thread(tag, e)
        for a in shared:
            self._alloc(a)
        try:
            visit_body()
        finally:
            self.kernel = None
        n = 1
        for v in k.threads.values():
            n *= v
        self.kernel = k
        self._limit("max_threads_per_block", n, "threads per block")
        self._limit("max_vthread", k.vthread, "virtual threads (product of the vthread extents)")
        self._limit("max_shared_memory_per_block", k.shared, "bytes of shared memory per block")
        self._limit("max_local_memory_per_block", k.local, "bytes of local memory per thread")
        self._limit("max_kernels", self.kernels, "kernels launched")
        self.kernel = None

    def _thread(self, tag: str, extent) -> None:
        n = _const(extent)
        if n is None:
            self._err(f"the extent of {tag} is not a constant ({extent})")
            return
        # loops bound to one tag share the hardware index: the launch extent is the largest
        self.kernel.threads[tag] = max(n, self.kernel.threads.get(tag, 1))
        self._limit("max_thread_" + tag[-1], n, f"extent of {tag}")

    def _alloc(self, a) -> None:
        count = 1
        for e in a.extents:
            c = _const(e)
            if c is None:
                self._err(f"{a.scope} buffer {a.buffer_var.name} has a symbolic size ({e})")
                return
            count *= c
        size = count * _dt.nbytes(a.dtype)
        if a.scope == "shared":
            self.kernel.shared += size
        elif a.scope == "local":
            self.kernel.local += size
        self._vector(a.dtype, f"allocation {a.buffer_var.name}")

    def _vector(self, dtype: str, what: str, lanes: Optional[int] = None) -> None:
        lanes = _dt.lanes(dtype) if lanes is None else lanes * _dt.lanes(dtype)
        if lanes > 1:
            nbytes = lanes * (max(_dt.bits(dtype), 8) // 8)
            m = self.limits.get("max_vector_bytes")
            if m is not None and nbytes > m:
                self._err(f"{what}: {lanes} lanes of {_dt.element(dtype)} are {nbytes} bytes, "
                          f"greater than the maximum number of vector bytes ({m})")

    # ------------------------------------------------------------------ visitors
    def visit_AttrStmt(self, s):
        if s.attr_key != KERNEL_ATTR:
            return self.generic(s)
        info = s.node
        self._kernel(lambda: self.visit(s.body), dict(info.extents), list(info.shared))
        return None

    def visit_For(self, s):
        tb = s.thread_binding
        tag = tb.thread_tag if s.kind == ForKind.THREAD_BINDING and tb is not None else None
        ann = s.annotations or {}
        if tag in THREAD_TAGS or tag in VIRTUAL_THREADS:
            self._kernel(lambda: self._bound(s, tag))
            return None
        if self.kernel is not None and (s.kind == ForKind.VECTORIZED or VECTOR_ATTR in ann):
            n = _const(s.extent)
            if n is not None:
                self._vector_loop(s, n)
        return self.generic(s)

    def _bound(self, s, tag: str) -> None:
        if tag in VIRTUAL_THREADS:
            n = _const(s.extent)
            if n is None:
                self._err(f"virtual thread {s.loop_var.name} ({tag}) has a symbolic extent")
                n = 1
            self._virtual(s, n)
            return
        if tag in LOCAL_TAGS:
            self._thread(tag, s.extent)
        self.generic(s)

    def _virtual(self, s, n: int) -> None:
        outer = self.vthreads
        self.vthreads = outer * n
        if self.kernel is not None:
            self.kernel.vthread = max(self.kernel.vthread, self.vthreads)
        try:
            self.generic(s)
        finally:
            self.vthreads = outer

    def _vector_loop(self, s, lanes: int) -> None:
        v = self

        class _Access(Visitor):
            def visit_BufferLoad(self, e):
                v._vector(e.buffer.dtype, f"vectorized loop {s.loop_var.name} loads "
                          f"{e.buffer.name}", lanes)
                self.generic(e)

            def visit_BufferStore(self, st):
                v._vector(st.buffer.dtype, f"vectorized loop {s.loop_var.name} stores "
                          f"{st.buffer.name}", lanes)
                self.generic(st)

        _Access().visit(s.body)

    def visit_Allocate(self, a):
        if self.kernel is not None:
            self._alloc(a)
        return self.generic(a)

    def visit_BufferLoad(self, e: BufferLoad):
        if self.kernel is not None:
            self._vector(e.dtype, f"load of {e.buffer.name}")
        return self.generic(e)

    def visit_BufferStore(self, s: BufferStore):
        if self.kernel is not None:
            self._vector(s.value.dtype, f"store to {s.buffer.name}")
        return self.generic(s)

    def visit_Cast(self, e: Cast):
        if self.kernel is not None:
            self._vector(e.dtype, "cast")
        return self.generic(e)


def gpu_code_errors(func, constraints: Mapping[str, object]) -> List[str]:
    """The violations of ``constraints`` in ``func`` (see :func:`verify_gpu_code`), each
    naming the kernel, the quantity and the limit; empty when ``func`` is within them."""
    limits = {}
    for key, value in dict(constraints).items():
        if key not in CONSTRAINTS:
            raise TVMError(f"verify_gpu_code: unknown constraint {key!r} (known: "
                           f"{', '.join(CONSTRAINTS)})")
        limits[key] = _int(value, key)
    v = _Verifier(limits)
    v.fname = str((func.attrs or {}).get("global_symbol", "main"))
    v.visit(func.body)
    injected = (func.attrs or {}).get(VIRTUAL_THREAD_ATTR)
    if injected is not None:
        v._limit("max_vthread", _int(injected, VIRTUAL_THREAD_ATTR),
                 f"{v.fname}: virtual threads (product of the vthread extents)")
    return v.errors


def verify_gpu_code(func, constraints: Mapping[str, object]) -> bool:
    """Whether the GPU code of ``func`` stays within ``constraints``.

    Parameters
    ----------
    func : tir.PrimFunc
        A function with loops bound to GPU threads, at any point of the lowering.
    constraints : dict of str to int
        Any of ``max_local_memory_per_block``, ``max_shared_memory_per_block``,
        ``max_threads_per_block``, ``max_thread_x/y/z``, ``max_vthread`` (the product of the
        virtual-thread extents around a statement), ``max_vector_bytes``, ``max_kernels``.

    Returns
    -------
    bool
        True when no kernel exceeds a limit (:func:`gpu_code_errors` says which does).
    """
    return not gpu_code_errors(func, constraints)


__all__ = ["verify_gpu_code", "gpu_code_errors", "CONSTRAINTS", "KERNEL_ATTR", "THREAD_TAGS",
           "VIRTUAL_THREADS", "VIRTUAL_THREAD_ATTR", "VECTOR_ATTR"]
