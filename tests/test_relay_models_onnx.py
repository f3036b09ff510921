"""Whole networks from ONNX (ResNet-18, MobileNetV2, a BERT encoder layer; narrow variants,
written by tests/models/onnx_models.py with torch's exporter) compiled with relay.build at
opt_level 3 and compared with onnxruntime: max relative error <= 1e-4."""
import warnings

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from models import onnx_models  # noqa: E402

import tvmlite as tvm  # noqa: E402
from tvmlite import relay  # noqa: E402
from tvmlite.contrib import graph_executor  # noqa: E402


def max_rel_err(got: np.ndarray, want: np.ndarray) -> float:
    return float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-30))


@pytest.mark.parametrize("name", ["resnet18", "mobilenet_v2", "bert_layer"])
def test_model_vs_onnxruntime(tmp_path, name):
    path = str(tmp_path / f"{name}.onnx")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        onnx_models.export(name, path, small=True)
    feeds = onnx_models.random_inputs(name, small=True, seed=1)
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    (want,) = sess.run(None, feeds)
    mod, params = relay.frontend.from_onnx(path)
    with tvm.transform.PassContext(opt_level=3):
        factory = relay.build(mod, target="llvm", params=params)
    gm = graph_executor.GraphModule(factory["default"](tvm.cpu()))
    gm.run(**feeds)
    got = gm.get_output(0).numpy()
    assert got.shape == want.shape
    assert max_rel_err(got, want) <= 1e-4
