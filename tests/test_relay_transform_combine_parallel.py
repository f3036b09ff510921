"""relay.transform.CombineParallel{Conv2D,Dense,BatchMatmul}: the combined program computes
the numbers of the original one."""
import numpy as np
import pytest

import tvmlite as tvm
from tests.relay_helpers import build_run
from tvmlite import relay
from tvmlite.relay import transform

RNG = np.random.default_rng(2)


def _run_pass(f, p):
    return p(transform.InferType()(tvm.IRModule.from_expr(f)))["main"]


def _count(e, name):
    out = []
    relay.analysis.post_order_visit(e, lambda n: out.append(1) if isinstance(n, relay.Call)
                                    and getattr(n.op, "name", "") == name else None)
    return len(out)


def _inputs(f):
    return {p.name_hint: RNG.standard_normal(tuple(p.type_annotation.shape)).astype("float32")
            for p in f.params}


def _same_numbers(f, g):
    inputs = _inputs(f)
    for a, b in zip(build_run(g, inputs)[0], build_run(f, inputs)[0]):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-4)


def test_conv2d_branches_with_following_ops():
    x = relay.var("x", shape=(1, 3, 7, 9), dtype="float32")
    ws = [relay.var(f"w{i}", shape=(c, 3, 3, 3), dtype="float32")
          for i, c in enumerate((2, 5, 4))]
    b = relay.var("b", shape=(5, 1, 1), dtype="float32")
    y0 = relay.nn.relu(relay.nn.conv2d(x, ws[0], padding=(1, 1)))
    y1 = relay.nn.relu(relay.add(relay.nn.conv2d(x, ws[1], padding=(1, 1)), b))
    y2 = relay.nn.conv2d(x, ws[2], padding=(1, 1))
    w_odd = relay.var("w_odd", shape=(2, 3, 1, 1), dtype="float32")  # another kernel size
    y3 = relay.nn.conv2d(x, w_odd)
    f = relay.Function([x, *ws, b, w_odd], relay.Tuple([y0, y1, y2, y3]))
    g = _run_pass(f, transform.CombineParallelConv2D(min_num_branches=3))
    assert _count(g, "nn.conv2d") == 2
    _same_numbers(f, g)
    assert _count(_run_pass(f, transform.CombineParallelConv2D(4)), "nn.conv2d") == 4


@pytest.mark.parametrize("to_batch", [True, False])
def test_dense_branches(to_batch):
    x = relay.var("x", shape=(3, 5), dtype="float32")
    ws = [relay.var(f"w{i}", shape=(7, 5), dtype="float32") for i in range(3)]
    bs = [relay.var(f"b{i}", shape=(7,), dtype="float32") for i in range(3)]
    outs = [relay.nn.relu(relay.add(relay.nn.dense(x, w), b)) for w, b in zip(ws, bs)]
    f = relay.Function([x, *ws, *bs], relay.Tuple(outs))
    g = _run_pass(f, transform.CombineParallelDense(min_num_branches=2, to_batch=to_batch))
    assert _count(g, "nn.batch_matmul" if to_batch else "nn.dense") == 1
    _same_numbers(f, g)


def test_batch_matmul_branches():
    x = relay.var("x", shape=(2, 3, 5), dtype="float32")
    ws = [relay.var(f"w{i}", shape=(2, n, 5), dtype="float32") for i, n in enumerate((4, 6))]
    f = relay.Function([x, *ws], relay.Tuple([relay.nn.batch_matmul(x, w) for w in ws]))
    g = _run_pass(f, transform.CombineParallelBatchMatmul(min_num_branches=2))
    assert _count(g, "nn.batch_matmul") == 1
    _same_numbers(f, g)


def test_generic_op_batch_combiner():
    x = relay.var("x", shape=(4, 6), dtype="float32")
    ws = [relay.var(f"w{i}", shape=(3, 6), dtype="float32") for i in range(3)]
    f = relay.Function([x, *ws], relay.Tuple([relay.nn.dense(x, w) for w in ws]))
    g = _run_pass(f, transform.CombineParallelOpBatch("nn.dense", "nn.batch_matmul", 3))
    assert _count(g, "nn.batch_matmul") == 1 and _count(g, "nn.dense") == 0
    _same_numbers(f, g)
