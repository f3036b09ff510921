"""NDArray and Device."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite.error import TVMError
from tvmlite.runtime.ndarray import NDArray


def test_device_constructors_and_equality():
    assert repr(tvm.cpu(0)) == "cpu(0)" and repr(tvm.gpu(1)) == "cuda(1)"
    for name in ("llvm", "cpu", "c"):
        assert tvm.device(name, 0) == tvm.cpu(0) == tvm.context(name)
    for name in ("cuda", "gpu"):
        assert tvm.device(name, 0) == tvm.cuda(0) == tvm.gpu(0)
    assert tvm.cpu().device_type == 1 and tvm.cuda(3).device_type == 2
    assert tvm.cuda(3).device_id == 3
    assert tvm.cpu(0) != tvm.cpu(1) and hash(tvm.cpu(0)) == hash(tvm.device("llvm"))
    assert tvm.cpu().exist
    tvm.cpu().sync()
    with pytest.raises(ValueError, match="unknown device"):
        tvm.device("tpu")


def test_array_roundtrip_alignment_and_type():
    x = np.random.default_rng(0).random((3, 4)).astype("float32")
    a = tvm.nd.array(x)
    assert type(a) is NDArray and type(a).__module__ == "tvmlite.runtime.ndarray"
    assert a.shape == (3, 4) and a.dtype == "float32" and a.device == tvm.cpu(0)
    assert a.ctx == tvm.cpu(0)
    assert a._numpy_view().ctypes.data % 64 == 0
    np.testing.assert_array_equal(a.numpy(), x)
    np.testing.assert_array_equal(a.asnumpy(), x)
    x[0, 0] = 42  # the NDArray holds a copy
    assert a.numpy()[0, 0] != 42
    r = repr(a)
    assert r.startswith("<tvm.nd.NDArray shape=(3, 4), cpu(0)>\narray(")


def test_array_device_spellings_and_sources():
    x = np.arange(6, dtype="int64").reshape(2, 3)
    for a in (tvm.nd.array(x, tvm.cpu(0)), tvm.nd.array(x, ctx=tvm.cpu(0)),
              tvm.nd.array(x, device=tvm.cpu()), tvm.nd.array(tvm.nd.array(x))):
        assert a.dtype == "int64"
        np.testing.assert_array_equal(a.numpy(), x)
    lst = tvm.nd.array([[1.0, 2.0], [3.0, 4.0]])
    assert lst.dtype == "float64" and lst.shape == (2, 2)
    assert tvm.nd.array([1, 2], dtype="float32").dtype == "float32"
    for e in (tvm.nd.empty((2, 3), "int8", tvm.cpu(0)), tvm.nd.empty((2, 3), "int8", ctx=tvm.cpu()),
              tvm.nd.empty((2, 3), dtype="int8", device=tvm.device("llvm", 0))):
        assert (e.shape, e.dtype, e.device) == ((2, 3), "int8", tvm.cpu(0))
        assert e._numpy_view().ctypes.data % 64 == 0


def test_zero_dim_and_bool_and_float16():
    s = tvm.nd.array(np.float32(3.5))
    assert s.shape == () and float(s.numpy()) == 3.5
    b = tvm.nd.array(np.array([True, False, True]))
    assert b.dtype == "bool" and b._dl.dtype.bits == 1 and b._dl.dtype.code == 1
    np.testing.assert_array_equal(b.numpy(), [True, False, True])
    h = tvm.nd.array(np.array([1.5, -2.0], "float16"))
    assert h.dtype == "float16"
    e = tvm.nd.empty((0, 3))
    assert e.shape == (0, 3) and e.numpy().size == 0


def test_empty_copyfrom_copyto_setitem():
    a = tvm.nd.empty((2, 3), "int32")
    assert a.dtype == "int32" and a.shape == (2, 3)
    a.copyfrom(np.arange(6, dtype="int32").reshape(2, 3))
    b = tvm.nd.empty((2, 3), "int32")
    a.copyto(b)
    np.testing.assert_array_equal(b.numpy(), np.arange(6).reshape(2, 3))
    c = a.copyto(tvm.cpu(0))
    assert isinstance(c, NDArray) and c is not a
    np.testing.assert_array_equal(c.numpy(), a.numpy())
    b[:] = 7
    assert (b.numpy() == 7).all()
    b[:] = np.ones((2, 3), "int32")
    assert (b.numpy() == 1).all()
    b[:] = a
    np.testing.assert_array_equal(b.numpy(), a.numpy())
    with pytest.raises(ValueError, match="shape"):
        a.copyfrom(np.zeros((3, 2), "int32"))
    # numpy data of another dtype is converted, as TVM's copyfrom does
    src = np.random.default_rng(3).uniform(-50, 50, (2, 3))
    a.copyfrom(src)
    np.testing.assert_array_equal(a.numpy(), src.astype("int32"))
    f = tvm.nd.empty((2, 3), "float32").copyfrom(src)
    np.testing.assert_array_equal(f.numpy(), src.astype("float32"))
    with pytest.raises(ValueError, match="dtype"):
        a.copyfrom(f)
    with pytest.raises(TypeError, match="dtype"):
        a.copyfrom(np.array([["a"] * 3] * 2))
    with pytest.raises(ValueError, match="whole array"):
        b[0] = 1
    assert tvm.nd.empty(5).shape == (5,)


def test_cuda_array_without_cuda_is_a_clear_error():
    if tvm.cuda(0).exist:
        pytest.skip("CUDA is present")
    with pytest.raises(TVMError, match="CUDA is not available"):
        tvm.nd.array(np.zeros(3, "float32"), tvm.cuda(0))
    with pytest.raises(TVMError, match="CUDA is not available"):
        tvm.nd.empty((3,), device=tvm.gpu(0))


def test_unsupported_dtypes():
    with pytest.raises(TVMError):
        tvm.nd.array(np.array(["a", "b"]))
    with pytest.raises(TVMError):
        tvm.nd.empty((2,), "float32x4")
