"""relay.testing.lstm: the unrolled LSTM's parameters and type, and its value (evaluated by a
small numpy walk over its lets, tuples and calls: tvmlite's relay.build compiles dataflow
graphs only) against a plain numpy LSTM."""
import numpy as np

import tvmlite as tvm
from tvmlite import relay
from tvmlite.relay.testing import lstm

_NP = {"add": np.add, "multiply": np.multiply, "tanh": np.tanh,
       "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
       "nn.dense": lambda x, w: x @ w.T, "nn.bias_add": lambda x, b: x + b}


def _evaluate(e, env):
    """The value of relay expression ``e`` (the few ops the LSTM uses)."""
    if isinstance(e, relay.Var):
        return env[e]
    if isinstance(e, relay.Let):
        return _evaluate(e.body, {**env, e.var: _evaluate(e.value, env)})
    if isinstance(e, relay.Tuple):
        return tuple(_evaluate(f, env) for f in e.fields)
    if isinstance(e, relay.TupleGetItem):
        return _evaluate(e.tuple_value, env)[e.index]
    if isinstance(e, relay.Call) and isinstance(e.op, relay.Function):
        args = [_evaluate(a, env) for a in e.args]
        return _evaluate(e.op.body, {**env, **dict(zip(e.op.params, args))})
    name = e.op.name
    if name == "zeros":
        return np.zeros(e.attrs.shape, e.attrs.dtype)
    args = [_evaluate(a, env) for a in e.args]
    if name == "strided_slice":  # (what split builds: slices along given axes)
        index = [slice(None)] * args[0].ndim
        for b, end, s, ax in zip(e.attrs.begin, e.attrs.end, e.attrs.strides, e.attrs.axes):
            index[ax] = slice(b, end, s)
        return args[0][tuple(index)]
    return _NP[name](*args)


def test_lstm_matches_numpy_and_roundtrips_as_text():
    steps, hidden, batch = 3, 5, 2
    mod, params = lstm.get_workload(steps, hidden, batch_size=batch)
    main = mod["main"]
    assert len(params) == 4 * steps
    assert params["i2h_0_weight"].shape == (4 * hidden, hidden)
    assert relay.transform.InferType()(mod)["main"].body.checked_type == \
        relay.TensorType((batch, hidden), "float32")
    tvm.ir.assert_structural_equal(relay.fromtext(mod.astext()), mod)

    rng = np.random.default_rng(3)
    data = [rng.standard_normal((batch, hidden)).astype("float32") for _ in range(steps)]
    env, k = {}, 0
    for p in main.params:
        if p.name_hint == "data":
            env[p], k = data[k], k + 1
        else:
            env[p] = params[p.name_hint].numpy()
    out = _evaluate(main.body, env)

    p = {k: v.numpy() for k, v in params.items()}
    h = c = np.zeros((batch, hidden), "float32")
    for i, x in enumerate(data):
        g = x @ p[f"i2h_{i}_weight"].T + p[f"i2h_{i}_bias"] + \
            h @ p[f"h2h_{i}_weight"].T + p[f"h2h_{i}_bias"]
        gi, gf, gt, go = np.split(g, 4, axis=1)
        sig = _NP["sigmoid"]
        c = sig(gf) * c + sig(gi) * np.tanh(gt)
        h = sig(go) * np.tanh(c)
    np.testing.assert_allclose(out, h, rtol=1e-5, atol=1e-6)
