"""from_onnx's vision converters (RoiAlign in avg mode, MaxRoiPool) compared with
onnxruntime on random ROIs, and the clear refusals (max mode, half_pixel coordinates)."""
import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper  # noqa: E402

import tvmlite as tvm  # noqa: E402
from tvmlite import relay  # noqa: E402
from tvmlite.contrib import graph_executor  # noqa: E402
from tvmlite.relay.frontend.onnx import OnnxImportError  # noqa: E402

RNG = np.random.default_rng(2)
_TP = {"float32": TensorProto.FLOAT, "int64": TensorProto.INT64}


def model(node, feeds, opset):
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info(n, _TP[str(a.dtype)],
                                                                      a.shape)
                                        for n, a in feeds.items()],
                          [helper.make_empty_tensor_value_info("y")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def check(node, feeds, opset=16):
    m = model(node, feeds, opset)
    want = ort.InferenceSession(m.SerializeToString(),
                                providers=["CPUExecutionProvider"]).run(None, feeds)[0]
    mod, params = relay.frontend.from_onnx(m)
    gm = graph_executor.GraphModule(relay.build(mod, target="llvm",
                                                params=params)["default"](tvm.cpu()))
    gm.run(**feeds)
    got = gm.get_output(0).numpy()
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def inputs(num=5, batch=2):
    x = RNG.uniform(0, 1, (batch, 3, 9, 11)).astype("float32")
    rois = RNG.uniform(0, 10, (num, 4)).astype("float32")
    rois[:, 2:] += rois[:, :2] * 0.3
    return x, rois, RNG.integers(0, batch, num).astype("int64")


@pytest.mark.parametrize("opset,ratio,size,scale", [(10, 0, (3, 2), 0.7), (16, 2, (1, 4), 1.0),
                                                    (16, 1, (5, 5), 0.5)])
def test_roi_align(opset, ratio, size, scale):
    x, rois, idx = inputs()
    kw = {} if opset < 16 else {"coordinate_transformation_mode": "output_half_pixel"}
    node = helper.make_node("RoiAlign", ["x", "r", "b"], ["y"], output_height=size[0],
                            output_width=size[1], sampling_ratio=ratio, spatial_scale=scale,
                            **kw)
    check(node, {"x": x, "r": rois, "b": idx}, opset)


def test_roi_align_refusals():
    x, rois, idx = inputs()
    feeds = {"x": x, "r": rois, "b": idx}
    node = helper.make_node("RoiAlign", ["x", "r", "b"], ["y"], mode="max",
                            coordinate_transformation_mode="output_half_pixel")
    with pytest.raises(OnnxImportError, match="mode 'max'"):
        relay.frontend.from_onnx(model(node, feeds, 16))
    node = helper.make_node("RoiAlign", ["x", "r", "b"], ["y"])  # opset 16: half_pixel
    with pytest.raises(OnnxImportError, match="half_pixel"):
        relay.frontend.from_onnx(model(node, feeds, 16))


@pytest.mark.parametrize("pooled,scale", [((3, 2), 0.7), ((2, 2), 1.0), ((1, 5), 0.5)])
def test_max_roi_pool(pooled, scale):
    x, rois, idx = inputs(6)
    rois5 = np.concatenate([idx[:, None].astype("float32"), rois], 1)
    node = helper.make_node("MaxRoiPool", ["x", "r"], ["y"], pooled_shape=list(pooled),
                            spatial_scale=scale)
    check(node, {"x": x, "r": rois5})
