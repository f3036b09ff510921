"""Give flat buffers one copy per thread: the re-indexing that virtual-thread injection and the
GPU lowering (warp buffers per thread group, local buffers in CPU emulation) share.

Element ``i`` of copy ``t`` of a buffer whose copies hold ``size`` elements is
``i + t * size``. Before (``C_local`` replicated with ``size = 4`` and copy ``vx``)::

    C_local[i] = C_local[i] + A[k, vx * 4 + i]

After::

    C_local[i + vx * 4] = C_local[i + vx * 4] + A[k, vx * 4 + i]

The caller allocates the longer buffer (``size`` times the number of copies).
"""
from __future__ import annotations

from typing import Dict

from ...error import TVMError
from .. import op as _op
from ..buffer import Buffer
from ..expr import BufferLoad, PrimExpr, Var
from ..functor import Mutator
from ..stmt import BufferStore


class ReplicateBuffers(Mutator):
    """Re-index the accesses of the flat buffers ``sizes`` (data var → elements per copy) to
    copy ``copy``; ``what`` names the pass in errors (a buffer that is not flat, or one passed
    by address to a call, which cannot be re-indexed)."""

    def __init__(self, sizes: Dict[Var, PrimExpr], copy: PrimExpr, what: str):
        self.sizes, self.copy, self.what = sizes, copy, what

    def _index(self, buf: Buffer, indices) -> tuple:
        if len(indices) != 1:
            raise TVMError(f"{self.what}: buffer {buf.name!r} is not flat")
        return (_op.add(indices[0], _op.mul(self.copy, self.sizes[buf.data])),)

    def visit_BufferLoad(self, e):
        new = self.generic(e)
        if e.buffer.data not in self.sizes:
            return new
        return BufferLoad(new.buffer, self._index(new.buffer, new.indices))

    def visit_BufferStore(self, s):
        new = self.generic(s)
        if s.buffer.data not in self.sizes:
            return new
        return BufferStore(new.buffer, new.value, self._index(new.buffer, new.indices))

    def visit_Call(self, e):
        for a in e.args:
            data = a.data if isinstance(a, Buffer) else a
            if isinstance(data, Var) and data in self.sizes:
                raise TVMError(
                    f"{self.what}: buffer {data.name!r}, replicated per thread, is passed by "
                    f"address to {e.op!r}, which cannot be re-indexed")
        return self.generic(e)
