"""A torch evaluator of relay dataflow graphs (the ops relay.testing's networks use): the
reference the tests compare compiled networks with."""
from typing import Dict

import numpy as np

from tvmlite.relay.expr import Call, Constant, Function, TupleGetItem, Var, post_order


def _pad(padding):
    top, left, bottom, right = padding
    assert top == bottom and left == right, "asymmetric padding"
    return (top, left)


def _call(name, attrs, args, out_shape):
    import torch
    F = torch.nn.functional
    if name == "nn.conv2d":
        return F.conv2d(args[0], args[1], stride=attrs.strides, padding=_pad(attrs.padding),
                        dilation=attrs.dilation, groups=attrs.groups)
    if name == "nn.conv2d_transpose":
        return F.conv_transpose2d(args[0], args[1], stride=attrs.strides,
                                  padding=_pad(attrs.padding),
                                  output_padding=attrs.output_padding)
    if name == "nn.batch_norm":
        x, gamma, beta, mean, var = args
        gamma = gamma if attrs.scale else torch.ones_like(gamma)
        beta = beta if attrs.center else torch.zeros_like(beta)
        y = F.batch_norm(x, mean, var, gamma, beta, training=False, eps=attrs.epsilon)
        return (y, mean, var)
    if name == "nn.max_pool2d":
        return F.max_pool2d(args[0], attrs.pool_size, attrs.strides, _pad(attrs.padding))
    if name == "nn.global_avg_pool2d":
        return args[0].mean(dim=(2, 3), keepdim=True)
    if name == "nn.batch_flatten":
        return args[0].reshape(args[0].shape[0], -1)
    if name == "nn.dense":
        return args[0] @ args[1].T
    if name == "nn.bias_add":
        shape = [1] * args[0].ndim
        shape[attrs.axis] = -1
        return args[0] + args[1].reshape(shape)
    if name == "nn.softmax":
        return torch.softmax(args[0], attrs.axis)
    if name == "nn.relu":
        return torch.relu(args[0])
    if name == "add":
        return args[0] + args[1]
    if name == "tanh":
        return torch.tanh(args[0])
    if name == "reshape":
        return args[0].reshape(out_shape)
    raise NotImplementedError(name)


def run_reference(func: Function, inputs: Dict[str, np.ndarray]) -> np.ndarray:
    """``func`` on ``inputs`` (params included), computed by torch in float64."""
    import torch
    vals = {}
    for n in post_order(func.body):
        if isinstance(n, Var):
            vals[id(n)] = torch.from_numpy(np.asarray(inputs[n.name_hint], "float64"))
        elif isinstance(n, Constant):
            vals[id(n)] = torch.from_numpy(n.data.numpy().astype("float64"))
        elif isinstance(n, TupleGetItem):
            vals[id(n)] = vals[id(n.tuple_value)][n.index]
        elif isinstance(n, Call):
            shape = getattr(n.checked_type, "shape", None)
            vals[id(n)] = _call(n.op.name, n.attrs, [vals[id(a)] for a in n.args], shape)
        else:
            raise NotImplementedError(type(n).__name__)
    return vals[id(func.body)].numpy()
