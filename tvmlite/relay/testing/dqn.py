"""The Nature DQN network (classic ``relay.testing.dqn``; Mnih et al., 2015): three
convolutions with bias and ReLU (32 8x8/4, 64 4x4/2, 64 3x3/1), dense 512 + ReLU, dense
``num_actions``."""
from __future__ import annotations

from typing import Any, Dict, Tuple

from ..._classic import unsupported
from ...ir.module import IRModule
from ..analysis import free_vars
from ..expr import Expr, Function, var
from ..op import nn as _nn
from . import layers
from .init import create_workload


def conv_bias_relu(data: Expr, channels: int, kernel: int, stride: int = 1, padding: int = 0,
                   name: str = "conv") -> Expr:
    """``relu(bias_add(conv2d(data)))`` with ``{name}_weight`` and ``{name}_bias`` (NCHW)."""
    y = layers.conv2d(data, channels, (kernel, kernel), (stride, stride), (padding, padding),
                      name=name)
    bias = var(f"{name}_bias", shape=(channels,), dtype=layers.dtype_of(data))
    return _nn.relu(_nn.bias_add(y, bias, axis=1))


def get_net(batch_size: int, num_actions: int = 18, image_shape=(4, 84, 84),
            dtype: str = "float32", layout: str = "NCHW") -> Function:
    """The DQN function of ``data`` (``(batch_size,) + image_shape``) and its weights."""
    if layout != "NCHW":
        raise unsupported(f"relay.testing.dqn with layout={layout!r} (tvmlite builds NCHW)")
    x = var("data", shape=(batch_size,) + tuple(image_shape), dtype=dtype)
    for i, (channels, kernel, stride) in enumerate([(32, 8, 4), (64, 4, 2), (64, 3, 1)]):
        x = conv_bias_relu(x, channels, kernel, stride, name=f"conv{i + 1}")
    x = _nn.relu(layers.dense_add_bias(_nn.batch_flatten(x), 512, name="dense1"))
    net = layers.dense_add_bias(x, num_actions, name="dense2")
    return Function(free_vars(net), net)


def get_workload(batch_size: int, num_actions: int = 18, image_shape=(4, 84, 84),
                 dtype: str = "float32", layout: str = "NCHW"
                 ) -> Tuple[IRModule, Dict[str, Any]]:
    """``(mod, params)`` of the DQN with random weights."""
    return create_workload(get_net(batch_size, num_actions, image_shape, dtype, layout))
