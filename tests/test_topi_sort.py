"""topi.sort / argsort / topk: te.extern ops calling the tvm.contrib.sort.* packed functions,
checked against a plain-Python stable sort (ties keep the lower index first, ascending and
descending alike)."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, topi
from tvmlite.topi.utils import TopiError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _ref_argsort(x: np.ndarray, axis: int, ascend: bool) -> np.ndarray:
    """Stable argsort along ``axis`` by Python's sort: (value, index) or (-value, index)."""
    def row(v):
        key = (lambda i: (v[i], i)) if ascend else (lambda i: (-v[i], i))
        return np.array(sorted(range(len(v)), key=key), dtype="int64")
    return np.apply_along_axis(row, axis, x.astype("float64"))


def _data(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    if dtype.startswith("int"):
        return rng.integers(-3, 4, shape).astype(dtype)  # many ties
    x = rng.standard_normal(shape).astype(dtype)
    x.reshape(-1)[::4] = 0.5  # ties among floats too
    return x


def _run(outs, ins, arrays):
    outs = outs if isinstance(outs, list) else [outs]
    f = tvm.build(te.create_schedule([o.op for o in outs]), ins + outs)
    res = [tvm.nd.empty(tuple(int(d) for d in o.shape), o.dtype) for o in outs]
    f(*[tvm.nd.array(a) for a in arrays], *res)
    return [r.numpy() for r in res], f


@pytest.mark.parametrize("shape,axis,ascend,dtype", [
    ((13,), 0, True, "float32"),
    ((13,), -1, False, "int32"),
    ((5, 9), 0, False, "float32"),
    ((5, 9), -1, True, "int64"),
    ((3, 7, 4), 1, False, "float64"),
    ((3, 7, 4), -1, True, "int32"),
])
def test_sort_argsort_topk_match_a_stable_reference(shape, axis, ascend, dtype):
    x = _data(shape, dtype)
    A = te.placeholder(shape, dtype=dtype, name="A")
    k = 3
    outs = [topi.sort(A, axis=axis, is_ascend=ascend),
            topi.argsort(A, axis=axis, is_ascend=ascend, dtype="int32"),
            *topi.topk(A, k=k, axis=axis, is_ascend=ascend)]
    (srt, idx, vals, tidx), _ = _run(outs, [A], [x])
    want = _ref_argsort(x, axis, ascend)
    assert idx.dtype == np.int32 and tidx.dtype == np.int64 and srt.dtype == x.dtype
    np.testing.assert_array_equal(idx, want)
    np.testing.assert_array_equal(srt, np.take_along_axis(x, want, axis))
    first_k = np.take(want, np.arange(k), axis=axis)
    np.testing.assert_array_equal(tidx, first_k)
    np.testing.assert_array_equal(vals, np.take_along_axis(x, first_k, axis))


def test_ascending_sort_matches_numpy_on_random_floats_with_nan():
    x = np.random.default_rng(3).standard_normal((6, 11)).astype("float32")
    x[2, 3] = x[4, 0] = np.nan
    A = te.placeholder(x.shape, name="A")
    (srt, idx), _ = _run([topi.sort(A), topi.argsort(A, dtype="int64")], [A], [x])
    np.testing.assert_array_equal(srt, np.sort(x, axis=-1, kind="stable"))
    np.testing.assert_array_equal(idx, np.argsort(x, axis=-1, kind="stable"))


def test_argsort_classic_default_dtype_is_float32():
    x = _data((4, 6), "float32", seed=5)
    A = te.placeholder(x.shape, name="A")
    out = topi.argsort(A)
    assert out.dtype == "float32"
    (idx,), _ = _run(out, [A], [x])
    np.testing.assert_array_equal(idx, _ref_argsort(x, -1, True).astype("float32"))


@pytest.mark.parametrize("k", [1, 9, 0])
@pytest.mark.parametrize("ret_type", ["values", "indices"])
def test_topk_k_one_all_and_single_outputs(k, ret_type):
    x = _data((4, 9), "float32", seed=k)
    A = te.placeholder(x.shape, name="A")
    out = topi.topk(A, k=k, ret_type=ret_type, dtype="int32")
    kk = k if k >= 1 else 9
    assert [int(d) for d in out.shape] == [4, kk]
    (got,), _ = _run(out, [A], [x])
    want = _ref_argsort(x, -1, False)[:, :kk]
    if ret_type == "indices":
        assert got.dtype == np.int32
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_array_equal(got, np.take_along_axis(x, want, -1))


def test_argsort_with_valid_count_sorts_only_the_valid_prefix():
    x = _data((3, 8), "float32", seed=9)
    counts = np.array([8, 3, 0], dtype="int32")
    A = te.placeholder(x.shape, name="A")
    V = te.placeholder((3,), dtype="int32", name="V")
    out = topi.argsort(A, valid_count=V, axis=1, is_ascend=False)
    assert out.dtype == "int32"
    (got,), _ = _run(out, [A, V], [x, counts])
    for r, c in enumerate(counts):
        want = np.arange(8)
        want[:c] = _ref_argsort(x[r, :c], 0, False)
        np.testing.assert_array_equal(got[r], want)


def test_sort_output_feeds_a_compute():
    x = _data((5, 7), "int32", seed=2)
    A = te.placeholder(x.shape, dtype="int32", name="A")
    S = topi.sort(A, axis=0, is_ascend=False)
    B = te.compute(S.shape, lambda i, j: S[i, j] * 2 + 1, name="B")
    (got,), _ = _run(B, [A], [x])
    np.testing.assert_array_equal(got, -np.sort(-x, axis=0) * 2 + 1)


@pytest.mark.parametrize("make,match", [
    (lambda A: topi.topk(A, k=8), r"topk: k=8 is larger than axis 1"),
    (lambda A: topi.topk(A, k=2, axis=2), r"topk: axis 2 is out of range"),
    (lambda A: topi.topk(A, ret_type="all"), r"topk: ret_type must be one of"),
    (lambda A: topi.sort(A, axis=-3), r"sort: axis -3 is out of range"),
    (lambda A: topi.argsort(A, axis=5), r"argsort: axis 5 is out of range"),
    (lambda A: topi.argsort(A, valid_count=te.placeholder((4,), "int32")),
     r"argsort: valid_count has shape \(4,\)"),
])
def test_bad_arguments_are_topi_errors_naming_the_op(make, match):
    A = te.placeholder((3, 7), name="A")
    with pytest.raises(TopiError, match=match):
        make(A)


def test_packed_functions_are_global_functions_by_classic_name():
    for name in ("sort", "argsort", "argsort_nms", "topk"):
        assert tvm.get_global_func(f"tvm.contrib.sort.{name}", allow_missing=True) is not None
    assert "tvm.contrib.sort.topk" in tvm.runtime.list_global_func_names()
    a = tvm.nd.array(np.array([[3.0, 1.0, 2.0, 1.0]], "float32"))
    out = tvm.nd.empty((1, 4), "int32")
    tvm.get_global_func("tvm.contrib.sort.argsort")(a, out, -1, False)
    np.testing.assert_array_equal(out.numpy(), [[0, 2, 1, 3]])


def test_exported_library_runs_in_a_new_process(tmp_path):
    x = _data((4, 10), "float32", seed=4)
    A = te.placeholder(x.shape, name="A")
    outs = [topi.argsort(A, is_ascend=False, dtype="int32"), *topi.topk(A, k=4, axis=0)]
    _, f = _run(outs, [A], [x])
    path = str(tmp_path / "sort.so")
    f.export_library(path)
    np.save(tmp_path / "x.npy", x)
    script = textwrap.dedent(f"""
        import sys
        import numpy as np
        import tvmlite as tvm
        assert "tvmlite.topi" not in sys.modules
        m = tvm.runtime.load_module({path!r})
        x = np.load({str(tmp_path / "x.npy")!r})
        res = [tvm.nd.empty((4, 10), d) for d in ("int32", "float32", "int64")]
        m(tvm.nd.array(x), *res)
        np.save(sys.argv[1], res[0].numpy())
        np.save(sys.argv[2], res[2].numpy())
    """)
    out_files = [str(tmp_path / "argsort.npy"), str(tmp_path / "topk.npy")]
    env = dict(os.environ, PYTHONPATH=ROOT)
    r = subprocess.run([sys.executable, "-c", script, *out_files], env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    np.testing.assert_array_equal(np.load(out_files[0]), _ref_argsort(x, -1, False))
    np.testing.assert_array_equal(np.load(out_files[1]), _ref_argsort(x, 0, False))
