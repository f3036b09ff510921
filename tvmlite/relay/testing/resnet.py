"""ResNet (v2, pre-activation, as classic ``relay.testing.resnet``): 18/34 layers with basic
units, 50 and more with bottlenecks; a CIFAR-style stem for images of 32 pixels or less."""
from __future__ import annotations

from typing import Any, Dict, Tuple

from ...error import TVMError
from ...ir.module import IRModule
from .. import op as _op
from ..analysis import free_vars
from ..expr import Expr, Function, var
from ..op import nn as _nn
from . import layers
from .init import create_workload

_IMAGENET_UNITS = {18: [2, 2, 2, 2], 34: [3, 4, 6, 3], 50: [3, 4, 6, 3], 101: [3, 4, 23, 3],
                   152: [3, 8, 36, 3], 200: [3, 24, 36, 3], 269: [3, 30, 48, 8]}


def residual_unit(data: Expr, num_filter: int, stride, dim_match: bool, name: str,
                  bottle_neck: bool = True) -> Expr:
    """One pre-activation residual unit (BN, ReLU, conv ...; a 1x1 projection shortcut when
    the shape changes)."""
    act1 = _nn.relu(layers.batch_norm_infer(data, epsilon=2e-5, name=f"{name}_bn1"))
    if bottle_neck:
        mid = int(num_filter * 0.25)
        x = layers.conv2d(act1, mid, (1, 1), stride, (0, 0), name=f"{name}_conv1")
        x = _nn.relu(layers.batch_norm_infer(x, epsilon=2e-5, name=f"{name}_bn2"))
        x = layers.conv2d(x, mid, (3, 3), (1, 1), (1, 1), name=f"{name}_conv2")
        x = _nn.relu(layers.batch_norm_infer(x, epsilon=2e-5, name=f"{name}_bn3"))
        x = layers.conv2d(x, num_filter, (1, 1), (1, 1), (0, 0), name=f"{name}_conv3")
    else:
        x = layers.conv2d(act1, num_filter, (3, 3), stride, (1, 1), name=f"{name}_conv1")
        x = _nn.relu(layers.batch_norm_infer(x, epsilon=2e-5, name=f"{name}_bn2"))
        x = layers.conv2d(x, num_filter, (3, 3), (1, 1), (1, 1), name=f"{name}_conv2")
    shortcut = data if dim_match else layers.conv2d(act1, num_filter, (1, 1), stride,
                                                    (0, 0), name=f"{name}_sc")
    return _op.add(x, shortcut)


def resnet(units, num_stages: int, filter_list, num_classes: int, data_shape,
           bottle_neck: bool = True, dtype: str = "float32") -> Function:
    """The ResNet function on ``data`` of ``data_shape``."""
    data = var("data", shape=data_shape, dtype=dtype)
    body = layers.batch_norm_infer(data, epsilon=2e-5, scale=False, name="bn_data")
    if data_shape[2] <= 32:
        body = layers.conv2d(body, filter_list[0], (3, 3), (1, 1), (1, 1), name="conv0")
    else:
        body = layers.conv2d(body, filter_list[0], (7, 7), (2, 2), (3, 3), name="conv0")
        body = _nn.relu(layers.batch_norm_infer(body, epsilon=2e-5, name="bn0"))
        body = _nn.max_pool2d(body, pool_size=(3, 3), strides=(2, 2), padding=(1, 1))
    for i in range(num_stages):
        stride = (1, 1) if i == 0 else (2, 2)
        body = residual_unit(body, filter_list[i + 1], stride, False,
                             f"stage{i + 1}_unit1", bottle_neck)
        for j in range(units[i] - 1):
            body = residual_unit(body, filter_list[i + 1], (1, 1), True,
                                 f"stage{i + 1}_unit{j + 2}", bottle_neck)
    body = _nn.relu(layers.batch_norm_infer(body, epsilon=2e-5, name="bn1"))
    flat = _nn.batch_flatten(_nn.global_avg_pool2d(body))
    net = _nn.softmax(layers.dense_add_bias(flat, num_classes, name="fc1"))
    return Function(free_vars(net), net)


def get_net(batch_size: int, num_classes: int, num_layers: int = 50,
            image_shape=(3, 224, 224), dtype: str = "float32") -> Function:
    """The ResNet-``num_layers`` function for images of ``image_shape``."""
    height = image_shape[1]
    if height <= 28:
        if (num_layers - 2) % 9 == 0 and num_layers >= 164:
            per_unit, filter_list, bottle_neck = (num_layers - 2) // 9, [16, 64, 128, 256], True
        elif (num_layers - 2) % 6 == 0 and num_layers < 164:
            per_unit, filter_list, bottle_neck = (num_layers - 2) // 6, [16, 16, 32, 64], False
        else:
            raise TVMError(f"resnet: no {num_layers}-layer network for {height}-pixel images "
                           "(6n+2 layers below 164, 9n+2 from 164)")
        num_stages, units = 3, [per_unit] * 3
    else:
        if num_layers not in _IMAGENET_UNITS:
            raise TVMError(f"resnet: num_layers must be one of {sorted(_IMAGENET_UNITS)}, "
                           f"got {num_layers}")
        bottle_neck = num_layers >= 50
        filter_list = [64, 256, 512, 1024, 2048] if bottle_neck else [64, 64, 128, 256, 512]
        num_stages, units = 4, _IMAGENET_UNITS[num_layers]
    return resnet(units, num_stages, filter_list, num_classes,
                  (batch_size,) + tuple(image_shape), bottle_neck, dtype)


def get_workload(batch_size: int = 1, num_classes: int = 1000, num_layers: int = 18,
                 image_shape=(3, 224, 224), dtype: str = "float32", layout: str = "NCHW",
                 **kwargs) -> Tuple[IRModule, Dict[str, Any]]:
    """``(mod, params)`` of ResNet-``num_layers`` with random weights."""
    if layout != "NCHW":
        raise TVMError(f"resnet.get_workload: only layout NCHW is supported, got {layout!r}")
    return create_workload(get_net(batch_size, num_classes, num_layers, image_shape, dtype))
