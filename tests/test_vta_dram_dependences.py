"""VTA: dependences through DRAM. A stage stores a tensor that a later stage of the same module
loads again (read after write), or overwrites DRAM an earlier load read (write after read): the
generated tokens order them in the simulator's queues; against numpy; a program whose tokens
miss such a dependence is a clear error, never a wrong answer."""
import numpy as np
import pytest

from tvmlite import te, vta
from tvmlite.error import TVMError
from tvmlite.vta import isa
from tvmlite.vta.simulator import run

env = vta.get_env()


def _two_stages(n, m):
    """Stage 1: ``mid = int8(X >> 3)`` (accumulator load, ALU, store); stage 2:
    ``C = int8(mid x B^T)`` loading ``mid`` back from DRAM into the input buffer."""
    X = te.placeholder((1, n, 1, 16), name="X", dtype=env.acc_dtype)
    B = te.placeholder((m, n, 16, 16), name="B", dtype=env.wgt_dtype)
    x_acc = te.compute(X.shape, lambda *i: X(*i), "x_acc")
    x_shr = te.compute(X.shape, lambda *i: x_acc(*i) >> 3, "x_shr")
    mid = te.compute(X.shape, lambda *i: x_shr(*i).astype(env.inp_dtype), "mid")
    a_buf = te.compute(X.shape, lambda *i: mid(*i), "a_buf")
    b_buf = te.compute(B.shape, lambda *i: B(*i), "b_buf")
    ko = te.reduce_axis((0, n), name="ko")
    ki = te.reduce_axis((0, 16), name="ki")
    c_buf = te.compute((1, m, 1, 16), lambda bo, co, bi, ci: te.sum(
        a_buf[bo, ko, bi, ki].astype(env.acc_dtype) * b_buf[co, ko, ci, ki].astype(env.acc_dtype),
        axis=[ko, ki]), name="c_buf")
    C = te.compute(c_buf.shape, lambda *i: c_buf(*i).astype(env.inp_dtype), name="C")
    s = te.create_schedule(C.op)
    for t in (x_acc, x_shr, c_buf):
        s[t].set_scope(env.acc_scope)
    s[a_buf].set_scope(env.inp_scope)
    s[b_buf].set_scope(env.wgt_scope)
    for t in (x_acc, mid, a_buf, b_buf, C):
        s[t].pragma(s[t].op.axis[0], env.dma_copy)
    s[x_shr].pragma(s[x_shr].op.axis[0], env.alu)
    ko_, ki_ = s[c_buf].op.reduce_axis
    bo, co, bi, ci = s[c_buf].op.axis
    s[c_buf].reorder(ko_, bo, co, bi, ci, ki_)
    s[c_buf].tensorize(bi, env.gemm)
    return s, [X, B, mid, C]


def _inputs(n, m, seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(-1000, 1000, (1, n, 1, 16)).astype("int32")
    b = rng.integers(-128, 128, (m, n, 16, 16)).astype("int8")
    return x, b


def _reference(x, b):
    mid = (x >> 3).astype("int8")
    c = np.einsum("nk,mnok->mo", mid[0, :, 0].astype(np.int32), b.astype(np.int32))
    return mid, c.astype("int8")[None, :, None, :]


@pytest.mark.parametrize("n, m", [(3, 5), (5, 2)])
def test_vta_stage_reloading_a_stored_tensor_matches_numpy(n, m):
    s, args = _two_stages(n, m)
    f = vta.build(s, args, name="two_stages")
    insns = f.program.insns
    store = next(k for k, i in enumerate(insns) if isinstance(i, isa.Store))
    reload = next(k for k, i in enumerate(insns) if isinstance(i, isa.Load) and i.arg == 2)
    # the load of mid waits for the store of mid, relayed through the compute queue
    assert store < reload and insns[store].push_prev and insns[reload].pop_next
    assert any(isinstance(i, isa.Noop) for i in insns[store:reload])
    x, b = _inputs(n, m, seed=n * 7 + m)
    mid = np.zeros((1, n, 1, 16), "int8")
    c = np.zeros((1, m, 1, 16), "int8")
    f(x, b, mid, c)
    want_mid, want_c = _reference(x, b)
    np.testing.assert_array_equal(mid, want_mid)
    np.testing.assert_array_equal(c, want_c)


def test_vta_missing_dram_dependence_is_an_error():
    s, args = _two_stages(3, 4)
    f = vta.build(s, args, name="two_stages")
    prog = f.program
    # drop the relay and the flags it needed: the reload would run before the store
    prog.insns = [i for i in prog.insns if not isinstance(i, isa.Noop)]
    for i in prog.insns:
        if isinstance(i, isa.Store) and i.arg == 2:
            i.push_prev = False
        if isinstance(i, isa.Load) and i.arg == 2:
            i.pop_next = False
    x, b = _inputs(3, 4, seed=1)
    out = [x, b, np.zeros((1, 3, 1, 16), "int8"), np.zeros((1, 4, 1, 16), "int8")]
    with pytest.raises(TVMError, match="missing dependence: load instruction 0 .*store "
                                       "instruction 0, which writes the DRAM it reads"):
        run(prog, out, env)


def test_vta_store_over_dram_a_load_read_waits_for_it():
    # write after read: a store into the argument an earlier load of the load queue read
    tile = {"inp": 16, "wgt": 256, "acc": 16}
    from tvmlite.vta.codegen import insert_dependences
    insns = [isa.Load(isa.LOAD_Q, mem="inp", sram=0, arg=0, offset=0, x_size=2, x_stride=2),
             isa.Store(isa.STORE_Q, sram=0, arg=0, offset=1, x_size=2, x_stride=2)]
    out = insert_dependences(insns, {m: 64 for m in tile}, tile)
    assert [type(i).__name__ for i in out] == ["Load", "Noop", "Store"]
    assert out[0].push_next and out[1].pop_prev and out[1].push_next and out[2].pop_prev
    # disjoint DRAM: no relay
    insns = [isa.Load(isa.LOAD_Q, mem="inp", sram=0, arg=0, offset=0, x_size=2, x_stride=2),
             isa.Store(isa.STORE_Q, sram=0, arg=0, offset=2, x_size=2, x_stride=2)]
    assert len(insert_dependences(insns, {m: 64 for m in tile}, tile)) == 2
