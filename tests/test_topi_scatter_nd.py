"""topi.scatter_nd and topi.scatter_elements in every mode against numpy loops applying the
updates in order (repeated and negative indices, more updates than the axis, odd sizes, index
dtypes)."""
import itertools

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, topi
from tvmlite.topi.utils import TopiError

RNG = np.random.default_rng(31)
COMBINE = {"update": lambda a, b: b, "add": np.add, "mul": np.multiply, "min": np.minimum,
           "max": np.maximum}


def loop(data, indices, updates, mode):
    out = data.copy()
    m = indices.shape[0]
    for y in itertools.product(*[range(d) for d in indices.shape[1:]]):
        at = tuple(int(indices[(k,) + y]) for k in range(m))
        out[at] = COMBINE[mode](out[at], updates[y])
    return out


@pytest.mark.parametrize("mode", list(COMBINE))
@pytest.mark.parametrize("dshape,ishape,idtype", [((2, 2), (2, 3), "int64"),
                                                  ((2, 7, 3), (2, 5), "int32"),
                                                  ((5, 3, 4), (1, 2, 3), "int64"),
                                                  ((3, 4), (2, 3, 3), "int32"),
                                                  ((4, 5, 2), (3, 1), "uint8")])
def test_scatter_nd(mode, dshape, ishape, idtype):
    m = ishape[0]
    signed = idtype.startswith("int")
    indices = np.stack([RNG.integers(-dshape[k] if signed else 0, dshape[k], ishape[1:])
                        for k in range(m)]).astype(idtype)
    updates = RNG.uniform(-2, 2, ishape[1:] + dshape[m:]).astype("float32")
    data = RNG.uniform(-2, 2, dshape).astype("float32")
    want = loop(data, indices, updates, mode)
    D = te.placeholder(dshape, name="D")
    idx = te.placeholder(ishape, idtype, "I")
    U = te.placeholder(updates.shape, name="U")
    out = topi.scatter_nd(D, idx, U, mode)
    f = tvm.build(topi.generic.schedule_extern([out]), [D, idx, U, out], "llvm")
    res = tvm.nd.array(np.zeros(dshape, "float32"))
    f(tvm.nd.array(data), tvm.nd.array(indices), tvm.nd.array(updates), res)
    np.testing.assert_allclose(res.numpy(), want, rtol=1e-6)


def test_scatter_nd_skips_out_of_range_and_checks_shapes():
    data = np.zeros((3, 2), "float32")
    D, U = te.placeholder((3, 2), name="D"), te.placeholder((2, 2), name="U")
    idx = te.placeholder((1, 2), "int32", "I")
    out = topi.scatter_nd(D, idx, U, "add")
    f = tvm.build(topi.generic.schedule_extern([out]), [D, idx, U, out], "llvm")
    res = tvm.nd.array(np.zeros((3, 2), "float32"))
    f(tvm.nd.array(data), tvm.nd.array(np.array([[7, 1]], "int32")),
      tvm.nd.array(np.ones((2, 2), "float32")), res)
    np.testing.assert_array_equal(res.numpy(), [[0, 0], [1, 1], [0, 0]])
    with pytest.raises(TopiError, match="updates must have shape"):
        topi.scatter_nd(D, idx, te.placeholder((3, 2)), "add")
    with pytest.raises(TopiError, match="mode"):
        topi.scatter_nd(D, idx, U, "sub")


ELEMENTS = dict(COMBINE, mean=lambda a, b: (a + b) / 2)


@pytest.mark.parametrize("reduction", list(ELEMENTS))
@pytest.mark.parametrize("dshape,ishape,axis,idtype", [((5,), (7,), 0, "int64"),
                                                       ((4, 6), (3, 6), 0, "int32"),
                                                       ((4, 6), (4, 9), -1, "int64"),
                                                       ((3, 5, 4), (2, 3, 4), 1, "int32"),
                                                       ((3, 5, 4), (3, 5, 2), 2, "uint8")])
def test_scatter_elements(reduction, dshape, ishape, axis, idtype):
    signed = idtype.startswith("int")
    n = dshape[axis]
    indices = RNG.integers(-n if signed else 0, n, ishape).astype(idtype)
    updates = RNG.uniform(-2, 2, ishape).astype("float32")
    data = RNG.uniform(-2, 2, dshape).astype("float32")
    want = data.copy()
    ax = axis % len(dshape)
    for p in itertools.product(*[range(d) for d in ishape]):
        q = list(p)
        q[ax] = int(indices[p]) % n
        want[tuple(q)] = ELEMENTS[reduction](want[tuple(q)], updates[p])
    D, U = te.placeholder(dshape, name="D"), te.placeholder(ishape, name="U")
    idx = te.placeholder(ishape, idtype, "I")
    out = topi.scatter_elements(D, idx, U, axis, reduction)
    f = tvm.build(topi.generic.schedule_extern([out]), [D, idx, U, out], "llvm")
    res = tvm.nd.array(np.zeros(dshape, "float32"))
    f(tvm.nd.array(data), tvm.nd.array(indices), tvm.nd.array(updates), res)
    np.testing.assert_allclose(res.numpy(), want, rtol=1e-6)


def test_scatter_elements_errors():
    D = te.placeholder((3, 4), name="D")
    with pytest.raises(TopiError, match="reduction"):
        topi.scatter_elements(D, te.placeholder((3, 4), "int32"), te.placeholder((3, 4)),
                              0, "sub")
    with pytest.raises(TopiError, match="exceeds"):
        topi.scatter_elements(D, te.placeholder((3, 5), "int32"), te.placeholder((3, 5)), 0)
    with pytest.raises(TopiError, match="one shape"):
        topi.scatter_elements(D, te.placeholder((3, 4), "int32"), te.placeholder((3, 3)), 0)
