"""Split a function with GPU kernels into a host function and device functions.

Each kernel (marked by :mod:`gpu_kernels`) becomes a device ``PrimFunc`` whose parameters are
the kernel's free variables (buffer data pointers first, then scalars) and whose attributes
carry its launch extents; in the host function it is replaced by a launch::

    T.evaluate(T.call("tvmlite.launch_kernel", "f_kernel0", A.data, B.data, C.data, n))
"""
from __future__ import annotations

from typing import Dict, List, Tuple

from ..expr import Call, StringImm
from ..function import PrimFunc
from ..functor import Mutator, Visitor
from ..stmt import Evaluate
from .gpu_kernels import KERNEL_ATTR

LAUNCH = "tvmlite.launch_kernel"


class _Free(Visitor):
    """Free variables of a statement, and the element type of each buffer data variable."""

    def __init__(self):
        self.defined = set()
        self.order: List = []
        self.ptr: Dict = {}

    def _use(self, v):
        if v not in self.defined and all(v is not x for x in self.order):
            self.order.append(v)

    def visit_Var(self, v):
        self._use(v)

    visit_SizeVar = visit_Var

    def visit_For(self, s):
        self.defined.add(s.loop_var)
        self.generic(s)

    def visit_LetStmt(self, s):
        self.visit(s.value)
        self.defined.add(s.var)
        self.visit(s.body)

    def visit_Allocate(self, s):
        self.defined.add(s.buffer_var)
        self.generic(s)

    def visit_BufferLoad(self, e):
        self.ptr.setdefault(e.buffer.data, e.buffer.dtype)
        self._use(e.buffer.data)
        self.generic(e)

    def visit_BufferStore(self, s):
        self.ptr.setdefault(s.buffer.data, s.buffer.dtype)
        self._use(s.buffer.data)
        self.generic(s)


class _Split(Mutator):
    def __init__(self):
        self.devices: List[Tuple[str, PrimFunc]] = []

    def visit_AttrStmt(self, s):
        if s.attr_key != KERNEL_ATTR:
            return self.generic(s)
        info = s.node
        free = _Free()
        free.defined |= set(info.vars.values()) | {a.buffer_var for a in info.shared}
        free.visit(s.body)
        ptrs = [v for v in free.order if v in free.ptr]
        scalars = [v for v in free.order if v not in free.ptr]
        params = tuple(ptrs + scalars)
        dev = PrimFunc(params, s.body, attrs={
            "global_symbol": info.name, "calling_conv": 2, "tvmlite.kernel": info,
            "tvmlite.ptr_types": {v: free.ptr[v] for v in ptrs}, "tir.noalias": True})
        self.devices.append((info.name, dev))
        return Evaluate(Call("int32", LAUNCH, (StringImm(info.name),) + params))


def split_host_device(func: PrimFunc) -> Tuple[PrimFunc, List[Tuple[str, PrimFunc]]]:
    """The host function (kernels replaced by launches) and the device functions."""
    sp = _Split()
    body = sp.visit(func.body)
    return func.with_body(body), sp.devices
