"""topi.einsum against numpy.einsum: traces and diagonals, implicit outputs, ellipses,
broadcasting (also of symbolic sizes bound at run time), several operands, odd sizes."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, topi
from tvmlite.topi.utils import TopiError

RNG = np.random.default_rng(43)


def run(eq, shapes, sym=None):
    sym = sym or {}
    arrays = [RNG.uniform(-1, 1, [sym.get(d, d) for d in s]).astype("float32") for s in shapes]
    want = np.einsum(eq, *arrays)
    vars_ = {}
    pls = [te.placeholder([vars_.setdefault(d, te.var(d)) if isinstance(d, str) else d
                           for d in s], name=f"x{k}") for k, s in enumerate(shapes)]
    out = topi.einsum(eq, *pls)
    f = tvm.build(te.create_schedule(out.op), pls + [out], "llvm")
    res = tvm.nd.array(np.zeros(want.shape, "float32"))
    f(*[tvm.nd.array(a) for a in arrays], res)
    np.testing.assert_allclose(res.numpy(), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("eq,shapes", [
    ("ii", [(5, 5)]), ("ii->i", [(3, 3)]), ("iji->j", [(2, 5, 2)]), ("ij->ji", [(3, 7)]),
    ("ij", [(3, 7)]), ("ji", [(3, 7)]), ("...j->...", [(5, 3)]), ("...j,j", [(4, 5), (5,)]),
    ("...,...", [(), (2, 3)]), ("ijk,jil->kl", [(3, 4, 5), (4, 3, 2)]),
    ("ij,ij->i", [(1, 4), (2, 4)]), ("...ij,...jk->...ik", [(3, 2, 4), (1, 4, 5)]),
    ("...ik,...jk,...hk->i...jh", [(3, 4, 4), (1, 5, 3, 8, 4), (2, 5, 3, 6, 4)]),
    ("ij,jk,km->im", [(2, 3), (3, 4), (4, 5)]), ("i,j", [(3,), (5,)]), ("i,i", [(7,), (7,)]),
    ("b i j, b j k -> b k i", [(2, 3, 5), (2, 5, 1)])])
def test_einsum(eq, shapes):
    run(eq, shapes)


@pytest.mark.parametrize("shapes,sym", [([(2, "K"), (1, "N")], {"K": 3, "N": 4}),
                                        ([(2, "K"), ("K2", "N")], {"K": 3, "N": 4, "K2": 3}),
                                        ([(2, "K"), ("K2", "N")], {"K": 3, "N": 4, "K2": 1})])
def test_einsum_symbolic_broadcast(shapes, sym):
    run("ij,jk->ik", shapes, sym)


def test_einsum_errors():
    a, b = te.placeholder((3, 4)), te.placeholder((5, 6))
    with pytest.raises(TopiError, match="do not broadcast"):
        topi.einsum("ij,jk->ik", a, b)
    with pytest.raises(TopiError, match="operand terms"):
        topi.einsum("ij->i", a, b)
    with pytest.raises(TopiError, match="labels for an operand"):
        topi.einsum("ijk->i", a)
    with pytest.raises(TopiError, match="in no operand"):
        topi.einsum("ij->z", a)
