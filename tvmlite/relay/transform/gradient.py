"""Automatic differentiation of relay dataflow functions (``relay.transform.gradient``).

``gradient(f)`` of ``fn(x1, ..., xn) { out }`` is ``fn(x1, ..., xn) { (out, (d1, ..., dn)) }``
where ``di`` is the gradient of the sum of ``out``'s elements with respect to ``xi``: reverse
mode over the dataflow graph, each operator's adjoint from its registered gradient
(``relay.op.register_gradient``, attribute ``FPrimalGradient``: ``f(call, out_grad) -> [grad
per argument]``). Both of classic's modes give this result here: ``let`` bindings of values
are read as sharing; ``if`` or inner functions (what the higher-order mode exists for) are
refused with a TVMError.
"""
from __future__ import annotations

import math
from typing import Dict, List

from ...error import TVMError
from ..expr import Call, Constant, Expr, Function, Tuple, TupleGetItem, Var, const, post_order
from ..op import registry
from ..op.op import register_gradient
from ..op.registry import Op
from ..ty import TensorType, TupleType
from .infer_type import infer_type
from .normal_form import to_graph_normal_form

NAME = "FPrimalGradient"


def _op(name: str, *args, **attrs) -> Call:
    return registry.make_call(name, list(args), **attrs)


def _dtype(e: Expr) -> str:
    return e.checked_type.dtype


def _c(value: float, like: Expr) -> Constant:
    return const(value, _dtype(like))


def _csl(g: Expr, like: Expr) -> Expr:
    """``g`` summed down to the shape of ``like`` (undoing broadcasting)."""
    if tuple(_typed(g).checked_type.shape) == tuple(like.checked_type.shape):
        return g
    return _op("collapse_sum_like", g, like)


def _typed(e: Expr) -> Expr:
    return infer_type(e)


# ------------------------------------------------------------------------ operator gradients
def _unary(rule):
    """A gradient ``[g * rule(x, out)]``."""
    def grad(orig: Call, g: Expr):
        return [_op("multiply", g, rule(orig.args[0], orig))]
    return grad


def _div(a, b):
    return _op("divide", a, b)


def _mul(a, b):
    return _op("multiply", a, b)


def _sub(a, b):
    return _op("subtract", a, b)


def _add(a, b):
    return _op("add", a, b)


_UNARY = {
    "log": lambda x, y: _div(_c(1.0, x), x),
    "exp": lambda x, y: y,
    "sqrt": lambda x, y: _div(_c(0.5, x), y),
    "rsqrt": lambda x, y: _mul(_c(-0.5, x), _div(y, x)),
    "sigmoid": lambda x, y: _mul(y, _sub(_c(1.0, x), y)),
    "tanh": lambda x, y: _sub(_c(1.0, x), _mul(y, y)),
    "erf": lambda x, y: _mul(_c(2.0 / math.sqrt(math.pi), x),
                             _op("exp", _op("negative", _mul(x, x)))),
    "cos": lambda x, y: _op("negative", _op("sin", x)),
    "sin": lambda x, y: _op("cos", x),
    "tan": lambda x, y: _div(_c(1.0, x), _mul(_op("cos", x), _op("cos", x))),
    "atan": lambda x, y: _div(_c(1.0, x), _add(_c(1.0, x), _mul(x, x))),
    "log2": lambda x, y: _div(_c(1.0, x), _mul(x, _c(math.log(2.0), x))),
    "log10": lambda x, y: _div(_c(1.0, x), _mul(x, _c(math.log(10.0), x))),
    "cosh": lambda x, y: _op("sinh", x),
    "sinh": lambda x, y: _op("cosh", x),
    "asin": lambda x, y: _div(_c(1.0, x), _op("sqrt", _sub(_c(1.0, x), _mul(x, x)))),
    "acos": lambda x, y: _div(_c(-1.0, x), _op("sqrt", _sub(_c(1.0, x), _mul(x, x)))),
    "acosh": lambda x, y: _div(_c(1.0, x), _op("sqrt", _sub(_mul(x, x), _c(1.0, x)))),
    "asinh": lambda x, y: _div(_c(1.0, x), _op("sqrt", _add(_mul(x, x), _c(1.0, x)))),
    "atanh": lambda x, y: _div(_c(1.0, x), _sub(_c(1.0, x), _mul(x, x))),
    "abs": lambda x, y: _op("where", _op("less", x, _c(0.0, x)), _c(-1.0, x), _c(1.0, x)),
    "nn.relu": lambda x, y: _op("where", _op("less", x, _c(0.0, x)), _c(0.0, x), _c(1.0, x)),
}


def _zero_grads(orig: Call, g: Expr):
    return [_op("zeros_like", a) for a in orig.args]


def _add_grad(orig, g):
    x, y = orig.args
    return [_csl(g, x), _csl(g, y)]


def _subtract_grad(orig, g):
    x, y = orig.args
    return [_csl(g, x), _csl(_op("negative", g), y)]


def _multiply_grad(orig, g):
    x, y = orig.args
    return [_csl(_mul(g, y), x), _csl(_mul(g, x), y)]


def _divide_grad(orig, g):
    x, y = orig.args
    return [_csl(_div(g, y), x), _csl(_op("negative", _div(_mul(g, orig), y)), y)]


def _negative_grad(orig, g):
    return [_op("negative", g)]


def _softmax_grad(orig, g):
    axis = orig.attrs.axis
    s = _op("sum", _mul(g, orig), axis=(axis,), keepdims=True, exclude=False)
    return [_mul(_sub(g, s), orig)]


def _log_softmax_grad(orig, g):
    axis = orig.attrs.axis
    s = _op("sum", g, axis=(axis,), keepdims=True, exclude=False)
    return [_sub(g, _mul(_op("exp", orig), s))]


def _bias_add_grad(orig, g):
    data, bias = orig.args
    axis = orig.attrs.axis % len(data.checked_type.shape)
    return [g, _op("sum", g, axis=(axis,), keepdims=False, exclude=True)]


def _reshape_like_grad(orig, g):
    return [_op("reshape_like", g, orig.args[0])] + \
        [_op("zeros_like", a) for a in orig.args[1:]]


def _transpose_grad(orig, g):
    ndim = len(orig.args[0].checked_type.shape)
    axes = orig.attrs.axes
    axes = list(range(ndim - 1, -1, -1)) if axes is None else \
        [int(a) % ndim for a in axes]
    inverse = [0] * ndim
    for i, a in enumerate(axes):
        inverse[a] = i
    return [_op("transpose", g, axes=tuple(inverse))]


def _cast_grad(orig, g):
    return [_op("cast_like", g, orig.args[0])]


def _reduce_axes(orig) -> List[int]:
    ndim = len(orig.args[0].checked_type.shape)
    axis = orig.attrs.axis
    axes = list(range(ndim)) if axis is None else [int(a) % ndim for a in axis]
    if orig.attrs.get("exclude"):
        axes = [i for i in range(ndim) if i not in axes]
    return sorted(axes)


def _sum_grad(orig, g):
    x = orig.args[0]
    if not orig.attrs.get("keepdims"):
        for a in _reduce_axes(orig):
            g = _op("expand_dims", g, axis=a, num_newaxis=1)
    return [_op("broadcast_to_like", g, x)]


def _mean_grad(orig, g):
    x = orig.args[0]
    shape = x.checked_type.shape
    count = 1
    for a in _reduce_axes(orig):
        count *= int(shape[a])
    (grad,) = _sum_grad(orig, g)
    return [_div(grad, _c(float(count), x))]


def _dense_grad(orig, g):
    x, w = orig.args
    return [_csl(_op("nn.dense", g, _op("transpose", w, axes=(1, 0)), units=None,
                     out_dtype=""), x),
            _csl(_op("nn.dense", _op("transpose", g, axes=(1, 0)),
                     _op("transpose", x, axes=(1, 0)), units=None, out_dtype=""), w)]


def _matmul_grads(orig, g, op: str, perm):
    """The gradients of ``op`` (nn.batch_matmul / nn.matmul: ``A' @ B'`` with ``A'`` the
    first argument, transposed by ``transpose_a``, ``B'`` the second by ``transpose_b``)."""
    x, y = orig.args
    ta, tb = bool(orig.attrs.get("transpose_a")), bool(orig.attrs.get("transpose_b"))
    extra = {"units": None} if op == "nn.matmul" else {}

    def mm(a, b, t_a, t_b):
        return _op(op, a, b, out_dtype="", transpose_a=t_a, transpose_b=t_b, **extra)
    da = mm(g, y, False, not tb)  # g @ B'^T
    db = mm(x, g, not ta, False)  # A'^T @ g
    if ta:
        da = _op("transpose", da, axes=perm)
    if tb:
        db = _op("transpose", db, axes=perm)
    return [_csl(da, x), _csl(db, y)]


def _batch_matmul_grad(orig, g):
    return _matmul_grads(orig, g, "nn.batch_matmul", (0, 2, 1))


def _matmul_grad(orig, g):
    return _matmul_grads(orig, g, "nn.matmul", (1, 0))


def _clip_grad(orig, g):
    x = orig.args[0]
    inside = _op("logical_and", _op("greater_equal", x, _c(orig.attrs.a_min, x)),
                 _op("less_equal", x, _c(orig.attrs.a_max, x)))
    return [_op("where", inside, g, _op("zeros_like", g))]


def _where_grad(orig, g):
    c, x, y = orig.args
    zeros = _op("zeros_like", g)
    return [_op("zeros_like", c), _csl(_op("where", c, g, zeros), x),
            _csl(_op("where", c, zeros, g), y)]


def _minmax_grad(pick: str):
    def grad(orig, g):
        x, y = orig.args
        zeros = _op("zeros_like", g)
        take_x = _op(pick, x, y)
        return [_csl(_op("where", take_x, g, zeros), x),
                _csl(_op("where", take_x, zeros, g), y)]
    return grad


def _concatenate_grad(orig, g):
    tup = orig.args[0]
    axis = int(orig.attrs.axis)
    ndim = len(g.checked_type.shape)
    axis %= ndim
    pieces, start = [], 0
    for t in tup.checked_type.fields:
        size = int(t.shape[axis])
        begin = [0] * ndim
        end = [int(d) for d in g.checked_type.shape]
        begin[axis], end[axis] = start, start + size
        pieces.append(_op("strided_slice", g, begin=tuple(begin), end=tuple(end),
                          strides=(1,) * ndim, axes=None, slice_mode="end"))
        start += size
    return [Tuple(pieces)]


def _one_hot_grad(orig, g):
    indices, on, off = orig.args
    mask = Call(orig.op, [indices, _c(1.0, on), _c(0.0, off)], orig.attrs)
    return [_op("zeros_like", indices), _op("sum", _mul(g, mask)),
            _op("sum", _mul(g, _sub(_c(1.0, on), mask)))]


def _max_min_grad(orig, g):
    x = orig.args[0]
    (spread,) = _sum_grad(orig, g)
    (picked,) = _sum_grad(orig, orig)
    hit = _op("cast_like", _op("equal", x, picked), x)
    count = _op("sum", hit, axis=tuple(_reduce_axes(orig)), keepdims=True, exclude=False)
    return [_div(_mul(spread, hit), count)]


def _stack_grad(orig, g):
    tup = orig.args[0]
    ndim = len(_typed(g).checked_type.shape)
    axis = int(orig.attrs.axis) % ndim
    pieces = []
    for i in range(len(tup.checked_type.fields)):
        begin = [0] * ndim
        end = [int(d) for d in g.checked_type.shape]
        begin[axis], end[axis] = i, i + 1
        piece = _op("strided_slice", g, begin=tuple(begin), end=tuple(end),
                    strides=(1,) * ndim, axes=None, slice_mode="end")
        pieces.append(_op("squeeze", piece, axis=(axis,)))
    return [Tuple(pieces)]


def _conv2d_grad(orig, g):
    """NCHW / OIHW conv2d with groups 1: the data gradient is the transposed convolution of
    ``g``; the weight gradient a convolution of the data (batch and channels swapped) by
    ``g`` with stride and dilation exchanged, cropped to the kernel."""
    x, w = orig.args
    a = orig.attrs
    if (a.get("data_layout") or "NCHW") != "NCHW" or (a.get("kernel_layout") or "OIHW") \
            != "OIHW" or int(a.groups) != 1 or tuple(a.dilation) != (1, 1):
        raise TVMError("gradient: nn.conv2d is differentiated for NCHW data, OIHW weights, "
                       "groups=1 and dilation 1 only")
    strides, dilation = tuple(a.strides), tuple(a.dilation)
    pad = tuple(a.padding)
    pt, pl, pb, pr = pad if len(pad) == 4 else (pad[0], pad[1], pad[0], pad[1])
    (_, c, h, wd), (o, _, kh, kw) = _shape4(x), _shape4(w)
    oh, ow = _shape4(orig)[2:]
    opad = (h - ((oh - 1) * strides[0] - pt - pb + dilation[0] * (kh - 1) + 1),
            wd - ((ow - 1) * strides[1] - pl - pr + dilation[1] * (kw - 1) + 1))
    dx = _op("nn.conv2d_transpose", g, w, strides=strides, padding=(pt, pl, pb, pr),
             dilation=dilation, groups=1, channels=c, kernel_size=(kh, kw),
             data_layout="NCHW", kernel_layout="IOHW", out_layout="", output_padding=opad,
             out_dtype="")
    xt = _op("transpose", x, axes=(1, 0, 2, 3))
    gt = _op("transpose", g, axes=(1, 0, 2, 3))
    dw = _op("nn.conv2d", xt, gt, strides=dilation, padding=(pt, pl, pb, pr),
             dilation=strides, groups=1, channels=o, kernel_size=(oh, ow),
             data_layout="NCHW", kernel_layout="OIHW", out_layout="", out_dtype="")
    dw = _op("strided_slice", dw, begin=(0, 0, 0, 0), end=(c, o, kh, kw),
             strides=(1, 1, 1, 1), axes=None, slice_mode="end")
    return [dx, _op("transpose", dw, axes=(1, 0, 2, 3))]


def _cross_entropy_grad(logits: bool):
    def grad(orig, g):
        x, y = orig.args
        batch = _c(float(_typed(x).checked_type.shape[0]), x)
        scale = _op("negative", _div(g, batch))
        if logits:
            return [_mul(scale, y), _mul(scale, x)]
        return [_mul(scale, _div(y, x)), _mul(scale, _op("log", x))]
    return grad


def _strided_slice_grad(orig, g):
    x = orig.args[0]
    shape = [int(d) for d in x.checked_type.shape]
    a = orig.attrs
    ndim = len(shape)
    axes = list(range(ndim)) if a.axes is None else [int(v) % ndim for v in a.axes]
    begin, end, strides = [0] * ndim, list(shape), [1] * ndim
    for k, axis in enumerate(axes):
        dim = shape[axis]
        b = int(a.begin[k]) if k < len(a.begin) else 0
        if a.slice_mode == "size":
            size = int(a.end[k]) if k < len(a.end) else -1
            b = b + dim if b < 0 else b
            e, st = (dim if size < 0 else b + size), 1
        else:
            e = int(a.end[k]) if k < len(a.end) else dim
            st = int(a.strides[k]) if a.strides and k < len(a.strides) else \
                (int(a.strides[-1]) if a.strides else 1)
        if st <= 0:
            raise TVMError("gradient: strided_slice with a negative stride is not supported")
        begin[axis], end[axis], strides[axis] = slice(b, e, st).indices(dim)
    ints = "int32"
    return [_op("strided_set", _op("zeros_like", x), g, const(begin, ints), const(end, ints),
                const(strides, ints))]


def _global_avg_pool2d_grad(orig, g):
    x = orig.args[0]
    layout = orig.attrs.get("layout") or "NCHW"
    shape = _shape4(x)
    count = shape[layout.index("H")] * shape[layout.index("W")]
    return [_op("broadcast_to_like", _div(g, _c(float(count), x)), x)]


def _variance_grad(orig, g):
    x, m = orig.args
    shape = [int(d) for d in x.checked_type.shape]
    axes = _reduce_axes(orig)
    count = 1
    for ax in axes:
        count *= shape[ax]
    denom = count - 1 if orig.attrs.get("unbiased") else count
    if not orig.attrs.get("keepdims"):
        for ax in axes:
            g = _op("expand_dims", g, axis=ax, num_newaxis=1)
    diff = _sub(x, m)
    dx = _mul(_mul(_c(2.0 / denom, x), g), diff)
    return [dx, _csl(_op("negative", dx), m)]


def _shape4(e):
    return tuple(int(d) for d in _typed(e).checked_type.shape)


_GRADS = {
    "add": _add_grad, "subtract": _subtract_grad, "multiply": _multiply_grad,
    "divide": _divide_grad, "negative": _negative_grad, "nn.softmax": _softmax_grad,
    "nn.log_softmax": _log_softmax_grad, "nn.bias_add": _bias_add_grad,
    "reshape": lambda o, g: [_op("reshape_like", g, o.args[0])],
    "reshape_like": _reshape_like_grad,
    "squeeze": lambda o, g: [_op("reshape_like", g, o.args[0])],
    "expand_dims": lambda o, g: [_op("reshape_like", g, o.args[0])],
    "nn.batch_flatten": lambda o, g: [_op("reshape_like", g, o.args[0])],
    "transpose": _transpose_grad, "cast": _cast_grad, "sum": _sum_grad, "mean": _mean_grad,
    "nn.dense": _dense_grad, "nn.batch_matmul": _batch_matmul_grad, "clip": _clip_grad,
    "where": _where_grad, "maximum": _minmax_grad("greater_equal"),
    "minimum": _minmax_grad("less_equal"), "concatenate": _concatenate_grad,
    "copy": lambda o, g: [g], "annotation.checkpoint": lambda o, g: [g],
    "nn.matmul": _matmul_grad, "nn.conv2d": _conv2d_grad,
    "nn.cross_entropy": _cross_entropy_grad(False), "strided_slice": _strided_slice_grad,
    "nn.global_avg_pool2d": _global_avg_pool2d_grad, "variance": _variance_grad,
    "nn.cross_entropy_with_logits": _cross_entropy_grad(True),
    "contrib_reverse_reshape": lambda o, g: [_op("reshape_like", g, o.args[0])],
    "one_hot": _one_hot_grad, "max": _max_min_grad, "min": _max_min_grad,
    "zeros": _zero_grads, "ones": _zero_grads, "stack": _stack_grad,
    "cast_like": lambda o, g: [_op("cast_like", g, o.args[0]), _op("zeros_like", o.args[1])],
    **{name: _zero_grads for name in ("equal", "not_equal", "less", "less_equal", "greater",
                                      "greater_equal", "sign", "floor", "ceil", "round",
                                      "trunc")},
    "zeros_like": _zero_grads, "ones_like": _zero_grads, "collapse_sum_like": None,
    "broadcast_to_like": None,
}
_GRADS.update({name: _unary(rule) for name, rule in _UNARY.items()})
_GRADS["collapse_sum_like"] = lambda o, g: [_op("broadcast_to_like", g, o.args[0]),
                                            _op("zeros_like", o.args[1])]
_GRADS["broadcast_to_like"] = lambda o, g: [_csl(g, o.args[0]), _op("zeros_like", o.args[1])]

for _name, _fn in _GRADS.items():
    if _name in registry.list_op_names():
        register_gradient(_name, _fn, level=1)


# ----------------------------------------------------------------------------- the transform
def _sum_all(items: List[Expr]) -> Expr:
    out = items[0]
    for e in items[1:]:
        out = _add(out, e)
    return out


def gradient(expr: Function, mod=None, mode: str = "higher_order") -> Function:
    """The gradient function of ``expr`` (see the module docstring): ``mode`` is
    "higher_order" or "first_order"."""
    if mode not in ("higher_order", "first_order"):
        raise TVMError(f"gradient: unknown mode {mode!r} (higher_order or first_order)")
    if not isinstance(expr, Function):
        raise TVMError(f"gradient: expected a relay Function, got {type(expr).__name__}")
    infer_type(expr)
    body = to_graph_normal_form(expr.body)  # dataflow lets only name shared values
    if body is not expr.body:
        infer_type(body)
    nodes = post_order(body)
    for n in nodes:
        if not isinstance(n, (Call, Tuple, TupleGetItem, Var, Constant)):
            raise TVMError(f"gradient: {type(n).__name__} is not supported (only dataflow "
                           "functions are differentiated)")
        if isinstance(n, Call) and not isinstance(n.op, Op):
            raise TVMError("gradient: calls of functions are not supported")
    adj: Dict[int, List[Expr]] = {}  # tensor-valued nodes: contributions
    tup_adj: Dict[int, Dict[int, List[Expr]]] = {}  # tuple-valued nodes: per field

    def seed(e: Expr) -> None:
        t = e.checked_type
        if isinstance(t, TupleType):
            for i, _ in enumerate(t.fields):
                f = _typed(TupleGetItem(e, i))
                tup_adj.setdefault(id(e), {}).setdefault(i, []).append(
                    _typed(_op("ones_like", f)))
        else:
            adj.setdefault(id(e), []).append(_typed(_op("ones_like", e)))
    seed(body)

    def tuple_grad(e: Expr) -> Expr:
        parts = tup_adj.get(id(e), {})
        fields = []
        for i in range(len(e.checked_type.fields)):
            got = parts.get(i)
            fields.append(_sum_all(got) if got else
                          _typed(_op("zeros_like", _typed(TupleGetItem(e, i)))))
        return _typed(Tuple(fields))

    def give(target: Expr, g: Expr) -> None:
        if isinstance(target.checked_type, TupleType):
            g = _typed(g)
            for i in range(len(target.checked_type.fields)):
                field = g.fields[i] if isinstance(g, Tuple) else _typed(TupleGetItem(g, i))
                tup_adj.setdefault(id(target), {}).setdefault(i, []).append(field)
        else:
            adj.setdefault(id(target), []).append(_typed(g))

    for n in reversed(nodes):
        if isinstance(n.checked_type, TupleType):
            if id(n) not in tup_adj:
                continue
            g = tuple_grad(n)
        else:
            if id(n) not in adj:
                continue
            g = _typed(_sum_all(adj[id(n)]))
        if isinstance(n, TupleGetItem):
            tup_adj.setdefault(id(n.tuple_value), {}).setdefault(n.index, []).append(g)
        elif isinstance(n, Tuple):
            for i, f in enumerate(n.fields):
                give(f, g.fields[i] if isinstance(g, Tuple) else TupleGetItem(g, i))
        elif isinstance(n, Call):
            fgrad = n.op.get_attr(NAME)
            if fgrad is None:
                raise TVMError(f"gradient: operator {n.op.name} has no registered gradient "
                               "(relay.op.register_gradient)")
            grads = fgrad(n, g)
            if len(grads) != len(n.args):
                raise TVMError(f"gradient: the gradient of {n.op.name} gave {len(grads)} "
                               f"values for {len(n.args)} arguments")
            for a, ga in zip(n.args, grads):
                give(a, ga)
    grads = []
    for p in expr.params:
        if not isinstance(p.checked_type, TensorType):
            raise TVMError(f"gradient: parameter %{p.name_hint} is not a tensor")
        got = adj.get(id(p))
        grads.append(_sum_all(got) if got else _op("zeros_like", p))
    out = Function(expr.params, Tuple([body, Tuple(grads)]), None, expr.type_params,
                   expr.attrs)
    return infer_type(out)
