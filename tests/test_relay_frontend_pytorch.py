"""relay.frontend.from_pytorch (a traced module through PyTorch's ONNX exporter and the one
ONNX importer) vs PyTorch's own output; skipped without torch."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relay
from tvmlite.contrib import graph_executor

torch = pytest.importorskip("torch")
pytest.importorskip("onnx")
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")  # torch.jit.trace's own


def _run(mod, params, inputs):
    with tvm.transform.PassContext(opt_level=3):
        lib = relay.build(mod, target="llvm", params=params)
    gm = graph_executor.GraphModule(lib["default"](tvm.cpu()))
    gm.run(**inputs)
    return [gm.get_output(i).numpy() for i in range(gm.get_num_outputs())]


class _Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 6, 3, stride=2, padding=1)
        self.bn = torch.nn.BatchNorm2d(6)
        self.dw = torch.nn.Conv2d(6, 6, 3, padding=1, groups=6)
        self.fc = torch.nn.Linear(6, 5)

    def forward(self, x, y):
        h = torch.relu(self.bn(self.conv(x)))
        h = torch.nn.functional.gelu(self.dw(h)) + h
        h = torch.nn.functional.adaptive_avg_pool2d(h, 1).flatten(1)
        return torch.softmax(self.fc(h) * y, dim=-1)


def test_traced_cnn_matches_torch():
    torch.manual_seed(0)
    m = _Block().eval()
    with torch.no_grad():
        m.bn.running_mean.uniform_(-0.5, 0.5)
        m.bn.running_var.uniform_(0.5, 1.5)
    x, y = torch.randn(2, 3, 11, 13), torch.randn(2, 5)
    want = m(x, y).detach().numpy()
    sm = torch.jit.trace(m, (x, y))
    mod, params = relay.frontend.from_pytorch(sm, [("x", (2, 3, 11, 13)),
                                                  ("y", ((2, 5), "float32"))])
    assert [p.name_hint for p in mod["main"].params][:2] == ["x", "y"]
    (got,) = _run(mod, params, {"x": x.numpy(), "y": y.numpy()})
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_layer_norm_and_int_inputs():
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = torch.nn.Embedding(17, 8)
            self.ln = torch.nn.LayerNorm(8)

        def forward(self, ids):
            return self.ln(self.emb(ids)).sum(dim=1)

    torch.manual_seed(1)
    m = M().eval()
    ids = torch.randint(0, 17, (3, 7))
    mod, params = relay.frontend.from_pytorch(torch.jit.trace(m, ids),
                                              [("ids", ((3, 7), "int64"))])
    (got,) = _run(mod, params, {"ids": ids.numpy()})
    np.testing.assert_allclose(got, m(ids).detach().numpy(), rtol=1e-4, atol=1e-5)


def test_bad_arguments_are_clear():
    m = torch.jit.trace(torch.nn.ReLU(), torch.zeros(2))
    with pytest.raises(tvm.TVMError, match=r"input_infos\[0\] must be"):
        relay.frontend.from_pytorch(m, ["x"])
    with pytest.raises(tvm.TVMError, match="static shape"):
        relay.frontend.from_pytorch(m, [("x", ("n",))])
    with pytest.raises(tvm.TVMError, match="unknown dtype 'float7'"):
        relay.frontend.from_pytorch(m, [("x", ((2,), "float7"))])
    with pytest.raises(tvm.TVMError, match="custom_convert_map"):
        relay.frontend.from_pytorch(m, [("x", (2,))], custom_convert_map={"aten::relu": None})
