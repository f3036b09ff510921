"""Argument checks of compiled functions, built and loaded back from .so / .tar / .o."""
import ctypes

import numpy as np
import pytest
from test_codegen_c_kernels import build_one, flat, loop, make_func, vadd

import tvmlite as tvm
from tvmlite.error import TVMError
from tvmlite.runtime.ndarray import from_numpy_view
from tvmlite.tir import BufferStore, Var, decl_buffer


def matrix_copy():
    m = Var("m", "int32")
    A, B = decl_buffer((m, 8), "float32", "A"), decl_buffer((m, 8), "float32", "B")
    Af, Bf = flat(A), flat(B)
    i = Var("i", "int32")
    return make_func([A, B], loop(i, m * 8, BufferStore(Bf, Af[i], (i,))), "copy")


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    """The vector-add module as built, and exported/loaded back in every format."""
    d = tmp_path_factory.mktemp("export")
    built = build_one(vadd(100))
    built.export_library(str(d / "lib.so"))
    built.export_library(str(d / "lib.tar"))
    built.save(str(d / "lib.o"))
    return {"built": built, "so": tvm.runtime.load_module(str(d / "lib.so")),
            "tar": tvm.runtime.load_module(str(d / "lib.tar")),
            "o": tvm.runtime.load_module(str(d / "lib.o"))}


def abc(n=100, dtype="float32"):
    rng = np.random.default_rng(0)
    return [tvm.nd.array(rng.random(n).astype(dtype)) for _ in range(3)]


@pytest.mark.parametrize("kind", ["built", "so", "tar", "o"])
def test_result_and_every_check(modules, kind):
    mod = modules[kind]
    a, b, c = abc()
    mod(a, b, c)
    np.testing.assert_allclose(c.numpy(), a.numpy() + b.numpy())
    assert mod.entry_name == "__tvm_main__"
    fn = "default_function"
    cases = [
        (lambda: mod(a, b), f"{fn}: expects 3 arguments, got 2"),
        (lambda: mod(a, b, c, c), f"{fn}: expects 3 arguments, got 4"),
        (lambda: mod(a, b, tvm.nd.empty((200,))),
         rf"{fn}: Argument c.shape\[0\] has an unsatisfied constraint: 100 == c.shape\[0\], "
         r"got 200"),
        (lambda: mod(tvm.nd.array(a.numpy().astype("float64")), b, c),
         f"{fn}: Argument a.dtype is expected to be float32, got float64"),
        (lambda: mod(a, tvm.nd.empty((100,), "int32"), c),
         f"{fn}: Argument b.dtype is expected to be float32, got int32"),
        (lambda: mod(a, b, tvm.nd.empty((10, 10))),
         f"{fn}: Argument c.ndim is expected to be 1, got 2"),
        (lambda: mod(a, b, from_numpy_view(np.zeros(200, "float32")[::2])),
         f"{fn}: Argument c.strides: expected to be compact array"),
        (lambda: mod(a.numpy(), b, c),
         rf"{fn}: argument 0 \(a\) must be a tvm.nd.NDArray, got numpy.ndarray"),
        (lambda: mod(a, [1.0] * 100, c),
         rf"{fn}: argument 1 \(b\) must be a tvm.nd.NDArray, got list"),
        (lambda: mod(a, b, 3), r"argument 2 \(c\) must be a tvm.nd.NDArray, got int"),
    ]
    for call, msg in cases:
        with pytest.raises(TVMError, match=msg):
            call()


@pytest.mark.parametrize("kind", ["built", "tar"])
def test_device_and_byte_offset_checks_in_c(modules, kind):
    mod = modules[kind]
    a, b, c = abc()
    c._dl.device.device_type = 2  # pretend the array lives on a GPU
    with pytest.raises(TVMError, match=r"Argument c is expected to be on cpu\(0\), got cuda\(0\)"):
        mod(a, b, c)
    c._dl.device.device_type = 1
    c._dl.byte_offset = 4
    with pytest.raises(TVMError, match="c.byte_offset is expected to be 0, got 4"):
        mod(a, b, c)


def test_checks_are_in_the_library_itself(modules):
    """Calling the raw C symbol (no Python pre-checks) still validates the arguments."""
    mod = modules["so"]
    fn = mod._lib["default_function"]
    fn.restype = ctypes.c_int32
    a, b, c = abc()
    wrong = tvm.nd.empty((5,))
    args = (ctypes.c_void_p * 3)(a._dlptr, b._dlptr, wrong._dlptr)
    codes = (ctypes.c_int32 * 3)(7, 7, 7)
    assert fn(args, codes, 3) == -1
    assert "c.shape[0] has an unsatisfied constraint" in mod._last_error()
    codes[1] = 0
    assert fn(args, codes, 3) == -1
    assert "Argument b is expected to be a tensor" in mod._last_error()
    assert fn(args, codes, 1) == -1


def test_symbolic_shape_checks_and_strided_view():
    mod = build_one(matrix_copy())
    a = np.arange(48, dtype="float32").reshape(6, 8)
    b = tvm.nd.empty((6, 8))
    mod(tvm.nd.array(a), b)
    np.testing.assert_array_equal(b.numpy(), a)
    with pytest.raises(TVMError, match=r"copy: Argument B.shape\[0\] has an unsatisfied "
                                       r"constraint: m == B.shape\[0\], got 5 \(m = 6\)"):
        mod(tvm.nd.array(a), tvm.nd.empty((5, 8)))
    with pytest.raises(TVMError, match=r"A.shape\[1\] has an unsatisfied constraint: "
                                       r"8 == A.shape\[1\], got 9"):
        mod(tvm.nd.empty((6, 9)), b)
    view = from_numpy_view(np.zeros((16, 8), "float32")[::2])
    with pytest.raises(TVMError, match="A.strides: expected to be compact array"):
        mod(view, b)
    # a size-1 dimension may have any stride
    one = from_numpy_view(np.zeros((2, 8), "float32")[::2])
    mod(one, tvm.nd.empty((1, 8)))


def test_scalar_argument_type_checks():
    n = Var("n", "int32")
    alpha = Var("alpha", "float64")
    A = decl_buffer((4,), "float64", "a")
    i = Var("i", "int32")
    body = loop(i, 4, BufferStore(A, A[i] * alpha + n.astype("float64"), (i,)))
    mod = build_one(make_func([A, n, alpha], body, "axpb"))
    a = tvm.nd.array(np.ones(4))
    mod(a, 2, 0.5)
    np.testing.assert_array_equal(a.numpy(), 2.5)
    with pytest.raises(TVMError, match=r"axpb: argument 1 \(n\) must be an int, got float"):
        mod(a, 2.5, 0.5)
    with pytest.raises(TVMError, match=r"argument 2 \(alpha\) must be a float, got str"):
        mod(a, 1, "x")
    with pytest.raises(TVMError, match=r"argument 1 \(n\) must be an int"):
        mod(a, a, 0.5)


def test_checks_of_mixed_parameters_keep_their_order():
    """A symbolic-shape tensor, a constant one and scalars: the count, then every type code
    and tensor header in parameter order, then each tensor's shape in parameter order (the
    constant tensor after the symbolic one is checked after it), from the raw C symbol."""
    m = Var("m", "int32")
    k = Var("k", "float32")
    A, B = decl_buffer((m, 4), "float32", "A"), decl_buffer((3,), "float32", "B")
    i = Var("i", "int32")
    body = loop(i, 3, BufferStore(B, B[i] * k, (i,)))
    mod = build_one(make_func([A, k, B], body, "mixed"))
    fn = mod._lib["mixed"]
    fn.restype = ctypes.c_int32

    def call(a, b, codes=(7, 2, 7), n=3):
        kv = ctypes.c_double(2.0)
        args = (ctypes.c_void_p * 3)(a._dlptr, ctypes.addressof(kv), b._dlptr)
        assert fn(args, (ctypes.c_int32 * 3)(*codes), n) == -1
        return mod._last_error()

    good_a, good_b = tvm.nd.empty((5, 4)), tvm.nd.empty((3,))
    bad_a, bad_b = tvm.nd.empty((5, 3)), tvm.nd.empty((4,))
    assert call(good_a, good_b, n=2) == "mixed: expects 3 arguments, got 2"
    assert call(good_a, good_b, codes=(7, 0, 7)) == \
        "mixed: Argument k is expected to be float, got int"
    assert call(bad_a, tvm.nd.empty((3,), "int32")) == \
        "mixed: Argument B.dtype is expected to be float32, got int32"
    assert call(bad_a, bad_b).startswith("mixed: Argument A.shape[1] has an unsatisfied")
    assert call(good_a, bad_b).startswith("mixed: Argument B.shape[0] has an unsatisfied")
