"""``SimplifyExpr``: classic relay's algebraic clean-ups, each a dataflow-pattern rewrite,
applied in order until nothing changes.

Reshape chains become one reshape, transpose / layout_transform chains one transform (or
none), casts to the same dtype and widening cast chains go, ``*_like`` ops with static shapes
become their explicit-shape forms, ``x + 0``, ``x * 1``, ``x - 0`` and ``x / 1`` (zeros, ones,
or scalar constants, when the type is unchanged) become ``x``, a ``full`` operand of a broadcast
op becomes its scalar, ``(x + c1) * c2`` becomes ``x * c2 + c1 * c2``, adjacent constant adds
or multiplies fold, ``x + x`` becomes ``x * 2``, ``a / sqrt(b)`` becomes ``a * rsqrt(b)``, and
clips and casts that cannot change a value go.
"""
from __future__ import annotations

from typing import List, Optional

import numpy as np

from ...ir.transform import Pass
from ..dataflow_pattern import DFPatternCallback, is_constant, is_op, rewrite, wildcard
from ..expr import Call, Constant, Expr, Function, const
from ..op import registry
from ..op.layout import layout_transform
from ..op.tensor import cast, multiply, reshape, rsqrt, transpose
from ..op.transform import broadcast_to, collapse_sum_to, full, ones, zeros
from ..ty import TensorType
from .function_pass import function_pass


def _static_shape(t) -> Optional[List[int]]:
    """The shape of tensor type ``t`` as ints, or None if a dimension is symbolic."""
    if not isinstance(t, TensorType):
        return None
    out = []
    for d in t.shape:
        if isinstance(d, (int, np.integer)):
            out.append(int(d))
        elif type(d).__name__ == "IntImm":
            out.append(int(d.value))
        else:
            return None
    return out


def _scalar_value(c: Constant) -> Optional[float]:
    """The value of a scalar constant, or None if it is not one."""
    arr = c.data.numpy()
    if arr.ndim != 0:
        return None
    return float(arr.item())


def _fold(expr: Expr) -> Expr:
    """``expr`` (operators on constants) folded to a constant (classic FoldConstantExpr)."""
    from .fold_constant import fold_function
    return fold_function(Function([], expr)).body


class _Rewrite(DFPatternCallback):
    """A SimplifyExpr rewrite: types the expression before matching."""

    def __init__(self):
        super().__init__(require_type=True)


class SimplifyReshape(_Rewrite):
    """reshape / reverse_reshape of reshape / reverse_reshape -> one reshape."""

    def __init__(self):
        super().__init__()
        self.x = wildcard()
        r1 = is_op("reshape") | is_op("contrib_reverse_reshape")
        r2 = is_op("reshape") | is_op("contrib_reverse_reshape")
        self.pattern = r1(r2(self.x))

    def callback(self, pre, post, node_map):
        shape = _static_shape(pre.checked_type)
        return post if shape is None else reshape(node_map[self.x][0], shape)


class SimplifySameCast(_Rewrite):
    """cast / cast_like to the dtype the data has -> the data."""

    def __init__(self):
        super().__init__()
        self.data = wildcard()
        self.pattern = is_op("cast_like")(self.data, wildcard()) | is_op("cast")(self.data)

    def callback(self, pre, post, node_map):
        if pre.args[0].checked_type.dtype == pre.checked_type.dtype:
            return node_map[self.data][0]
        return post


_CODE = {"int": 0, "uint": 1, "float": 2, "bfloat": 4}


def _dtype_code_bits(dtype: str):
    if dtype == "bool":
        return _CODE["uint"], 1
    for name in ("bfloat", "float", "uint", "int"):
        if dtype.startswith(name):
            return _CODE[name], int(dtype[len(name):] or 32)
    return -1, 0


def _is_widen_cast(origin: str, target: str) -> bool:
    """Whether casting ``origin`` to ``target`` keeps every value (classic's loose order
    int < uint < float at no fewer bits; bfloat16 casts always count)."""
    (oc, ob), (tc, tb) = _dtype_code_bits(origin), _dtype_code_bits(target)
    if oc == tc and ob <= tb:
        return True
    if _CODE["bfloat"] in (oc, tc):
        return False
    return oc < tc and ob <= tb


class SimplifyConsecutiveCast(_Rewrite):
    """cast(cast(x, widening), t) -> cast(x, t)."""

    def __init__(self):
        super().__init__()
        self.data = wildcard()
        self.cast1 = is_op("cast_like")(self.data, wildcard()) | is_op("cast")(self.data)
        self.pattern = is_op("cast_like")(self.cast1, wildcard()) | is_op("cast")(self.cast1)

    def callback(self, pre, post, node_map):
        data_dtype = pre.args[0].args[0].checked_type.dtype
        if not _is_widen_cast(data_dtype, pre.args[0].checked_type.dtype):
            return post
        return cast(node_map[self.data][0], pre.checked_type.dtype)


def _dtype_range_is(dtype: str, lo: float, hi: float) -> bool:
    """Whether [lo, hi] is exactly the range of ``dtype``."""
    if dtype == "bool":
        return False
    try:
        info = np.iinfo(dtype) if "int" in dtype else np.finfo(dtype)
    except (TypeError, ValueError):
        return False
    return float(info.min) == lo and float(info.max) == hi


class SimplifyClipAndConsecutiveCast(_Rewrite):
    """cast(cast(clip(x), t1), dtype of x) where the clip range is t1's -> the clip."""

    def __init__(self):
        super().__init__()
        self.clip = is_op("clip")(wildcard())
        self.cast1 = is_op("cast")(self.clip)
        self.pattern = is_op("cast")(self.cast1)

    def callback(self, pre, post, node_map):
        cast1 = pre.args[0]
        clip = cast1.args[0]
        if clip.checked_type.dtype == pre.checked_type.dtype and _dtype_range_is(
                cast1.checked_type.dtype, clip.attrs.a_min, clip.attrs.a_max):
            return node_map[self.clip][0]
        return post


class SimplifyCastClip(_Rewrite):
    """clip(cast(x, t)) clipping to t's range -> the cast."""

    def __init__(self):
        super().__init__()
        self.cast = is_op("cast")(wildcard())
        self.pattern = is_op("clip")(self.cast)

    def callback(self, pre, post, node_map):
        if _dtype_range_is(pre.args[0].checked_type.dtype, pre.attrs.a_min, pre.attrs.a_max):
            return node_map[self.cast][0]
        return post


def _layout_axes(layout: str) -> List[str]:
    """The axes of a layout string: ``"NCHW4c"`` -> ``["N", "C", "H", "W", "4c"]``."""
    out, num = [], ""
    for ch in layout:
        if ch.isdigit():
            num += ch
        else:
            out.append(num + ch)
            num = ""
    return out


def _axis_order(call: Call, ndim: int) -> List[int]:
    """The input axis each output axis of a transpose or layout_transform reads."""
    if call.op.name == "transpose":
        axes = call.attrs.axes
        if axes is None:
            return list(range(ndim - 1, -1, -1))
        return [int(a) + (ndim if int(a) < 0 else 0) for a in axes[:ndim]]
    src = [a[-1] for a in _layout_axes(call.attrs.src_layout)]
    dst = [a[-1] for a in _layout_axes(call.attrs.dst_layout)]
    return [src.index(dst[i]) for i in range(ndim)]


def _is_layout_transform(e) -> bool:
    return isinstance(e, Call) and getattr(e.op, "name", "") == "layout_transform"


def _rank_changes(call: Call) -> bool:
    return _is_layout_transform(call) and \
        len(call.attrs.src_layout) != len(call.attrs.dst_layout)


def _fold_rank_changing(data: Expr, call: Call) -> Optional[Call]:
    """One layout_transform for ``call`` of its argument when either is a rank-changing
    layout_transform, else None."""
    inner = call.args[0]
    src = dst = other = None
    if _rank_changes(call):
        src, dst, other = call.attrs.src_layout, call.attrs.dst_layout, inner
    if _rank_changes(inner):
        if src is None:
            src, dst, other = inner.attrs.src_layout, inner.attrs.dst_layout, call
        else:
            src = inner.attrs.src_layout
    if src is None:
        return None
    ns, nd = len(_layout_axes(src)), len(_layout_axes(dst))
    if ns < nd:
        axes = _axis_order(other, ns)
        inverse = [0] * len(axes)
        for i, a in enumerate(axes):
            inverse[a] = i
        return layout_transform(data, "".join(src[a] for a in inverse), dst)
    if ns > nd:
        axes = _axis_order(other, nd)
        return layout_transform(data, src, "".join(dst[a] for a in axes))
    if _is_layout_transform(other):
        return layout_transform(data, src, dst)
    return None


class SimplifyTranspose(_Rewrite):
    """Two transposes / layout_transforms -> one, or none when they cancel."""

    def __init__(self):
        super().__init__()
        self.x = wildcard()
        t1 = is_op("transpose") | is_op("layout_transform")
        t2 = is_op("transpose") | is_op("layout_transform")
        self.pattern = t1(t2(self.x))

    def callback(self, pre, post, node_map):
        x = node_map[self.x][0]
        folded = _fold_rank_changing(x, pre)
        if folded is not None:
            if folded.attrs.src_layout == folded.attrs.dst_layout:
                return x
            return folded
        ndim = len(pre.checked_type.shape)
        axes = list(range(ndim))
        for call in (pre.args[0], pre):  # from the input to the output
            order = _axis_order(call, ndim)
            axes = [axes[order[i]] for i in range(ndim)]
        if axes == list(range(ndim)):
            return x
        return transpose(x, axes)


class FullElementwise(_Rewrite):
    """A broadcast op of x and full/ones/zeros of x's result shape -> of x and the scalar."""

    def __init__(self):
        super().__init__()
        self.x, self.data, self.value = wildcard(), wildcard(), is_constant()
        self.full = is_op("full")(self.value) | is_op("full_like")(self.data, self.value)
        self.ones = is_op("ones")() | is_op("ones_like")(self.data)
        self.zeros = is_op("zeros")() | is_op("zeros_like")(self.data)
        op = wildcard().has_attr({"TOpPattern": registry.OpPattern.BROADCAST})
        fill = self.full | self.ones | self.zeros
        self.pattern = op(fill, self.x) | op(self.x, fill)

    def callback(self, pre, post, node_map):
        dtype = pre.checked_type.dtype
        x = node_map[self.x][0]
        is_left = post.args[1] is x
        if pre.args[1 if is_left else 0].checked_type != pre.checked_type:
            return post
        if self.full in node_map:
            value = node_map[self.value][0]
            if _scalar_value(value) is None:
                return post
        elif self.ones in node_map:
            value = const(1, dtype)
        else:
            value = const(0, dtype)
        args = [value, x] if is_left else [x, value]
        return Call(pre.op, args, pre.attrs, pre.type_args)


class _ConcretizeLike(_Rewrite):
    """``op(data, like)`` (or ``op(like)``) of a static shape -> its explicit-shape form."""

    op_name = ""

    def __init__(self):
        super().__init__()
        self.data, self.like = wildcard(), wildcard()
        op = is_op(self.op_name)
        self.pattern = op(self.like) if registry.get(self.op_name).num_inputs == 1 \
            else op(self.data, self.like)

    def callback(self, pre, post, node_map):
        shape = _static_shape(pre.checked_type)
        if shape is None:
            return post
        return self.concretize(node_map, shape, pre.checked_type.dtype)

    def concretize(self, node_map, shape, dtype) -> Expr:
        raise NotImplementedError


class ConcretizeZerosLike(_ConcretizeLike):
    op_name = "zeros_like"

    def concretize(self, node_map, shape, dtype):
        return zeros(shape, dtype)


class ConcretizeOnesLike(_ConcretizeLike):
    op_name = "ones_like"

    def concretize(self, node_map, shape, dtype):
        return ones(shape, dtype)


class ConcretizeFullLike(_ConcretizeLike):
    op_name = "full_like"

    def concretize(self, node_map, shape, dtype):
        return full(node_map[self.like][0], shape, dtype)  # ``like`` is the fill value


class ConcretizeReshapeLike(_ConcretizeLike):
    op_name = "reshape_like"

    def concretize(self, node_map, shape, dtype):
        return reshape(node_map[self.data][0], shape)


class ConcretizeCollapseSumLike(_ConcretizeLike):
    op_name = "collapse_sum_like"

    def concretize(self, node_map, shape, dtype):
        return collapse_sum_to(node_map[self.data][0], shape)


class ConcretizeBroadcastToLike(_ConcretizeLike):
    op_name = "broadcast_to_like"

    def concretize(self, node_map, shape, dtype):
        return broadcast_to(node_map[self.data][0], shape)


class ConcretizeCastLike(_Rewrite):
    """cast_like(data, like) -> cast(data, like's dtype) (any shape)."""

    def __init__(self):
        super().__init__()
        self.data = wildcard()
        self.pattern = is_op("cast_like")(self.data, wildcard())

    def callback(self, pre, post, node_map):
        if not isinstance(pre.checked_type, TensorType):
            return post
        return cast(node_map[self.data][0], pre.checked_type.dtype)


class EliminateIdentity(_Rewrite):
    """x + 0, x * 1, x - 0, x / 1 (zeros/ones ops or scalar constants) -> x, when the result
    has x's type."""

    def __init__(self):
        super().__init__()
        self.x, self.const = wildcard(), is_constant()
        zeros_e = is_op("zeros")() | is_op("zeros_like")(wildcard()) | self.const
        ones_e = is_op("ones")() | is_op("ones_like")(wildcard()) | self.const
        self.pattern = is_op("add")(self.x, zeros_e) | is_op("multiply")(self.x, ones_e) \
            | is_op("subtract")(self.x, zeros_e) | is_op("divide")(self.x, ones_e)

    def callback(self, pre, post, node_map):
        x = node_map[self.x][0]
        is_left = post.args[1] is x
        if self.const in node_map:
            value = _scalar_value(node_map[self.const][0])
            want = 0.0 if pre.op.name in ("add", "subtract") else 1.0
            if value is None or value != want:
                return post
        if pre.args[1 if is_left else 0].checked_type == pre.checked_type:
            return x
        return post


class SwitchAddMultiply(_Rewrite):
    """(x + c1) * c2 -> x * c2 + c1 * c2 (folded), which FoldScaleAxis prefers."""

    def __init__(self):
        super().__init__()
        self.x, self.c1, self.c2 = wildcard(), is_constant(), is_constant()
        self.pattern = (self.x + self.c1) * self.c2

    def callback(self, pre, post, node_map):
        x = node_map[self.x][0]
        if isinstance(x, Constant):
            return post
        c1, c2 = node_map[self.c1][0], node_map[self.c2][0]
        add = registry.get("add")
        return Call(add, [multiply(x, c2), _fold(multiply(c1, c2))])


class SimplifyAdjacentMultiplyOrAdd(_Rewrite):
    """x * c1 * c2 -> x * (c1 * c2), x + c1 + c2 -> x + (c1 + c2) (folded)."""

    def __init__(self):
        super().__init__()
        self.x, self.c1, self.c2 = wildcard(), is_constant(), is_constant()
        self.pattern = (self.x * self.c1 * self.c2) | (self.x + self.c1 + self.c2)

    def callback(self, pre, post, node_map):
        x = node_map[self.x][0]
        if isinstance(x, Constant):
            return post
        c1, c2 = node_map[self.c1][0], node_map[self.c2][0]
        return Call(pre.op, [x, _fold(Call(pre.op, [c1, c2]))])


class SimplifyAdd(_Rewrite):
    """x + x -> x * 2."""

    def __init__(self):
        super().__init__()
        self.x, self.y = wildcard(), wildcard()
        self.pattern = is_op("add")(self.x, self.y)

    def callback(self, pre, post, node_map):
        x = node_map[self.x][0]
        if x is node_map[self.y][0]:
            return multiply(x, const(2, pre.checked_type.dtype))
        return post


class SimplifyRSqrt(_Rewrite):
    """a / sqrt(b) -> a * rsqrt(b)."""

    def __init__(self):
        super().__init__()
        self.x, self.numerator = wildcard(), wildcard()
        self.pattern = is_op("divide")(self.numerator, is_op("sqrt")(self.x))

    def callback(self, pre, post, node_map):
        return multiply(node_map[self.numerator][0], rsqrt(node_map[self.x][0]))


class _SimplifyDQArg(_Rewrite):
    """arg-op(qnn.dequantize(x, ...)) -> arg-op(x): dequantizing keeps the order."""

    op_name = ""

    def __init__(self):
        super().__init__()
        self.x = wildcard()
        dq = is_op("qnn.dequantize")(self.x, wildcard(), wildcard())
        self.pattern = is_op(self.op_name)(dq)

    def callback(self, pre, post, node_map):
        return Call(pre.op, [node_map[self.x][0]], pre.attrs)


class SimplifyDQArgMax(_SimplifyDQArg):
    op_name = "argmax"


class SimplifyDQArgMin(_SimplifyDQArg):
    op_name = "argmin"


class SimplifyDQArgSort(_SimplifyDQArg):
    op_name = "argsort"


def _has_op(name: str) -> bool:
    return name in registry.list_op_names()


def simplify_expr_callbacks() -> List[DFPatternCallback]:
    """SimplifyExpr's rewrites, in classic's order (those of operators not registered
    left out)."""
    out = [ConcretizeZerosLike(), ConcretizeOnesLike(), ConcretizeFullLike(),
           ConcretizeReshapeLike(), ConcretizeCollapseSumLike(), ConcretizeBroadcastToLike(),
           ConcretizeCastLike(), SimplifyAdd(), SimplifyRSqrt(), EliminateIdentity(),
           SimplifyReshape(), SimplifyTranspose(), SimplifySameCast(),
           SimplifyConsecutiveCast(), FullElementwise(), SwitchAddMultiply(),
           SimplifyAdjacentMultiplyOrAdd()]
    if _has_op("qnn.dequantize"):
        out += [SimplifyDQArgMax(), SimplifyDQArgMin(), SimplifyDQArgSort()]
    return out + [SimplifyClipAndConsecutiveCast(), SimplifyCastClip()]


def post_alter_op_callbacks() -> List[DFPatternCallback]:
    """SimplifyExprPostAlterOp's rewrites (what AlterOpLayout tends to leave)."""
    return [EliminateIdentity(), SimplifyReshape(), SimplifySameCast(),
            SimplifyConsecutiveCast(), SimplifyClipAndConsecutiveCast(), SimplifyCastClip()]


def SimplifyExpr() -> Pass:  # noqa: N802
    """Simplify relay expressions (``relay.transform.SimplifyExpr()``): see the module
    docstring for the rewrites."""
    return function_pass(lambda f, mod, ctx: rewrite(simplify_expr_callbacks(), f, mod),
                         opt_level=0, name="SimplifyExpr", required=["InferType"])


def SimplifyExprPostAlterOp() -> Pass:  # noqa: N802
    """The clean-ups of :func:`SimplifyExpr` that apply after AlterOpLayout."""
    return function_pass(lambda f, mod, ctx: rewrite(post_alter_op_callbacks(), f, mod),
                         opt_level=0, name="SimplifyExprPostAlterOp", required=["InferType"])
