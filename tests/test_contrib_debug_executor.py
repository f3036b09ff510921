"""The debug graph executor: per-kernel times, the classic table, node outputs and dumps, on a
small network whose result and intermediate are checked against numpy."""
import json
import os

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relay
from tvmlite.contrib.debugger import debug_executor, debug_runtime
from tvmlite.error import TVMError
from tvmlite.topi.testing import conv2d_nchw_python


@pytest.fixture(scope="module")
def net():
    x = relay.var("x", shape=(1, 3, 7, 9))
    w = relay.var("w", shape=(4, 3, 3, 3))
    d = relay.var("d", shape=(5, 4 * 7 * 9))
    y = relay.nn.relu(relay.nn.conv2d(x, w, padding=(1, 1)))
    z = relay.nn.dense(relay.nn.batch_flatten(y), d)
    rng = np.random.default_rng(2)
    params = {"w": rng.standard_normal((4, 3, 3, 3)).astype("float32"),
              "d": rng.standard_normal((5, 252)).astype("float32")}
    mod = tvm.IRModule.from_expr(relay.Function([x, w, d], z))
    with tvm.transform.PassContext(opt_level=3, disabled_pass=["AlterOpLayout"]):
        graph, lib, built = relay.build(mod, target="llvm", params=params)
    return graph, lib, built, params


def _kernels(graph):
    """The nodes that run a kernel (a reshape-only __nop runs nothing)."""
    return [n for n in json.loads(graph)["nodes"]
            if n["op"] == "tvm_op" and n["attrs"]["func_name"] != "__nop"]


def test_debug_run_times_every_kernel_and_keeps_the_result(net, tmp_path, capsys):
    graph, lib, params, raw = net
    m = debug_executor.create(graph, lib, tvm.cpu(), dump_root=str(tmp_path))
    m.set_input(**params)
    x = np.random.default_rng(0).standard_normal((1, 3, 7, 9)).astype("float32")
    m.run(number=2, x=x)
    conv = np.maximum(conv2d_nchw_python(x, raw["w"], 1, 1), 0)
    want = conv.reshape(1, -1) @ raw["d"].T
    np.testing.assert_allclose(m.get_output(0).numpy(), want, rtol=1e-4, atol=1e-4)
    table = capsys.readouterr().out
    kernels = _kernels(graph)
    assert "Node Name" in table and "Time(us)" in table
    assert all(n["name"] in table for n in kernels)
    times = m.debug_datum._time_list
    assert len(times) == len(kernels) and all(t[0] > 0 for t in times)
    # the conv+relu node's own output, by name
    first = kernels[0]["name"]
    np.testing.assert_allclose(m.debug_get_output(first).numpy(), conv, rtol=1e-4, atol=1e-4)
    dumped = os.listdir(tmp_path)
    assert len(dumped) == 1
    files = os.listdir(tmp_path / dumped[0])
    assert sorted(files) == ["_tvmdbg_graph_dump.json", "output_tensors.params"]
    saved = relay.load_param_dict(open(tmp_path / dumped[0] / "output_tensors.params",
                                       "rb").read())
    assert len(saved) == len(kernels)


def test_run_individual_and_errors(net):
    graph, lib, params, _ = net
    m = debug_runtime.create(graph, lib, tvm.cpu())
    m.set_input(**params)
    res = m.run_individual(number=3, repeat=2)
    n_kernels = len(_kernels(graph))
    assert len(res) == n_kernels and all(len(r) == 2 and min(r) > 0 for r in res)
    nid = next(i for i, n in enumerate(json.loads(graph)["nodes"]) if n["op"] == "tvm_op")
    assert len(m.run_individual_node(nid, number=2, repeat=3).results) == 3
    with pytest.raises(TVMError, match="not a kernel"):
        m.run_individual_node(0)
    with pytest.raises(TVMError, match="no kernel node 'nope'"):
        m.debug_get_output("nope")
    with pytest.raises(TVMError, match="number and repeat"):
        m.run_individual(0)
