"""C code for vector IR: explicit GCC vector types, masked loads, workspaces, threads."""
import math

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te
from tvmlite.codegen.build_c import build, generate_source
from tvmlite.error import TVMError
from tvmlite.ir import IRModule
from tvmlite.script import tir as T
from tvmlite.target import Target


def _build(func):
    return build(IRModule({"main": func.with_attr("global_symbol", "main")}), "llvm")


def test_gather_scatter_and_lanewise_calls():
    @T.prim_func
    def f(A: T.Buffer((32,), "float32"), B: T.Buffer((32,), "float32")):
        B[T.Ramp(0, 2, 8)] = T.exp(A[T.Ramp(1, 4, 8)]) + T.max(
            A[0:8], T.Broadcast(T.float32(0.5), 8))

    mod = _build(f)
    a = np.random.rand(32).astype("float32")
    b = tvm.nd.array(np.zeros(32, "float32"))
    mod(tvm.nd.array(a), b)
    want = np.zeros(32, "float32")
    want[0:16:2] = np.exp(a[1:32:4]) + np.maximum(a[0:8], 0.5)
    np.testing.assert_allclose(b.numpy(), want, rtol=1e-6)
    src = mod.get_source()
    assert "tvml_float32x8" in src and "tvml_gather_float32x8_int32x8" in src
    assert "tvml_scatter_float32x8_int32x8" in src


def test_masked_if_then_else_does_not_read_out_of_bounds():
    # lanes 5..7 would read A[8..10] (past the end); the mask keeps them from memory
    @T.prim_func
    def f(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        B[0:8] = T.if_then_else(T.Ramp(0, 1, 8) < T.Broadcast(5, 8), A[3:11],
                                T.Broadcast(T.float32(-1), 8))

    mod = _build(f)
    a = np.random.rand(8).astype("float32")
    b = tvm.nd.array(np.zeros(8, "float32"))
    mod(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), np.concatenate([a[3:8], [-1, -1, -1]]), rtol=1e-6)
    assert "tvml_mload_float32x8" in mod.get_source()


@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.parametrize("div", ["floordiv", "floormod", "truncdiv", "truncmod"])
def test_masked_if_then_else_divides_only_its_active_lanes(dtype, div):
    # the lanes where D is 0 take the other branch: dividing there crashed the process
    n = 16
    A = te.placeholder((n,), dtype, name="A")
    D = te.placeholder((n,), dtype, name="D")
    C = te.compute((n,), lambda i: tvm.tir.if_then_else(
        D[i] == 0, A[i], getattr(tvm.tir, div)(A[i], D[i])), name="C")
    s = te.create_schedule(C.op)
    s[C].vectorize(C.op.axis[0])
    f = tvm.build(s, [A, D, C], "llvm")
    rng = np.random.default_rng(1)
    a = rng.integers(-40, 40, n).astype(dtype)
    d = rng.integers(-5, 6, n).astype(dtype)
    d[[0, 3, 9]] = 0
    c = tvm.nd.array(np.zeros(n, dtype))
    f(tvm.nd.array(a), tvm.nd.array(d), c)
    safe = np.where(d == 0, 1, d)
    ref = {"floordiv": a // safe, "floormod": np.mod(a, safe),
           "truncdiv": (np.sign(a) * np.sign(safe) * (np.abs(a) // np.abs(safe))),
           "truncmod": np.fmod(a, safe)}[div]
    np.testing.assert_array_equal(c.numpy(), np.where(d == 0, a, ref.astype(dtype)))


@pytest.mark.parametrize("n,where", [(256, "stack"), (4096, "heap")])
def test_workspace_placement(n, where):
    """Small constant buffers are stack arrays; big ones aligned heap workspaces freed."""
    @T.prim_func
    def f(A: T.Buffer((4096,), "float32"), B: T.Buffer((4096,), "float32")):
        t = T.allocate([n], "float32", "global")
        t_1 = T.Buffer((n,), data=t)
        for i in range(n):
            t_1[i] = A[i] * T.float32(2)
        for i in range(n):
            B[i] = t_1[i]

    src, _, _ = generate_source(IRModule({"f": f.with_attr("global_symbol", "f")}),
                                Target("llvm"))
    if where == "stack":
        assert "float t[256] __attribute__((aligned(64)))" in src
    else:
        assert "tvml_alloc((size_t)(4096) * 4)" in src and "free(t);" in src


@T.prim_func
def _ws_before_parallel(A: T.Buffer((4,), "float32"), n: T.int32):
    w = T.allocate([n], "float32", "global")
    w_1 = T.Buffer((n,), data=w)
    for i in range(n):
        w_1[i] = T.float32(i)
    for i in T.parallel(4):
        assert A[i] >= T.float32(0), "negative input"
        A[i] = A[i] + w_1[i]


@T.prim_func
def _ws_inside_parallel(A: T.Buffer((4,), "float32"), n: T.int32):
    for i in T.parallel(4):
        w = T.allocate([n], "float32", "global")
        w_1 = T.Buffer((n,), data=w)
        for j in range(n):
            w_1[j] = T.float32(j)
        assert A[i] >= T.float32(0), "negative input"
        A[i] = A[i] + w_1[i]


@T.prim_func
def _ws_nested(A: T.Buffer((4,), "float32"), n: T.int32):
    w = T.allocate([n], "float32", "global")
    w_1 = T.Buffer((n,), data=w)
    v = T.allocate([2048], "float32", "global")
    v_1 = T.Buffer((2048,), data=v)
    for i in range(n):
        w_1[i] = T.float32(i)
    for i in range(2048):
        v_1[i] = T.float32(i)
    assert A[0] >= T.float32(0), "negative input"
    A[0] = A[0] + w_1[1] + v_1[2]


@pytest.mark.parametrize("func", [_ws_before_parallel, _ws_inside_parallel, _ws_nested],
                         ids=["before_parallel", "inside_parallel", "nested"])
def test_heap_workspaces_are_freed_on_error_returns(func, monkeypatch):
    """A failing assert returns -1 after freeing every live workspace: repeated failing calls
    leave the heap in use as it was (glibc's mallinfo2; one thread, so one malloc arena)."""
    import ctypes

    from tvmlite.driver import build_module as bm

    libc = ctypes.CDLL(None)
    if not hasattr(libc, "mallinfo2"):
        pytest.skip("needs glibc's mallinfo2")

    class MallInfo2(ctypes.Structure):
        _fields_ = [(k, ctypes.c_size_t) for k in (
            "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
            "fordblks", "keepcost")]

    libc.mallinfo2.restype = MallInfo2

    def in_use():
        m = libc.mallinfo2()
        return m.uordblks + m.hblkhd

    monkeypatch.setenv("TVM_NUM_THREADS", "1")
    bm.clear_build_cache()
    f = tvm.build(func)
    src = f.get_source()
    assert "tvml_alloc((size_t)(n) * 4)" in src
    if func is _ws_nested:
        assert "tvml_alloc((size_t)(2048) * 4)" in src  # 8 KiB: over the stack limit
    n = 1 << 18  # a 1 MiB workspace
    good = tvm.nd.array(np.ones(4, "float32"))
    f(good, n)
    np.testing.assert_allclose(good.numpy(), [1, 2, 3, 4] if func is not _ws_nested
                               else [4, 1, 1, 1])
    bad = tvm.nd.array(np.array([1, -1, 1, 1], "float32") if func is not _ws_nested
                       else np.array([-1, 1, 1, 1], "float32"))
    for _ in range(2):  # warm up whatever Python allocates on an error
        with pytest.raises(TVMError, match="negative input"):
            f(bad, n)
    before = in_use()
    for _ in range(8):
        with pytest.raises(TVMError, match="negative input"):
            f(bad, n)
    assert in_use() - before < (1 << 20), "a workspace leaked on the error path"


def test_small_buffers_inside_parallel_loops_are_stack_arrays():
    """Each thread's accumulator tile is its own stack array (no malloc/free per iteration;
    the C compiler can keep it in registers)."""
    n = 64
    A = te.placeholder((n, 16), name="A")
    k = te.reduce_axis((0, 16), "k")
    B = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    BL = s.cache_write(B, "local")
    o, i = s[B].split(B.op.axis[0], factor=8)
    s[B].parallel(o)
    s[BL].compute_at(s[B], o)
    s[BL].vectorize(s[BL].op.axis[0])
    f = tvm.build(s, [A, B])
    src = f.get_source()
    par = src.split("#pragma omp parallel")[1]
    assert "float B_local[8] __attribute__((aligned(64)));" in par and "tvml_alloc" not in par
    a = np.random.rand(n, 16).astype("float32")
    b = tvm.nd.array(np.zeros(n, "float32"))
    f(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a.sum(1), rtol=1e-5)


def test_thread_count_from_tvm_num_threads(monkeypatch):
    from tvmlite.runtime import threading as th

    monkeypatch.setenv("TVM_NUM_THREADS", "3")
    assert th.num_threads() == 3
    monkeypatch.setenv("TVM_NUM_THREADS", "zero")
    with pytest.raises(TVMError, match="TVM_NUM_THREADS"):
        th.num_threads()
    monkeypatch.delenv("TVM_NUM_THREADS")
    assert th.num_threads() == th.physical_cores() >= 1
    n = 100
    A = te.placeholder((n,), name="A")
    C = te.compute((n,), lambda i: A[i] + 1.0, name="C")
    s = te.create_schedule(C.op)
    s[C].parallel(C.op.axis[0])
    src = tvm.build(s, [A, C]).get_source()
    assert "num_threads(tvml_num_threads())" in src and "__tvmlite_set_num_threads" in src


def test_parallel_regions_run_tvm_num_threads_threads(monkeypatch):
    """Every iteration of a parallel loop records omp_get_num_threads(): the team really has
    TVM_NUM_THREADS threads (default: the physical cores)."""
    from tvmlite.driver import build_module as bm
    from tvmlite.runtime import threading as th

    @T.prim_func
    def team(B: T.Buffer((64,), "int32")):
        for i in T.parallel(64):
            B[i] = T.call_extern("int32", "omp_get_num_threads")

    def team_sizes():
        bm.clear_build_cache()  # the thread count is passed when a library is loaded
        f = tvm.build(team)
        b = tvm.nd.array(np.zeros(64, "int32"))
        f(b)
        return set(b.numpy().tolist())

    for n in ("1", "3"):
        monkeypatch.setenv("TVM_NUM_THREADS", n)
        assert team_sizes() == {int(n)}
    monkeypatch.delenv("TVM_NUM_THREADS")
    assert team_sizes() == {th.physical_cores()}


def test_non_power_of_two_vector_type_is_rejected_clearly():
    @T.prim_func
    def f(A: T.Buffer((8,), "float32")):
        A[0:3] = T.Broadcast(T.float32(1), 3)

    with pytest.raises(TVMError, match="power of two"):
        _build(f)


def _vector_unary(fn, helper: str, x, lanes: int):
    """``fn`` applied to the float32 array ``x`` by a loop vectorized ``lanes`` wide, which
    must call the printer's vector helper ``tvml_{helper}_float32x{lanes}``."""
    A = te.placeholder(x.shape, name="A")
    B = te.compute(A.shape, lambda i: fn(A[i]), name="B")
    s = te.create_schedule(B.op)
    s[B].vectorize(s[B].split(B.op.axis[0], factor=lanes)[1])
    f = tvm.build(s, [A, B], "llvm")
    assert f"tvml_{helper}_float32x{lanes}(" in f.get_source()
    b = tvm.nd.array(np.zeros(x.size, "float32"))
    f(tvm.nd.array(x), b)
    return b.numpy()


@pytest.mark.parametrize("lanes", [4, 8, 16])
def test_vector_erf_is_within_3_ulp(lanes):
    # the vector erff helper (two polynomial regions) against math.erf in double: both
    # regions and their border, tiny and subnormal inputs, the clamp at 4, infinities, NaN
    rng = np.random.default_rng(lanes)
    special = [np.inf, np.nan, 0.0, 1e-40, 1e-30, 0.87499994, 0.875, 0.8750001, 3.92, 4.0,
               4.0000005, 30.0]
    x = np.concatenate([rng.uniform(-5, 5, 2048), rng.uniform(-1, 1, 1024),
                        np.logspace(-12, 0.7, 1024 - 2 * len(special)), special,
                        -np.array(special)]).astype("float32")
    got = _vector_unary(te.erf, "erf", x, lanes).astype("float64")
    nan = np.isnan(x)
    assert np.isnan(got[nan]).all()
    want = np.array([math.erf(v) for v in x[~nan].astype("float64")])
    ulp = np.abs(got[~nan] - want) / np.spacing(np.abs(want).astype("float32"))
    assert ulp.max() <= 3, x[~nan][np.argmax(ulp)]
    assert np.array_equal(np.signbit(got[~nan]), np.signbit(x[~nan]))  # -0.0 stays -0.0


@pytest.mark.parametrize("lanes", [4, 8, 16])
def test_vector_exp_is_within_2_ulp_of_numpy(lanes):
    # the vector expf helper (range reduction + polynomial) against numpy over the whole
    # float32 range: normal, subnormal and overflowing results, infinities and NaN
    n = 1536
    rng = np.random.default_rng(lanes)
    special = [np.inf, -np.inf, np.nan, 0.0, -0.0, 88.72283, 88.7229, -87.33, -103.97, -104.5]
    x = np.concatenate([rng.uniform(-110, 90, n - 2 * len(special) - 300),
                        rng.uniform(-1, 1, 300), special, -np.array(special)]).astype("float32")
    got = _vector_unary(te.exp, "exp", x, lanes)
    with np.errstate(over="ignore", invalid="ignore"):
        want = np.exp(x)
        same = (got == want) | (np.isnan(got) & np.isnan(want))
        close = np.abs(got.astype("float64") - want) <= 2 * np.spacing(want)
    assert np.all(same | close), x[~(same | close)]


@pytest.mark.parametrize("n", [4, 5, 64, 37])
def test_bool_buffers_load_and_store_as_vectors(n):
    # bool buffers hold a byte per element: vector loads turn the bytes into a mask, stores
    # turn a mask back into bytes 0/1 (contiguous, and strided through a gather)
    A = te.placeholder((2 * n,), name="A", dtype="bool")
    B = te.compute((n,), lambda i: tvm.tir.Not(A[i]), name="B")
    C = te.compute((n,), lambda i: tvm.tir.all(A[2 * i], B[i]), name="C")
    s = te.create_schedule(C.op)
    for t in (B, C):
        _, inner = s[t].split(t.op.axis[0], factor=4)
        s[t].vectorize(inner)
    f = tvm.build(s, [A, B, C], "llvm")
    assert "uint8x4" in f.get_source()
    a = np.random.default_rng(n).random(2 * n) > 0.5
    b, c = tvm.nd.empty((n,), "bool"), tvm.nd.empty((n,), "bool")
    f(tvm.nd.array(a), b, c)
    np.testing.assert_array_equal(b.numpy(), ~a[:n])
    np.testing.assert_array_equal(c.numpy(), a[::2] & ~a[:n])
    assert set(np.frombuffer(c.numpy().tobytes(), np.uint8)) <= {0, 1}


def _concat_last_axis(widths):
    xs = [te.placeholder((2, 3, w), name=f"x{i}") for i, w in enumerate(widths)]
    out = tvm.topi.concatenate(xs, 2)
    s = tvm.topi.x86.schedule_injective([out])
    return xs, out, tvm.build(s, xs + [out], target="llvm")


def test_nested_vector_if_then_else_is_linear_in_size():
    # a concatenate of n inputs on the vectorized axis is a chain of n - 1 lane-varying
    # if_then_else: its C text must grow linearly with n (it doubled with each level, and
    # gcc did not finish on 6 inputs)
    widths = [31, 20, 21, 8, 28, 7, 4, 32, 16, 5]
    rng = np.random.default_rng(0)
    xs, out, mod = _concat_last_axis(widths)
    data = [rng.standard_normal(tuple(int(d) for d in x.shape)).astype("float32") for x in xs]
    res = tvm.nd.array(np.zeros((2, 3, sum(widths)), "float32"))
    mod(*[tvm.nd.array(d) for d in data], res)
    np.testing.assert_array_equal(res.numpy(), np.concatenate(data, axis=2))
    half = _concat_last_axis(widths[:5])[2].get_source()
    assert len(mod.get_source()) < 3 * len(half)
