"""``SimplifyInference``: inference-time batch normalisation becomes arithmetic, and
``nn.dropout(x)[0]`` becomes ``x``.

``batch_norm(x, gamma, beta, mean, var)[0]`` is ``x * scale + shift`` with ``scale = gamma /
sqrt(var + eps)`` and ``shift = beta - mean * scale``, broadcast along the BN axis. When ``x``
is a ``conv2d`` (optionally followed by ``bias_add``) over the channel axis, the scale goes
into the conv weight instead and the shift becomes its bias: with constant weights and BN
parameters, ``FoldConstant`` then computes the new weight once and the BN costs nothing.
"""
from __future__ import annotations

from typing import Dict

from ...ir.module import IRModule
from ...ir.transform import ModulePass, Pass, PassContext
from .. import op as _op
from ..expr import Call, Expr, Function, TupleGetItem, const, post_order, with_children
from ..op import nn as _nn
from ..op.registry import Op
from .infer_type import infer_type


def _is_call(e: Expr, name: str) -> bool:
    return isinstance(e, Call) and isinstance(e.op, Op) and e.op.name == name


def _along(v: Expr, axis: int, ndim: int) -> Expr:
    """The 1-D ``v`` shaped to broadcast along ``axis`` of an ``ndim``-D tensor."""
    trailing = ndim - axis - 1
    return _op.expand_dims(v, 1, trailing) if trailing else v


def _rewrite_bn(bn: Call, x: Expr) -> Expr:
    data, gamma, beta, mean, var = bn.args
    attrs = bn.attrs
    t = data.checked_type
    ndim, axis = len(t.shape), attrs.axis % len(t.shape)
    # classic's form: scale = 1 / sqrt(var + eps) * gamma; shift = -mean * scale + beta
    scale = _op.divide(const(1, t.dtype), _op.sqrt(_op.add(var, const(attrs.epsilon, t.dtype))))
    if attrs.scale:
        scale = _op.multiply(scale, gamma)
    shift = _op.multiply(_op.negative(mean), scale)
    if attrs.center:
        shift = _op.add(shift, beta)
    conv, bias = data, None
    if _is_call(conv, "nn.bias_add") and conv.attrs.axis % ndim == 1:
        conv, bias = conv.args
    if axis == 1 and _is_call(conv, "nn.conv2d") and conv.attrs.groups == 1 and \
            not conv.attrs.out_dtype and conv.args[1].checked_type.shape[0] == t.shape[1]:
        weight = _op.multiply(conv.args[1], _op.expand_dims(scale, 1, 3))
        new_conv = Call(conv.op, [conv.args[0], weight], conv.attrs)
        if bias is not None:
            shift = _op.add(_op.multiply(bias, scale), shift)
        return _nn.bias_add(new_conv, shift, 1)
    return _op.add(_op.multiply(x, _along(scale, axis, ndim)), _along(shift, axis, ndim))


def simplify_function(func: Function) -> Function:
    """``func`` with every ``batch_norm(...)[0]`` rewritten (see the module docstring)."""
    infer_type(func)
    memo: Dict[int, Expr] = {}
    changed = False
    for n in post_order(func.body):
        if isinstance(n, TupleGetItem) and n.index == 0 and _is_call(n.tuple_value,
                                                                      "nn.batch_norm"):
            bn = n.tuple_value
            new_bn = with_children(bn, memo)
            memo[id(n)] = infer_type(_rewrite_bn(new_bn, new_bn.args[0]))
            changed = True
        elif isinstance(n, TupleGetItem) and n.index == 0 and _is_call(n.tuple_value,
                                                                        "nn.dropout"):
            # inference-time dropout is the identity
            memo[id(n)] = with_children(n.tuple_value, memo).args[0]
            changed = True
        elif not isinstance(n, Function):
            memo[id(n)] = with_children(n, memo)
    if not changed:
        return func
    return infer_type(Function(func.params, memo[id(func.body)], func.ret_type,
                               func.type_params, func.attrs))


def _run(mod: IRModule, ctx: PassContext) -> IRModule:
    out = IRModule({}, mod.attrs)
    for name, func in mod.functions.items():
        out[name] = simplify_function(func) if isinstance(func, Function) else func
    return out


def SimplifyInference() -> Pass:  # noqa: N802
    """Rewrite inference batch norm into a scaled conv weight plus bias, or a multiply-add
    (``relay.transform.SimplifyInference()``; opt_level 3 in ``relay.build``)."""
    return ModulePass(_run, "SimplifyInference", opt_level=3)
