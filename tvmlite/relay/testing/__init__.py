"""Networks with random weights (``relay.testing``), as classic TVM ships them, so the tuning
tutorials run without downloads: ``resnet``, ``mobilenet``, ``mlp``, ``dcgan``, each with
``get_workload(batch_size=..., dtype=...) -> (mod, params)``; and classic's test helpers
(``run_opt_pass``, ``run_infer_type``, ``TempOpAttr``)."""
from __future__ import annotations

import numpy as np

from ..._classic import unsupported
from ...ir.module import IRModule
from ...ir.transform import Pass
from ...runtime import ndarray as _nd
from ..expr import Expr, Function
from ..transform import InferType
from . import (
    dcgan,
    densenet,
    dqn,
    inception_v3,
    layers,
    lstm,
    mlp,
    mobilenet,
    resnet,
    squeezenet,
    synthetic,
    temp_op_attr,
)
from .init import Constant, Xavier, create_workload


def run_opt_pass(expr: Expr, opt_pass: Pass, import_prelude: bool = False) -> Expr:
    """``expr`` typed and transformed by ``opt_pass``: a function if ``expr`` is one, else
    the body of the function the module wraps it in."""
    if not isinstance(opt_pass, Pass):
        raise TypeError(f"run_opt_pass: expected a tvm.transform.Pass, got {opt_pass!r}")
    mod = IRModule.from_expr(expr)
    if import_prelude:
        from ..prelude import Prelude
        Prelude(mod)
    mod = InferType()(mod)
    mod = opt_pass(mod)
    entry = mod["main"]
    return entry if isinstance(expr, Function) else entry.body


def run_infer_type(expr: Expr) -> Expr:
    """``expr`` with its types inferred (:func:`run_opt_pass` with ``InferType``)."""
    return run_opt_pass(expr, InferType())


def check_grad(func, inputs=None, test_inputs=None, eps=1e-6, atol=1e-5, rtol=1e-3, scale=None,
               mean=0, mode="higher_order", target_devices=None, executor_kind="debug"):
    """Check ``relay.transform.gradient`` of ``func`` against two-sided finite differences
    of the sum of its output, on random inputs (``scale`` times a standard normal plus
    ``mean``) or ``inputs``; only the gradients of ``test_inputs`` (default: all) are
    compared, within ``atol`` / ``rtol``, on each of ``target_devices``."""
    from ...testing import enabled_targets
    from ..executor import create_executor
    from ..transform import gradient
    fwd_func = run_infer_type(func)
    bwd_func = run_infer_type(gradient(fwd_func, mode=mode))
    if scale is None:
        scale = 10 * eps
    if inputs is None:
        inputs = [(np.random.normal(size=[int(d) for d in p.checked_type.shape]) * scale
                   + mean).astype(p.checked_type.dtype) for p in fwd_func.params]
    if test_inputs is None:
        test_inputs = inputs
    for target, dev in target_devices or enabled_targets():
        bwd = create_executor(executor_kind, device=dev, target=target).evaluate(bwd_func)
        fwd = create_executor(executor_kind, device=dev, target=target).evaluate(fwd_func)
        _, grads = bwd(*inputs)
        grads = [g.numpy().astype("float64") for g in grads]
        if test_inputs is not inputs:
            grads = [g for g, x in zip(grads, inputs)
                     if any(x is t for t in test_inputs)]
        for x, grad in zip(test_inputs, grads):
            approx = np.zeros(x.shape)
            for i in np.ndindex(*x.shape):
                keep = x[i]
                x[i] = keep + eps
                plus = fwd(*inputs).numpy().astype("float64")
                x[i] = keep - eps
                minus = fwd(*inputs).numpy().astype("float64")
                x[i] = keep
                approx[i] = np.sum((plus - minus) / (2 * eps))
            np.testing.assert_allclose(grad, approx, atol=atol, rtol=rtol)


def rand(dtype: str, *shape: int):
    """An NDArray of uniform random numbers in [0, 1)."""
    return _nd.array(np.random.rand(*shape).astype(dtype))


def enabled_targets():
    """Classic ``relay.testing.enabled_targets`` (``tvm.testing.enabled_targets``)."""
    from ...testing import enabled_targets as _enabled
    return _enabled()


def count(prelude, n) -> int:
    """The int nat value ``n`` stands for (classic ``relay.testing.count``)."""
    from ..prelude import count as _count
    return _count(prelude, n)


def make_nat_value(prelude, n: int):
    """The VM value of nat ``n`` (classic ``relay.testing.make_nat_value``)."""
    from ..prelude import make_nat_value as _make
    return _make(prelude, n)


def make_nat_expr(prelude, n: int) -> Expr:
    """The relay expression of nat ``n`` (classic ``relay.testing.make_nat_expr``)."""
    from ..prelude import make_nat_expr as _make
    return _make(prelude, n)


__all__ = ["enabled_targets", "count", "make_nat_value", "make_nat_expr", "create_workload",
           "Xavier", "layers", "resnet", "mobilenet", "mlp", "dcgan", "synthetic",
           "inception_v3", "dqn", "squeezenet", "densenet", "lstm",
           "temp_op_attr", "run_opt_pass", "run_infer_type", "check_grad", "rand"]


def _np_randn_from_type(t, scale: float = 1, mean: float = 0):
    """Random normal values (times ``scale`` plus ``mean``) of tensor type ``t``."""
    shape = [int(d) for d in t.shape]
    return (mean + scale * np.random.randn(*shape)).astype(t.dtype)
