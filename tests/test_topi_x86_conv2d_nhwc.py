"""topi.x86's channels-last convolution schedules (``schedule_conv2d_nhwc``, grouped,
depthwise) against the numpy references at odd sizes and channel counts (tiles that do not
divide them), strides, padding, dilation, with and without a fused epilogue; a relay NHWC
network through ``relay.build`` (the "cpu" strategy picks these schedules) against numpy."""
import numpy as np
import pytest
from relay_helpers import build_run

import tvmlite as tvm
from tvmlite import relay, te, topi
from tvmlite.relay.op import strategy
from tvmlite.topi import testing as ref

RNG = np.random.default_rng(1156)


def _rand(*shape) -> np.ndarray:
    return RNG.standard_normal(shape).astype("float32")


def _run(s, args, arrays) -> np.ndarray:
    f = tvm.build(s, args, "llvm")
    out = tvm.nd.array(np.zeros([int(d) for d in args[-1].shape], args[-1].dtype))
    f(*[tvm.nd.array(a) for a in arrays], out)
    return out.numpy()


def _epilogue(conv, epilogue: str, oc: int):
    """``conv`` with ``epilogue`` ("", "bias_relu", "bias_add_residual") applied: the
    output, the extra placeholders, a numpy function of (result, *extra arrays)."""
    if not epilogue:
        return conv, [], lambda r: r
    B = te.placeholder((oc,), name="bias")
    out = topi.add(conv, B)
    if epilogue == "bias_relu":
        return topi.nn.relu(out), [B], lambda r, b: np.maximum(r + b, 0)
    R = te.placeholder([int(d) for d in conv.shape], name="residual")
    return topi.add(out, R), [B, R], lambda r, b, res: r + b + res


def _check(conv, data, kernel, x, w, want, epilogue, schedule, rtol=1e-4):
    oc = int(conv.shape[3])
    out, extra, fn = _epilogue(conv, epilogue, oc)
    extra_np = [_rand(*[int(d) for d in t.shape]) for t in extra]
    s = schedule(out)
    got = _run(s, [data, kernel, *extra, out], [x, w, *extra_np])
    np.testing.assert_allclose(got, fn(want, *extra_np), rtol=rtol, atol=rtol)
    return s, [data, kernel, *extra, out]


@pytest.mark.parametrize("n,h,w,c,oc,k,stride,pad,dil,epilogue", [
    (1, 9, 11, 3, 7, 3, 1, 1, 1, ""),
    (2, 10, 13, 5, 24, 3, 2, 1, 1, "bias_relu"),
    (1, 7, 7, 17, 17, 3, 1, 0, 1, "bias_relu"),
    (1, 12, 9, 17, 37, 3, 1, (2, 1, 0, 2), 2, "bias_add_residual"),  # 37: a guarded tail
    (1, 11, 11, 16, 32, 1, 2, 0, 1, "bias_relu"),
    (1, 15, 14, 8, 48, 5, (2, 1), 2, (1, 2), ""),
])
def test_conv2d_nhwc(n, h, w, c, oc, k, stride, pad, dil, epilogue):
    x, wt = _rand(n, h, w, c), _rand(k, k, c, oc)
    A = te.placeholder(x.shape, name="data")
    W = te.placeholder(wt.shape, name="kernel")
    conv = topi.nn.conv2d_nhwc(A, W, stride, pad, dil)
    dil2 = (dil, dil) if isinstance(dil, int) else dil
    want = ref.conv2d_nhwc_python(x, ref.dilate_python(wt, (*dil2, 1, 1)), stride, pad)
    _check(conv, A, W, x, wt, want, epilogue, topi.x86.schedule_conv2d_nhwc)


@pytest.mark.parametrize("c,m,stride,pad,dil,epilogue", [
    (5, 1, 1, 1, 1, ""),
    (17, 1, 2, 1, 1, "bias_relu"),
    (24, 1, 1, (0, 1, 2, 1), 2, "bias_add_residual"),
    (5, 2, 2, 1, 1, "bias_relu"),   # multiplier 2: output channel o reads channel o // 2
    (32, 1, 1, 1, 1, "bias_relu"),
])
def test_depthwise_conv2d_nhwc(c, m, stride, pad, dil, epilogue):
    x, wt = _rand(2, 11, 10, c), _rand(3, 3, c, m)
    A = te.placeholder(x.shape, name="data")
    W = te.placeholder(wt.shape, name="kernel")
    conv = topi.nn.depthwise_conv2d_nhwc(A, W, stride, pad, dil)
    want = ref.depthwise_conv2d_python_nhwc(x, ref.dilate_python(wt, (dil, dil, 1, 1)), stride,
                                            pad)
    _check(conv, A, W, x, wt, want, epilogue, topi.x86.schedule_depthwise_conv2d_nhwc)


@pytest.mark.parametrize("c,oc,groups,stride,pad,epilogue", [
    (6, 9, 3, 1, 1, ""),
    (8, 24, 2, 2, 1, "bias_relu"),
    (34, 34, 17, 1, (1, 0, 1, 2), "bias_add_residual"),
])
def test_group_conv2d_nhwc(c, oc, groups, stride, pad, epilogue):
    x, wt = _rand(1, 9, 12, c), _rand(3, 3, c // groups, oc)
    A = te.placeholder(x.shape, name="data")
    W = te.placeholder(wt.shape, name="kernel")
    conv = topi.nn.group_conv2d_nhwc(A, W, stride, pad, 1, groups)
    want = ref.conv2d_nchw_python(x.transpose(0, 3, 1, 2), wt.transpose(3, 2, 0, 1), stride,
                                  pad, groups).transpose(0, 2, 3, 1)
    _check(conv, A, W, x, wt, want, epilogue, topi.x86.schedule_group_conv2d_nhwc)


def test_conv2d_nhwc_schedule_is_parallel_vectorized_and_fused():
    A = te.placeholder((1, 14, 14, 32), name="data")
    W = te.placeholder((3, 3, 32, 64), name="kernel")
    B = te.placeholder((64,), name="bias")
    out = topi.nn.relu(topi.add(topi.nn.conv2d_nhwc(A, W, 1, 1, 1), B))
    sch = topi.x86.schedule_conv2d_nhwc(out)
    text = str(tvm.lower(sch, [A, W, B, out]))
    assert "T.parallel" in text and ("T.Ramp" in text or "T.Broadcast" in text)
    # the schedule marks a loop unrolled (UnrollLoop may expand it in place: the small
    # vectorized nest counts its vector statements once)
    with tvm.transform.PassContext(disabled_pass=["tir.UnrollLoop"]):
        assert "T.unroll" in str(tvm.lower(sch, [A, W, B, out]))
    # one loop nest writes the output: the epilogue reads the accumulator tile
    assert text.count("compute_1[") == 1


def test_relay_nhwc_network_uses_x86_schedules(monkeypatch, tmp_cache_dir):
    # an empty cache: a network cache hit would skip the strategies
    calls = []
    for tag, fn in list(strategy._CONV2D_X86_SCHEDULES.items()):
        if tag.endswith("nhwc"):
            monkeypatch.setitem(strategy._CONV2D_X86_SCHEDULES, tag,
                                lambda outs, fn=fn, tag=tag: calls.append(tag) or fn(outs))
    x = relay.var("x", shape=(1, 13, 11, 5))
    w1 = relay.var("w1", shape=(3, 3, 5, 24))
    b1 = relay.var("b1", shape=(24,))
    w2 = relay.var("w2", shape=(3, 3, 24, 1))
    w3 = relay.var("w3", shape=(1, 1, 8, 21))
    y = relay.nn.conv2d(x, w1, padding=(1, 1), data_layout="NHWC", kernel_layout="HWIO")
    y = relay.nn.relu(relay.nn.bias_add(y, b1, axis=3))
    y = relay.nn.max_pool2d(y, (3, 3), (2, 2), padding=(1, 1), layout="NHWC")
    y = relay.nn.conv2d(y, w2, strides=(2, 2), padding=(1, 1), groups=24, data_layout="NHWC",
                        kernel_layout="HWOI")
    y = relay.nn.conv2d(y, w3, groups=3, data_layout="NHWC", kernel_layout="HWIO")
    y = relay.nn.global_avg_pool2d(y, layout="NHWC")
    vals = {"x": _rand(1, 13, 11, 5), "w1": _rand(3, 3, 5, 24), "b1": _rand(24),
            "w2": _rand(3, 3, 24, 1), "w3": _rand(1, 1, 8, 21)}
    (got,), _ = build_run(relay.Function([x, w1, b1, w2, w3], y), vals)
    r = np.maximum(ref.conv2d_nhwc_python(vals["x"], vals["w1"], 1, 1) + vals["b1"], 0)
    r = _max_pool_nhwc(r, 3, 2, 1)
    r = ref.depthwise_conv2d_python_nhwc(r, vals["w2"], 2, 1)
    r = ref.conv2d_nchw_python(r.transpose(0, 3, 1, 2), vals["w3"].transpose(3, 2, 0, 1), 1, 0,
                               3).transpose(0, 2, 3, 1)
    r = r.mean(axis=(1, 2), keepdims=True)
    np.testing.assert_allclose(got, r, rtol=1e-4, atol=1e-4)
    assert sorted(set(calls)) == ["conv2d_nhwc", "depthwise_conv2d_nhwc", "group_conv2d_nhwc"]


def _max_pool_nhwc(x, k, s, p):
    n, h, w, c = x.shape
    xp = np.pad(x, [(0, 0), (p, p), (p, p), (0, 0)], constant_values=-np.inf)
    oh, ow = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
    out = np.full((n, oh, ow, c), -np.inf, x.dtype)
    for i in range(k):
        for j in range(k):
            out = np.maximum(out, xp[:, i:i + s * oh:s, j:j + s * ow:s])
    return out


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("c", [5, 40])
def test_pool_nhwc_vectorizes_channels(kind, c):
    x = _rand(2, 9, 10, c)
    A = te.placeholder(x.shape, name="data")
    out = topi.nn.pool2d(A, (3, 3), (2, 2), (1, 1), (1, 1, 1, 1), kind, layout="NHWC",
                         count_include_pad=True)
    s = topi.x86.schedule_pool(out, "NHWC")
    text = str(tvm.lower(s, [A, out]))
    assert "T.parallel" in text and "T.Broadcast" in text  # vector init of the window
    got = _run(s, [A, out], [x])
    if kind == "max":
        want = _max_pool_nhwc(x, 3, 2, 1)
    else:
        xp = np.pad(x, [(0, 0), (1, 1), (1, 1), (0, 0)])
        want = sum(xp[:, i:i + 9:2, j:j + 9:2] for i in range(3) for j in range(3)) / 9
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
