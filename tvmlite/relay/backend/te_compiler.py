"""Classic ``tvm.relay.backend.te_compiler``: the compiler of relay primitive functions and
its cache. ``relay.build`` lowers each fused function afresh (its kernels go through the
driver's content-keyed disk cache), so there is no in-process cache to clear."""
from __future__ import annotations


class TECompiler:
    """The TE compiler (``te_compiler.get()``)."""

    def clear(self) -> None:
        """Drop the cached lowered functions: nothing is cached in-process here."""


_COMPILER = TECompiler()


def get() -> TECompiler:
    """The process's TE compiler."""
    return _COMPILER
