"""Inception-v3 (Szegedy et al., "Rethinking the Inception Architecture for Computer Vision"),
as classic ``relay.testing.inception_v3``: a 299x299 input, a stem of convolutions, three
35x35 blocks, a grid reduction, four 17x17 blocks with factorized 7x7 convolutions, a second
reduction and two 8x8 blocks, then global average pooling and a classifier. Every
convolution is conv, batch norm (epsilon 2e-5), ReLU."""
from __future__ import annotations

from typing import Any, Dict, Sequence, Tuple

from ...ir.module import IRModule
from ..analysis import free_vars
from ..expr import Expr, Function, var
from ..op import nn as _nn
from ..op.tensor import concatenate
from . import layers
from .init import create_workload


def conv(data: Expr, channels: int, kernel=(1, 1), stride=(1, 1), pad=(0, 0),
         name: str = "") -> Expr:
    """conv, BN, ReLU (parameters ``{name}_conv_weight``, ``{name}_bn_*``)."""
    x = layers.conv2d(data, channels, kernel, stride, pad, name=f"{name}_conv")
    return _nn.relu(layers.batch_norm_infer(x, epsilon=2e-5, name=f"{name}_bn"))


def _pool(data: Expr, kind: str, kernel=(3, 3), stride=(1, 1), pad=(0, 0)) -> Expr:
    if kind == "max":
        return _nn.max_pool2d(data, kernel, stride, padding=pad)
    return _nn.avg_pool2d(data, kernel, stride, padding=pad, count_include_pad=True)


def _chain(data: Expr, name: str, specs: Sequence[Tuple[int, Tuple, Tuple, Tuple]]) -> Expr:
    """Convolutions in sequence: (channels, kernel, stride, pad) each."""
    for i, (c, k, s, p) in enumerate(specs):
        data = conv(data, c, k, s, p, name=f"{name}_{i}")
    return data


def block_a(data: Expr, pool_proj: int, name: str) -> Expr:
    """35x35: 1x1 | 1x1-5x5 | 1x1-3x3-3x3 | avgpool-1x1."""
    one, three = (1, 1), (3, 3)
    b1 = conv(data, 64, name=f"{name}_conv")
    b2 = _chain(data, f"{name}_tower0", [(48, one, one, (0, 0)), (64, (5, 5), one, (2, 2))])
    b3 = _chain(data, f"{name}_tower1", [(64, one, one, (0, 0)), (96, three, one, one),
                                          (96, three, one, one)])
    b4 = conv(_pool(data, "avg", three, one, one), pool_proj, name=f"{name}_pool_conv")
    return concatenate([b1, b2, b3, b4], axis=1)


def reduction_a(data: Expr, name: str) -> Expr:
    """35 -> 17: 3x3/2 | 1x1-3x3-3x3/2 | maxpool/2."""
    one, three, two = (1, 1), (3, 3), (2, 2)
    b1 = conv(data, 384, three, two, name=f"{name}_conv")
    b2 = _chain(data, f"{name}_tower0", [(64, one, one, (0, 0)), (96, three, one, one),
                                        (96, three, two, (0, 0))])
    return concatenate([b1, b2, _pool(data, "max", three, two)], axis=1)


def block_b(data: Expr, c7: int, name: str) -> Expr:
    """17x17 with factorized 7x7: 1x1 | 1x1-1x7-7x1 | 1x1-7x1-1x7-7x1-1x7 | avgpool-1x1."""
    one, r, c = (1, 1), ((1, 7), (0, 3)), ((7, 1), (3, 0))
    b1 = conv(data, 192, name=f"{name}_conv")
    b2 = _chain(data, f"{name}_tower0", [(c7, one, one, (0, 0)), (c7, r[0], one, r[1]),
                                        (192, c[0], one, c[1])])
    b3 = _chain(data, f"{name}_tower1", [(c7, one, one, (0, 0)), (c7, c[0], one, c[1]),
                                          (c7, r[0], one, r[1]), (c7, c[0], one, c[1]),
                                          (192, r[0], one, r[1])])
    b4 = conv(_pool(data, "avg", (3, 3), one, one), 192, name=f"{name}_pool_conv")
    return concatenate([b1, b2, b3, b4], axis=1)


def reduction_b(data: Expr, name: str) -> Expr:
    """17 -> 8: 1x1-3x3/2 | 1x1-1x7-7x1-3x3/2 | maxpool/2."""
    one, three, two = (1, 1), (3, 3), (2, 2)
    b1 = _chain(data, f"{name}_tower0", [(192, one, one, (0, 0)), (320, three, two, (0, 0))])
    b2 = _chain(data, f"{name}_tower1", [(192, one, one, (0, 0)), (192, (1, 7), one, (0, 3)),
                                          (192, (7, 1), one, (3, 0)),
                                          (192, three, two, (0, 0))])
    return concatenate([b1, b2, _pool(data, "max", three, two)], axis=1)


def block_c(data: Expr, pool: str, name: str) -> Expr:
    """8x8 with split 1x3 / 3x1 branches: 1x1 | 1x1-(1x3, 3x1) | 1x1-3x3-(1x3, 3x1) |
    pool-1x1."""
    one = (1, 1)
    b1 = conv(data, 320, name=f"{name}_conv")
    t = conv(data, 384, name=f"{name}_tower0_conv")
    b2 = [conv(t, 384, (1, 3), one, (0, 1), name=f"{name}_tower0_1x3"),
          conv(t, 384, (3, 1), one, (1, 0), name=f"{name}_tower0_3x1")]
    t = _chain(data, f"{name}_tower1", [(448, one, one, (0, 0)), (384, (3, 3), one, one)])
    b3 = [conv(t, 384, (1, 3), one, (0, 1), name=f"{name}_tower1_1x3"),
          conv(t, 384, (3, 1), one, (1, 0), name=f"{name}_tower1_3x1")]
    b4 = conv(_pool(data, pool, (3, 3), one, one), 192, name=f"{name}_pool_conv")
    return concatenate([b1, *b2, *b3, b4], axis=1)


def get_net(batch_size: int, num_classes: int, image_shape, dtype: str) -> Function:
    """The Inception-v3 function of ``data`` (``(batch_size,) + image_shape``)."""
    one, three, two = (1, 1), (3, 3), (2, 2)
    data = var("data", shape=(batch_size,) + tuple(image_shape), dtype=dtype)
    x = _chain(data, "stem", [(32, three, two, (0, 0)), (32, three, one, (0, 0)),
                              (64, three, one, one)])
    x = _pool(x, "max", three, two)
    x = _chain(x, "stem_b", [(80, one, one, (0, 0)), (192, three, one, (0, 0))])
    x = _pool(x, "max", three, two)
    for i, proj in enumerate((32, 64, 64)):
        x = block_a(x, proj, f"mixed_{i}")
    x = reduction_a(x, "mixed_3")
    for i, c7 in enumerate((128, 160, 160, 192)):
        x = block_b(x, c7, f"mixed_{4 + i}")
    x = reduction_b(x, "mixed_8")
    x = block_c(x, "avg", "mixed_9")
    x = block_c(x, "max", "mixed_10")
    x = _nn.batch_flatten(_pool(x, "avg", (8, 8), one))
    net = _nn.softmax(layers.dense_add_bias(x, num_classes, name="fc1"))
    return Function(free_vars(net), net)


def get_workload(batch_size: int = 1, num_classes: int = 1000, image_shape=(3, 299, 299),
                 dtype: str = "float32") -> Tuple[IRModule, Dict[str, Any]]:
    """``(mod, params)`` of Inception-v3 with random weights."""
    return create_workload(get_net(batch_size, num_classes, image_shape, dtype))
