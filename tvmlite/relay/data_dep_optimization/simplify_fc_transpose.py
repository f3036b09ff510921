"""``simplify_fc_transpose.convert``: ``nn.dense(x, transpose(w))`` of a parameter ``w``
becomes ``nn.dense(x, w_T)`` with a new parameter ``w_T`` holding the transposed values (the
transpose is done once, on the data)."""
from __future__ import annotations

from typing import Any, Dict, Tuple

import numpy as np

from ...runtime import ndarray as _nd
from ..expr import Call, Expr, Function, Var, post_order, substitute
from ..op.registry import Op
from ..ty import TensorType


def _transposed_param(e: Expr, params: Dict[str, Any]):
    """The parameter ``w`` when ``e`` is ``transpose(w)`` of a 2-D parameter, else None."""
    if not (isinstance(e, Call) and isinstance(e.op, Op) and e.op.name == "transpose"):
        return None
    w = e.args[0]
    axes = e.attrs.axes
    if not isinstance(w, Var) or w.name_hint not in params:
        return None
    if axes is not None and [int(a) % 2 for a in axes] != [1, 0]:
        return None
    return w if len(np.shape(_value(params[w.name_hint]))) == 2 else None


def _value(v) -> np.ndarray:
    return v.numpy() if isinstance(v, _nd.NDArray) else np.asarray(v)


def convert(func: Function, params: Dict[str, Any]) -> Tuple[Function, Dict[str, Any]]:
    """``(func, params)`` with the transposed dense weights pre-transposed: each
    ``transpose(w)`` feeding an ``nn.dense`` becomes a new parameter ``"<w>.T"``."""
    mapping: Dict[int, Expr] = {}
    new_params = dict(params)
    new_vars = []
    for n in post_order(func.body):
        if isinstance(n, Call) and isinstance(n.op, Op) and n.op.name == "nn.dense" \
                and id(n.args[1]) not in mapping:
            w = _transposed_param(n.args[1], params)
            if w is None:
                continue
            value = np.ascontiguousarray(_value(params[w.name_hint]).T)
            name = f"{w.name_hint}.T"
            v = Var(name, TensorType(value.shape, str(value.dtype)))
            mapping[id(n.args[1])] = v
            new_vars.append(v)
            new_params[name] = _nd.array(value)
    if not mapping:
        return func, new_params
    body = substitute(func.body, mapping)
    used = {id(x) for x in post_order(body) if isinstance(x, Var)}
    kept = [p for p in func.params if id(p) in used]
    for p in func.params:
        if id(p) not in used:
            new_params.pop(p.name_hint, None)
    return Function(kept + new_vars, body, None, func.type_params, func.attrs), new_params
