"""Whole networks from ONNX (ResNet-18, MobileNetV2, a BERT encoder layer; the narrow variants
of tests/models/onnx_models.py) compiled with relay.build at opt_level 3 and compared with
onnxruntime: max relative error <= 1e-4.

Every model is written by the ``onnx.helper`` writer (batch norms and layer norms as their own
nodes; the BERT layer also at opset 13, where layer norm is decomposed); where torch is
installed, also by torch's exporter (batch norms folded into the convolutions)."""
import warnings

import numpy as np
import pytest

pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from models import onnx_models  # noqa: E402

import tvmlite as tvm  # noqa: E402
from tvmlite import relay  # noqa: E402
from tvmlite.contrib import graph_executor  # noqa: E402

MODELS = ["resnet18", "mobilenet_v2", "bert_layer"]
needs_torch = pytest.mark.skipif(not onnx_models.have_torch(), reason="torch is not installed")


def max_rel_err(got: np.ndarray, want: np.ndarray) -> float:
    return float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-30))


def _compare(path: str, name: str) -> relay.Function:
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
    assert np.abs(want).max() > 1e-3  # a non-degenerate output
    assert max_rel_err(got, want) <= 1e-4
    return mod


@pytest.mark.parametrize("name,opset", [(n, 17) for n in MODELS] + [("bert_layer", 13)])
def test_model_vs_onnxruntime(tmp_path, name, opset):
    path = str(tmp_path / f"{name}.onnx")
    onnx_models.export(name, path, small=True, backend="onnx", opset=opset)
    text = _compare(path, name).astext()
    if name == "bert_layer":
        assert text.count("nn.layer_norm(") == (2 if opset >= 17 else 0)
        assert "erf(" in text and "nn.softmax(" in text
    else:  # the batch norms reach relay as such (torch's exporter folds them away)
        assert text.count("nn.batch_norm(") == {"resnet18": 20, "mobilenet_v2": 22}[name]


@needs_torch
@pytest.mark.parametrize("name", MODELS)
def test_torch_exported_model_vs_onnxruntime(tmp_path, name):
    path = str(tmp_path / f"{name}.onnx")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        onnx_models.export(name, path, small=True, backend="torch")
    _compare(path, name)


def test_writer_inputs_and_checks():
    import onnx
    for name in MODELS + ["bert_encoder"]:
        model = onnx_models.onnx_model(name, small=True, seed=3, opset=15)
        onnx.checker.check_model(model, full_check=True)
        ins = {i.name: tuple(d.dim_value for d in i.type.tensor_type.shape.dim)
               for i in model.graph.input}
        assert ins == onnx_models.input_shapes(name, small=True)
        assert [o.name for o in model.graph.output] == ["y"]
        assert model.opset_import[0].version == 15
    # seeded: the same seed gives the same weights, another seed other ones
    a, b, c = (onnx_models.onnx_model("resnet18", small=True, seed=s) for s in (0, 0, 1))
    assert a.SerializeToString() == b.SerializeToString() != c.SerializeToString()
    with pytest.raises(ValueError, match="opset"):
        onnx_models.onnx_model("resnet18", small=True, opset=18)
    with pytest.raises(ValueError, match="backend"):
        onnx_models.export("resnet18", "unused.onnx", small=True, backend="tf")
