"""A relay VM executable exported with ``exe.mod.export_library``, uploaded to a loopback RPC
server and run there by ``runtime.vm.VirtualMachine(remote_lib, remote.cpu())``: results
(tensors and tuples, dynamic shapes) against numpy."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relay, rpc
from tvmlite.error import TVMError
from tvmlite.runtime import vm as rvm
from tvmlite.runtime.container import ADT

rng = np.random.default_rng(3)


def test_vm_over_rpc(tmp_path):
    x = relay.var("x", shape=(relay.Any(), 3))
    y = relay.var("y", shape=(3,))
    f = relay.Function([x, y], relay.Tuple([x + y, relay.sum(x * x, axis=0)]))
    exe = relay.vm.compile(tvm.IRModule.from_expr(f), "llvm")
    path = str(tmp_path / "vm.so")
    exe.mod.export_library(path)
    server = rpc.Server("127.0.0.1", port=0, work_dir=str(tmp_path), silent=True)
    try:
        remote = rpc.connect(server.host, server.port)
        remote.upload(path)
        vm = rvm.VirtualMachine(remote.load_module("vm.so"), remote.cpu())
        yn = rng.random(3, "float32")
        for n in (5, 2):
            xn = rng.random((n, 3), "float32")
            out = vm.invoke("main", tvm.nd.array(xn, remote.cpu()), yn)
            assert isinstance(out, ADT) and len(out) == 2
            np.testing.assert_allclose(out[0].numpy(), xn + yn, rtol=1e-6)
            np.testing.assert_allclose(out[1].numpy(), (xn * xn).sum(0), rtol=1e-5)
        dst = [tvm.nd.array(np.zeros((4, 3), "float32"), remote.cpu()),
               tvm.nd.array(np.zeros(3, "float32"), remote.cpu())]
        xn = rng.random((4, 3), "float32")
        vm.invoke_with_outputs("main", {"x": xn, "y": yn}, dst)
        np.testing.assert_allclose(dst[0].numpy(), xn + yn, rtol=1e-6)
        assert vm.get_input_index("y") == 1
        with pytest.raises(TVMError, match="one of that session"):
            rvm.VirtualMachine(remote.load_module("vm.so"), tvm.cpu())
        with pytest.raises(Exception, match="expects Tensor"):
            vm.invoke("main", np.zeros((2, 4), "float32"), yn)
    finally:
        server.terminate()
