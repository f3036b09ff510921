"""``FoldScaleAxis``: fold a per-channel scale (a ``multiply``) into the weight of the
convolution or dense that consumes or produces the scaled value (classic relay's algorithm).

A scaled value is ``value`` times ``scale`` along some ``axes`` (the channel axis ``C``, and
``c`` too in a blocked layout such as ``NCHW4c``).

* Forward (:func:`ForwardFoldScaleAxis`): a first walk, from the output back, finds the values
  whose every consumer can take a scaled input ("messages": ``nn.conv2d``/``nn.conv3d``
  with ``groups`` 1 or depthwise ask for their data's channel axes, ``nn.dense`` for axis 1;
  ``nn.relu``/``nn.leaky_relu`` pass their consumers' request on, asking for a positive scale;
  ``add``/``subtract`` pass it to the operand of the output's shape when the other one
  broadcasts along those axes). Then ``multiply(x, s)`` with such a request and ``s``
  broadcasting along the axes (positive constant where asked) becomes ``x`` scaled by
  ``s`` squeezed to the axes; relu keeps the scale, ``add(x*s, b)`` becomes
  ``add(x, b / s)`` scaled, and the convolution or dense multiplies its weight by the scale
  along its input-channel axes.
* Backward (:func:`BackwardFoldScaleAxis`): the other way, ``multiply(conv(x, w), s)`` with
  ``s`` along the convolution's output channels becomes ``conv(x, w * s)``, through
  relu/leaky_relu (positive ``s``), ``add``/``subtract`` (the other operand, or both sides
  when both come from convolutions, scaled too) and ``nn.bias_add``. Only a value used
  once can carry a scale back.

The weight's multiply is left for ``FoldConstant``, which :func:`FoldScaleAxis` runs after
both, as classic TVM does. Dataflow graphs only: the operands of ``let``, ``if`` and tuples
are never scaled. Each function is walked in post-order without recursion, except along one
chain of scaled values.
"""
from __future__ import annotations

import re
from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from ...ir.module import IRModule
from ...ir.transform import ModulePass, Pass, PassContext, Sequential
from ..expr import (
    Call,
    Constant,
    Expr,
    Function,
    dataflow_children,
    post_order,
    with_children,
)
from ..op.registry import Op
from ..op.tensor import divide, multiply, reshape
from ..op.transform import expand_dims, repeat, squeeze
from ..ty import TensorType
from .fold_constant import FoldConstant
from .infer_type import infer_type
from .pattern_utils import expand_bias_to_match_axis


class _Message(NamedTuple):
    """A request for a scale along ``axes`` (sorted), positive where ``positive``."""

    axes: Tuple[int, ...]
    positive: bool


class _Scaled(NamedTuple):
    """``value`` times ``scale`` along ``axes`` (a forward rewrite's result)."""

    value: Expr
    axes: Tuple[int, ...]
    scale: Expr


def _intersect(a: Optional[_Message], b: Optional[_Message]) -> Optional[_Message]:
    if a is None or b is None:
        return None
    axes = tuple(x for x in a.axes if x in b.axes)
    return _Message(axes, a.positive or b.positive) if axes else None


# ------------------------------------------------------------------------------ helpers
def _op_name(e: Expr) -> Optional[str]:
    return e.op.name if isinstance(e, Call) and isinstance(e.op, Op) else None


def _shape(e: Expr) -> Optional[Tuple]:
    t = e.checked_type
    return tuple(t.shape) if isinstance(t, TensorType) else None


def _layout_index(layout: str, axis: str) -> int:
    """The position of ``axis`` (one letter; lower case: a block) in ``layout`` such as
    ``NCHW4c``, -1 if absent."""
    tokens = re.findall(r"\d*[A-Za-z]", layout or "")
    return next((i for i, t in enumerate(tokens) if t[-1] == axis), -1)


def _layout_ndim(layout: str) -> int:
    return len(re.findall(r"\d*[A-Za-z]", layout))


def _match_broadcast(lhs: Sequence, rhs: Sequence, axes: Sequence[int],
                     rhs_value: Optional[Expr] = None) -> Tuple[bool, Optional[Expr]]:
    """Whether an operand of shape ``rhs`` broadcasts against ``lhs`` along ``axes`` only
    (equal there, 1 elsewhere); with ``rhs_value``, that operand squeezed to the axes (a
    scalar is repeated to their sizes)."""
    if len(lhs) < len(rhs):
        return False, None
    if len(rhs) == 0 and rhs_value is not None and axes:
        v = expand_dims(rhs_value, 0, len(axes))
        for i in range(len(axes)):
            v = repeat(v, int(lhs[axes[0]]), i)
        return True, v
    base = len(lhs) - len(rhs)
    squeezed: List[int] = []
    j = 0
    for i in range(len(lhs)):
        if j < len(axes) and i == axes[j]:
            if i < base or int(lhs[i]) != int(rhs[i - base]):
                return False, None
            j += 1
        elif i >= base:
            if int(rhs[i - base]) != 1:
                return False, None
            squeezed.append(i - base)
    if rhs_value is not None and squeezed:
        rhs_value = squeeze(rhs_value, axis=squeezed)
    return True, rhs_value


def _reshape_to_axes(scale: Expr, shape: Sequence, axes: Sequence[int]) -> Expr:
    return reshape(scale, [int(d) if i in axes else 1 for i, d in enumerate(shape)])


def _reshape_or_expand(scale: Expr, shape: Sequence, axes: Sequence[int]) -> Expr:
    """``scale`` ready to broadcast along ``axes`` of a value of ``shape``."""
    if len(axes) > 1:
        return _reshape_to_axes(scale, shape, axes)
    return expand_bias_to_match_axis(scale, len(shape), axes)


_POSITIVE_PEEL = ("expand_dims", "reshape", "transpose", "squeeze", "repeat")


def _all_positive_constant(e: Expr) -> bool:
    """Whether ``e`` is a constant (through layout ops) with no negative element."""
    while _op_name(e) in _POSITIVE_PEEL:
        e = e.args[0]
    if not isinstance(e, Constant):
        return False
    data = e.data.numpy()
    if data.dtype not in (np.float32, np.float64, np.int8, np.int32, np.uint8, np.uint32):
        return False
    return bool(np.all(data >= 0))


class _Conv(NamedTuple):
    """What folding needs of a convolution: its channel axes, its kernel's axes and
    whether it is depthwise."""

    c_big: int
    c_small: int
    k_big_o: int
    k_big_i: int
    k_small_o: int
    k_small_i: int
    k_ndim: int
    depthwise: bool


def _conv_info(call: Call, out: bool) -> Optional[_Conv]:
    """The layouts of a conv2d/conv3d (of its output with ``out``, else of its data), or
    None if it is neither a plain nor a depthwise convolution in a simple or blocked
    layout."""
    a = call.attrs
    dims = "HW" if call.op.name == "nn.conv2d" else "DHW"
    data_layout = a.get("data_layout") or f"NC{dims}"
    layout = (a.get("out_layout") or data_layout) if out else data_layout
    kernel = a.get("kernel_layout") or f"OI{dims}"
    c_big, c_small = _layout_index(layout, "C"), _layout_index(layout, "c")
    ko, ki = _layout_index(kernel, "o"), _layout_index(kernel, "i")
    big_o, big_i = _layout_index(kernel, "O"), _layout_index(kernel, "I")
    wshape = _shape(call.args[1])
    if c_big < 0 or big_o < 0 or big_i < 0 or wshape is None:
        return None
    o = int(wshape[big_o]) * (int(wshape[ko]) if ko >= 0 else 1)
    i = int(wshape[big_i]) * (int(wshape[ki]) if ki >= 0 else 1)
    groups = int(a.get("groups", 1))
    depthwise = o == groups and i == 1
    simple = ko < 0 and ki < 0 and c_small < 0
    blocked = ko >= 0 and ki >= 0 and c_small >= 0
    if not (groups == 1 or depthwise) or not (simple or blocked):
        return None
    return _Conv(c_big, c_small, big_o, big_i, ko, ki, _layout_ndim(kernel), depthwise)


def _conv_axes(info: _Conv) -> Tuple[int, ...]:
    return (info.c_big,) if info.c_small < 0 else tuple(sorted((info.c_big, info.c_small)))


def _scaled_weight(weight: Expr, scale: Expr, info: _Conv, outputs: bool) -> Expr:
    """``weight`` times ``scale`` along its output (``outputs``) or input channels (the
    output channels of a depthwise kernel)."""
    big, small = (info.k_big_o, info.k_small_o) if outputs or info.depthwise \
        else (info.k_big_i, info.k_small_i)
    if small < 0:
        return multiply(weight, expand_bias_to_match_axis(scale, info.k_ndim, [big]))
    return multiply(weight, _reshape_to_axes(scale, _shape(weight), sorted((big, small))))


_CONVS = ("nn.conv2d", "nn.conv3d")
_RELUS = ("nn.relu", "nn.leaky_relu")
_ADDSUB = ("add", "subtract")


# ------------------------------------------------------------------------------ forward
def _forward_prep(body: Expr, nodes: List[Expr]) -> Dict[int, Optional[_Message]]:
    """The scale each value may carry: its consumers' requests, intersected."""
    msg: Dict[int, Optional[_Message]] = {}

    def update(e: Expr, m: Optional[_Message]) -> None:
        msg[id(e)] = _intersect(msg[id(e)], m) if id(e) in msg else m

    update(body, None)
    for n in reversed(nodes):
        if isinstance(n, Call):
            out = msg.get(id(n))
            name = _op_name(n)
            ins: List[Optional[_Message]] = [None] * len(n.args)
            if name in _RELUS:
                ins[0] = _Message(out.axes, True) if out is not None else None
            elif name in _ADDSUB and out is not None:
                lhs, rhs = _shape(n.args[0]), _shape(n.args[1])
                if lhs is not None and rhs is not None:
                    if _match_broadcast(lhs, rhs, out.axes)[0]:
                        ins[0] = out
                    elif _match_broadcast(rhs, lhs, out.axes)[0]:
                        ins[1] = out
            elif name in _CONVS:
                info = _conv_info(n, out=False)
                if info is not None:
                    ins[0] = _Message(_conv_axes(info), False)
            elif name == "nn.dense":
                ins[0] = _Message((1,), False)
            for a, m in zip(n.args, ins):
                update(a, m)
        else:
            for c in dataflow_children(n):
                update(c, None)
    return msg


def _realize(v) -> Expr:
    """A forward result as a plain value (a scale left over is applied)."""
    if not isinstance(v, _Scaled):
        return v
    shape = _shape(v.value)
    return multiply(v.value, _reshape_or_expand(v.scale, shape, v.axes))


def _forward_call(n: Call, args: list, msg: Dict[int, Optional[_Message]]):
    """The forward rewrite of ``n`` over its rewritten ``args``; None: none applies."""
    name = _op_name(n)
    scaled = [isinstance(a, _Scaled) for a in args]
    if name in _RELUS and scaled[0]:
        x = args[0]
        return _Scaled(Call(n.op, [x.value], n.attrs, n.type_args), x.axes, x.scale)
    if name in _ADDSUB and any(scaled) and not all(scaled):
        k = 0 if scaled[0] else 1
        x, other = args[k], args[1 - k]
        scale = _reshape_or_expand(x.scale, _shape(n.args[k]), x.axes)
        pair = [x.value, divide(other, scale)] if k == 0 else [divide(other, scale), x.value]
        return _Scaled(Call(n.op, pair, n.attrs, n.type_args), x.axes, x.scale)
    if name == "multiply" and not any(scaled):
        m = msg.get(id(n))
        if m is None:
            return None
        lhs, rhs = _shape(n.args[0]), _shape(n.args[1])
        if lhs is None or rhs is None:
            return None
        for k in (0, 1):
            ok, s = _match_broadcast((lhs, rhs)[k], (rhs, lhs)[k], m.axes, args[1 - k])
            if ok and (not m.positive or _all_positive_constant(s)):
                return _Scaled(args[k], m.axes, s)
        return None
    if name in _CONVS and scaled[0] and not scaled[1]:
        info = _conv_info(n, out=False)
        if info is None:
            return None
        x = args[0]
        weight = _scaled_weight(args[1], x.scale, info, outputs=False)
        return Call(n.op, [x.value, weight], n.attrs, n.type_args)
    if name == "nn.dense" and scaled[0] and not scaled[1]:
        x = args[0]
        return Call(n.op, [x.value, multiply(args[1], x.scale)], n.attrs, n.type_args)
    return None


def forward_fold(func: Function) -> Function:
    """``func`` (typed) with the scales before convolutions and dense folded forward."""
    body = func.body
    nodes = post_order(body, dataflow_children)
    msg = _forward_prep(body, nodes)
    if all(m is None for m in msg.values()):
        return func
    new: Dict[int, object] = {}
    for n in nodes:
        if isinstance(n, Call) and isinstance(n.op, Op):
            args = [new.get(id(a), a) for a in n.args]
            out = _forward_call(n, args, msg)
            if out is None:
                out = Call(n.op, [_realize(a) for a in args], n.attrs, n.type_args)
            new[id(n)] = out
        else:
            plain = {id(c): _realize(new[id(c)]) for c in dataflow_children(n) if id(c) in new}
            new[id(n)] = with_children(n, plain)
    return _rebuilt(func, _realize(new[id(body)]))


# ----------------------------------------------------------------------------- backward
def _ref_counts(body: Expr, nodes: List[Expr]) -> Dict[int, int]:
    count = {id(body): 1}
    for n in nodes:
        for c in dataflow_children(n):
            count[id(c)] = count.get(id(c), 0) + 1
    return count


def _backward_prep(body: Expr, nodes: List[Expr]) -> Dict[int, _Message]:
    """The scale each value used once could take from its consumer."""
    refs = _ref_counts(body, nodes)
    msg: Dict[int, _Message] = {}
    for n in nodes:
        name = _op_name(n)
        if name is None or refs.get(id(n)) != 1:
            continue
        ins = [msg.get(id(a)) for a in n.args]
        out: Optional[_Message] = None
        if name in _RELUS and ins[0] is not None:
            out = _Message(ins[0].axes, True)
        elif name in _ADDSUB:
            lhs, rhs = _shape(n.args[0]), _shape(n.args[1])
            if lhs is None or rhs is None:
                continue
            if ins[0] is not None and _match_broadcast(lhs, rhs, ins[0].axes)[0]:
                out = ins[0]
            elif ins[1] is not None and _match_broadcast(rhs, lhs, ins[1].axes)[0]:
                out = ins[1]
            elif (ins[0] is not None and ins[1] is not None and ins[0].axes == ins[1].axes
                  and lhs == rhs):
                out = ins[0]
        elif name in _CONVS:
            info = _conv_info(n, out=True)
            if info is not None:
                out = _Message(_conv_axes(info), False)
        elif name == "nn.bias_add":
            if ins[0] is not None and len(ins[0].axes) == 1 \
                    and int(n.attrs.axis) == ins[0].axes[0]:
                out = ins[0]
        elif name == "nn.dense":
            out = _Message((1,), False)
        if out is not None:
            msg[id(n)] = out
    return msg


class _Backward:
    def __init__(self, msg: Dict[int, _Message]):
        self.msg = msg
        self.new: Dict[int, Expr] = {}  # each node without a scale

    def plain(self, n: Expr) -> Expr:
        """``n`` rewritten (its children are); a multiply whose scaled operand can take the
        scale is folded into it."""
        name = _op_name(n)
        if name == "multiply":
            for k in (0, 1):
                m = self.msg.get(id(n.args[k]))
                if m is None:
                    continue
                ok, s = _match_broadcast(_shape(n.args[k]), _shape(n.args[1 - k]), m.axes,
                                         n.args[1 - k])
                if ok and (not m.positive or _all_positive_constant(s)):
                    return self.scaled(n.args[k], m, s)
                break
        return with_children(n, self.new)

    def scaled(self, n: Expr, m: _Message, scale: Expr) -> Expr:
        """``n`` (which carries message ``m``) times ``scale`` along ``m``'s axes, the
        scale pushed into the convolutions it comes from."""
        name = _op_name(n)
        args = n.args
        if name in _RELUS:
            return Call(n.op, [self.scaled(args[0], m, scale)], n.attrs, n.type_args)
        if name in _ADDSUB:
            lm, rm = self.msg.get(id(args[0])), self.msg.get(id(args[1]))
            if lm is not None and rm is not None:
                pair = [self.scaled(args[0], m, scale), self.scaled(args[1], m, scale)]
            elif lm is not None:
                pair = [self.scaled(args[0], m, scale),
                        multiply(self.new[id(args[1])],
                                 _reshape_or_expand(scale, _shape(args[0]), m.axes))]
            else:
                pair = [multiply(self.new[id(args[0])],
                                 _reshape_or_expand(scale, _shape(args[1]), m.axes)),
                        self.scaled(args[1], m, scale)]
            return Call(n.op, pair, n.attrs, n.type_args)
        if name in _CONVS:
            info = _conv_info(n, out=True)
            weight = _scaled_weight(self.new[id(args[1])], scale, info, outputs=True)
            return Call(n.op, [self.new[id(args[0])], weight], n.attrs, n.type_args)
        if name == "nn.bias_add":
            return Call(n.op, [self.scaled(args[0], m, scale),
                               multiply(self.new[id(args[1])], scale)], n.attrs, n.type_args)
        if name == "nn.dense":
            weight = multiply(self.new[id(args[1])], expand_bias_to_match_axis(scale, 2, [0]))
            return Call(n.op, [self.new[id(args[0])], weight], n.attrs, n.type_args)
        raise AssertionError(f"FoldScaleAxis: outstanding scale at {name}")


def backward_fold(func: Function) -> Function:
    """``func`` (typed) with the scales after convolutions and dense folded backward."""
    body = func.body
    nodes = post_order(body, dataflow_children)
    msg = _backward_prep(body, nodes)
    if not msg:
        return func
    b = _Backward(msg)
    for n in nodes:
        b.new[id(n)] = b.plain(n)
    return _rebuilt(func, b.new[id(body)])


# -------------------------------------------------------------------------------- passes

def _rebuilt(func: Function, body: Expr) -> Function:
    if body is func.body:
        return func
    return infer_type(Function(func.params, body, func.ret_type, func.type_params, func.attrs))


def _pass(fold, name: str) -> Pass:
    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        out = IRModule({}, mod.attrs)
        for key, func in mod.functions.items():
            if isinstance(func, Function):
                infer_type(func)
                func = fold(func)
            out[key] = func
        return out
    return ModulePass(run, name, opt_level=3, required=("InferType",))


def BackwardFoldScaleAxis() -> Pass:  # noqa: N802
    """Fold the per-channel scales after convolutions and dense into their weights
    (opt_level 3)."""
    return _pass(backward_fold, "BackwardFoldScaleAxis")


def ForwardFoldScaleAxis() -> Pass:  # noqa: N802
    """Fold the per-channel scales before convolutions and dense into their weights
    (opt_level 3)."""
    return _pass(forward_fold, "ForwardFoldScaleAxis")


def FoldScaleAxis() -> Pass:  # noqa: N802
    """Backward then forward scale folding, then ``FoldConstant`` (classic's sequence, each
    gated by the context's opt_level: below 3 only the constant folding runs)."""
    return Sequential([BackwardFoldScaleAxis(), ForwardFoldScaleAxis(), FoldConstant()],
                      opt_level=3, name="FoldScaleAxis")
