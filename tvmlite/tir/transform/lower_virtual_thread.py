"""Run virtual threads (``vthread``, VTA's ``cthread``) as ordinary serial loops.

A virtual thread only asks for its iterations to be interleaved; running them one after the
other is a correct schedule on every target (no barrier may separate them). Before::

    for vx in T.thread_binding(2, thread="vthread"):
        C[vx * 4 + i] = ...

After::

    for vx in range(2):
        C[vx * 4 + i] = ...
"""
from __future__ import annotations

from ..functor import Mutator
from ..stmt import For, ForKind

VIRTUAL_THREADS = ("vthread", "vthread.x", "vthread.y", "vthread.z", "cthread")


class _Lower(Mutator):
    def visit_For(self, s):
        new = self.generic(s)
        tb = s.thread_binding
        if s.kind == ForKind.THREAD_BINDING and tb is not None \
                and tb.thread_tag in VIRTUAL_THREADS:
            return For(new.loop_var, new.min, new.extent, ForKind.SERIAL, new.body, None,
                       new.annotations)
        return new


def lower_virtual_thread(body, func=None):
    """Turn virtual-thread loops into serial loops (see the module docstring)."""
    return _Lower().visit(body)
