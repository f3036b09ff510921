"""relay.backend's classic build steps: ``relay.optimize``, ``GraphExecutorCodegen(None,
target).codegen(mod, mod["main"])`` and ``relay.backend._backend.build(lowered, target)``
give a graph the graph executor runs like ``relay.build``'s (results against numpy)."""
import json

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relay
from tvmlite.contrib import graph_executor
from tvmlite.error import TVMError
from tvmlite.relay.backend import graph_executor_codegen

rng = np.random.default_rng(2)


def test_codegen_then_backend_build_runs():
    x = relay.var("x", shape=(5, 9))
    w = relay.const(rng.standard_normal((3, 9)).astype("float32"))
    f = relay.Function([x], relay.nn.relu(relay.nn.dense(x, w)) + relay.const(0.5))
    target, host = tvm.target.Target.canon_target_and_host("llvm")
    assert host is None and target.kind.name == "llvm"
    mod, _ = relay.optimize(tvm.IRModule.from_expr(f), target)
    graph_json, lowered, params = graph_executor_codegen.GraphExecutorCodegen(
        None, target).codegen(mod, mod["main"])
    lib = relay.backend._backend.build(lowered, target)
    gm = graph_executor.create(graph_json, lib, tvm.cpu())
    gm.set_input(**params)
    xn = rng.standard_normal((5, 9)).astype("float32")
    gm.set_input("x", xn)
    gm.run()
    want = np.maximum(xn @ w.data.numpy().T, 0) + 0.5
    np.testing.assert_allclose(gm.get_output(0).numpy(), want, rtol=1e-5, atol=1e-6)
    with pytest.raises(TVMError, match="must be a relay Function"):
        graph_executor_codegen.GraphExecutorCodegen(None, target).codegen(mod, x)


def test_canon_target_and_host():
    t, h = tvm.target.Target.canon_target_and_host("llvm", "llvm")
    assert str(h) == "llvm" and t.host is not None
    assert tvm.target.Target.canon_target_and_host(None) == (None, None)
    with pytest.raises(TVMError, match="without a target"):
        tvm.target.Target.canon_target_and_host(None, "llvm")


def _run(func, *arrays):
    lib = relay.build(tvm.IRModule.from_expr(func), "llvm")
    gm = graph_executor.GraphModule(lib["default"](tvm.cpu()))
    for i, a in enumerate(arrays):
        gm.set_input(i, a)
    gm.run()
    return json.loads(lib.get_graph_json()), [gm.get_output(i).numpy()
                                              for i in range(gm.get_num_outputs())]


def test_reshape_only_functions_are_nops_sharing_storage():
    x = relay.var("x", shape=(10, 4))
    y = relay.expand_dims(relay.abs(x), axis=1)
    t1 = relay.abs(y)
    outs = [relay.reshape(relay.reshape(y, (1, 40)), (2, 20)), relay.sqrt(t1),
            relay.reshape(t1, (1, 40))]
    graph, got = _run(relay.Function([x], relay.Tuple(outs)), xn := rng.standard_normal(
        (10, 4)).astype("float32"))
    funcs = [n["attrs"]["func_name"] for n in graph["nodes"] if n["op"] != "null"]
    assert funcs.count("__nop") == 2
    assert graph["attrs"]["storage_id"][1] == [0, 1, 1, 2, 3, 2]
    _check_no_clobber(graph)
    a = np.abs(xn)
    np.testing.assert_allclose(got[0], a.reshape(2, 20))
    np.testing.assert_allclose(got[1], np.sqrt(a).reshape(10, 1, 4), rtol=1e-6)
    np.testing.assert_allclose(got[2], a.reshape(1, 40))


def _check_no_clobber(graph):
    """No kernel writes a storage holding an entry that is read later or is an output
    (a __nop writes nothing)."""
    row, sids = graph["node_row_ptr"], graph["attrs"]["storage_id"][1]
    heads = {row[h[0]] + h[1] for h in graph["heads"]}
    last_read = {}
    for nid, node in enumerate(graph["nodes"]):
        for e in node["inputs"]:
            last_read[row[e[0]] + e[1]] = nid
    for nid, node in enumerate(graph["nodes"]):
        if node["op"] == "null" or node["attrs"]["func_name"] == "__nop":
            continue
        written = {sids[e] for e in range(row[nid], row[nid + 1])}
        live = {sids[e] for e in range(row[nid]) if e in heads or last_read.get(e, -1) > nid}
        assert not written & live, f"node {nid} overwrites a live storage"


def test_nop_storage_is_not_reused_while_its_alias_is_read():
    # the flattened exp (a nop: dense takes no injective producer) is read by dense after
    # the other reads of the exp and kernels that allocate in between
    x = relay.var("x", shape=(3, 5, 7))
    e = relay.exp(x)
    w = relay.nn.batch_flatten(relay.tile(relay.sum(relay.negative(e), axis=(0, 1),
                                                     keepdims=True), (1, 5, 1)))
    out = relay.nn.dense(relay.nn.batch_flatten(e), relay.sigmoid(w))
    xn = rng.standard_normal((3, 5, 7)).astype("float32")
    graph, got = _run(relay.Function([x], relay.Tuple([out, relay.abs(w)])), xn)
    assert "__nop" in [n.get("attrs", {}).get("func_name") for n in graph["nodes"]]
    _check_no_clobber(graph)
    wn = np.tile((-np.exp(xn)).sum((0, 1), keepdims=True), (1, 5, 1)).reshape(1, 35)
    np.testing.assert_allclose(got[0], np.exp(xn).reshape(3, 35) @ (1 / (1 + np.exp(-wn))).T,
                               rtol=1e-5)
    np.testing.assert_allclose(got[1], np.abs(wn), rtol=1e-5)


def test_graph_plan_memory_cycles_through_two_storages():
    x, y = relay.var("x", shape=(10,)), relay.var("y", shape=(1,))
    z = relay.add(x, relay.exp(y))
    for _ in range(5):
        z = relay.exp(z)
    mod = tvm.IRModule.from_expr(relay.Function([x, y], z))
    mod = relay.transform.InferType()(relay.transform.FuseOps(0)(
        relay.transform.InferType()(mod)))
    plan = relay.backend._backend.GraphPlanMemory(mod["main"]).expr_to_storage_info
    sizes = {}
    for info in plan.values():
        assert info.device_types == [1]
        sizes.update(zip(info.storage_ids, info.storage_sizes))
    # the inputs keep theirs; the 4-byte exp's storage is grown and reused (classic)
    assert sizes == {0: 40, 1: 4, 2: 4, 3: 40}
    with pytest.raises(TVMError, match="expects a relay Function"):
        relay.backend._backend.GraphPlanMemory(mod)


def test_storage_reuse_within_the_match_range_keeps_results():
    # tensors of 4 B .. 2 KiB: storages are reused and grown, never while read
    x = relay.var("x", shape=(8, 64))
    a = relay.exp(relay.sum(x, axis=1, keepdims=True))           # 32 B
    b = relay.nn.relu(x * a)                                     # 2 KiB
    c = relay.sum(b, axis=0)                                     # 256 B
    d = relay.sigmoid(relay.sum(c))                              # 4 B
    e = relay.tanh(b - d)                                        # 2 KiB
    f = relay.Tuple([relay.sum(e * relay.expand_dims(c, 0), axis=1), d])
    xn = rng.standard_normal((8, 64)).astype("float32") * 0.1
    graph, got = _run(relay.Function([x], f), xn)
    sids = graph["attrs"]["storage_id"][1]
    assert len(set(sids)) < len(sids)  # something was reused
    _check_no_clobber(graph)
    an = np.exp(xn.sum(1, keepdims=True))
    bn = np.maximum(xn * an, 0)
    cn = bn.sum(0)
    dn = 1 / (1 + np.exp(-cn.sum()))
    np.testing.assert_allclose(got[0], (np.tanh(bn - dn) * cn[None]).sum(1), rtol=1e-4)
    np.testing.assert_allclose(got[1], dn, rtol=1e-5)
