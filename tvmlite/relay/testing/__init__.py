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
from .init import Xavier, create_workload


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
    """Classic numerical gradient check of a relay function: tvmlite has no relay automatic
    differentiation, so this raises :class:`UnsupportedError`."""
    raise unsupported("tvm.relay.testing.check_grad (relay automatic differentiation)")


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
