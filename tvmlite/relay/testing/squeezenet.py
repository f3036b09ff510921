"""SqueezeNet 1.0 and 1.1 (classic ``relay.testing.squeezenet``; Iandola et al., 2016): a
stem convolution, eight fire modules (a 1x1 squeeze, then 1x1 and 3x3 expands concatenated)
between 3x3/2 max pools, dropout, a 1x1 convolution to ``num_classes``, global average pool,
softmax."""
from __future__ import annotations

from typing import Any, Dict, Tuple

from ...error import TVMError
from ...ir.module import IRModule
from ..analysis import free_vars
from ..expr import Expr, Function, var
from ..op import nn as _nn
from ..op.tensor import concatenate
from .dqn import conv_bias_relu
from .init import create_workload

# (squeeze, expand) channels of the eight fire modules; a max pool goes before the modules
# listed in _POOLS (the stem's pool comes first in both versions)
_FIRES = [(16, 64), (16, 64), (32, 128), (32, 128), (48, 192), (48, 192), (64, 256), (64, 256)]
_POOLS = {"1.0": (0, 3, 7), "1.1": (0, 2, 4)}
_STEM = {"1.0": (96, 7, 3), "1.1": (64, 3, 1)}  # channels, kernel, padding (stride 2)


def _fire(x: Expr, squeeze: int, expand: int, name: str) -> Expr:
    s = conv_bias_relu(x, squeeze, 1, name=f"{name}_input_conv")
    left = conv_bias_relu(s, expand, 1, name=f"{name}_left_conv")
    right = conv_bias_relu(s, expand, 3, padding=1, name=f"{name}_right_conv")
    return concatenate([left, right], axis=1)


def get_net(batch_size: int, image_shape, num_classes: int, version: str,
            dtype: str) -> Function:
    """The SqueezeNet ``version`` ("1.0" or "1.1") function."""
    if version not in _POOLS:
        raise TVMError(f"Unsupported SqueezeNet version {version}: 1.0 or 1.1 expected")
    x = var("data", shape=(batch_size,) + tuple(image_shape), dtype=dtype)
    channels, kernel, padding = _STEM[version]
    x = conv_bias_relu(x, channels, kernel, 2, padding, name="conv1")
    for i, (squeeze, expand) in enumerate(_FIRES):
        if i in _POOLS[version]:
            x = _nn.max_pool2d(x, pool_size=(3, 3), strides=(2, 2))
        x = _fire(x, squeeze, expand, f"fire{i + 1}")
    x = _nn.dropout(x, rate=0.5)
    x = conv_bias_relu(x, num_classes, 1, name="conv_final")
    net = _nn.softmax(_nn.batch_flatten(_nn.global_avg_pool2d(x)))
    return Function(free_vars(net), net)


def get_workload(batch_size: int = 1, num_classes: int = 1000, version: str = "1.0",
                 image_shape=(3, 224, 224), dtype: str = "float32"
                 ) -> Tuple[IRModule, Dict[str, Any]]:
    """``(mod, params)`` of SqueezeNet ``version`` with random weights."""
    return create_workload(get_net(batch_size, image_shape, num_classes, version, dtype))
