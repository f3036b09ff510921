"""Sampling primitives (sample_categorical, sample_perfect_tile, sample_compute_location):
seeded decisions, decisions kept in the trace and replayed, sampled values driving split and
compute_at with results equal to the unscheduled build, and refusals."""
from collections import Counter

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, tir
from tvmlite.tir.schedule import ExprRV, ScheduleError
from tvmlite.tir.schedule.testing import verify_trace_roundtrip

N, M, K = 45, 21, 11


def _elementwise():
    A = te.placeholder((N, M), name="A")
    B = te.compute((N, M), lambda i, j: A[i, j] * 3.0, name="B")
    return te.create_prim_func([A, B])


def _producer_reduce():
    A = te.placeholder((N, K), name="A")
    B = te.compute((N, K), lambda i, k: A[i, k] + 1.0, name="B")
    k = te.reduce_axis((0, K), name="k")
    C = te.compute((N,), lambda i: te.sum(B[i, k], axis=k), name="C")
    return te.create_prim_func([A, C])


def _run(mod, shapes, out_shape):
    rng = np.random.default_rng(7)
    ins = [rng.random(s, dtype=np.float32) for s in shapes]
    out = tvm.nd.array(np.zeros(out_shape, "float32"))
    tvm.build(mod, target="llvm")(*[tvm.nd.array(x) for x in ins], out)
    return out.numpy()


@pytest.mark.parametrize("seed", [0, 3, 17, 123])
def test_perfect_tile_split_matches_unscheduled(seed):
    func = _elementwise()
    sch = tir.Schedule(func, seed=seed)
    i, j = sch.get_loops(sch.get_block("B"))
    fi = sch.sample_perfect_tile(i, n=3, max_innermost_factor=4)
    fj = sch.sample_perfect_tile(j, n=2, max_innermost_factor=-1)
    vi, vj = [sch.get(v) for v in fi], [sch.get(v) for v in fj]
    assert int(np.prod(vi)) == N and int(np.prod(vj)) == M and vi[-1] <= 4
    assert all(isinstance(v, int) for v in vi + vj)
    sch.split(i, fi)
    sch.split(j, fj)
    extents = [lp.extent.value for lp in (sch.get(rv) for rv in sch.get_loops("B"))]
    assert extents == vi + vj
    np.testing.assert_allclose(_run(sch.mod, [(N, M)], (N, M)),
                               _run(func, [(N, M)], (N, M)), rtol=1e-6)
    verify_trace_roundtrip(sch, mod=func)


def test_seed_decides_and_copy_forks():
    func = _elementwise()

    def draws(sch):
        return [sch.get(sch.sample_categorical([0, 1, 2, 3, 4], [1] * 5)) for _ in range(30)]

    a, b = tir.Schedule(func, seed=5), tir.Schedule(func, seed=5)
    assert draws(a) == draws(b)
    assert draws(tir.Schedule(func, seed=6)) != draws(tir.Schedule(func, seed=5))
    rv = a.sample_categorical([10, 20], [1, 1])
    c = a.copy()
    assert c.get(rv) == a.get(rv)  # sampled values survive the copy
    assert draws(c) != draws(a)  # but the copy draws from a forked state
    a.seed(9)
    b.seed(9)
    assert draws(a) == draws(b)
    assert isinstance(a.fork_seed(), int)


def test_categorical_frequencies_and_trace_decisions():
    func = _elementwise()
    sch = tir.Schedule(func, seed=1)
    cands, probs = [7, 3, 9], [0.2, 0.5, 0.3]
    got = [sch.get(sch.sample_categorical(cands, probs)) for _ in range(2000)]
    freq = Counter(got)
    for c, p in zip(cands, probs):
        assert abs(freq[c] / 2000 - p) < 0.05
    decisions = sch.trace.decisions
    assert [cands[decisions[inst].value] for inst in sch.trace.insts] == got
    assert "decision=" in str(sch.trace)
    replayed = verify_trace_roundtrip(sch, mod=func)
    assert [cands[replayed.trace.decisions[inst].value]
            for inst in replayed.trace.insts] == got


def test_sampled_value_as_split_factor_and_annotation_replays():
    func = _elementwise()
    sch = tir.Schedule(func, seed=2)
    i, j = sch.get_loops("B")
    f = sch.sample_categorical([2, 4, 8], [1, 1, 1])
    assert isinstance(f, ExprRV)
    _, j1 = sch.split(j, [None, f])
    sch.annotate(j1, "pragma_auto_unroll_max_step", sch.sample_categorical([0, 16], [1, 1]))
    np.testing.assert_allclose(_run(sch.mod, [(N, M)], (N, M)),
                               _run(func, [(N, M)], (N, M)), rtol=1e-6)
    verify_trace_roundtrip(sch, mod=func)


def test_compute_location_candidates_and_every_decision_correct():
    func = _producer_reduce()
    want = _run(func, [(N, K)], (N,))
    seen = set()
    sch = tir.Schedule(func, seed=4)
    for _ in range(60):
        sch.sample_compute_location("B")
        seen.add(sch.trace.decisions[sch.trace.insts[-1]].value)
    # inline (-2), root (-1), and loop i of C (0); the reduction loop k is trailing
    assert seen == {-2, -1, 0}
    for decision in sorted(seen):
        s = tir.Schedule(func)
        s.split(s.get_loops("C")[0], [None, 4])
        loc = s.sample_compute_location("B", decision=decision)
        s.compute_at("B", loc)
        np.testing.assert_allclose(_run(s.mod, [(N, K)], (N,)), want, rtol=1e-5)
        verify_trace_roundtrip(s, mod=func)
    # a recorded decision no longer offered falls back to the nearest one before it
    s = tir.Schedule(func)
    s.sample_compute_location("B", decision=5)
    assert s.trace.decisions[s.trace.insts[-1]].value == 0


def test_sampling_refusals():
    func = _elementwise()
    sch = tir.Schedule(func, seed=0)
    i, _ = sch.get_loops("B")
    for call, text in [
        (lambda: sch.sample_categorical([1, 2], [0.5, -0.5]), "non-negative"),
        (lambda: sch.sample_categorical([], []), "at least one"),
        (lambda: sch.sample_categorical([1, 2], [1, 1], decision=2), "out of range"),
        (lambda: sch.sample_perfect_tile(i, n=0), "n must be a positive int"),
        (lambda: sch.sample_perfect_tile(i, n=2, max_innermost_factor=-3),
         "max_innermost_factor"),
        (lambda: sch.sample_perfect_tile(i, n=2, decision=[3, 14]), "not 2 positive factors"),
    ]:
        with pytest.raises(ScheduleError, match=text):
            call()
    assert len(sch.trace) == 2  # only get_block and get_loops
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] + 1.0, name="B")
    sym = tir.Schedule(te.create_prim_func([A, B]))
    (k,) = sym.get_loops("B")
    with pytest.raises(ScheduleError, match=r'sample_perfect_tile.*loop "i".*positive constant'):
        sym.sample_perfect_tile(k, n=2)
    other = tir.Schedule(func)
    with pytest.raises(ScheduleError, match="not defined in this schedule"):
        other.get(sch.sample_categorical([1], [1]))


def test_expressions_of_sampled_values_in_layouts_and_splits():
    # classic's ExprRV is a PrimExpr: ``j1 * j2`` is an expression the schedule evaluates
    func = _elementwise()
    sch = tir.Schedule(func)
    block = sch.get_block("B")
    i, j = sch.get_loops(block)
    _, j1, j2 = sch.sample_perfect_tile(j, 3, decision=[1, 3, 7])
    fi = sch.sample_perfect_tile(i, 2, decision=[9, 5])
    tile = j1 * j2
    assert isinstance(tile, tvm.tir.PrimExpr) and isinstance(2 + j1, tvm.tir.PrimExpr)
    sch.transform_layout(block, ("write", 0), lambda a, b: (a, b // tile, b % tile))
    assert [int(x) for x in sch.get(block).writes[0].buffer.shape] == [N, 1, M]
    sch.split(i, [None, fi[1] * 1])  # an expression as a split factor
    assert [sch.get(lp).extent.value for lp in sch.get_loops(block)][:2] == [9, 5]
    got = _run(sch.mod, [(N, M)], (N, 1, M)).reshape(N, M)
    np.testing.assert_allclose(got, _run(func, [(N, M)], (N, M)), rtol=1e-6)
    verify_trace_roundtrip(sch, mod=func)
