"""A multi-layer perceptron (classic ``relay.testing.mlp``): 128, 64, ``num_classes``."""
from __future__ import annotations

from typing import Any, Dict, Tuple

from ...ir.module import IRModule
from ..analysis import free_vars
from ..expr import Function, var
from ..op import nn as _nn
from . import layers
from .init import create_workload


def get_net(batch_size: int, num_classes: int = 10, image_shape=(1, 28, 28),
            dtype: str = "float32") -> Function:
    """flatten, dense-relu 128, dense-relu 64, dense ``num_classes``, softmax."""
    data = var("data", shape=(batch_size,) + tuple(image_shape), dtype=dtype)
    x = _nn.batch_flatten(data)
    x = _nn.relu(layers.dense_add_bias(x, 128, name="fc1"))
    x = _nn.relu(layers.dense_add_bias(x, 64, name="fc2"))
    net = _nn.softmax(layers.dense_add_bias(x, num_classes, name="fc3"))
    return Function(free_vars(net), net)


def get_workload(batch_size: int, num_classes: int = 10, image_shape=(1, 28, 28),
                 dtype: str = "float32") -> Tuple[IRModule, Dict[str, Any]]:
    """``(mod, params)`` of the MLP with random weights."""
    return create_workload(get_net(batch_size, num_classes, image_shape, dtype))
