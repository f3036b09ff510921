"""``FoldConstant``: evaluate the operators whose inputs are all constants at compile time.

The constant sub-graphs are compiled together (``relay.build`` of one function returning
every value to fold, this pass disabled inside it) and run once by the graph executor; each
folded value becomes a ``Constant``. A weight transposed by the frontend, or scaled by a
constant, is then computed once instead of on every run. An ``If`` whose condition folds to
a constant becomes the branch it takes, a field of a tuple literal the field itself;
``shape_of`` and ``ndarray_size`` become constants
(shapes are static). ``nn.dropout`` is left as it is (a training op that
``SimplifyInference`` removes), as in classic relay. A ``let`` binding a constant is
dropped, the constant put at each use of its variable (so what reads it folds in turn).
QNN operators (``qnn.*``) are folded only with ``fold_qnn=True`` (classic's default keeps
them, for passes such as FakeQuantizationToInteger that match them).
"""
from __future__ import annotations

from typing import Dict, List

import numpy as np

from ...contrib.graph_executor import GraphModule
from ...ir.module import IRModule
from ...ir.transform import ModulePass, Pass, PassContext
from ...runtime import ndarray as _nd
from ...runtime.device import cpu
from ..expr import (
    Call,
    Constant,
    Expr,
    Function,
    If,
    Let,
    Tuple,
    TupleGetItem,
    children,
    post_order,
    with_children,
)
from ..op.registry import Op
from ..ty import TensorType, TupleType
from .infer_type import infer_type

NAME = "FoldConstant"
#: operators never evaluated at compile time
_NOT_FOLDED = ("nn.dropout",)


def _foldable_nodes(body: Expr, fold_qnn: bool = False) -> Dict[int, Expr]:
    """Operator calls (and tuples/projections) computed from constants only."""
    const: Dict[int, Expr] = {}
    for n in post_order(body):
        if isinstance(n, Constant):
            const[id(n)] = n
        elif isinstance(n, Call) and isinstance(n.op, Op) and n.op.name not in _NOT_FOLDED \
                and not n.op.name.startswith("dyn.") \
                and (fold_qnn or not n.op.name.startswith("qnn.")):  # dyn.: DynamicToStatic
            if all(id(a) in const for a in n.args):
                const[id(n)] = n
        elif isinstance(n, Tuple):
            if all(id(f) in const for f in n.fields):
                const[id(n)] = n
        elif isinstance(n, TupleGetItem) and id(n.tuple_value) in const:
            const[id(n)] = n
    return const


def fold_function(func: Function, fold_qnn: bool = False) -> Function:
    """``func`` with its constant sub-graphs evaluated (QNN operators too when
    ``fold_qnn``)."""
    infer_type(func)
    if any(isinstance(n, Function) for n in post_order(func.body)):
        return func  # no nested functions, for now
    func = _fold_values(_fold_shapes(_inline_constant_lets(func)), fold_qnn)
    while True:  # a let whose value just folded: its uses may fold now
        inlined = _inline_constant_lets(func)
        if inlined is func:
            break
        func = _fold_values(inlined, fold_qnn)
    return _select_branches_and_fields(func)


def _inline_constant_lets(func: Function) -> Function:
    """``func`` without the lets that bind a ``Constant``: each use of the variable reads
    the constant (classic FoldConstant); ``func`` itself when there are none."""
    bound = {id(n.var): n.value for n in post_order(func.body)
             if isinstance(n, Let) and isinstance(n.value, Constant)}
    if not bound:
        return func
    memo: Dict[int, Expr] = dict(bound)
    for n in post_order(func.body):
        if isinstance(n, Let) and id(n.var) in bound:
            memo[id(n)] = memo.get(id(n.body), n.body)
        elif id(n) not in memo:
            memo[id(n)] = with_children(n, memo)
    return infer_type(Function(func.params, memo[id(func.body)], func.ret_type,
                               func.type_params, func.attrs))


def _fold_shapes(func: Function) -> Function:
    """``func`` with ``shape_of(x)``, ``ndarray_size(x)``, ``zeros_like(x)`` and
    ``ones_like(x)`` replaced by constants: they read only ``x``'s static shape (fused after
    the op computing ``x``, they would leave it out of its own kernel)."""
    memo: Dict[int, Expr] = {}
    changed = False
    for n in post_order(func.body):
        new = with_children(n, memo)
        if (isinstance(n, Call) and isinstance(n.op, Op)
                and n.op.name in ("shape_of", "ndarray_size", "zeros_like", "ones_like")):
            shape = n.args[0].checked_type.shape
            if not all(isinstance(d, int) for d in shape):  # relay.Any: known at run time
                memo[id(n)] = new
                changed |= new is not n
                continue
            if n.op.name.endswith("_like"):
                value = np.full(shape, 0 if n.op.name == "zeros_like" else 1,
                                dtype=n.checked_type.dtype)
            elif n.op.name == "shape_of":
                value = np.array(shape, dtype=n.attrs.dtype)
            else:
                value = np.array(int(np.prod(shape, dtype=np.int64)), dtype=n.attrs.dtype)
            new = Constant(_nd.array(value))
            new._checked_type = n.checked_type
        changed |= new is not n
        memo[id(n)] = new
    if not changed:
        return func
    return Function(func.params, memo[id(func.body)], func.ret_type, func.type_params,
                    func.attrs)


def _select_branches_and_fields(func: Function) -> Function:
    """``func`` with each ``If`` of a constant condition replaced by its taken branch and
    each field of a tuple literal (``(a, b).1``) by the field itself (classic)."""
    memo: Dict[int, Expr] = {}
    changed = False
    for n in post_order(func.body):
        new = with_children(n, memo)
        if isinstance(new, If) and isinstance(new.cond, Constant):
            new = new.true_branch if bool(new.cond.data.numpy()) else new.false_branch
        elif isinstance(new, TupleGetItem) and isinstance(new.tuple_value, Tuple):
            new = new.tuple_value.fields[new.index]
        changed |= new is not n
        memo[id(n)] = new
    if not changed:
        return func
    return infer_type(Function(func.params, memo[id(func.body)], func.ret_type,
                               func.type_params, func.attrs))


def _fold_values(func: Function, fold_qnn: bool = False) -> Function:
    const = _foldable_nodes(func.body, fold_qnn)
    # the tensor values to compute: folded nodes read by something that is not folded
    wanted: List[Expr] = []
    seen = set()

    tuples: Dict[int, List[Expr]] = {}  # a folded tuple value: its fields, computed

    def want(e: Expr) -> None:
        if id(e) not in const or isinstance(e, Constant) or id(e) in seen:
            return
        t = e._checked_type
        if isinstance(t, TupleType) and all(isinstance(f, TensorType) for f in t.fields):
            seen.add(id(e))  # a tuple of tensors (batch_norm's): a tuple of constants
            fields = []
            for i, ft in enumerate(t.fields):
                f = TupleGetItem(e, i)
                f._checked_type = ft
                fields.append(f)
            tuples[id(e)] = fields
            wanted.extend(fields)
        elif isinstance(t, TensorType):
            seen.add(id(e))
            wanted.append(e)

    for n in post_order(func.body):
        if id(n) in const:
            continue
        for k in children(n):
            want(k)
    want(func.body)
    if not wanted:
        return func
    from ..build_module import build
    with PassContext(opt_level=3, disabled_pass=[NAME]):
        factory = build(Function([], Tuple(wanted)), target="llvm")
    gm = GraphModule(factory["default"](cpu()))
    gm.run()
    memo: Dict[int, Expr] = {}
    for i, e in enumerate(wanted):
        c = Constant(_nd.array(gm.get_output(i).numpy()))
        c._checked_type = e._checked_type
        memo[id(e)] = c
    for key, fields in tuples.items():
        memo[key] = Tuple([memo[id(f)] for f in fields])
        memo[key]._checked_type = fields[0].tuple_value._checked_type
    for n in post_order(func.body):
        if id(n) not in memo:
            memo[id(n)] = with_children(n, memo)
    return Function(func.params, memo[id(func.body)], func.ret_type, func.type_params,
                    func.attrs)


def FoldConstant(fold_qnn: bool = False) -> Pass:  # noqa: N802
    """The constant-folding pass (``relay.transform.FoldConstant()``; opt_level 2 in
    ``relay.build``).

    Parameters
    ----------
    fold_qnn : bool
        Whether QNN operators on constants are folded too (classic's default: not).
    """
    def _run(mod: IRModule, ctx: PassContext) -> IRModule:
        from .infer_type import InferType
        out = IRModule({}, mod.attrs)
        for name, func in mod.functions.items():
            out[name] = fold_function(func, fold_qnn) if isinstance(func, Function) else func
        return InferType()(out)  # type-checked after, as classic's function passes are

    return ModulePass(_run, NAME, opt_level=2)


def FoldConstantExpr(expr: Expr, mod: IRModule = None,  # noqa: N802
                     fold_qnn: bool = False) -> Expr:
    """``expr`` with its constant sub-expressions folded (classic
    ``relay.transform.FoldConstantExpr``); ``mod`` is accepted for classic's signature (the
    global functions ``expr`` calls are not folded into it)."""
    from ..analysis import free_vars
    if isinstance(expr, Function):
        return fold_function(expr, fold_qnn)
    return fold_function(Function(free_vars(expr), expr), fold_qnn).body
