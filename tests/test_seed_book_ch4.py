"""The book's CPU schedules (§4.3–4.11) build and agree with numpy, including odd sizes where
tiles do not divide."""
import book_ch4 as b
import d2ltvm
import numpy as np
import pytest

import tvmlite as tvm


def _run(sch, args, inputs, out_shape):
    mod = tvm.build(sch, list(args))
    out = tvm.nd.array(np.zeros(out_shape, dtype='float32'))
    mod(*[tvm.nd.array(x) for x in inputs], out)
    return out.numpy()


@pytest.mark.parametrize("f", [b.va_default, b.va_parallel, b.va_vectorized])
@pytest.mark.parametrize("n", [64, 1000, 13])
def test_4_3_vector_add(f, n):
    s, args = f(n)
    a, bb, _ = d2ltvm.get_abc(n)
    np.testing.assert_array_equal(_run(s, args, [a, bb], (n,)), a + bb)


@pytest.mark.parametrize("f", [b.bc_default, b.bc_good, b.bc_bad])
@pytest.mark.parametrize("n", [32, 45])
def test_4_4_broadcast_add(f, n):
    s, args = f(n)
    a, bb, _ = d2ltvm.get_bcast_data((n, 1), (n, n))
    np.testing.assert_allclose(_run(s, args, [a, bb], (n, n)), a + bb, atol=1e-5)


@pytest.mark.parametrize("f", [b.mm_default, b.mm_reorder, b.mm_parallel, b.mm_block,
                               b.mm_cached_block])
@pytest.mark.parametrize("n", [64, 100])
def test_4_5_4_6_matmul(f, n):
    s, args = f(n)
    np.random.seed(0)
    x = np.random.normal(size=(n, n)).astype('float32')
    y = np.random.normal(size=(n, n)).astype('float32')
    np.testing.assert_allclose(_run(s, args, [x, y], (n, n)), x @ y, atol=1e-3)


def test_4_6_cached_block_lowers_a_per_tile_cache():
    s, args = b.mm_cached_block(64)
    text = str(tvm.lower(s, list(args), simple_mode=True))
    assert "x_outer_y_outer_fused in T.parallel(4)" in text
    assert "C_local = T.allocate([1024]" in text  # a 32x32 tile, not the whole matrix


@pytest.mark.parametrize("oc,ic,n,k,p,s", [(8, 8, 16, 3, 1, 1), (4, 6, 13, 3, 1, 1),
                                          (4, 4, 12, 3, 0, 1)])
def test_4_7_conv_cached_block(oc, ic, n, k, p, s):
    sch, args = b.conv_cached_block(oc, ic, n, k, p, s)
    data, weight, out = d2ltvm.get_conv_data(oc, ic, n, k, p, s)
    got = _run(sch, args, [data, weight], out.shape)
    np.testing.assert_allclose(got, b.conv_ref(data, weight, p, s), atol=1e-3)


@pytest.mark.parametrize("oc,ic,n,k,p,s", [(32, 32, 8, 3, 1, 1), (16, 16, 9, 3, 1, 1)])
def test_4_8_packed_conv(oc, ic, n, k, p, s):
    sch, args = b.packed_cached_block(oc, ic, n, k, p, s)
    data, weight, out = d2ltvm.get_conv_data(oc, ic, n, k, p, s)
    got = _run(sch, args, [data, weight], out.shape)
    np.testing.assert_allclose(got, b.conv_ref(data, weight, p, s), atol=1e-3)


@pytest.mark.parametrize("c,n", [(32, 16), (16, 11)])
def test_4_9_depthwise_packed(c, n):
    k, p, s = 3, 1, 1
    sch, args = b.depthwise_cached_block(c, n, k, p, s)
    data, weight, out = d2ltvm.get_conv_data(c, c, n, k, p, s, conv_type='depthwise')
    got = _run(sch, args, [data, weight], out.shape)
    np.testing.assert_allclose(got, b.conv_ref(data, weight, p, s, depthwise=True), atol=1e-4)


@pytest.mark.parametrize("kind,f", [("max", b.default_max), ("max", b.optimized_max),
                                    ("avg", b.default_avg), ("avg", b.schedule_avg)])
@pytest.mark.parametrize("size", [(4, 12, 3), (3, 17, 3)])
def test_4_10_pooling(kind, f, size):
    sch, args = f(size)
    c, n, k = size
    data = d2ltvm.get_conv_data(c, c, n, k, 1, 1)[0]
    got = _run(sch, args, [data], (c, n, n))
    np.testing.assert_allclose(got, b.pool_ref(kind, data, k, 1, 1), atol=1e-5)


@pytest.mark.parametrize("f", [b.default_bn, b.optimized_bn])
@pytest.mark.parametrize("size", [(32, 28), (5, 13)])
def test_4_11_batch_norm(f, size):
    sch, args = f(size)
    c, n = size
    data, mean, var, gamma, beta, out = d2ltvm.get_bn_data(c, n)
    got = _run(sch, args, [data, mean, var, gamma, beta], out.shape)
    np.testing.assert_allclose(got, (data - mean) / np.sqrt(var + 1e-5) * gamma + beta,
                               atol=1e-4)


def test_4_11_auto_inline_gives_one_stage():
    sch, args = b.optimized_bn((32, 28))
    text = str(tvm.lower(sch, list(args), simple_mode=True))
    assert "T.allocate" not in text and text.count("T.parallel(896)") == 1
