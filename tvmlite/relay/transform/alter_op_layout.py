"""AlterOpLayout (``relay.transform.AlterOpLayout``, opt_level 3): on x86, each NCHW
``nn.conv2d`` becomes ``nn.contrib_conv2d_NCHWc`` over packed data ``NCHW{ic_bn}c`` and a
packed kernel ``OIHW{ic_bn}i{oc_bn}o`` (the blocks are the ``tile_ic``/``tile_oc`` of the
convolution's AutoTVM config, tuned or fallback).

An ``nn.dense`` with a constant weight becomes ``nn.contrib_dense_pack`` over the weight
packed once, at build time, in ``NK{bn}n`` (``dense_pack.x86``'s ``tile_x[-1]``), unless a
tuned record of ``dense_nopack.x86`` is faster.

A depthwise ``nn.conv2d`` (groups = channels) becomes ``nn.contrib_depthwise_conv2d_NCHWc``
in the block its input already has (kernel ``OIHW1i{b}o``), so MobileNet-style blocks stay
packed from one convolution to the next.

Values stay packed through element-wise and broadcast ops (relu, add of another packed value
or of a per-channel constant, bias_add), so the next convolution with the same block reads
them as they are: a layout is converted only where a consumer needs another one, once per
value. Kernel transforms of constant weights are folded by ``FoldConstant`` afterwards.
"""
from __future__ import annotations

from typing import Dict, Optional, Tuple

from ...autotvm.dispatch import DispatchContext
from ...autotvm.task import args_to_workload
from ...error import TVMError
from ...ir.module import IRModule
from ...ir.transform import ModulePass, Pass, PassContext
from ...target import Target
from ...te.operation import placeholder
from ...topi import x86 as _x86
from ...topi.utils import get_const_int
from ..expr import Call, Constant, Expr, Function, children, post_order, with_children
from ..op.layout import (
    contrib_conv2d_nchwc,
    contrib_dense_pack,
    contrib_depthwise_conv2d_nchwc,
    layout_transform,
)
from ..op.registry import Op, OpPattern
from ..op.strategy import DENSE_X86_CONSTANT_WEIGHT, choose_implementation
from ..op.tensor import add, reshape
from ..ty import TensorType

NAME = "AlterOpLayout"
_BROADCAST = ("add", "subtract", "multiply", "divide", "maximum", "minimum")


def _blocks(call: Call, target: Target) -> Optional[Tuple[int, int]]:
    """(ic_bn, oc_bn) for a plain NCHW float conv2d, from the x86 template's config; the
    config is also registered for the packed workload, so a tuned one applies to it too."""
    a = call.attrs
    data_t, w_t = call.args[0].checked_type, call.args[1].checked_type
    if (call.op.name != "nn.conv2d" or int(a.groups) != 1 or a.data_layout != "NCHW"
            or a.kernel_layout != "OIHW" or a.out_layout not in ("", "NCHW")
            or not isinstance(data_t, TensorType) or data_t.dtype != "float32"
            or len(data_t.shape) != 4 or w_t.dtype != "float32"):
        return None
    dt = a.out_dtype or call.checked_type.dtype
    data, kernel = placeholder(data_t.shape, data_t.dtype), placeholder(w_t.shape, w_t.dtype)
    out = _x86.conv2d_NCHWc(data, kernel, a.strides, a.padding, a.dilation, "NCHW", "NCHW", dt)
    conv = out
    while conv.op.name != "conv2d_NCHWc":
        conv = conv.op.input_tensors[0]
    ic_bn, oc_bn = get_const_int(conv.op.input_tensors[0].shape[4]), get_const_int(out.shape[4])
    if data_t.shape[1] % ic_bn or w_t.shape[0] % oc_bn:
        return None
    # the packed workload gets the same config (no second fallback warning), as classic does
    cfg = DispatchContext.current.query(target, out.op.attrs["workload"])
    (n, c, h, w), (o, _, kh, kw) = data_t.shape, w_t.shape
    packed = (placeholder((n, c // ic_bn, h, w, ic_bn), "float32"),
              placeholder((o // oc_bn, c // ic_bn, kh, kw, ic_bn, oc_bn), "float32"))
    wkl = args_to_workload(packed + (tuple(a.strides), tuple(a.padding), tuple(a.dilation),
                                     f"NCHW{ic_bn}c",
                                     f"NCHW{oc_bn}c", dt), "conv2d_NCHWc.x86")
    DispatchContext.current.update(target, wkl, cfg)
    return ic_bn, oc_bn


def _depthwise_block(call: Call, incoming: Optional[int]) -> Optional[int]:
    """The channel block of a plain NCHW float depthwise conv2d (multiplier 1) in
    ``NCHW{b}c``: the block its input is already packed in when that divides the channels,
    else the widest of 16, 8, 4 that does (None: leave it in NCHW)."""
    a = call.attrs
    data_t, w_t = call.args[0].checked_type, call.args[1].checked_type
    if (call.op.name != "nn.conv2d" or a.data_layout != "NCHW" or a.kernel_layout != "OIHW"
            or a.out_layout not in ("", "NCHW") or not isinstance(data_t, TensorType)
            or len(data_t.shape) != 4 or data_t.dtype != "float32" or w_t.dtype != "float32"):
        return None
    c = data_t.shape[1]
    if int(a.groups) != c or c == 1 or tuple(w_t.shape[:2]) != (c, 1):
        return None
    for b in ((incoming,) if incoming else ()) + (16, 8, 4):
        if c % b == 0:
            return b
    return None


def _dense_block(call: Call, target: Target) -> Optional[int]:
    """The column block ``bn`` to pack the constant weight of a float ``nn.dense`` in
    (``NK{bn}n``) when ``dense_pack.x86`` is the implementation to use (the default for a
    constant weight, unless a tuned record of ``dense_nopack.x86`` is faster); None: leave
    the dense as it is. The config is also registered for the packed workload."""
    data_t, w_t = call.args[0].checked_type, call.args[1].checked_type
    if (not isinstance(call.args[1], Constant) or not isinstance(data_t, TensorType)
            or len(data_t.shape) != 2 or data_t.dtype != "float32" or w_t.dtype != "float32"
            or len(w_t.shape) != 2):
        return None
    dt = call.attrs.out_dtype or call.checked_type.dtype
    args = (placeholder(data_t.shape, data_t.dtype), placeholder(w_t.shape, w_t.dtype), None,
            dt)
    name, compute = choose_implementation(DENSE_X86_CONSTANT_WEIGHT, args)
    if name != "dense_pack.x86":
        return None
    out = compute(*args)
    packed = out.op.input_tensors[1]
    bn = get_const_int(packed.shape[2])
    if w_t.shape[0] % bn:
        return None
    cfg = DispatchContext.current.query(target, out.op.attrs["workload"])
    wkl = args_to_workload((args[0], placeholder((w_t.shape[0] // bn, w_t.shape[1], bn),
                                                 "float32"), None, dt), "dense_pack.x86")
    DispatchContext.current.update(target, wkl, cfg)
    return bn


def alter_function(func: Function, target: Target) -> Function:
    """``func`` (typed) with its convolutions in packed layouts."""
    new: Dict[int, Expr] = {}  # a node's replacement in its original (NCHW) layout
    packed: Dict[int, Tuple[Expr, int]] = {}  # a node's packed replacement and its block

    def nchw(e: Expr) -> Expr:
        if id(e) not in new:
            p, b = packed[id(e)]
            new[id(e)] = layout_transform(p, f"NCHW{b}c", "NCHW")
        return new[id(e)]

    def pack(e: Expr, block: int) -> Optional[Expr]:
        """``e`` in ``NCHW{block}c`` when it broadcasts against such a value, else None."""
        if id(e) in packed and packed[id(e)][1] == block:
            return packed[id(e)][0]
        t = e.checked_type
        if not isinstance(t, TensorType) or len(t.shape) > 4:
            return None
        shape = (1,) * (4 - len(t.shape)) + tuple(t.shape)
        if shape[1] == 1:
            return reshape(nchw(e), shape + (1,))
        if shape[1] % block:
            return None
        e4 = nchw(e) if len(t.shape) == 4 else reshape(nchw(e), shape)
        return layout_transform(e4, "NCHW", f"NCHW{block}c")

    for n in post_order(func.body):
        if not isinstance(n, Call) or not isinstance(n.op, Op):
            if isinstance(n, Function):
                raise TVMError(f"{NAME}: nested functions are not supported")
            new[id(n)] = with_children(n, {id(a): nchw(a) for a in children(n)})
            continue
        args = n.args
        blocks = _blocks(n, target) if n.op.name == "nn.conv2d" else None
        if blocks is not None:
            ic_bn, oc_bn = blocks
            a = n.attrs
            data = pack(args[0], ic_bn)
            kernel = layout_transform(nchw(args[1]), "OIHW", f"OIHW{ic_bn}i{oc_bn}o")
            packed[id(n)] = (contrib_conv2d_nchwc(
                data, kernel, a.strides, a.padding, a.dilation, a.channels, a.kernel_size,
                f"NCHW{ic_bn}c", f"OIHW{ic_bn}i{oc_bn}o", f"NCHW{oc_bn}c", a.out_dtype), oc_bn)
            continue
        bn = _dense_block(n, target) if n.op.name == "nn.dense" else None
        if bn is not None:
            weight = layout_transform(args[1], "NK", f"NK{bn}n")
            new[id(n)] = contrib_dense_pack(nchw(args[0]), weight, f"NK{bn}n",
                                            n.attrs.units, n.attrs.out_dtype)
            continue
        block = None
        if n.op.name == "nn.conv2d":
            block = _depthwise_block(n, packed[id(args[0])][1] if id(args[0]) in packed
                                     else None)
        if block is not None:
            a = n.attrs
            kernel = layout_transform(nchw(args[1]), "OIHW", f"OIHW1i{block}o")
            packed[id(n)] = (contrib_depthwise_conv2d_nchwc(
                pack(args[0], block), kernel, a.strides, a.padding, a.dilation, a.groups,
                a.channels, a.kernel_size, f"NCHW{block}c", f"OIHW1i{block}o",
                f"NCHW{block}c", a.out_dtype), block)
            continue
        src = next((packed[id(a)] for a in args if id(a) in packed), None)
        if src is not None and _keeps_shape(n, args):
            block = src[1]
            if n.op.pattern == OpPattern.ELEMWISE and len(args) == 1:
                packed[id(n)] = (Call(n.op, [src[0]], n.attrs), block)
                continue
            if n.op.name in _BROADCAST:
                ins = [pack(a, block) for a in args]
                if all(x is not None for x in ins):
                    packed[id(n)] = (Call(n.op, ins, n.attrs), block)
                    continue
            if n.op.name == "nn.bias_add" and n.attrs.axis % 4 == 1 and id(args[0]) in packed:
                bias_t = args[1].checked_type
                if isinstance(bias_t, TensorType) and len(bias_t.shape) == 1 \
                        and bias_t.shape[0] % block == 0:
                    bias = layout_transform(reshape(nchw(args[1]), (1, bias_t.shape[0], 1, 1)),
                                            "NCHW", f"NCHW{block}c")
                    packed[id(n)] = (add(src[0], bias), block)
                    continue
        new[id(n)] = Call(n.op, [nchw(a) for a in args], n.attrs, n.type_args)
    return Function(func.params, nchw(func.body), func.ret_type, func.type_params,
                    func.attrs)


def _keeps_shape(n: Call, args) -> bool:
    """Whether ``n``'s output has the shape of its packed operand (a 4-D NCHW value)."""
    t = n.checked_type
    return isinstance(t, TensorType) and len(t.shape) == 4 and any(
        isinstance(a.checked_type, TensorType) and a.checked_type.shape == t.shape
        for a in args)


def _run(mod: IRModule, ctx: PassContext) -> IRModule:
    target = Target.current(allow_none=True)
    if target is None or "cpu" not in (getattr(target, "keys", ()) or ()):
        return mod
    from .infer_type import InferType
    mod = InferType()(mod)
    out = IRModule({}, mod.attrs)
    for name, func in mod.functions.items():
        out[name] = alter_function(func, target) if isinstance(func, Function) else func
    return InferType()(out)


def AlterOpLayout() -> Pass:  # noqa: N802
    """The layout-altering pass (``relay.transform.AlterOpLayout()``; opt_level 3, x86
    targets: NCHW convolutions in ``NCHW{c}c``)."""
    return ModulePass(_run, NAME, opt_level=3)
