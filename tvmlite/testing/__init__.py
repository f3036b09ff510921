"""Test helpers (``tvm.testing``)."""
from __future__ import annotations

import numpy as np


def _np(x):
    return x.numpy() if hasattr(x, "numpy") and not isinstance(x, np.ndarray) else np.asarray(x)


def assert_allclose(actual, desired, rtol: float = 1e-7, atol: float = 1e-7) -> None:
    """``numpy.testing.assert_allclose`` that also accepts NDArrays; shapes must match."""
    a, d = _np(actual), _np(desired)
    np.testing.assert_allclose(a, d, rtol=rtol, atol=atol, verbose=True)
    if a.shape != d.shape:
        raise AssertionError(f"shapes differ: {a.shape} vs {d.shape}")
