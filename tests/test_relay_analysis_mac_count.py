"""relay.analysis.get_total_mac_number: multiply-accumulates of convolutions, dense layers and
batch matmuls, by layout, grouping and transposition, before and after AlterOpLayout."""
import pytest

import tvmlite as tvm
from tvmlite import relay
from tvmlite.relay import analysis


def _typed(func, *passes):
    mod = relay.transform.InferType()(tvm.IRModule.from_expr(func))
    for p in passes:
        mod = relay.transform.InferType()(p(mod))
    return mod["main"]


def _macs(body, *passes):
    return analysis.get_total_mac_number(
        _typed(relay.Function(relay.analysis.free_vars(body), body), *passes))


@pytest.mark.parametrize("groups", [1, 3])
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_conv2d_counts_each_output_times_its_window(groups, layout):
    n, c, h, w, oc, kh, kw, stride = 2, 6, 13, 11, 9, 3, 2, 2
    dshape = (n, c, h, w) if layout == "NCHW" else (n, h, w, c)
    wshape = (oc, c // groups, kh, kw) if layout == "NCHW" else (kh, kw, c // groups, oc)
    x, k = relay.var("x", shape=dshape), relay.var("k", shape=wshape)
    y = relay.nn.conv2d(x, k, strides=(stride, stride), padding=(1, 1), groups=groups,
                        data_layout=layout,
                        kernel_layout="OIHW" if layout == "NCHW" else "HWIO")
    oh, ow = (h + 2 - kh) // stride + 1, (w + 2 - kw) // stride + 1
    assert _macs(y) == n * oc * oh * ow * (c // groups) * kh * kw


def test_depthwise_and_transposed_conv():
    x = relay.var("x", shape=(1, 8, 7, 9))
    dw = relay.nn.conv2d(x, relay.var("w", shape=(8, 1, 3, 3)), padding=(1, 1), groups=8)
    assert _macs(dw) == 8 * 7 * 9 * 9
    t = relay.nn.conv2d_transpose(x, relay.var("t", shape=(8, 5, 3, 3)), channels=5,
                                  kernel_size=(3, 3), strides=(2, 2), padding=(1, 1))
    oh, ow = (7 - 1) * 2 - 2 + 3, (9 - 1) * 2 - 2 + 3
    assert _macs(t) == 8 * oh * ow * 5 * 3 * 3  # classic's count: in x out x window


def test_dense_and_batch_matmul():
    d = relay.nn.dense(relay.var("a", shape=(5, 17)), relay.var("b", shape=(3, 17)))
    assert _macs(d) == 5 * 3 * 17
    x, y = relay.var("x", shape=(4, 6, 7)), relay.var("y", shape=(4, 5, 7))
    assert _macs(relay.nn.batch_matmul(x, y)) == 4 * 6 * 5 * 7
    # elementwise ops count nothing; a shared call counts once
    assert _macs(relay.nn.relu(relay.add(d, d))) == 5 * 3 * 17


def test_packed_layout_counts_the_same():
    x = relay.var("x", shape=(1, 32, 14, 14))
    y = relay.nn.conv2d(x, relay.var("w", shape=(48, 32, 3, 3)), padding=(1, 1))
    z = relay.nn.dense(relay.nn.batch_flatten(relay.nn.relu(y)),
                       relay.const(tvm.nd.empty((10, 48 * 14 * 14)).numpy()))
    plain = _macs(z)
    with tvm.transform.PassContext(opt_level=3), tvm.target.Target("llvm"):
        packed = _macs(z, relay.transform.AlterOpLayout())
    assert plain == packed == 48 * 14 * 14 * 32 * 9 + 10 * 48 * 14 * 14


def test_resnet18_is_the_published_figure():
    mod, _ = relay.testing.resnet.get_workload(num_layers=18, batch_size=1)
    # ResNet-18 at 224x224: 1.81 G multiply-accumulates (He et al. report 1.8 GFLOPs)
    assert 1.80e9 < analysis.get_total_mac_number(mod["main"]) < 1.83e9
