"""Deeply nested IR (an expression 10,000 operators deep) through recursive visitors.

The visitors, the simplifier, the printer and the code generator recurse once or a few times
per nesting level, so Python's default limit (1,000 frames, on an 8 MiB stack) is reached near
300 levels. Rewriting every visitor with explicit stacks would make them much harder to read;
instead an entry point decorated with :func:`deep` that hits the limit runs again in a thread
with a big stack (``STACK_BYTES``) and a raised limit (``RECURSION_LIMIT``). The normal path
is unchanged: no thread unless the recursion limit was reached. Where even that is not enough,
the error is a :class:`~tvmlite.error.TVMError` naming the limit.
"""
from __future__ import annotations

import functools
import sys
import threading
from typing import Any, Callable, List, TypeVar

from .error import TVMError

STACK_BYTES = 1 << 30          # reserved, not committed: pages are touched only when used
RECURSION_LIMIT = 400_000      # ~20 frames per nesting level: 20,000 levels

_F = TypeVar("_F", bound=Callable[..., Any])
_state = threading.local()
_lock = threading.Lock()
_active = 0
_saved_limit = 0


_CONTEXTS: List[threading.local] = []


def register_thread_local(local: threading.local) -> threading.local:
    """Register a thread-local context (the current PassContext, Target, ...) that a deep
    worker thread must see as its caller does; the owning module registers it at import, so
    this leaf module needs to import none of them."""
    _CONTEXTS.append(local)
    return local


def _enter() -> None:
    global _active, _saved_limit
    with _lock:
        if _active == 0:
            _saved_limit = sys.getrecursionlimit()
            sys.setrecursionlimit(max(_saved_limit, RECURSION_LIMIT))
        _active += 1


def _leave() -> None:
    global _active
    with _lock:
        _active -= 1
        if _active == 0:
            sys.setrecursionlimit(_saved_limit)


def run_deep(fn: Callable, *args, **kwargs):
    """Call ``fn(*args, **kwargs)`` in a thread with a big stack and a raised recursion limit
    (contexts such as the current PassContext and Target carried over), and return its result
    or raise its error."""
    locals_ = list(_CONTEXTS)
    snapshot = [dict(vars(loc)) for loc in locals_]
    out: dict = {}

    def work():
        for loc, snap in zip(locals_, snapshot):
            vars(loc).update(snap)
        _state.inside = True
        try:
            out["value"] = fn(*args, **kwargs)
        except BaseException as e:  # noqa: BLE001  (re-raised in the caller)
            out["error"] = e

    _enter()
    old = threading.stack_size()
    try:
        threading.stack_size(STACK_BYTES)
        t = threading.Thread(target=work, name="tvmlite-deep")
        t.start()
    finally:
        threading.stack_size(old)
    try:
        t.join()
    finally:
        _leave()
    if "error" in out:
        e = out["error"]
        if isinstance(e, RecursionError):
            raise TVMError(f"{getattr(fn, '__qualname__', fn)}: the IR is nested too deeply even "
                           f"for {RECURSION_LIMIT} Python frames on a "
                           f"{STACK_BYTES >> 20} MiB stack (tvmlite.deep_recursion."
                           "RECURSION_LIMIT)") from None
        raise e
    return out["value"]


def deep(fn: _F) -> _F:
    """Decorate an entry point: on a RecursionError it runs again with :func:`run_deep`.

    The entry point must be safe to run twice (it builds new objects and does not change its
    arguments)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if getattr(_state, "inside", False):
            return fn(*args, **kwargs)
        try:
            return fn(*args, **kwargs)
        except RecursionError:
            pass
        return run_deep(fn, *args, **kwargs)

    return wrapper  # type: ignore[return-value]
