"""Helpers of the relay tests: build a function and run it with the graph executor."""
from typing import Dict, List, Optional

import numpy as np

import tvmlite as tvm
from tvmlite import relay
from tvmlite.contrib import graph_executor


def build_run(func, inputs: Dict[str, np.ndarray], params: Optional[dict] = None,
              opt_level: int = 3, target: str = "llvm", disabled_pass=()):
    """(outputs as numpy arrays, the factory module)."""
    mod = tvm.IRModule.from_expr(func)
    with tvm.transform.PassContext(opt_level=opt_level, disabled_pass=list(disabled_pass)):
        factory = relay.build(mod, target=target, params=params)
    gm = graph_executor.GraphModule(factory["default"](tvm.cpu()))
    for k, v in inputs.items():
        gm.set_input(k, v)
    gm.run()
    outs: List[np.ndarray] = [gm.get_output(i).numpy() for i in range(gm.get_num_outputs())]
    return outs, factory


def kernel_names(factory) -> List[str]:
    """The kernels the graph calls, in order."""
    import json
    g = json.loads(factory.get_graph_json())
    return [n["attrs"]["func_name"] for n in g["nodes"] if n["op"] == "tvm_op"]


def run_onnx(model, feeds: Dict[str, np.ndarray], freeze_params: bool = False
             ) -> List[np.ndarray]:
    """tvmlite's outputs of an ONNX model on ``feeds``: from_onnx, relay.build at opt_level
    3, the graph executor."""
    mod, params = relay.frontend.from_onnx(model, freeze_params=freeze_params)
    with tvm.transform.PassContext(opt_level=3):
        factory = relay.build(mod, target="llvm", params=params)
    gm = graph_executor.GraphModule(factory["default"](tvm.cpu()))
    for k, v in feeds.items():
        gm.set_input(k, v)
    gm.run()
    return [gm.get_output(i).numpy() for i in range(gm.get_num_outputs())]


def onnxruntime_outputs(model, feeds: Dict[str, np.ndarray]) -> List[np.ndarray]:
    """onnxruntime's (CPUExecutionProvider) outputs of an ONNX model on ``feeds``."""
    import onnxruntime as ort
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)
