"""TOPI operators: stage names, axes, tags, shapes, errors, and numerics (through the numpy
block interpreter) against numpy."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, tir, topi
from tvmlite.tir.interpreter import run

RNG = np.random.default_rng(2)


def _rand(*shape, dtype="float32"):
    return RNG.standard_normal(shape).astype(dtype)


def _eval(out, inputs, arrays, out_dtype=None):
    f = te.create_prim_func(list(inputs) + [out])
    res = np.zeros([int(s) for s in out.shape], out_dtype or out.dtype)
    run(f, *arrays, res)
    return res


@pytest.mark.parametrize("name,ref", [
    ("add", np.add), ("subtract", np.subtract), ("multiply", np.multiply),
    ("divide", np.divide), ("maximum", np.maximum), ("minimum", np.minimum),
    ("power", None), ("floor_divide", np.floor_divide), ("floor_mod", np.mod),
])
def test_broadcast_float_ops(name, ref):
    A = te.placeholder((3, 1, 4), name="A")
    B = te.placeholder((2, 1), name="B")
    C = getattr(topi, name)(A, B)
    assert C.op.name == "T_" + name and C.op.tag == "broadcast"
    assert repr(C.shape) == "[3, 2, 4]"
    assert [a.var.name for a in C.op.axis] == ["ax0", "ax1", "ax2"]
    a, b = _rand(3, 1, 4), _rand(2, 1)
    if name == "power":
        a, ref = np.abs(a) + 0.5, np.power
    if name in ("floor_divide", "floor_mod"):
        b = np.where(np.abs(b) < 0.1, 1.0, b).astype("float32")
    np.testing.assert_allclose(_eval(C, [A, B], [a, b]), ref(a, b), rtol=1e-5, atol=1e-5)


def test_integer_division_ops():
    A = te.placeholder((6,), "int32", name="A")
    B = te.placeholder((6,), "int32", name="B")
    a = np.array([7, -7, 7, -7, 0, 5], "int32")
    b = np.array([2, 2, -2, -2, 3, 5], "int32")
    np.testing.assert_array_equal(_eval(topi.floor_divide(A, B), [A, B], [a, b]), a // b)
    np.testing.assert_array_equal(_eval(topi.floor_mod(A, B), [A, B], [a, b]), a % b)
    np.testing.assert_array_equal(_eval(topi.divide(A, B), [A, B], [a, b]),
                                  np.trunc(a / b).astype("int32"))
    np.testing.assert_array_equal(_eval(topi.mod(A, B), [A, B], [a, b]), np.fmod(a, b))


@pytest.mark.parametrize("name,ref", [
    ("equal", np.equal), ("not_equal", np.not_equal), ("less", np.less),
    ("greater", np.greater), ("less_equal", np.less_equal),
    ("greater_equal", np.greater_equal),
])
def test_comparisons_give_bool(name, ref):
    A = te.placeholder((4, 3), "int32", name="A")
    B = te.placeholder((3,), "int32", name="B")
    C = getattr(topi, name)(A, B)
    assert C.dtype == "bool" and C.op.name == "T_" + name
    a = RNG.integers(0, 3, (4, 3)).astype("int32")
    b = RNG.integers(0, 3, 3).astype("int32")
    np.testing.assert_array_equal(_eval(C, [A, B], [a, b]), ref(a, b))


def test_logical_ops():
    A = te.placeholder((4,), "bool", name="A")
    B = te.placeholder((4,), "bool", name="B")
    a, b = np.array([0, 0, 1, 1], bool), np.array([0, 1, 0, 1], bool)
    np.testing.assert_array_equal(_eval(topi.logical_and(A, B), [A, B], [a, b]), a & b)
    np.testing.assert_array_equal(_eval(topi.logical_or(A, B), [A, B], [a, b]), a | b)


def test_scalar_operands_and_literal_dtypes():
    A = te.placeholder((2, 3), "float16", name="A")
    C = topi.add(A, 1.5)
    assert C.op.tag == "elemwise" and C.dtype == "float16" and C.op.name == "T_add"
    assert [a.var.name for a in C.op.axis] == ["ax0", "ax1"]
    D = topi.subtract(2, A)
    assert D.dtype == "float16"
    n = te.var("n")
    E = topi.multiply(A, n)  # an int32 expression beside float16 promotes to float16
    assert E.dtype == "float16"
    e = topi.add(tir.const(1, "int32"), 2)
    assert isinstance(e, tir.IntImm) and e.value == 3
    x = te.var("x")
    assert isinstance(topi.multiply(x, 2), tir.Mul)
    a = _rand(2, 3, dtype="float16")
    np.testing.assert_allclose(_eval(D, [A], [a]), 2 - a, rtol=1e-3)
    I = te.placeholder((3,), "int32", name="I")
    assert (I + 1).dtype == "int32" and (I * 0.5).dtype == "float32"


def test_broadcast_shape_rules():
    assert [int(x) for x in topi.broadcast_shape((3, 1), (1, 4))] == [3, 4]
    assert [int(x) for x in topi.broadcast_shape((5,), (2, 1, 5))] == [2, 1, 5]
    n, m = te.var("n"), te.var("m")
    s = topi.broadcast_shape((n, 1), (1, m))
    assert s[0] is n and s[1] is m
    assert topi.broadcast_shape((n,), (n,))[0] is n
    s = topi.broadcast_shape((n,), (4,))
    assert int(s[0]) == 4
    assert isinstance(topi.broadcast_shape((n,), (m,))[0], tir.Max)
    with pytest.raises(ValueError, match="Incompatible broadcast dims: 3 and 4"):
        topi.broadcast_shape((3,), (4,))
    A = te.placeholder((3,), name="A")
    B = te.placeholder((4,), name="B")
    with pytest.raises(ValueError, match="Incompatible"):
        A + B


def test_symbolic_broadcast_numerics():
    n = te.var("n")
    A = te.placeholder((n, 1), name="A")
    B = te.placeholder((n, n), name="B")
    C = A + B
    f = te.create_prim_func([A, B, C])
    a, b, c = _rand(3, 1), _rand(3, 3), np.zeros((3, 3), "float32")
    run(f, a, b, c)
    np.testing.assert_allclose(c, a + b, atol=1e-6)


@pytest.mark.parametrize("name,ref", [
    ("sqrt", np.sqrt), ("exp", np.exp), ("log", np.log), ("tanh", np.tanh),
    ("sigmoid", lambda x: 1 / (1 + np.exp(-x))), ("abs", np.abs), ("negative", np.negative),
    ("floor", np.floor), ("ceil", np.ceil), ("round", None), ("identity", lambda x: x),
])
def test_unary_ops(name, ref):
    A = te.placeholder((2, 3), name="A")
    B = getattr(topi, name)(A)
    assert B.op.name == "compute" and B.op.tag == "elemwise"
    assert [a.var.name for a in B.op.axis] == ["i0", "i1"]
    a = _rand(2, 3) * 3
    if name in ("sqrt", "log"):
        a = np.abs(a) + 0.1
    if name == "round":
        a = np.array([[0.5, 1.5, -0.5], [2.4, -2.6, 3.0]], "float32")
        ref = lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5)  # noqa: E731
    np.testing.assert_allclose(_eval(B, [A], [a]), ref(a), rtol=1e-5, atol=1e-6)


def test_relu_cast_clip():
    A = te.placeholder((5,), name="A")
    a = np.array([-2, -0.5, 0, 0.5, 3], "float32")
    R = topi.nn.relu(A)
    assert R.op.name == "compute" and R.op.tag == "elemwise"
    np.testing.assert_array_equal(_eval(R, [A], [a]), np.maximum(a, 0))
    C = topi.cast(A, "int32")
    assert C.op.name == "T_cast" and C.dtype == "int32"
    np.testing.assert_array_equal(_eval(C, [A], [a]), a.astype("int32"))
    np.testing.assert_array_equal(_eval(topi.clip(A, -1, 1), [A], [a]), np.clip(a, -1, 1))
    np.testing.assert_allclose(_eval(topi.nn.leaky_relu(A, 0.1), [A], [a]),
                               np.where(a > 0, a, 0.1 * a), rtol=1e-6)
    with pytest.raises(TypeError, match="Tensor"):
        topi.sqrt(3.0)


def test_pad_vta_style():
    data = te.placeholder((1, 2, 3, 3, 1, 2), "int8", name="data")
    buf = topi.nn.pad(data, [0, 0, 1, 1, 0, 0], name="data_buf")
    assert buf.op.name == "data_buf" and buf.op.tag == "injective,pad"
    assert [int(s) for s in buf.shape] == [1, 2, 5, 5, 1, 2]
    assert [a.var.name for a in buf.op.axis] == ["i0", "i1", "i2", "i3", "i4", "i5"]
    body = buf.op.body[0]
    assert isinstance(body, tir.Call) and body.op == "if_then_else"
    assert body.args[2].dtype == "int8" and body.args[2].value == 0
    # the guard mentions only the padded dimensions i2 and i3
    names = set()
    tir.post_order_visit(body.args[0], lambda x: names.add(x.name)
                         if isinstance(x, tir.Var) else None)
    assert names == {"i2", "i3"}
    d = RNG.integers(-100, 100, (1, 2, 3, 3, 1, 2)).astype("int8")
    out = _eval(buf, [data], [d])
    np.testing.assert_array_equal(out, np.pad(d, [(0, 0), (0, 0), (1, 1), (1, 1), (0, 0),
                                                  (0, 0)]))


def test_pad_asymmetric_value_and_errors():
    A = te.placeholder((2, 3), name="A")
    P = topi.nn.pad(A, [1, 0], [0, 2], pad_value=-1.0)
    assert P.op.name == "PadInput"
    a = _rand(2, 3)
    np.testing.assert_array_equal(_eval(P, [A], [a]),
                                  np.pad(a, [(1, 0), (0, 2)], constant_values=-1))
    with pytest.raises(ValueError, match="dismatch"):
        topi.nn.pad(A, [1, 1, 1])
    Q = topi.nn.pad(A, [0, 0])
    assert isinstance(Q.op.body[0], tir.ProducerLoad)


def test_reshape_transpose_expand_squeeze():
    A = te.placeholder((2, 3, 4), name="A")
    a = _rand(2, 3, 4)
    R = topi.reshape(A, (4, -1))
    assert R.op.name == "T_reshape" and [int(s) for s in R.shape] == [4, 6]
    np.testing.assert_array_equal(_eval(R, [A], [a]), a.reshape(4, 6))
    with pytest.raises(ValueError, match="cannot reshape"):
        topi.reshape(A, (5, 5))
    T = topi.transpose(A, (1, 2, 0))
    assert T.op.name == "T_transpose" and [int(s) for s in T.shape] == [3, 4, 2]
    np.testing.assert_array_equal(_eval(T, [A], [a]), a.transpose(1, 2, 0))
    np.testing.assert_array_equal(_eval(topi.transpose(A), [A], [a]), a.T)
    with pytest.raises(ValueError, match="permutation"):
        topi.transpose(A, (0, 0, 1))
    E = topi.expand_dims(A, 1)
    assert [int(s) for s in E.shape] == [2, 1, 3, 4]
    np.testing.assert_array_equal(_eval(E, [A], [a]), a[:, None])
    S = topi.squeeze(E, axis=1)
    np.testing.assert_array_equal(_eval(S, [E.op.input_tensors[0]], [a]), a)


@pytest.mark.parametrize("fname,ref", [("sum", np.sum), ("max", np.max), ("min", np.min),
                                       ("prod", np.prod)])
@pytest.mark.parametrize("axis,keepdims", [(None, False), (1, False), ((0, 2), True),
                                           (-1, True)])
def test_reductions(fname, ref, axis, keepdims):
    A = te.placeholder((2, 3, 4), name="A")
    R = getattr(topi, fname)(A, axis=axis, keepdims=keepdims)
    assert R.op.name == "A_red" and R.op.tag == "comm_reduce"
    want = ref(np.zeros((2, 3, 4)), axis=axis, keepdims=keepdims).shape
    assert tuple(int(s) for s in R.shape) == want
    if axis == 1:
        assert [r.var.name for r in R.op.reduce_axis] == ["k1"]
        assert [a.var.name for a in R.op.axis] == ["ax0", "ax1"]
    a = _rand(2, 3, 4)
    np.testing.assert_allclose(_eval(R, [A], [a]), ref(a, axis=axis, keepdims=keepdims),
                               rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="out of range"):
        getattr(topi, fname)(A, axis=3)


def test_dense_with_bias():
    X = te.placeholder((3, 5), name="X")
    W = te.placeholder((4, 5), name="W")
    b = te.placeholder((4,), name="b")
    D = topi.nn.dense(X, W)
    assert D.op.name == "T_dense" and D.op.tag == "dense"
    x, w, bb = _rand(3, 5), _rand(4, 5), _rand(4)
    np.testing.assert_allclose(_eval(D, [X, W], [x, w]), x @ w.T, rtol=1e-5, atol=1e-5)
    DB = topi.nn.dense(X, W, b)
    np.testing.assert_allclose(_eval(DB, [X, W, b], [x, w, bb]), x @ w.T + bb, rtol=1e-5,
                               atol=1e-5)
    with pytest.raises(tvm.TVMError, match="input features"):
        topi.nn.dense(X, te.placeholder((4, 6)))


@pytest.mark.parametrize("stride,padding,dilation", [(1, 1, 1), (2, (0, 1), 1), (1, "SAME", 2),
                                                     (1, (1, 0, 0, 2), 1)])
def test_conv2d_nchw(stride, padding, dilation):
    X = te.placeholder((1, 3, 6, 6), name="X")
    W = te.placeholder((2, 3, 3, 3), name="W")
    Y = topi.nn.conv2d_nchw(X, W, stride, padding, dilation)
    assert Y.op.tag == "conv2d_nchw"
    assert Y.op.input_tensors[0].op.name == "pad_temp"
    assert [r.var.name for r in Y.op.reduce_axis] == ["rc", "ry", "rx"]
    x, w = _rand(1, 3, 6, 6), _rand(2, 3, 3, 3)
    wd = w
    if dilation > 1:  # the reference has no dilation: dilate the kernel with zeros
        wd = np.zeros((2, 3, 5, 5), "float32")
        wd[:, :, ::2, ::2] = w
    ref = topi.testing.conv2d_nchw_python(x, wd, stride, padding if padding != "SAME" else 2)
    np.testing.assert_allclose(_eval(Y, [X, W], [x, w]), ref, rtol=1e-4, atol=1e-4)


def test_depthwise_conv2d_nchw():
    X = te.placeholder((1, 3, 5, 5), name="X")
    W = te.placeholder((3, 2, 3, 3), name="W")
    Y = topi.nn.depthwise_conv2d_nchw(X, W, 1, 1)
    assert Y.op.name == "DepthwiseConv2d" and [int(s) for s in Y.shape] == [1, 6, 5, 5]
    x, w = _rand(1, 3, 5, 5), _rand(3, 2, 3, 3)
    ref = topi.testing.depthwise_conv2d_python_nchw(x, w, 1, 1)
    np.testing.assert_allclose(_eval(Y, [X, W], [x, w]), ref, rtol=1e-4, atol=1e-4)


def test_conv2d_reference_against_loops():
    x, w = _rand(2, 4, 5, 6), _rand(6, 2, 3, 2)
    got = topi.testing.conv2d_nchw_python(x, w, (2, 1), (1, 0), groups=2)
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (0, 0)))
    oh, ow = (7 - 3) // 2 + 1, (6 - 2) + 1
    ref = np.zeros((2, 6, oh, ow), "float32")
    for n in range(2):
        for f in range(6):
            g = f // 3
            for i in range(oh):
                for j in range(ow):
                    win = xp[n, 2 * g:2 * g + 2, 2 * i:2 * i + 3, j:j + 2]
                    ref[n, f, i, j] = (win * w[f]).sum()
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)
    assert tvm.topi.testing.conv2d_nchw_python is topi.testing.conv2d_nchw_python
    with pytest.raises(ValueError, match="groups"):
        topi.testing.conv2d_nchw_python(x, w, 1, 0, groups=3)


def test_utils():
    A = te.placeholder((2, te.var("n")), name="A")
    t = topi.utils.get_const_tuple(A.shape)
    assert t[0] == 2 and isinstance(t[1], tir.Var)
    assert topi.util.get_const_int(tir.const(5)) == 5
    assert topi.tag.is_broadcast("broadcast") and topi.tag.is_injective("injective,pad")


def _np_pool(x, k, s, d, pad, pool_type, count_include_pad):
    top, left, bottom, right = pad
    fill = -np.inf if pool_type == "max" else 0.0
    xp = np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)), constant_values=fill)
    valid = np.pad(np.ones_like(x), ((0, 0), (0, 0), (top, bottom), (left, right)))
    n, c, h, w = xp.shape
    oh = (h - ((k[0] - 1) * d[0] + 1)) // s[0] + 1
    ow = (w - ((k[1] - 1) * d[1] + 1)) // s[1] + 1
    out = np.zeros((n, c, oh, ow), "float32")
    for i in range(oh):
        for j in range(ow):
            ys = slice(i * s[0], i * s[0] + (k[0] - 1) * d[0] + 1, d[0])
            xs = slice(j * s[1], j * s[1] + (k[1] - 1) * d[1] + 1, d[1])
            win = xp[:, :, ys, xs]
            if pool_type == "max":
                out[:, :, i, j] = win.max(axis=(2, 3))
            elif count_include_pad:
                out[:, :, i, j] = win.sum(axis=(2, 3)) / (k[0] * k[1])
            else:
                out[:, :, i, j] = win.sum(axis=(2, 3)) / valid[:, :, ys, xs].sum(axis=(2, 3))
    return out


@pytest.mark.parametrize("pool_type,cip", [("max", True), ("avg", True), ("avg", False)])
@pytest.mark.parametrize("k,s,d,pad", [((3, 3), (1, 1), (1, 1), (1, 1, 1, 1)),
                                       ((2, 3), (2, 1), (1, 2), (0, 1, 1, 2))])
def test_pool2d(pool_type, cip, k, s, d, pad):
    X = te.placeholder((1, 2, 5, 6), name="X")
    Y = topi.nn.pool2d(X, k, s, d, pad, pool_type, count_include_pad=cip)
    assert Y.op.name == "tensor"
    x = _rand(1, 2, 5, 6)
    np.testing.assert_allclose(_eval(Y, [X], [x]), _np_pool(x, k, s, d, pad, pool_type, cip),
                               rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="pool_type"):
        topi.nn.pool2d(X, k, s, d, pad, "min")


def test_global_pool_softmax_flatten_concat():
    X = te.placeholder((2, 3, 2, 2), name="X")
    x = _rand(2, 3, 2, 2)
    G = topi.nn.global_pool(X, "avg")
    np.testing.assert_allclose(_eval(G, [X], [x]), x.mean(axis=(2, 3), keepdims=True),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(_eval(topi.nn.global_pool(X, "max"), [X], [x]),
                                  x.max(axis=(2, 3), keepdims=True))
    S = topi.nn.softmax(X, axis=1)
    assert S.op.name == "T_softmax_norm" and S.op.tag == "softmax_output"
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(_eval(S, [X], [x]), e / e.sum(axis=1, keepdims=True),
                               rtol=1e-5, atol=1e-6)
    F = topi.nn.batch_flatten(X)
    np.testing.assert_array_equal(_eval(F, [X], [x]), x.reshape(2, 12))
    Y = te.placeholder((2, 1, 2, 2), name="Y")
    y = _rand(2, 1, 2, 2)
    C = topi.concatenate([X, Y, X], axis=1)
    assert C.op.name == "T_concat" and [int(s) for s in C.shape] == [2, 7, 2, 2]
    np.testing.assert_array_equal(_eval(C, [X, Y], [x, y]), np.concatenate([x, y, x], axis=1))
