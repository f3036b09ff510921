"""``FoldScaleAxis``: fold a constant per-channel scale of a conv2d into its weight.

Two rewrites, on ``nn.conv2d`` with NCHW data, OIHW weight and ``groups=1`` (the only layout
tvmlite's conv2d has), where the scale is a constant of shape ``(C, 1, 1)`` or ``(1, C, 1, 1)``
and the scaled value has no other use:

* backward: ``conv2d(x, w) * s`` (``s`` per output channel) -> ``conv2d(x, w * s[:, None])``;
* forward: ``conv2d(x * s, w)`` (``s`` per input channel) -> ``conv2d(x, w * s[None, :])``.

The weight's multiply is left for ``FoldConstant``, which ``FoldScaleAxis`` runs after them, as
classic TVM does. Classic's propagation of a scale through add, relu and other convolutions is
not done yet. One post-order walk, no recursion.
"""
from __future__ import annotations

from typing import Dict, Optional

import numpy as np

from ...ir.module import IRModule
from ...ir.transform import ModulePass, Pass, PassContext, Sequential
from ..expr import Call, Constant, Expr, Function, If, Let, const, post_order, with_children
from ..op.registry import Op
from ..op.tensor import multiply
from .fold_constant import FoldConstant
from .infer_type import infer_type


def _is(e: Expr, name: str) -> bool:
    return isinstance(e, Call) and isinstance(e.op, Op) and e.op.name == name


def _plain_conv(e: Expr) -> bool:
    if not _is(e, "nn.conv2d"):
        return False
    a = e.attrs
    return (int(a.get("groups", 1)) == 1
            and a.get("data_layout", "NCHW") == "NCHW"
            and a.get("kernel_layout", "OIHW") in ("OIHW", ""))


def _channel_scale(s: Expr, channels: int) -> Optional[np.ndarray]:
    """``s`` as one factor per channel, if it is a constant of shape (C,1,1) or (1,C,1,1)."""
    if not isinstance(s, Constant):
        return None
    shape = tuple(s.data.shape)
    if shape not in ((channels, 1, 1), (1, channels, 1, 1)):
        return None
    return s.data.numpy().reshape(channels)


def _split_multiply(e: Expr, pred):
    """(scaled, scale) of ``multiply(scaled, scale)`` in either order, ``pred(scaled)``."""
    if not _is(e, "multiply"):
        return None
    a, b = e.args
    if pred(a) and isinstance(b, Constant):
        return a, b
    if pred(b) and isinstance(a, Constant):
        return b, a
    return None


def _scaled_weight(w: Expr, scale: np.ndarray, shape) -> Expr:
    return multiply(w, const(scale.reshape(shape).astype(w.checked_type.dtype)))


def _fold(func: Function, backward: bool) -> Function:
    infer_type(func)
    nodes = post_order(func.body)
    if any(isinstance(n, (Let, If, Function)) for n in nodes):
        return func  # dataflow graphs only, for now
    uses: Dict[int, int] = {}
    for n in nodes:
        if isinstance(n, Call):
            for a in set(map(id, n.args)):
                uses[a] = uses.get(a, 0) + 1
    memo: Dict[int, Expr] = {}
    for n in nodes:
        new = None
        if backward:
            hit = _split_multiply(n, lambda a: _plain_conv(a) and uses.get(id(a)) == 1)
            if hit is not None:
                conv, s = hit
                scale = _channel_scale(s, conv.checked_type.shape[1])
                if scale is not None and n.checked_type == conv.checked_type:
                    x, w = (memo.get(id(a), a) for a in conv.args)
                    new = Call(conv.op, [x, _scaled_weight(w, scale, (-1, 1, 1, 1))],
                               conv.attrs)
        elif _plain_conv(n):
            single_use = uses.get(id(n.args[0])) == 1
            hit = _split_multiply(n.args[0], lambda a, ok=single_use: ok)
            if hit is not None:
                x, s = hit
                scale = _channel_scale(s, n.args[0].checked_type.shape[1])
                if scale is not None and x.checked_type == n.args[0].checked_type:
                    x, w = memo.get(id(x), x), memo.get(id(n.args[1]), n.args[1])
                    new = Call(n.op, [x, _scaled_weight(w, scale, (1, -1, 1, 1))], n.attrs)
        if new is None:
            new = with_children(n, memo)
        if new is not None and new is not n:
            memo[id(n)] = new
    body = memo.get(id(func.body), func.body)
    if body is func.body:
        return func
    return infer_type(Function(func.params, body, func.ret_type, func.type_params, func.attrs))


def _pass(backward: bool, name: str) -> Pass:
    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        out = IRModule({}, mod.attrs)
        for key, func in mod.functions.items():
            out[key] = _fold(func, backward) if isinstance(func, Function) else func
        return out
    return ModulePass(run, name, opt_level=3)


def BackwardFoldScaleAxis() -> Pass:  # noqa: N802
    """Fold a per-output-channel scale after a conv2d into its weight (opt_level 3)."""
    return _pass(True, "BackwardFoldScaleAxis")


def ForwardFoldScaleAxis() -> Pass:  # noqa: N802
    """Fold a per-input-channel scale before a conv2d into its weight (opt_level 3)."""
    return _pass(False, "ForwardFoldScaleAxis")


def FoldScaleAxis() -> Pass:  # noqa: N802
    """Backward then forward scale folding, then ``FoldConstant`` (classic's sequence, each
    gated by the context's opt_level: below 3 only the constant folding runs)."""
    return Sequential([BackwardFoldScaleAxis(), ForwardFoldScaleAxis(), FoldConstant()],
                      opt_level=3, name="FoldScaleAxis")
