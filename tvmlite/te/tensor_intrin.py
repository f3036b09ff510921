"""``te.decl_tensor_intrin``: a tensor intrinsic declared with a TE compute (what it computes)
and a function building its implementation over buffers (how), for ``s[T].tensorize``.

Tensorizing lowers through the TensorIR engine's ``tensorize``: the description becomes a
PrimFunc (``te.create_prim_func``), the implementation's buffers bind the matched regions.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence

from ..error import TVMError
from ..tir import op as _op
from ..tir.buffer import Buffer, decl_buffer
from ..tir.expr import IntImm, IterVar, PrimExpr, ProducerLoad, Range, Var
from ..tir.stmt import Evaluate, Stmt
from .create_prim_func import create_prim_func
from .tensor import ComputeOp, Operation, Tensor, TensorSlice


def _as_stmt(x, what: str) -> Optional[Stmt]:
    if x is None:
        return None
    if isinstance(x, PrimExpr):
        return Evaluate(x)
    if isinstance(x, Stmt):
        return x
    raise TVMError(f"decl_tensor_intrin: {what} must be a Stmt or PrimExpr, got "
                   f"{type(x).__name__}")


class TensorIntrin:
    """A TE tensor intrinsic (``te.decl_tensor_intrin``'s result)."""

    def __init__(self, op: Operation, name: str, inputs: List[Tensor], buffers: List[Buffer],
                 body: Optional[Stmt], reset: Optional[Stmt], update: Optional[Stmt],
                 scalar_params: Sequence[Any] = ()):
        self.op = op
        self.name = name
        self.inputs = inputs
        self.buffers = buffers
        self.body = body
        self.reduce_init = reset
        self.reduce_update = update
        self.scalar_params = list(scalar_params)
        self._desc = None

    def as_engine_intrin(self):
        """``(desc PrimFunc, impl buffers per desc parameter, body, reset, update)`` for the
        engine's tensorize."""
        if self._desc is None:
            self._desc = create_prim_func(list(self.inputs) + list(self.op.outputs)
                                          + [v for v in self.scalar_params
                                             if isinstance(v, Var)])
        return (self._desc, list(self.buffers), self.body, self.reduce_init,
                self.reduce_update)

    def __call__(self, *args, reduce_axis=None) -> "TensorIntrinCall":
        """The intrinsic applied to regions of tensors (``A[i, 0:16]``; a fully indexed
        ``A[i, j]`` is a one-element region) and scalars, in the order of its inputs and
        ``scalar_params``; the result is the body of a ``te.compute``."""
        tensors, regions, scalars = [], [], []
        for a in args:
            if isinstance(a, TensorSlice):
                tensors.append(a.tensor)
                regions.append(a.region())
            elif isinstance(a, ProducerLoad) and isinstance(a.producer, Tensor):
                tensors.append(a.producer)
                regions.append([Range(i, IntImm(i.dtype, 1)) for i in a.indices])
            elif isinstance(a, Tensor):
                tensors.append(a)
                regions.append(TensorSlice(a, ()).region())
            else:
                scalars.append(_op.convert(a))
        if len(tensors) != len(self.inputs):
            raise TVMError(f"tensor intrinsic {self.name} takes {len(self.inputs)} tensor "
                           f"region(s), got {len(tensors)}")
        if len(scalars) != len(self.scalar_params):
            raise TVMError(f"tensor intrinsic {self.name} takes {len(self.scalar_params)} "
                           f"scalar input(s), got {len(scalars)}")
        for t, b in zip(tensors, self.buffers):
            if t.dtype != b.dtype:
                raise TVMError(f"tensor intrinsic {self.name}: {t.name} is {t.dtype} but the "
                               f"intrinsic's buffer {b.name} is {b.dtype}")
        if reduce_axis is None:
            reduce_axis = []
        elif isinstance(reduce_axis, IterVar):
            reduce_axis = [reduce_axis]
        return TensorIntrinCall(self, tensors, regions, list(reduce_axis), scalars)

    def __repr__(self) -> str:
        return f"TensorIntrin({self.name})"


class TensorIntrinCall:
    """``intrin(A[i, 0:16], ..., reduce_axis=k)``: what ``te.compute`` turns into a
    :class:`~tvmlite.te.tensor.TensorComputeOp`."""

    def __init__(self, intrin: TensorIntrin, tensors: List[Tensor], regions: List[List[Range]],
                 reduce_axis: List[IterVar], scalar_inputs: List[PrimExpr]):
        self.intrin = intrin
        self.tensors = tensors
        self.regions = regions
        self.reduce_axis = reduce_axis
        self.scalar_inputs = scalar_inputs


def decl_tensor_intrin(op: Operation, fcompute: Callable, name: str = "tensor_intrin",
                       binds: Optional[Dict[Tensor, Buffer]] = None,
                       scalar_params: Optional[Sequence[Any]] = None,
                       default_buffer_params: Optional[Dict[str, Any]] = None) -> TensorIntrin:
    """Declare a tensor intrinsic.

    Parameters
    ----------
    op : the ComputeOp describing what the intrinsic computes (over placeholders).
    fcompute : ``fcompute(ins, outs)`` with the buffers of ``op``'s inputs and outputs; returns
        the implementation — a Stmt (or PrimExpr), or for a reduction a tuple ``(body,
        reset, update)``: ``body`` computes the tile from scratch, ``reset`` zeroes it and
        ``update`` accumulates into it (any may be None).
    binds : buffers to use for some tensors (e.g. with symbolic ``strides`` and
        ``offset_factor``, so the intrinsic can read a tile of a larger array).
    scalar_params : variables of ``op``'s body passed to the implementation:
        ``fcompute(ins, outs, scalar_params)``.
    default_buffer_params : keyword arguments of ``decl_buffer`` for the default buffers.
    """
    if not isinstance(op, ComputeOp):
        raise TVMError(f"decl_tensor_intrin expects a ComputeOp, got {type(op).__name__}")
    binds = dict(binds or {})
    params = dict(default_buffer_params or {})
    inputs = list(op.input_tensors)
    tensors = inputs + list(op.outputs)
    bufs = []
    for t in tensors:
        b = binds.get(t)
        if b is None:
            b = decl_buffer(t.shape, t.dtype, t.op.name, **params)
        if not isinstance(b, Buffer):
            raise TVMError(f"decl_tensor_intrin: binds[{t.op.name}] must be a tir.Buffer")
        bufs.append(b)
    if scalar_params:  # classic: fcompute(ins, outs, scalar_params)
        for v in scalar_params:
            if not isinstance(v, PrimExpr):
                raise TVMError(f"decl_tensor_intrin: scalar_params must be variables, got {v!r}")
        res = fcompute(bufs[:len(inputs)], bufs[len(inputs):], list(scalar_params))
    else:
        res = fcompute(bufs[:len(inputs)], bufs[len(inputs):])
    if isinstance(res, (tuple, list)):
        if len(res) != 3:
            raise TVMError("decl_tensor_intrin: fcompute returns a statement or a tuple "
                           f"(body, reset, update), got {len(res)} items")
        body, reset, update = (_as_stmt(x, w) for x, w in zip(res, ("body", "reset",
                                                                      "update")))
    else:
        body, reset, update = _as_stmt(res, "the body"), None, None
    return TensorIntrin(op, name, inputs, bufs, body, reset, update, scalar_params or ())
