"""Pass instruments: ``PassContext(instruments=[...])``, ``pass_instrument``,
``PassTimingInstrument`` and the ``TVMLITE_PRINT_IR`` printer."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te
from tvmlite.ir.instrument import PassTimingInstrument, PrintAfterAll, pass_instrument


def _vectorized(n=64):
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] + 3.0, name="B")
    s = te.create_schedule(B.op)
    _, xi = s[B].split(B.op.axis[0], factor=8)
    s[B].vectorize(xi)
    return s, A, B


@pass_instrument
class Recorder:
    def __init__(self, skip=()):
        self.events, self.skip = [], set(skip)

    def enter_pass_ctx(self):
        self.events.append("enter")

    def exit_pass_ctx(self):
        self.events.append("exit")

    def should_run(self, mod, info):
        return info.name not in self.skip

    def run_before_pass(self, mod, info):
        self.events.append("before " + info.name)

    def run_after_pass(self, mod, info):
        assert isinstance(mod, tvm.IRModule)
        self.events.append("after " + info.name)


def test_instrument_sees_every_pass_in_order():
    rec = Recorder()
    assert isinstance(rec, tvm.ir.instrument.PassInstrument)
    s, A, B = _vectorized()
    with tvm.transform.PassContext(instruments=[rec]) as ctx:
        assert tvm.transform.PassContext.current().instruments == [rec] and ctx.instruments
        assert rec.events == ["enter"]
        tvm.lower(s, [A, B])
    assert rec.events[0] == "enter" and rec.events[-1] == "exit"
    assert rec.events[1] == "before tvmlite.lower"
    assert rec.events[-2] == "after tvmlite.lower"
    assert rec.events[2:4] == ["before tir.LowerReductionInit", "after tir.LowerReductionInit"]
    assert "after tir.VectorizeLoop" in rec.events
    assert tvm.transform.PassContext.current().instruments == []


def test_should_run_skips_a_pass_unless_required(rng):
    s, A, B = _vectorized()
    a = tvm.nd.array(rng.standard_normal(64).astype("float32"))
    rec = Recorder(skip=["tir.VectorizeLoop"])
    with tvm.transform.PassContext(instruments=[rec]):
        text = tvm.lower(s, [A, B]).script()
        f = tvm.build(s, [A, B])  # instruments bypass the build cache: the passes run again
    assert "T.vectorized(8)" in text and "before tir.VectorizeLoop" not in rec.events
    b = tvm.nd.empty((64,))
    f(a, b)
    np.testing.assert_allclose(b.numpy(), a.numpy() + 3)
    with tvm.transform.PassContext(instruments=[Recorder(skip=["tir.VectorizeLoop"])],
                                   required_pass=["tir.VectorizeLoop"]):
        assert "T.Broadcast" in tvm.lower(s, [A, B]).script()


def test_failing_enter_exits_the_instruments_already_entered():
    @pass_instrument()
    class Fails:
        def enter_pass_ctx(self):
            raise RuntimeError("cannot enter")

    rec = Recorder()
    with pytest.raises(RuntimeError, match="cannot enter"):
        with tvm.transform.PassContext(instruments=[rec, Fails()]):
            pass
    assert rec.events == ["enter", "exit"]
    assert tvm.transform.PassContext.current().instruments == []
    with pytest.raises(tvm.TVMError, match="not a pass instrument"):
        tvm.transform.PassContext(instruments=[object()])


def test_pass_timing_instrument_renders_nested_profile():
    s, A, B = _vectorized()
    timing = PassTimingInstrument()
    with tvm.transform.PassContext(instruments=[timing]):
        tvm.lower(s, [A, B])
        profile = PassTimingInstrument.render()
        assert timing.render() == profile
    lines = profile.splitlines()
    assert lines[0].startswith("tvmlite.lower: ") and lines[0].endswith("(100.00%; 100.00%)")
    assert any(line.startswith("\ttir.Simplify: ") for line in lines)
    assert len(lines) == 14  # the pipeline and its thirteen passes
    assert PassTimingInstrument.render() == ""  # exiting the context clears the profile


def test_print_ir_env_is_an_instrument(monkeypatch, capsys):
    s, A, B = _vectorized()
    monkeypatch.setenv("TVMLITE_PRINT_IR", "1")
    assert any(isinstance(i, PrintAfterAll)
               for i in tvm.transform.PassContext.current().instruments)
    tvm.lower(s, [A, B])
    err = capsys.readouterr().err
    assert err.count("# IR after ") == 13  # each pass once; not the pipeline around them
    assert "# IR after tir.FlattenBuffer\n# from tvm.script import tir as T" in err
    assert "# IR after tvmlite.lower" not in err
    monkeypatch.setenv("TVMLITE_PRINT_IR", "0")
    tvm.lower(s, [A, B])
    assert capsys.readouterr().err == ""


def _relay_mod():
    from tvmlite import relay
    x = relay.var("x", shape=(2,))
    return tvm.IRModule.from_expr(relay.Function([x], relay.nn.relu(x)))


@pass_instrument
class _Fails(Recorder):
    """A Recorder whose hook named ``where`` raises ValueError."""

    def __init__(self, where):
        super().__init__()
        self.where = where

    def enter_pass_ctx(self):
        super().enter_pass_ctx()
        if self.where == "enter":
            raise ValueError("bad enter")

    def exit_pass_ctx(self):
        super().exit_pass_ctx()
        if self.where == "exit":
            raise ValueError("bad exit")

    def run_before_pass(self, mod, info):
        super().run_before_pass(mod, info)
        if self.where == "before":
            raise ValueError("bad before")


def test_failing_enter_drops_the_instruments():
    first, bad, last = Recorder(), _Fails("enter"), Recorder()
    ctx = tvm.transform.PassContext(instruments=[first, bad, last])
    with pytest.raises(ValueError, match="bad enter"):
        with ctx:
            pass
    assert first.events == ["enter", "exit"] and bad.events == ["enter"] and last.events == []
    assert ctx.instruments == []  # classic: overriding now exits nothing
    ctx.override_instruments([])
    assert first.events == ["enter", "exit"]


def test_failing_exit_drops_the_instruments_after_it():
    first, bad, last = Recorder(), _Fails("exit"), Recorder()
    ctx = tvm.transform.PassContext(instruments=[first, bad, last])
    with pytest.raises(ValueError, match="bad exit"):
        with ctx:
            tvm.relay.transform.InferType()(_relay_mod())
    assert first.events[-1] == "exit" and bad.events[-1] == "exit"
    assert last.events == ["enter", "before InferType", "after InferType"]  # never exited
    assert ctx.instruments == [] and tvm.transform.PassContext.current() is not ctx


def test_failing_run_before_pass():
    first, bad, last = Recorder(), _Fails("before"), Recorder()
    with pytest.raises(ValueError, match="bad before"):
        with tvm.transform.PassContext(instruments=[first, bad, last]):
            tvm.relay.transform.InferType()(_relay_mod())
    # the pass did not run; leaving the context exited every instrument
    assert first.events == ["enter", "before InferType", "exit"]
    assert last.events == ["enter", "exit"]
    # on the default context, nothing exits until the instruments are overridden
    cur = tvm.transform.PassContext.current()
    first, bad = Recorder(), _Fails("before")
    cur.override_instruments([first, bad])
    try:
        with pytest.raises(ValueError, match="bad before"):
            tvm.relay.transform.InferType()(_relay_mod())
        assert first.events == ["enter", "before InferType"]
    finally:
        cur.override_instruments([])
    assert first.events[-1] == "exit" and cur.instruments == []


def test_override_instruments_and_timing_on_the_current_context():
    timing = PassTimingInstrument()
    cur = tvm.transform.PassContext.current()
    cur.override_instruments([timing])
    try:
        seq = tvm.transform.Sequential([tvm.relay.transform.InferType()], name="outer")
        seq(_relay_mod())
        text = timing.render()
    finally:
        cur.override_instruments([])
    lines = text.splitlines()
    assert lines[0].startswith("outer: ") and lines[1].startswith("\tInferType: ")
    assert tvm.instrument.PassTimingInstrument is PassTimingInstrument
    assert tvm.instrument.pass_instrument is pass_instrument
