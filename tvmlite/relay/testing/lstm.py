"""An unrolled LSTM (classic ``relay.testing.lstm``): ``iterations`` calls of an LSTM cell
function, each with its own weights and input ``data``, threading the (h, c) states from
zeros; the network returns the last cell's output. The cell and the network are written as
let chains (``relay.ScopeBuilder``), so they exercise lets, tuples, projections and calls of
functions."""
from __future__ import annotations

from typing import Any, Dict, Tuple

from ...ir.module import IRModule
from ..analysis import free_vars
from ..expr import Call, Function, TupleGetItem, Var
from ..expr import Tuple as TupleExpr
from ..op.tensor import add, multiply, sigmoid, tanh
from ..op.transform import split, zeros
from ..scope_builder import ScopeBuilder
from ..ty import TensorType, TupleType
from . import layers
from .init import create_workload


def lstm_cell(num_hidden: int, batch_size: int = 1, dtype: str = "float32",
              name: str = "") -> Function:
    """The cell ``fn (inputs, (h, c), i2h_weight, i2h_bias, h2h_weight, h2h_bias) -> (h', (h',
    c'))``: the four gates from ``dense(inputs) + dense(h)``."""
    hidden = TensorType((batch_size, num_hidden), dtype)
    weight = TensorType((4 * num_hidden, num_hidden), dtype)
    bias = TensorType((4 * num_hidden,), dtype)
    dense = TensorType((batch_size, 4 * num_hidden), dtype)
    ret_type = TupleType([hidden, TupleType([hidden, hidden])])
    inputs, states = Var("inputs", hidden), Var("states", TupleType([hidden, hidden]))
    params = [Var(n, t) for n, t in (("i2h_weight", weight), ("i2h_bias", bias),
                                     ("h2h_weight", weight), ("h2h_bias", bias))]
    sb = ScopeBuilder()
    i2h = sb.let(("i2h", dense), layers.dense_add_bias(inputs, 4 * num_hidden, f"{name}i2h",
                                                       params[0], params[1]))
    h2h = sb.let(("h2h", dense), layers.dense_add_bias(TupleGetItem(states, 0),
                                                       4 * num_hidden, f"{name}h2h",
                                                       params[2], params[3]))
    gates = sb.let(("gates", dense), add(i2h, h2h))
    pieces = sb.let(("slice_gates", TupleType([hidden] * 4)),
                    split(gates, indices_or_sections=4, axis=1).astuple())
    acts = {}
    for i, (gate, act) in enumerate([("in_gate", sigmoid), ("forget_gate", sigmoid),
                                     ("in_transform", tanh), ("out_gate", sigmoid)]):
        acts[gate] = sb.let((gate, hidden), act(TupleGetItem(pieces, i)))
    next_c = sb.let(("next_c", hidden),
                    add(multiply(acts["forget_gate"], TupleGetItem(states, 1)),
                        multiply(acts["in_gate"], acts["in_transform"])))
    next_h = sb.let(("next_h", hidden), multiply(acts["out_gate"], tanh(next_c)))
    sb.ret(sb.let(("ret", ret_type), TupleExpr([next_h, TupleExpr([next_h, next_c])])))
    return Function([inputs, states] + params, sb.get(), ret_type)


def get_net(iterations: int, num_hidden: int, batch_size: int = 1,
            dtype: str = "float32") -> Function:
    """The unrolled network of ``iterations`` cells."""
    hidden = TensorType((batch_size, num_hidden), dtype)
    weight = TensorType((4 * num_hidden, num_hidden), dtype)
    bias = TensorType((4 * num_hidden,), dtype)
    state_type = TupleType([hidden, hidden])
    sb = ScopeBuilder()
    z = sb.let(("zeros", hidden), zeros((batch_size, num_hidden), dtype))
    states = sb.let(("init_states", state_type), TupleExpr([z, z]))
    out = None
    for i in range(iterations):
        args = [Var("data", hidden), states, Var(f"i2h_{i}_weight", weight),
                Var(f"i2h_{i}_bias", bias), Var(f"h2h_{i}_weight", weight),
                Var(f"h2h_{i}_bias", bias)]
        call = sb.let((f"call_{i}", TupleType([hidden, state_type])),
                      Call(lstm_cell(num_hidden, batch_size, dtype, f"lstm_{i}"), args))
        out = sb.let((f"out_{i}", hidden), TupleGetItem(call, 0))
        states = sb.let((f"states_{i}", state_type), TupleGetItem(call, 1))
    sb.ret(out)
    body = sb.get()
    return Function(free_vars(body), body, hidden)


def get_workload(iterations: int, num_hidden: int, batch_size: int = 1,
                 dtype: str = "float32") -> Tuple[IRModule, Dict[str, Any]]:
    """``(mod, params)`` of the unrolled LSTM with random weights (the ``data`` inputs are
    not parameters)."""
    return create_workload(get_net(iterations, num_hidden, batch_size, dtype))
