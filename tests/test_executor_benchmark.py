"""Graph executor and relay VM benchmarks go through their ``module.time_evaluator`` (classic:
patching ``runtime.Module.time_evaluator`` replaces the timing), plain and end-to-end, and
the timed runs compute what numpy does."""
from unittest.mock import patch

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relay
from tvmlite.contrib import graph_executor
from tvmlite.error import TVMError
from tvmlite.runtime import vm as rvm
from tvmlite.runtime.module import BenchmarkResult, Module

rng = np.random.default_rng(11)


def _func():
    x = relay.var("x", shape=(3, 7))
    return relay.Function([x], relay.nn.relu(x) * relay.const(3.0))


def test_graph_executor_benchmark_uses_module_time_evaluator():
    lib = relay.build(tvm.IRModule.from_expr(_func()), "llvm")
    gm = graph_executor.GraphModule(lib["default"](tvm.cpu()))
    xn = rng.standard_normal((3, 7)).astype("float32")
    res = gm.benchmark(tvm.cpu(), x=xn, repeat=3, number=2)
    assert len(res.results) == 3 and res.mean > 0
    np.testing.assert_allclose(gm.get_output(0).numpy(), np.maximum(xn, 0) * 3, rtol=1e-6)
    x2 = rng.standard_normal((3, 7)).astype("float32")
    res = gm.benchmark(tvm.cpu(), end_to_end=True, x=x2, repeat=2, number=1)
    assert len(res.results) == 2
    np.testing.assert_allclose(gm.get_output(0).numpy(), np.maximum(x2, 0) * 3, rtol=1e-6)
    assert isinstance(gm.module, Module)
    with patch.object(Module, "time_evaluator",
                      return_value=lambda: BenchmarkResult([1, 2, 2, 5])):
        res = gm.benchmark(tvm.cpu(), repeat=2, number=1)
    assert (res.mean, res.median, res.max, res.min, res.std) == (2.5, 2.0, 5, 1, 1.5)
    with pytest.raises(TVMError, match="has no function 'nope'"):
        gm.module.time_evaluator("nope", tvm.cpu())
    with pytest.raises(TVMError, match="cannot be exported"):
        gm.module.export_library("x.so")


def test_vm_benchmark_uses_module_time_evaluator():
    exe = relay.vm.compile(tvm.IRModule.from_expr(_func()), "llvm")
    vm = rvm.VirtualMachine(exe, tvm.cpu())
    xn = rng.standard_normal((3, 7)).astype("float32")
    res = vm.benchmark(tvm.cpu(), xn, func_name="main", repeat=2, number=1)
    assert len(res.results) == 2 and res.mean > 0
    res = vm.benchmark(tvm.cpu(), xn, end_to_end=True, repeat=2, number=1, min_repeat_ms=1)
    assert len(res.results) == 2 and min(res.results) > 0
    np.testing.assert_allclose(vm.module["invoke"]("main").numpy(), np.maximum(xn, 0) * 3,
                               rtol=1e-6)
    with patch.object(Module, "time_evaluator",
                      return_value=lambda name: BenchmarkResult([1, 2, 2, 5])):
        res = vm.benchmark(tvm.cpu(), xn, func_name="main", repeat=2, number=1)
    assert res.mean == 2.5 and res.std == 1.5
