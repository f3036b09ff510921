"""What classic TOPI test files need around the operators: ``contrib.pickle_memoize``,
``contrib.cudnn`` without cuDNN, classic TOPI functions tvmlite lacks (stubs raising
UnsupportedError when called, the packages of backend-less targets), classic device names,
``topi.utils`` helpers and ``Call.op.name``."""
import os
import subprocess
import sys
import textwrap

import pytest

import tvmlite as tvm
from tvmlite import _classic, te, topi
from tvmlite.contrib import cudnn, pickle_memoize

_CALLS = []  # a global: a captured list could not be part of the cache key


def test_memoize_caches_per_arguments_and_captured_values():
    calls = _CALLS

    def make(scale):
        @pickle_memoize.memoize("tvmlite.tests.memo_unit")
        def ref(n, shape):
            _CALLS.append((scale, n, shape))
            return [scale * n, shape]
        return ref

    f2, f3 = make(2), make(3)
    assert f2(4, (1, 2)) == [8, (1, 2)]
    assert f2(4, (1, 2)) is f2(4, (1, 2))  # computed once
    assert f3(4, (1, 2)) == [12, (1, 2)]   # another captured value: another entry
    assert f2(5, (1, 2)) == [10, (1, 2)]
    assert calls == [(2, 4, (1, 2)), (3, 4, (1, 2)), (2, 5, (1, 2))]
    assert f2.__name__ == "ref"
    with pytest.raises(TypeError, match="positional"):
        f2(n=1, shape=())
    with pytest.raises(TypeError, match="cache key"):
        f2([1], ())


def test_memoize_saves_at_exit_and_reloads(tmp_path):
    code = textwrap.dedent("""
        import sys
        from tvm.contrib.pickle_memoize import memoize
        out = []

        @memoize("t.save", save_at_exit=True)
        def f(x):
            out.append(x)
            return x * 10

        print(f(1), f(2), f(1), len(out))
    """)
    script = tmp_path / "m.py"
    script.write_text(code)
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(tvm.__file__)))
    run = [sys.executable, "-m", "tvmlite", str(script)]
    first = subprocess.run(run, cwd=tmp_path, capture_output=True, text=True, env=env)
    assert first.returncode == 0, first.stderr
    assert first.stdout.splitlines()[0] == "10 20 10 2"
    assert (tmp_path / ".pkl_memoize_py3" / "t.save.f.pkl").exists()
    second = subprocess.run(run, cwd=tmp_path, capture_output=True, text=True, env=env)
    assert second.stdout.splitlines()[0] == "10 20 10 0"  # every result read back


def test_cudnn_without_cudnn():
    assert cudnn.exists() is False
    assert cudnn.algo_to_index("fwd", "CUDNN_CONVOLUTION_FWD_ALGO_GEMM") == 2
    assert cudnn.algo_to_index("bwd_data", "CUDNN_CONVOLUTION_BWD_DATA_ALGO_1") == 1
    with pytest.raises(ValueError):
        cudnn.algo_to_index("fwd", "nope")
    # NCHW 1x3x7x9, 4 filters 3x3, pad 1, stride 2 -> 1x4x4x5 (as the conv computes)
    assert cudnn.conv_output_shape(0, 1, 2, 1, [1, 3, 7, 9], [4, 3, 3, 3]) == [1, 4, 4, 5]
    assert cudnn.conv_output_shape(1, [0, 1], 1, 1, [2, 7, 9, 6], [4, 3, 3, 3],
                                   groups=2) == [2, 5, 9, 4]
    X = te.placeholder((1, 3, 7, 9), name="X")
    with pytest.raises(tvm.TVMError, match="cudnn.softmax"):
        cudnn.softmax(X)
    with pytest.raises(_classic.UnsupportedError, match="conv_forward"):
        cudnn.conv_forward(X, X, 1, 1, 1, 0, 0, -1, "float32")


_STUB_USER = """
    import pytest
    import tvm
    from tvm import topi
    import tvm.topi.hls
    from tvm.topi.testing import pool_grad_nchw
    table = {"hls": (topi.nn.pool2d, topi.hls.schedule_pool),
             "arm_cpu": (topi.arm_cpu.conv2d_nchw_spatial_pack,
                         topi.arm_cpu.schedule_conv2d_nchw_spatial_pack)}
    assert topi.cuda.schedule_sort is topi.cuda.schedule_sort
    for f, feature in ((table["hls"][1], "tvm.topi.hls.schedule_pool (tvmlite has no HLS"),
                       (table["arm_cpu"][0], "arm_cpu.conv2d_nchw_spatial_pack (tvmlite has no"),
                       (pool_grad_nchw, "tvm.topi.testing.pool_grad_nchw")):
        with pytest.raises(tvm.TVMError, match=feature.replace("(", "[(]")):
            f(1, 2)
    for typo in ("schedule_pol", "no_such_name"):
        with pytest.raises(AttributeError):
            getattr(topi.hls, typo)
    assert topi.x86.schedule_conv1d_ncw.__module__ == "tvmlite.topi.x86.conv_direct"
    print("ok")
"""


def test_classic_topi_functions_tvmlite_lacks_fail_when_called(tmp_path):
    script = tmp_path / "stubs.py"
    script.write_text(textwrap.dedent(_STUB_USER))
    r = subprocess.run([sys.executable, "-m", "tvmlite", str(script)], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


def test_inside_tvmlite_a_missing_topi_function_stays_an_attribute_error():
    # code of tvmlite's own (by its module name) probing for a function sees it missing
    scope = {"__name__": "tvmlite.probe", "topi": topi}
    exec("found = [hasattr(topi.cuda, 'schedule_sort'), hasattr(topi.hls, 'schedule_pool')]",
         scope)
    assert scope["found"] == [False, False]
    assert hasattr(topi.cuda, "schedule_sort")  # from user code: the stub


def test_classic_device_names():
    assert tvm.device("sdaccel", 0).device_type == 4
    assert tvm.device("aocl_sw_emu").device_type == 32
    assert not tvm.device("sdaccel").exist
    assert not tvm.testing.device_enabled("sdaccel")
    assert repr(tvm.device("aocl", 1)) == "aocl(1)"


@pytest.mark.parametrize("src, dst, shape, want", [
    ((1, 3, 224, 224), "NCHW", "NHWC", (1, 224, 224, 3)),
    ((3, 2, 32, 48, 16), "NCHW16c", "NC16cWH", (3, 2, 16, 48, 32)),
    ((2, 3, 32, 32, 16, 8), "OIHW16i8o", "HWO8oI16i", (32, 32, 2, 8, 3, 16)),
    ((5, 7), "NC", "NC", (5, 7)),
])
def test_get_shape(src, dst, shape, want):
    assert topi.utils.get_shape(src, dst, shape) == want


def test_get_shape_refuses_other_axes():
    with pytest.raises(tvm.TVMError, match="incompatible"):
        topi.utils.get_shape((1, 2, 3, 4, 8), "NCHW8c", "NCHW4c")


def test_layout_predicates_and_small_helpers():
    u = topi.utils
    assert u.nchw_pack_layout("NCHW2n16c") and not u.nchw_pack_layout("NCHW16c")
    assert u.nchw_xc_layout("NCHW16c") and not u.nchw_xc_layout("NCHW2n16c")
    assert u.ncw_xc_layout("NCW8c") and u.ncw_pack_layout("NCW2n4c")
    assert not u.nchw_xc_layout("NHWC")
    assert u.get_max_power2_factor(48) == 16 and u.get_max_power2_factor(48, 8) == 8
    assert u.get_max_power2_factor(7) == 1
    assert u.get_const_float(tvm.tir.const(2.5, "float32")) == 2.5
    assert u.get_float_tuple([1.5, tvm.tir.const(0.5, "float64")]) == (1.5, 0.5)
    assert int(u.ceil_div(7, 2)) == 4


def test_call_op_name_is_the_classic_one():
    A = te.placeholder((3,), name="A")
    call = topi.exp(A).op.body[0]
    assert call.op == "exp" and call.op.name == "tir.exp"
    assert tvm.tir.call_extern("float32", "f", 1).op.name == "tir.call_extern"


def test_tensor_astype_is_topi_cast():
    A = te.placeholder((3,), name="A", dtype="int32")
    B = topi.greater(A, 1).astype("int8")
    assert B.dtype == "int8" and B.shape[0].value == 3


def test_conv3d_winograd_tile_size_rule():
    from tvmlite.topi.cuda.conv3d_winograd import _infer_tile_size
    for h, tile in ((16, 4), (8, 4), (7, 2), (12, 2)):
        assert _infer_tile_size(te.placeholder((1, 2, 3, h, 5)), None) == tile
