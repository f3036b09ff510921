"""Test helpers (``tvm.testing``): ``assert_allclose``, feature marks (``requires_llvm``,
``uses_gpu`` …), targets (``enabled_targets``, ``parametrize_targets``), module-level
``parameter``/``parameters``/``fixture``, :func:`main`, and the pytest plugin
(``tvm.testing.plugin``)."""
from __future__ import annotations

import sys

import numpy as np

from .._classic import missing as _missing
from ..arith import Analyzer
from ..tir import IntImm
from .compare import CompareBeforeAfter  # noqa: F401
from .features import *  # noqa: F403 -- requires_<feature> names
from .features import Feature, requires_package, skip_if_32bit, skip_if_wheel_test, slow
from .params import fixture, parameter, parameters
from .targets import (
    device_enabled,
    enabled_targets,
    exclude_targets,
    known_failing_targets,
    parametrize_targets,
)


def _np(x):
    return x.numpy() if hasattr(x, "numpy") and not isinstance(x, np.ndarray) else np.asarray(x)


def assert_allclose(actual, desired, rtol: float = 1e-7, atol: float = 1e-7) -> None:
    """``numpy.testing.assert_allclose`` that also accepts NDArrays; shapes must match."""
    a, d = _np(actual), _np(desired)
    np.testing.assert_allclose(a, d, rtol=rtol, atol=atol, verbose=True)
    if a.shape != d.shape:
        raise AssertionError(f"shapes differ: {a.shape} vs {d.shape}")


def assert_prim_expr_equal(lhs, rhs) -> None:
    """Assert two integer expressions are equal after simplification."""
    diff = Analyzer().simplify(lhs - rhs)
    if not (isinstance(diff, IntImm) and diff.value == 0):
        raise AssertionError(f"{lhs} != {rhs} (difference simplifies to {diff})")


def main() -> None:
    """Run the calling test file with pytest and the classic plugin (``if __name__ ==
    "__main__": tvm.testing.main()``)."""
    import pytest

    plugin = "tvm.testing.plugin" if "tvm" in sys.modules else "tvmlite.testing.plugin"
    sys.exit(pytest.main(["-p", plugin, sys.argv[0], *sys.argv[1:]]))


def __getattr__(name: str):
    return _missing(__name__, name)
