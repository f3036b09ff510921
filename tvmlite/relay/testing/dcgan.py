"""The DCGAN generator (classic ``relay.testing.dcgan``): a dense code projection, then
transposed convolutions with BN and ReLU up to ``oshape``, and tanh."""
from __future__ import annotations

from typing import Any, Dict, Tuple

from ...ir.module import IRModule
from .. import op as _op
from ..analysis import free_vars
from ..expr import Expr, Function, var
from ..op import nn as _nn
from . import layers
from .init import create_workload


def deconv2d(data: Expr, oshape, kshape, name: str, stride=(2, 2)) -> Expr:
    """A transposed convolution to ``oshape`` (C, H, W), output padding chosen to hit it."""
    pad = ((kshape[0] - 1) // 2, (kshape[1] - 1) // 2)
    adj = tuple((oshape[1 + i] + 2 * pad[i] - kshape[i]) % stride[i] for i in range(2))
    return layers.conv2d_transpose(data, oshape[0], kshape, stride, pad, adj, name=name)


def deconv2d_bn_relu(data: Expr, prefix: str, oshape, kshape) -> Expr:
    x = deconv2d(data, oshape, kshape, f"{prefix}_deconv")
    x = layers.batch_norm_infer(x, epsilon=1e-5 + 1e-12, scale=False,
                                name=f"{prefix}_batch_norm")
    return _nn.relu(x)


def get_net(batch_size: int, random_len: int = 100, oshape=(3, 64, 64), ngf: int = 128,
            dtype: str = "float32") -> Function:
    """The generator from a ``(batch_size, random_len)`` code to images of ``oshape``."""
    code = var("data", shape=(batch_size, random_len), dtype=dtype)
    w = var("dense_weight", shape=(4 * 4 * ngf * 8, random_len), dtype=dtype)
    x = _nn.relu(_nn.dense(code, w, 4 * 4 * ngf * 8))
    x = _op.reshape(x, (-1, ngf * 8, 4, 4))
    x = deconv2d_bn_relu(x, "g2", (ngf * 4, 8, 8), (4, 4))
    x = deconv2d_bn_relu(x, "g3", (ngf * 2, 16, 16), (4, 4))
    x = deconv2d_bn_relu(x, "g4", (ngf, 32, 32), (4, 4))
    net = _op.tanh(deconv2d(x, tuple(oshape[-3:]), (4, 4), "g5_deconv"))
    return Function(free_vars(net), net)


def get_workload(batch_size: int, oshape=(3, 64, 64), ngf: int = 128, random_len: int = 100,
                 dtype: str = "float32") -> Tuple[IRModule, Dict[str, Any]]:
    """``(mod, params)`` of the DCGAN generator with random weights."""
    return create_workload(get_net(batch_size, random_len, oshape, ngf, dtype))
