"""from_onnx: RNN, GRU and LSTM unrolled over the sequence, compared with onnxruntime on random
weights: directions, biases, initial states, peepholes, layouts, clipping, activations."""
import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from relay_helpers import onnxruntime_outputs, run_onnx  # noqa: E402

from tvmlite import relay  # noqa: E402
from tvmlite.relay.frontend.onnx import OnnxImportError  # noqa: E402

GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}


def _layer(kind, seq=5, batch=3, inp=4, hidden=6, direction="forward", bias=True,
           initial=False, peephole=False, layout=0, freeze=False, rng=None, **attrs):
    """A one-node model and its feeds."""
    dirs = 2 if direction == "bidirectional" else 1
    g = GATES[kind]
    x_shape = (seq, batch, inp) if layout == 0 else (batch, seq, inp)
    feeds = {"x": rng.standard_normal(x_shape).astype("float32")}
    inits = {"w": rng.standard_normal((dirs, g * hidden, inp)).astype("float32") * 0.5,
             "r": rng.standard_normal((dirs, g * hidden, hidden)).astype("float32") * 0.5}
    names = ["x", "w", "r", "", "", "", "", ""]
    if bias:
        inits["b"] = rng.standard_normal((dirs, 2 * g * hidden)).astype("float32") * 0.5
        names[3] = "b"
    if initial:
        h_shape = (dirs, batch, hidden) if layout == 0 else (batch, dirs, hidden)
        feeds["h0"] = rng.standard_normal(h_shape).astype("float32")
        names[5] = "h0"
        if kind == "LSTM":
            feeds["c0"] = rng.standard_normal(h_shape).astype("float32")
            names[6] = "c0"
    if peephole:
        inits["p"] = rng.standard_normal((dirs, 3 * hidden)).astype("float32")
        names[7] = "p"
    while names and not names[-1]:
        names.pop()
    outs = ["y", "y_h", "y_c"] if kind == "LSTM" else ["y", "y_h"]
    node = helper.make_node(kind, names, outs, hidden_size=hidden, direction=direction,
                            layout=layout, **attrs)
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info(k, TensorProto.FLOAT, v.shape) for k, v in feeds.items()],
        [helper.make_empty_tensor_value_info(o) for o in outs],
        [numpy_helper.from_array(v, k) for k, v in inits.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    model.ir_version = 8
    return model, feeds


def _check(model, feeds, freeze=False, rtol=1e-4, atol=1e-5):
    expect = onnxruntime_outputs(model, feeds)
    got = run_onnx(model, feeds, freeze)
    assert len(got) == len(expect)
    for g, e in zip(got, expect):
        assert g.shape == e.shape
        np.testing.assert_allclose(g, e, rtol=rtol, atol=atol)


@pytest.mark.parametrize("kind", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("direction", ["forward", "reverse", "bidirectional"])
def test_directions(rng, kind, direction):
    _check(*_layer(kind, direction=direction, rng=rng))


@pytest.mark.parametrize("kind", ["RNN", "GRU", "LSTM"])
def test_initial_state_no_bias(rng, kind):
    _check(*_layer(kind, seq=4, batch=2, inp=3, hidden=5, bias=False, initial=True,
                   direction="bidirectional", rng=rng))


@pytest.mark.parametrize("kind", ["GRU", "LSTM"])
def test_batch_first_layout_is_the_transposed_layer(kind):
    # onnxruntime refuses layout=1: compare with the same layer in layout 0 on the transposed
    # inputs, whose outputs are the transposed outputs
    args = dict(seq=4, batch=2, inp=3, hidden=5, initial=True, direction="bidirectional")
    m0, f0 = _layer(kind, rng=np.random.default_rng(5), **args)
    m1, f1 = _layer(kind, layout=1, rng=np.random.default_rng(5), **args)
    expect = onnxruntime_outputs(m0, {k: np.ascontiguousarray(v.swapaxes(0, 1))
                                      for k, v in f1.items()})
    got = run_onnx(m1, f1)
    np.testing.assert_allclose(got[0], expect[0].transpose(2, 0, 1, 3), rtol=1e-4, atol=1e-5)
    for g, e in zip(got[1:], expect[1:]):
        np.testing.assert_allclose(g, e.swapaxes(0, 1), rtol=1e-4, atol=1e-5)


def test_lstm_peepholes_clip_input_forget(rng):
    _check(*_layer("LSTM", peephole=True, initial=True, clip=0.7, rng=rng))
    _check(*_layer("LSTM", peephole=True, input_forget=1, direction="bidirectional", rng=rng))


@pytest.mark.parametrize("lbr", [0, 1])
def test_gru_linear_before_reset(rng, lbr):
    _check(*_layer("GRU", linear_before_reset=lbr, initial=True, rng=rng), freeze=True)


def test_activations_with_alpha_and_beta(rng):
    _check(*_layer("RNN", activations=["Relu"], rng=rng))
    _check(*_layer("GRU", activations=["HardSigmoid", "LeakyRelu"], activation_alpha=[0.3, 0.1],
                   activation_beta=[0.4], rng=rng))
    _check(*_layer("LSTM", direction="bidirectional",
                   activations=["Sigmoid", "Tanh", "Tanh", "HardSigmoid", "Softsign", "Elu"],
                   activation_alpha=[0.25, 0.8], activation_beta=[0.45], rng=rng))


def test_unsupported_inputs_are_clear_errors(rng):
    model, _ = _layer("LSTM", rng=rng)
    model.graph.node[0].input.append("lens")  # X, W, R, B, sequence_lens
    model.graph.input.append(helper.make_tensor_value_info("lens", TensorProto.INT32, [3]))
    with pytest.raises(OnnxImportError, match="sequence_lens computed at run time"):
        relay.frontend.from_onnx(model)
    model, _ = _layer("RNN", activations=["Gelu"], rng=rng)
    with pytest.raises(OnnxImportError, match="activation 'Gelu' is not supported"):
        relay.frontend.from_onnx(model)


def test_constant_sequence_lens_of_full_length(rng):
    model, feeds = _layer("GRU", seq=5, batch=3, rng=rng)
    model.graph.node[0].input.append("lens")
    model.graph.initializer.append(numpy_helper.from_array(np.full(3, 5, "int32"), "lens"))
    _check(model, feeds)
    model.graph.initializer[-1].CopyFrom(numpy_helper.from_array(
        np.array([5, 4, 5], "int32"), "lens"))
    with pytest.raises(OnnxImportError, match=r"sequence_lens \[5, 4, 5\] must equal"):
        relay.frontend.from_onnx(model)


def test_torch_exported_stacked_lstm_and_gru():
    torch = pytest.importorskip("torch")
    import io

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = torch.nn.LSTM(4, 6, num_layers=2, bidirectional=True, batch_first=True)
            self.gru = torch.nn.GRU(12, 5, batch_first=True)

        def forward(self, x):
            y, _ = self.lstm(x)
            return self.gru(y)

    torch.manual_seed(0)
    net, x = Net().eval(), torch.randn(2, 3, 4)
    buf = io.BytesIO()
    torch.onnx.export(net, (x,), buf, opset_version=14, dynamo=False)
    model = onnx.load_from_string(buf.getvalue())
    assert {"LSTM", "GRU"} <= {n.op_type for n in model.graph.node}
    got = run_onnx(model, {model.graph.input[0].name: x.numpy()})
    with torch.no_grad():
        expect = net(x)
    for g, e in zip(got, expect):
        np.testing.assert_allclose(g, e.numpy(), rtol=1e-4, atol=1e-5)
