"""Classic ``relay.testing.synthetic``: a small network of the common layer kinds (dense
over the last axis, 3x3 convolution with softmax, bias, batch norm) for quick tests."""
from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, Tuple

from ...ir.module import IRModule
from ..analysis import free_vars
from ..expr import Expr, Function, var
from ..op import nn as _nn
from ..op import tensor as _tensor
from ..op import transform as _transform
from . import layers
from .init import create_workload


def _dense_block(x: Expr, like: Expr, width: int, name: str, wtype: str) -> Expr:
    flat = _tensor.reshape(x, (-1, width))
    w = var(name, shape=(width, width), dtype=wtype)
    return _transform.reshape_like(_nn.relu(_nn.dense(flat, w)), like)


def _conv_block(x: Expr, channels: int, name: str, wtype: str) -> Expr:
    w = var(name, shape=(channels, channels, 3, 3), dtype=wtype)
    return _nn.softmax(_nn.conv2d(x, w, padding=(1, 1), kernel_size=(3, 3)))


def get_net(input_shape: Sequence[int] = (1, 3, 24, 12), dtype: str = "float32",
            wtype: Optional[str] = None) -> Function:
    """The network as a relay Function of ``data`` (NCHW) and its weights."""
    wtype = wtype or dtype
    n, c, h, w = input_shape
    data = var("data", shape=tuple(input_shape), dtype=dtype)
    x = _tensor.add(_dense_block(data, data, w, "dense_weight", wtype),
                    _conv_block(data, c, "conv_weight", wtype))
    x = _nn.bias_add(x, var("bias", shape=(c,), dtype=wtype))
    x = layers.batch_norm_infer(x, name="batch_norm")
    out = _tensor.add(_dense_block(x, data, w, "dense2_weight", wtype),
                      _conv_block(x, c, "conv2_weight", wtype))
    return Function(free_vars(out), out)


def get_workload(input_shape: Sequence[int] = (1, 3, 24, 12), dtype: str = "float32",
                 wtype: Optional[str] = None) -> Tuple[IRModule, Dict[str, Any]]:
    """``(mod, params)`` of :func:`get_net` with random weights."""
    return create_workload(get_net(input_shape, dtype, wtype))
