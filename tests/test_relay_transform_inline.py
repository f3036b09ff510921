"""relay.transform.Inline: global functions marked Inline are inlined into their callers (in
chains, callees first) and leave the module; the result computes what numpy does."""
import numpy as np

import tvmlite as tvm
from tests.relay_helpers import build_run
from tvmlite import relay


def _module():
    mod = tvm.IRModule({})
    a = relay.var("a", shape=(3, 5), dtype="float32")
    leaf, mid, keep = relay.GlobalVar("leaf"), relay.GlobalVar("mid"), relay.GlobalVar("keep")
    mod[leaf] = relay.Function([a], relay.exp(a)).with_attr("Inline", 1)
    b, c = relay.var("b", shape=(3, 5), dtype="float32"), relay.var("c", shape=(3, 5),
                                                                     dtype="float32")
    mod[mid] = relay.Function([b, c], leaf(b) * c + leaf(c)).with_attr("Inline", 1)
    d = relay.var("d", shape=(3, 5), dtype="float32")
    mod[keep] = relay.Function([d], d - leaf(d))  # not marked: stays, its calls inlined
    x, y = relay.var("x", shape=(3, 5), dtype="float32"), relay.var("y", shape=(3, 5),
                                                                     dtype="float32")
    mod["main"] = relay.Function([x, y], mid(x, y) + mid(y, x))
    return mod


def test_inline_chain_and_numbers():
    out = relay.transform.Inline()(_module())
    assert sorted(out.functions) == ["keep", "main"]
    cg = relay.analysis.CallGraph(out)
    assert cg.global_call_count("main") == 0 and cg.global_call_count("keep") == 0
    rng = np.random.default_rng(8)
    x, y = (rng.standard_normal((3, 5)).astype("float32") for _ in range(2))
    got = build_run(out["main"], {"x": x, "y": y})[0][0]

    def mid(b, c):
        return np.exp(b) * c + np.exp(c)
    np.testing.assert_allclose(got, mid(x, y) + mid(y, x), rtol=1e-5)


def test_recursive_function_is_not_inlined():
    mod = tvm.IRModule({})
    rec = relay.GlobalVar("rec")
    i = relay.var("i", shape=(), dtype="int32")
    mod[rec] = relay.Function([i], rec(i)).with_attr("Inline", 1)
    j = relay.var("j", shape=(), dtype="int32")
    mod["main"] = relay.Function([j], rec(j))
    out = relay.transform.Inline()(mod)
    assert sorted(out.functions) == ["main", "rec"]
    assert tvm.ir.structural_equal(out["main"], mod["main"])


def test_remove_unused_functions_keeps_what_entries_reach():
    mod = _module()
    dead = relay.GlobalVar("dead")
    z = relay.var("z", shape=(3, 5), dtype="float32")
    mod[dead] = relay.Function([z], z)
    out = relay.transform.RemoveUnusedFunctions()(mod)
    assert sorted(out.functions) == ["leaf", "main", "mid"]
    out = relay.transform.RemoveUnusedFunctions(["main", "keep"])(mod)
    assert sorted(out.functions) == ["keep", "leaf", "main", "mid"]
