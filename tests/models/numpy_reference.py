"""A numpy evaluator of relay dataflow graphs (the ops relay.testing's networks use), in
float64: the reference the tests compare compiled networks with. Convolutions and pooling
come from ``tvmlite.topi.testing``; everything else is a line of numpy."""
from typing import Callable, Dict

import numpy as np

from tvmlite.relay.expr import Call, Constant, Function, TupleGetItem, Var, post_order
from tvmlite.topi import testing as ref


def _conv2d(attrs, x, w, out_shape):
    assert tuple(attrs.dilation) == (1, 1), "dilated conv2d"
    assert attrs.data_layout == "NCHW" and attrs.kernel_layout == "OIHW", "layout"
    return ref.conv2d_nchw_python(x, w, attrs.strides, tuple(attrs.padding), attrs.groups)


def _conv2d_transpose(attrs, x, w, out_shape):
    assert tuple(attrs.dilation) == (1, 1) and attrs.groups == 1, "dilated/grouped"
    assert attrs.kernel_layout == "IOHW", "layout"
    return ref.conv2d_transpose_nchw_python(x, w, attrs.strides, tuple(attrs.padding),
                                            tuple(attrs.output_padding))


def _batch_norm(attrs, x, gamma, beta, mean, var, out_shape):
    y, _, _ = ref.batch_norm(x, gamma, beta, mean, var, attrs.axis, attrs.epsilon,
                             attrs.center, attrs.scale)
    return (y, mean, var)


def _max_pool2d(attrs, x, out_shape):
    assert attrs.layout == "NCHW", "layout"
    return ref.pool2d_ref(x, attrs.pool_size, attrs.strides, attrs.dilation,
                          tuple(attrs.padding), "max", ceil_mode=attrs.ceil_mode)


def _bias_add(attrs, x, b, out_shape):
    shape = [1] * x.ndim
    shape[attrs.axis] = -1
    return x + b.reshape(shape)


_OPS: Dict[str, Callable] = {
    "nn.conv2d": _conv2d,
    "nn.conv2d_transpose": _conv2d_transpose,
    "nn.batch_norm": _batch_norm,
    "nn.max_pool2d": _max_pool2d,
    "nn.global_avg_pool2d": lambda attrs, x, shape: x.mean(axis=(2, 3), keepdims=True),
    "nn.batch_flatten": lambda attrs, x, shape: x.reshape(x.shape[0], -1),
    "nn.dense": lambda attrs, x, w, shape: x @ w.T,
    "nn.bias_add": _bias_add,
    "nn.softmax": lambda attrs, x, shape: ref.softmax_python(x, attrs.axis),
    "nn.relu": lambda attrs, x, shape: np.maximum(x, 0),
    "add": lambda attrs, a, b, shape: a + b,
    "tanh": lambda attrs, x, shape: np.tanh(x),
    "reshape": lambda attrs, x, shape: x.reshape([int(d) for d in shape]),
}


def run_reference(func: Function, inputs: Dict[str, np.ndarray]) -> np.ndarray:
    """``func`` on ``inputs`` (params included), computed by numpy in float64."""
    vals = {}
    for n in post_order(func.body):
        if isinstance(n, Var):
            vals[id(n)] = np.asarray(inputs[n.name_hint], "float64")
        elif isinstance(n, Constant):
            vals[id(n)] = n.data.numpy().astype("float64")
        elif isinstance(n, TupleGetItem):
            vals[id(n)] = vals[id(n.tuple_value)][n.index]
        elif isinstance(n, Call):
            if n.op.name not in _OPS:
                raise NotImplementedError(n.op.name)
            shape = getattr(n.checked_type, "shape", None)
            vals[id(n)] = _OPS[n.op.name](n.attrs, *[vals[id(a)] for a in n.args], shape)
        else:
            raise NotImplementedError(type(n).__name__)
    return vals[id(func.body)]
