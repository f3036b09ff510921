"""``FakeQuantizationToInteger``: float regions between ``qnn.dequantize`` inputs and a
``qnn.quantize`` output ("fake quantized" graphs, as QDQ models are) rewritten as integer QNN
ops.

From each ``qnn.quantize`` the pass walks back through the calls to the ``qnn.dequantize``
calls that feed them (constants may sit in between; a variable or a call of an operator
without a rule leaves the region as it is). Each dequantize gives its input's affine type
(scale, zero point, dtype, axis); every other call of the region is given the quantize's type
as its output's; the rules (``FTVMFakeQuantizationToInteger``, registered with
:func:`register_fake_quantization_to_integer`) then rewrite the region bottom-up, each
returning its integer expression and that expression's affine type. A rule that fails skips
the region (or raises with ``hard_fail``).
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional

import numpy as np

from ...error import TVMError
from ...ir.module import IRModule
from ...ir.transform import ModulePass, Pass, PassContext
from .. import op as _op
from ..expr import (
    Call,
    Constant,
    Expr,
    Function,
    Tuple,
    TupleGetItem,
    Var,
    children,
    const,
    post_order,
    with_children,
)
from ..op import nn as _nn
from ..op.op import register_fake_quantization_to_integer
from ..op.registry import Op, make_call
from ..qnn import op as _qnn
from .infer_type import InferType, infer_type, retyped_function

KEY = "FTVMFakeQuantizationToInteger"


class TensorAffineType:
    """A quantized tensor's ``real = scale * (q - zero_point)`` (classic
    ``tvm.ir.TensorAffineType``): scale and zero point expressions, dtype, channel axis."""

    def __init__(self, scale: Expr, zero_point: Expr, dtype: str, axis: int = -1):
        self.scale, self.zero_point, self.dtype, self.axis = scale, zero_point, dtype, axis

    def __repr__(self) -> str:
        return f"TensorAffineType({self.dtype}, axis={self.axis})"


class TupleAffineType:
    """The affine types of a tuple's fields (classic ``tvm.ir.TupleAffineType``)."""

    def __init__(self, types: List[TensorAffineType]):
        self.types = list(types)


class _TypeMap(dict):
    """Affine types by expression (keyed by identity, as relay expressions are)."""

    def __getitem__(self, e: Expr):
        try:
            return dict.__getitem__(self, id(e))[1]
        except KeyError:
            raise TVMError(f"FakeQuantizationToInteger: no affine type for {e!r}") from None

    def __setitem__(self, e: Expr, t) -> None:
        dict.__setitem__(self, id(e), (e, t))

    def __contains__(self, e) -> bool:
        return dict.__contains__(self, id(e))


# ------------------------------------------------------------------------------- helpers
def _values(e: Expr) -> Optional[np.ndarray]:
    if isinstance(e, Constant):
        return e.data.numpy()
    from ..analysis import free_vars
    from .fold_constant import fold_function
    if free_vars(e):
        return None
    body = fold_function(infer_type(Function([], e)), fold_qnn=True).body
    return body.data.numpy() if isinstance(body, Constant) else None


def fold_constant(e: Expr) -> Expr:
    """``e`` folded to a constant where it is one."""
    v = _values(e)
    return const(v, str(v.dtype)) if v is not None and not isinstance(e, Constant) else e


def approx_equal(x: Expr, y: Expr) -> bool:
    a, b = _values(x), _values(y)
    if a is not None and b is not None:
        return a.shape == b.shape and bool(np.allclose(a, b))
    return x is y


def _dtype(e: Expr) -> str:
    return infer_type(e).checked_type.dtype


def _ndim(e: Expr) -> int:
    return len(infer_type(e).checked_type.shape)


def _same(t: TensorAffineType, u: TensorAffineType) -> bool:
    return approx_equal(t.scale, u.scale) and approx_equal(t.zero_point, u.zero_point) \
        and t.dtype == u.dtype


def _to_int32(arg: Expr, t: TensorAffineType, out_t: TensorAffineType) -> Expr:
    """``arg`` (of type ``t``) as int32 at ``out_t``'s scale and zero point."""
    if approx_equal(t.scale, out_t.scale) and approx_equal(t.zero_point, out_t.zero_point):
        return _op.cast(arg, "int32")
    return _qnn.requantize(arg, t.scale, t.zero_point, out_t.scale, out_t.zero_point,
                           axis=t.axis, out_dtype="int32")


def _saturate(e: Expr, dtype: str) -> Expr:
    if dtype == "int32":
        return e
    info = np.iinfo(dtype)
    return _op.cast(_op.clip(e, int(info.min), int(info.max)), dtype)


def _quantized_value(v: float, t: TensorAffineType, ndim: int) -> Expr:
    """The real value ``v`` in ``t``'s quantization (one per channel where ``t`` is)."""
    s = _values(t.scale).astype("float32")
    z = _values(t.zero_point).astype("int64")
    info = np.iinfo(t.dtype)
    q = np.clip(np.round(np.float32(v) / s) + z, info.min, info.max).astype(t.dtype)
    if q.size == 1:
        return const(q.reshape(()), t.dtype)
    from .pattern_utils import expand_bias_to_match_axis
    axis = t.axis + ndim if t.axis < 0 else t.axis
    return expand_bias_to_match_axis(const(q.reshape(-1), t.dtype), ndim, [axis])


# ---------------------------------------------------------------------------------- rules
def _rule(name: str):
    def deco(f):
        register_fake_quantization_to_integer(name, f)
        return f
    return deco


@_rule("qnn.dequantize")
def _dequantize(expr, type_map):
    return [expr.args[0], type_map[expr]]


@_rule("qnn.quantize")
def _quantize(expr, type_map):
    out = expr.args[0]
    t = type_map[out]
    dt = expr.attrs.out_dtype
    if not (approx_equal(t.scale, expr.args[1]) and approx_equal(t.zero_point, expr.args[2])
            and t.dtype == dt):
        out = _qnn.requantize(out, fold_constant(t.scale), fold_constant(t.zero_point),
                              expr.args[1], expr.args[2], axis=t.axis, out_dtype=dt)
    return [out, TensorAffineType(expr.args[1], expr.args[2], dt, expr.attrs.axis)]


def _identity(expr, type_map):
    return [expr, type_map[expr.args[0]]]


for _name in ("reshape", "squeeze", "strided_slice", "transpose", "expand_dims",
              "nn.max_pool2d", "nn.batch_flatten", "nn.depth_to_space", "max", "min",
              "image.resize2d", "broadcast_to", "take"):
    register_fake_quantization_to_integer(_name, _identity)


@_rule("split")
def _split(expr, type_map):
    t = type_map[expr.args[0]]
    n = len(infer_type(expr).checked_type.fields)
    return [expr, TupleAffineType([t] * n)]


@_rule("nn.relu")
def _relu(expr, type_map):
    arg = expr.args[0]
    t = type_map[arg]
    return [_op.maximum(arg, _quantized_value(0.0, t, _ndim(arg))), t]


@_rule("clip")
def _clip(expr, type_map):
    arg = expr.args[0]
    t = type_map[arg]
    nd = _ndim(arg)
    lo = _quantized_value(float(expr.attrs.a_min), t, nd)
    hi = _quantized_value(float(expr.attrs.a_max), t, nd)
    return [_op.minimum(_op.maximum(arg, lo), hi), t]


@_rule("nn.pad")
def _pad(expr, type_map):
    arg = expr.args[0]
    t = type_map[arg]
    if len(expr.args) > 1:
        v = _values(expr.args[1])
        if v is None:
            raise TVMError("nn.pad: a pad value computed at run time")
        value = float(v.reshape(()))
    else:
        value = float(expr.attrs.pad_value)
    q = _values(_quantized_value(value, t, 0))
    return [_nn.pad(arg, expr.attrs.pad_width, const(q.reshape(())),
                    expr.attrs.pad_mode), t]


def _product_type(x_t: TensorAffineType, w_t: TensorAffineType, axis: int):
    scale = fold_constant(_op.multiply(x_t.scale, w_t.scale))
    zero = const(np.zeros(_values(scale).shape, dtype="int32"))
    return TensorAffineType(scale, zero, "int32", axis)


def _weighted(qfn, out_axis: Callable[[Any], int]):
    def rule(expr, type_map):
        x, w = expr.args
        x_t, w_t = type_map[x], type_map[w]
        attrs = {k: v for k, v in expr.attrs.items()}
        attrs["out_dtype"] = "int32"
        out = qfn(x, w, x_t.zero_point, w_t.zero_point, x_t.scale, w_t.scale, attrs)
        return [out, _product_type(x_t, w_t, out_axis(expr.attrs))]
    return rule


register_fake_quantization_to_integer("nn.conv2d", _weighted(
    lambda x, w, xz, wz, xs, ws, a: make_call("qnn.conv2d", [x, w, xz, wz, xs, ws], **a),
    lambda a: (a.data_layout or "NCHW").index("C")))
register_fake_quantization_to_integer("nn.conv2d_transpose", _weighted(
    lambda x, w, xz, wz, xs, ws, a: make_call("qnn.conv2d_transpose", [x, w, xz, wz, xs, ws],
                                              **a),
    lambda a: (a.data_layout or "NCHW").index("C")))
register_fake_quantization_to_integer("nn.dense", _weighted(
    lambda x, w, xz, wz, xs, ws, a: _qnn.dense(x, w, xz, wz, xs, ws, a["units"], "int32"),
    lambda a: 1))
register_fake_quantization_to_integer("nn.batch_matmul", _weighted(
    lambda x, w, xz, wz, xs, ws, a: _qnn.batch_matmul(x, w, xz, wz, xs, ws, "int32"),
    lambda a: -1))


@_rule("nn.bias_add")
def _bias_add(expr, type_map):
    x, b = expr.args
    x_t = type_map[x]
    if b in type_map:
        b_t = type_map[b]
        if not _same(b_t, x_t):
            b = _qnn.requantize(b, b_t.scale, b_t.zero_point, x_t.scale, x_t.zero_point,
                                out_dtype=x_t.dtype)
    else:
        b = _qnn.quantize(b, x_t.scale, x_t.zero_point, axis=0, out_dtype=x_t.dtype)
    return [make_call("nn.bias_add", [x, b], **dict(expr.attrs.items())), x_t]


def _binary_types(expr, type_map):
    """Both operands quantized (a constant one in the other's parameters) and their
    types."""
    left, right = expr.args
    if left not in type_map and right not in type_map:
        raise TVMError("a binary op of two unquantized operands")
    if left not in type_map:
        t = type_map[right]
        left, left_t = _qnn.quantize(left, t.scale, t.zero_point, out_dtype=t.dtype), t
    else:
        left_t = type_map[left]
    if right not in type_map:
        right, right_t = _qnn.quantize(right, left_t.scale, left_t.zero_point,
                                       out_dtype=left_t.dtype), left_t
    else:
        right_t = type_map[right]
    if left_t.dtype != right_t.dtype:
        raise TVMError(f"operands of dtypes {left_t.dtype} and {right_t.dtype}")
    return left, right, left_t, right_t, type_map[expr]


def _binary(qfn, plain=None):
    """A QNN binary op; for add / subtract (``plain``) of int32 accumulators at the same
    scale and zero point (a conv's output and its quantized bias constant), the plain op at
    that scale (no rounding)."""
    def rule(expr, type_map):
        left, right, lt, rt, out_t = _binary_types(expr, type_map)
        if plain is not None and lt.dtype == rt.dtype == "int32" and \
                approx_equal(lt.scale, rt.scale) and approx_equal(lt.zero_point, rt.zero_point):
            return [plain(left, right), lt]
        out = qfn(left, right, lt.scale, lt.zero_point, rt.scale, rt.zero_point, out_t.scale,
                  out_t.zero_point, lhs_axis=lt.axis, rhs_axis=rt.axis)
        return [out, TensorAffineType(out_t.scale, out_t.zero_point, lt.dtype, out_t.axis)]
    return rule


register_fake_quantization_to_integer("add", _binary(_qnn.add, _op.add))
register_fake_quantization_to_integer("subtract", _binary(_qnn.subtract, _op.subtract))
register_fake_quantization_to_integer("multiply", _binary(_qnn.mul))


def _through_int32(fn, saturate: bool):
    """Average-like ops: the input in int32 at the output's parameters, ``fn`` of it (with
    ``saturate``, the result clipped and cast back to the output dtype)."""
    def rule(expr, type_map):
        arg = expr.args[0]
        t, out_t = type_map[arg], type_map[expr]
        out = fn(_to_int32(arg, t, out_t), expr)
        dt = out_t.dtype if saturate else "int32"
        return [_saturate(out, dt), TensorAffineType(out_t.scale, out_t.zero_point, dt,
                                                     out_t.axis)]
    return rule


def _same_op(x: Expr, expr) -> Expr:
    return make_call(expr.op.name, [x] + list(expr.args[1:]), **dict(expr.attrs.items()))


register_fake_quantization_to_integer("nn.avg_pool2d", _through_int32(_same_op, True))
for _name in ("nn.global_avg_pool2d", "nn.adaptive_avg_pool1d", "nn.adaptive_avg_pool2d",
              "mean"):
    register_fake_quantization_to_integer(_name, _through_int32(_same_op, False))


def _min_max(fn):
    """minimum / maximum: both operands at the output's parameters (in int32), then
    ``fn``."""
    def rule(expr, type_map):
        left, right, lt, rt, out_t = _binary_types(expr, type_map)
        out = fn(_to_int32(left, lt, out_t), _to_int32(right, rt, out_t))
        return [_saturate(out, lt.dtype),
                TensorAffineType(out_t.scale, out_t.zero_point, lt.dtype, out_t.axis)]
    return rule


register_fake_quantization_to_integer("minimum", _min_max(_op.minimum))
register_fake_quantization_to_integer("maximum", _min_max(_op.maximum))


@_rule("topk")
def _topk(expr, type_map):
    if expr.attrs.ret_type != "values":
        raise TVMError("topk: only ret_type='values' keeps the values' quantization")
    return [expr, type_map[expr.args[0]]]


@_rule("concatenate")
def _concatenate(expr, type_map):
    data = expr.args[0]
    tt = type_map[data]
    out_t = type_map[expr]
    fields = data.fields if isinstance(data, Tuple) else [
        TupleGetItem(data, i) for i in range(len(tt.types))]
    out = _qnn.concatenate(list(fields), [t.scale for t in tt.types],
                           [t.zero_point for t in tt.types], out_t.scale, out_t.zero_point,
                           int(expr.attrs.axis))
    return [out, TensorAffineType(out_t.scale, out_t.zero_point, tt.types[0].dtype,
                                  out_t.axis)]


@_rule("nn.leaky_relu")
def _leaky_relu(expr, type_map):
    arg = expr.args[0]
    t, out_t = type_map[arg], type_map[expr]
    out = _qnn.leaky_relu(arg, float(expr.attrs.alpha), t.scale, t.zero_point, out_t.scale,
                          out_t.zero_point)
    return [out, TensorAffineType(out_t.scale, out_t.zero_point, t.dtype, out_t.axis)]


def _unary(name: str):
    def rule(expr, type_map):
        arg = expr.args[0]
        t, out_t = type_map[arg], type_map[expr]
        out = getattr(_qnn, name)(arg, t.scale, t.zero_point, out_t.scale, out_t.zero_point)
        return [out, TensorAffineType(out_t.scale, out_t.zero_point, t.dtype, out_t.axis)]
    return rule


for _name in _qnn.UNARY_OPS:
    if _name != "hardswish":  # no relay op of that name
        register_fake_quantization_to_integer(_name, _unary(_name))


# ---------------------------------------------------------------------------------- the pass
class _Skip(Exception):
    pass


def _region(q: Call):
    """The calls of the fake-quantized region under quantize ``q`` (post order, dequantize
    calls included) and the affine types of its dequantize calls; None if it has none or
    holds a variable."""
    nodes: List[Expr] = []
    types = _TypeMap()
    seen = set()
    has_dequantize = False

    def visit(e: Expr) -> None:
        nonlocal has_dequantize
        if id(e) in seen:
            return
        seen.add(id(e))
        if isinstance(e, Var) or isinstance(e, Function):
            raise _Skip("a variable inside the region")
        if isinstance(e, Call):
            if not isinstance(e.op, Op):
                raise _Skip("a call of a function inside the region")
            if e.op.name == "qnn.dequantize":
                has_dequantize = True
                types[e] = TensorAffineType(e.args[1], e.args[2],
                                            e.args[0].checked_type.dtype, int(e.attrs.axis))
                nodes.append(e)
                return
        for c in children(e):
            visit(c)
        if not isinstance(e, Constant):
            nodes.append(e)
    try:
        visit(q.args[0])
    except _Skip:
        return None
    return (nodes, types) if has_dequantize else None


def _rewrite_region(q: Call, memo: Dict[int, Expr], hard_fail: bool) -> Optional[Expr]:
    found = _region(q)
    if found is None:
        return None
    nodes, dq_types = found
    for n in nodes:
        if isinstance(n, Call) and n.op.get_attr(KEY) is None:
            if hard_fail:
                raise TVMError(f"FakeQuantizationToInteger: found no rewrite rule for "
                               f"{n.op.name}")
            return None
    out_t = TensorAffineType(q.args[1], q.args[2], q.attrs.out_dtype, int(q.attrs.axis))
    type_map = _TypeMap()
    local: Dict[int, Expr] = {}

    def new_of(e: Expr) -> Expr:
        return local.get(id(e), memo.get(id(e), e))
    try:
        for n in nodes:
            if isinstance(n, Call):
                rule = n.op.get_attr(KEY)
                if n.op.name == "qnn.dequantize":
                    call = with_children(n, memo)
                    type_map[call] = dq_types[n]
                else:
                    call = Call(n.op, [new_of(a) for a in n.args], n.attrs)
                    type_map[call] = out_t
                out, t = rule(call, type_map)
                type_map[out] = t
            elif isinstance(n, Tuple):
                out = Tuple([new_of(f) for f in n.fields])
                type_map[out] = TupleAffineType([type_map[f] for f in out.fields])
            elif isinstance(n, TupleGetItem):
                out = TupleGetItem(new_of(n.tuple_value), n.index)
                type_map[out] = type_map[out.tuple_value].types[n.index]
            else:
                raise TVMError(f"an unsupported node {type(n).__name__}")
            local[id(n)] = out
        final = Call(q.op, [new_of(q.args[0])] + [memo.get(id(a), a) for a in q.args[1:]],
                     q.attrs)
        type_map[final.args[0]] = type_map[new_of(q.args[0])]
        result, _ = q.op.get_attr(KEY)(final, type_map)
        return infer_type(result)
    except Exception:  # a rule that cannot rewrite its op (any error) skips the region
        if hard_fail:
            raise
        return None


def fake_quantization_to_integer(func: Function, hard_fail: bool = False) -> Function:
    """``func`` (typed) with its fake-quantized regions in integer QNN ops."""
    memo: Dict[int, Expr] = {}
    for n in post_order(func.body):
        if isinstance(n, Call) and isinstance(n.op, Op) and n.op.name == "qnn.quantize":
            got = _rewrite_region(n, memo, hard_fail)
            if got is not None:
                memo[id(n)] = got
                continue
        new = with_children(n, memo)
        if new is not n:
            memo[id(n)] = new
    return retyped_function(func, memo)


#: the ops the QAT mode moves below a dequantize (classic's list)
QAT_OPS = frozenset({
    "broadcast_to", "clip", "expand_dims", "max", "maximum", "min", "minimum", "nn.avg_pool2d",
    "nn.batch_flatten", "nn.batch_matmul", "nn.bias_add", "nn.conv2d", "nn.conv2d_transpose",
    "nn.dense", "nn.depth_to_space", "nn.global_avg_pool2d", "nn.max_pool2d", "nn.pad",
    "nn.relu", "reshape", "split", "squeeze", "strided_slice", "transpose"})


def _qat_rewrite(call: Call, hard_fail: bool) -> Optional[Expr]:
    """``call`` of dequantized inputs as ``dequantize(integer op)``; None where its inputs are
    not all dequantize calls (or constants) or its rule fails."""
    dq: List[Call] = []
    seen = set()

    def visit(e: Expr) -> bool:
        if id(e) in seen:
            return True
        seen.add(id(e))
        if isinstance(e, Constant):
            return True
        if isinstance(e, (Tuple, TupleGetItem)):
            return all(visit(x) for x in children(e))
        if isinstance(e, Call) and isinstance(e.op, Op) and e.op.name == "qnn.dequantize":
            dq.append(e)
            return True
        if isinstance(e, Call) and hard_fail:
            raise TVMError(f"FakeQuantizationToInteger: {call.op.name} has an input that is "
                           f"not dequantized ({e.op.name if isinstance(e.op, Op) else e.op})")
        return False
    if not all(visit(a) for a in call.args) or not dq:
        return None
    type_map = _TypeMap()
    local: Dict[int, Expr] = {}
    try:
        for d in dq:
            type_map[d] = TensorAffineType(d.args[1], d.args[2], d.args[0].checked_type.dtype,
                                           int(d.attrs.axis))
            out, t = _dequantize(d, type_map)
            type_map[out] = t
            local[id(d)] = out

        def remap(e: Expr) -> Expr:
            if id(e) in local:
                return local[id(e)]
            if isinstance(e, Tuple):
                new = Tuple([remap(f) for f in e.fields])
                type_map[new] = TupleAffineType([type_map[f] for f in new.fields])
                return new
            if isinstance(e, TupleGetItem):
                new = TupleGetItem(remap(e.tuple_value), e.index)
                type_map[new] = type_map[new.tuple_value].types[e.index]
                return new
            return e
        new_call = Call(call.op, [remap(a) for a in call.args], call.attrs)
        out, t = call.op.get_attr(KEY)(new_call, type_map)
        return infer_type(_qnn.dequantize(out, t.scale, t.zero_point, t.axis))
    except Exception:  # the rule cannot rewrite this call: keep it
        if hard_fail:
            raise
        return None


def qat_to_integer(func: Function, hard_fail: bool = False) -> Function:
    """The QAT mode: each enabled op (:data:`QAT_OPS`) whose inputs are all dequantized
    becomes its integer op followed by a dequantize, bottom-up (so chains move down)."""
    memo: Dict[int, Expr] = {}
    for n in post_order(func.body):
        new = with_children(n, memo)
        if isinstance(new, Call) and isinstance(new.op, Op) and new.op.name in QAT_OPS \
                and new.op.get_attr(KEY) is not None:
            if new is not n:
                new = infer_type(new)
            got = _qat_rewrite(new, hard_fail)
            if got is not None:
                new = got
        if new is not n:
            memo[id(n)] = new
    return retyped_function(func, memo)


def FakeQuantizationToInteger(hard_fail: bool = False, use_qat: bool = False,  # noqa: N802
                              optional_qnn_ops: Optional[List[str]] = None) -> Pass:
    """Rewrite fake-quantized regions (dequantize -> float ops -> quantize) as integer QNN
    ops; ``hard_fail`` raises where a region cannot be rewritten instead of keeping it;
    ``use_qat`` then also moves the enabled ops (:data:`QAT_OPS`) of dequantized inputs below
    a dequantize where no quantize follows them (quantization-aware-trained graphs).
    ``optional_qnn_ops`` (classic's opt-in rules, e.g. nn.softmax) has no rules to enable
    here."""
    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        mod = InferType()(mod)
        out = IRModule({}, mod.attrs)
        for gv, f in mod.functions.items():
            if isinstance(f, Function):
                f = fake_quantization_to_integer(f, hard_fail)
                if use_qat:
                    f = qat_to_integer(f, hard_fail)
            out[gv] = f
        return InferType()(out)
    return ModulePass(run, "FakeQuantizationToInteger", opt_level=0, required=("InferType",))


__all__ = ["FakeQuantizationToInteger", "TensorAffineType", "TupleAffineType",
           "register_fake_quantization_to_integer", "fake_quantization_to_integer",
           "fold_constant", "approx_equal"]
