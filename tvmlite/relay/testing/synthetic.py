"""A small synthetic network for tests (classic ``relay.testing.synthetic``): two rounds of
a dense branch and a conv + softmax branch added together, with a bias and a batch norm in
between."""
from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, Tuple

from ...ir.module import IRModule
from .. import analysis
from ..expr import Expr, Function, var
from ..op import nn
from ..op.tensor import add, reshape
from ..op.transform import reshape_like
from . import layers
from .init import Constant, create_workload


def _dense_branch(x: Expr, like: Expr, name: str, width: int, wtype: str) -> Expr:
    w = var(name, shape=(width, width), dtype=wtype)
    return reshape_like(nn.relu(nn.dense(reshape(x, (-1, width)), w)), like)


def _conv_branch(x: Expr, name: str, channels: int, wtype: str) -> Expr:
    w = var(name, shape=(channels, channels, 3, 3), dtype=wtype)
    return nn.softmax(nn.conv2d(x, w, padding=(1, 1), kernel_size=(3, 3)))


def get_net(input_shape: Sequence[int] = (1, 3, 24, 12), dtype: str = "float32",
            wtype: Optional[str] = None) -> Function:
    """The synthetic network of an NCHW ``input_shape`` input of ``dtype`` (weights of
    ``wtype``, default ``dtype``)."""
    wtype = wtype or dtype
    channels, width = int(input_shape[1]), int(input_shape[3])
    data = var("data", shape=tuple(input_shape), dtype=dtype)
    first = add(_dense_branch(data, data, "dense_weight", width, wtype),
                _conv_branch(data, "conv_weight", channels, wtype))
    bias = var("bias", shape=(channels,), dtype=wtype)
    biased = layers.batch_norm_infer(nn.bias_add(first, bias), name="batch_norm")
    out = add(_dense_branch(biased, data, "dense2_weight", width, wtype),
              _conv_branch(biased, "conv2_weight", channels, wtype))
    return Function(analysis.free_vars(out), out)


def get_workload(input_shape: Sequence[int] = (1, 3, 24, 12), dtype: str = "float32",
                 wtype: Optional[str] = None) -> Tuple[IRModule, Dict[str, Any]]:
    """``(mod, params)`` of :func:`get_net`, every parameter zero."""
    return create_workload(get_net(input_shape, dtype, wtype), initializer=Constant())
