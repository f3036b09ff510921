"""Reverse-mode automatic differentiation of TE programs (classic ``te.gradient``).

The adjoint of each tensor between the output and the inputs is propagated backwards, one
compute op at a time. For ``Y[y] = f(y)`` (or ``sum over k of g(y, k)``) and an input ``X``,
the derivative of the body is a sum of terms, one per load ``X[idx(y, k)]``: a coefficient
(the chain rule's product) that applies where ``idx(y, k) == x``. The contribution to the
adjoint of ``X`` is then, per term::

    dX[p, x] = sum over (y, k) with idx(y, k) == x of  dY[p, y] * coefficient(y, k)

Each index equation whose expression is linear with a unit coefficient in a summed variable
solves that variable (``i + di == x`` gives ``di = x - i``) under a range guard, so
element-wise ops, broadcasts, transposes, matrix products and convolutions get gradients
with no summation over the output's whole domain; an equation left unsolved (a strided or
non-linear index) becomes a condition of the remaining sum. Sum reductions are
differentiated; other reducers (max, argmax) raise.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

from ..arith.analyzer import Analyzer
from ..arith.linear import detect_linear_equation
from ..error import TVMError
from ..ir import dtype as _dt
from ..tir import expr as E
from ..tir import op as _op
from ..tir.functor import Visitor, collect_vars, substitute
from .operation import ComputeOp, PlaceholderOp, compute, reduce_axis
from .tensor import Tensor

#: a derivative term: the index equations (load index, target variable) and the coefficient
Term = Tuple[List[Tuple[E.PrimExpr, E.Var]], E.PrimExpr]

_UNARY = {
    "exp": lambda u, y: y,
    "log": lambda u, y: 1.0 / u,
    "sqrt": lambda u, y: 0.5 / y,
    "tanh": lambda u, y: 1.0 - y * y,
    "sigmoid": lambda u, y: y * (1.0 - y),
    "sin": lambda u, y: _op.cos(u),
    "cos": lambda u, y: -_op.sin(u),
    "fabs": lambda u, y: _op.if_then_else(u < 0, _op.const(-1.0, u.dtype),
                                          _op.const(1.0, u.dtype)),
    "rsqrt": lambda u, y: -0.5 * y / u,
    "erf": lambda u, y: 1.1283791670955126 * _op.exp(-u * u),
}


def gradient(output: Tensor, inputs: Sequence[Tensor],
             head: Optional[Tensor] = None) -> List[Tensor]:
    """The gradients of ``output`` with respect to ``inputs`` (``te.gradient``).

    Parameters
    ----------
    output : Tensor
        A floating-point tensor computed from ``inputs``.
    inputs : list of Tensor
        The tensors to differentiate with respect to.
    head : Tensor, optional
        The adjoint of ``output``, of shape ``prefix + output.shape``; by default the
        identity of shape ``output.shape + output.shape`` (the result is then the Jacobian).

    Returns
    -------
    list of Tensor
        One per input, of shape ``prefix + input.shape``.
    """
    if not isinstance(output, Tensor):
        raise TVMError(f"te.gradient: output must be a Tensor, got {type(output).__name__}")
    inputs = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
    if not inputs or not all(isinstance(t, Tensor) for t in inputs):
        raise TVMError("te.gradient: inputs must be a non-empty list of Tensors")
    if not _dt.is_float(output.dtype):
        raise TVMError(f"te.gradient: the output must be floating-point, got {output.dtype}")
    if head is None:
        head = _identity(output)
    elif tuple(head.shape[len(head.shape) - len(output.shape):]) != tuple(output.shape) \
            and len(output.shape):
        raise TVMError(f"te.gradient: head's shape {list(head.shape)} must end with the "
                       f"output's {list(output.shape)}")
    prefix = list(head.shape[:len(head.shape) - len(output.shape)])
    order = _ops_between(output, inputs)
    adjoint: Dict[Tuple[int, int], List[Tensor]] = {_key(output): [head]}
    for op in order:
        for i in range(op.num_outputs):
            parts = adjoint.pop((id(op), i), None)
            if parts is None:
                continue
            adj = _total(parts)
            if isinstance(op, PlaceholderOp) or any(_key(t) == (id(op), i) for t in inputs):
                adjoint[(id(op), i)] = [adj]
                if isinstance(op, PlaceholderOp):
                    continue
            if not isinstance(op, ComputeOp):
                raise TVMError(f"te.gradient: cannot differentiate through {op.name} "
                               f"({type(op).__name__}); only compute ops")
            for x in op.input_tensors:
                contrib = _contribution(op.output(i), x, adj, prefix)
                if contrib is not None:
                    adjoint.setdefault(_key(x), []).append(contrib)
    out = []
    for t in inputs:
        parts = adjoint.get(_key(t))
        out.append(_total(parts) if parts else compute(
            prefix + list(t.shape), lambda *i: _op.const(0.0, output.dtype),
            name=f"{t.op.name}.grad"))
    return out


def _key(t: Tensor) -> Tuple[int, int]:
    return (id(t.op), t.value_index)


def _total(parts: List[Tensor]) -> Tensor:
    if len(parts) == 1:
        return parts[0]
    return compute(parts[0].shape, lambda *i: _sum([p(*i) for p in parts]),
                   name=parts[0].op.name.split(".")[0] + ".grad_sum")


def _sum(values):
    out = values[0]
    for v in values[1:]:
        out = out + v
    return out


def _identity(output: Tensor) -> Tensor:
    n = len(output.shape)

    def f(*i):
        cond = _op.const(True, "bool")
        for a, b in zip(i[:n], i[n:]):
            cond = _op.logical_and(cond, a == b)
        return _op.if_then_else(cond, _op.const(1.0, output.dtype),
                                _op.const(0.0, output.dtype))
    return compute(list(output.shape) * 2, f, name=f"{output.op.name}.identity")


def _ops_between(output: Tensor, inputs: Sequence[Tensor]) -> list:
    """The ops from ``output`` back to ``inputs`` that depend on an input, consumers first
    (a reverse topological order)."""
    targets = {id(t.op) for t in inputs}
    post, seen, depends = [], set(), {}
    stack = [(output.op, False)]
    while stack:
        op, done = stack.pop()
        if done:
            depends[id(op)] = id(op) in targets or any(
                depends.get(id(t.op), False) for t in op.input_tensors)
            post.append(op)
            continue
        if id(op) in seen:
            continue
        seen.add(id(op))
        stack.append((op, True))
        if id(op) not in targets:
            stack.extend((t.op, False) for t in op.input_tensors)
    return [op for op in reversed(post) if depends[id(op)]]


# ------------------------------------------------------------------------- derivatives
def _diff(e, x, xvars: Sequence[E.Var]) -> List[Term]:
    """The derivative of expression ``e`` with respect to the element ``x[xvars]`` (``x`` a
    Tensor), or to ``x`` itself when it is a Var (no index equations then)."""
    if isinstance(x, E.Var) and e is x:
        return [([], _op.const(1.0, e.dtype))]
    if isinstance(e, E.ProducerLoad):
        p = e.producer
        if getattr(p, "op", None) is x.op and getattr(p, "value_index", 0) == x.value_index:
            return [(list(zip(e.indices, xvars)), _op.const(1.0, e.dtype))]
        return []
    if isinstance(e, (E.IntImm, E.FloatImm, E.Var, E.StringImm)):
        return []
    if isinstance(e, E.Add):
        return _diff(e.a, x, xvars) + _diff(e.b, x, xvars)
    if isinstance(e, E.Sub):
        return _diff(e.a, x, xvars) + _scale(_diff(e.b, x, xvars), -1.0)
    if isinstance(e, E.Mul):
        return _times(_diff(e.a, x, xvars), e.b) + _times(_diff(e.b, x, xvars), e.a)
    if isinstance(e, E.Div):
        return _times(_diff(e.a, x, xvars), 1.0 / e.b) + \
            _times(_diff(e.b, x, xvars), -e.a / (e.b * e.b))
    if isinstance(e, (E.Max, E.Min)):
        pick_a = e.a >= e.b if isinstance(e, E.Max) else e.a <= e.b
        return _guard(_diff(e.a, x, xvars), pick_a) + \
            _guard(_diff(e.b, x, xvars), _op.logical_not(pick_a))
    if isinstance(e, E.Select):
        return _guard(_diff(e.true_value, x, xvars), e.condition) + \
            _guard(_diff(e.false_value, x, xvars), _op.logical_not(e.condition))
    if isinstance(e, E.Cast):
        if not _dt.is_float(e.dtype):
            return []
        return [(eqs, _op.cast(e.dtype, c)) for eqs, c in _diff(e.value, x, xvars)]
    if isinstance(e, E.Call):
        name = str(e.op).replace("tir.", "")
        if name == "if_then_else":
            cond, a, b = e.args
            return _guard(_diff(a, x, xvars), cond) + \
                _guard(_diff(b, x, xvars), _op.logical_not(cond))
        if name in _UNARY:
            inner = _diff(e.args[0], x, xvars)
            return _times(inner, _UNARY[name](e.args[0], e)) if inner else []
        if name in ("floor", "ceil", "round", "trunc", "nearbyint", "sign"):
            return []  # piecewise constant
        if name == "pow":
            a, b = e.args
            da, db = _diff(a, x, xvars), _diff(b, x, xvars)
            return _times(da, b * _op.power(a, b - 1.0)) + _times(db, e * _op.log(a))
        if any(_diff(a, x, xvars) for a in e.args):
            raise TVMError(f"te.gradient: cannot differentiate {name}() of {x.op.name}")
        return []
    if isinstance(e, E.Reduce):
        raise TVMError("te.gradient: a reduction inside an expression is not supported")
    if not isinstance(x, E.Var) and _reads(e, x):
        raise TVMError(f"te.gradient: cannot differentiate {type(e).__name__} of {x.op.name}")
    return []


def _reads(e, x: Tensor) -> bool:
    """Whether expression ``e`` loads from tensor ``x``."""
    found = []

    class _Find(Visitor):
        def visit_ProducerLoad(self, load):
            p = load.producer
            if getattr(p, "op", None) is x.op and getattr(p, "value_index", 0) == x.value_index:
                found.append(load)
            self.generic(load)

    _Find().visit(e)
    return bool(found)


def _times(terms: List[Term], factor) -> List[Term]:
    return [(eqs, c * factor) for eqs, c in terms]


def _scale(terms: List[Term], k: float) -> List[Term]:
    return [(eqs, c * _op.const(k, c.dtype)) for eqs, c in terms]


def _guard(terms: List[Term], cond) -> List[Term]:
    return [(eqs, _op.if_then_else(cond, c, _op.const(0.0, c.dtype))) for eqs, c in terms]


def _is_sum(r: E.Reduce) -> bool:
    comb = r.combiner
    res = comb.result[r.value_index] if hasattr(comb, "result") else None
    if not isinstance(res, E.Add):
        return False
    lhs, rhs = comb.lhs[r.value_index], comb.rhs[r.value_index]
    return {id(res.a), id(res.b)} == {id(lhs), id(rhs)}


def _combiner_slope(y: Tensor, r: E.Reduce) -> E.PrimExpr:
    """For ``y[i] = R over k of g(i, k)`` with a commutative combiner ``f`` other than a
    sum: the derivative of ``y[i]`` by the term ``g(i, k)``, ``df/drhs`` at (the reduction
    of the other terms, ``g(i, k)``); the other terms' reduction is a stage of its own."""
    if len(r.source) != 1:
        raise TVMError(f"te.gradient: {y.op.name} reduces tuples (argmax-like); only "
                       "single-valued reductions are differentiated")
    comb = r.combiner
    lhs, rhs, result = comb.lhs[0], comb.rhs[0], comb.result[0]
    slope = _sum([c for _, c in _diff(result, rhs, [])] or [_op.const(0.0, result.dtype)])
    ivars = [iv.var for iv in y.op.axis]
    kvars = [iv.var for iv in r.axis]

    def others(*idx):
        i, k0 = idx[:len(ivars)], idx[len(ivars):]
        axes = [reduce_axis((iv.dom.min, iv.dom.min + iv.dom.extent), name=iv.var.name)
                for iv in r.axis]
        sub = dict(zip(ivars, i))
        sub.update({v: ax.var for v, ax in zip(kvars, axes)})
        differ = _op.const(False, "bool")
        for ax, k, iv in zip(axes, k0, r.axis):
            differ = _op.logical_or(differ, ax.var != k + iv.dom.min)
        cond = _op.logical_and(substitute(r.condition, sub), differ)
        return E.Reduce(comb, (substitute(r.source[0], sub),), tuple(axes), cond, 0, ())

    rest = compute(list(y.shape) + [iv.dom.extent for iv in r.axis], others,
                   name=f"{y.op.name}.others")
    at = [k - iv.dom.min for k, iv in zip(kvars, r.axis)]
    return substitute(slope, {lhs: rest(*ivars, *at), rhs: r.source[0]})


# ------------------------------------------------------------------------ contributions
def _contribution(y: Tensor, x: Tensor, adj: Tensor, prefix: list) -> Optional[Tensor]:
    """The part of the adjoint of ``x`` that flows back through ``y = compute(...)``."""
    op = y.op
    body = op.body[y.value_index]
    red_axes: list = []
    xvars = [E.Var(f"ax{i}", "int32") for i in range(len(x.shape))]
    if isinstance(body, E.Reduce):
        red_axes = list(body.axis)
        src = body.source[body.value_index]
        terms = _diff(src, x, xvars)
        if terms and not _is_sum(body):
            terms = _times(terms, _combiner_slope(y, body))
        if not (isinstance(body.condition, E.IntImm) and body.condition.value):
            terms = _guard(terms, body.condition)
    else:
        terms = _diff(body, x, xvars)
    if not terms:
        return None
    if not _dt.is_float(y.dtype):
        raise TVMError(f"te.gradient: {op.name} is {y.dtype}: only floating-point tensors "
                       "are differentiated")
    pvars = [E.Var(f"p{i}", "int32") for i in range(len(prefix))]
    ranges = {iv.var: iv.dom for iv in list(op.axis) + red_axes}
    yvars = [iv.var for iv in op.axis]
    stages = [_term_stage(eqs, coef, adj(*pvars, *yvars), ranges, pvars, xvars, prefix, x,
                          f"{x.op.name}.{op.name}.grad{n}")
              for n, (eqs, coef) in enumerate(terms)]
    return _total(stages)


def _term_stage(eqs, coef, head_load, ranges, pvars, xvars, prefix, x: Tensor, name: str):
    """One term's contribution as a compute stage: solve what the index equations allow,
    sum over the rest under the remaining conditions."""
    ana = Analyzer()
    value = head_load * coef
    free = dict(ranges)  # the summed variables still free
    conds = []
    vmap: Dict[E.Var, E.PrimExpr] = {}
    for idx, xv in eqs:
        idx = ana.simplify(substitute(idx, vmap))
        names = list(free)
        lin = detect_linear_equation(idx, names) if names else []
        solved = False
        for v, c in zip(names, lin[:-1] if lin else []):
            if isinstance(c, E.IntImm) and c.value in (1, -1) and v in collect_vars(idx):
                rest = ana.simplify(idx - c * v)
                sol = ana.simplify((xv - rest) * c.value)
                dom = free.pop(v)
                conds = [substitute(cd, {v: sol}) for cd in conds]
                vmap = {k: substitute(val, {v: sol}) for k, val in vmap.items()}
                vmap[v] = sol
                conds.append(_op.logical_and(sol >= dom.min, sol < dom.min + dom.extent))
                solved = True
                break
        if not solved:
            conds.append(idx == xv)
    value = substitute(value, vmap)
    cond = None
    for cd in conds:
        cd = ana.simplify(cd)
        if isinstance(cd, E.IntImm) and cd.value:
            continue
        cond = cd if cond is None else _op.logical_and(cond, cd)
    zero = _op.const(0.0, value.dtype)

    def f(*idx):
        sub = dict(zip(list(pvars) + list(xvars), idx))
        axes = [reduce_axis((dom.min, dom.min + dom.extent), name=v.name)
                for v, dom in free.items()]
        sub.update({v: ax.var for v, ax in zip(free, axes)})
        val = substitute(value, sub)
        if cond is not None:
            val = _op.if_then_else(substitute(cond, sub), val, zero)
        return _op.sum(val, axis=axes) if axes else val

    return compute(prefix + list(x.shape), f, name=name)


__all__ = ["gradient"]
