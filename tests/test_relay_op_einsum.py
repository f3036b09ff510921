"""relay.einsum (one TOPI compute, topi.einsum) against numpy, and ONNX Einsum against
onnxruntime: matmuls, batched attention scores, diagonals, full sums, outer products."""
import numpy as np
import pytest
from relay_helpers import build_run

import tvmlite as tvm
from tvmlite import relay

CASES = [("ij,jk->ik", [(3, 4), (4, 5)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
         ("ii->i", [(4, 4)]), ("ij->", [(3, 5)]), ("i,j->ij", [(3,), (4,)]),
         ("bhqd,bhkd->bhqk", [(1, 2, 5, 3), (1, 2, 7, 3)]), ("...ij->...ji", [(2, 3, 4)])]


@pytest.mark.parametrize("equation, shapes", CASES)
def test_einsum_matches_numpy(rng, equation, shapes):
    vs = [relay.var(f"x{k}", shape=s) for k, s in enumerate(shapes)]
    arrs = {f"x{k}": rng.random(s, dtype=np.float32) for k, s in enumerate(shapes)}
    out, _ = build_run(relay.Function(vs, relay.einsum(vs, equation)), arrs)
    np.testing.assert_allclose(out[0], np.einsum(equation, *arrs.values()), rtol=1e-5)


@pytest.mark.parametrize("equation, shapes", CASES[:6])
def test_onnx_einsum_matches_onnxruntime(rng, equation, shapes):
    pytest.importorskip("onnxruntime")
    from onnx import TensorProto, helper
    from relay_helpers import onnxruntime_outputs, run_onnx
    feeds = {f"x{k}": rng.random(s, dtype=np.float32) for k, s in enumerate(shapes)}
    graph = helper.make_graph(
        [helper.make_node("Einsum", list(feeds), ["y"], equation=equation)], "g",
        [helper.make_tensor_value_info(k, TensorProto.FLOAT, v.shape) for k, v in feeds.items()],
        [helper.make_empty_tensor_value_info("y")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    np.testing.assert_allclose(run_onnx(model, feeds)[0], onnxruntime_outputs(model, feeds)[0],
                               rtol=1e-5, atol=1e-6)


def test_einsum_bad_equation_is_a_clear_error():
    x = relay.var("x", shape=(3, 4))
    mod = tvm.IRModule.from_expr(relay.Function([x], relay.einsum([x], "ij,jk->ik")))
    with pytest.raises(tvm.TVMError, match="2 operand terms in 'ij,jk->ik' for 1 operands"):
        relay.transform.InferType()(mod)
