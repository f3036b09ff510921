"""``topi.cuda`` schedules built for "cuda" and run in the emulation's checking mode (a race or
an out-of-bounds access fails) against numpy at odd sizes; the CUDA sources compile with
nvcc where it is installed."""

import numpy as np
import pytest
from nvcc_helpers import assert_sources_compile, needs_nvcc

import tvmlite as tvm
from tvmlite import te, topi

SOURCES = {}


@pytest.fixture(autouse=True)
def _emulate(monkeypatch):
    monkeypatch.setenv("TVMLITE_GPU_EMULATION", "check")


def _run(name, schedule, ins, out, arrays, ref, rtol=1e-5, atol=1e-6):
    """Schedule ``out`` under the cuda target, build, run on ``arrays``, compare."""
    with tvm.target.Target("cuda"):
        s = schedule(out)
    f = tvm.build(s, list(ins) + [out], "cuda", name=name)
    dev = tvm.cuda(0)
    res = tvm.nd.array(np.zeros(ref.shape, out.dtype), dev)
    f(*[tvm.nd.array(a, dev) for a in arrays], res)
    np.testing.assert_allclose(res.numpy(), ref, rtol=rtol, atol=atol)
    SOURCES[name] = f.imported_modules[0].get_source()


def _rand(*shape):
    return np.random.uniform(-1, 1, size=shape).astype("float32")


def test_injective_elemwise_sum_broadcast():
    a = te.placeholder((7, 13, 13), name="a")
    b = te.placeholder((13, 13), name="b")
    out = topi.elemwise_sum([a + b, a * b]) / 2.0
    an, bn = _rand(7, 13, 13), _rand(13, 13)
    _run("inj", topi.cuda.schedule_injective, [a, b], out, [an, bn], (an + bn + an * bn) / 2)


def test_elemwise_sum_checks_shapes():
    a, b = te.placeholder((3, 4)), te.placeholder((4, 3))
    with pytest.raises(topi.utils.TopiError, match="differ in shape"):
        topi.elemwise_sum([a, b])


def test_reduce_all_to_scalar_intro_topi():
    """intro_topi's reduction: a 0-D sum of an injective graph, one block of threads."""
    x, y = 100, 10
    a = te.placeholder((x, y, y), name="a")
    b = te.placeholder((y, y), name="b")
    g = topi.sum(topi.elemwise_sum([a + b, a * b]) / 2.0)
    an, bn = _rand(x, y, y), _rand(y, y)
    _run("red_all", topi.cuda.schedule_reduce, [a, b], g, [an, bn],
         np.array(((an + bn + an * bn) / 2).sum(), "float32"), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("shape,axis,keepdims", [((37, 53), 1, False), ((5, 1000), 1, True),
                                                 ((9, 7, 11), (0, 2), False)])
def test_reduce_axes(shape, axis, keepdims):
    a = te.placeholder(shape, name="a")
    out = topi.sum(a, axis=axis, keepdims=keepdims)
    an = _rand(*shape)
    _run(f"red_{len(SOURCES)}", topi.cuda.schedule_reduce, [a], out, [an],
         an.sum(axis=axis, keepdims=keepdims), rtol=1e-4, atol=1e-4)


def test_reduce_max_and_argmax():
    a = te.placeholder((6, 17), name="a")
    an = _rand(6, 17)
    _run("red_max", topi.cuda.schedule_reduce, [a], topi.max(a, axis=1), [an], an.max(1))
    _run("red_argmax", topi.cuda.schedule_reduce, [a], topi.argmax(a, axis=1), [an],
         an.argmax(1).astype("int32"))


@pytest.mark.parametrize("log", [False, True])
def test_softmax(log):
    a = te.placeholder((5, 37), name="a")
    an = _rand(5, 37)
    out = topi.nn.log_softmax(a) if log else topi.nn.softmax(a)
    ref = (topi.testing.log_softmax_python if log else topi.testing.softmax_python)(an)
    _run(f"softmax_{log}", topi.cuda.schedule_softmax, [a], out, [an], ref, 1e-5, 1e-5)


@pytest.mark.parametrize("kind", ["max", "avg"])
def test_pool2d(kind):
    a = te.placeholder((1, 3, 9, 11), name="a")
    an = _rand(1, 3, 9, 11)
    out = topi.nn.pool2d(a, (3, 3), (2, 2), (1, 1), (1, 1, 1, 1), kind)
    ref = topi.testing.pool2d_ref(an, (3, 3), (2, 2), (1, 1), (1, 1, 1, 1), kind)
    _run(f"pool_{kind}", topi.cuda.schedule_pool, [a], out, [an], ref)


def test_adaptive_and_global_pool():
    a = te.placeholder((2, 3, 7, 9), name="a")
    an = _rand(2, 3, 7, 9)
    _run("apool", topi.cuda.schedule_adaptive_pool, [a],
         topi.nn.adaptive_pool(a, (3, 2), "avg"), [an],
         topi.testing.adaptive_pool(an, (3, 2), "avg"))
    _run("gpool", topi.cuda.schedule_adaptive_pool, [a], topi.nn.global_pool(a, "max"),
         [an], an.max(axis=(2, 3), keepdims=True))


def test_dense_and_batch_matmul():
    x, w = te.placeholder((3, 37), name="x"), te.placeholder((11, 37), name="w")
    xn, wn = _rand(3, 37), _rand(11, 37)
    _run("dense", topi.cuda.schedule_dense, [x, w], topi.nn.dense(x, w), [xn, wn], xn @ wn.T,
         1e-5, 1e-5)
    a, b = te.placeholder((2, 5, 7), name="a"), te.placeholder((2, 9, 7), name="b")
    an, bn = _rand(2, 5, 7), _rand(2, 9, 7)
    _run("bmm", topi.cuda.schedule_batch_matmul, [a, b], topi.nn.batch_matmul(a, b), [an, bn],
         topi.testing.batch_matmul(an, bn), 1e-5, 1e-5)


def test_depthwise_conv2d():
    d, k = te.placeholder((1, 3, 11, 9), name="d"), te.placeholder((3, 1, 3, 3), name="k")
    dn, kn = _rand(1, 3, 11, 9), _rand(3, 1, 3, 3)
    out = topi.nn.depthwise_conv2d_nchw(d, k, 1, 1, 1)
    ref = topi.testing.conv2d_nchw_python(dn, kn.reshape(3, 1, 3, 3), 1, 1, groups=3)
    _run("dwconv", topi.cuda.schedule_depthwise_conv2d_nchw, [d, k], out, [dn, kn], ref,
         1e-5, 1e-5)


@pytest.mark.parametrize("epilogue", [False, True])
def test_conv2d_nchw_direct(epilogue):
    """intro_topi's ``topi.cuda.conv2d_nchw`` (untuned: the fallback tiling), alone or with
    relu as the output."""
    d, k = te.placeholder((1, 3, 13, 11), name="d"), te.placeholder((5, 3, 3, 3), name="k")
    dn, kn = _rand(1, 3, 13, 11), _rand(5, 3, 3, 3)
    ref = topi.testing.conv2d_nchw_python(dn, kn, 1, 1)
    with tvm.target.Target("cuda"):
        out = topi.cuda.conv2d_nchw(d, k, 1, 1, 1)
        if epilogue:
            out, ref = topi.nn.relu(out), np.maximum(ref, 0)
    _run(f"conv_{epilogue}", lambda o: topi.cuda.schedule_conv2d_nchw([o]), [d, k], out,
         [dn, kn], ref, 1e-5, 1e-5)
    assert "__syncthreads();" in SOURCES[f"conv_{epilogue}"]


@needs_nvcc
def test_sources_compile_with_nvcc(tmp_path):
    assert_sources_compile(SOURCES, tmp_path, at_least=10)


def test_testing_dispatch_gives_cuda_schedules():
    assert topi.testing.get_injective_schedule("cuda") is topi.cuda.schedule_injective
    assert topi.testing.get_reduce_schedule("cuda") is topi.cuda.schedule_reduce
