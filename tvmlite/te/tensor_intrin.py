"""``te.decl_tensor_intrin``: a tensor intrinsic declared with a TE compute (what it computes)
and a function building its implementation over buffers (how), for ``s[T].tensorize``.

Tensorizing lowers through the TensorIR engine's ``tensorize``: the description becomes a
PrimFunc (``te.create_prim_func``), the implementation's buffers bind the matched regions.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence

from ..arith import Analyzer
from ..error import TVMError
from ..tir import op as _op
from ..tir.buffer import Buffer, decl_buffer
from ..tir.expr import IntImm, IterVar, PrimExpr, ProducerLoad, Range, Reduce, Var
from ..tir.functor import Mutator, collect_vars, substitute
from ..tir.stmt import Evaluate, Stmt
from .create_prim_func import create_prim_func_with_info
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
        engine's tensorize.

        Variables the description uses without defining them (classic lets it name an
        IterVar of the tensorized stage, ``xo * 16 + i < m``) stay free: they match the same
        variables of the scheduled block (see :meth:`with_vars`)."""
        if self._desc is None:
            self._desc = create_prim_func_with_info(
                list(self.inputs) + list(self.op.outputs)
                + [v for v in self.scalar_params if isinstance(v, Var)], check_vars=False)[0]
        return (self._desc, list(self.buffers), self.body, self.reduce_init,
                self.reduce_update)

    def with_vars(self, vmap: Dict[Var, PrimExpr]) -> "_BoundIntrin":
        """This intrinsic with free variables of its description and implementation replaced
        (TE's tensorize maps the stage's IterVars to the engine's loops)."""
        return _BoundIntrin(self, vmap)

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


class _IntrinMatcher(Mutator):
    """A stage's compute body rewritten onto a tensor intrinsic's: the tensorized region's
    axes become the intrinsic's (shifted by the region's start), axes held at one value
    that value, and inputs the intrinsic's placeholders indexed from the region's start."""

    def __init__(self, op: ComputeOp, out_dom: Dict[IterVar, Range],
                 in_region: Dict[Tensor, List[Range]], intrin: TensorIntrin):
        iop = intrin.op
        if not isinstance(op, ComputeOp) or not isinstance(iop, ComputeOp):
            raise TVMError("tensorize: only compute stages and compute intrinsics match")
        inputs = list(op.input_tensors)
        if len(inputs) != len(intrin.inputs):
            raise TVMError(f"tensorize {intrin.name}: the stage reads {len(inputs)} tensors, "
                           f"the intrinsic {len(intrin.inputs)}")
        ana = Analyzer()
        self.inputs: Dict[int, tuple] = {}
        for t, it in zip(inputs, intrin.inputs):
            region = list(in_region[t])
            start = len(region) - len(it.shape)
            if start < 0 or not all(_is_one(ana.simplify(r.extent)) for r in region[:start]):
                raise TVMError(f"tensorize {intrin.name}: input dimension mismatch, expected "
                               f"shape {list(it.shape)}, given region {region}")
            self.inputs[id(t)] = (it, start, region)
        self.vmap: Dict[Var, PrimExpr] = {}
        self.axes: Dict[int, IterVar] = {}
        for mine, theirs, what in ((op.axis, iop.axis, "output"),
                                   (op.reduce_axis, iop.reduce_axis, "reduction")):
            lead = len(mine) - len(theirs)
            if lead < 0:
                raise TVMError(f"tensorize {intrin.name}: {what} dimension mismatch")
            for i, iv in enumerate(mine):
                r = out_dom[iv]
                if i < lead:
                    if not _is_one(ana.simplify(r.extent)):
                        raise TVMError(f"tensorize {intrin.name}: {what} dimension mismatch "
                                       f"({iv.var.name} is not fixed in the region)")
                    self.vmap[iv.var] = r.min
                else:
                    target = theirs[i - lead]
                    self.vmap[iv.var] = _op.add(target.var, r.min)
                    self.axes[id(iv)] = target

    def visit_Var(self, v):
        return self.vmap.get(v, v)

    visit_SizeVar = visit_Var

    def visit_ProducerLoad(self, e):
        idx = [self.visit(i) for i in e.indices]
        entry = self.inputs.get(id(e.producer))
        if entry is None:
            return ProducerLoad(e.producer, tuple(idx))
        it, start, region = entry
        return ProducerLoad(it, tuple(_op.sub(idx[i], region[i].min)
                                      for i in range(start, len(idx))))

    def visit_Reduce(self, e):
        axis = tuple(self.axes[id(a)] for a in e.axis if id(a) in self.axes)
        return Reduce(e.combiner, self.visit(e.source), axis, self.visit(e.condition),
                      e.value_index, self.visit(e.init))


def _is_one(e) -> bool:
    return isinstance(e, IntImm) and e.value == 1


def match_tensorize_body(stage, out_dom: Dict[IterVar, Range],
                         in_region: Dict[Tensor, List[Range]],
                         intrin: TensorIntrin) -> List[PrimExpr]:
    """The bodies of ``stage``'s compute rewritten onto ``intrin``'s axes and placeholders
    over the region ``te.schedule``'s tensorize region inference gives (classic
    ``MatchTensorizeBody``): equal to the intrinsic's bodies when the stage computes what it
    describes."""
    m = _IntrinMatcher(stage.op, out_dom, in_region, intrin)
    return [m.visit(b) for b in stage.op.body]


class _BoundIntrin:
    """A :class:`TensorIntrin` with some free variables substituted, for one tensorize."""

    def __init__(self, intrin: TensorIntrin, vmap: Dict[Var, PrimExpr]):
        self.intrin = intrin
        self.vmap = dict(vmap)
        self.name = intrin.name

    def as_engine_intrin(self):
        desc, bufs, body, reset, update = self.intrin.as_engine_intrin()
        used = collect_vars(desc.body)
        for x in (body, reset, update):
            if x is not None:
                used |= collect_vars(x)
        vmap = {v: e for v, e in self.vmap.items() if v in used}
        if not vmap:
            return desc, bufs, body, reset, update
        desc = desc.with_body(substitute(desc.body, vmap))
        body, reset, update = (None if x is None else substitute(x, vmap)
                               for x in (body, reset, update))
        return desc, bufs, body, reset, update

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
