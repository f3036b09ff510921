"""Tensors and the operations that produce them (``tvm.te.tensor``).

A :class:`Tensor` is the symbolic output of an :class:`Operation`: a placeholder, a compute or
an extern op. Indexing a tensor, ``A[i, j]``, builds a :class:`tvmlite.tir.ProducerLoad`, which
``te.create_prim_func`` later turns into a load from the tensor's buffer.
"""
from __future__ import annotations

import sys
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ..ir import dtype as _dt
from ..ir.attrs import AttrMap
from ..tir import op as _op
from ..tir.buffer import Buffer
from ..tir.expr import (
    ExprOp,
    IntImm,
    IterVar,
    IterVarType,
    PrimExpr,
    ProducerLoad,
    Range,
    Reduce,
    Var,
)
from ..tir.functor import post_order_visit


def _dim_str(e) -> str:
    if isinstance(e, IntImm) and e.dtype in ("int32", "int64"):
        return str(e.value)
    if isinstance(e, Var):
        return e.name
    try:
        return repr(e)
    except Exception:  # the printer may not be available
        return f"<{type(e).__name__}>"


def expr_equal(a, b) -> bool:
    """Structural equality with variables compared by identity (``n`` equals only ``n``)."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, Var):
        return False
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(expr_equal(x, y) for x, y in zip(a, b))
    if not hasattr(a, "__dataclass_fields__"):
        return a == b if isinstance(a, (int, float, str, type(None))) else False

    if isinstance(a, Buffer):
        return False
    return all(expr_equal(getattr(a, f), getattr(b, f)) for f in a.__dataclass_fields__)


def _dim_equal(a, b) -> bool:
    a, b = _op.convert(a), _op.convert(b)
    if isinstance(a, IntImm) and isinstance(b, IntImm):
        return a.value == b.value
    return expr_equal(a, b)


class Shape(tuple):
    """The shape of a tensor: a tuple of PrimExpr that prints like TVM's Array, ``[100]``.

    Elements take part in arithmetic; ``A.shape == (100,)`` compares the dimensions.
    """

    __slots__ = ()

    def __new__(cls, dims: Sequence = ()):
        return super().__new__(cls, tuple(dims))

    def __repr__(self) -> str:
        return "[" + ", ".join(_dim_str(d) for d in self) + "]"

    __str__ = __repr__

    def __getitem__(self, key):
        r = super().__getitem__(key)
        return Shape(r) if isinstance(key, slice) else r

    def __eq__(self, other) -> bool:
        if not isinstance(other, (tuple, list)):
            return NotImplemented
        return len(self) == len(other) and all(_dim_equal(a, b) for a, b in zip(self, other))

    def __ne__(self, other) -> bool:
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    __hash__ = tuple.__hash__

    def __add__(self, other):
        return tuple(self) + tuple(other)

    def __radd__(self, other):
        return tuple(other) + tuple(self)


def _flatten_indices(indices) -> list:
    out = []
    for x in indices:
        if isinstance(x, (tuple, list)):
            out.extend(_flatten_indices(x))
        else:
            out.append(x)
    return out


def _convert_index(x, tensor: "Tensor") -> PrimExpr:
    if isinstance(x, slice):
        raise TypeError(f"tensor {tensor.name}: slices are not supported in tensor indexing")
    if isinstance(x, TensorSlice):
        x = x.asobject()
    e = _op.convert(x)
    if not _dt.is_integral(e.dtype) or _dt.is_bool(e.dtype) or _dt.lanes(e.dtype) != 1:
        raise TypeError(
            f"tensor {tensor.name}: index {_dim_str(e)} must be a scalar integer, not {e.dtype}")
    return e


def _convert_slice(x: slice, tensor: "Tensor") -> slice:
    if x.step is not None:
        raise TypeError(f"tensor {tensor.name}: a region slice cannot have a step")
    if x.start is None or x.stop is None:
        raise TypeError(f"tensor {tensor.name}: a region slice needs a begin and an end")
    return slice(_convert_index(x.start, tensor), _convert_index(x.stop, tensor))


class Tensor:
    """A symbolic tensor (``tvm.te.Tensor``): output ``value_index`` of ``op``.

    ``A[i, j]``, ``A[(i, j)]``, ``A[i][j]`` and ``A(i, j)`` all load one element. Arithmetic
    operators on tensors are TOPI's broadcasting elementwise operators.
    """

    __slots__ = ("op", "value_index", "shape", "dtype", "__weakref__")
    _ir_object = True  # a classic Object: ``tvm.runtime.convert`` passes it through

    def __init__(self, shape, dtype: str, op: "Operation", value_index: int = 0):
        self.shape = Shape(shape)
        self.dtype = dtype
        self.op = op
        self.value_index = value_index

    # ------------------------------------------------------------------ attributes
    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def name(self) -> str:
        if self.op.num_outputs == 1:
            return self.op.name
        return f"{self.op.name}.v{self.value_index}"

    @property
    def axis(self):
        return self.op.axis

    def same_as(self, other) -> bool:
        return self is other

    def __repr__(self) -> str:
        return f"Tensor(shape={self.shape!r}, op.name={self.op.name})"

    # Identity equality: tensors are dict keys (one Tensor object per op output).
    __hash__ = object.__hash__

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return self is not other

    def __iter__(self):
        raise TypeError(f"tensor {self.name} is not iterable; index it with A[i, ...]")

    def __bool__(self) -> bool:
        return True

    # ------------------------------------------------------------------ element access
    def __call__(self, *indices) -> PrimExpr:
        idx = _flatten_indices(indices)
        if len(idx) != self.ndim:
            raise ValueError(
                f"tensor {self.name} has {self.ndim} dimension(s) but was indexed with "
                f"{len(idx)} index(es)")
        return ProducerLoad(self, tuple(_convert_index(x, self) for x in idx))

    def __getitem__(self, indices):
        if not isinstance(indices, tuple):
            indices = (indices,)
        idx = _flatten_indices(indices)
        if len(idx) > self.ndim:
            raise ValueError(
                f"tensor {self.name} has {self.ndim} dimension(s) but was indexed with "
                f"{len(idx)} index(es)")
        if any(isinstance(x, slice) for x in idx):
            # a region, ``A[i, 0:16]``: only a tensor intrinsic call takes one (classic)
            return TensorSlice(self, tuple(_convert_slice(x, self) if isinstance(x, slice)
                                           else _convert_index(x, self) for x in idx))
        conv = tuple(_convert_index(x, self) for x in idx)
        if len(conv) == self.ndim:
            return ProducerLoad(self, conv)
        return TensorSlice(self, conv)

    # ------------------------------------------------------------------ arithmetic (TOPI)
    def __add__(self, other):
        return _topi().add(self, other)

    def __radd__(self, other):
        return _topi().add(other, self)

    def __sub__(self, other):
        return _topi().subtract(self, other)

    def __rsub__(self, other):
        return _topi().subtract(other, self)

    def __mul__(self, other):
        return _topi().multiply(self, other)

    def __rmul__(self, other):
        return _topi().multiply(other, self)

    def __truediv__(self, other):
        return _topi().divide(self, other)

    def __rtruediv__(self, other):
        return _topi().divide(other, self)

    def __floordiv__(self, other):
        return _topi().floor_divide(self, other)

    def __rfloordiv__(self, other):
        return _topi().floor_divide(other, self)

    def __mod__(self, other):
        return _topi().floor_mod(self, other)

    def __rmod__(self, other):
        return _topi().floor_mod(other, self)

    def __pow__(self, other):
        return _topi().power(self, other)

    def __rpow__(self, other):
        return _topi().power(other, self)

    def __neg__(self):
        return _topi().negative(self)

    def astype(self, dtype: str, span=None) -> "Tensor":
        """The tensor cast to ``dtype`` element-wise (``topi.cast``, as classic)."""
        return _topi().cast(self, dtype)


# Tensor arithmetic is topi's broadcast operators (classic TVM binds them the same way):
# topi registers itself here on import, so te never imports topi.
_TOPI = None


def register_tensor_ops(namespace) -> None:
    """Make ``namespace.add``, ``.subtract``, ... the operators of ``Tensor`` (topi does)."""
    global _TOPI
    _TOPI = namespace


def _topi():
    if _TOPI is None:  # first tensor arithmetic: the root package loads topi on first use
        _ = sys.modules[__name__.partition(".")[0]].topi  # tvmlite.__getattr__ loads it
    return _TOPI


class TensorSlice(ExprOp):
    """A partially indexed tensor, ``A[i]`` of a 2-D ``A``; index further with ``[j]``."""

    __slots__ = ("tensor", "indices")

    def __init__(self, tensor: Tensor, indices: Tuple[PrimExpr, ...]):
        self.tensor = tensor
        self.indices = indices

    def __getitem__(self, indices):
        if not isinstance(indices, tuple):
            indices = (indices,)
        return self.tensor[self.indices + tuple(_flatten_indices(indices))]

    def asobject(self) -> PrimExpr:
        """The element load; all dimensions must be indexed."""
        if any(isinstance(x, slice) for x in self.indices):
            raise TypeError(f"tensor {self.tensor.name}: a region (slice) is not an element; "
                            "only a tensor intrinsic call takes one")
        return self.tensor(*self.indices)

    def region(self) -> List[Range]:
        """The region this slice names: ``[begin, end)`` per slice, one element per index,
        the whole extent of the dimensions left out."""
        out = []
        for x in self.indices:
            if isinstance(x, slice):
                out.append(Range(x.start, _op.sub(x.stop, x.start)))
            else:
                out.append(Range(x, IntImm(x.dtype, 1)))
        for n in self.tensor.shape[len(self.indices):]:
            out.append(Range(IntImm(n.dtype, 0), n))
        return out

    @property
    def dtype(self) -> str:
        return self.tensor.dtype

    def __repr__(self) -> str:
        return f"TensorSlice({self.tensor.name}, {len(self.indices)} of {self.tensor.ndim})"


# ---------------------------------------------------------------------------- operations
class Operation:
    """Base class of the operations that produce tensors."""

    def __init__(self, name: str, tag: str = "", attrs: Optional[Dict[str, Any]] = None):
        self.name = name
        self.tag = tag
        self.attrs = AttrMap(attrs or {})   # classic reading: attrs["n"].value
        self._outputs: Tuple[Tensor, ...] = ()

    @property
    def num_outputs(self) -> int:
        return len(self._outputs)

    def output(self, index: int) -> Tensor:
        """The ``index``-th output tensor (always the same object)."""
        if not 0 <= index < len(self._outputs):
            raise IndexError(f"operation {self.name} has {len(self._outputs)} output(s), "
                             f"asked for output {index}")
        return self._outputs[index]

    @property
    def outputs(self) -> Tuple[Tensor, ...]:
        return self._outputs

    @property
    def input_tensors(self) -> List[Tensor]:
        return []

    def same_as(self, other) -> bool:
        return self is other

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


class PlaceholderOp(Operation):
    """An input tensor (``te.placeholder``)."""

    def __init__(self, name: str, shape, dtype: str):
        super().__init__(name)
        self.shape = Shape(shape)
        self.dtype = dtype
        self._outputs = (Tensor(self.shape, dtype, self, 0),)


class BaseComputeOp(Operation):
    """Operations with spatial ``axis`` and ``reduce_axis`` IterVars."""

    def __init__(self, name, tag, attrs, axis, reduce_axis):
        super().__init__(name, tag, attrs)
        self.axis: Tuple[IterVar, ...] = tuple(axis)
        self.reduce_axis: Tuple[IterVar, ...] = tuple(reduce_axis)


class ComputeOp(BaseComputeOp):
    """A tensor computed elementwise from an expression (``te.compute``)."""

    def __init__(self, name: str, tag: str, attrs, axis: Sequence[IterVar],
                 body: Sequence[PrimExpr]):
        body = tuple(body)
        reduce_axis = body[0].axis if body and isinstance(body[0], Reduce) else ()
        super().__init__(name, tag, attrs, axis, reduce_axis)
        self.body: Tuple[PrimExpr, ...] = body
        shape = tuple(iv.dom.extent for iv in self.axis)
        self._outputs = tuple(Tensor(shape, b.dtype, self, i) for i, b in enumerate(body))
        self._inputs: Optional[List[Tensor]] = None

    @property
    def input_tensors(self) -> List[Tensor]:
        if self._inputs is None:
            self._inputs = collect_input_tensors(self.body)
        return list(self._inputs)


class ExternOp(Operation):
    """An operation whose body is an arbitrary statement over buffers (``te.extern``)."""

    def __init__(self, name: str, tag: str, attrs, inputs: Sequence[Tensor],
                 input_placeholders, output_placeholders, body):
        super().__init__(name, tag, attrs)
        self.inputs: Tuple[Tensor, ...] = tuple(inputs)
        self.input_placeholders = tuple(input_placeholders)
        self.output_placeholders = tuple(output_placeholders)
        self.body = body
        self._outputs = tuple(Tensor(b.shape, b.dtype, self, i)
                              for i, b in enumerate(self.output_placeholders))

    @property
    def input_tensors(self) -> List[Tensor]:
        return list(self.inputs)


class HybridOp(ExternOp):
    """The operation of a hybrid script (``@te.hybrid.script``): an extern-like op whose body
    is the loop nest parsed from Python. ``axis`` are the IterVars of its outermost loops (for
    reading only: tvmlite does not schedule the loops of a hybrid op)."""

    def __init__(self, name: str, tag: str, attrs, inputs: Sequence[Tensor],
                 input_placeholders, output_placeholders, body, axis=()):
        super().__init__(name, tag, attrs, inputs, input_placeholders, output_placeholders,
                         body)
        self.axis = list(axis)


class TensorComputeOp(BaseComputeOp):
    """A tensor computed by calling a tensor intrinsic over regions of its inputs (classic
    ``te.compute(shape, lambda i: intrin(A[i, 0:16], ...))``).

    ``axis`` covers every output dimension; only the first ``schedulable_ndim`` are loops the
    schedule may touch, the others lie inside the intrinsic. ``reduce_axis`` are the reduction
    axes outside the intrinsic (``intrin(..., reduce_axis=k)``)."""

    def __init__(self, name: str, tag: str, attrs, axis: Sequence[IterVar],
                 reduce_axis: Sequence[IterVar], schedulable_ndim: int, intrin,
                 inputs: Sequence[Tensor], input_regions: Sequence[Sequence[Range]],
                 scalar_inputs: Sequence[PrimExpr] = ()):
        super().__init__(name, tag, attrs, axis, reduce_axis)
        self.schedulable_ndim = schedulable_ndim
        self.intrin = intrin
        self.inputs: Tuple[Tensor, ...] = tuple(inputs)
        self.input_regions = tuple(tuple(r) for r in input_regions)
        self.scalar_inputs: Tuple[PrimExpr, ...] = tuple(scalar_inputs)
        shape = tuple(iv.dom.extent for iv in self.axis)
        out_bufs = intrin.buffers[len(intrin.inputs):]
        self._outputs = tuple(Tensor(shape, b.dtype, self, i) for i, b in enumerate(out_bufs))

    @property
    def input_tensors(self) -> List[Tensor]:
        out: List[Tensor] = []
        for t in self.inputs:
            if not any(t is x for x in out):
                out.append(t)
        return out


class ScanOp(Operation):
    """A recurrence over the first dimension (``te.scan``): rows ``[0, init)`` come from
    ``init``, each later row ``t`` from ``update``, which reads earlier rows through
    ``state_placeholder``. Outputs share the state's shape."""

    def __init__(self, name: str, tag: str, attrs, scan_axis: IterVar, init: Sequence[Tensor],
                 update: Sequence[Tensor], state_placeholder: Sequence[Tensor],
                 inputs: Sequence[Tensor] = ()):
        super().__init__(name, tag, attrs)
        self.scan_axis = scan_axis
        self.init: Tuple[Tensor, ...] = tuple(init)
        self.update: Tuple[Tensor, ...] = tuple(update)
        self.state_placeholder: Tuple[Tensor, ...] = tuple(state_placeholder)
        self.inputs: Tuple[Tensor, ...] = tuple(inputs)
        self.spatial_axis_: List[IterVar] = []
        for i, u in enumerate(self.update):
            for k in range(1, len(u.shape)):
                self.spatial_axis_.append(IterVar(
                    Range(IntImm(u.shape[k].dtype, 0), u.shape[k]),
                    Var(f"{name}.out{i}.i{k}", u.shape[k].dtype), IterVarType.Opaque))
        self._outputs = tuple(Tensor(sp.shape, u.dtype, self, i) for i, (sp, u) in
                              enumerate(zip(self.state_placeholder, self.update)))

    @property
    def input_tensors(self) -> List[Tensor]:
        return list(self.init) + list(self.update)


def collect_input_tensors(exprs) -> List[Tensor]:
    """Tensors loaded (``ProducerLoad``) in ``exprs``, each once, in first-use order."""
    seen: Dict[int, Tensor] = {}

    def f(x):
        if isinstance(x, ProducerLoad) and id(x.producer) not in seen:
            seen[id(x.producer)] = x.producer

    for e in exprs:
        post_order_visit(e, f)
    return list(seen.values())


__all__ = ["Tensor", "TensorSlice", "Shape", "Operation", "PlaceholderOp", "BaseComputeOp",
           "ComputeOp", "ExternOp", "ScanOp", "TensorComputeOp"]
