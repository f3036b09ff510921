"""Random relay networks built at opt_level 0 (every operator its own kernel, no pass) and at
opt_level 3 (FuseOps, FoldConstant, SimplifyInference, FoldScaleAxis, AlterOpLayout to
NCHWc, EliminateCommonSubexpr ...) must compute the same outputs: DAGs of convolutions with
epilogues, pools, broadcasts, reductions, concatenations, splits, softmax, batch norms and a
dense head, with values reused by several consumers (diamonds) and intermediate outputs.

``TVMLITE_RELAY_FUZZ=N`` runs N programs instead of the CI's few (seeds 0..N-1).
"""
import os

import numpy as np
import pytest
from relay_helpers import build_run

from tvmlite import relay

N_PROGRAMS = int(os.environ.get("TVMLITE_RELAY_FUZZ", "10"))


class _Net:
    """A random network: a pool of (expr, shape) values grown one operator at a time."""

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)
        c, h, w = (int(self.rng.choice(v)) for v in ((3, 4, 8), (5, 6, 7), (5, 6, 7)))
        self.inputs = {"x": np.float32(self.rng.standard_normal((1, c, h, w)))}
        self.pool = [(relay.var("x", shape=(1, c, h, w)), (1, c, h, w))]
        self.outputs = []

    def const(self, shape, scale=0.5):
        return relay.const(np.float32(self.rng.standard_normal(shape) * scale))

    def pick(self, pred=lambda s: True):
        cands = [p for p in self.pool if pred(p[1])]
        return cands[int(self.rng.integers(len(cands)))] if cands else None

    def grow(self):
        ops = [self.unary, self.binary, self.conv, self.pool2d, self.reduce_bcast,
               self.concat, self.split, self.softmax, self.batch_norm, self.depthwise,
               self.squeeze_excite, self.pad_or_resize]
        x, s = ops[int(self.rng.integers(len(ops)))]()
        self.pool.append((x, s))

    def unary(self):
        x, s = self.pick()
        k = int(self.rng.integers(5))
        y = [relay.nn.relu, relay.sigmoid, relay.tanh, relay.negative,
             lambda v: relay.sqrt(relay.abs(v) + relay.const(1.0))][k](x)
        return y, s

    def binary(self):
        x, s = self.pick()
        other = self.pick(lambda t: t == s)
        kind = int(self.rng.integers(3))
        if kind == 0 and other is not None and other[0] is not x:
            y = other[0]
        elif kind == 1:
            y = self.const((s[1], 1, 1))  # per channel, broadcast
        else:
            y = self.const(())
        op = [relay.add, relay.multiply, relay.subtract, relay.maximum][int(
            self.rng.integers(4))]
        return op(x, y), s

    def conv(self):
        x, s = self.pick()
        k = int(self.rng.choice((1, 3)))
        oc = int(self.rng.choice((4, 8, 16)))
        pad = k // 2 if self.rng.random() < 0.7 else 0
        if s[2] + 2 * pad < k or s[3] + 2 * pad < k:
            pad = k // 2
        y = relay.nn.conv2d(x, self.const((oc, s[1], k, k), 0.3), kernel_size=(k, k),
                            padding=(pad, pad), channels=oc)
        if self.rng.random() < 0.6:
            y = relay.nn.bias_add(y, self.const((oc,)))
        if self.rng.random() < 0.6:
            y = relay.nn.relu(y)
        return y, (1, oc, s[2] + 2 * pad - k + 1, s[3] + 2 * pad - k + 1)

    def pool2d(self):
        found = self.pick(lambda t: t[2] >= 3 and t[3] >= 3)
        if found is None:
            return self.unary()
        x, s = found
        stride = int(self.rng.choice((1, 2)))
        fn = relay.nn.max_pool2d if self.rng.random() < 0.5 else relay.nn.avg_pool2d
        y = fn(x, pool_size=(2, 2), strides=(stride, stride))
        return y, (1, s[1], (s[2] - 2) // stride + 1, (s[3] - 2) // stride + 1)

    def reduce_bcast(self):
        x, s = self.pick()
        axis = [(1,), (2, 3), (1, 2, 3)][int(self.rng.integers(3))]
        r = (relay.mean if self.rng.random() < 0.5 else relay.max)(x, axis=axis, keepdims=True)
        return relay.subtract(x, r), s

    def concat(self):
        x, s = self.pick()
        other = self.pick(lambda t: t[2:] == s[2:])
        y = relay.concatenate([x, other[0]], axis=1)
        return y, (1, s[1] + other[1][1], s[2], s[3])

    def split(self):
        found = self.pick(lambda t: t[1] % 2 == 0)
        if found is None:
            return self.unary()
        x, s = found
        parts = relay.split(x, 2, axis=1)
        return relay.add(parts[0], parts[1]), (1, s[1] // 2, s[2], s[3])

    def softmax(self):
        x, s = self.pick()
        return relay.nn.softmax(x, axis=1), s

    def batch_norm(self):
        x, s = self.pick()
        c = s[1]
        var = relay.const(np.float32(self.rng.random(c) + 0.5))
        y = relay.nn.batch_norm(x, self.const((c,)), self.const((c,)), self.const((c,)),
                                var)[0]
        return y, s

    def depthwise(self):
        x, s = self.pick()
        c = s[1]
        y = relay.nn.conv2d(x, self.const((c, 1, 3, 3), 0.3), kernel_size=(3, 3),
                            padding=(1, 1), channels=c, groups=c)
        return relay.clip(y, -1.0, 6.0), s

    def squeeze_excite(self):
        # x * sigmoid(dense(mean over H, W)): a broadcast of a (1, C, 1, 1) gate
        x, s = self.pick()
        c = s[1]
        g = relay.nn.global_avg_pool2d(x)
        g = relay.nn.conv2d(g, self.const((c, c, 1, 1), 0.3), kernel_size=(1, 1), channels=c)
        return relay.multiply(x, relay.sigmoid(g)), s

    def pad_or_resize(self):
        x, s = self.pick()
        if self.rng.random() < 0.5:
            y = relay.nn.pad(x, ((0, 0), (0, 0), (1, 0), (0, 2)), pad_value=0.25)
            return relay.nn.leaky_relu(y, 0.1), (1, s[1], s[2] + 1, s[3] + 2)
        size = (s[2] * 2 - 1, s[3] + 1)
        method = "nearest_neighbor" if self.rng.random() < 0.5 else "linear"
        return relay.image.resize2d(x, size, method=method), (1, s[1]) + size

    def function(self, n_ops: int):
        for _ in range(n_ops):
            self.grow()
        last, s = self.pool[-1]
        outs = [last]
        if self.rng.random() < 0.5:  # a dense head on the flattened last value
            flat = relay.nn.batch_flatten(last)
            n = int(np.prod(s))
            outs = [relay.nn.dense(flat, self.const((5, n), 0.1))]
        if len(self.pool) > 2 and self.rng.random() < 0.6:  # an intermediate value too
            outs.append(self.pool[int(self.rng.integers(1, len(self.pool) - 1))][0])
        body = outs[0] if len(outs) == 1 else relay.Tuple(outs)
        return relay.Function(relay.analysis.free_vars(body), body)


@pytest.mark.parametrize("seed", range(N_PROGRAMS))
def test_opt_level_3_computes_what_opt_level_0_computes(seed):
    net = _Net(seed)
    func = net.function(int(net.rng.integers(4, 12)))
    want, _ = build_run(func, net.inputs, opt_level=0)
    got, _ = build_run(func, net.inputs, opt_level=3)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=2e-4, atol=2e-5,
                                   err_msg=f"seed {seed}\n{func}")


@pytest.mark.parametrize("seed", range(N_PROGRAMS // 2))
def test_converted_to_nhwc_computes_the_same(seed):
    import tvmlite as tvm
    net = _Net(1000 + seed)
    func = net.function(int(net.rng.integers(4, 12)))
    want, _ = build_run(func, net.inputs, opt_level=0)
    mod = tvm.IRModule.from_expr(func)
    seq = tvm.transform.Sequential([
        relay.transform.InferType(), relay.transform.CanonicalizeOps(),
        relay.transform.ConvertLayout({"nn.conv2d": ["NHWC", "default"],
                                       "nn.max_pool2d": ["NHWC"], "nn.avg_pool2d": ["NHWC"]})])
    with tvm.transform.PassContext(opt_level=3):
        converted = seq(mod)["main"]
    got, _ = build_run(converted, net.inputs, opt_level=3)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=2e-4, atol=2e-5, err_msg=f"seed {seed}\n{func}")
