"""Classic AutoTVM touch features (``autotvm.feature.get_itervar_feature``): per loop, its
length, nesting, products and, per buffer access, stride / count / reuse."""
import numpy as np

from tvmlite import te
from tvmlite.autotvm import feature


def _matmul(n, m, k):
    kk = te.reduce_axis((0, k), "k")
    A = te.placeholder((n, k), name="A")
    B = te.placeholder((k, m), name="B")
    C = te.compute((n, m), lambda y, x: te.sum(A[y, kk] * B[kk, x], axis=kk), name="C")
    return A, B, C, kk


def _rows(feas):
    return [{p[0]: p[1:] for p in row[1:]} | {"_var_": row[0][1].name} for row in feas]


def test_gemm_touch_counts_and_reuse():
    n, m, k = 6, 10, 7
    A, B, C, kk = _matmul(n, m, k)
    s = te.create_schedule(C.op)
    y, x, r = _rows(feature.get_itervar_feature(s, [A, B, C]))
    assert [y["_var_"], x["_var_"], r["_var_"]] == ["y", "x", "k"]
    # length, nest level, top-down product, bottom-up product, then a one-hot (serial = 9)
    assert y["_attr_"][:4] == [n, 1, n, n * m * k] and y["_attr_"][4 + 9]
    assert x["_attr_"][:4] == [m, 2, n * m, m * k]
    assert r["_attr_"][:4] == [k, 3, n * m * k, k]
    assert r["_arith_"] == [1, 1, 0]  # one float add and one multiply inside k
    # A[y*k + kk]: strided by y and k, reused across x
    assert y["A_0"] == [k, -1, n * k, m, 0, 0]
    assert x["A_0"] == [0, -1, k, m, 0, 0]
    assert r["A_0"] == [1, -1, k, 1, 0, 0]
    # B[kk*m + x]: strided by k and x, reused across y
    assert y["B_0"] == [0, -1, k * m, n, 0, 0] and r["B_0"] == [m, -1, k, 1, 0, 0]
    # C's update store (C_0) and load (C_1): reused along k (the init is not counted)
    assert y["C_0"] == [m, -1, n * m, k, 0, 0] and r["C_1"] == [0, -1, 1, k, 0, 0]
    assert "C_2" not in r


def test_parallel_level_gives_thread_count_and_reuse():
    A, B, C, kk = _matmul(8, 12, 5)
    s = te.create_schedule(C.op)
    y, x = C.op.axis
    s[C].parallel(y)
    rows = _rows(feature.get_itervar_feature(s, [A, B, C]))
    yrow = rows[0]
    assert yrow["_attr_"][4 + 8]  # parallel one-hot
    # moving the parallel loop innermost: 8 distinct A rows, each used once there
    assert yrow["A_0"][2:] == [8 * 5, 12, 8, 1]
    assert rows[1]["A_0"][4:] == [0, 0]  # not a parallel level


def test_flatten_names_log_and_curve_shapes_are_consistent():
    A, B, C, kk = _matmul(16, 16, 16)
    for factor in (2, 4, 8):
        s = te.create_schedule(C.op)
        yo, xo, yi, xi = s[C].tile(C.op.axis[0], C.op.axis[1], factor, factor)
        fea = feature.get_itervar_feature(s, [A, B, C])
        flat = feature.flatten_itervar_feature(fea)
        assert len(flat) == len(feature.get_flatten_name(fea))
        logged = feature.get_itervar_feature_flatten(s, [A, B, C], take_log=True)
        log_rows = feature.get_itervar_feature(s, [A, B, C], take_log=True)
        for row, lrow in zip(fea, log_rows):  # numbers logged; nest level and one-hot kept
            for p, lp in zip(row[2:], lrow[2:]):
                np.testing.assert_allclose(lp[1:], [np.log2(v + 1) if v >= 0 else
                                                    -np.log2(-v + 1) for v in p[1:]])
            assert lrow[1][2:3] == row[1][2:3] and lrow[1][5:] == row[1][5:]
        np.testing.assert_allclose(logged, feature.flatten_itervar_feature(log_rows),
                                   rtol=1e-6)
        curve = feature.get_buffer_curve_sample_flatten(s, [A, B, C], sample_n=11)
        assert len(curve) == 11 * 3 * 4 * 2


def test_feature_length_does_not_depend_on_the_virtual_thread_config():
    """A tuner's cost model needs one feature length per task: a vthread-bound loop stays a
    loop in the analysed nest (it was interleaved away, so lengths varied with the order)."""
    import tvmlite as tvm

    def length(perm):
        n = 32
        k = te.reduce_axis((0, n), "k")
        A = te.placeholder((n, n), name="A")
        B = te.placeholder((n, n), name="B")
        C = te.compute((n, n), lambda y, x: te.sum(A[y, k] * B[k, x], axis=k), name="C")
        s = te.create_schedule(C.op)
        axes = list(s[C].tile(*s[C].op.axis, 8, 8)) + [k]
        axes = [axes[i] for i in perm]
        s[C].reorder(*axes)
        spatial = [a for a, i in zip(axes, perm) if i != 4]
        for ax, tag in zip(spatial, ("blockIdx.x", "vthread", "threadIdx.y")):
            s[C].bind(ax, te.thread_axis(tag))
        with tvm.target.cuda():
            rows = feature.get_itervar_feature(s, [A, B, C])
        return len(feature.flatten_itervar_feature(rows)), len(rows)

    rng = np.random.default_rng(0)
    lengths = {length(rng.permutation(5)) for _ in range(12)}
    assert len(lengths) == 1, lengths
    assert next(iter(lengths))[1] == 5  # every loop, the virtual thread's included
