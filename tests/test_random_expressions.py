"""Random elementwise expressions (arithmetic, min/max, comparisons, if_then_else guarding
shifted loads, floordiv/floormod, casts) under random split/vectorize/parallel/unroll
schedules, built and compared with numpy (the generator lives in ``tests/fuzz/exprs.py``).
``TVMLITE_RANDOM_CASES=N`` runs N cases."""
import os
import random

import numpy as np
import pytest
from fuzz.exprs import guarded_loader, random_expr

import tvmlite as tvm
from tvmlite import te

N_CASES = int(os.environ.get("TVMLITE_RANDOM_CASES", "24"))


@pytest.mark.parametrize("case", range(N_CASES))
def test_random_expression(case):
    rng = random.Random(7000 + case)
    dtype = rng.choice(["float32", "float64", "int32", "int64"])
    n = rng.randint(1, 70)
    A = te.placeholder((n,), name="A", dtype=dtype)
    B = te.placeholder((n,), name="B", dtype=dtype)
    holder = {}

    def body(i):
        e, f = random_expr(rng, guarded_loader(A, (), i, n, dtype), lambda: B[i], i, n, dtype,
                           rng.randint(1, 4))
        holder["f"] = f
        return e

    C = te.compute((n,), body, name="C")
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(C.op.axis[0], factor=rng.choice([1, 3, 4, 8, 16, 41]))
    if rng.random() < 0.7:
        s[C].vectorize(xi)
    elif rng.random() < 0.5:
        s[C].unroll(xi)
    if rng.random() < 0.5:
        s[C].parallel(xo)
    f = tvm.build(s, [A, B, C])
    np_rng = np.random.default_rng(case)
    if "int" in dtype:
        a, b = (np_rng.integers(-20, 20, n).astype(dtype) for _ in range(2))
    else:
        a, b = (np_rng.standard_normal(n).astype(dtype) for _ in range(2))
    c = tvm.nd.empty((n,), dtype)
    f(tvm.nd.array(a), tvm.nd.array(b), c)
    with np.errstate(all="ignore"):
        want = holder["f"](a, b, np.arange(n)).astype(dtype)
    np.testing.assert_allclose(c.numpy(), want, rtol=1e-5, atol=1e-5,
                               err_msg=str(tvm.lower(s, [A, B, C])))
