"""AutoTVM templates and config spaces: sizes, split policies, knobs, apply, flops, fallback."""
import logging

import numpy as np
import pytest
from programs import conv1d_auto_tune as conv1d  # seed 000's template

import tvmlite as tvm
from tvmlite import autotvm, te
from tvmlite.autotvm.space import ConfigSpace, SpaceError


@autotvm.template("test_space/matmul")
def matmul(n):
    A = te.placeholder((n, n), name="A")
    B = te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    cfg = autotvm.get_config()
    y, x = s[C].op.axis
    (kk,) = s[C].op.reduce_axis
    cfg.define_split("tile_y", y, num_outputs=3)
    cfg.define_split("tile_x", x, num_outputs=2, policy="power2")
    yo, ym, yi = cfg["tile_y"].apply(s, C, y)
    xo, xi = cfg["tile_x"].apply(s, C, x)
    cfg.define_reorder("order", [ym, yi, kk], policy="all")
    cfg["order"].apply(s, C, [ym, yi, kk])
    cfg.define_annotate("ann", [xo, xi], policy="try_unroll_vec")
    cfg["ann"].apply(s, C, [xo, xi])
    cfg.add_flop(2 * n ** 3)
    return s, [A, B, C]


def _conv_check(func, M, N):
    a = np.random.rand(M).astype("float32")
    w = np.random.rand(N).astype("float32")
    out = tvm.nd.array(np.zeros(M + N - 1, "float32"))
    func(tvm.nd.array(a), tvm.nd.array(w), out)
    np.testing.assert_allclose(out.numpy(), np.convolve(a, w), rtol=1e-4)


def test_seed_conv1d_space_has_84_configs():
    task = autotvm.task.create("tutorial/conv1d_auto_tune", args=(4096, 128), target="llvm")
    assert task.name == "tutorial/conv1d_auto_tune"
    assert task.args == (4096, 128)
    assert len(task.config_space) == 84
    sp = task.config_space.space_map
    assert [e.size for e in sp["tile_i"].entities] == [[-1, 41], [-1, 1]] or \
        sorted(e.size[-1] for e in sp["tile_i"].entities) == [1, 41]
    assert sorted(e.size[-1] for e in sp["tile_k"].entities) == [1, 2, 4, 8, 16, 32, 64]
    assert task.config_space.dims == [2, 7, 2, 3]
    # 4223 outputs x 128 taps x (5 for the guard + 1 mul + 1 add)
    assert task.flop == 4223 * 128 * 7


@pytest.mark.parametrize("index", [0, 13, 50, 83])
def test_configs_of_the_space_compute_the_convolution(index):
    task = autotvm.task.create("tutorial/conv1d_auto_tune", args=(300, 20), target="llvm")
    cfg = task.config_space.get(index)
    assert cfg.index == index
    with tvm.target.Target("llvm"):
        s, args = task.instantiate(cfg)
    _conv_check(tvm.build(s, args, "llvm"), 300, 20)


def test_index_decodes_first_knob_fastest():
    task = autotvm.task.create("tutorial/conv1d_auto_tune", args=(4096, 128), target="llvm")
    space = task.config_space
    for idx in (0, 1, 2, 17, 83):
        knobs = space.knob_indices(idx)
        assert space.index_of(knobs) == idx
        cfg = space.get(idx)
        for (name, sp), k in zip(space.space_map.items(), knobs):
            assert cfg[name] == sp.entities[k]
    assert space.knob_indices(1) == [1, 0, 0, 0]
    with pytest.raises(SpaceError):
        space.get(84)


def test_split_policies_and_other_knobs():
    task = autotvm.task.create("test_space/matmul", args=(24,), target="llvm")
    sp = task.config_space.space_map
    # exact 3-way factorisations of 24: sum over divisors d of 24 of tau(24/d) = 30
    assert len(sp["tile_y"]) == 30
    for e in sp["tile_y"].entities:
        assert e.size[0] == -1 and 24 % (e.size[1] * e.size[2]) == 0
    assert sorted(e.size[-1] for e in sp["tile_x"].entities) == [1, 2, 4, 8, 16]
    assert len(sp["order"]) == 6
    # classic: none/unroll/vec on each axis, at most one vectorized: 3 * 3 - 1
    assert len(sp["ann"]) == 8
    assert len(task.config_space) == 30 * 5 * 6 * 8
    assert task.flop == 2 * 24 ** 3  # add_flop wins over the counted flops


@pytest.mark.parametrize("index", [0, 777, 3000, 5399])
def test_matmul_configs_compute_the_product(index):
    task = autotvm.task.create("test_space/matmul", args=(24,), target="llvm")
    cfg = task.config_space.get(index)
    with tvm.target.Target("llvm"):
        s, args = task.instantiate(cfg)
    f = tvm.build(s, args, "llvm")
    a, b = np.random.rand(24, 24).astype("float32"), np.random.rand(24, 24).astype("float32")
    c = tvm.nd.array(np.zeros((24, 24), "float32"))
    f(tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-4)


def test_split_options():
    s = ConfigSpace()
    s.define_split("a", 64, num_outputs=2, max_factor=8)
    assert sorted(e.size[-1] for e in s.space_map["a"].entities) == [1, 2, 4, 8]
    s.define_split("b", 12, policy="verbose", num_outputs=2)
    assert sorted(e.size[-1] for e in s.space_map["b"].entities) == [1, 2, 3, 4, 6, 8, 12]
    s.define_split("c", 10, policy="candidate", num_outputs=2, candidate=[[-1, 5], [2, 5]])
    assert [e.size for e in s.space_map["c"].entities] == [[-1, 5], [2, 5]]
    # classic no_tail: power2 factors that divide 12; factor pairs whose product fits in 12
    s2 = ConfigSpace()
    s2.define_split("p", 12, policy="power2", num_outputs=2, no_tail=True)
    s2.define_split("f", 12, policy="factors", num_outputs=3, no_tail=False)
    assert [e.size for e in s2.space_map["p"].entities] == [[-1, 1], [-1, 2], [-1, 4]]
    assert len(s2.space_map["f"]) == 21
    s.define_knob("k", [1, 2, 3])
    assert s["k"].val == 1
    assert len(s) == 4 * 7 * 2 * 3
    with pytest.raises(SpaceError, match="twice"):
        s.define_knob("k", [1])
    with pytest.raises(SpaceError, match="no candidate"):
        s.define_split("d", 7, filter=lambda x: x.size[-1] > 7)
    with pytest.raises(SpaceError, match="policy"):
        s.define_split("e", 8, policy="bogus")
    with pytest.raises(SpaceError, match="non-empty"):
        s.define_knob("f", [])


def test_split_entity_apply_and_size():
    task = autotvm.task.create("tutorial/conv1d_auto_tune", args=(4096, 128), target="llvm")
    cfg = task.config_space.get(1)
    assert cfg["tile_i"].size[-1] in (1, 41)
    assert cfg["vectorize"].val is True
    assert cfg["unroll"].val == 0


def test_fallback_warns_once_per_workload(caplog):
    caplog.set_level(logging.WARNING, logger="autotvm")
    with tvm.target.Target("llvm"):
        s, args = conv1d(37, 5)
        conv1d(37, 5)
        conv1d(38, 5)
    msgs = [r.getMessage() for r in caplog.records if "Cannot find config" in r.getMessage()]
    assert len(msgs) == 2
    assert msgs[0] == ("Cannot find config for target=llvm, "
                       "workload=('tutorial/conv1d_auto_tune', 37, 5). A fallback "
                       "configuration is used, which may bring great performance regression.")
    _conv_check(tvm.build(s, args, "llvm"), 37, 5)


def test_fallback_config_takes_defaults():
    from tvmlite.autotvm.space import FallbackConfigEntity

    cfg = FallbackConfigEntity()
    cfg.define_split("t", 64, num_outputs=3)
    cfg.define_knob("u", [4, 8])
    cfg.define_reorder("r", [1, 2, 3], policy="all")
    cfg.define_annotate("a", [1, 2], policy="try_unroll")
    assert cfg.is_fallback
    assert cfg["t"].size == [-1, 1, 1]
    assert cfg["u"].val == 4
    assert cfg["r"].perm == [0, 1, 2]
    assert cfg["a"].anns == ["none", "none"]


def test_unknown_template_and_bad_args():
    with pytest.raises(autotvm.task.TaskError, match="no AutoTVM template"):
        autotvm.task.create("nope/none", args=(1,), target="llvm")
    with pytest.raises(autotvm.task.TaskError, match="positionally"):
        conv1d(M=4, N=2)


@autotvm.template("test_space/flop_calls")
def flop_calls(n, kind):
    A = te.placeholder((n,), name="A")
    if kind == "ite":
        B = te.compute((n,), lambda i: tvm.tir.if_then_else(A[i] > 0, A[i] * 2.0,
                                                             A[i] - 1.0 + 3.0), name="B")
    elif kind == "exp":
        B = te.compute((n,), lambda i: te.exp(A[i]) + 1.0, name="B")
    else:
        B = te.compute((n,), lambda i: A[i], name="B")
    return te.create_schedule(B.op), [A, B]


def test_flop_counts_calls_by_their_arguments_as_classic_tvm():
    # classic AutoTVM: a call adds only its arguments (if_then_else: all three of them)
    assert autotvm.task.create("test_space/flop_calls", args=(10, "ite"), target="llvm").flop \
        == 10 * (1 + 1 + 2)
    assert autotvm.task.create("test_space/flop_calls", args=(10, "exp"), target="llvm").flop \
        == 10 * 1
    with pytest.raises(autotvm.task.TaskError, match="cfg.add_flop"):
        autotvm.task.create("test_space/flop_calls", args=(10, "copy"), target="llvm")


def test_spaces_and_configs_print_as_in_classic_tvm():
    task = autotvm.task.create("tutorial/conv1d_auto_tune", args=(4096, 128), target="llvm")
    assert repr(task.config_space) == (
        "ConfigSpace (len=84, space_map=\n"
        "   0 tile_i: Split(policy=factors, product=4223, num_outputs=2) len=2\n"
        "   1 tile_k: Split(policy=factors, product=128, num_outputs=2) len=7\n"
        "   2 vectorize: OtherOption([True, False]) len=2\n"
        "   3 unroll: OtherOption([0, 8, 16]) len=3\n)")
    assert str(task.config_space.get(38)) == \
        "[('tile_i', [-1, 1]), ('tile_k', [-1, 32]), ('vectorize', True), ('unroll', 8)],None,38"
    s = ConfigSpace()
    s.define_reorder("r", [1, 2, 3], policy="all")
    s.define_annotate("a", [1, 2], policy="try_unroll")
    assert repr(s).splitlines()[1:3] == ["   0 r: Reorder(policy=all) len=6",
                                         "   1 a: Annotate(policy=try_unroll) len=4"]


def test_annotate_policies_follow_classic_tvm():
    s = ConfigSpace()
    s.define_annotate("uv", [1, 2], policy="try_unroll_vec")
    s.define_annotate("v", [1, 2, 3], policy="try_vec")
    s.define_annotate("u", [1, 2], policy="unroll")
    assert [e.anns for e in s.space_map["uv"].entities] == [
        ["none", "none"], ["none", "unroll"], ["none", "vec"], ["unroll", "none"],
        ["unroll", "unroll"], ["unroll", "vec"], ["vec", "none"], ["vec", "unroll"]]
    assert len(s.space_map["v"]) == 4  # nothing, or one of the three axes vectorized
    assert [e.anns for e in s.space_map["u"].entities] == [["unroll", "unroll"]]
    with pytest.raises(SpaceError, match="policy"):
        s.define_annotate("bad", [1], policy="try_fold")


def test_annotate_limits_mark_the_config_invalid():
    A = te.placeholder((64,), name="A")
    B = te.compute((64,), lambda i: A[i] * 2.0, name="B")
    s = te.create_schedule(B.op)
    xo, xi = s[B].split(B.op.axis[0], factor=16)
    cfg = autotvm.space.ConfigEntity(0, None, {})
    ent = autotvm.space.AnnotateEntity(["unroll", "vec"])
    ent.apply(s, B, [xo, xi], axis_lens=[4, 16], max_unroll=2, vec_size=[4, 8], cfg=cfg)
    assert not cfg.valid()
    assert cfg.errors == ["Too large factor for unrolling", "Wrong size of lanes in vectorization"]


def test_fallback_takes_first_candidate_and_fallback_split_fits_constraints():
    from tvmlite.autotvm.space import FallbackConfigEntity

    cfg = FallbackConfigEntity()
    cfg.define_split("f", 64, num_outputs=2, filter=lambda x: x.size[-1] >= 4)
    cfg.define_split("c", 10, policy="candidate", num_outputs=2, candidate=[[-1, 5], [2, 5]])
    cfg.define_split("t", 49, num_outputs=3)
    cfg.define_split("u", 128, num_outputs=3)
    cfg.fallback_split("t", [-1, 8, 4])
    cfg.fallback_split("u", [-1, 8, 4])
    assert cfg["f"].size == [-1, 4]
    assert cfg["c"].size == [-1, 5]
    assert cfg["t"].size == [7, 7, 1]
    assert cfg["u"].size == [4, 8, 4]
    # the same fallback config serves the next call: definitions again keep what was set
    cfg.define_split("t", 49, num_outputs=3)
    assert cfg["t"].size == [7, 7, 1]
    assert str(cfg).startswith("[('f', [-1, 4]), ('c', [-1, 5]), ('t', [7, 7, 1])")
    with pytest.raises(SpaceError, match="not a split knob"):
        cfg.fallback_split("nope", [-1, 2])


def test_fallback_template_computes_the_product():
    # the fallback of the matmul template takes the first candidates of its knobs
    with tvm.target.Target("llvm"):
        s, args = matmul(20)
    f = tvm.build(s, args, "llvm")
    a, b = np.random.rand(20, 20).astype("float32"), np.random.rand(20, 20).astype("float32")
    c = tvm.nd.array(np.zeros((20, 20), "float32"))
    f(tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-4)


def _filtered_space(n_y=45, n_x=63, limit=40):
    """Two split knobs over odd extents and a condition joining them (classic multi_filter)."""
    space = ConfigSpace()
    space.define_split("tile_y", space.axis(n_y), num_outputs=2)
    space.define_split("tile_x", space.axis(n_x), num_outputs=2)
    space.multi_filter(filter=lambda e: e["tile_x"].size[1] * e["tile_y"].size[1] <= limit)
    return space


def test_multi_filter_keeps_indices_and_counts_valid_points():
    space = _filtered_space()
    assert space.dims == [6, 6] and space.range_length == 36
    ok = [i for i in range(36)
          if space._entity_at(i)["tile_x"].size[1] * space._entity_at(i)["tile_y"].size[1] <= 40]
    assert 0 < len(ok) < 36 and len(space) == len(ok)
    assert [i for i in range(-3, 40) if space.is_index_valid(i)] == ok
    for i in range(36):
        if i in ok:
            assert space.get(i).index == i
        else:
            with pytest.raises(SpaceError, match="multi_filter"):
                space.get(i)
    for lo, hi in [(0, 36), (5, 17), (9, 9), (35, 36)]:
        assert space.subrange_length(lo, hi) == sum(lo <= i < hi for i in ok)
    for lo, hi in [(0, 37), (-1, 5), (10, 3)]:
        with pytest.raises(SpaceError):
            space.subrange_length(lo, hi)
    for i in range(36):
        after = [k for k in ok if k > i]
        before = [k for k in ok if k < i]
        assert space.get_next_index(i) == (after[0] if after else None)
        assert space.get_next_index(i, 2) == (after[1] if len(after) > 1 else None)
        assert space.get_next_index(i, -1) == (before[-1] if before else None)
        assert space.get_next_index(i, 1, end=i + 2) == (after[0] if after and
                                                          after[0] < i + 2 else None)
    assert space.point2knob(space.knob2point([4, 3])) == [4, 3]
    assert space.knob2point([1, 2]) == 1 + 2 * 6


def test_multi_filter_sampling_stays_valid_and_the_filter_applies_to_later_knobs():
    space = _filtered_space()
    ok = [i for i in range(36) if space.is_index_valid(i)]
    assert sorted(space.sample_ints(len(ok) + 5)) == ok
    for _ in range(20):
        assert space.get_rand_index() in ok
        walk = space.random_walk(ok[0])
        assert walk != ok[0] and walk in ok
    assert space.get_rand_index(to_exclude=ok[1:]) == ok[0]
    with pytest.raises(SpaceError):
        space.get_rand_index(to_exclude=ok)
    # redefining a knob (here with its own filter) replaces it; the shared filter still holds
    space.define_split("tile_y", space.axis(45), num_outputs=2, filter=lambda e: e.size[-1] < 9)
    assert space.dims == [3, 6]  # factors of 45 below 9: 1, 3, 5
    assert len(space) == sum(
        space._entity_at(i)["tile_x"].size[1] * space._entity_at(i)["tile_y"].size[1] <= 40
        for i in range(18))


def test_filtered_task_tunes_only_valid_configs_and_they_compute_the_product():
    import pickle

    task = autotvm.task.create("test_space/matmul", args=(19,), target="llvm")
    task.config_space.multi_filter(filter=lambda e: e["tile_x"].size[-1] * e["tile_y"].size[-1]
                                   in (1, 19))
    space = task.config_space
    assert 0 < len(space) < space.range_length
    clone = pickle.loads(pickle.dumps(space))  # the lambda stays behind; its verdicts travel
    assert [clone.is_index_valid(i) for i in range(space.range_length)] == \
        [space.is_index_valid(i) for i in range(space.range_length)]
    tuner = autotvm.tuner.GridSearchTuner(task, range_idx=(3, 40))
    assert (tuner.begin_idx, tuner.end_idx, tuner.range_length) == (3, 41, 38)
    assert tuner.visited_max == space.subrange_length(3, 41)
    a = np.random.rand(19, 19).astype("float32")
    b = np.random.rand(19, 19).astype("float32")
    for idx in space.sample_ints(3):
        s, args = task.instantiate(space.get(idx))
        f = tvm.build(s, args, "llvm")
        c = tvm.nd.empty((19, 19), "float32")
        f(tvm.nd.array(a), tvm.nd.array(b), c)
        np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-4)
