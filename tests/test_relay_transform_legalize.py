"""relay.transform.Legalize: registered FTVMLegalize callbacks replace calls, in the pass and
in relay.build; the result computes what the callback's expression computes."""
import numpy as np
import pytest

import tvmlite as tvm
from tests.relay_helpers import build_run
from tvmlite import relay
from tvmlite.relay import transform
from tvmlite.relay.testing.temp_op_attr import TempOpAttr


def _func():
    x = relay.var("x", shape=(3, 5), dtype="float32")
    return relay.Function([x], relay.nn.relu(relay.add(x, x)))


def test_legalize_replaces_and_builds():
    seen = []

    def legal_relu(attrs, inputs, types):
        seen.append([str(t) for t in types])
        return relay.clip(inputs[0], 0.0, 1.0)  # a different op, so the numbers show it

    data = np.random.default_rng(0).standard_normal((3, 5)).astype("float32")
    with TempOpAttr("nn.relu", "FTVMLegalize", legal_relu):
        mod = transform.Legalize()(transform.InferType()(tvm.IRModule.from_expr(_func())))
        got = build_run(_func(), {"x": data})[0][0]  # relay.build legalizes too
    assert mod["main"].body.op.name == "clip"
    assert len(seen[0]) == 2  # the argument's type and the output's
    np.testing.assert_allclose(got, np.clip(2 * data, 0, 1), rtol=1e-6)
    np.testing.assert_allclose(build_run(mod["main"], {"x": data})[0][0], got, rtol=1e-6)


def test_none_keeps_the_call_and_bad_result_is_an_error():
    with TempOpAttr("nn.relu", "FTVMLegalize", lambda a, i, t: None):
        mod = transform.InferType()(tvm.IRModule.from_expr(_func()))
        assert tvm.ir.structural_equal(transform.Legalize()(mod)["main"], mod["main"])
    with TempOpAttr("nn.relu", "FTVMLegalize", lambda a, i, t: 3):
        with pytest.raises(tvm.TVMError, match="FTVMLegalize callback of nn.relu"):
            transform.Legalize()(tvm.IRModule.from_expr(_func()))
