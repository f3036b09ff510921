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


def check_numerical_grads(function, input_values, grad_values, function_value=None,
                          delta: float = 1e-3, atol: float = 1e-2, rtol: float = 0.1) -> None:
    """Check ``grad_values`` against central differences of the scalar ``function``.

    ``input_values`` and ``grad_values`` are both lists (``function(*inputs)``) or both
    dicts (``function(**inputs)``) of numpy arrays (the gradients of the first inputs, or of
    the named ones); each element of those inputs is moved by ``delta`` both ways. As
    classic, the check fails (AssertionError) when the distance between the gradients
    exceeds ``atol * sqrt(n) + rtol * |numerical|``.
    """
    as_dict = isinstance(input_values, dict)
    keys = list(input_values) if as_dict else list(range(len(input_values)))
    values = {k: np.array(input_values[k], dtype="float64") for k in keys}

    def call(vals) -> float:
        args = {k: v.astype(np.asarray(input_values[k]).dtype) for k, v in vals.items()}
        out = function(**args) if as_dict else function(*[args[k] for k in keys])
        return float(np.sum(np.asarray(out, dtype="float64")))

    for k in (list(grad_values) if as_dict else range(len(grad_values))):
        grad = np.asarray(grad_values[k], dtype="float64")
        if grad.shape != values[k].shape:
            raise AssertionError(f"check_numerical_grads: the gradient of input {k!r} has "
                                 f"shape {grad.shape}, the input {values[k].shape}")
        numeric = np.zeros_like(values[k])
        flat, nflat = values[k].reshape(-1), numeric.reshape(-1)
        for i in range(flat.size):
            old = flat[i]
            flat[i] = old + delta
            up = call(values)
            flat[i] = old - delta
            down = call(values)
            flat[i] = old
            nflat[i] = (up - down) / (2 * delta)
        if not (np.isfinite(numeric).all() and np.isfinite(grad).all()):
            raise ValueError(f"check_numerical_grads: NaN or infinity in the gradients of "
                             f"input {k!r}")
        # classic's acceptance: the distance of the two gradients against the tolerances
        # scaled by the gradient's size and norm (float32 functions are noisy per element)
        dist = float(np.sqrt(np.sum((numeric - grad) ** 2)))
        bound = atol * np.sqrt(grad.size) + rtol * float(np.sqrt(np.sum(numeric ** 2)))
        if dist > bound:
            bad = np.abs(grad - numeric) > atol + rtol * np.abs(numeric)
            at = np.unravel_index(int(np.argmax(bad)), bad.shape)
            raise AssertionError(
                f"check_numerical_grads: analytical and numerical grads of input {k!r} differ: "
                f"distance {dist:.4g} > {bound:.4g} (atol*sqrt(n) + rtol*|numerical|); "
                f"{int(bad.sum())} of {bad.size} elements differ, first at "
                f"{tuple(int(j) for j in at)}: {grad[at]} vs {numeric[at]}")


def main() -> None:
    """Run the calling test file with pytest and the classic plugin (``if __name__ ==
    "__main__": tvm.testing.main()``)."""
    import pytest

    plugin = "tvm.testing.plugin" if "tvm" in sys.modules else "tvmlite.testing.plugin"
    sys.exit(pytest.main(["-p", plugin, sys.argv[0], *sys.argv[1:]]))


def __getattr__(name: str):
    return _missing(__name__, name)
