"""The one walk over the TE operation graph (``te.graph.post_dfs_order``), used by
``create_prim_func`` and ``te.create_schedule``."""
import pytest

import tvmlite as tvm
from tvmlite import te
from tvmlite.te.graph import post_dfs_order


def test_diamond_each_op_once_inputs_first():
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] + 1.0, name="B")
    C = te.compute((8,), lambda i: A[i] * 2.0, name="C")
    D = te.compute((8,), lambda i: B[i] + C[i], name="D")
    order = post_dfs_order([D.op])
    assert [op.name for op in order] == ["A", "B", "C", "D"]
    assert [op.name for op in post_dfs_order([C.op, D.op, B.op])] == ["A", "C", "B", "D"]


def test_schedule_stages_follow_the_walk():
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] + 1.0, name="B")
    C = te.compute((8,), lambda i: B[i] * A[i], name="C")
    s = te.create_schedule(C.op)
    assert [st.op.name for st in s.stages] == [op.name for op in post_dfs_order([C.op])]


def test_deep_chain_needs_no_recursion():
    def plus_one(src, k):
        return te.compute((2,), lambda i: src[i] + 1.0, name=f"T{k}")

    t = te.placeholder((2,), name="A")
    for k in range(3000):
        t = plus_one(t, k)
    order = post_dfs_order([t.op])
    assert len(order) == 3001 and order[0].name == "A" and order[-1] is t.op


def test_read_graph_and_its_post_order():
    A = te.placeholder((5, 3), name="A")
    A1 = te.compute((5, 3), lambda i, j: A[i, j] * 2, name="A1")
    A2 = te.compute((5, 3), lambda i, j: A1[i, j] + A[i, j], name="A2")
    g = tvm.te.schedule.CreateReadGraph([A2.op])
    assert set(g) == {A.op, A1.op, A2.op}
    assert [t.op for t in g[A2.op]] == [A1.op, A.op] and g[A.op] == []
    assert tvm.te.schedule.PostDFSOrder([A2.op], g) == [A.op, A1.op, A2.op]
    with pytest.raises(tvm.TVMError, match="PostDFSOrder: the read graph lacks"):
        tvm.te.schedule.PostDFSOrder([A2.op], {A2.op: g[A2.op]})


def _scan3(update_fn, extra=None):
    l, m, n = te.var("l"), te.var("m"), te.var("n")
    x = te.compute((l, m, n), lambda *i: tvm_const(1.0), name="x")
    state = te.placeholder((l, m, n), name="state")
    init = te.compute((1, m, n), lambda _, i, j: x[0, i, j], name="init")
    update = update_fn(l, m, n, x, state)
    return te.scan(init, update, state)


def tvm_const(v):
    return tvm.tir.const(v, "float32")


def test_scan_body_and_fix_point_analysis():
    def fix(scan):
        f = tvm.te.schedule.ScanFixPointAnalysis(scan.op)
        return [f[iv].value for iv in scan.op.spatial_axis_]

    # state read index for index: both spatial axes are fixed points
    up = {}

    def exact(l, m, n, x, state):
        h = te.compute((l, m, n), lambda t, i, j: state[t - 1, i, j] * 2, name="h")
        up["h"] = h
        return te.compute((l, m, n), lambda t, i, j: h[t, i, j] + x[t, j, i], name="update")

    s = _scan3(exact)
    body = tvm.te.schedule.ScanGetBody(s.op)
    assert [op.name for op in body] == ["h", "update"]  # x reads no state: not in the body
    assert fix(s) == [1, 1]
    # transposed state read: neither axis is a fixed point
    s = _scan3(lambda l, m, n, x, state: te.compute(
        (l, m, n), lambda t, i, j: state[t - 1, j, i] + 1, name="update"))
    assert fix(s) == [0, 0]
    # a constant index on the last axis spoils that axis only
    s = _scan3(lambda l, m, n, x, state: te.compute(
        (l, m, n), lambda t, i, j: state[t - 1, i, 3] + 1, name="update"))
    assert fix(s) == [1, 0]
    # an update axis reaching a second state dimension spoils both
    s = _scan3(lambda l, m, n, x, state: te.compute(
        (l, m, n), lambda t, i, j: state[t - 1, i, j] + state[t - 1, j, j], name="update"))
    assert fix(s) == [0, 0]


def test_attach_path_lists_the_enclosing_loops_innermost_first():
    A = te.placeholder((6, 4), name="A")
    B = te.compute((6, 4), lambda i, j: A[i, j] + 1, name="B")
    C = te.compute((6, 4), lambda i, j: B[i, j] * 2, name="C")
    D = te.compute((6, 4), lambda i, j: C[i, j] - 1, name="D")
    s = te.create_schedule(D.op)
    io, ii = s[D].split(D.op.axis[0], factor=2)
    s[C].compute_at(s[D], ii)
    s[B].compute_at(s[C], C.op.axis[1])
    path = tvm.te.schedule.CreateAttachPath(s)
    assert list(path[D.op]) == [] and list(path[A.op]) == []
    assert list(path[C.op]) == [ii, io]
    assert list(path[B.op]) == [C.op.axis[1], C.op.axis[0], ii, io]
