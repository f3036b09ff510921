"""Building tensor expressions: ``placeholder``, ``compute``, ``extern`` and axes."""
from __future__ import annotations

import functools
import inspect
import numbers
from typing import Any, Callable, Dict, List, Optional, Sequence

from ..arith import Analyzer
from ..error import TVMError
from ..ir import dtype as _dt
from ..tir import op as _op
from ..tir.buffer import Buffer, decl_buffer
from ..tir.expr import IntImm, IterVar, IterVarType, PrimExpr, Range, Reduce, SizeVar, Var
from ..tir.functor import post_order_visit
from ..tir.stmt import Evaluate, Stmt
from .tensor import (
    ComputeOp,
    ExternOp,
    PlaceholderOp,
    ScanOp,
    Tensor,
    TensorComputeOp,
    TensorSlice,
)
from .tensor_intrin import TensorIntrinCall


# ---------------------------------------------------------------------------- helpers
def _convert_shape(shape, what: str = "shape") -> tuple:
    if isinstance(shape, Tensor):
        raise TypeError(f"{what} must be a tuple of dimensions, not a Tensor (use A.shape)")
    if isinstance(shape, (numbers.Integral, PrimExpr, IterVar)):
        shape = (shape,)
    out = []
    for s in shape:
        if isinstance(s, numbers.Integral) and not isinstance(s, bool):
            s = int(s)  # numpy integers: int32 dimensions when they fit, as Python ints do
        elif isinstance(s, float) and s.is_integer():
            s = int(s)  # classic accepts ``N / bn`` (Python 3 true division) as a dimension
        e = _op.convert(s)
        if not _dt.is_integral(e.dtype) or _dt.is_bool(e.dtype):
            raise TypeError(f"{what}: dimension {s!r} must be an integer, not {e.dtype}")
        if isinstance(e, IntImm) and e.value < 0:
            raise ValueError(f"{what}: dimension {e.value} is negative")
        out.append(e)
    return tuple(out)


class TagScope:
    """``with te.tag_scope("elemwise"):`` (or as a decorator) sets the default compute tag."""

    _current: Optional["TagScope"] = None

    def __init__(self, tag: str):
        self.tag = tag
        self._old: Optional[TagScope] = None

    def __enter__(self):
        if TagScope._current is not None:
            raise ValueError("nested op_tag is not allowed for now")
        self._old, TagScope._current = TagScope._current, self
        return self

    def __exit__(self, *args):
        TagScope._current = self._old

    def __call__(self, fdecorate: Callable) -> Callable:
        @functools.wraps(fdecorate)
        def tagged(*args, **kwargs):
            with self:
                return fdecorate(*args, **kwargs)

        return tagged


def tag_scope(tag: str) -> TagScope:
    """The tag that ``te.compute`` calls made inside get by default."""
    return TagScope(tag)


# ---------------------------------------------------------------------------- variables
def var(name: str = "tindex", dtype: str = "int32", span=None) -> Var:
    """A symbolic scalar variable (``te.var``)."""
    return Var(name, _dt.canonical(dtype))


def size_var(name: str = "size", dtype: str = "int32", span=None) -> SizeVar:
    """A symbolic non-negative variable, for shapes (``te.size_var``)."""
    return SizeVar(name, _dt.canonical(dtype))


def _to_range(dom, what: str) -> Range:
    if isinstance(dom, Range):
        return dom
    if isinstance(dom, (tuple, list)):
        if len(dom) != 2:
            raise ValueError(f"{what}: domain must be a (begin, end) pair, got {dom!r}")
        return Range.make(dom[0], dom[1])
    raise TypeError(f"{what}: domain must be a (begin, end) pair or a Range, got {dom!r}")


def reduce_axis(dom, name: str = "rv", thread_tag: str = "", span=None) -> IterVar:
    """A reduction axis over ``dom = (begin, end)`` (``te.reduce_axis``)."""
    rng = _to_range(dom, "reduce_axis")
    dtype = rng.extent.dtype if _dt.is_integral(rng.extent.dtype) else "int32"
    return IterVar(rng, Var(name, dtype), IterVarType.CommReduce, thread_tag)


def thread_axis(dom=None, tag: str = "", name: str = "", span=None) -> IterVar:
    """A thread axis, e.g. ``te.thread_axis("threadIdx.x")`` (``te.thread_axis``)."""
    if isinstance(dom, str):
        tag, dom = dom, None
    if not tag:
        raise ValueError("tag must be given as Positional or keyword argument")
    name = name or tag
    rng = None if dom is None else _to_range(dom, "thread_axis")
    return IterVar(rng, Var(name, "int32"), IterVarType.ThreadIndex, tag)


# ---------------------------------------------------------------------------- placeholder
def placeholder(shape, dtype: Optional[str] = None, name: str = "placeholder") -> Tensor:
    """A symbolic input tensor (``te.placeholder``); dtype defaults to float32."""
    if not isinstance(name, str):
        raise TypeError(f"placeholder: name must be a str, got {name!r}")
    dtype = "float32" if dtype is None else _dt.canonical(dtype)
    return PlaceholderOp(name, _convert_shape(shape), dtype).output(0)


# ---------------------------------------------------------------------------- compute
def _arg_names(fcompute: Callable, ndim: int, varargs_names) -> List[str]:
    try:
        spec = inspect.getfullargspec(fcompute)
    except TypeError as e:
        raise TypeError(f"fcompute must be a Python function, got {fcompute!r}") from e
    if spec.varkw is not None:
        raise TypeError("Variable keyword arguments not supported in fcompute")
    if spec.kwonlyargs:
        raise TypeError("Keyword arguments are not supported in fcompute")
    args = list(spec.args)
    if inspect.ismethod(fcompute) and args:
        args = args[1:]
    if spec.defaults:
        raise TypeError("Default arguments not supported in fcompute")
    if spec.varargs is not None:
        rest = ndim - len(args)
        if varargs_names is not None:
            if len(varargs_names) != rest:
                raise ValueError(f"varargs_names has {len(varargs_names)} names but "
                                 f"{rest} dimension(s) are left for *{spec.varargs}")
            return args + list(varargs_names)
        return args + [f"i{k}" for k in range(max(rest, 0))]
    return args


def _check_body(body: Sequence[PrimExpr], name: str) -> None:
    """TVM's rules: a reduction is the whole expression, all outputs reduce alike."""
    def no_nested_reduce(e):
        def f(x):
            if isinstance(x, Reduce):
                raise TVMError(f"compute {name}: Reduction can only occur at the top level of "
                               "compute (wrap the whole expression in te.sum/te.max ...)")
        post_order_visit(e, f)

    first = body[0]
    if isinstance(first, Reduce):
        for k, b in enumerate(body):
            if not isinstance(b, Reduce):
                raise TVMError(f"compute {name}: output {k} is not a reduction while output 0 "
                               "is; all outputs of a reduction must be reductions")
            if (b.combiner is not first.combiner or b.axis != first.axis
                    or b.source != first.source or b.value_index != k):
                raise TVMError(f"compute {name}: the reductions of a multi-output compute must "
                               "come from one tuple reducer call, in order")
            for e in b.source + (b.condition,) + tuple(b.init):
                no_nested_reduce(e)
    else:
        for b in body:
            no_nested_reduce(b)


def compute(shape, fcompute: Callable, name: str = "compute", tag: str = "",
            attrs: Optional[Dict[str, Any]] = None, varargs_names: Optional[List[str]] = None):
    """A tensor of ``shape`` whose element ``[i, j, ...]`` is ``fcompute(i, j, ...)``.

    The axes are named after ``fcompute``'s parameters (``lambda *i`` gives ``i0, i1, ...``).
    A tuple-valued ``fcompute`` (e.g. a tuple reducer such as argmax) gives several outputs,
    returned as a tuple of Tensors.
    """
    if not isinstance(name, str):
        raise TypeError(f"compute: name must be a str, got {name!r}")
    if TagScope._current is not None and not tag:
        tag = TagScope._current.tag
    shape = _convert_shape(shape)
    ndim = len(shape)
    names = _arg_names(fcompute, ndim, varargs_names)
    mismatch = ValueError(f"Number of args to fcompute does not match dimension, "
                          f"args={len(names)}, dimension={ndim}")
    if len(names) > ndim:
        raise mismatch
    axis = []
    for n, s in zip(names, shape):
        axis.append(IterVar(Range(IntImm(s.dtype, 0), s), Var(n, s.dtype), IterVarType.DataPar))
    body = fcompute(*[iv.var for iv in axis])
    if isinstance(body, TensorIntrinCall):
        # classic TensorComputeOp: the dimensions past fcompute's arguments lie inside the
        # intrinsic (opaque axes ``ax0, ax1, ...``)
        for k, s in enumerate(shape[len(names):]):
            axis.append(IterVar(Range(IntImm(s.dtype, 0), s), Var(f"ax{k}", s.dtype),
                                IterVarType.Opaque))
        op = TensorComputeOp(name, tag, attrs, axis, body.reduce_axis, len(names),
                             body.intrin, body.tensors, body.regions, body.scalar_inputs)
        outs = op.outputs
        return outs[0] if len(outs) == 1 else outs
    if len(names) != ndim:
        raise mismatch
    if isinstance(body, (tuple, list)):
        body = [_op.convert(b) for b in body]
        if not body:
            raise ValueError(f"compute {name}: fcompute returned an empty tuple")
    else:
        body = [_op.convert(body)]
    for b in body:
        if _dt.is_handle(b.dtype):
            raise TypeError(f"compute {name}: the body must be a numeric expression, got {b!r}")
    _check_body(body, name)
    op = ComputeOp(name, tag, attrs, axis, body)
    outs = op.outputs
    return outs[0] if len(outs) == 1 else outs


# ---------------------------------------------------------------------------- extern
def extern(shape, inputs: Sequence[Tensor], fcompute: Callable, name: str = "extern",
           dtype=None, in_buffers=None, out_buffers=None, tag: str = "",
           attrs: Optional[Dict[str, Any]] = None):
    """Tensors computed by an arbitrary statement (``te.extern``).

    ``fcompute(ins, outs)`` receives the input and output Buffers and returns a Stmt, or an
    expression such as ``tvm.tir.call_packed("f", ins[0], outs[0])``.
    """
    if TagScope._current is not None and not tag:
        tag = TagScope._current.tag
    if isinstance(shape, (numbers.Integral, PrimExpr)):
        shape = [(shape,)]
    elif isinstance(shape, (tuple, list)) and (not shape or not isinstance(shape[0], (
            tuple, list))):
        shape = [shape]
    shapes = [_convert_shape(s) for s in shape]
    inputs = list(inputs) if isinstance(inputs, (tuple, list)) else [inputs]
    for t in inputs:
        if not isinstance(t, Tensor):
            raise TypeError(f"extern {name}: inputs must be Tensors, got {t!r}")
    if in_buffers is not None:
        in_buffers = [in_buffers] if isinstance(in_buffers, Buffer) else list(in_buffers)
        if len(in_buffers) != len(inputs):
            raise ValueError(f"extern {name}: {len(inputs)} inputs but {len(in_buffers)} "
                             "in_buffers")
    if out_buffers is not None:
        out_buffers = [out_buffers] if isinstance(out_buffers, Buffer) else list(out_buffers)
        if len(out_buffers) != len(shapes):
            raise ValueError(f"extern {name}: {len(shapes)} outputs but {len(out_buffers)} "
                             "out_buffers")
    if dtype is None:
        types = {t.dtype for t in inputs}
        if len(types) != 1:
            raise ValueError("Cannot infer output type, please provide dtype argument")
        dtype = [types.pop()] * len(shapes)
    elif isinstance(dtype, str):
        dtype = [_dt.canonical(dtype)] * len(shapes)
    else:
        dtype = [_dt.canonical(d) for d in dtype]
    if len(dtype) != len(shapes):
        raise ValueError(f"extern {name}: {len(shapes)} outputs but {len(dtype)} dtypes")
    # as classic: the default buffers take any element offset (``elem_offset`` variables)
    ins = in_buffers or [decl_buffer(t.shape, t.dtype, t.op.name,
                                     elem_offset=Var("elem_offset", "int32")) for t in inputs]
    outs = out_buffers or [decl_buffer(s, d, name, elem_offset=Var("elem_offset", "int32"))
                           for s, d in zip(shapes, dtype)]
    body = fcompute(ins, outs)
    if isinstance(body, (PrimExpr, TensorSlice)) or isinstance(body, numbers.Number):
        body = Evaluate(_op.convert(body))
    if not isinstance(body, Stmt):
        raise TypeError(f"extern {name}: fcompute must return a Stmt or an expression, "
                        f"got {body!r}")
    op = ExternOp(name, tag, attrs, inputs, ins, outs, body)
    res = list(op.outputs)
    return res[0] if len(res) == 1 else res


def _touched_buffers(body: Stmt):
    """The buffers ``body`` loads from and the buffers it stores to (two id-keyed dicts)."""
    from ..tir.expr import BufferLoad
    from ..tir.stmt import BufferStore
    reads: Dict[int, Buffer] = {}
    writes: Dict[int, Buffer] = {}

    def visit(x) -> None:
        if isinstance(x, BufferLoad):
            reads[id(x.buffer)] = x.buffer
        elif isinstance(x, BufferStore):
            writes[id(x.buffer)] = x.buffer

    post_order_visit(body, visit)
    return reads, writes


def extern_primfunc(input_tensors: Sequence[Tensor], primfunc, **kwargs):
    """Tensors computed by inlining a TIR PrimFunc's body into an extern op
    (``te.extern_primfunc``).

    Parameters
    ----------
    input_tensors : the tensors bound, in order, to the PrimFunc's input buffers: those of its
        parameters (in parameter order) that the body reads.
    primfunc : the PrimFunc; its buffers become the op's placeholders.
    kwargs : passed on to :func:`extern` (``name``, ``tag``, ``attrs``).

    Returns
    -------
    The output tensor, or a list of them. The outputs are the parameter buffers that are
    written and never read; with none, the last buffer that is both read and written (an
    in-place update) is the output and no longer an input.
    """
    from ..tir.function import PrimFunc
    if not isinstance(primfunc, PrimFunc):
        raise TypeError(f"extern_primfunc: expected a tir.PrimFunc, got {type(primfunc).__name__}")
    input_tensors = list(input_tensors) if isinstance(input_tensors, (list, tuple)) \
        else [input_tensors]
    reads, writes = _touched_buffers(primfunc.body)
    ordered = [primfunc.buffer_map[p] for p in primfunc.params if p in primfunc.buffer_map]
    ins = [b for b in ordered if id(b) in reads]
    outs = [b for b in ordered if id(b) in writes and id(b) not in reads]
    if not ins:
        raise TVMError("extern_primfunc: the PrimFunc reads no parameter buffer")
    if not any(id(b) in writes for b in ordered):
        raise TVMError("extern_primfunc: the PrimFunc writes no parameter buffer")
    if not outs:
        inplace = [b for b in ins if id(b) in writes]
        outs = [inplace[-1]]
        ins = [b for b in ins if b is not outs[0]]
    if len(ins) != len(input_tensors):
        raise TVMError(f"extern_primfunc: {len(input_tensors)} input tensors given but the "
                       f"PrimFunc has {len(ins)} input buffers "
                       f"({', '.join(b.name for b in ins)})")
    ana = Analyzer()
    for k, (t, b) in enumerate(zip(input_tensors, ins)):
        if not isinstance(t, Tensor):
            raise TypeError(f"extern_primfunc: input {k} must be a Tensor, got {t!r}")
        if len(t.shape) != len(b.shape) or not all(
                ana.can_prove_equal(_op.convert(x), _op.convert(y))
                for x, y in zip(t.shape, b.shape)):
            raise TVMError(f"extern_primfunc: input {k} ({t.name}) has shape {list(t.shape)} but "
                           f"the PrimFunc's buffer {b.name} has shape {list(b.shape)}; give the "
                           "inputs in the order of the PrimFunc's parameters")
    return extern([b.shape for b in outs], input_tensors, lambda _ins, _outs: primfunc.body,
                  dtype=[b.dtype for b in outs], in_buffers=ins, out_buffers=outs, **kwargs)


# ---------------------------------------------------------------------------- scan
def scan(init, update, state_placeholder, inputs=None, name: str = "scan", tag: str = "",
         attrs: Optional[Dict[str, Any]] = None):
    """A recurrence over the first dimension (``te.scan``).

    Rows ``[0, init.shape[0])`` of the result are ``init``; every later row ``t`` is
    ``update[t]``, which reads earlier rows through ``state_placeholder`` (``s[t - 1, i]``).
    Lists of tensors give a multi-output scan; a single tensor is returned for one output.
    """
    def as_list(x, what):
        x = list(x) if isinstance(x, (list, tuple)) else [x]
        for t in x:
            if not isinstance(t, Tensor):
                raise TypeError(f"scan {name}: {what} must be Tensors, got {t!r}")
        return x

    init, update = as_list(init, "init"), as_list(update, "update")
    state = as_list(state_placeholder, "state_placeholder")
    inputs = as_list(inputs, "inputs") if inputs is not None else []
    if not len(init) == len(update) == len(state) or not init:
        raise TVMError(f"scan {name}: init, update and state_placeholder must have the same "
                       f"(non-zero) length, got {len(init)}, {len(update)}, {len(state)}")
    ana = Analyzer()
    for i, (a, u, p) in enumerate(zip(init, update, state)):
        if not a.dtype == u.dtype == p.dtype:
            raise TVMError(f"scan {name}: output {i}: init ({a.dtype}), update ({u.dtype}) "
                           f"and state ({p.dtype}) dtypes differ")
        if not len(a.shape) == len(u.shape) == len(p.shape) or not p.shape:
            raise TVMError(f"scan {name}: output {i}: init, update and state must have the "
                           "same number of dimensions (at least one, the time axis)")
        for k, (x, y) in enumerate(zip(u.shape, p.shape)):
            if not ana.can_prove_equal(x, y):
                raise TVMError(f"scan {name}: output {i}: dimension {k} of update ({x}) and "
                               f"state ({y}) differ")
        for k in range(1, len(a.shape)):
            if not ana.can_prove_equal(a.shape[k], p.shape[k]):
                raise TVMError(f"scan {name}: output {i}: dimension {k} of init "
                               f"({a.shape[k]}) and state ({p.shape[k]}) differ")
        if not ana.can_prove_equal(a.shape[0], init[0].shape[0]):
            raise TVMError(f"scan {name}: every init must have {init[0].shape[0]} rows")
    lo = init[0].shape[0]
    axis = IterVar(Range(lo, ana.simplify(_op.sub(update[0].shape[0], lo))),
                   Var(name + ".idx", lo.dtype), IterVarType.Ordered)
    op = ScanOp(name, tag, attrs, axis, init, update, state, inputs)
    res = list(op.outputs)
    return res[0] if len(res) == 1 else res


__all__ = ["placeholder", "compute", "extern", "scan", "var", "size_var", "reduce_axis",
           "thread_axis", "tag_scope", "TagScope"]
