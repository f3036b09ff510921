"""ResNet-18, MobileNetV2 and a BERT-base encoder layer as ONNX files with random weights (no
downloads, no torchvision), written by one of two writers of the same architectures:

* ``backend="torch"``: torch modules (:data:`MODELS`) exported by torch's ONNX exporter;
* ``backend="onnx"``: the graphs built node by node with ``onnx.helper`` (:data:`ONNX_MODELS`,
  :func:`onnx_model`), which needs only the ``onnx`` package. Batch norms and layer norms stay
  separate nodes there (torch's exporter folds the batch norms into the convolutions).

``backend="auto"`` (the default of :func:`export`) takes torch where it is installed. ``small=True``
gives narrow, low-resolution variants of the architectures for the tests; the bench uses the full
ones.

Run ``python tests/models/onnx_models.py OUTDIR [--backend auto|torch|onnx]`` to write all the
files.
"""
from __future__ import annotations

import argparse
import importlib.util
import sys
from typing import Callable, Dict, List, Tuple

import numpy as np

OPSETS = range(13, 18)  # the opsets both writers can write


def _torch():
    import torch
    return torch


def _randomize_bn(model, seed: int) -> None:
    """Non-trivial running statistics and affine parameters (a fresh BN is an identity)."""
    torch = _torch()
    g = torch.Generator().manual_seed(seed)
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            n = m.num_features
            m.running_mean.copy_(torch.randn(n, generator=g) * 0.1)
            m.running_var.copy_(torch.rand(n, generator=g) + 0.5)
            m.weight.data.copy_(torch.rand(n, generator=g) + 0.5)
            m.bias.data.copy_(torch.randn(n, generator=g) * 0.1)


def resnet18(small: bool = False):
    """torchvision's ResNet-18 (BasicBlock x [2, 2, 2, 2]); ``small``: widths / 4."""
    nn = _torch().nn
    w = 16 if small else 64

    class Block(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.relu = nn.ReLU()
            self.down = None
            if stride != 1 or cin != cout:
                self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                          nn.BatchNorm2d(cout))

        def forward(self, x):
            y = self.relu(self.bn1(self.conv1(x)))
            y = self.bn2(self.conv2(y))
            return self.relu(y + (x if self.down is None else self.down(x)))

    layers = [nn.Conv2d(3, w, 7, 2, 3, bias=False), nn.BatchNorm2d(w), nn.ReLU(),
              nn.MaxPool2d(3, 2, 1)]
    cin = w
    for i, cout in enumerate((w, 2 * w, 4 * w, 8 * w)):
        layers += [Block(cin, cout, 1 if i == 0 else 2), Block(cout, cout, 1)]
        cin = cout
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cin, 10 if small else 1000)]
    return nn.Sequential(*layers)


def _mobilenet_v2_plan(small: bool) -> Tuple[int, List[Tuple[int, int, int, int]], int]:
    """MobileNetV2's stem width, inverted residuals ``(cin, cout, stride, expansion)`` and last
    width; ``small``: width multiplier 0.25 and one block per stage."""
    mult = 0.25 if small else 1.0
    settings = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
                (6, 160, 3, 2), (6, 320, 1, 1)]

    def ch(c):
        return max(8, int(c * mult + 4) // 8 * 8)
    cin = stem = ch(32)
    blocks = []
    for t, c, n, s in settings:
        for i in range(1 if small else n):
            blocks.append((cin, ch(c), s if i == 0 else 1, t))
            cin = ch(c)
    return stem, blocks, 128 if small else 1280


def mobilenet_v2(small: bool = False):
    """torchvision's MobileNetV2 (inverted residuals, ReLU6, depthwise 3x3); ``small``: width
    multiplier 0.25 and fewer repeats."""
    nn = _torch().nn

    def cbr(cin, cout, k, s, groups=1):
        return [nn.Conv2d(cin, cout, k, s, k // 2, groups=groups, bias=False),
                nn.BatchNorm2d(cout), nn.ReLU6()]

    class Inverted(nn.Module):
        def __init__(self, cin, cout, stride, t):
            super().__init__()
            hid = cin * t
            layers = cbr(cin, hid, 1, 1) if t != 1 else []
            layers += cbr(hid, hid, 3, stride, groups=hid)
            layers += [nn.Conv2d(hid, cout, 1, 1, 0, bias=False), nn.BatchNorm2d(cout)]
            self.body = nn.Sequential(*layers)
            self.res = stride == 1 and cin == cout

        def forward(self, x):
            return x + self.body(x) if self.res else self.body(x)

    stem, blocks, last = _mobilenet_v2_plan(small)
    layers = cbr(3, stem, 3, 2)
    for cin, cout, stride, t in blocks:
        layers.append(Inverted(cin, cout, stride, t))
    layers += cbr(blocks[-1][1], last, 1, 1)
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2),
               nn.Linear(last, 10 if small else 1000)]
    return nn.Sequential(*layers)


def bert_layer(small: bool = False):
    """One BERT-base encoder layer (HF's BertLayer: self-attention with an additive mask,
    residual + LayerNorm, GELU feed-forward); ``small``: hidden 64, 4 heads."""
    torch = _torch()
    nn = torch.nn
    _, hidden, heads, ffn = _bert_dims(small)

    class Layer(nn.Module):
        def __init__(self):
            super().__init__()
            self.q, self.k, self.v = (nn.Linear(hidden, hidden) for _ in range(3))
            self.o = nn.Linear(hidden, hidden)
            self.ln1 = nn.LayerNorm(hidden, eps=1e-12)
            self.up = nn.Linear(hidden, ffn)
            self.down = nn.Linear(ffn, hidden)
            self.ln2 = nn.LayerNorm(hidden, eps=1e-12)

        def split(self, x):
            b, s, _ = x.shape
            return x.view(b, s, heads, hidden // heads).permute(0, 2, 1, 3)

        def forward(self, x, mask):
            q, k, v = self.split(self.q(x)), self.split(self.k(x)), self.split(self.v(x))
            scores = torch.matmul(q, k.transpose(-1, -2)) / float(np.sqrt(hidden // heads))
            scores = scores + (1.0 - mask[:, None, None, :]) * -10000.0
            ctx = torch.matmul(torch.softmax(scores, dim=-1), v)
            b, _, s, _ = ctx.shape
            ctx = ctx.permute(0, 2, 1, 3).reshape(b, s, hidden)
            h = self.ln1(x + self.o(ctx))
            return self.ln2(h + self.down(nn.functional.gelu(self.up(h))))

    return Layer()


def bert_encoder(small: bool = False, num_layers: int = 24):
    """``num_layers`` stacked :func:`bert_layer` s (BERT-large depth by default)."""
    torch = _torch()

    class Encoder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = torch.nn.ModuleList(bert_layer(small) for _ in range(num_layers))

        def forward(self, x, mask):
            for layer in self.layers:
                x = layer(x, mask)
            return x

    return Encoder()


MODELS = {"resnet18": resnet18, "mobilenet_v2": mobilenet_v2, "bert_layer": bert_layer,
          "bert_encoder": bert_encoder}


# ------------------------------------------------------------------ the onnx.helper writer
class _Writer:
    """The nodes and initializers of one ONNX graph. Weights are drawn like torch's defaults
    (uniform in +-1/sqrt(fan_in)); batch and layer norms get non-trivial statistics and affine
    parameters."""

    def __init__(self, seed: int, opset: int):
        self.rng = np.random.default_rng(seed)
        self.opset = opset
        self.nodes: list = []
        self.inits: list = []
        self._count: Dict[str, int] = {}

    def fresh(self, prefix: str) -> str:
        k = self._count.get(prefix, 0)
        self._count[prefix] = k + 1
        return f"{prefix}_{k}"

    def const(self, value, prefix: str = "const", dtype: str = "float32") -> str:
        from onnx import numpy_helper
        name = self.fresh(prefix)
        self.inits.append(numpy_helper.from_array(np.asarray(value, dtype), name))
        return name

    def op(self, op_type: str, *inputs: str, **attrs) -> str:
        from onnx import helper
        out = self.fresh(op_type.lower())
        self.nodes.append(helper.make_node(op_type, list(inputs), [out], name=out, **attrs))
        return out

    def uniform(self, shape, fan_in: int, prefix: str) -> str:
        bound = 1.0 / np.sqrt(fan_in)
        return self.const(self.rng.uniform(-bound, bound, shape), prefix)

    def affine(self, n: int, prefix: str) -> Tuple[str, str]:
        """A norm's scale and shift: around 1 and around 0."""
        return (self.const(self.rng.uniform(0.5, 1.5, n), prefix + "_scale"),
                self.const(self.rng.standard_normal(n) * 0.1, prefix + "_bias"))

    # layers -------------------------------------------------------------------------------
    def conv(self, x: str, cin: int, cout: int, k: int, stride: int = 1,
             groups: int = 1) -> str:
        w = self.uniform((cout, cin // groups, k, k), cin // groups * k * k, "conv_w")
        return self.op("Conv", x, w, kernel_shape=[k, k], strides=[stride, stride],
                       pads=[k // 2] * 4, group=groups)

    def batch_norm(self, x: str, n: int) -> str:
        scale, bias = self.affine(n, "bn")
        mean = self.const(self.rng.standard_normal(n) * 0.1, "bn_mean")
        var = self.const(self.rng.uniform(0.5, 1.5, n), "bn_var")
        return self.op("BatchNormalization", x, scale, bias, mean, var, epsilon=1e-5)

    def gemm(self, x: str, cin: int, cout: int) -> str:
        """torch's Linear on a 2-D input: Gemm with the (out, in) weight transposed."""
        w = self.uniform((cout, cin), cin, "fc_w")
        b = self.uniform((cout,), cin, "fc_b")
        return self.op("Gemm", x, w, b, transB=1)

    def linear(self, x: str, cin: int, cout: int) -> str:
        """torch's Linear on an N-D input: MatMul by the (in, out) weight, then Add."""
        w = self.uniform((cin, cout), cin, "linear_w")
        b = self.uniform((cout,), cin, "linear_b")
        return self.op("Add", self.op("MatMul", x, w), b)

    def layer_norm(self, x: str, n: int, eps: float) -> str:
        """Over the last axis: one LayerNormalization node from opset 17, before it torch's
        decomposition (ReduceMean, Sub, Pow, Add, Sqrt, Div, Mul, Add)."""
        scale, bias = self.affine(n, "ln")
        if self.opset >= 17:
            return self.op("LayerNormalization", x, scale, bias, axis=-1, epsilon=eps)
        d = self.op("Sub", x, self.op("ReduceMean", x, axes=[-1], keepdims=1))
        var = self.op("ReduceMean", self.op("Pow", d, self.const(2.0)), axes=[-1], keepdims=1)
        y = self.op("Div", d, self.op("Sqrt", self.op("Add", var, self.const(eps))))
        return self.op("Add", self.op("Mul", y, scale), bias)

    def gelu(self, x: str) -> str:
        """The exact GELU as torch exports it: x * 0.5 * (1 + erf(x / sqrt(2)))."""
        e = self.op("Erf", self.op("Div", x, self.const(np.sqrt(2.0))))
        return self.op("Mul", self.op("Mul", x, self.op("Add", e, self.const(1.0))),
                       self.const(0.5))


def _resnet18_graph(g: _Writer, small: bool) -> str:
    w = 16 if small else 64

    def conv_bn(x, cin, cout, k, stride):
        return g.batch_norm(g.conv(x, cin, cout, k, stride), cout)

    def block(x, cin, cout, stride):
        y = g.op("Relu", conv_bn(x, cin, cout, 3, stride))
        y = conv_bn(y, cout, cout, 3, 1)
        short = x if stride == 1 and cin == cout else conv_bn(x, cin, cout, 1, stride)
        return g.op("Relu", g.op("Add", y, short))

    y = g.op("Relu", conv_bn("x", 3, w, 7, 2))
    y = g.op("MaxPool", y, kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    cin = w
    for i, cout in enumerate((w, 2 * w, 4 * w, 8 * w)):
        y = block(block(y, cin, cout, 1 if i == 0 else 2), cout, cout, 1)
        cin = cout
    y = g.op("Flatten", g.op("GlobalAveragePool", y), axis=1)
    return g.gemm(y, cin, 10 if small else 1000)


def _mobilenet_v2_graph(g: _Writer, small: bool) -> str:
    zero, six = g.const(0.0, "relu6_min"), g.const(6.0, "relu6_max")

    def cbr(x, cin, cout, k, stride, groups=1):  # conv, batch norm, ReLU6 as Clip(0, 6)
        return g.op("Clip", g.batch_norm(g.conv(x, cin, cout, k, stride, groups), cout),
                    zero, six)

    stem, blocks, last = _mobilenet_v2_plan(small)
    y = cbr("x", 3, stem, 3, 2)
    for cin, cout, stride, t in blocks:
        hid = cin * t
        h = cbr(y, cin, hid, 1, 1) if t != 1 else y
        h = cbr(h, hid, hid, 3, stride, groups=hid)  # depthwise
        h = g.batch_norm(g.conv(h, hid, cout, 1), cout)
        y = g.op("Add", y, h) if stride == 1 and cin == cout else h
    y = cbr(y, blocks[-1][1], last, 1, 1)
    y = g.op("Flatten", g.op("GlobalAveragePool", y), axis=1)
    y = g.op("Dropout", y, g.const(0.2, "dropout_ratio"))  # inference: the identity
    return g.gemm(y, last, 10 if small else 1000)


def _bert_dims(small: bool) -> Tuple[int, int, int, int]:
    """(sequence length, hidden, heads, feed-forward width)."""
    return (16, 64, 4, 128) if small else (128, 768, 12, 3072)


def _bert_layer_graph(g: _Writer, small: bool, x: str = "x") -> str:
    _, hidden, heads, ffn = _bert_dims(small)
    d = hidden // heads
    m = g.op("Unsqueeze", "mask", g.const([1, 2], "axes", "int64"))
    mask_bias = g.op("Mul", g.op("Sub", g.const(1.0), m), g.const(-10000.0))  # 0 or -1e4
    heads_shape = g.const([0, 0, heads, d], "heads_shape", "int64")

    def split(t, perm):  # (b, s, hidden) -> (b, heads, s, d), or (b, heads, d, s) for keys
        return g.op("Transpose", g.op("Reshape", t, heads_shape), perm=perm)

    q = split(g.linear(x, hidden, hidden), [0, 2, 1, 3])
    k = split(g.linear(x, hidden, hidden), [0, 2, 3, 1])
    v = split(g.linear(x, hidden, hidden), [0, 2, 1, 3])
    scores = g.op("Div", g.op("MatMul", q, k), g.const(np.sqrt(d)))
    probs = g.op("Softmax", g.op("Add", scores, mask_bias), axis=-1)
    ctx = g.op("Transpose", g.op("MatMul", probs, v), perm=[0, 2, 1, 3])
    ctx = g.op("Reshape", ctx, g.const([0, 0, hidden], "merged_shape", "int64"))
    h = g.layer_norm(g.op("Add", x, g.linear(ctx, hidden, hidden)), hidden, 1e-12)
    up = g.gelu(g.linear(h, hidden, ffn))
    return g.layer_norm(g.op("Add", h, g.linear(up, ffn, hidden)), hidden, 1e-12)


def _bert_encoder_graph(g: _Writer, small: bool, num_layers: int = 24) -> str:
    y = "x"
    for _ in range(num_layers):
        y = _bert_layer_graph(g, small, y)
    return y


ONNX_MODELS: Dict[str, Callable[[_Writer, bool], str]] = {
    "resnet18": _resnet18_graph, "mobilenet_v2": _mobilenet_v2_graph,
    "bert_layer": _bert_layer_graph, "bert_encoder": _bert_encoder_graph}


def output_shape(name: str, small: bool = False) -> Tuple[int, ...]:
    if name in ("bert_layer", "bert_encoder"):
        seq, hidden, _, _ = _bert_dims(small)
        return (1, seq, hidden)
    return (1, 10 if small else 1000)


def onnx_model(name: str, small: bool = False, seed: int = 0, opset: int = 17):
    """Model ``name`` as an ``onnx.ModelProto`` built with ``onnx.helper`` (random weights from
    ``seed``), checked by ``onnx.checker``."""
    import onnx
    from onnx import TensorProto, helper
    if opset not in OPSETS:
        raise ValueError(f"opset {opset}: the writer writes opsets {OPSETS[0]}-{OPSETS[-1]}")
    g = _Writer(seed, opset)
    out = ONNX_MODELS[name](g, small)
    for node in g.nodes:  # the graph's output is called "y", as in the torch export
        node.output[:] = ["y" if o == out else o for o in node.output]
    inputs = [helper.make_tensor_value_info(k, TensorProto.FLOAT, list(shape))
              for k, shape in input_shapes(name, small).items()]
    output = helper.make_tensor_value_info("y", TensorProto.FLOAT, list(output_shape(name, small)))
    graph = helper.make_graph(g.nodes, name, inputs, [output], initializer=g.inits)
    # IR version 8 (onnx 1.12, opset 17): what every onnxruntime since 1.12 reads
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              ir_version=8, producer_name="tvmlite tests/models/onnx_models.py")
    onnx.checker.check_model(model, full_check=True)
    return model


def input_shapes(name: str, small: bool = False) -> Dict[str, Tuple[int, ...]]:
    if name in ("bert_layer", "bert_encoder"):
        seq, hidden, _, _ = _bert_dims(small)
        return {"x": (1, seq, hidden), "mask": (1, seq)}
    return {"x": (1, 3, 32, 32) if small else (1, 3, 224, 224)}


def random_inputs(name: str, small: bool = False, seed: int = 0) -> Dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    out = {}
    for k, shape in input_shapes(name, small).items():
        if k == "mask":
            m = np.ones(shape, "float32")
            m[:, -3:] = 0.0  # padded tokens
            out[k] = m
        else:
            out[k] = rng.standard_normal(shape).astype("float32")
    return out


def have_torch() -> bool:
    return importlib.util.find_spec("torch") is not None


def export(name: str, path: str, small: bool = False, seed: int = 0, backend: str = "auto",
           opset: int = 17) -> str:
    """Write model ``name`` (random weights from ``seed``) as an ONNX file of ``opset``.

    ``backend``: "torch" (torch's exporter), "onnx" (the ``onnx.helper`` writer) or "auto"
    (torch where it is installed, else onnx). Both give the graph input names and shapes of
    :func:`input_shapes` and one output, "y"; their random weights differ."""
    if backend == "auto":
        backend = "torch" if have_torch() else "onnx"
    if backend == "onnx":
        import onnx
        onnx.save(onnx_model(name, small, seed, opset), path)
        return path
    if backend != "torch":
        raise ValueError(f"backend {backend!r}: expected 'auto', 'torch' or 'onnx'")
    torch = _torch()
    torch.manual_seed(seed)
    model = MODELS[name](small)
    _randomize_bn(model, seed)
    model.eval()
    args = tuple(torch.from_numpy(v) for v in random_inputs(name, small).values())
    names = list(input_shapes(name, small))
    with torch.no_grad():
        torch.onnx.export(model, args, path, input_names=names, output_names=["y"],
                          opset_version=opset, dynamo=False, do_constant_folding=True)
    return path


def main(argv=None) -> None:
    import os
    import warnings
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir", nargs="?", default=".")
    ap.add_argument("--backend", choices=("auto", "torch", "onnx"), default="auto")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    os.makedirs(args.outdir, exist_ok=True)
    for n in MODELS:
        for sm in (False, True):
            path = os.path.join(args.outdir, f"{n}{'_small' if sm else ''}.onnx")
            print(export(n, path, sm, backend=args.backend))


if __name__ == "__main__":
    main(sys.argv[1:])
