"""8-bit nn.conv2d on x86 CPUs with fast int8 instructions (classic conv2d_nchw_int8.x86):
uint8/int8 data x int8 kernel -> int32 through the tensorized micro-kernel, exact against
numpy on full-range values, and the instructions classic promises in the assembly."""
import os

import numpy as np
import pytest
from relay_helpers import build_run

import tvmlite as tvm
from tvmlite import relay, te, topi
from tvmlite.error import TVMError
from tvmlite.target.isa import missing_features
from tvmlite.topi.testing import conv2d_nchw_python

#: the -mcpu values and the instruction each one's kernel uses
FAST = {"nehalem": "pmaddubs", "core-avx2": "pmaddubs", "skylake-avx512": "pmaddubs",
        "cascadelake": "vpdpbusd"}


def _runnable(mcpu):
    try:
        return not missing_features(mcpu)
    except TVMError:
        return False


def _target(mcpu):
    if not _runnable(mcpu):
        pytest.skip(f"this host cannot run code built for {mcpu}")
    return f"llvm -mcpu={mcpu}"


def _want(d, k, bias, strides, padding):
    out = conv2d_nchw_python(d.astype("int64"), k.astype("int64"), strides, padding)
    return np.maximum(out + bias.reshape(1, -1, 1, 1), 0)


def _conv(rng, name, dtype, ic, oc, strides=(1, 1), padding=(0, 0, 0, 1), size=(9, 11),
          extremes=False):
    """relu(bias_add(conv2d)) of random full-range 8-bit data: (expr, input var, data,
    weight var, weight, numpy result)."""
    lo, hi = (0, 256) if dtype == "uint8" else (-128, 128)
    d = rng.integers(lo, hi, (2, ic) + size).astype(dtype)
    k = rng.integers(-128, 128, (oc, ic, 3, 3)).astype("int8")
    if extremes:  # every product of a row at the int8 limits (pmaddubsw would saturate)
        d[0, :, 0, :] = hi - 1 if dtype == "uint8" else lo
        k[:, :, 0, 0] = -128
    bias = rng.integers(-1000, 1000, (oc,)).astype("int32")
    x = relay.var(f"x{name}", shape=d.shape, dtype=dtype)
    w = relay.var(f"w{name}", shape=k.shape, dtype="int8")
    y = relay.nn.conv2d(x, w, strides=strides, padding=padding, channels=oc, kernel_size=3,
                        out_dtype="int32")
    y = relay.nn.relu(relay.nn.bias_add(y, relay.const(bias)))
    return y, x, d, w, k, _want(d, k, bias, strides, padding)


def _build_run(convs, target):
    """Build the convolutions as one function's outputs; (outputs, lib)."""
    func = relay.Function([c[1] for c in convs] + [c[3] for c in convs],
                          relay.Tuple([c[0] for c in convs]))
    outs, factory = build_run(func, {c[1].name_hint: c[2] for c in convs},
                              {c[3].name_hint: c[4] for c in convs}, target=target)
    for o, c in zip(outs, convs):
        np.testing.assert_array_equal(o, c[5])
    return outs, factory.get_lib()


@pytest.mark.parametrize("mcpu", sorted(FAST))
def test_conv2d_int8_exact_and_fast(rng, mcpu):
    """uint8 and int8 data, odd channel counts (padded to 4 in, 16 out), stride 2,
    asymmetric padding and the extreme values give numpy's exact result, and the assembly
    of the module (the imported micro-kernel included) has the CPU's 8-bit instruction."""
    convs = [_conv(rng, dt, dt, 17, 29, strides=(2, 1), size=(5, 6), extremes=True)
             for dt in ("uint8", "int8")]
    _, lib = _build_run(convs, _target(mcpu))
    assert "tvml_x86_i8_dot_16x4" in lib.get_source()
    assert FAST[mcpu] in lib.get_source("asm")


def test_conv2d_int8_channel_blocks(rng):
    mcpu = next((m for m in ("cascadelake", "skylake-avx512", "core-avx2", "nehalem")
                 if _runnable(m)), None)
    if mcpu is None:
        pytest.skip("this host has no SSE4.2")
    _build_run([_conv(rng, str(ic), "uint8", ic, oc, size=(5, 6))
                for ic, oc in [(1, 16), (6, 4), (32, 16)]], _target(mcpu))


def test_conv2d_int8_without_sse42_is_the_plain_convolution(rng):
    _, lib = _build_run([_conv(rng, "", "uint8", 4, 16, size=(4, 5))],
                        _target("x86-64"))
    assert "tvml_x86_i8_dot_16x4" not in lib.get_source()


def test_conv2d_int8_exported_library_links_the_kernel(rng, tmp_path):
    mcpu = next((m for m in sorted(FAST) if _runnable(m)), None)
    if mcpu is None:
        pytest.skip("this host has no SSE4.2")
    y, x, d, w, k, want = _conv(rng, "", "int8", 5, 7, size=(4, 4))
    with tvm.transform.PassContext(opt_level=3):
        factory = relay.build(relay.Function([x, w], y), f"llvm -mcpu={mcpu}", params={"w": k})
    path = os.path.join(tmp_path, "lib.so")
    factory.export_library(path)
    from tvmlite.contrib import graph_executor
    gm = graph_executor.GraphModule(tvm.runtime.load_module(path)["default"](tvm.cpu()))
    gm.set_input("x", d)
    gm.run()
    np.testing.assert_array_equal(gm.get_output(0).numpy(), want)


def test_conv2d_nchw_int8_rejects_other_dtypes():
    d = te.placeholder((1, 4, 5, 5), "float32")
    k = te.placeholder((16, 4, 3, 3), "int8")
    with pytest.raises(TVMError, match="conv2d_nchw_int8: needs uint8 or int8 data"):
        topi.x86.conv2d_nchw_int8(d, k, 1, 0, 1, "int32")
    d8 = te.placeholder((1, 4, 5, 5), "uint8")
    with pytest.raises(TVMError, match="groups must be 1"):
        topi.x86.conv2d_nchw_int8(d8, te.placeholder((16, 2, 3, 3), "int8"), 1, 0, 1)


def test_conv2d_NCHWc_int8_checks_the_kernel_block():
    d = te.placeholder((1, 2, 5, 5, 8), "uint8")
    with pytest.raises(TVMError, match="input-channel blocks differ"):
        topi.nn.conv2d_NCHWc_int8(d, te.placeholder((1, 2, 3, 3, 1, 16, 4), "int8"), 1, 0, 1,
                                  "NCHW8c", "NCHW16c")
    with pytest.raises(TVMError, match="n_elems=4"):
        topi.nn.conv2d_NCHWc_int8(d, te.placeholder((1, 2, 3, 3, 4, 16, 2), "int8"), 1, 0, 1,
                                  "NCHW8c", "NCHW16c")


def test_is_int8_hw_support():
    with tvm.target.Target("llvm -mcpu=nehalem"):
        assert topi.x86.is_int8_hw_support("uint8", "int8")
        assert not topi.x86.is_int8_hw_support("int8", "int8")
    with tvm.target.Target("llvm -mcpu=x86-64"):
        assert not topi.x86.is_int8_hw_support("uint8", "int8")


def test_conv2d_int8_dynamic_batch_keeps_the_plain_convolution(rng):
    mcpu = next((m for m in sorted(FAST) if _runnable(m)), None)
    if mcpu is None:
        pytest.skip("this host has no SSE4.2")
    x = relay.var("x", shape=(relay.Any(), 8, 6, 6), dtype="uint8")
    w = relay.var("w", shape=(16, 8, 3, 3), dtype="int8")
    y = relay.nn.conv2d(x, w, channels=16, kernel_size=3, out_dtype="int32")
    ex = relay.create_executor("vm", mod=tvm.IRModule.from_expr(relay.Function([x, w], y)),
                               target=f"llvm -mcpu={mcpu}")
    d = rng.integers(0, 256, (3, 8, 6, 6)).astype("uint8")
    k = rng.integers(-128, 128, (16, 8, 3, 3)).astype("int8")
    np.testing.assert_array_equal(ex.evaluate()(d, k).numpy(),
                                  conv2d_nchw_python(d.astype("int64"), k.astype("int64"), 1, 0))
