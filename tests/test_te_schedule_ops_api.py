"""``te.schedule.ScheduleOps``: the scheduled loop nest of a TE schedule, as classic TVM
returns it after ``InferBound``."""
import tvmlite as tvm
from tvmlite import te
from tvmlite.tir.stmt import Block, For


def _loops(stmt):
    out = []
    tvm.tir.stmt_functor.post_order_visit(
        stmt, lambda x: out.append(x.loop_var.name) if isinstance(x, For) else None)
    return out


def test_schedule_ops_gives_the_scheduled_nest():
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    A1 = te.compute((n,), lambda i: A[i] + 1, name="A1")
    C = te.compute((n,), lambda i: A1[i] * 2, name="C")
    s = te.create_schedule(C.op)
    xo, _ = s[C].split(C.op.axis[0], factor=8)
    s[A1].compute_at(s[C], xo)
    bounds = te.schedule.InferBound(s.normalize())
    assert bounds[xo].extent is not None
    stmt = te.schedule.ScheduleOps(s, bounds)
    assert isinstance(stmt, Block)
    assert sorted(_loops(stmt)) == ["i", "i.inner", "i.outer"]


def test_auto_inline_broadcast_inlines_injective_stages():
    A = te.placeholder((4, 5), name="A")
    B = te.compute((4, 5), lambda i, j: A[i, j] + 1, name="B")
    C = te.compute((4, 5), lambda i, j: B[i, j] * 2, name="C")
    s = te.create_schedule(C.op)
    te.schedule.AutoInlineBroadcast(s)
    assert s[B].attach_type == 2
    assert sorted(_loops(te.schedule.ScheduleOps(s))) == ["i", "j"]


def test_schedule_ops_body_of_one_stage_is_its_outer_loop():
    A = te.placeholder((6, 4), name="A")
    C = te.compute((6, 4), lambda i, j: A[i, j] * 3, name="C")
    s = te.create_schedule(C.op)
    stmt = te.schedule.ScheduleOps(s.normalize(), te.schedule.InferBound(s))
    assert isinstance(stmt.body, For) and stmt.body.loop_var.name == C.op.axis[0].var.name
