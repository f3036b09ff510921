"""MobileNet (v1, as classic ``relay.testing.mobilenet``): depthwise-separable blocks."""
from __future__ import annotations

from typing import Any, Dict, Tuple

from ...error import TVMError
from ...ir.module import IRModule
from ..analysis import free_vars
from ..expr import Expr, Function, var
from ..op import nn as _nn
from . import layers
from .init import create_workload


def conv_block(data: Expr, name: str, channels: int, kernel_size=(3, 3), strides=(1, 1),
               padding=(1, 1), epsilon: float = 1e-5) -> Expr:
    """conv, BN, ReLU."""
    x = layers.conv2d(data, channels, kernel_size, strides, padding, name=f"{name}_conv")
    return _nn.relu(layers.batch_norm_infer(x, epsilon=epsilon, name=f"{name}_bn"))


def separable_conv_block(data: Expr, name: str, depthwise_channels: int,
                         pointwise_channels: int, kernel_size=(3, 3), downsample: bool = False,
                         padding=(1, 1), epsilon: float = 1e-5) -> Expr:
    """depthwise conv, BN, ReLU, pointwise conv, BN, ReLU."""
    strides = (2, 2) if downsample else (1, 1)
    x = layers.conv2d(data, depthwise_channels, kernel_size, strides, padding,
                      groups=depthwise_channels, name=f"{name}_depthwise_conv1")
    x = _nn.relu(layers.batch_norm_infer(x, epsilon=epsilon, name=f"{name}_bn1"))
    x = layers.conv2d(x, pointwise_channels, (1, 1), (1, 1), (0, 0), name=f"{name}_conv2")
    return _nn.relu(layers.batch_norm_infer(x, epsilon=epsilon, name=f"{name}_bn2"))


def mobile_net(num_classes: int = 1000, data_shape=(1, 3, 224, 224), dtype: str = "float32",
               alpha: float = 1.0, is_shallow: bool = False) -> Function:
    """The MobileNet function; ``alpha`` scales every layer's channels."""
    def ch(n):
        return int(n * alpha)
    data = var("data", shape=data_shape, dtype=dtype)
    body = conv_block(data, "conv_block_1", ch(32), strides=(2, 2))
    plan = [(32, 64, False), (64, 128, True), (128, 128, False), (128, 256, True),
            (256, 256, False), (256, 512, True)]
    if is_shallow:
        plan += [(512, 1024, True), (1024, 1024, True)]
    else:
        plan += [(512, 512, False)] * 5 + [(512, 1024, True), (1024, 1024, False)]
    for i, (dw, pw, down) in enumerate(plan):
        body = separable_conv_block(body, f"separable_conv_block_{i + 1}", ch(dw), ch(pw),
                                    downsample=down)
    flat = _nn.batch_flatten(_nn.global_avg_pool2d(body))
    w = var("fc_weight", shape=(num_classes, layers.shape_of(flat)[1]), dtype=dtype)
    net = _nn.softmax(_nn.dense(flat, w, num_classes))
    return Function(free_vars(net), net)


def get_workload(batch_size: int = 1, num_classes: int = 1000, image_shape=(3, 224, 224),
                 dtype: str = "float32", layout: str = "NCHW", alpha: float = 1.0,
                 is_shallow: bool = False) -> Tuple[IRModule, Dict[str, Any]]:
    """``(mod, params)`` of MobileNet with random weights."""
    if layout != "NCHW":
        raise TVMError(f"mobilenet.get_workload: only layout NCHW is supported, got {layout!r}")
    return create_workload(mobile_net(num_classes, (batch_size,) + tuple(image_shape), dtype,
                                      alpha, is_shallow))
