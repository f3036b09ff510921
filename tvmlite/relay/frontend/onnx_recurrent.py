"""ONNX's recurrent layers (RNN, GRU, LSTM) unrolled over their static sequence length into
relay ops: one dense of all time steps' inputs against ``W``, then per step a dense of the
previous hidden state against ``R`` and the gates' element-wise arithmetic.

Each converter takes ``(ctx, ins, attrs)`` as :mod:`.onnx`'s do; ``ctx`` is only asked for
shapes and dtypes (``ctx.shape``, ``ctx.dtype``), constants (``ctx.consts``, ``ctx.node``)
and errors (``ctx.fail``).
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .. import op as _op
from ..expr import Expr, const
from ..op import nn as _nn

# activation name -> (function of (x, alpha, beta, dtype), default alpha, default beta);
# None where the activation takes no such value
_ACTIVATIONS: Dict[str, Tuple[Callable, Optional[float], Optional[float]]] = {
    "Sigmoid": (lambda x, a, b, dt: _op.sigmoid(x), None, None),
    "Tanh": (lambda x, a, b, dt: _op.tanh(x), None, None),
    "Relu": (lambda x, a, b, dt: _nn.relu(x), None, None),
    "LeakyRelu": (lambda x, a, b, dt: _nn.leaky_relu(x, a), 0.01, None),
    "ThresholdedRelu": (lambda x, a, b, dt: _op.where(
        _op.greater(x, const(a, dt)), x, const(0.0, dt)), 1.0, None),
    "ScaledTanh": (lambda x, a, b, dt: _op.multiply(
        const(a, dt), _op.tanh(_op.multiply(const(b, dt), x))), 1.0, 1.0),
    "HardSigmoid": (lambda x, a, b, dt: _op.clip(
        _op.add(_op.multiply(const(a, dt), x), const(b, dt)), 0.0, 1.0), 0.2, 0.5),
    "Elu": (lambda x, a, b, dt: _op.where(
        _op.greater(x, const(0.0, dt)), x,
        _op.multiply(const(a, dt), _op.subtract(_op.exp(x), const(1.0, dt)))), 1.0, None),
    "Softsign": (lambda x, a, b, dt: _op.divide(
        x, _op.add(const(1.0, dt), _op.abs(x))), None, None),
    "Softplus": (lambda x, a, b, dt: _op.log(_op.add(const(1.0, dt), _op.exp(x))), None, None),
    "Affine": (lambda x, a, b, dt: _op.add(_op.multiply(const(a, dt), x), const(b, dt)),
               1.0, 0.0),
}

# kind -> (number of gates, default activations per direction)
_KINDS = {"RNN": (1, ["Tanh"]), "GRU": (3, ["Sigmoid", "Tanh"]),
          "LSTM": (4, ["Sigmoid", "Tanh", "Tanh"])}


def _activations(ctx, attrs, kind: str, num_dirs: int) -> List[List[Callable[[Expr], Expr]]]:
    """Per direction, the layer's activation functions with their alpha and beta bound (ONNX
    consumes ``activation_alpha``/``_beta`` in the order of the activations that take one)."""
    default = _KINDS[kind][1]
    names = [str(n) for n in attrs.get("activations", default * num_dirs)]
    if len(names) != len(default) * num_dirs:
        raise ctx.fail(f"activations {names} must name {len(default)} functions per direction "
                       f"({num_dirs} direction(s))")
    alphas = [float(a) for a in attrs.get("activation_alpha", [])]
    betas = [float(b) for b in attrs.get("activation_beta", [])]
    fns = []
    for name in names:
        found = next((v for k, v in _ACTIVATIONS.items() if k.lower() == name.lower()), None)
        if found is None:
            raise ctx.fail(f"activation {name!r} is not supported (supported: "
                           f"{', '.join(_ACTIVATIONS)})")
        fn, a0, b0 = found
        a = (alphas.pop(0) if alphas else a0) if a0 is not None else None
        b = (betas.pop(0) if betas else b0) if b0 is not None else None
        fns.append(lambda x, fn=fn, a=a, b=b: fn(x, a, b, ctx.dtype(x)))
    n = len(default)
    return [fns[d * n:(d + 1) * n] for d in range(num_dirs)]


def _direction(ctx, t: Expr, d: int) -> Expr:
    """``t[d]`` of a per-direction tensor (``W``, ``R``, ``B``, ``initial_h`` ...)."""
    return _op.take(t, const(d, "int32"), axis=0)


def _cols(x: Expr, start: int, stop: int) -> Expr:
    return _op.strided_slice(x, [start], [stop], axes=[1])


def _check_sequence_lens(ctx, ins, seq: int, batch: int) -> None:
    if len(ins) <= 4 or ins[4] is None:
        return
    name = ctx.node.input[4]
    if name not in ctx.consts:
        raise ctx.fail("sequence_lens computed at run time is not supported (only a constant "
                       "equal to the sequence length for every batch entry)")
    lens = np.asarray(ctx.consts[name]).reshape(-1)
    if lens.shape != (batch,) or not np.all(lens == seq):
        raise ctx.fail(f"sequence_lens {lens.tolist()} must equal the sequence length {seq} "
                       "for every batch entry (shorter sequences are not supported)")


def _recurrent(kind: str):
    gates = _KINDS[kind][0]

    def convert(ctx, ins: Sequence[Optional[Expr]], attrs: Dict[str, Any]):
        x, w, r = ins[0], ins[1], ins[2]
        opt = list(ins) + [None] * (8 - len(ins))
        b, h0 = opt[3], opt[5]
        c0, p = (opt[6], opt[7]) if kind == "LSTM" else (None, None)
        layout = int(attrs.get("layout", 0))
        if layout:
            x = _op.transpose(x, [1, 0, 2])
            h0 = None if h0 is None else _op.transpose(h0, [1, 0, 2])
            c0 = None if c0 is None else _op.transpose(c0, [1, 0, 2])
        shape = ctx.shape(x)
        if len(shape) != 3:
            raise ctx.fail(f"X must be 3-D, got shape {shape}")
        seq, batch, in_size = shape
        direction = attrs.get("direction", "forward")
        if direction not in ("forward", "reverse", "bidirectional"):
            raise ctx.fail(f"direction {direction!r} is not forward, reverse or bidirectional")
        num_dirs = 2 if direction == "bidirectional" else 1
        hidden = int(attrs.get("hidden_size", ctx.shape(r)[-1]))
        if tuple(ctx.shape(w)) != (num_dirs, gates * hidden, in_size):
            raise ctx.fail(f"W has shape {ctx.shape(w)}, expected "
                           f"{(num_dirs, gates * hidden, in_size)}")
        _check_sequence_lens(ctx, ins, seq, batch)
        dt = ctx.dtype(x)
        acts = _activations(ctx, attrs, kind, num_dirs)
        clip = attrs.get("clip")

        def pre(v: Expr) -> Expr:  # a gate's input, clipped when the layer says so
            return v if clip is None else _op.clip(v, -float(clip), float(clip))

        ys, hs, cs = [], [], []
        for d in range(num_dirs):
            wd, rd = _direction(ctx, w, d), _direction(ctx, r, d)
            xw = _nn.dense(_op.reshape(x, (seq * batch, in_size)), wd)
            rb = None
            if b is not None:
                bd = _direction(ctx, b, d)
                xw = _op.add(xw, _op.strided_slice(bd, [0], [gates * hidden]))
                rb = _op.strided_slice(bd, [gates * hidden], [2 * gates * hidden])
            xw = _op.reshape(xw, (seq, batch, gates * hidden))
            zeros = const(np.zeros((batch, hidden), dt), dt)
            h = zeros if h0 is None else _direction(ctx, h0, d)
            c = zeros if c0 is None else _direction(ctx, c0, d)
            steps = range(seq - 1, -1, -1) if (direction == "reverse" or d == 1) else range(seq)
            out = [None] * seq
            for t in steps:
                xt = _op.take(xw, const(t, "int32"), axis=0)
                if kind == "GRU":
                    h = _gru_step(ctx, xt, h, rd, rb, hidden, acts[d], pre,
                                  int(attrs.get("linear_before_reset", 0)))
                else:
                    hr = _nn.dense(h, rd)
                    gate_in = _op.add(xt, hr if rb is None else _op.add(hr, rb))
                    if kind == "RNN":
                        h = acts[d][0](pre(gate_in))
                    else:
                        h, c = _lstm_step(ctx, gate_in, c, p, d, hidden, acts[d], pre,
                                          int(attrs.get("input_forget", 0)))
                out[t] = h
            ys.append(_op.stack(out, 0))
            hs.append(h)
            cs.append(c)
        y = _op.stack(ys, 1)  # (seq, num_dirs, batch, hidden)
        y_h, y_c = _op.stack(hs, 0), _op.stack(cs, 0)
        if layout:
            y = _op.transpose(y, [2, 0, 1, 3])
            y_h, y_c = _op.transpose(y_h, [1, 0, 2]), _op.transpose(y_c, [1, 0, 2])
        return [y, y_h, y_c] if kind == "LSTM" else [y, y_h]

    convert.__name__ = f"_{kind.lower()}"
    return convert


def _gru_step(ctx, xt: Expr, h: Expr, rd: Expr, rb: Optional[Expr], hidden: int,
              acts: List[Callable], pre: Callable, linear_before_reset: int) -> Expr:
    f, g = acts
    r_zr = _op.strided_slice(rd, [0], [2 * hidden])
    r_h = _op.strided_slice(rd, [2 * hidden], [3 * hidden])
    zr = _op.add(_cols(xt, 0, 2 * hidden), _nn.dense(h, r_zr))
    if rb is not None:
        zr = _op.add(zr, _op.strided_slice(rb, [0], [2 * hidden]))
    z, rg = f(pre(_cols(zr, 0, hidden))), f(pre(_cols(zr, hidden, 2 * hidden)))
    rb_h = None if rb is None else _op.strided_slice(rb, [2 * hidden], [3 * hidden])
    if linear_before_reset:
        hh = _nn.dense(h, r_h)
        hh = _op.multiply(rg, hh if rb_h is None else _op.add(hh, rb_h))
    else:
        hh = _nn.dense(_op.multiply(rg, h), r_h)
        hh = hh if rb_h is None else _op.add(hh, rb_h)
    cand = g(pre(_op.add(_cols(xt, 2 * hidden, 3 * hidden), hh)))
    one = const(1.0, ctx.dtype(h))
    return _op.add(_op.multiply(_op.subtract(one, z), cand), _op.multiply(z, h))


def _lstm_step(ctx, gate_in: Expr, c: Expr, p: Optional[Expr], d: int, hidden: int,
               acts: List[Callable], pre: Callable, input_forget: int) -> Tuple[Expr, Expr]:
    f, g, h_act = acts
    # gate order in W, R and B: input, output, forget, cell; peepholes P: input, output, forget
    pd = None if p is None else _direction(ctx, p, d)

    def peep(v: Expr, k: int, cell: Expr) -> Expr:
        if pd is None:
            return v
        return _op.add(v, _op.multiply(_op.strided_slice(pd, [k * hidden],
                                                         [(k + 1) * hidden]), cell))

    i = f(pre(peep(_cols(gate_in, 0, hidden), 0, c)))
    if input_forget:
        fg = _op.subtract(const(1.0, ctx.dtype(c)), i)
    else:
        fg = f(pre(peep(_cols(gate_in, 2 * hidden, 3 * hidden), 2, c)))
    cell = g(pre(_cols(gate_in, 3 * hidden, 4 * hidden)))
    c_new = _op.add(_op.multiply(fg, c), _op.multiply(i, cell))
    o = f(pre(peep(_cols(gate_in, hidden, 2 * hidden), 1, c_new)))
    return _op.multiply(o, h_act(c_new)), c_new


rnn = _recurrent("RNN")
gru = _recurrent("GRU")
lstm = _recurrent("LSTM")
