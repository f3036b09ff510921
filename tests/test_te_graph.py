"""The one walk over the TE operation graph (``te.graph.post_dfs_order``), used by
``create_prim_func`` and ``te.create_schedule``."""
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
