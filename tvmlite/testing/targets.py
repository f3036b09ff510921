"""Which targets tests run on: ``TVM_TEST_TARGETS``, :func:`enabled_targets`,
:func:`device_enabled`, :func:`parametrize_targets`."""
from __future__ import annotations

import os
from typing import List, Tuple

import pytest

from ..runtime import device, enabled

# What classic TVM tries when TVM_TEST_TARGETS is not set; the ones not usable here drop out.
DEFAULT_TEST_TARGETS = ["llvm", "cuda"]


def _kind(target) -> str:
    text = str(target).strip()
    return text.split()[0] if text else ""


def _requested_targets() -> List[str]:
    env = os.environ.get("TVM_TEST_TARGETS", "")
    names = [t.strip() for t in env.split(";") if t.strip()]
    return names or list(DEFAULT_TEST_TARGETS)


def _usable(target: str) -> bool:
    return enabled(_kind(target))


def device_enabled(target) -> bool:
    """Whether tests should run on ``target``: its kind is requested (``TVM_TEST_TARGETS``,
    default llvm and cuda) and usable on this machine."""
    kind = _kind(target)
    return _usable(kind) and any(_kind(t) == kind for t in _requested_targets())


def enabled_targets() -> List[Tuple[str, object]]:
    """``[(target, device), ...]`` for every requested target usable here (llvm at least)."""
    targets = [t for t in _requested_targets() if _usable(t)]
    return [(t, device(_kind(t))) for t in targets]


def parametrize_targets(*args):
    """Run the decorated test once per target (``target``/``dev`` arguments).

    ``@parametrize_targets`` uses every enabled target; ``@parametrize_targets("llvm", ...)``
    the ones named (those not enabled here are skipped by the plugin).
    """
    if len(args) == 1 and callable(args[0]):
        return parametrize_targets()(args[0])
    names = list(args) or [t for t, _ in enabled_targets()]
    return pytest.mark.parametrize("target", names, scope="session")


def exclude_targets(*args):
    """Leave the named targets out of a test's target parametrization."""
    def wraps(func):
        func.tvm_excluded_targets = list(args)
        return func

    return wraps


def known_failing_targets(*args):
    """Mark the named targets as expected failures of the decorated test."""
    def wraps(func):
        func.tvm_known_failing_targets = list(args)
        return func

    return wraps
