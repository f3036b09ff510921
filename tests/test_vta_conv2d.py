"""VTA: the seed's packed conv2d at small shapes on the simulator, against numpy; bad input."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, topi, vta
from tvmlite.error import TVMError
from tvmlite.topi.testing import conv2d_nchw_python
from tvmlite.vta.testing import simulator

env = vta.get_env()


def _conv(h, ic_, oc_, oc_block, h_block, vt, ic_block=1):
    data_shape = (1, ic_ // 16, h, h, 1, 16)
    kernel_shape = (oc_ // 16, ic_ // 16, 3, 3, 16, 16)
    out_shape = (1, oc_ // 16, h, h, 1, 16)
    dy = te.reduce_axis((0, 3), name="dy")
    dx = te.reduce_axis((0, 3), name="dx")
    ic = te.reduce_axis((0, ic_ // 16), name="ic")
    ic_tns = te.reduce_axis((0, 16), name="ic_tns")
    data = te.placeholder(data_shape, name="data", dtype=env.inp_dtype)
    kernel = te.placeholder(kernel_shape, name="kernel", dtype=env.wgt_dtype)
    data_buf = topi.nn.pad(data, [0, 0, 1, 1, 0, 0], name="data_buf")
    kernel_buf = te.compute(kernel_shape, lambda *i: kernel(*i), "kernel_buf")
    res_conv = te.compute(out_shape, lambda bo, co, i, j, bi, ci: te.sum(
        data_buf[bo, ic, i + dy, j + dx, bi, ic_tns].astype(env.acc_dtype)
        * kernel_buf[co, ic, dy, dx, ci, ic_tns].astype(env.acc_dtype),
        axis=[ic, dy, dx, ic_tns]), name="res_conv")
    res_shr = te.compute(out_shape, lambda *i: res_conv(*i) >> 8, name="res_shr")
    res_max = te.compute(out_shape, lambda *i: te.max(res_shr(*i), 0), "res_max")
    res_min = te.compute(out_shape, lambda *i: te.min(res_max(*i), 127), "res_min")
    res = te.compute(out_shape, lambda *i: res_min(*i).astype(env.inp_dtype), name="res")
    s = te.create_schedule(res.op)
    b, oc, y, x, b_tns, oc_tns = s[res].op.axis
    b_out, b_inn = s[res].split(b, factor=1)
    oc_out, oc_inn = s[res].split(oc, factor=oc_block)
    y_out, y_inn = s[res].split(y, factor=h_block)
    x_out, x_inn = s[res].split(x, factor=h)
    s[res].reorder(b_out, oc_out, y_out, x_out, b_inn, oc_inn, y_inn, x_inn, b_tns, oc_tns)
    for t in (res_conv, res_shr, res_max, res_min):
        s[t].compute_at(s[res], x_out)
    b_inn, oc_inn, y_inn, x_inn, b_tns, oc_tns = s[res_conv].op.axis
    ic_out, ic_inn = s[res_conv].split(ic, factor=ic_block)
    s[res_conv].reorder(ic_out, b_inn, oc_inn, y_inn, ic_inn, dy, dx, x_inn, b_tns, oc_tns,
                        ic_tns)
    if vt > 1:
        _, tx = s[res].split(oc_out, factor=vt)
        s[res].reorder(tx, b_out)
        s[res].bind(tx, te.thread_axis("cthread"))
    s[data_buf].set_scope(env.inp_scope)
    s[kernel_buf].set_scope(env.wgt_scope)
    for t in (res_conv, res_shr, res_min, res_max):
        s[t].set_scope(env.acc_scope)
    s[data_buf].compute_at(s[res_conv], ic_out)
    s[kernel_buf].compute_at(s[res_conv], ic_out)
    s[data_buf].pragma(s[data_buf].op.axis[0], env.dma_copy)
    s[kernel_buf].pragma(s[kernel_buf].op.axis[0], env.dma_copy)
    s[res].pragma(s[res].op.axis[4], env.dma_copy)
    s[res_conv].tensorize(b_tns, env.gemm)
    for t in (res_shr, res_min, res_max):
        s[t].pragma(s[t].op.axis[0], env.alu)
    return s, [data, kernel, res]


def _run(f, h, ic, oc, seed=0):
    rng = np.random.default_rng(seed)
    d = rng.integers(-128, 128, size=(1, ic, h, h)).astype("int8")
    k = rng.integers(-128, 128, size=(oc, ic, 3, 3)).astype("int8")
    dp = d.reshape(1, 1, ic // 16, 16, h, h).transpose((0, 2, 4, 5, 1, 3))
    kp = k.reshape(oc // 16, 16, ic // 16, 16, 3, 3).transpose((0, 2, 4, 5, 1, 3))
    dev = tvm.ext_dev(0)
    res = tvm.nd.array(np.zeros((1, oc // 16, h, h, 1, 16), "int8"), dev)
    simulator.clear_stats()
    f(tvm.nd.array(dp, dev), tvm.nd.array(kp, dev), res)
    ref = conv2d_nchw_python(d.astype("int32"), k.astype("int32"), (1, 1), (1, 1))
    ref = np.clip(ref.astype("int32") >> 8, 0, 127).astype("int8")
    ref = ref.reshape(1, 1, oc // 16, 16, h, h).transpose((0, 2, 4, 5, 1, 3))
    np.testing.assert_array_equal(res.numpy(), ref)
    return simulator.stats()


@pytest.mark.parametrize("h,ic,oc,oc_block,h_block,vt", [
    (6, 16, 32, 1, 3, 1), (6, 32, 64, 2, 3, 2), (5, 48, 32, 1, 5, 2)])
def test_vta_conv2d_small_matches_numpy(h, ic, oc, oc_block, h_block, vt):
    s, args = _conv(h, ic, oc, oc_block, h_block, vt)
    st = _run(vta.build(s, args, name="conv"), h, ic, oc)
    # every output tile is stored once; every MAC tile runs once per (ic, dy, dx)
    assert st["out_store_nbytes"] == oc * h * h
    assert st["gemm_counter"] == (oc // 16) * (ic // 16) * 9 * h * h
    assert st["alu_counter"] == 3 * (oc // 16) * h * h


def test_vta_module_save_load_local_session(tmp_path):
    s, args = _conv(6, 16, 32, 1, 3, 1)
    f = vta.build(s, args, tvm.target.Target("ext_dev", host=env.target_host), name="conv")
    f.save(str(tmp_path / "conv2d.o"))
    remote = tvm.rpc.LocalSession()
    remote.upload(str(tmp_path / "conv2d.o"))
    g = remote.load_module("conv2d.o")
    assert remote.ext_dev(0).device_type == 12
    _run(g, 6, 16, 32, seed=3)


def test_vta_acc_buffer_over_sram_is_an_error():
    # 4 x 48 output rows x 49 pixels: the accumulator tile needs more than its 2048 rows
    s, args = _conv(7, 16, 16 * 48, 48, 7, 1)
    with pytest.raises(TVMError, match="local.acc_buffer.*limit 2048"):
        vta.build(s, args, name="conv")


def test_vta_simulator_deadlock_and_token_mismatch():
    from tvmlite.vta import isa
    from tvmlite.vta.codegen import Program
    from tvmlite.vta.simulator import run
    prog = Program("p", [isa.Gemm(isa.COMPUTE_Q, pop_prev=True, reset=True)],
                   np.zeros((0, 3), np.int32), [], [], [], {})
    with pytest.raises(TVMError, match="deadlock"):
        run(prog, [], env)
    prog.insns = [isa.Gemm(isa.COMPUTE_Q, push_next=True, reset=True)]
    with pytest.raises(TVMError, match="token mismatch"):
        run(prog, [], env)


def test_vta_env_defaults():
    assert (env.TARGET, env.BATCH, env.BLOCK_IN, env.BLOCK_OUT) == ("sim", 1, 16, 16)
    assert (env.inp_dtype, env.wgt_dtype, env.acc_dtype) == ("int8", "int8", "int32")
    assert env.inp_scope == "local.inp_buffer" and env.dma_copy == "dma_copy"
    assert env.INP_BUFF_SIZE == 32768 and env.WGT_BUFF_SIZE == 262144


def test_vta_conv2d_at_the_seeds_shape_gives_the_seeds_statistics():
    """Seed 002: ResNet-18 layer 9 (14x14, 256 -> 256 channels), blocks of 8 output channels and 7
    rows, two virtual threads: equal to numpy, and the simulator's counts equal the seed's
    printed statistics (micro-op bytes: ours 1128, the seed's 1144; identical micro-op kernels
    are shared here)."""
    s, args = _conv(14, 256, 256, 8, 7, 2)
    st = _run(vta.build(s, args, name="conv2d"), 14, 256, 256, seed=3)
    assert {k: st[k] for k in ("inp_load_nbytes", "wgt_load_nbytes", "acc_load_nbytes",
                               "out_store_nbytes", "gemm_counter", "alu_counter")} == {
        "inp_load_nbytes": 114688, "wgt_load_nbytes": 1179648, "acc_load_nbytes": 0,
        "out_store_nbytes": 50176, "gemm_counter": 451584, "alu_counter": 9408}
    assert st["uop_load_nbytes"] == 1128
