"""ConvertLayout (``relay.transform.ConvertLayout(desired_layouts)``, opt_level 3).

``desired_layouts`` maps an op name to its wanted layouts, as classic TVM:
``{"nn.conv2d": ["NHWC", "default"]}`` (data layout, then kernel layout; "default" is "HWIO"
for NHWC, "HWOI" for a depthwise NHWC convolution or HWNC data, "OIHW" for NCHW). Any order
of N, C, H and W is typed (tvmlite builds NCHW and NHWC convolutions); ``NCHW{n}c`` with a
blocked kernel (``OIHW{n}i{n}o``) makes ``contrib_conv2d_nchwc`` (not for an input variable
whose channels the block does not divide). The pooling ops take one layout
(``{"nn.max_pool2d": ["NHWC"]}``). ``nn.conv2d_transpose``, ``nn.deformable_conv2d``,
``qnn.conv2d`` and ``qnn.conv2d_transpose`` take NCHW or NHWC data and a kernel layout
("default": classic's, IOHW/HWIO for the transposed ones), ``vision.roi_align`` and
``roi_pool`` one data layout; a QNN op's quantization parameters stay as they are
(``qnn.requantize``'s axis follows, as do ``qnn.add``'s operands and ``qnn.concatenate``'s
axis). Within ``with LayoutConfig(skip_layers=[...])`` the
convolutions of those indices keep their layout.

Each such op is rewritten in its wanted layout, with a ``layout_transform`` of its data (and
kernel) where the value arrives in another layout. Its result stays in the new layout
through the layout-agnostic ops that consume it: element-wise ops, broadcasting arithmetic
(another converted value; a lower-rank operand, whose layout is the trailing axes', gets
leading unit axes and is transformed to the new layout, as classic does),
``nn.bias_add``/``nn.batch_norm`` (their axis follows; ``CanonicalizeOps``, which classic
requires first, makes a bias_add an add), pooling and upsampling (their layout follows),
``concatenate`` of converted values, ``nn.pad``,
``sum``/``mean``/``max``/``min``/``prod``/``argmax``/``argmin`` (their axes follow),
``nn.layer_norm``/``nn.instance_norm`` (their axis follows), ``nn.l2_normalize`` (its
axes follow, in their order), ``squeeze``, ``transpose``, ``strided_slice``, ``topk`` and
``slice_like`` of two values converted alike.
A value in a packed layout (``NCHW4c``) stays packed through element-wise and broadcast
ops (an operand with one element along an axis is packed by 1 there, as classic's
AdjustSubordinateFactors), pools, ``concatenate`` (when the block divides every field) and
reductions that keep their dims. Operands of ones broadcast as they are. Any other consumer
gets the value back in its original layout, converted once per value. A
``layout_transform`` of a ``layout_transform`` that undoes it is dropped.

Operators with a Python ``FInferCorrectLayout`` are converted as the callback says
(:meth:`_Converter.custom`); AlterOpLayout uses this machinery for the layouts its Python
``FTVMAlterOpLayout`` callbacks choose (:meth:`_Converter.altered`).

One post-order walk with explicit stacks (no recursion), over the dataflow graph of each
function; kernel transforms of constant weights are left for ``FoldConstant``.
"""
from __future__ import annotations

import re
from typing import Dict, List, Optional, Sequence, Tuple

from ..._classic import unsupported
from ...error import TVMError
from ...ir.module import IRModule
from ...ir.transform import ModulePass, Pass, PassContext
from ...te.operation import placeholder
from ...tir.data_layout import layout
from ..expr import (
    Call,
    Expr,
    Function,
    TupleGetItem,
    Var,
    dataflow_children,
    post_order,
    rebuild_call,
    with_children,
)
from ..expr import Tuple as RTuple
from ..op.layout import layout_transform
from ..op.nn import contrib_conv2d_nchwc
from ..op.op import refuse_custom_attr
from ..op.registry import Op, OpPattern
from ..op.tensor import ARITH_OPS, COMPARE_OPS, LOGICAL_OPS
from ..op.transform import expand_dims
from ..ty import TensorType, TupleType
from .infer_type import infer_type

NAME = "ConvertLayout"

#: ops with a ``layout`` attribute naming the layout of their one 4-D input and output
_POOLS = ("nn.max_pool2d", "nn.avg_pool2d", "nn.global_avg_pool2d", "nn.global_max_pool2d",
          "nn.adaptive_avg_pool2d", "nn.adaptive_max_pool2d", "nn.upsampling",
          "image.resize2d")
_BINARY = ("add", "subtract", "multiply", "divide") + ARITH_OPS + COMPARE_OPS + LOGICAL_OPS
_REDUCE = ("sum", "mean", "max", "min", "prod", "argmax", "argmin")
#: normalizations over one channel ``axis`` (their other arguments are per-channel vectors)
_NORMS = ("nn.layer_norm", "nn.instance_norm")
_UNARY = ("clip", "cast", "nn.leaky_relu")
#: (original layout, current layout) of a value that was converted
Lay = Tuple[str, str]


def _transform(e: Expr, src: str, dst: str) -> Expr:
    """``e`` from layout ``src`` to ``dst``; the input of a transform that this undoes."""
    if src == dst:
        return e
    if (isinstance(e, Call) and isinstance(e.op, Op) and e.op.name == "layout_transform"
            and e.attrs.src_layout == dst and e.attrs.dst_layout == src):
        return e.args[0]
    return layout_transform(e, src, dst)


def _shape(e: Expr) -> Optional[Tuple[int, ...]]:
    t = e.checked_type
    return tuple(t.shape) if isinstance(t, TensorType) else None


def _is_perm(layout: str) -> bool:
    return len(layout) == 4 and sorted(layout) == sorted("NCHW")


def _conv2d_kernel_ok(kernel: str, blocked: bool) -> bool:
    """Whether ``kernel`` is a kernel layout: an order of O, I, H, W (some split by o, i
    when ``blocked``)."""
    try:
        lay = layout(kernel)
    except TVMError:
        return False
    axes = [lay[i] for i in range(len(lay))] if lay is not None else []
    return (sorted(a for a in axes if a.isupper()) == sorted("OIHW")
            and all(a.isupper() or (blocked and a in "oi") for a in axes))


def _desired(desired_layouts: Dict[str, Sequence[str]]) -> Dict[str, List[str]]:
    """The checked ``desired_layouts``."""
    out = {}
    for name, layouts in desired_layouts.items():
        layouts = [layouts] if isinstance(layouts, str) else [str(x) for x in layouts]
        if name == "nn.conv2d":
            data = layouts[0] if layouts else ""
            kernel = layouts[1] if len(layouts) > 1 else "default"
            blocked = re.fullmatch(r"NCHW\d+c", data) is not None
            if not (_is_perm(data) or blocked):
                raise TVMError(f"{NAME}: nn.conv2d data layout {layouts[:1]} is not supported "
                               "(an order of N, C, H and W, or NCHW{n}c)")
            if kernel == "default" and data not in _DEFAULT_KERNEL:
                raise TVMError(f"{NAME}: nn.conv2d data layout {data!r} has no default kernel "
                               "layout: give one")
            if kernel != "default" and not _conv2d_kernel_ok(kernel, blocked):
                raise TVMError(f"{NAME}: nn.conv2d kernel layout {kernel!r} is not supported "
                               "(an order of O, I, H and W, blocked by o and i for NCHW{n}c "
                               "data, or 'default')")
            out[name] = [data, kernel]
        elif name in _CONV_KERNELS:
            data = layouts[0] if layouts else ""
            kernel = layouts[1] if len(layouts) > 1 else "default"
            if data not in _CONV_KERNELS[name]:
                raise TVMError(f"{NAME}: {name} data layout {layouts[:1]} is not supported "
                               f"(one of {sorted(_CONV_KERNELS[name])})")
            if kernel != "default" and not _conv2d_kernel_ok(kernel, False):
                raise TVMError(f"{NAME}: {name} kernel layout {kernel!r} is not supported (an "
                               "order of O, I, H and W, or 'default')")
            out[name] = [data, kernel]
        elif name in _ROI:
            if not layouts or layouts[0] not in ("NCHW", "NHWC"):
                raise TVMError(f"{NAME}: {name} data layout {layouts[:1]} is not supported "
                               "(NCHW or NHWC)")
            out[name] = [layouts[0]]
        elif name in _POOLS:
            if not layouts or not _is_perm(layouts[0]):
                raise TVMError(f"{NAME}: {name} layout {layouts[:1]} is not supported (an "
                               "order of N, C, H and W)")
            out[name] = [layouts[0]]
        # (classic ignores the operators it has no conversion for)
    return out


#: classic's default kernel layout for each conv2d data layout (NHWC: HWOI when depthwise)
_DEFAULT_KERNEL = {"NCHW": "OIHW", "NHWC": "HWIO", "HWNC": "HWOI"}
#: the other convolutions ConvertLayout converts: classic's default kernel layout for each
#: data layout (qnn.conv2d as nn.conv2d: HWOI for a depthwise NHWC one)
_CONV_KERNELS = {
    "nn.conv2d_transpose": {"NCHW": "IOHW", "NHWC": "HWIO"},
    "nn.deformable_conv2d": {"NCHW": "OIHW", "NHWC": "HWIO"},
    "qnn.conv2d": {"NCHW": "OIHW", "NHWC": "HWIO"},
    "qnn.conv2d_transpose": {"NCHW": "IOHW", "NHWC": "HWIO"},
}
#: ops on a 4-D ``layout`` data and regions of interest (their result: in that layout too)
_ROI = ("vision.roi_align", "vision.roi_pool")
#: QNN ops whose first two arguments broadcast as a binary op (the others: scalars)
_QNN_BINARY = ("qnn.add", "qnn.subtract", "qnn.mul")


class LayoutConfig:
    """Classic ``relay.transform.LayoutConfig(skip_layers)``: within ``with LayoutConfig(...)``
    ConvertLayout leaves the convolutions whose index (in the order it meets them, from 0)
    is in ``skip_layers`` in their layout."""

    current: Optional["LayoutConfig"] = None

    def __init__(self, skip_layers: Optional[Sequence[int]] = None):
        self.skip_counter = 0
        self.skip_layers = list(skip_layers) if skip_layers is not None else []

    def check_skip(self) -> bool:
        """Whether the next convolution is skipped (and count it)."""
        skip = self.skip_counter in self.skip_layers
        self.skip_counter += 1
        return skip

    def reset(self) -> None:
        self.skip_counter = 0
        self.skip_layers = []

    def __enter__(self) -> "LayoutConfig":
        self._old = LayoutConfig.current
        LayoutConfig.current = self
        return self

    def __exit__(self, *exc) -> None:
        LayoutConfig.current = self._old


class _Converter:
    """The state of one function's conversion."""

    def __init__(self, desired: Dict[str, List[str]], alter: bool = False):
        self.desired = desired
        self.alter = alter  # AlterOpLayout: call the ops' Python FTVMAlterOpLayout
        self.out: Dict[int, Expr] = {}  # a node's replacement (in ``lay``'s current layout)
        self.lay: Dict[int, Lay] = {}  # the layouts of the converted (4-D) values
        # multi-output calls (batch_norm, topk): the layouts of their converted fields
        self.tuple_lay: Dict[int, List[Optional[Lay]]] = {}
        self.cache: Dict[Tuple[int, str, str], Expr] = {}

    # ------------------------------------------------------------------------- values
    def original(self, n: Expr) -> Expr:
        """``n``'s replacement in its original layout."""
        if id(n) in self.lay:
            return self.value_in(n, self.lay[id(n)][0], self.lay[id(n)][0])
        if id(n) in self.tuple_lay:
            key = (id(n), "", "")
            if key not in self.cache:
                new = self.out[id(n)]
                fields = [TupleGetItem(new, i) if lay is None
                          else _transform(TupleGetItem(new, i), lay[1], lay[0])
                          for i, lay in enumerate(self.tuple_lay[id(n)])]
                self.cache[key] = RTuple(fields)
            return self.cache[key]
        return self.out[id(n)]

    def value_in(self, n: Expr, assumed: str, want: str) -> Expr:
        """``n`` (a 4-D value its consumer reads in layout ``assumed``) in layout ``want``."""
        key = (id(n), assumed, want)
        if key not in self.cache:
            lay = self.lay.get(id(n))
            if lay is not None and lay[0] == assumed:
                base, src = self.out[id(n)], lay[1]
            elif lay is not None:
                base, src = self.value_in(n, lay[0], lay[0]), assumed
            else:
                base, src = self.out[id(n)], assumed
            self.cache[key] = _transform(base, src, want)
        return self.cache[key]

    # -------------------------------------------------------------------------- nodes
    def visit(self, n: Expr) -> None:
        self._visit(n)
        new = self.out.get(id(n))
        if isinstance(n, Call) and isinstance(new, Call) and new is not n \
                and new.op is n.op and new.span is None:
            new.span = n.span  # the rewritten call keeps its source location (classic)

    def _visit(self, n: Expr) -> None:
        if isinstance(n, Call) and isinstance(n.op, Op):
            if self.convertrebuild_call(n):
                return
        elif isinstance(n, TupleGetItem) and id(n.tuple_value) in self.tuple_lay:
            new = TupleGetItem(self.out[id(n.tuple_value)], n.index)
            lay = self.tuple_lay[id(n.tuple_value)][n.index]
            if lay is not None:
                self.out[id(n)], self.lay[id(n)] = new, lay
                return
            self.out[id(n)] = new
            return
        elif isinstance(n, Function):
            raise TVMError(f"{NAME}: nested functions are not supported")
        self.out[id(n)] = with_children(n, {id(c): self.original(c) for c in dataflow_children(n)})

    def convertrebuild_call(self, n: Call) -> bool:
        """Convert call ``n`` when its op has a wanted layout or reads a converted value;
        False: leave it to the generic rebuild."""
        name = n.op.name
        if self.alter and n.op.has_attr("FTVMAlterOpLayout") and self.altered(n):
            return True
        finfer = n.op.get_attr("FInferCorrectLayout")
        if finfer is not None and name not in self.desired:
            return self.custom(n, finfer)
        if name == "nn.conv2d" and name in self.desired:
            return self.conv2d(n)
        if name in _CONV_KERNELS and name in self.desired:
            return self.conv_like(n)
        if name in _POOLS and name in self.desired:
            return self.pool(n, self.desired[name][0])
        if name in _ROI and name in self.desired:
            return self.roi(n, self.desired[name][0])
        lay = next((self.lay[id(a)] for a in n.args if id(a) in self.lay), None)
        if lay is None and name in ("concatenate", "qnn.concatenate") \
                and isinstance(n.args[0], RTuple):
            lay = next((self.lay[id(f)] for f in n.args[0].fields if id(f) in self.lay), None)
        if lay is None:
            return False
        orig, cur = lay
        if name in _POOLS:
            return n.attrs.layout == orig and self.pool(n, cur)
        if name == "layout_transform":
            return self.relayout(n, lay)
        data = n.args[0]
        if not _is_perm(cur):
            # a blocked layout (NCHW4c): element-wise and broadcast ops (and the pools
            # above) keep it; any other op reads the value in its original layout
            if not _is_perm(orig) and name in _BINARY and len(n.args) == 2:
                return self.reblocked_binary(n, lay)
            if len(_shape(n) or ()) != 4:
                return False
            if (n.op.pattern == OpPattern.ELEMWISE and len(n.args) == 1) or name in _UNARY:
                return self.keep(n, [self.out[id(data)]], lay)
            if name in _REDUCE and _is_perm(orig) and n.attrs.get("keepdims") \
                    and not n.attrs.get("exclude") and name not in ("argmax", "argmin"):
                # a reduction keeping its axes: over the axes and their blocks, the result
                # blocked by 1 along them
                axes = range(4) if n.attrs.axis is None else [int(a) % 4 for a in n.attrs.axis]
                red = {orig[k] for k in axes}
                tokens = re.findall(r"(\d*)([A-Za-z])", cur)
                new_axes = [i for i, (_, t) in enumerate(tokens) if t.upper() in red]
                out = "".join(("1" if t.islower() and t.upper() in red else f) + t
                              for f, t in tokens)
                self.out[id(n)] = rebuild_call(n, [self.out[id(data)]], axis=tuple(new_axes))
                self.lay[id(n)] = (orig, out)
                return True
            if name == "nn.pad" and _is_perm(orig) and len(n.args) == 1:
                return self.pad(n, lay)
            if name == "concatenate" and _is_perm(orig):
                # fields whose channels the block divides stay packed
                block = layout(cur).factor_of("C")
                return isinstance(data, RTuple) and all(
                    int(_shape(f)[orig.index("C")]) % block == 0 for f in data.fields) \
                    and self.concatenate(n, lay)
            if name == "strided_slice" and _is_perm(orig) and id(data) in self.lay \
                    and n.attrs.get("axes") is not None:
                return self.blocked_strided_slice(n, lay)
            return name in _BINARY and len(n.args) == 2 and self.binary(n, lay)
        if name == "concatenate":
            return self.concatenate(n, lay)
        if name == "qnn.concatenate" and isinstance(data, RTuple):
            return self.concatenate(n, lay, [self.original(x) for x in n.args[1:]])
        if name == "nn.batch_norm" and id(data) in self.lay:
            args = [self.out[id(data)]] + [self.original(x) for x in n.args[1:]]
            self.out[id(n)] = rebuild_call(n, args, axis=cur.index(orig[n.attrs.axis % 4]))
            self.tuple_lay[id(n)] = [lay, None, None]
            return True
        if len(orig) != 4:
            return False  # (a value a squeeze made 3-D: converted back)
        if name == "squeeze" and id(data) in self.lay:
            return self.squeeze(n, lay)
        if name == "transpose" and id(data) in self.lay:
            # the result keeps its original layout: the axes pick its axes from the data's
            # converted layout
            axes = n.attrs.axes
            axes = range(3, -1, -1) if axes is None or len(axes) == 0 else axes
            out_layout = [orig[int(a) % 4] for a in axes]
            self.out[id(n)] = rebuild_call(n, [self.out[id(data)]],
                                           axes=tuple(cur.index(c) for c in out_layout))
            return True
        if name == "strided_slice" and id(data) in self.lay:
            return self.strided_slice(n, lay)
        if name == "slice_like" and self.lay.get(id(data)) == lay \
                and self.lay.get(id(n.args[1])) == lay:
            # both inputs converted alike (classic; else: the original layout): axes follow
            axes = n.attrs.axes
            if axes is not None:
                axes = tuple(cur.index(orig[int(a) % 4]) for a in axes)
            return self.keep(n, [self.out[id(data)], self.out[id(n.args[1])]], lay, axes=axes)
        if name == "topk" and id(data) in self.lay:
            new = rebuild_call(n, [self.out[id(data)]], axis=cur.index(orig[n.attrs.axis % 4]))
            if isinstance(n.checked_type, TupleType):
                self.out[id(n)] = new
                self.tuple_lay[id(n)] = [lay] * len(n.checked_type.fields)
            else:
                self.out[id(n)], self.lay[id(n)] = new, lay
            return True
        shape = _shape(n)
        if shape is None or len(shape) != 4:
            return name in _REDUCE and self.reduce(n, lay)
        if (n.op.pattern == OpPattern.ELEMWISE and len(n.args) == 1) or name in _UNARY:
            return self.keep(n, [self.out[id(data)]], lay)
        if name in _BINARY and len(n.args) == 2:
            return self.binary(n, lay)
        if name in _QNN_BINARY:
            # scalar quantization parameters only (per-channel ones name an axis: kept in
            # the original layout)
            return all(_shape(x) == () for x in n.args[2:]) and self.binary(n, lay, 2)
        if name in ("qnn.requantize", "qnn.quantize", "qnn.dequantize") \
                and id(data) in self.lay:
            # per-channel parameters along ``axis``: the axis follows
            args = [self.out[id(data)]] + [self.original(x) for x in n.args[1:]]
            return self.keep(n, args, lay, axis=cur.index(orig[n.attrs.axis % 4]))
        if name == "nn.bias_add" and id(data) in self.lay:
            return self.keep(n, [self.out[id(data)], self.original(n.args[1])], lay,
                             axis=cur.index(orig[n.attrs.axis % 4]))
        if name == "nn.pad" and id(data) in self.lay and len(n.args) == 1:
            return self.pad(n, lay)
        if name in _REDUCE:
            return self.reduce(n, lay)
        if name in _NORMS and id(data) in self.lay:
            args = [self.out[id(data)]] + [self.original(x) for x in n.args[1:]]
            return self.keep(n, args, lay, axis=cur.index(orig[n.attrs.axis % 4]))
        if name == "nn.l2_normalize" and id(data) in self.lay:
            axes = tuple(cur.index(orig[int(a) % 4]) for a in n.attrs.axis)
            return self.keep(n, [self.out[id(data)]], lay, axis=axes)
        return False

    def altered(self, n: Call) -> bool:
        """Call ``n`` replaced by what its op's ``FTVMAlterOpLayout`` callback returns (False:
        it returned None, the usual rules apply). A convolution (``data_layout`` and
        ``kernel_layout`` attributes) gets its inputs as they are, converted or not, and may
        return one in other layouts: its inputs are transformed to those, and its result
        stays in its new layout. Any other op gets its inputs in their original layouts and
        must return a value of its type."""
        conv_like = "data_layout" in n.attrs and "kernel_layout" in n.attrs and \
            len(n.args) == 2
        inputs = [self.out[id(a)] if conv_like else self.original(a) for a in n.args]
        tinfos = [placeholder(a.checked_type.shape, a.checked_type.dtype) for a in n.args
                  if isinstance(a.checked_type, TensorType)]
        res = n.op.get_attr("FTVMAlterOpLayout")(n.attrs, inputs, tinfos, n.checked_type)
        if res is None:
            return False
        new_attrs = res.attrs if isinstance(res, Call) else None
        if conv_like and new_attrs is not None and "data_layout" in new_attrs \
                and "kernel_layout" in new_attrs and len(res.args) == 2:
            data, weight = n.args
            d_orig, k_orig = n.attrs.data_layout, n.attrs.kernel_layout
            lay = self.lay.get(id(data))
            if lay is not None and lay[0] != d_orig:
                return False
            d_cur = lay[1] if lay is not None else d_orig
            k_cur = self.lay[id(weight)][1] if id(weight) in self.lay else k_orig
            # the data the callback passed on: one transform per value and layout, shared
            # by all its convolutions (classic)
            new_data = (self.value_in(data, d_orig, new_attrs.data_layout)
                        if res.args[0] is inputs[0]
                        else _transform(res.args[0], d_cur, new_attrs.data_layout))
            new = Call(res.op, [new_data, _transform(res.args[1], k_cur, new_attrs.kernel_layout)],
                       new_attrs, res.type_args)
            out_orig = n.attrs.get("out_layout") or d_orig
            out_new = new_attrs.get("out_layout") or new_attrs.data_layout
            self.out[id(n)] = new
            if out_new != out_orig:
                self.lay[id(n)] = (out_orig, out_new)
            return True
        infer_type(res)
        if res.checked_type != n.checked_type or (
                conv_like and any(id(a) in self.lay for a in n.args)):
            raise unsupported(
                f"an FTVMAlterOpLayout callback of {n.op.name} that changes its result's type "
                f"({n.checked_type} -> {res.checked_type}) other than by the layouts of a "
                "convolution")
        self.out[id(n)] = res
        return True

    def custom(self, n: Call, finfer) -> bool:
        """Call ``n`` whose op has a user ``FInferCorrectLayout``, as classic's layout
        rewriter does: the layouts it wants its inputs in and gives its output, inferred
        for the original inputs, then for the converted ones; the inputs are transformed to
        the latter, and the output keeps its new layout."""
        args = list(n.args)
        if any(isinstance(a, RTuple) for a in args) or isinstance(n.checked_type, TupleType):
            return False
        old_prd = [layout(self.lay[id(a)][0]) if id(a) in self.lay else None for a in args]
        new_prd = [layout(self.lay[id(a)][1]) if id(a) in self.lay else None for a in args]
        types = [a.checked_type for a in args]

        def infer(new_in, old_in, attrs):
            out = finfer(attrs, new_in, old_in, types)
            ins, outs = list(out.input_layouts), list(out.output_layouts)
            if len(ins) != len(args) or len(outs) != 1 or any(x is None for x in ins + outs):
                return None
            return ins, outs[0], out.new_attrs if out.new_attrs is not None else attrs

        first = infer(None, old_prd, n.attrs)
        if first is None:
            return False
        old_cur, old_out, attrs = first
        second = infer([p if p is not None else c for p, c in zip(new_prd, old_cur)],
                       [p if p is not None else c for p, c in zip(old_prd, old_cur)], attrs)
        if second is None:
            return False
        new_cur, new_out, attrs = second

        def move(e, src, dst):
            return e if src is None or dst is None else _transform(e, src.name, dst.name)

        new_args = []
        for a, op_, oc, np_, nc in zip(args, old_prd, old_cur, new_prd, new_cur):
            v = self.out[id(a)]
            if oc == op_:
                v = move(v, np_, nc)
            else:
                if op_ is not None:
                    v = move(v, np_, op_)
                v = move(v, oc, nc)
            new_args.append(v)
        self.out[id(n)] = Call(n.op, new_args, attrs, n.type_args)
        if old_out != new_out:
            self.lay[id(n)] = (old_out.name, new_out.name)
        return True

    def keep(self, n: Call, args: Sequence[Expr], lay: Lay, **changes) -> bool:
        """``n`` on ``args``, its result in layout ``lay`` too."""
        self.out[id(n)], self.lay[id(n)] = rebuild_call(n, args, **changes), lay
        return True

    def conv2d(self, n: Call) -> bool:
        a = n.attrs
        cfg = LayoutConfig.current
        if cfg is not None and cfg.check_skip():
            return False  # left in its layout
        want_d, want_k = self.desired["nn.conv2d"]
        d_orig, k_orig = a.data_layout or "NCHW", a.kernel_layout or "OIHW"
        data, weight = n.args
        dshape, wshape = _shape(data), _shape(weight)
        if dshape is None or wshape is None or not _is_perm(d_orig) \
                or sorted(k_orig) != sorted("OIHW"):
            return False
        blocked = re.fullmatch(r"NCHW(\d+)c", want_d)
        if blocked is not None:
            # a packed convolution (classic: contrib_conv2d_nchwc); an input variable whose
            # channels the block does not divide stays as it is
            if int(a.groups) != 1 or (isinstance(data, Var) and
                                      dshape[d_orig.index("C")] % int(blocked.group(1))):
                return False
            conv = contrib_conv2d_nchwc(
                self.value_in(data, d_orig, want_d),
                _transform(self.original(weight), k_orig, want_k), a.strides, a.padding,
                a.dilation, a.groups, a.channels, a.kernel_size, want_d, want_k, "",
                a.out_dtype)
        else:
            if want_k == "default":
                depthwise = (int(a.groups) > 1 and int(a.groups) == dshape[d_orig.index("C")]
                             and wshape[k_orig.index("I")] == 1)
                want_k = "HWOI" if want_d == "NHWC" and depthwise else _DEFAULT_KERNEL[want_d]
            conv = rebuild_call(n, [self.value_in(data, d_orig, want_d),
                                    _transform(self.original(weight), k_orig, want_k)],
                                data_layout=want_d, kernel_layout=want_k, out_layout="")
        out_orig = a.out_layout or d_orig
        self.out[id(n)] = conv
        if want_d != out_orig:
            self.lay[id(n)] = (out_orig, want_d)
        return True

    def conv_like(self, n: Call) -> bool:
        """A convolution other than nn.conv2d (``_CONV_KERNELS``) in its wanted layouts: its
        data (and a deformable one's offset) transformed to the data layout, its kernel to
        the kernel layout; its other arguments as they are."""
        name, a = n.op.name, n.attrs
        if name == "nn.deformable_conv2d":
            cfg = LayoutConfig.current
            if cfg is not None and cfg.check_skip():
                return False  # left in its layout
        n_data = 2 if name == "nn.deformable_conv2d" else 1
        want_d, want_k = self.desired[name]
        d_orig, k_orig = a.data_layout, a.kernel_layout
        data, weight = n.args[0], n.args[n_data]
        dshape, wshape = _shape(data), _shape(weight)
        if dshape is None or wshape is None or not _is_perm(d_orig) \
                or sorted(k_orig) != sorted("OIHW"):
            return False
        if want_k == "default":
            want_k = _CONV_KERNELS[name][want_d]
            if name == "qnn.conv2d" and want_d == "NHWC" and int(a.groups) > 1 \
                    and int(a.groups) == dshape[d_orig.index("C")] \
                    and wshape[k_orig.index("I")] == 1:
                want_k = "HWOI"  # depthwise
        args = [self.value_in(x, d_orig, want_d) for x in n.args[:n_data]]
        args.append(_transform(self.original(weight), k_orig, want_k))
        args += [self.original(x) for x in n.args[n_data + 1:]]
        changes = {"data_layout": want_d, "kernel_layout": want_k}
        if "out_layout" in a:
            changes["out_layout"] = ""
        self.out[id(n)] = rebuild_call(n, args, **changes)
        out_orig = a.get("out_layout") or d_orig
        if want_d != out_orig:
            self.lay[id(n)] = (out_orig, want_d)
        return True

    def pad(self, n: Call, lay: Lay) -> bool:
        """nn.pad of a converted value: its widths follow the axes; a block axis (the ``c``
        of NCHW16c) gets none, which needs its primal axis unpadded (else: False)."""
        orig, cur = lay
        width = []
        for _, axis in re.findall(r"(\d*)([A-Za-z])", cur):
            w = tuple(int(v) for v in n.attrs.pad_width[orig.index(axis.upper())])
            if axis.islower():
                if any(w):
                    return False
                w = (0, 0)
            width.append(w)
        return self.keep(n, [self.out[id(n.args[0])]], lay, pad_width=tuple(width))

    def roi(self, n: Call, want: str) -> bool:
        """roi_align/roi_pool with its data in layout ``want`` (the rois as they are)."""
        orig = n.attrs.layout
        self.out[id(n)] = rebuild_call(n, [self.value_in(n.args[0], orig, want),
                                           self.original(n.args[1])], layout=want)
        if want != orig:
            self.lay[id(n)] = (orig, want)
        return True

    def pool(self, n: Call, want: str) -> bool:
        orig = n.attrs.layout
        if not _is_perm(orig) or len(_shape(n.args[0]) or ()) != 4:
            return False
        changes = {"layout": want}
        if "out_layout" in n.attrs:
            changes["out_layout"] = ""
        self.out[id(n)] = rebuild_call(n, [self.value_in(n.args[0], orig, want)], **changes)
        if want != orig:
            self.lay[id(n)] = (orig, want)
        return True

    def binary(self, n: Call, lay: Lay, operands: int = 0) -> bool:
        """Broadcasting ``n`` on a converted value; with ``operands``, only its first
        ``operands`` arguments are tensors in the layout (a QNN op's others: its scalar
        quantization parameters)."""
        orig, cur = lay
        shape = _shape(n)
        args = []
        operands = operands or len(n.args)
        for x in n.args[:operands]:
            s = _shape(x)
            if s is None:
                return False
            if len(s) == 4 and (id(x) in self.lay or _is_perm(cur)):
                args.append(self.value_in(x, orig, cur))
            elif len(s) == 4:
                # an operand of the original layout against a blocked value: blocked by 1
                # where it has one element (classic's AdjustSubordinateFactors)
                args.append(_transform(self.original(x), orig, _blocked_like(cur, orig, s)))
            elif all(int(d) == 1 for d in s):
                # a scalar, or a lower-rank operand of ones: broadcasts as it is (classic)
                args.append(self.original(x))
            else:
                # a lower-rank operand broadcasts against the trailing axes (its layout is
                # their sublayout): made 4-D by leading unit axes, the missing axes first in
                # the wanted order, then transformed (classic's rule)
                sub = orig[4 - len(s):]
                src = "".join(c for c in cur if c.isupper() and c not in sub) + sub
                v = expand_dims(self.original(x), 0, 4 - len(s))
                s4 = (1,) * (4 - len(s)) + tuple(s)
                args.append(_transform(v, src, _blocked_like(cur, src, s4)))
        if shape is None or len(shape) != 4:
            return False
        args += [self.original(x) for x in n.args[operands:]]
        return self.keep(n, args, lay)

    def reblocked_binary(self, n: Call, lay: Lay) -> bool:
        """A broadcasting op on a value re-blocked from one packed layout to another
        (NCHW4c -> NCHW2c): an operand of the same rank is transformed alike when it holds
        whole blocks, one of ones broadcasts as it is; anything else: False."""
        orig, cur = lay
        axes = re.findall(r"[A-Za-z]", orig)
        rank = len(axes)
        if len(_shape(n) or ()) != rank:
            return False
        args = []
        for x in n.args:
            s = _shape(x)
            if s is None:
                return False
            if id(x) in self.lay:
                args.append(self.value_in(x, orig, cur))
            elif all(int(d) == 1 for d in s):
                args.append(self.original(x))
            elif len(s) == rank and all(
                    int(s[k]) == layout(orig).factor_of(a.upper())
                    for k, a in enumerate(axes) if a.islower()):
                args.append(_transform(self.original(x), orig, cur))
            else:
                return False
        return self.keep(n, args, lay)

    def concatenate(self, n: Call, lay: Lay, rest: Sequence[Expr] = ()) -> bool:
        """A concatenation of converted values (``rest``: qnn.concatenate's other
        arguments)."""
        orig, cur = lay
        tup = n.args[0]
        if not isinstance(tup, RTuple) or any(len(_shape(f) or ()) != 4 for f in tup.fields):
            return False
        fields = [self.value_in(f, orig, cur) for f in tup.fields]
        return self.keep(n, [RTuple(fields)] + list(rest), lay,
                         axis=cur.index(orig[n.attrs.axis % 4]))

    def relayout(self, n: Call, lay: Lay) -> bool:
        """An original ``layout_transform`` of a converted value."""
        src, dst = n.attrs.src_layout, n.attrs.dst_layout
        if src != lay[0]:
            return False
        self.out[id(n)] = _transform(self.out[id(n.args[0])], lay[1], dst)
        return True

    def squeeze(self, n: Call, lay: Lay) -> bool:
        """A squeeze of a converted value: its axes follow; the result keeps the remaining
        axes in their converted order."""
        orig, cur = lay
        if n.attrs.axis is None:
            gone = [c for c, d in zip(orig, _shape(n.args[0])) if int(d) == 1]
        else:
            gone = [orig[int(a) % 4] for a in n.attrs.axis]
        axes = sorted(cur.index(c) for c in gone)
        self.out[id(n)] = rebuild_call(n, [self.out[id(n.args[0])]], axis=axes)
        left = ("".join(c for c in orig if c not in gone), "".join(c for c in cur if c not in gone))
        if left[0] != left[1]:
            self.lay[id(n)] = left
        return True

    def strided_slice(self, n: Call, lay: Lay) -> bool:
        """A strided_slice of a converted value: its given axes follow; without axes, its
        begin/end/strides, filled to every axis, are permuted as the layout."""
        orig, cur = lay
        a = n.attrs
        if a.get("slice_mode", "end") != "end":
            return False
        data = self.out[id(n.args[0])]
        if a.get("axes") is not None:
            axes = tuple(cur.index(orig[int(x) % 4]) for x in a.axes)
            return self.keep(n, [data], lay, axes=axes)
        shape = _shape(n.args[0])
        begin = [int(a.begin[i]) if i < len(a.begin) else 0 for i in range(4)]
        end = [int(a.end[i]) if i < len(a.end) else int(shape[i]) for i in range(4)]
        strides = a.strides
        perm = [orig.index(c) for c in cur]
        changes = {"begin": tuple(begin[i] for i in perm), "end": tuple(end[i] for i in perm)}
        if strides is not None and len(strides) > 0:
            full = [int(strides[i]) if i < len(strides) else 1 for i in range(4)]
            if len(strides) == 1:
                full = [int(strides[0])] * 4
            changes["strides"] = tuple(full[i] for i in perm)
        return self.keep(n, [data], lay, **changes)

    def blocked_strided_slice(self, n: Call, lay: Lay) -> bool:
        """A strided_slice with ``axes`` of a value in a packed layout (NHWC4c): each axis
        follows, a packed axis sliced in whole blocks (begin and end divided by the block;
        unit strides), its block axis whole. Anything else: False (the original layout)."""
        orig, cur = lay
        a = n.attrs
        if a.get("slice_mode", "end") != "end":
            return False
        tokens = [t for _, t in re.findall(r"(\d*)([A-Za-z])", cur)]
        shape = _shape(n.args[0])
        strides = [int(v) for v in a.strides] if a.strides is not None else []
        axes, begin, end = [], [], []
        for k, ax in enumerate(a.axes):
            c = orig[int(ax) % 4]
            pos = tokens.index(c)
            b, e = int(a.begin[k]), int(a.end[k])
            st = strides[k] if k < len(strides) else (strides[0] if len(strides) == 1 else 1)
            if c.lower() in tokens:
                f = layout(cur).factor_of(c)
                dim = int(shape[orig.index(c)])  # (the original value's, unpacked)
                b, e = b + dim if b < 0 else b, min(e + dim if e < 0 else e, dim)
                if st != 1 or b % f or e % f:
                    return False
                b, e = b // f, e // f
            axes.append(pos)
            begin.append(b)
            end.append(e)
        return self.keep(n, [self.out[id(n.args[0])]], lay, axes=tuple(axes),
                         begin=tuple(begin), end=tuple(end))

    def reduce(self, n: Call, lay: Lay) -> bool:
        orig, cur = lay
        a = n.attrs
        axis = range(4) if a.axis is None else [int(x) % 4 for x in a.axis]
        if a.get("exclude"):
            axis = [k for k in range(4) if k not in set(axis)]
        red = {orig[k] for k in axis}
        new_axis = sorted(cur.index(c) for c in red)
        data = self.out[id(n.args[0])]
        if a.keepdims:
            return self.keep(n, [data], lay, axis=tuple(new_axis), exclude=False)
        if [c for c in orig if c not in red] != [c for c in cur if c not in red]:
            return False  # the remaining axes are in another order: reduce the original
        self.out[id(n)] = rebuild_call(n, [data], axis=tuple(new_axis), exclude=False)
        return True


def _blocked_like(cur: str, layout: str, shape) -> str:
    """``cur`` (maybe blocked, ``NCHW4c``) for an operand of ``shape`` in ``layout``: each
    block of an axis the operand has one element of becomes a block of 1 (``NCHW1c``)."""
    out = ""
    for factor, axis in re.findall(r"(\d*)([A-Za-z])", cur):
        if axis.islower() and int(shape[layout.index(axis.upper())]) == 1:
            factor = "1"
        out += factor + axis
    return out



def convert_function(func: Function, desired: Dict[str, List[str]],
                     alter: bool = False) -> Function:
    """``func`` (typed) with the ops of ``desired`` in their wanted layouts (with ``alter``,
    those the Python ``FTVMAlterOpLayout`` callbacks choose)."""
    conv = _Converter(desired, alter)
    for n in post_order(func.body):
        conv.visit(n)
    return Function(func.params, conv.original(func.body), func.ret_type, func.type_params,
                    func.attrs)


def ConvertLayout(desired_layouts: Dict[str, Sequence[str]]) -> Pass:  # noqa: N802
    """Convert the layouts of the ops in ``desired_layouts`` (classic
    ``relay.transform.ConvertLayout``; opt_level 3)."""
    desired = _desired(desired_layouts)

    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        from .infer_type import InferType
        refuse_custom_attr(mod, "FTVMConvertOpLayout", NAME)
        mod = InferType()(mod)
        out = IRModule({}, mod.attrs)
        for name, func in mod.functions.items():
            out[name] = convert_function(func, desired) if isinstance(func, Function) \
                else func
        return InferType()(out)

    return ModulePass(run, NAME, opt_level=3, required=("InferType", "CanonicalizeOps"))
