"""te.gradient (reverse-mode autodiff of TE programs) against numerical gradients
(tvm.testing.check_numerical_grads) on random inputs; the index equations of element-wise
ops, matrix products and convolutions are solved (no summation over the whole output)."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, topi
from tvmlite.testing import check_numerical_grads

RNG = np.random.default_rng(11)


def check(out, inputs, args=(), low=-2.0, high=2.0, head=None):
    """The gradient of sum(out * head) (head: ones) by each input against central
    differences; returns the gradient tensors."""
    args = list(args)
    mout = tvm.build(te.create_schedule(out.op), [out] + inputs + args)
    data = [RNG.uniform(low, high, [int(d) for d in t.shape]).astype(t.dtype)
            for t in inputs + args]
    head_t = topi.full_like(out, 1.0) if head is None else head
    grads = te.gradient(out, inputs, head=head_t)
    mgrad = tvm.build(te.create_schedule([g.op for g in grads]), list(grads) + inputs + args)
    res = [tvm.nd.empty([int(d) for d in t.shape], g.dtype) for t, g in zip(inputs, grads)]
    mgrad(*res, *[tvm.nd.array(d) for d in data])

    def forward(*vals):
        o = tvm.nd.empty([int(d) for d in out.shape], out.dtype)
        mout(o, *[tvm.nd.array(v) for v in vals])
        return o.numpy().astype("float64").sum()

    check_numerical_grads(forward, data, [r.numpy() for r in res])
    return grads


def test_elementwise_and_transposed_reads():
    A, B = te.placeholder((7, 5), name="A"), te.placeholder((7, 5), name="B")
    check(te.compute((7, 5), lambda i, j: A[i, j] * B[i, j] + te.exp(A[i, j] * 0.3)), [A, B])
    S = te.placeholder((6, 6), name="S")
    check(te.compute((6, 6), lambda i, j: te.tanh(S[i, j] * S[j, i])
                     / (1.5 + te.power(S[j, i], 2.0))), [S])
    check(te.compute((6, 6), lambda i, j: te.max(S[i, j], S[j, i]) - te.sigmoid(S[i, j])), [S])
    check(te.compute((6, 6), lambda i, j: te.if_then_else(S[i, j] > 0, S[i, j] * 3.0,
                                                          te.log(2.5 + S[j, i]))), [S])


def test_matmul_gradient_sums_only_the_contracted_axis():
    A, B = te.placeholder((5, 7), name="A"), te.placeholder((7, 3), name="B")
    k = te.reduce_axis((0, 7), name="k")
    C = te.compute((5, 3), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    ga, gb = check(C, [A, B])
    # dA[i, k] = sum over j of head[i, j] * B[k, j]: i and k are solved, j is summed
    red = [op for op in _ops(ga) if getattr(op, "reduce_axis", ())]
    assert [int(r.dom.extent) for op in red for r in op.reduce_axis] == [3]


def _ops(t):
    seen, stack, out = set(), [t.op], []
    while stack:
        op = stack.pop()
        if id(op) in seen:
            continue
        seen.add(id(op))
        out.append(op)
        stack.extend(x.op for x in op.input_tensors)
    return out


@pytest.mark.parametrize("stride,dilation,pad", [(1, 1, 1), (2, 1, 0), (1, 2, 1), (3, 1, 2)])
def test_conv2d_with_strides_dilation_padding(stride, dilation, pad):
    X = te.placeholder((1, 2, 7, 6), name="X")
    W = te.placeholder((3, 2, 3, 2), name="W")
    Y = topi.nn.conv2d(X, W, stride, pad, dilation)
    check(Y, [X, W], low=-1, high=1)


def test_pools_softmax_and_other_reducers():
    X = te.placeholder((1, 2, 5, 5), name="X")
    check(topi.nn.pool2d(X, [2, 2], [1, 1], [1, 1], [0, 0, 0, 0], "max"), [X])
    check(topi.nn.pool2d(X, [3, 3], [2, 2], [1, 1], [1, 1, 1, 1], "avg"), [X])
    check(topi.nn.softmax(topi.reshape(X, (2, 25))), [X], low=-1, high=1)
    A = te.placeholder((4, 6), name="A")
    k = te.reduce_axis((0, 6), name="k")
    prod = te.comm_reducer(lambda x, y: x * y, lambda t: tvm.tir.const(1, t), name="prod")
    check(te.compute((4,), lambda i: prod(A[i, k], axis=k)), [A], low=0.5, high=1.5)


def test_chain_with_shared_inputs_and_an_untouched_input():
    X = te.placeholder((3, 4), name="X")
    W = te.placeholder((5, 4), name="W")
    U = te.placeholder((3, 4), name="U")
    h = topi.nn.relu(topi.nn.dense(X, W))
    out = topi.sum(h * h, axis=1) + topi.sum(X, axis=1)
    gx, gw, gu = check(out, [X, W, U])
    f = tvm.build(te.create_schedule(gu.op), [gu])
    z = tvm.nd.array(np.full((3, 4), 7, "float32"))
    f(z)
    assert (z.numpy() == 0).all()  # U does not reach the output


def test_default_head_gives_the_jacobian():
    A = te.placeholder((3,), name="A")
    B = te.compute((2,), lambda i: A[i] * A[i + 1], name="B")
    (J,) = te.gradient(B, [A])
    assert [int(d) for d in J.shape] == [2, 3]
    f = tvm.build(te.create_schedule(J.op), [J, A])
    a = RNG.uniform(-1, 1, 3).astype("float32")
    j = tvm.nd.empty((2, 3))
    f(j, tvm.nd.array(a))
    want = np.array([[a[1], a[0], 0], [0, a[2], a[1]]], "float32")
    np.testing.assert_allclose(j.numpy(), want, rtol=1e-6)


def test_bad_inputs():
    A = te.placeholder((4,), name="A")
    Ai = te.placeholder((4,), "int32", name="Ai")
    with pytest.raises(tvm.TVMError, match="floating-point"):
        te.gradient(te.compute((4,), lambda i: Ai[i] * 2), [Ai])
    with pytest.raises(tvm.TVMError, match="Tensors"):
        te.gradient(te.compute((4,), lambda i: A[i] * 2), [])
    am = topi.argmax(te.compute((2, 4), lambda i, j: A[j] * i), axis=1)
    with pytest.raises(tvm.TVMError, match="floating-point|tuples"):
        te.gradient(am, [A])
    t = tvm.tir.Var("t", "float32")
    with pytest.raises(tvm.TVMError, match="cannot differentiate Let of A"):
        te.gradient(te.compute((4,), lambda i: tvm.tir.Let(t, A[i], t * 2.0)), [A])
    with pytest.raises(tvm.TVMError, match="head's shape"):
        te.gradient(te.compute((4,), lambda i: A[i] * 2), [A],
                    head=te.placeholder((3,), name="h"))
