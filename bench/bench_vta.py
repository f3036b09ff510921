"""Seed 002 (classic VTA's conv2d tutorial, ResNet-18 layer 9) on the VTA simulator: build time
(CPU and wall), simulation time, the classic statistics and the estimated cycles per queue,
with two virtual threads (``cthread``, latency hiding) and with one.

Run: python bench/bench_vta.py [--profile]
"""
import cProfile
import pstats
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import tvmlite as tvm  # noqa: E402
from tvmlite import te, topi, vta  # noqa: E402
from tvmlite.topi.testing import conv2d_nchw_python  # noqa: E402
from tvmlite.vta.testing import simulator  # noqa: E402

env = vta.get_env()
H, IC, OC = 14, 256, 256


def seed_schedule(v_threads=2):
    """The seed's packed conv2d + shift/clip and its schedule (blocking, cthread, DMA, GEMM)."""
    data_shape = (1, IC // 16, H, H, 1, 16)
    kernel_shape = (OC // 16, IC // 16, 3, 3, 16, 16)
    out_shape = (1, OC // 16, H, H, 1, 16)
    dy, dx = te.reduce_axis((0, 3), name="dy"), te.reduce_axis((0, 3), name="dx")
    ic = te.reduce_axis((0, IC // 16), name="ic")
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
    oc_out, oc_inn = s[res].split(oc, factor=8)
    y_out, y_inn = s[res].split(y, factor=7)
    x_out, x_inn = s[res].split(x, factor=14)
    s[res].reorder(b_out, oc_out, y_out, x_out, b_inn, oc_inn, y_inn, x_inn, b_tns, oc_tns)
    for t in (res_conv, res_shr, res_max, res_min):
        s[t].compute_at(s[res], x_out)
    b_inn, oc_inn, y_inn, x_inn, b_tns, oc_tns = s[res_conv].op.axis
    ic_out, ic_inn = s[res_conv].split(ic, factor=1)
    s[res_conv].reorder(ic_out, b_inn, oc_inn, y_inn, ic_inn, dy, dx, x_inn, b_tns, oc_tns,
                        ic_tns)
    if v_threads > 1:
        _, tx = s[res].split(oc_out, factor=v_threads)
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


def run(v_threads, profile=False):
    s, args = seed_schedule(v_threads)
    prof = cProfile.Profile() if profile else None
    c0, w0 = time.process_time(), time.perf_counter()
    if prof:
        prof.enable()
    with vta.build_config(disabled_pass={"tir.CommonSubexprElimTIR"}):
        f = vta.build(s, args, tvm.target.Target("ext_dev", host=env.target_host), name="conv")
    if prof:
        prof.disable()
        pstats.Stats(prof).sort_stats("cumulative").print_stats(25)
    build_cpu, build_wall = time.process_time() - c0, time.perf_counter() - w0
    rng = np.random.default_rng(0)
    d = rng.integers(-128, 128, size=(1, IC, H, H)).astype("int8")
    k = rng.integers(-128, 128, size=(OC, IC, 3, 3)).astype("int8")
    dp = d.reshape(1, 1, IC // 16, 16, H, H).transpose((0, 2, 4, 5, 1, 3))
    kp = k.reshape(OC // 16, 16, IC // 16, 16, 3, 3).transpose((0, 2, 4, 5, 1, 3))
    dev = tvm.ext_dev(0)
    out = tvm.nd.array(np.zeros((1, OC // 16, H, H, 1, 16), "int8"), dev)
    simulator.clear_stats()
    c0, w0 = time.process_time(), time.perf_counter()
    f(tvm.nd.array(dp, dev), tvm.nd.array(kp, dev), out)
    sim_cpu, sim_wall = time.process_time() - c0, time.perf_counter() - w0
    ref = conv2d_nchw_python(d.astype("int32"), k.astype("int32"), (1, 1), (1, 1))
    ref = np.clip(ref >> 8, 0, 127).astype("int8")
    ref = ref.reshape(1, 1, OC // 16, 16, H, H).transpose((0, 2, 4, 5, 1, 3))
    np.testing.assert_array_equal(out.numpy(), ref)
    print(f"== v_threads={v_threads}: build {build_cpu:.2f} s CPU ({build_wall:.2f} s wall), "
          f"simulation {sim_cpu:.2f} s CPU ({sim_wall:.2f} s wall); result equals numpy")
    for key, val in simulator.stats().items():
        print(f"\t{key:<16}: {val:>16}")
    u = simulator.utilisation()
    for q in ("load", "compute", "store"):
        print(f"\t{q:<8} {int(u[q + '_insns']):6d} insns {int(u[q + '_cycles']):9d} cycles "
              f"utilisation {u[q + '_utilisation']:.2f}")
    print(f"\ttotal {int(u['total_cycles'])} cycles (queues one after another: "
          f"{int(u['serial_cycles'])}, overlap saves "
          f"{1 - u['total_cycles'] / u['serial_cycles']:.0%})")


if __name__ == "__main__":
    prof = "--profile" in sys.argv
    run(2, prof)
    run(1)
