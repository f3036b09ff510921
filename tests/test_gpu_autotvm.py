"""AutoTVM on the (emulated) GPU: the ``bind_gpu``/``bind_gpu_virtual``/``locate_cache``
annotate policies, and the classic ``conv2d_nchw.cuda`` template tuned through
LocalBuilder/LocalRunner on the emulated CUDA device with ``check_correctness=True``, its best
config checked against numpy."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import autotvm, te, topi
from tvmlite.autotvm.space import SpaceError


@pytest.fixture(autouse=True)
def _emulate(monkeypatch):
    monkeypatch.setenv("TVMLITE_GPU_EMULATION", "check")


@autotvm.template("test_gpu_autotvm/gemm")
def gemm(m, k, n):
    """A GEMM whose grid comes from ``bind_gpu`` and whose shared caches from
    ``locate_cache``."""
    A = te.placeholder((m, k), name="A")
    B = te.placeholder((k, n), name="B")
    r = te.reduce_axis((0, k), name="r")
    C = te.compute((m, n), lambda i, j: te.sum(A[i, r] * B[r, j], axis=r), name="C")
    s = te.create_schedule(C.op)
    cfg = autotvm.get_config()
    AA = s.cache_read(A, "shared", [C])
    BB = s.cache_read(B, "shared", [C])
    i, j = s[C].op.axis
    cfg.define_split("tile_y", i, num_outputs=2)
    cfg.define_split("tile_x", j, num_outputs=2)
    cfg.define_split("tile_k", s[C].op.reduce_axis[0], num_outputs=2)
    by, ty = cfg["tile_y"].apply(s, C, i)
    bx, tx = cfg["tile_x"].apply(s, C, j)
    ko, ki = cfg["tile_k"].apply(s, C, s[C].op.reduce_axis[0])
    s[C].reorder(by, bx, ty, tx, ko, ki)
    cfg.define_annotate("bind", [by, bx, ty, tx], policy="bind_gpu")
    cfg["bind"].apply(s, C, [by, bx, ty, tx])
    cfg.define_annotate("cache", [ko, ki], policy="locate_cache", num_anchor=1)
    cfg["cache"].apply(s, C, [ko, ki], source=[[AA, BB]])
    for load in (AA, BB):
        t_y, rest = s[load].split(s[load].fuse(*s[load].op.axis), nparts=cfg["tile_y"].size[1])
        s[load].bind(t_y, te.thread_axis("threadIdx.y"))
        s[load].bind(s[load].split(rest, nparts=cfg["tile_x"].size[1])[0],
                     te.thread_axis("threadIdx.x"))
    cfg.add_flop(2 * m * n * k)
    return s, [A, B, C]


def test_bind_gpu_policies():
    axes = [te.thread_axis((0, 4), "x%d" % i) for i in range(7)]
    space = autotvm.ConfigSpace()
    space.define_annotate("b7", axes, policy="bind_gpu")
    space.define_annotate("b3", axes[:3], policy="bind_gpu")
    space.define_annotate("v6", axes[:6], policy="bind_gpu_virtual")
    space.define_annotate("c", axes[:4], policy="locate_cache", num_anchor=2)
    assert [len(space.space_map[k]) for k in ("b7", "b3", "v6", "c")] == [1, 1, 1, 6]
    assert space.space_map["b7"][0].anns == ["fuse", "blockIdx.z", "blockIdx.y", "blockIdx.x",
                                             "threadIdx.z", "threadIdx.y", "threadIdx.x"]
    assert space.space_map["b3"][0].anns == ["fuse", "blockIdx.x", "threadIdx.x"]
    assert space.space_map["v6"][0].anns == ["blockIdx.y", "blockIdx.x", "vthread", "vthread",
                                             "threadIdx.y", "threadIdx.x"]
    assert space.space_map["c"][1].anns == [0, 2]
    with pytest.raises(SpaceError, match="bind_gpu.* at least 2 axes"):
        space.define_annotate("b1", axes[:1], policy="bind_gpu")
    with pytest.raises(SpaceError, match="locate_cache.*num_anchor"):
        space.define_annotate("c0", axes[:2], policy="locate_cache")


def test_gemm_template_every_config_is_right():
    m, k, n = 19, 13, 23
    task = autotvm.task.create("test_gpu_autotvm/gemm", args=(m, k, n), target="cuda")
    assert len(task.config_space) == 2 * 2 * 2 * 2  # tile_y, tile_x, tile_k, cache anchor
    rng = np.random.default_rng(0)
    a = rng.normal(size=(m, k)).astype("float32")
    b = rng.normal(size=(k, n)).astype("float32")
    dev = tvm.cuda(0)
    for idx in (0, 5, 10, 15):  # each knob at both of its values
        cfg = task.config_space.get(idx)
        with tvm.target.Target("cuda"):
            s, args = task.instantiate(cfg)
        f = tvm.build(s, args, "cuda")
        c = tvm.nd.array(np.zeros((m, n), "float32"), dev)
        f(tvm.nd.array(a, dev), tvm.nd.array(b, dev), c)
        np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-4, atol=1e-4, err_msg=str(cfg))


def test_tune_conv2d_nchw_cuda_in_emulation(tmp_path):
    shapes = ((1, 3, 9, 9), (8, 3, 3, 3))
    args = (("TENSOR", shapes[0], "float32"), ("TENSOR", shapes[1], "float32"), (1, 1),
            (1, 1), (1, 1), "float32")
    task = autotvm.task.create("conv2d_nchw.cuda", args=args, target="cuda")
    assert set(task.config_space.space_map) == {
        "tile_f", "tile_y", "tile_x", "tile_rc", "tile_ry", "tile_rx", "auto_unroll_max_step",
        "unroll_explicit"}
    log = str(tmp_path / "conv.log")
    option = autotvm.measure_option(
        builder=autotvm.LocalBuilder(timeout=120),
        runner=autotvm.LocalRunner(number=2, repeat=1, min_repeat_ms=0, timeout=60,
                                   check_correctness=True))
    # the first configs in index order (tile_f varies first): random picks may take 9x9x8
    # virtual threads, minutes to build on a loaded 2-core CI machine
    tuner = autotvm.tuner.GridSearchTuner(task)
    results = []
    tuner.tune(n_trial=8, measure_option=option,
               callbacks=[autotvm.callback.log_to_file(log),
                          lambda _t, _i, res: results.extend(res)])
    assert len(results) == 8
    good = [r for r in results if r.error_no == 0]
    assert good, [r.costs for r in results]
    assert all(r.error_no == 0 for r in results), [r.costs for r in results if r.error_no]

    rng = np.random.default_rng(1)
    d = rng.normal(size=shapes[0]).astype("float32")
    w = rng.normal(size=shapes[1]).astype("float32")
    ref = topi.testing.conv2d_nchw_python(d, w, 1, 1)
    with autotvm.apply_history_best(log):
        with tvm.target.Target("cuda"):
            data = te.placeholder(shapes[0], name="data")
            kernel = te.placeholder(shapes[1], name="kernel")
            out = topi.cuda.conv2d_nchw(data, kernel, (1, 1), (1, 1), (1, 1), "float32")
            s = topi.cuda.schedule_conv2d_nchw(out)
            f = tvm.build(s, [data, kernel, out], "cuda")
    dev = tvm.cuda(0)
    o = tvm.nd.array(np.zeros(ref.shape, "float32"), dev)
    f(tvm.nd.array(d, dev), tvm.nd.array(w, dev), o)
    np.testing.assert_allclose(o.numpy(), ref, rtol=1e-4, atol=1e-4)
    src = f.imported_modules[0].get_source()
    assert "__shared__" in src and "__syncthreads();" in src
