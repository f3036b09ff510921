"""AutoTVM test helpers (``tvm.testing.autotvm``): a sample matmul task and template, a
runner that returns random costs without measuring, and sample records."""
from __future__ import annotations

import time

import numpy as np

from .. import autotvm, te
from ..autotvm.measure import MeasureInput, MeasureResult, Runner
from ..target import Target


class DummyRunner(Runner):
    """A runner that measures nothing: each input gets a random cost."""

    def __init__(self):
        super().__init__(1, 1)

    def run(self, measure_inputs, build_results):
        return [MeasureResult((np.random.random(),), 0, 0.2, time.time())
                for _ in measure_inputs]

    def get_build_kwargs(self):
        return {}


def _matmul_schedule(n, l_, m, dtype, reduce_extent):
    a = te.placeholder((n, l_), name="A", dtype=dtype)
    b = te.placeholder((l_, m), name="B", dtype=dtype)
    k = te.reduce_axis((0, reduce_extent), name="k")
    c = te.compute((n, m), lambda i, j: te.sum(a[i, k] * b[k, j], axis=k), name="C")
    return a, b, c, te.create_schedule(c.op)


@autotvm.template("testing/matmul")
def matmul(N, L, M, dtype):
    """A tunable matmul: ``tile_y`` and ``tile_x`` split the output; a tile of width 1 in x
    leaves x unsplit, so configs differ in their number of loops."""
    a, b, c, s = _matmul_schedule(N, L, M, dtype, L)
    y, x = s[c].op.axis
    k = s[c].op.reduce_axis[0]
    cfg = autotvm.get_config()
    cfg.define_split("tile_y", y, num_outputs=2)
    cfg.define_split("tile_x", x, num_outputs=2)
    yo, yi = cfg["tile_y"].apply(s, c, y)
    if cfg["tile_x"].size[-1] > 1:
        xo, xi = cfg["tile_x"].apply(s, c, x)
        s[c].reorder(yo, xo, k, yi, xi)
    else:
        s[c].reorder(yo, k, yi, x)
    return s, [a, b, c]


@autotvm.template("testing/bad_matmul")
def bad_matmul(N, L, M, dtype):
    """:func:`matmul`, except on a target with the key ``bad_device``, where the reduction is
    one element short (a wrong result the runner's check must catch)."""
    if "bad_device" in Target.current().keys:
        a, b, c, s = _matmul_schedule(N, L, M, dtype, L - 1)
        y, x = s[c].op.axis
        cfg = autotvm.get_config()
        cfg.define_split("tile_y", y, num_outputs=2)
        cfg.define_split("tile_x", x, num_outputs=2)
        return s, [a, b, c]
    return matmul(N, L, M, dtype)


def get_sample_task(n: int = 128):
    """``(task, target)`` for an n×n×n float32 ``testing/matmul`` on llvm."""
    target = Target("llvm")
    task = autotvm.task.create("testing/matmul", args=(n, n, n, "float32"), target=target)
    return task, target


def get_sample_records(n: int):
    """``n`` (MeasureInput, MeasureResult) pairs of the sample task, costs 1..n."""
    task, target = get_sample_task()
    space = task.config_space
    return [(MeasureInput(target, task, space.get(i % len(space))),
             MeasureResult((i + 1,), 0, i, time.time())) for i in range(n)]
