"""ResNet-18, MobileNetV2 and a BERT-base encoder layer as ONNX files with random weights,
written by torch's exporter (no downloads, no torchvision). ``small=True`` gives narrow,
low-resolution variants of the same architectures for the tests; the bench uses the full ones.

Run ``python tests/models/onnx_models.py OUTDIR`` to write all six files.
"""
from __future__ import annotations

import sys
from typing import Dict, Tuple

import numpy as np


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

    mult = 0.25 if small else 1.0
    settings = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
                (6, 160, 3, 2), (6, 320, 1, 1)]

    def ch(c):
        return max(8, int(c * mult + 4) // 8 * 8)
    cin = ch(32)
    layers = cbr(3, cin, 3, 2)
    for t, c, n, s in settings:
        n = 1 if small else n
        for i in range(n):
            layers.append(Inverted(cin, ch(c), s if i == 0 else 1, t))
            cin = ch(c)
    last = 128 if small else 1280
    layers += cbr(cin, last, 1, 1)
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2),
               nn.Linear(last, 10 if small else 1000)]
    return nn.Sequential(*layers)


def bert_layer(small: bool = False):
    """One BERT-base encoder layer (HF's BertLayer: self-attention with an additive mask,
    residual + LayerNorm, GELU feed-forward); ``small``: hidden 64, 4 heads."""
    torch = _torch()
    nn = torch.nn
    hidden, heads, ffn = (64, 4, 128) if small else (768, 12, 3072)

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


def input_shapes(name: str, small: bool = False) -> Dict[str, Tuple[int, ...]]:
    if name in ("bert_layer", "bert_encoder"):
        seq, hidden = (16, 64) if small else (128, 768)
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


def export(name: str, path: str, small: bool = False, seed: int = 0) -> str:
    """Write model ``name`` (random weights from ``seed``) as an opset-17 ONNX file."""
    torch = _torch()
    torch.manual_seed(seed)
    model = MODELS[name](small)
    _randomize_bn(model, seed)
    model.eval()
    args = tuple(torch.from_numpy(v) for v in random_inputs(name, small).values())
    names = list(input_shapes(name, small))
    with torch.no_grad():
        torch.onnx.export(model, args, path, input_names=names, output_names=["y"],
                          opset_version=17, dynamo=False, do_constant_folding=True)
    return path


if __name__ == "__main__":
    import os
    import warnings
    warnings.simplefilter("ignore")
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(out, exist_ok=True)
    for n in MODELS:
        for sm in (False, True):
            print(export(n, os.path.join(out, f"{n}{'_small' if sm else ''}.onnx"), sm))
