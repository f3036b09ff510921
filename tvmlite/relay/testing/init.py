"""Random parameters of a test network (``relay.testing.create_workload``)."""
from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Tuple

import numpy as np

from ...error import TVMError
from ...ir.module import IRModule
from ...runtime import ndarray as _nd
from ..expr import Function
from ..transform.infer_type import infer_type
from ..ty import TensorType


class Xavier:
    """Classic's initializer: Xavier-uniform weights (``magnitude`` 3, averaged fan), zero
    biases, betas and means, unit gammas and variances, chosen by the parameter's name."""

    def __init__(self, rnd_type: str = "uniform", factor_type: str = "avg",
                 magnitude: float = 3.0):
        if rnd_type not in ("uniform", "gaussian"):
            raise TVMError(f"Xavier: rnd_type must be 'uniform' or 'gaussian', got {rnd_type!r}")
        if factor_type not in ("avg", "in", "out"):
            raise TVMError(f"Xavier: unknown factor_type {factor_type!r}")
        self.rnd_type, self.factor_type, self.magnitude = rnd_type, factor_type, magnitude

    def __call__(self, name: str, arr: np.ndarray,
                 rng: Optional[np.random.Generator] = None) -> None:
        rng = rng if rng is not None else np.random.default_rng()
        if name.endswith(("gamma", "moving_var")):
            arr[...] = 1.0
        elif name.endswith(("bias", "beta", "moving_mean")) or arr.ndim < 2:
            arr[...] = 0.0
        else:
            self._weight(arr, rng)

    def _weight(self, arr: np.ndarray, rng: np.random.Generator) -> None:
        hw = int(np.prod(arr.shape[2:])) if arr.ndim > 2 else 1
        fan_in, fan_out = arr.shape[1] * hw, arr.shape[0] * hw
        factor = {"avg": (fan_in + fan_out) / 2.0, "in": fan_in, "out": fan_out}[
            self.factor_type]
        scale = np.sqrt(self.magnitude / factor)
        if self.rnd_type == "uniform":
            arr[...] = rng.uniform(-scale, scale, arr.shape)
        else:
            arr[...] = rng.normal(0, scale, arr.shape)


def create_workload(net, initializer: Optional[Callable] = None,
                    seed: int = 0) -> Tuple[IRModule, Dict[str, Any]]:
    """``(mod, params)`` of the function ``net`` (an expression: of its free variables):
    every parameter but ``data`` gets a random value from ``initializer`` (:class:`Xavier` by
    default)."""
    func = net["main"] if isinstance(net, IRModule) else IRModule.from_expr(net)["main"]
    if not isinstance(func, Function):
        raise TVMError(f"create_workload expects a relay Function or IRModule, got "
                       f"{type(net).__name__}")
    infer_type(func)
    initializer = initializer or Xavier()
    rng = np.random.default_rng(seed)
    params = {}
    for p in func.params:
        if p.name_hint == "data":
            continue
        t = p.checked_type
        if not isinstance(t, TensorType):
            raise TVMError(f"create_workload: parameter {p.name_hint} has a non-tensor type")
        arr = np.zeros(t.shape, dtype=t.dtype)
        if isinstance(initializer, Xavier):
            initializer(p.name_hint, arr, rng)
        else:  # classic's initializer(name, array), filling the array in place
            initializer(p.name_hint, arr)
        params[p.name_hint] = _nd.array(arr)
    return IRModule({"main": func}), params


class Constant:
    """Classic's constant initializer: every parameter filled with ``value``."""

    def __init__(self, value: float = 0.0):
        self.value = value

    def __call__(self, name: str, arr: np.ndarray) -> None:
        arr[...] = self.value
