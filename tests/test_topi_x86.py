"""topi.x86 schedules and AutoTVM templates, differentially tested against numpy at odd
shapes: the fallback config and several points of each template's config space."""
import logging
import re

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import autotvm, te, topi
from tvmlite.topi import testing as ref
from tvmlite.topi.x86.utils import vector_lanes

RNG = np.random.default_rng(86)


@pytest.fixture(autouse=True)
def _quiet_fallback_warnings():
    """Fallback configs warn once per workload; keep the output readable, then restore."""
    logger = logging.getLogger("autotvm")
    level = logger.level
    logger.setLevel(logging.ERROR)
    yield
    logger.setLevel(level)


def _rand(*shape):
    return RNG.standard_normal(shape).astype("float32")


def run(s, args, arrays):
    f = tvm.build(s, args, "llvm")
    dev = tvm.cpu()
    out = tvm.nd.array(np.zeros([int(x) for x in args[-1].shape], args[-1].dtype), dev)
    f(*[tvm.nd.array(a, dev) for a in arrays], out)
    return out.numpy()


@pytest.mark.parametrize("shape", [(37,), (5, 3, 33), (3, 130, 67), (2, 2, 1), (9, 80, 96),
                                   (4, 130, 67)])
def test_schedule_injective(shape):
    A = te.placeholder(shape, name="A")
    B = te.placeholder(shape[-1:], name="B")
    C = topi.nn.relu(topi.add(topi.multiply(A, 2.0), B))
    a, b = _rand(*shape), _rand(shape[-1])
    got = run(topi.x86.schedule_injective(C), [A, B, C], [a, b])
    np.testing.assert_allclose(got, np.maximum(2 * a + b, 0), rtol=1e-6)
    lowered = str(tvm.lower(topi.x86.schedule_injective(C), [A, B, C]))
    vector = any(w in lowered for w in ("T.vectorized", "T.Ramp", "T.Broadcast"))
    assert vector == (shape not in [(2, 2, 1), (3, 130, 67)])
    assert ("T.parallel" in lowered) == (int(np.prod(shape)) >= 1 << 14)


def test_schedule_injective_layout_ops():
    x = _rand(2, 6, 5, 7)
    X = te.placeholder(x.shape, name="X")
    P = topi.nn.pad(topi.transpose(X, (0, 2, 3, 1)), [0, 1, 0, 2], [0, 0, 2, 1])
    want = np.pad(x.transpose(0, 2, 3, 1), [(0, 0), (1, 0), (0, 2), (2, 1)])
    np.testing.assert_array_equal(run(topi.x86.schedule_injective(P), [X, P], [x]), want)


def _dense_case(compute, schedule, m, n, k, epilogue):
    a, w, b = _rand(m, k), _rand(n, k), _rand(n)
    A, W, B = te.placeholder((m, k), name="A"), te.placeholder((n, k), name="W"), \
        te.placeholder((n,), name="B")
    out = compute(A, W, B if epilogue else None)
    if epilogue:
        out = topi.nn.relu(out)
    args = [A, W] + ([B] if epilogue else []) + [out]
    got = run(schedule(out), args, [a, w] + ([b] if epilogue else []))
    want = a @ w.T
    if epilogue:
        want = np.maximum(want + b, 0)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


# (12, 96, 35): the GEMM fallbacks (nopack 4 x 6 output tiles, pack two vectors of columns)
@pytest.mark.parametrize("m,n,k", [(1, 37, 29), (7, 48, 33), (13, 40, 64), (12, 96, 35)])
@pytest.mark.parametrize("epilogue", [False, True])
def test_dense_nopack_and_pack_fallback(m, n, k, epilogue):
    _dense_case(topi.x86.dense_nopack, topi.x86.schedule_dense_nopack, m, n, k, epilogue)
    _dense_case(topi.x86.dense_pack, topi.x86.schedule_dense_pack, m, n, k, epilogue)


@pytest.mark.parametrize("m,n,k,parallel", [(1, 1000, 515, False), (3, 1400, 517, True)])
def test_dense_nopack_parallel_only_past_2m_multiply_adds(m, n, k, parallel):
    # a GEMV streams its weight on one thread; the parallel tile loop from 2**21 MACs on
    a, w = _rand(m, k), _rand(n, k)
    A, W = te.placeholder((m, k), name="A"), te.placeholder((n, k), name="W")
    out = topi.x86.dense_nopack(A, W)
    s = topi.x86.schedule_dense_nopack(out)
    assert ("T.parallel(" in str(tvm.lower(s, [A, W, out]))) == parallel
    np.testing.assert_allclose(run(s, [A, W, out], [a, w]), a @ w.T, rtol=1e-4, atol=1e-4)


def _pack_data(x, bn):
    n, c, h, w = x.shape
    return x.reshape(n, c // bn, bn, h, w).transpose(0, 1, 3, 4, 2).copy()


def _pack_kernel(wt, ibn, obn):
    f, c, kh, kw = wt.shape
    return wt.reshape(f // obn, obn, c // ibn, ibn, kh, kw).transpose(0, 2, 4, 5, 3, 1).copy()


def _unpack(y):
    n, cc, h, w, bn = y.shape
    return y.transpose(0, 1, 4, 2, 3).reshape(n, cc * bn, h, w)


CONV_CASES = [  # c, f, h, w, k, stride, pad, dilation, ic_bn, oc_bn, epilogue
    (8, 12, 9, 7, 3, 1, 1, 1, 4, 3, False),
    (8, 32, 11, 13, 3, 2, (0, 1), 1, 8, 16, True),
    (6, 16, 10, 9, 1, 1, 0, 1, 3, 16, True),
    (4, 16, 9, 9, 3, 1, 2, 2, 4, 8, False),
]


def _conv_placeholders(c, f, h, w, k, ibn, obn):
    D = te.placeholder((1, c // ibn, h, w, ibn), name="D")
    K = te.placeholder((f // obn, c // ibn, k, k, ibn, obn), name="K")
    return D, K


def _conv_want(x, wt, stride, pad, dil):
    return ref.conv2d_nchw_python(x, ref.dilate_python(wt, (1, 1, dil, dil)), stride, pad)


@pytest.mark.parametrize("case", CONV_CASES)
def test_conv2d_NCHWc_fallback_with_epilogue(case):
    c, f, h, w, k, stride, pad, dil, ibn, obn, epi = case
    x, wt, bias = _rand(1, c, h, w), _rand(f, c, k, k), _rand(f)
    D, K = _conv_placeholders(c, f, h, w, k, ibn, obn)
    B = te.placeholder((f // obn, 1, 1, obn), name="B")
    out = topi.x86.conv2d_NCHWc(D, K, stride, pad, dil, f"NCHW{ibn}c", f"NCHW{obn}c",
                                "float32")
    args, arrays = [D, K], [_pack_data(x, ibn), _pack_kernel(wt, ibn, obn)]
    if epi:
        out = topi.nn.relu(topi.add(out, B))
        args.append(B)
        arrays.append(bias.reshape(f // obn, 1, 1, obn))
    s = topi.x86.schedule_conv2d_NCHWc(out)
    # one parallel nest for the padding (if any) and one for conv + epilogue, where the
    # bias add is inlined and no separate buffer holds it
    lowered = str(tvm.lower(s, args + [out]))
    assert lowered.count("T.parallel(") == 1 + (pad != 0)
    assert "T_add" not in lowered
    got = _unpack(run(s, args + [out], arrays))
    want = _conv_want(x, wt, stride, pad, dil)
    if epi:
        want = np.maximum(want + bias[None, :, None, None], 0)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def _space_points(task, n):
    size = len(task.config_space)
    return sorted({0, size - 1, *RNG.integers(0, size, n).tolist()})


@pytest.mark.parametrize("case", CONV_CASES[:2])
def test_conv2d_NCHWc_template_space(case):
    c, f, h, w, k, stride, pad, dil, ibn, obn, _ = case
    D, K = _conv_placeholders(c, f, h, w, k, ibn, obn)
    args = (D, K, stride, pad, dil, f"NCHW{ibn}c", f"NCHW{obn}c", "float32")
    task = autotvm.task.create("conv2d_NCHWc.x86", args=args, target="llvm")
    assert task.workload[0] == "conv2d_NCHWc.x86"
    assert set(task.config_space.space_map) == {"tile_ow", "unroll_kw"}
    assert task.flop == 2 * f * c * k * k * int(np.prod(
        _conv_want(np.zeros((1, c, h, w), "float32"), np.zeros((f, c, k, k), "float32"),
                   stride, pad, dil).shape[2:]))
    x, wt = _rand(1, c, h, w), _rand(f, c, k, k)
    want = _conv_want(x, wt, stride, pad, dil)
    for i in _space_points(task, 3):
        with tvm.target.Target("llvm"):
            s, bufs = task.instantiate(task.config_space.get(i))
        got = _unpack(run(s, bufs, [_pack_data(x, ibn), _pack_kernel(wt, ibn, obn)]))
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4, err_msg=f"config {i}")


@pytest.mark.parametrize("name", ["dense_nopack.x86", "dense_pack.x86"])
def test_dense_templates_space(name):
    m, n, k = 6, 24, 20
    A, W = te.placeholder((m, k), name="A"), te.placeholder((n, k), name="W")
    task = autotvm.task.create(name, args=(A, W, None, "float32"), target="llvm")
    assert {"tile_y", "tile_x", "tile_k"} <= set(task.config_space.space_map)
    assert task.flop == 2 * m * n * k
    a, w = _rand(m, k), _rand(n, k)
    for i in _space_points(task, 4):
        with tvm.target.Target("llvm"):
            s, bufs = task.instantiate(task.config_space.get(i))
        np.testing.assert_allclose(run(s, bufs, [a, w]), a @ w.T, rtol=1e-4, atol=1e-4,
                                   err_msg=f"config {i}")


def test_schedule_without_workload_is_an_error():
    A, W = te.placeholder((4, 8), name="A"), te.placeholder((6, 8), name="W")
    with pytest.raises(tvm.TVMError, match="workload"):
        topi.x86.schedule_dense_nopack(topi.nn.dense(A, W))


DW_CASES = [  # c, mult, h, w, k, stride, pad, dilation, ic_bn, oc_bn, epilogue
    (8, 1, 9, 11, 3, 1, 1, 1, 4, 4, True),
    (6, 2, 10, 7, 3, 2, (0, 1), 1, 3, 4, False),
    (4, 1, 9, 9, 3, 1, 2, 2, 4, 2, False),
    # the padding read through (inlined): border tiles on every side, odd widths
    (16, 1, 13, 17, 3, 1, 1, 1, 16, 16, True),
    (8, 1, 15, 13, 3, 2, 1, 1, 8, 8, False),
]


def _pack_dw_kernel(wt, obn):
    # (C, M, KH, KW) -> output channel o = c*M + m -> (OC//obn, 1, KH, KW, 1, obn)
    c, m, kh, kw = wt.shape
    w2 = wt.reshape(c * m, kh, kw)
    return w2.reshape(c * m // obn, obn, kh, kw).transpose(0, 2, 3, 1)[:, None, :, :, None, :]


@pytest.mark.parametrize("case", DW_CASES)
def test_depthwise_conv2d_NCHWc(case):
    c, mult, h, w, k, stride, pad, dil, ibn, obn, epi = case
    x, wt, bias = _rand(1, c, h, w), _rand(c, mult, k, k), _rand(c * mult)
    D = te.placeholder((1, c // ibn, h, w, ibn), name="D")
    K = te.placeholder((c * mult // obn, 1, k, k, 1, obn), name="K")
    B = te.placeholder((c * mult // obn, 1, 1, obn), name="B")
    out = topi.x86.depthwise_conv2d_NCHWc(D, K, stride, pad, dil, f"NCHW{ibn}c",
                                          f"NCHW{obn}c", "float32")
    assert out.op.tag == "depthwise_conv2d_NCHWc"
    args = [D, K]
    arrays = [_pack_data(x, ibn), np.ascontiguousarray(_pack_dw_kernel(wt, obn))]
    if epi:
        out = topi.nn.relu(topi.add(out, B))
        args.append(B)
        arrays.append(bias.reshape(-1, 1, 1, obn))
    want = ref.depthwise_conv2d_python_nchw(x, ref.dilate_python(wt, (1, 1, dil, dil)),
                                            stride, pad)
    if epi:
        want = np.maximum(want + bias[None, :, None, None], 0)
    got = _unpack(run(topi.x86.schedule_depthwise_conv2d_NCHWc(out), args + [out], arrays))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    task = autotvm.task.create("depthwise_conv2d_NCHWc.x86",
                               args=(D, K, stride, pad, dil, f"NCHW{ibn}c", f"NCHW{obn}c",
                                     "float32"), target="llvm")
    for i in _space_points(task, 2):
        with tvm.target.Target("llvm"):
            s, bufs = task.instantiate(task.config_space.get(i))
        got = _unpack(run(s, bufs, arrays[:2]))
        plain = ref.depthwise_conv2d_python_nchw(
            x, ref.dilate_python(wt, (1, 1, dil, dil)), stride, pad)
        np.testing.assert_allclose(got, plain, rtol=1e-4, atol=1e-4, err_msg=f"config {i}")


@pytest.mark.parametrize("sa,sb,ta,tb", [((3, 7, 13), (3, 19, 13), False, True),
                                         ((1, 13, 5), (2, 13, 18), True, False)])
def test_batch_matmul_x86(sa, sb, ta, tb):
    a, b = _rand(*sa), _rand(*sb)
    A, B = te.placeholder(sa, name="A"), te.placeholder(sb, name="B")
    out = topi.x86.batch_matmul(A, B, None, None, ta, tb)
    want = ref.batch_matmul(a, b, trans_x=ta, trans_y=tb)
    relu = topi.nn.relu(out)
    got = run(topi.x86.schedule_batch_matmul(relu), [A, B, relu], [a, b])
    np.testing.assert_allclose(got, np.maximum(want, 0), rtol=1e-4, atol=1e-4)
    task = autotvm.task.create("batch_matmul.x86", args=(A, B, None, None, ta, tb),
                               target="llvm")
    assert task.flop == 2 * np.prod(want.shape) * (sa[1] if ta else sa[2])
    for i in _space_points(task, 3):
        with tvm.target.Target("llvm"):
            s, bufs = task.instantiate(task.config_space.get(i))
        np.testing.assert_allclose(run(s, bufs, [a, b]), want, rtol=1e-4, atol=1e-4,
                                   err_msg=f"config {i}")


@pytest.mark.parametrize("layout", ["NCHW", "NCHW4c"])
@pytest.mark.parametrize("pool_type,cip,ceil", [("max", True, True), ("avg", False, True),
                                                ("avg", True, False)])
def test_schedule_pool(layout, pool_type, cip, ceil):
    x = _rand(2, 8, 9, 7)
    data = x if layout == "NCHW" else _pack_data(x, 4)
    X = te.placeholder(data.shape, name="X")
    Y = topi.nn.pool2d(X, (3, 2), (2, 1), (1, 1), (1, 0, 1, 1), pool_type, ceil_mode=ceil,
                       layout=layout, count_include_pad=cip)
    want = ref.pool2d_ref(x, (3, 2), (2, 1), (1, 1), (1, 0, 1, 1), pool_type, ceil, cip)
    s = topi.x86.schedule_pool(Y, layout)
    lowered = str(tvm.lower(s, [X, Y]))
    assert "T.parallel(" in lowered and "pad_temp" not in lowered  # padding inlined
    got = run(s, [X, Y], [data])
    np.testing.assert_allclose(got if layout == "NCHW" else _unpack(got), want, rtol=1e-5,
                               atol=1e-6)
    for size in ((4, 3), (9, 7)):
        A = topi.nn.adaptive_pool(X, size, pool_type, layout)
        got = run(topi.x86.schedule_adaptive_pool(A, layout), [X, A], [data])
        np.testing.assert_allclose(got if layout == "NCHW" else _unpack(got),
                                   ref.adaptive_pool(x, size, pool_type), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("shape", [(1, 3, 11, 9), (2, 5, 13, 10)])
@pytest.mark.parametrize("pool_type", ["max", "avg"])
def test_schedule_pool_nchw_parallel_over_channels(shape, pool_type):
    # (1, 3): fewer than 8 planes, rows fused into the parallel loop; (2, 5): planes alone
    # parallel, the padded rows peeled by loop partition
    x = _rand(*shape)
    X = te.placeholder(shape, name="X")
    Y = topi.nn.pool2d(X, (3, 3), (2, 2), (1, 1), (1, 1, 2, 1), pool_type, ceil_mode=True)
    s = topi.x86.schedule_pool(Y, "NCHW")
    lowered = str(tvm.lower(s, [X, Y]))
    assert "T.parallel(" in lowered
    assert ("i0_i1_fused_i2_fused" in lowered) == (shape[0] * shape[1] < 8)
    want = ref.pool2d_ref(x, (3, 3), (2, 2), (1, 1), (1, 1, 2, 1), pool_type, True, True)
    np.testing.assert_allclose(run(s, [X, Y], [x]), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("shape,axis", [((3, 37), -1), ((2, 5, 48), 2), ((4, 6, 5), 1),
                                        ((130, 144), 1), ((7, 3, 200), -1), ((1, 1000), -1),
                                        ((37, 12), 1)])
def test_schedule_softmax_and_reduce(shape, axis):
    x = _rand(*shape) * 3
    X = te.placeholder(shape, name="X")
    S = topi.nn.softmax(X, axis)
    np.testing.assert_allclose(run(topi.x86.schedule_softmax(S), [X, S], [x]),
                               ref.softmax_python(x, axis), rtol=1e-5, atol=1e-6)
    F = topi.nn.fast_softmax(X, axis)
    np.testing.assert_allclose(run(topi.x86.schedule_softmax(F), [X, F], [x]),
                               ref.softmax_python(x, axis), rtol=1e-5, atol=1e-6)
    lowered = str(tvm.lower(topi.x86.schedule_softmax(F), [X, F]))
    last = shape[axis] if axis != -1 else shape[-1]
    if axis in (-1, len(shape) - 1) and last % 4 == 0 and last > 4:
        # row reductions go through a vector of partials; exponentials stay a vector loop
        assert "T_softmax_maxelem_rf" in lowered and "T_softmax_expsum_rf" in lowered
        assert not re.search(r"\b\w+_s\b", lowered) and "T.Broadcast" in lowered
    assert ("T.parallel(" in lowered) == (axis in (-1, len(shape) - 1)
                                          and x.size >= 1 << 14)
    L = topi.nn.log_softmax(X, axis)
    np.testing.assert_allclose(run(topi.x86.schedule_softmax(L), [X, L], [x]),
                               ref.log_softmax_python(x, axis), rtol=1e-5, atol=1e-5)
    R = topi.max(topi.nn.relu(X), axis=axis)
    np.testing.assert_allclose(run(topi.x86.schedule_reduce(R), [X, R], [x]),
                               np.maximum(x, 0).max(axis=axis), rtol=1e-6)


@pytest.mark.parametrize("shape,axis", [((1, 128, 768), (2,)), ((3, 5, 37), (2,)),
                                        ((4, 6, 7, 9), (2, 3)), ((2, 3, 17), (1, 2)),
                                        ((2, 9, 5), (1,)), ((1, 2), (1,)), ((70, 300), (1,))])
def test_schedule_layer_norm(shape, axis):
    x = _rand(*shape) * 2 + 1
    red = [shape[a] for a in axis]
    g, b = _rand(*red), _rand(*red)
    X = te.placeholder(shape, name="X")
    G, B = te.placeholder(red, name="G"), te.placeholder(red, name="B")
    Y = topi.nn.layer_norm(X, G, B, axis, 1e-5)
    s = topi.x86.schedule_layer_norm(Y)
    np.testing.assert_allclose(run(s, [X, G, B, Y], [x, g, b]),
                               ref.layer_norm_python(x, g, b, axis, 1e-5), rtol=1e-4, atol=1e-4)
    lowered = str(tvm.lower(topi.x86.schedule_layer_norm(Y), [X, G, B, Y]))
    if len(axis) == 1 and axis[0] == len(shape) - 1 and shape[-1] % 4 == 0 and shape[-1] > 4:
        # trailing-axis statistics reduce through a vector of partials per row block
        assert "T_layer_norm_mean_rf" in lowered and "T_layer_norm_var_rf" in lowered
    assert ("T.parallel(" in lowered) == (x.size >= 1 << 14)


@pytest.mark.parametrize("c,f,h,w,k,stride,pad,epi", [(5, 7, 9, 8, 3, 1, 1, True),
                                                      (16, 32, 11, 13, 3, 2, (0, 1), False),
                                                      (32, 20, 7, 7, 1, 1, 0, True)])
def test_conv2d_nchw_packs_in_kernel(c, f, h, w, k, stride, pad, epi):
    x, wt, b = _rand(1, c, h, w), _rand(f, c, k, k), _rand(f)
    X, W = te.placeholder(x.shape, name="X"), te.placeholder(wt.shape, name="W")
    B = te.placeholder((f, 1, 1), name="B")
    out = topi.x86.conv2d_nchw(X, W, stride, pad, 1)
    args, arrays = [X, W], [x, wt]
    if epi:
        out = topi.nn.relu(topi.add(out, B))
        args.append(B)
        arrays.append(b.reshape(f, 1, 1))
    want = ref.conv2d_nchw_python(x, wt, stride, pad)
    if epi:
        want = np.maximum(want + b[None, :, None, None], 0)
    got = run(topi.x86.schedule_conv2d_nchw(out), args + [out], arrays)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_conv2d_NCHWc_template_on_nchw_args_tunes_the_blocks():
    c, f, h, w = 6, 8, 7, 9
    X, W = te.placeholder((1, c, h, w), name="X"), te.placeholder((f, c, 3, 3), name="W")
    task = autotvm.task.create("conv2d_NCHWc.x86",
                               args=(X, W, 1, 1, 1, "NCHW", "NCHW", "float32"), target="llvm")
    assert {"tile_ic", "tile_oc", "tile_ow", "unroll_kw"} == set(task.config_space.space_map)
    x, wt = _rand(1, c, h, w), _rand(f, c, 3, 3)
    want = ref.conv2d_nchw_python(x, wt, 1, 1)
    for i in _space_points(task, 4):
        cfg = task.config_space.get(i)
        with tvm.target.Target("llvm"):
            s, bufs = task.instantiate(cfg)
        obn = cfg["tile_oc"].size[-1]
        assert [int(d) for d in bufs[-1].shape] == [1, f // obn, h, w, obn]
        got = _unpack(run(s, bufs, [x, wt]))
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4, err_msg=f"config {i}")


def test_conv2d_NCHWc_template_measures_the_packed_kernel_when_tuning():
    # as a network runs it (AlterOpLayout packs data and kernel outside the kernel) and as
    # classic TVM measures it: under in_tuning the arguments are the packed tensors
    from tvmlite.autotvm import worker
    c, f, h, w = 6, 8, 7, 9
    X, W = te.placeholder((1, c, h, w), name="X"), te.placeholder((f, c, 3, 3), name="W")
    task = autotvm.task.create("conv2d_NCHWc.x86",
                               args=(X, W, 1, 1, 1, "NCHW", "NCHW", "float32"), target="llvm")
    x, wt = _rand(1, c, h, w), _rand(f, c, 3, 3)
    want = ref.conv2d_nchw_python(x, wt, 1, 1)
    for i in _space_points(task, 3):
        s, bufs = worker._instantiate(task, i)
        assert not autotvm.GLOBAL_SCOPE.in_tuning
        cfg = task.config_space.get(i)
        ibn, obn = cfg["tile_ic"].size[-1], cfg["tile_oc"].size[-1]
        assert [[int(d) for d in b.shape] for b in bufs] == [
            [1, c // ibn, h, w, ibn], [f // obn, c // ibn, 3, 3, ibn, obn],
            [1, f // obn, h, w, obn]]
        xp = x.reshape(1, c // ibn, ibn, h, w).transpose(0, 1, 3, 4, 2)
        wp = wt.reshape(f // obn, obn, c // ibn, ibn, 3, 3).transpose(0, 2, 4, 5, 3, 1)
        got = _unpack(run(s, bufs, [xp, wp]))
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4, err_msg=f"config {i}")


def test_dense_pack_template_measures_the_prepacked_weight_when_tuning():
    # relay packs a constant weight once at build time (AlterOpLayout), so tuning measures the
    # product over the packed weight, not the packing too
    from tvmlite.autotvm import worker
    m, n, k = 5, 24, 7
    A, B = te.placeholder((m, k), name="A"), te.placeholder((n, k), name="B")
    task = autotvm.task.create("dense_pack.x86", args=(A, B, None, "float32"), target="llvm")
    a, b = _rand(m, k), _rand(n, k)
    for i in _space_points(task, 4):
        s, bufs = worker._instantiate(task, i)
        assert not autotvm.GLOBAL_SCOPE.in_tuning
        bn = task.config_space.get(i)["tile_x"].size[-1]
        assert [[int(d) for d in t.shape] for t in bufs] == [[m, k], [n // bn, k, bn], [m, n]]
        bp = b.reshape(n // bn, bn, k).transpose(0, 2, 1)
        np.testing.assert_allclose(run(s, bufs, [a, bp]), a @ b.T, rtol=1e-5, atol=1e-5,
                                   err_msg=f"config {i}")


@pytest.mark.parametrize("src,dst", [(64, 8), (32, 64), (16, 32), (8, 16), (4, 12), (12, 4),
                                     (16, 3), (48, 16), (1, 16)])
def test_packed_layout_transform_matches_numpy(src, dst):
    # block -> block re-layouts (as AlterOpLayout emits them, through NCHW) on odd rows and
    # columns: the x86 injective schedule keeps the row loop and vectorizes the block
    c, h, w = 192, 5, 7
    x = _rand(2, c, h, w)
    X = te.placeholder((2, c // src, h, w, src), name="X")
    Y = topi.layout_transform(topi.layout_transform(X, f"NCHW{src}c", "NCHW"), "NCHW",
                              f"NCHW{dst}c")
    with tvm.target.Target("llvm"):
        s = topi.x86.schedule_injective(Y)
    got = run(s, [X, Y], [_pack_data(x, src)])
    np.testing.assert_array_equal(_unpack(got), x)


def test_block_to_block_transform_reads_whole_vectors():
    # each 16-lane part of a 64-lane block lies inside one 32-lane source block: contiguous
    # loads, not a gather lane by lane
    X = te.placeholder((1, 2, 3, 4, 32), name="X")
    Y = topi.layout_transform(topi.layout_transform(X, "NCHW32c", "NCHW"), "NCHW", "NCHW64c")
    with tvm.target.Target("llvm"):
        s = topi.x86.schedule_injective(Y)
    lowered = str(tvm.lower(s, [X, Y]))
    assert "T.Ramp" not in lowered and "//" not in lowered, lowered


def test_batch_norm_x86_injective():
    x = _rand(2, 7, 5, 33)
    g, b, m, v = _rand(7), _rand(7), _rand(7), np.abs(_rand(7)) + 0.5
    X = te.placeholder(x.shape, name="X")
    P = [te.placeholder((7,), name=n) for n in "gbmv"]
    out = topi.nn.batch_norm(X, *P, axis=1, epsilon=1e-3)[0]
    got = run(topi.x86.schedule_injective(out), [X, *P, out], [x, g, b, m, v])
    want = ref.batch_norm(x, g, b, m, v, 1, 1e-3, True, True)[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("shape,axis,relu", [((2, 7, 5, 33), 1, False), ((1, 16, 12, 12), 1, True),
                                             ((2, 5, 7, 19), 3, False), ((3, 40), 1, True),
                                             ((1, 64, 17, 31), 1, False), ((2, 9, 3), 0, True)])
def test_schedule_batch_norm(shape, axis, relu):
    c = shape[axis]
    x = _rand(*shape)
    g, b, m, v = _rand(c), _rand(c), _rand(c), np.abs(_rand(c)) + 0.5
    X = te.placeholder(shape, name="X")
    P = [te.placeholder((c,), name=n) for n in "gbmv"]
    out = topi.nn.batch_norm(X, *P, axis=axis, epsilon=1e-3)[0]
    if relu:
        out = topi.nn.relu(out)
    s = topi.x86.schedule_batch_norm(out)
    lowered = str(tvm.lower(s, [X, *P, out]))
    # the square roots once per channel, outside the element loop
    assert lowered.count("T.rsqrt") == 1 and "for ch in range" in lowered
    assert ("T.parallel(" in lowered) == (x.size >= 1 << 14)
    got = run(s, [X, *P, out], [x, g, b, m, v])
    want = ref.batch_norm(x, g, b, m, v, axis, 1e-3, True, True)[0]
    if relu:
        want = np.maximum(want, 0)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_fallback_pack_block_is_the_fallback_configs_block():
    lanes = vector_lanes()
    for n in (2 * lanes * 3, lanes * 3, 7):
        A, W = te.placeholder((5, 9), name="A"), te.placeholder((n, 9), name="W")
        out = topi.x86.dense_pack(A, W)
        packed = out.op.input_tensors[1]
        assert packed.op.name == "packed_weight"
        assert int(packed.shape[2]) == topi.x86.fallback_pack_block(n)
    assert topi.x86.fallback_pack_block(2 * lanes * 3) == 2 * lanes
    assert topi.x86.fallback_pack_block(lanes * 3) == lanes


@pytest.mark.parametrize("m,n,k,bn", [(1, 48, 29, 16), (13, 40, 33, 8), (9, 21, 64, 7)])
@pytest.mark.parametrize("epilogue", [False, True])
def test_dense_pack_on_a_prepacked_weight(m, n, k, bn, epilogue):
    """A weight packed ahead of time, (N // bn, K, bn): no packing stage in the kernel,
    tile_x[-1] follows the weight's block, and the result is the 2-D dense's."""
    a, w, b = _rand(m, k), _rand(n, k), _rand(n)
    wp = np.ascontiguousarray(w.reshape(n // bn, bn, k).transpose(0, 2, 1))
    A, W = te.placeholder((m, k), name="A"), te.placeholder(wp.shape, name="W")
    B = te.placeholder((n,), name="B")
    out = topi.x86.dense_pack(A, W, B if epilogue else None)
    if epilogue:
        out = topi.nn.relu(out)
    args = [A, W] + ([B] if epilogue else []) + [out]
    s = topi.x86.schedule_dense_pack(out)
    assert "packed_weight" not in str(tvm.lower(s, args))
    got = run(s, args, [a, wp] + ([b] if epilogue else []))
    want = a @ w.T
    if epilogue:
        want = np.maximum(want + b, 0)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    task = autotvm.task.create("dense_pack.x86", args=(A, W, None, None), target="llvm")
    for i in _space_points(task, 3):
        cfg = task.config_space.get(i)
        assert cfg["tile_x"].size[-1] == bn
        with tvm.target.Target("llvm"):
            s, bufs = task.instantiate(cfg)
        np.testing.assert_allclose(run(s, bufs, [a, wp]), a @ w.T, rtol=1e-4, atol=1e-4,
                                   err_msg=f"config {i}")


def test_x86_dense_dynamic_and_symbolic_batch_matmul():
    n, k = te.var("n"), te.var("k")
    A, B = te.placeholder((1, k), name="A"), te.placeholder((n, k), name="B")
    bias = te.placeholder((n,), name="bias")
    with tvm.target.Target("llvm"):
        D = topi.nn.relu(topi.x86.dense_dynamic(A, B, bias, "float32"))
        s = topi.x86.schedule_dense_dynamic([D])
    f = tvm.build(s, [A, B, bias, D], "llvm")
    rng = np.random.default_rng(3)
    a, b, c = (rng.uniform(-1, 1, sh).astype("float32") for sh in ((1, 13), (7, 13), (7,)))
    d = tvm.nd.empty((1, 7))
    f(tvm.nd.array(a), tvm.nd.array(b), tvm.nd.array(c), d)
    np.testing.assert_allclose(d.numpy(), np.maximum(a @ b.T + c, 0), rtol=1e-5, atol=1e-6)
    with pytest.raises(tvm.TVMError, match="single row"):
        topi.x86.dense_dynamic(te.placeholder((2, k), name="A2"), B)

    bs, m = te.var("bs"), te.var("m")
    X, Y = te.placeholder((bs, m, k), name="X"), te.placeholder((bs, n, k), name="Y")
    with tvm.target.Target("llvm"):
        Z = topi.x86.batch_matmul(X, Y)
    f = tvm.build(te.create_schedule(Z.op), [X, Y, Z], "llvm")
    x, y = rng.random((3, 5, 7)).astype("float32"), rng.random((3, 9, 7)).astype("float32")
    z = tvm.nd.empty((3, 5, 9))
    f(tvm.nd.array(x), tvm.nd.array(y), z)
    np.testing.assert_allclose(z.numpy(), x @ y.transpose(0, 2, 1), rtol=1e-5)
