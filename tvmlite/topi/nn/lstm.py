"""The long short-term memory recurrence (``topi.nn.lstm``), as a ``te.scan`` over time."""
from __future__ import annotations

from typing import Callable, Optional, Tuple

from ...te.operation import compute, placeholder, reduce_axis, scan
from ...te.tensor import Tensor
from ...tir import op as _op
from .. import tag
from ..utils import TopiError, get_const_int


def lstm(Xs: Tensor, Wi: Tensor, Wh: Tensor, Bi: Optional[Tensor] = None,
         Bh: Optional[Tensor] = None, h_init: Optional[Tensor] = None,
         c_init: Optional[Tensor] = None, proj: Optional[Tensor] = None,
         p_i: Optional[Tensor] = None, p_f: Optional[Tensor] = None,
         p_o: Optional[Tensor] = None, f_act: Callable = _op.sigmoid,
         g_act: Callable = _op.tanh, h_act: Callable = _op.tanh, reverse: bool = False,
         weight_layout: str = "IFGO") -> Tuple[Tensor, Tensor]:
    """An LSTM over the sequence ``Xs``: per step, the gates
    ``z = x_t Wi^T + Bi + h_{t-1} Wh^T + Bh`` (split into I, F, G, O by ``weight_layout``),
    ``i = f_act(z_I + p_i c_{t-1})``, ``f = f_act(z_F + p_f c_{t-1})``, ``g = g_act(z_G)``,
    ``c_t = f c_{t-1} + i g``, ``o = f_act(z_O + p_o c_t)``, ``h_t = o h_act(c_t)``, then
    ``h_t proj^T`` with a projection. The input products are computed for all steps before the
    scan (stage ``lstm_scan``).

    Parameters
    ----------
    Xs : Tensor
        ``(seq_len, batch, in_dim)``.
    Wi : Tensor
        ``(4 * hidden, in_dim)``, the four gates' rows packed in ``weight_layout`` order.
    Wh : Tensor
        ``(4 * hidden, out_dim)`` (``out_dim``: ``proj_dim`` with a projection, else hidden).
    Bi, Bh : Tensor, optional
        ``(4 * hidden,)`` biases, packed as the weights.
    h_init, c_init : Tensor, optional
        ``(batch, out_dim)`` and ``(batch, hidden)`` initial states (zeros by default).
    proj : Tensor, optional
        ``(proj_dim, hidden)`` projection of the hidden state.
    p_i, p_f, p_o : Tensor, optional
        ``(batch, hidden)`` peephole weights (``p_i`` and ``p_f`` are used together).
    f_act, g_act, h_act : callable
        The gate, cell-input and output activations.
    reverse : bool
        Process the sequence from its end (the outputs stay in input order of steps taken).
    weight_layout : str
        A permutation of "IFGO": the order of the packed gates.

    Returns
    -------
    (Tensor, Tensor)
        The hidden states ``(seq_len, batch, out_dim)`` (stage ``hidden_states``) and the
        cell states ``(seq_len, batch, hidden)`` (stage ``cell_states``), step by step.
    """
    op = "lstm"
    if len(weight_layout) != 4 or sorted(weight_layout) != sorted("IFGO"):
        raise TopiError(f"{op}: weight_layout {weight_layout!r} is not a permutation of 'IFGO'")
    gate = {g: weight_layout.index(g) for g in "IFGO"}
    if Xs.ndim != 3 or Wi.ndim != 2 or Wh.ndim != 2:
        raise TopiError(f"{op}: Xs must be 3-D and Wi, Wh 2-D")
    seq_len, batch, in_dim = Xs.shape
    four_h = get_const_int(Wi.shape[0])
    if four_h % 4:
        raise TopiError(f"{op}: dim 0 of Wi ({four_h}) is not 4 * hidden_dim")
    hidden = four_h // 4
    out_dim = proj.shape[0] if proj is not None else hidden
    steps = seq_len + 1  # row 0 of the scan holds the initial state
    dt = Xs.dtype

    k_in = reduce_axis((0, in_dim), name="k_in")
    x_proj = compute((seq_len, batch, four_h), lambda t, b, j: _op.sum(
        Xs[t, b, k_in] * Wi[j, k_in], axis=k_in), name="Xi2h")
    if Bi is not None:
        x_proj = compute(x_proj.shape, lambda t, b, j: x_proj[t, b, j] + Bi[j],
                         name="Xi2h_bias", tag=tag.INJECTIVE)

    h_state = placeholder((steps, batch, out_dim), dt, "h_state")
    c_state = placeholder((steps, batch, hidden), dt, "c_state")
    zero = _op.const(0, dt)
    h0 = compute((1, batch, out_dim), lambda _, b, j: zero if h_init is None else h_init[b, j],
                 name="h_init")
    c0 = compute((1, batch, hidden), lambda _, b, j: zero if c_init is None else c_init[b, j],
                 name="c_init")

    k_h = reduce_axis((0, out_dim), name="k_h")
    h_proj = compute((steps, batch, four_h), lambda t, b, j: _op.sum(
        h_state[t - 1, b, k_h] * Wh[j, k_h], axis=k_h), name="s_h2h")
    if Bh is not None:
        h_proj = compute(h_proj.shape, lambda t, b, j: h_proj[t, b, j] + Bh[j],
                         name="s_h2h_bias", tag=tag.INJECTIVE)

    def z(g, t, b, j):
        x_t = seq_len - t if reverse else t - 1
        col = gate[g] * hidden + j
        return x_proj[x_t, b, col] + h_proj[t, b, col]

    shape = (steps, batch, hidden)
    peep = p_i is not None and p_f is not None
    i_gate = compute(shape, lambda t, b, j: f_act(
        z("I", t, b, j) + p_i[b, j] * c_state[t - 1, b, j] if peep else z("I", t, b, j)),
        name="i_gate", tag=tag.INJECTIVE)
    f_gate = compute(shape, lambda t, b, j: f_act(
        z("F", t, b, j) + p_f[b, j] * c_state[t - 1, b, j] if peep else z("F", t, b, j)),
        name="f_gate", tag=tag.INJECTIVE)
    g_gate = compute(shape, lambda t, b, j: g_act(z("G", t, b, j)), name="g_gate",
                     tag=tag.INJECTIVE)
    next_c = compute(shape, lambda t, b, j: f_gate[t, b, j] * c_state[t - 1, b, j]
                     + i_gate[t, b, j] * g_gate[t, b, j], name="next_c")
    o_gate = compute(shape, lambda t, b, j: f_act(
        z("O", t, b, j) + p_o[b, j] * next_c[t, b, j] if p_o is not None else z("O", t, b, j)),
        name="o_gate", tag=tag.INJECTIVE)
    next_h = compute(shape, lambda t, b, j: o_gate[t, b, j] * h_act(next_c[t, b, j]),
                     name="next_h")
    if proj is not None:
        k_p = reduce_axis((0, hidden), name="k_p")
        next_h = compute((steps, batch, out_dim), lambda t, b, j: _op.sum(
            next_h[t, b, k_p] * proj[j, k_p], axis=k_p), name="next_h_proj")
    scan_h, scan_c = scan([h0, c0], [next_h, next_c], [h_state, c_state], name="lstm_scan")
    hs = compute((seq_len, batch, out_dim), lambda t, b, j: scan_h[t + 1, b, j],
                 name="hidden_states")
    cs = compute((seq_len, batch, hidden), lambda t, b, j: scan_c[t + 1, b, j],
                 name="cell_states")
    return hs, cs
