"""Programs shared by the tests and the benchmarks, each defined once.

Tests import them as ``from programs import ...`` (pytest puts ``tests/`` on ``sys.path``);
``bench/`` scripts insert ``tests/`` into ``sys.path`` first. The ``tests/test_seed_*`` files
keep their own copies: they run the seeds' code as written.

- seed 000's 1-D convolution: :func:`conv1d_compute`, the v4 schedule :func:`conv1d_v4` and
  the AutoTVM template :func:`conv1d_auto_tune` (task ``"tutorial/conv1d_auto_tune"``);
- matmul in TVMScript at any size: :func:`matmul` (one reduction block with ``T.init``),
  seed 004's matmul-relu module :func:`matmul_relu_module`, and the matmul (dot, gemm) tensor
  intrinsic description :func:`matmul_desc`.
"""
import tvmlite as tvm
from tvmlite import autotvm, te
from tvmlite.script import tir as T


# ------------------------------------------------------------------------ seed 000: conv1d
def conv1d_compute(M: int, N: int):
    """Seed 000's full convolution ``B[n] = sum_k A[n - k] * W[k]`` (``np.convolve(a, w)``),
    with ``if_then_else`` guarding A on both ends. Returns ``A, W, B``."""
    A = te.placeholder((M,), name="A")
    W = te.placeholder((N,), name="W")
    k = te.reduce_axis((0, N), name="k")
    B = te.compute((M + N - 1,), lambda n: te.sum(tvm.tir.if_then_else(
        tvm.tir.all(n - k >= 0, n - k < M), A[n - k] * W[k], tvm.tir.const(0.0, "float32")),
        axis=k), name="B")
    return A, W, B


def conv1d_v4(M: int, N: int, factor: int = 8):
    """Seed 000's v4 schedule of :func:`conv1d_compute`: the output axis split by ``factor``,
    the outer loop parallel, the inner one vectorized. Returns ``s, [A, W, B]``."""
    A, W, B = conv1d_compute(M, N)
    s = te.create_schedule(B.op)
    o, i = s[B].split(B.op.axis[0], factor=factor)
    s[B].parallel(o)
    s[B].vectorize(i)
    return s, [A, W, B]


# Seed 000's AutoTVM template, as the seed writes it (its compute names the axis ``i``).
@autotvm.template("tutorial/conv1d_auto_tune")
def conv1d_auto_tune(M, N):
    A = te.placeholder((M,), name="A", dtype="float32")
    W = te.placeholder((N,), name="W", dtype="float32")
    k = te.reduce_axis((0, N), name="k")

    B = te.compute(
        (M + N - 1,),
        lambda i: te.sum(
            tvm.tir.if_then_else(
                tvm.tir.all(i - k >= 0, i - k < M),
                A[i - k] * W[k],
                tvm.tir.const(0.0, "float32")
            ),
            axis=k
        ),
        name="B"
    )

    s = te.create_schedule(B.op)
    cfg = autotvm.get_config()
    i = B.op.axis[0]
    k_ = B.op.reduce_axis[0]

    # define search space
    cfg.define_split("tile_i", i, num_outputs=2, filter=lambda x: x.size[-1] <= 64)
    cfg.define_split("tile_k", k_, num_outputs=2, filter=lambda x: x.size[-1] <= 64)
    cfg.define_knob("vectorize", [True, False])
    cfg.define_knob("unroll", [0, 8, 16])

    # schedule according to config
    A_local = s.cache_read(A, "local", [B])
    W_local = s.cache_read(W, "local", [B])

    i_outer, i_inner = cfg["tile_i"].apply(s, B, i)
    k_outer, k_inner = cfg["tile_k"].apply(s, B, k_)

    s[B].parallel(i_outer)

    if cfg["vectorize"].val:
        s[B].vectorize(i_inner)

    unroll_factor = cfg["unroll"].val
    if unroll_factor > 0:
        s[B].unroll(i_inner)

    s[A_local].compute_at(s[B], i_outer)
    s[W_local].compute_at(s[B], i_outer)

    return s, [A, W, B]


# ------------------------------------------------------------------------ matmul, TVMScript
def matmul(M: int, K: int, N: int, name: str = "mm", dtype: str = "float32"):
    """``C = A @ B`` (A is M×K, B K×N) as one block ``"C"`` with ``T.init``; the PrimFunc's
    ``global_symbol`` is ``name``."""

    @T.prim_func
    def mm(A: T.Buffer((M, K), dtype), B: T.Buffer((K, N), dtype), C: T.Buffer((M, N), dtype)):
        T.func_attr({"global_symbol": name, "tir.noalias": True})
        for i, j, k in T.grid(M, N, K):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.cast(0, dtype)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

    return mm


def matmul_relu_module(M: int = 128, K: int = 128, N: int = 128):
    """Seed 004's ``MyModule`` (``mm_relu``: ``Y = A @ B`` then ``C = max(Y, 0)``) in the
    seed's own syntax (old ``T.Buffer[...]``, ``T.axis.spatial``), at any size; the default
    is the seed's 128×128×128."""

    @tvm.script.ir_module
    class MyModule:
        @T.prim_func
        def mm_relu(A: T.Buffer[(M, K), "float32"],
                    B: T.Buffer[(K, N), "float32"],
                    C: T.Buffer[(M, N), "float32"]):
            T.func_attr({"global_symbol": "mm_relu", "tir.noalias": True})
            Y = T.alloc_buffer((M, N), dtype="float32")
            for i, j, k in T.grid(M, N, K):
                with T.block("Y"):
                    vi = T.axis.spatial(M, i)
                    vj = T.axis.spatial(N, j)
                    vk = T.axis.reduce(K, k)
                    with T.init():
                        Y[vi, vj] = T.float32(0)
                    Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
            for i, j in T.grid(M, N):
                with T.block("C"):
                    vi = T.axis.spatial(M, i)
                    vj = T.axis.spatial(N, j)
                    C[vi, vj] = T.max(Y[vi, vj], T.float32(0))

    return MyModule


def matmul_desc(M: int, N: int, K: int):
    """The description of an M×N×K matmul-update tensor intrinsic (a dot product for
    ``M = N = 1``, a gemm tile otherwise): ``C[i, j] += A[i, k] * B[k, j]`` on float32
    buffers with any element offset, no init."""

    @T.prim_func
    def desc(a: T.handle, b: T.handle, c: T.handle) -> None:
        A = T.match_buffer(a, (M, K), "float32", offset_factor=1)
        B = T.match_buffer(b, (K, N), "float32", offset_factor=1)
        C = T.match_buffer(c, (M, N), "float32", offset_factor=1)
        with T.block("root"):
            T.reads(C[0:M, 0:N], A[0:M, 0:K], B[0:K, 0:N])
            T.writes(C[0:M, 0:N])
            for i, j, k in T.grid(M, N, K):
                with T.block("update"):
                    vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                    C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

    return desc
