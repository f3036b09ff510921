"""Each relay operator, built with relay.build and run by the graph executor, against numpy
and the ``topi.testing`` references (odd sizes, random inputs)."""
import numpy as np
import pytest
from relay_helpers import build_run

import tvmlite as tvm
from tvmlite import relay
from tvmlite.topi import testing as ref


def _rand(rng, *shape, dtype="float32"):
    return rng.standard_normal(shape).astype(dtype)


def _run_op(make, shapes, rng, as_params=()):
    """Build ``make(*vars)`` over vars of ``shapes``; those named in ``as_params`` are
    bound as params (constants). Returns (output, numpy inputs)."""
    vs = [relay.var(f"v{i}", shape=s) for i, s in enumerate(shapes)]
    data = [_rand(rng, *s) for s in shapes]
    func = relay.Function(vs, make(*vs))
    params = {f"v{i}": data[i] for i in as_params}
    inputs = {f"v{i}": d for i, d in enumerate(data) if i not in as_params}
    (out,), _ = build_run(func, inputs, params)
    return out, data


@pytest.mark.parametrize("xs, ws, strides, padding, dilation, groups", [
    ((1, 3, 13, 11), (5, 3, 3, 3), (1, 1), (1, 1), (1, 1), 1),
    ((2, 4, 9, 10), (6, 4, 3, 2), (2, 1), (0, 1, 2, 1), (1, 1), 1),
    ((1, 3, 12, 12), (4, 3, 3, 3), (1, 1), (2, 2), (2, 2), 1),
    ((1, 6, 9, 9), (6, 1, 3, 3), (2, 2), (1, 1), (1, 1), 6),     # depthwise
    ((1, 6, 9, 9), (12, 1, 3, 3), (1, 1), (1, 1), (1, 1), 6),    # depthwise, multiplier 2
    ((1, 6, 7, 9), (4, 3, 3, 3), (1, 1), (1, 1), (1, 1), 2),     # grouped
])
def test_conv2d(rng, xs, ws, strides, padding, dilation, groups):
    out, (x, w) = _run_op(lambda a, b: relay.nn.conv2d(
        a, b, strides=strides, padding=padding, dilation=dilation, groups=groups),
        [xs, ws], rng, as_params=(1,))
    pad = relay.nn.pad4("conv", padding)
    xp = np.pad(x, [(0, 0), (0, 0), (pad[0], pad[2]), (pad[1], pad[3])])
    cg, og = xs[1] // groups, ws[0] // groups
    wd = np.zeros((ws[0], ws[1], (ws[2] - 1) * dilation[0] + 1, (ws[3] - 1) * dilation[1] + 1),
                  "float32")
    wd[:, :, ::dilation[0], ::dilation[1]] = w
    expect = np.concatenate([ref.conv2d_nchw_python(xp[:, g * cg:(g + 1) * cg],
                                                    wd[g * og:(g + 1) * og], strides, 0)
                             for g in range(groups)], axis=1)
    np.testing.assert_allclose(out, expect, rtol=1e-4, atol=1e-4)


def test_dense_bias_relu(rng):
    out, (x, w, b) = _run_op(lambda a, w, b: relay.nn.relu(relay.nn.bias_add(
        relay.nn.dense(a, w), b, axis=-1)), [(3, 37), (19, 37), (19,)], rng)
    np.testing.assert_allclose(out, np.maximum(x @ w.T + b, 0), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("kind, pool, strides, padding, ceil, cip", [
    ("max", (3, 3), (2, 2), (1, 1), False, False),
    ("max", (2, 3), (2, 2), (0, 0), True, False),
    ("avg", (3, 3), (2, 2), (1, 1), False, True),
    ("avg", (3, 2), (1, 2), (1, 0, 0, 1), True, False),
])
def test_pool2d(rng, kind, pool, strides, padding, ceil, cip):
    fn = relay.nn.max_pool2d if kind == "max" else relay.nn.avg_pool2d
    extra = {} if kind == "max" else {"count_include_pad": cip}
    out, (x,) = _run_op(lambda a: fn(a, pool, strides, padding=padding, ceil_mode=ceil,
                                     **extra), [(2, 3, 11, 10)], rng)
    pad = relay.nn.pad4("pool", padding)
    expect = ref.pool2d_ref(x, pool, strides, (1, 1), pad, kind, ceil, cip)
    np.testing.assert_allclose(out, expect, rtol=1e-5, atol=1e-5)


def test_global_avg_pool_flatten_softmax(rng):
    out, (x,) = _run_op(lambda a: relay.nn.softmax(relay.nn.batch_flatten(
        relay.nn.global_avg_pool2d(a))), [(2, 7, 5, 3)], rng)
    np.testing.assert_allclose(out, ref.softmax_python(x.mean(axis=(2, 3)), 1), rtol=1e-5)


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_softmax_axis(rng, axis):
    out, (x,) = _run_op(lambda a: relay.nn.softmax(a, axis), [(3, 5, 7)], rng)
    np.testing.assert_allclose(out, ref.softmax_python(x, axis), rtol=1e-5, atol=1e-6)


def test_batch_norm(rng):
    shapes = [(2, 5, 4, 3), (5,), (5,), (5,), (5,)]
    vs = [relay.var(f"v{i}", shape=s) for i, s in enumerate(shapes)]
    data = [_rand(rng, *s) for s in shapes]
    data[4] = np.abs(data[4]) + 0.5
    func = relay.Function(vs, relay.nn.batch_norm(*vs, epsilon=1e-3)[0])
    (out,), _ = build_run(func, {f"v{i}": d for i, d in enumerate(data)})
    expect = ref.batch_norm(*data, axis=1, epsilon=1e-3, center=True, scale=True)[0]
    np.testing.assert_allclose(out, expect, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name, fn", [("add", np.add), ("subtract", np.subtract),
                                      ("multiply", np.multiply), ("divide", np.divide)])
def test_broadcast_binary(rng, name, fn):
    op = getattr(relay, name)
    out, (a, b) = _run_op(lambda x, y: op(x, y), [(3, 1, 5), (4, 1)], rng)
    np.testing.assert_allclose(out, fn(a, b), rtol=1e-5)


def test_reshape_transpose_concatenate(rng):
    def make(a, b):
        r = relay.reshape(a, (0, -1))                       # (2, 12)
        t = relay.transpose(relay.reshape(b, (4, 3, 2)), (2, 0, 1))  # (2, 4, 3)
        return relay.concatenate([r, relay.reshape(t, (2, 12)), r], axis=1)
    out, (a, b) = _run_op(make, [(2, 3, 4), (24,)], rng)
    t = b.reshape(4, 3, 2).transpose(2, 0, 1).reshape(2, 12)
    np.testing.assert_allclose(out, np.concatenate([a.reshape(2, 12), t, a.reshape(2, 12)], 1))


def test_python_operators_and_scalar_constants(rng):
    out, (a,) = _run_op(lambda x: (x * 2.0 + 1.0) / 4.0 - x, [(5, 3)], rng)
    np.testing.assert_allclose(out, (a * 2 + 1) / 4 - a, rtol=1e-6, atol=1e-6)


class _GenericTarget:
    """A target whose only strategy key is "generic" (the default TOPI schedules)."""

    keys = ("generic",)


@pytest.mark.parametrize("make, shapes", [
    (lambda a, w, b: relay.nn.relu(relay.nn.bias_add(relay.nn.conv2d(a, w, padding=(1, 1)), b)),
     [(1, 4, 7, 9), (6, 4, 3, 3), (6,)]),
    (lambda a, w, b: relay.nn.conv2d(a, w, padding=(1, 1), groups=4), [(1, 4, 7, 9),
                                                                        (4, 1, 3, 3), (4,)]),
    (lambda a, w, b: relay.add(relay.nn.dense(a, w), b), [(3, 10), (5, 10), (5,)]),
    (lambda a, w, b: relay.nn.avg_pool2d(a, (3, 3), (2, 2), padding=(1, 1)),
     [(1, 2, 7, 8), (1,), (1,)]),
    (lambda a, w, b: relay.nn.global_avg_pool2d(a), [(1, 3, 5, 4), (1,), (1,)]),
    (lambda a, w, b: relay.nn.softmax(a), [(3, 9), (1,), (1,)]),
    (lambda a, w, b: relay.concatenate([relay.transpose(a), w], 0), [(3, 4), (2, 3), (1,)]),
])
def test_generic_and_x86_strategies_agree(rng, make, shapes):
    """Differential: the generic (default) schedules and the x86 ones compute the same."""
    from tvmlite.relay.build_module import lower_primitive
    from tvmlite.relay.transform.fuse_ops import fuse_function
    vs = [relay.var(f"v{i}", shape=s) for i, s in enumerate(shapes)]
    fused = fuse_function(relay.Function(vs, make(*vs)))
    call = fused.body
    assert isinstance(call.op, relay.Function), "one fused group expected"
    data = [_rand(rng, *s) for s in shapes]
    used = [data[vs.index(a)] for a in call.args]
    outs = []
    for target in (_GenericTarget(), tvm.target.Target("llvm")):
        with tvm.target.Target("llvm"):
            mod = lower_primitive(call.op, target, "f")
        f = tvm.build(mod, target="llvm")["f"]
        out = tvm.nd.empty(call.checked_type.shape)
        f(*[tvm.nd.array(d) for d in used], out)
        outs.append(out.numpy())
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-4, atol=1e-5)
