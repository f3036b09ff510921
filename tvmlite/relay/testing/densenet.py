"""DenseNet 121/161/169/201 (classic ``relay.testing.densenet``, its port of MXNet's Gluon
model): a 7x7/2 stem with batch norm and a 3x3/2 max pool, four dense blocks joined by
transitions (batch norm, ReLU, 1x1 convolution to half the features, 2x2/2 average pool),
then batch norm, ReLU, a 7x7 average pool and a dense layer. As in classic's port, each layer
of a block (batch norm, ReLU, 1x1 convolution to ``bn_size * growth_rate``, batch norm, ReLU,
3x3 convolution to ``growth_rate``) reads the previous layer's output and the block's output
concatenates its layers' outputs."""
from __future__ import annotations

from typing import Any, Dict, Tuple

from ...error import TVMError
from ...ir.module import IRModule
from ..analysis import free_vars
from ..expr import Expr, Function, var
from ..op import nn as _nn
from ..op.tensor import concatenate
from . import layers
from .init import create_workload

#: size: (initial features, growth rate, layers per block)
SPECS = {121: (64, 32, (6, 12, 24, 16)), 161: (96, 48, (6, 12, 36, 24)),
         169: (69, 32, (6, 12, 32, 32)), 201: (64, 32, (6, 12, 48, 32))}


def _bn_relu_conv(x: Expr, channels: int, kernel: int, bn: str, conv: str) -> Expr:
    x = _nn.relu(layers.batch_norm_infer(x, name=bn))
    return layers.conv2d(x, channels, (kernel, kernel), padding=(kernel // 2, kernel // 2),
                         name=conv)


def get_net(num_init_features: int, growth_rate: int, block_config, data_shape, dtype: str,
            bn_size: int = 4, classes: int = 1000) -> Function:
    """The DenseNet function of ``data`` (``data_shape``) and its weights."""
    x = var("data", shape=data_shape, dtype=dtype)
    x = layers.conv2d(x, num_init_features, (7, 7), (2, 2), (3, 3), name="conv1")
    x = _nn.relu(layers.batch_norm_infer(x, name="batch1"))
    x = _nn.max_pool2d(x, pool_size=(3, 3), strides=(2, 2), padding=(1, 1))
    features = num_init_features
    for b, n in enumerate(block_config):
        outs = []
        for i in range(n):
            x = _bn_relu_conv(x, bn_size * growth_rate, 1, f"batch_1_{b}_{i}", f"conv2d_1_{b}_{i}")
            x = _bn_relu_conv(x, growth_rate, 3, f"batch_2_{b}_{i}", f"conv2d_2_{b}_{i}")
            outs.append(x)
        x = concatenate(outs, axis=1)
        features += n * growth_rate
        if b != len(block_config) - 1:
            features //= 2
            x = _bn_relu_conv(x, features, 1, f"batch_t_{b}", f"conv_t_{b}")
            x = _nn.avg_pool2d(x, pool_size=(2, 2), strides=(2, 2))
    x = _nn.relu(layers.batch_norm_infer(x, name="batch2"))
    x = _nn.batch_flatten(_nn.avg_pool2d(x, pool_size=(7, 7)))
    net = layers.dense_add_bias(x, classes, name="dense")
    return Function(free_vars(net), net)


def get_workload(densenet_size: int = 121, classes: int = 1000, batch_size: int = 4,
                 image_shape=(3, 224, 224), dtype: str = "float32"
                 ) -> Tuple[IRModule, Dict[str, Any]]:
    """``(mod, params)`` of DenseNet-``densenet_size`` with random weights."""
    if densenet_size not in SPECS:
        raise TVMError(f"densenet_size must be one of {sorted(SPECS)}, got {densenet_size}")
    init, growth, blocks = SPECS[densenet_size]
    shape = (batch_size,) + tuple(image_shape)
    return create_workload(get_net(init, growth, blocks, shape, dtype, 4, classes))
