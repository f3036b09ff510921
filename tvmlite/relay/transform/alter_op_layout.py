"""AlterOpLayout (``relay.transform.AlterOpLayout``, opt_level 3): on x86, each NCHW
``nn.conv2d`` becomes ``nn.contrib_conv2d_NCHWc`` over packed data ``NCHW{ic_bn}c`` and a
packed kernel ``OIHW{ic_bn}i{oc_bn}o`` (the blocks are the ``tile_ic``/``tile_oc`` of the
convolution's AutoTVM config, tuned or fallback).

Under a tuning log the config of each convolution is chosen among all its logged records,
not only the fastest: the choice (:mod:`.layout_choice`) weighs the kernels' times against
the layout transforms that neighbours with different blocks would need between them.

An ``nn.dense`` with a constant weight becomes ``nn.contrib_dense_pack`` over the weight
packed once, at build time, in ``NK{bn}n`` (``dense_pack.x86``'s ``tile_x[-1]``), unless a
tuned record of ``dense_nopack.x86`` is faster.

A depthwise ``nn.conv2d`` (groups = channels) becomes ``nn.contrib_depthwise_conv2d_NCHWc``
in the block its input already has (kernel ``OIHW1i{b}o``), so MobileNet-style blocks stay
packed from one convolution to the next; an input block narrower than a vector and than the
widest of 16, 8, 4 that divides the channels is re-packed in that one (a depthwise kernel
vectorizes over the block: with AVX-512, 1.8x slower in blocks of 8 than of 16, 11x in 1).

Values stay packed through element-wise and broadcast ops (relu, add of another packed value
or of a per-channel constant, bias_add) and through NCHW pools (max, avg, global), so the
next convolution with the same block reads them as they are: a layout is converted only
where a consumer needs another one, once per value and layout. Kernel transforms of
constant weights are folded by ``FoldConstant`` afterwards.

Under a tuning log that holds ``conv2d_nchw_winograd.x86`` records for a 3x3 stride-1
convolution, their configs are candidates too (weighed like the others): a Winograd one
chosen makes the convolution ``nn.contrib_conv2d_winograd_without_weight_transform`` over the
same packed data and a weight transformed (``nn.contrib_conv2d_winograd_weight_transform``)
and packed (``HWOI{o}o``) once, by ``FoldConstant``. Without records the direct convolution
stays (as in classic x86 TVM).

The pass first plans (:func:`_plan`) what each node becomes, its block a function of the
convolutions' configs, then chooses the configs on that plan and rewrites (:func:`_rewrite`).

Where an operator of the module has an ``FTVMAlterOpLayout`` set from Python (classic's
``register_alter_op_layout``, ``TempOpAttr``), those callbacks replace the built-in rules, on
any target: :func:`.convert_layout.convert_function` calls them, and carries the layouts a
convolution's callback chooses on through the ops that follow, as ConvertLayout does.
"""
from __future__ import annotations

import math
from typing import Any, Dict, List, NamedTuple, Optional, Tuple

from ...autotvm.apply_history_best import ApplyGraphBest
from ...autotvm.dispatch import ApplyConfig, DispatchContext
from ...autotvm.space import FallbackConfigEntity, SpaceError
from ...autotvm.task import args_to_workload
from ...error import TVMError
from ...ir.module import IRModule
from ...ir.transform import ModulePass, Pass, PassContext
from ...runtime.threading import num_threads
from ...target import Target
from ...te.operation import placeholder
from ...topi import x86 as _x86
from ...topi.utils import get_const_int
from ...topi.x86.utils import vector_lanes
from .. import expr as _expr
from ..expr import (
    Call,
    Constant,
    Expr,
    Function,
    children,
    post_order,
    rebuild_call,
    with_children,
)
from ..op.layout import (
    contrib_conv2d_nchwc,
    contrib_dense_pack,
    contrib_depthwise_conv2d_nchwc,
    layout_transform,
)
from ..op.nn import (
    contrib_conv2d_winograd_weight_transform,
    contrib_conv2d_winograd_without_weight_transform,
    pad4,
)
from ..op.registry import Op, OpPattern
from ..op.strategy import DENSE_X86_CONSTANT_WEIGHT, choose_implementation
from ..op.tensor import add, reshape
from ..ty import TensorType
from .convert_layout import convert_function
from .layout_choice import NCHW, Block, TransformCost, Value, choose, fixed

NAME = "AlterOpLayout"
KEY = "FTVMAlterOpLayout"
_BROADCAST = ("add", "subtract", "multiply", "divide", "maximum", "minimum")
#: pools over H and W that run in the block of their packed input (``NCHW{c}c``)
_POOLS = ("nn.max_pool2d", "nn.avg_pool2d", "nn.global_avg_pool2d", "nn.global_max_pool2d")
#: the candidates of one convolution: its records' distinct block pairs, fastest first
MAX_LABELS = 16


class _Label(NamedTuple):
    """A candidate config of a packed convolution: its blocks, the config and its logged
    seconds (0 for the one config the dispatch context gives where it has no records)."""

    ic_bn: int
    oc_bn: int
    cfg: Any
    seconds: float
    #: the Winograd tile size of a ``conv2d_nchw_winograd.x86`` config; 0: direct
    tile_size: int = 0
    record: Any = None  # the logged (MeasureInput, MeasureResult) it comes from


def _is_packable_conv(call: Call) -> bool:
    """Whether ``call`` is a plain NCHW float (or int32) conv2d (groups 1) that
    runs packed."""
    if call.op.name != "nn.conv2d":
        return False
    a = call.attrs
    data_t, w_t = call.args[0].checked_type, call.args[1].checked_type
    return (int(a.groups) == 1 and a.data_layout == "NCHW"
            and a.kernel_layout == "OIHW" and a.out_layout in ("", "NCHW")
            and isinstance(data_t, TensorType) and len(data_t.shape) == 4
            and (data_t.dtype == w_t.dtype == "float32"
                 # the zero-point-shifted operands of a lowered qnn.conv2d
                 or (data_t.dtype == w_t.dtype == "int32" and a.out_dtype in ("", "int32"))))


def _template_args(call: Call) -> tuple:
    """The NCHW arguments of the ``conv2d_NCHWc.x86`` template for ``call``."""
    a = call.attrs
    data_t, w_t = call.args[0].checked_type, call.args[1].checked_type
    return (placeholder(data_t.shape, data_t.dtype), placeholder(w_t.shape, w_t.dtype),
            a.strides, a.padding, a.dilation, "NCHW", "NCHW",
            a.out_dtype or call.checked_type.dtype)


def _compute_blocks(call: Call) -> Tuple[int, int]:
    """(ic_bn, oc_bn) of the template's compute under the current dispatch context (which
    gives the config: a record, a fallback with its one warning, the one applied)."""
    out = _x86.conv2d_NCHWc(*_template_args(call))
    conv = out
    while conv.op.name != "conv2d_NCHWc":
        conv = conv.op.input_tensors[0]
    return get_const_int(conv.op.input_tensors[0].shape[4]), get_const_int(out.shape[4])


def _labels(call: Call, target: Target, index: int, limit: int = MAX_LABELS) -> List[_Label]:
    """The candidate configs of packed convolution number ``index``: per distinct block pair
    of its logged records (and per tile size of its Winograd records) the fastest record,
    the ``limit`` fastest and the fallback's pair (the untuned build's layout) when logged;
    without records, the config the dispatch context gives. Under
    ``autotvm.apply_graph_best`` the graph tuner's record of the node."""
    c, o = call.args[0].checked_type.shape[1], call.args[1].checked_type.shape[0]
    workload = args_to_workload(_template_args(call), "conv2d_NCHWc.x86")
    wargs = _winograd_args(call)
    wino_workload = None if wargs is None else args_to_workload(wargs,
                                                                 "conv2d_nchw_winograd.x86")
    ctx = DispatchContext.current
    records = ctx.records(target, workload)
    wino_records = ctx.records(target, wino_workload) if wino_workload else []
    if isinstance(ctx, ApplyGraphBest):
        node = ctx.node_record(index, (workload, wino_workload))
        if node is not None:
            direct = node[0].task.workload == workload
            records, wino_records = ([node], []) if direct else ([], [node])
    pairs: Dict[Tuple[int, int], _Label] = {}
    for inp, res in records:
        try:
            ic_bn, oc_bn = inp.config["tile_ic"].size[-1], inp.config["tile_oc"].size[-1]
        except (SpaceError, AttributeError, IndexError):
            continue
        if not c % ic_bn and not o % oc_bn:
            pairs.setdefault((ic_bn, oc_bn), _Label(ic_bn, oc_bn, inp.config,
                                                    sum(res.costs) / len(res.costs),
                                                    record=(inp, res)))
    wino = _winograd_labels(call, wino_records)
    if not pairs and not wino:
        ic_bn, oc_bn = _compute_blocks(call)
        return [_Label(ic_bn, oc_bn, ctx.query(target, workload), 0.0)]
    out = sorted(list(pairs.values()) + wino, key=lambda lb: lb.seconds)[:limit]
    if not pairs:
        return out
    with ApplyConfig(FallbackConfigEntity()):
        fallback = pairs.get(_compute_blocks(call))
    if fallback is not None and all(lb is not fallback for lb in out):
        out.append(fallback)
    return out


def _winograd_args(call: Call) -> Optional[tuple]:
    """The arguments of the ``conv2d_nchw_winograd.x86`` template for ``call`` (as the
    ``nn.conv2d`` strategy passes them), or None when Winograd cannot compute it."""
    a = call.attrs
    data_t, w_t = call.args[0].checked_type, call.args[1].checked_type
    if not _x86.winograd_eligible(w_t.shape, a.strides, a.dilation, a.groups, data_t.dtype):
        return None
    return (placeholder(data_t.shape, data_t.dtype), placeholder(w_t.shape, w_t.dtype),
            a.strides, pad4("nn.conv2d", a.padding), a.dilation,
            a.out_dtype or call.checked_type.dtype)


def _winograd_labels(call: Call, records) -> List[_Label]:
    """The Winograd candidates of a packed convolution: per distinct (blocks, tile size) of
    its logged ``conv2d_nchw_winograd.x86`` ``records`` the fastest one (none without
    records: untuned builds keep the direct convolution, as classic x86 does)."""
    c, o = call.args[0].checked_type.shape[1], call.args[1].checked_type.shape[0]
    best: Dict[Tuple[int, int, int], _Label] = {}
    for inp, res in records:
        try:
            ic_bn, oc_bn = inp.config["tile_ic"].size[-1], inp.config["tile_oc"].size[-1]
            m = int(inp.config["tile_size"].val)
        except (SpaceError, AttributeError, IndexError, KeyError):
            continue
        if not c % ic_bn and not o % oc_bn:
            best.setdefault((ic_bn, oc_bn, m), _Label(ic_bn, oc_bn, inp.config,
                                                      sum(res.costs) / len(res.costs), m,
                                                      (inp, res)))
    return list(best.values())


def _winograd_workload(call: Call, label: _Label) -> tuple:
    """The ``conv2d_nchw_winograd_without_weight_transform.x86`` workload of ``call`` over
    packed data and a packed, transformed kernel."""
    _, _, strides, padding, dilation, dt = _winograd_args(call)
    (n, c, h, w), o = call.args[0].checked_type.shape, call.args[1].checked_type.shape[0]
    alpha = label.tile_size + 2
    packed = (placeholder((n, c // label.ic_bn, h, w, label.ic_bn), "float32"),
              placeholder((alpha, alpha, o // label.oc_bn, c, label.oc_bn), "float32"))
    return args_to_workload(packed + (tuple(strides), tuple(padding), tuple(dilation), dt),
                            "conv2d_nchw_winograd_without_weight_transform.x86")


def _packed_workload(call: Call, ic_bn: int, oc_bn: int) -> tuple:
    """The ``conv2d_NCHWc.x86`` workload of ``call`` over packed data and kernel."""
    a = call.attrs
    (n, c, h, w), (o, _, kh, kw) = call.args[0].checked_type.shape, \
        call.args[1].checked_type.shape
    dt, wdt = call.args[0].checked_type.dtype, call.args[1].checked_type.dtype
    packed = (placeholder((n, c // ic_bn, h, w, ic_bn), dt),
              placeholder((o // oc_bn, c // ic_bn, kh, kw, ic_bn, oc_bn), wdt))
    return args_to_workload(packed + (tuple(a.strides), tuple(a.padding), tuple(a.dilation),
                                      f"NCHW{ic_bn}c", f"NCHW{oc_bn}c",
                                      a.out_dtype or call.checked_type.dtype),
                            "conv2d_NCHWc.x86")


def _depthwise_default(call: Call) -> Optional[int]:
    """For a plain NCHW float depthwise conv2d (multiplier 1): the widest of 16, 8, 4 that
    divides its channels (0 when none does); None for any other call."""
    a = call.attrs
    data_t, w_t = call.args[0].checked_type, call.args[1].checked_type
    if (call.op.name != "nn.conv2d" or a.data_layout != "NCHW" or a.kernel_layout != "OIHW"
            or a.out_layout not in ("", "NCHW") or not isinstance(data_t, TensorType)
            or len(data_t.shape) != 4 or data_t.dtype != "float32" or w_t.dtype != "float32"):
        return None
    c = data_t.shape[1]
    if int(a.groups) != c or c == 1 or tuple(w_t.shape[:2]) != (c, 1):
        return None
    return next((b for b in (16, 8, 4) if c % b == 0), 0)


def _depthwise_block(incoming: Optional[int], default: int) -> int:
    """A depthwise convolution's block: its input's unless narrower than ``default`` and
    than a vector."""
    return incoming if incoming and incoming >= min(default, vector_lanes("float32")) \
        else default


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


class _Plan:
    """What :func:`_rewrite` makes of each node of a function: its kind, the block of a
    packed node as a function of the labels of the packed convolutions (variable ``v`` of
    ``convs``: candidates ``labels[v]``) and the block each of its children is read in."""

    def __init__(self):
        self.kind: Dict[int, str] = {}
        self.block: Dict[int, Block] = {}
        self.needs: Dict[int, List[Block]] = {}
        self.convs: Dict[int, int] = {}  # a packed convolution's variable
        self.labels: List[List[_Label]] = []
        self.dense_bn: Dict[int, int] = {}

    def set(self, n: Expr, kind: str, block: Optional[Block], needs: List[Block]) -> None:
        self.kind[id(n)] = kind
        self.needs[id(n)] = needs
        if block is not None:
            self.block[id(n)] = block


def _plan(func: Function, target: Target, limit: int = MAX_LABELS) -> _Plan:
    """The plan of ``func`` (typed): which nodes run packed, and in which blocks (at most
    ``limit`` candidate configs per convolution)."""
    p = _Plan()
    for n in post_order(func.body, _kids):
        kids = _kids(n)
        if not isinstance(n, Call) or not isinstance(n.op, Op):
            if isinstance(n, Function):
                raise TVMError(f"{NAME}: nested functions are not supported")
            p.set(n, "plain", None, [NCHW] * len(kids))
            continue
        args = n.args
        if _is_packable_conv(n):
            v = p.convs[id(n)] = len(p.labels)
            labels = _labels(n, target, v, limit)
            p.labels.append(labels)
            p.set(n, "conv", Block((v,), lambda lb, v=v, labels=labels: labels[lb[v]].oc_bn),
                  [Block((v,), lambda lb, v=v, labels=labels: labels[lb[v]].ic_bn), NCHW])
            continue
        if n.op.name == "nn.dense":
            bn = _dense_block(n, target)
            if bn is not None:
                p.dense_bn[id(n)] = bn
                p.set(n, "dense", None, [NCHW, NCHW])
                continue
        default = _depthwise_default(n) if n.op.name == "nn.conv2d" else None
        if default is not None:
            inc = p.block.get(id(args[0]))
            if inc is not None or default:
                blk = fixed(default) if inc is None else Block(
                    inc.vars, lambda lb, inc=inc, d=default: _depthwise_block(inc.at(lb), d))
                p.set(n, "depthwise", blk, [blk, NCHW])
                continue
        src = next((p.block[id(a)] for a in args if id(a) in p.block), None)
        if src is not None and n.op.name in _POOLS and n.attrs.layout == "NCHW":
            p.set(n, "pool", src, [src])
            continue
        if src is not None and _keeps_shape(n, args):
            c = n.checked_type.shape[1]
            if n.op.pattern == OpPattern.ELEMWISE and len(args) == 1:
                p.set(n, "same", src, [src])
                continue
            if n.op.name in _BROADCAST and all(_broadcasts_packed(a, c) for a in args):
                p.set(n, "broadcast", src, [src] * len(args))
                continue
            bias_t = args[1].checked_type if len(args) == 2 else None
            if n.op.name == "nn.bias_add" and n.attrs.axis % 4 == 1 and id(args[0]) in p.block \
                    and isinstance(bias_t, TensorType) and tuple(bias_t.shape) == (c,):
                p.set(n, "bias", src, [src, NCHW])
                continue
        p.set(n, "plain", None, [NCHW] * len(kids))
    return p


def _broadcasts_packed(e: Expr, channels: int) -> bool:
    """Whether ``e`` broadcasts against a packed 4-D value of ``channels`` channels as a
    packed (or channel-less) value: at most 4-D, with 1 or all the channels."""
    t = e.checked_type
    if not isinstance(t, TensorType) or len(t.shape) > 4:
        return False
    shape = (1,) * (4 - len(t.shape)) + tuple(t.shape)
    return shape[1] in (1, channels)


def _choose(func: Function, p: _Plan, transform_cost: Optional[TransformCost] = None
            ) -> List[int]:
    """The label of each packed convolution: the fastest kernels and fewest transforms
    together (:func:`.layout_choice.choose`)."""
    if all(len(lb) == 1 for lb in p.labels):
        return [0] * len(p.labels)
    return choose([[lb.seconds for lb in labels] for labels in p.labels], _values(func, p),
                  vector_lanes("float32"), num_threads(), transform_cost)


def _values(func: Function, p: _Plan) -> List[Value]:
    """The non-constant values of ``func`` whose layout the labels of plan ``p`` decide."""
    const = set()
    needs: Dict[int, List[Block]] = {}
    nodes = post_order(func.body, _kids)
    for n in nodes:
        kids = _kids(n)
        if isinstance(n, Constant) or (isinstance(n, (Call, _expr.Tuple)) and kids
                                       and all(id(k) in const for k in kids)):
            const.add(id(n))
        for k, need in zip(kids, p.needs[id(n)]):
            needs.setdefault(id(k), []).append(need)
    needs.setdefault(id(func.body), []).append(NCHW)
    values = []
    for n in nodes:
        t = n.checked_type if id(n) not in const else None
        if isinstance(t, TensorType) and id(n) in needs:
            produced = p.block.get(id(n), NCHW)
            if produced.vars or any(b.vars or b is not NCHW for b in needs[id(n)]):
                shape = tuple(int(d) for d in t.shape)
                values.append(Value(math.prod(shape), produced, needs[id(n)], shape))
    return values


def _rewrite(func: Function, p: _Plan, chosen: List[int], target: Target) -> Function:
    """``func`` rewritten by plan ``p`` with the convolutions' labels ``chosen``."""
    lb = dict(enumerate(chosen))
    new: Dict[int, Expr] = {}  # a node's replacement in its original (NCHW) layout
    packed: Dict[int, Tuple[Expr, int]] = {}  # a node's packed replacement and its block
    repacked: Dict[Tuple[int, int], Expr] = {}

    def nchw(e: Expr) -> Expr:
        if id(e) not in new:
            x, b = packed[id(e)]
            new[id(e)] = layout_transform(x, f"NCHW{b}c", "NCHW")
        return new[id(e)]

    def pack(e: Expr, block: int) -> Expr:
        """``e`` in ``NCHW{block}c`` (or, with one channel, ready to broadcast against it)."""
        if id(e) in packed and packed[id(e)][1] == block:
            return packed[id(e)][0]
        if (id(e), block) not in repacked:
            t = e.checked_type
            shape = (1,) * (4 - len(t.shape)) + tuple(t.shape)
            if shape[1] == 1:
                x = reshape(nchw(e), shape + (1,))
            else:
                e4 = nchw(e) if len(t.shape) == 4 else reshape(nchw(e), shape)
                x = layout_transform(e4, "NCHW", f"NCHW{block}c")
            repacked[(id(e), block)] = x
        return repacked[(id(e), block)]

    for n in post_order(func.body, _kids):
        kind = p.kind[id(n)]
        ins = []
        for k, need in zip(_kids(n), p.needs[id(n)]):
            b = need.at(lb)
            ins.append(nchw(k) if b is None else pack(k, b))
        if kind == "plain":
            if isinstance(n, Call) and isinstance(n.op, Op):
                new[id(n)] = Call(n.op, ins, n.attrs, n.type_args)
            else:
                new[id(n)] = with_children(n, {id(k): x for k, x in zip(_kids(n), ins)})
            continue
        a = n.attrs
        block = p.block[id(n)].at(lb) if id(n) in p.block else None
        if kind == "conv":
            v = p.convs[id(n)]
            label = p.labels[v][chosen[v]]
            ic_bn, oc_bn = label.ic_bn, label.oc_bn
            if label.tile_size:  # Winograd: the weight transformed (and folded) once
                DispatchContext.current.update(target, _winograd_workload(n, label),
                                               label.cfg)
                kernel = layout_transform(
                    contrib_conv2d_winograd_weight_transform(ins[1], label.tile_size),
                    "HWOI", f"HWOI{oc_bn}o")
                packed[id(n)] = (contrib_conv2d_winograd_without_weight_transform(
                    ins[0], kernel, label.tile_size, a.strides, a.padding, a.dilation, 1,
                    a.channels, a.kernel_size, f"NCHW{ic_bn}c", f"HWOI{oc_bn}o",
                    f"NCHW{oc_bn}c", a.out_dtype), oc_bn)
                continue
            # the packed workload gets the same config (no second fallback warning), as
            # classic does
            DispatchContext.current.update(target, _packed_workload(n, ic_bn, oc_bn),
                                           label.cfg)
            kernel = layout_transform(ins[1], "OIHW", f"OIHW{ic_bn}i{oc_bn}o")
            packed[id(n)] = (contrib_conv2d_nchwc(
                ins[0], kernel, a.strides, a.padding, a.dilation, a.channels, a.kernel_size,
                f"NCHW{ic_bn}c", f"OIHW{ic_bn}i{oc_bn}o", f"NCHW{oc_bn}c", a.out_dtype),
                oc_bn)
        elif kind == "depthwise":
            kernel = layout_transform(ins[1], "OIHW", f"OIHW1i{block}o")
            packed[id(n)] = (contrib_depthwise_conv2d_nchwc(
                ins[0], kernel, a.strides, a.padding, a.dilation, a.groups, a.channels,
                a.kernel_size, f"NCHW{block}c", f"OIHW1i{block}o", f"NCHW{block}c",
                a.out_dtype), block)
        elif kind == "dense":
            bn = p.dense_bn[id(n)]
            new[id(n)] = contrib_dense_pack(ins[0], layout_transform(ins[1], "NK", f"NK{bn}n"),
                                            f"NK{bn}n", a.units, a.out_dtype)
        elif kind == "pool":
            packed[id(n)] = (rebuild_call(n, ins, layout=f"NCHW{block}c"), block)
        elif kind in ("same", "broadcast"):
            packed[id(n)] = (Call(n.op, ins, a), block)
        else:  # bias
            c = n.checked_type.shape[1]
            bias = layout_transform(reshape(ins[1], (1, c, 1, 1)), "NCHW", f"NCHW{block}c")
            packed[id(n)] = (add(ins[0], bias), block)
    return Function(func.params, nchw(func.body), func.ret_type, func.type_params,
                    func.attrs)


def graph_choice(func: Function, target: Target, limit: int = MAX_LABELS,
                 transform_cost: Optional[TransformCost] = None
                 ) -> Tuple[List[List[_Label]], List[Value], List[int]]:
    """For the graph tuner: the candidates of each packed convolution of ``func`` (typed and
    optimized as relay.build does), in the order AlterOpLayout numbers them, the values
    whose layouts they decide, and the label chosen for each."""
    p = _plan(func, target, limit)
    return p.labels, _values(func, p), _choose(func, p, transform_cost)


def alter_function(func: Function, target: Target) -> Function:
    """``func`` (typed) with its convolutions in packed layouts."""
    p = _plan(func, target)
    return _rewrite(func, p, _choose(func, p), target)


def _kids(n: Expr) -> List[Expr]:
    """The children of ``n``, less a primitive function it calls (already fused: a kernel
    whose layouts stay as they are)."""
    kids = children(n)
    if isinstance(n, Call) and isinstance(n.op, Function) and n.op.attrs \
            and int(n.op.attrs.get("Primitive", 0)):
        kids = kids[:-1]
    return kids


def _keeps_shape(n: Call, args) -> bool:
    """Whether ``n``'s output has the shape of its packed operand (a 4-D NCHW value)."""
    t = n.checked_type
    return isinstance(t, TensorType) and len(t.shape) == 4 and any(
        isinstance(a.checked_type, TensorType) and a.checked_type.shape == t.shape
        for a in args)


def _callback_ops(mod: IRModule) -> bool:
    """Whether an operator called in ``mod`` has an ``FTVMAlterOpLayout`` set from Python."""
    return any(isinstance(n, Call) and isinstance(n.op, Op) and n.op.has_attr(KEY)
               for func in mod.functions.values() if isinstance(func, Function)
               for n in post_order(func.body, _kids))


def _run(mod: IRModule, ctx: PassContext) -> IRModule:
    from .infer_type import InferType
    if _callback_ops(mod):
        # the callbacks stand for the built-in rules (classic: they replace the target's)
        mod = InferType()(mod)
        out = IRModule({}, mod.attrs)
        for name, func in mod.functions.items():
            out[name] = convert_function(func, {}, alter=True) if isinstance(func, Function) \
                else func
        return InferType()(out)
    target = Target.current(allow_none=True)
    if target is None or "cpu" not in (getattr(target, "keys", ()) or ()):
        return mod
    mod = InferType()(mod)
    out = IRModule({}, mod.attrs)
    for name, func in mod.functions.items():
        out[name] = alter_function(func, target) if isinstance(func, Function) else func
    return InferType()(out)


def AlterOpLayout() -> Pass:  # noqa: N802
    """The layout-altering pass (``relay.transform.AlterOpLayout()``; opt_level 3, x86
    targets: NCHW convolutions in ``NCHW{c}c``)."""
    return ModulePass(_run, NAME, opt_level=3)
