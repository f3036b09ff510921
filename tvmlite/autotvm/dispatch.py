"""Dispatch contexts: which config a template gets when it is called.

``DispatchContext.current`` is the innermost context; each asks its parent when it has no
answer, down to the root :class:`FallbackContext`, which hands out default configs and warns
once per workload that no tuned record was found.
"""
from __future__ import annotations

import logging
from typing import Any, Dict, List, Optional, Tuple

from ..target import Target
from .space import ConfigSpace, FallbackConfigEntity

logger = logging.getLogger("autotvm")


def _target_keys(target) -> Tuple[str, ...]:
    if target is None:
        return ()
    keys = getattr(target, "keys", None)
    if keys is None:
        keys = Target(str(target)).keys
    return tuple(keys)


class DispatchContext:
    """Base of the dispatch contexts; use one as a ``with`` block."""

    current: "DispatchContext" = None  # set to the FallbackContext below

    def __init__(self):
        self._old_ctx = DispatchContext.current

    def query(self, target, workload):
        """The config for ``workload`` on ``target`` (asks the parent context when this one
        has none)."""
        ret = self._query_inside(target, workload)
        if ret is None:
            ret = self._old_ctx.query(target, workload)
        return ret

    def update(self, target, workload, cfg) -> None:
        raise NotImplementedError

    def records(self, target, workload) -> List[Tuple[Any, Any]]:
        """Every valid ``(MeasureInput, MeasureResult)`` this context (or, when it has none,
        a parent) holds for ``workload``, fastest first: the alternatives to the best config
        that a pass choosing among them (AlterOpLayout's blocks) weighs. Empty where the
        context decides alone (a config set by ``update``, one applied to everything)."""
        ret = self._records_inside(target, workload)
        if ret is None:
            ret = self._old_ctx.records(target, workload)
        return ret

    def _query_inside(self, target, workload):
        raise NotImplementedError

    def _records_inside(self, target, workload) -> Optional[List[Tuple[Any, Any]]]:
        """This context's records of ``workload`` (None: ask the parent)."""
        return []

    def __enter__(self):
        self._old_ctx = DispatchContext.current
        DispatchContext.current = self
        return self

    def __exit__(self, *exc) -> None:
        DispatchContext.current = self._old_ctx


class ApplyConfig(DispatchContext):
    """Give every template the same config (used to instantiate one point of a space)."""

    def __init__(self, config: ConfigSpace):
        super().__init__()
        self._config = config
        self.workload = None

    def _query_inside(self, target, workload):
        if workload is not None:
            self.workload = workload
        return self._config

    def update(self, target, workload, cfg) -> None:
        self._config = cfg


class FallbackContext(DispatchContext):
    """The root context: a default config per workload, with a one-time warning."""

    def __init__(self):
        super().__init__()
        self.memory: Dict[Tuple[str, Any], FallbackConfigEntity] = {}
        self.silent = False

    def query(self, target, workload):
        return self._query_inside(target, workload)

    def records(self, target, workload) -> List[Tuple[Any, Any]]:
        return []

    def _query_inside(self, target, workload):
        if workload is None:
            return FallbackConfigEntity()
        key = (str(target), workload)
        if key in self.memory:
            return self.memory[key]
        if not self.silent:
            logger.warning("Cannot find config for target=%s, workload=%s. A fallback "
                           "configuration is used, which may bring great performance "
                           "regression.", target, workload)
        cfg = self.memory[key] = FallbackConfigEntity()
        return cfg

    def clear_cache(self, target, workload) -> None:
        self.memory.pop((str(target), workload), None)

    def update(self, target, workload, cfg) -> None:
        self.memory[(str(target), workload)] = cfg


DispatchContext.current = FallbackContext()
