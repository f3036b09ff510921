"""``tvm.tir.IndexMap``: a function from one index tuple to another (a buffer or block layout)."""
from __future__ import annotations

import inspect
from typing import Callable, Dict, List, Optional, Sequence, Tuple, Union

from . import op as _op
from .expr import Add, FloorDiv, FloorMod, IntImm, Mul, PrimExpr, Range, Sub, Var
from .functor import collect_vars, substitute


class _AxisSeparator:
    """The marker an index map returns between the axis groups of a multi-level layout."""

    def __repr__(self) -> str:
        return "AXIS_SEPARATOR"


AXIS_SEPARATOR = _AxisSeparator()


class IndexMap:
    """``final_indices`` as expressions of ``initial_indices`` (``tvm.tir.IndexMap``).

    Parameters
    ----------
    initial_indices : list of Var
        The input indices.
    final_indices : list of PrimExpr
        The output indices, in terms of ``initial_indices``.
    inverse_index_map : IndexMap, optional
        Accepted for classic compatibility; tvmlite derives inverses where it needs them.
    """

    AXIS_SEPARATOR = AXIS_SEPARATOR

    def __init__(self, initial_indices: Sequence[Var], final_indices: Sequence[PrimExpr],
                 inverse_index_map: Optional["IndexMap"] = None):
        self.initial_indices: Tuple[Var, ...] = tuple(initial_indices)
        self.final_indices: Tuple[PrimExpr, ...] = tuple(_op.convert(e)
                                                         for e in final_indices)
        self.inverse_index_map = inverse_index_map
        self._separators: Tuple[int, ...] = ()

    @staticmethod
    def from_func(mapping_function: Callable, ndim: Optional[int] = None,
                  inverse_index_map: Optional["IndexMap"] = None,
                  index_dtype: str = "int32") -> "IndexMap":
        """The index map computed by ``mapping_function`` on fresh index variables.

        Parameters
        ----------
        mapping_function : callable
            Takes one PrimExpr per input index (``*args`` absorbs any number, keyword-only
            parameters take the last ones) and returns a list of PrimExprs.
        ndim : int, optional
            The number of input indices; required when the function has ``*args``.
        inverse_index_map : IndexMap, optional
            Kept as given.
        index_dtype : str
            The dtype of the input index variables.

        Returns
        -------
        IndexMap
        """
        imap, seps = IndexMap.from_func_with_separators(mapping_function, ndim,
                                                        inverse_index_map, index_dtype)
        if seps:
            raise ValueError("IndexMap.from_func: the function returns AXIS_SEPARATOR; use "
                             "from_func_with_separators")
        return imap

    @staticmethod
    def from_func_with_separators(mapping_function: Callable, ndim: Optional[int] = None,
                                  inverse_index_map: Optional["IndexMap"] = None,
                                  index_dtype: str = "int32") -> Tuple["IndexMap", List[int]]:
        """:meth:`from_func`, also returning the positions of ``AXIS_SEPARATOR`` markers
        (counted in output indices before each marker).

        Returns
        -------
        index_map : IndexMap
        axis_separators : list of int
        """
        params = inspect.signature(mapping_function).parameters.values()
        positional = [p.name for p in params
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        var_args = next((p.name for p in params if p.kind == p.VAR_POSITIONAL), None)
        kw_only = [p.name for p in params if p.kind == p.KEYWORD_ONLY]
        fixed = len(positional) + len(kw_only)
        if ndim is None:
            if var_args is not None:
                raise ValueError("IndexMap.from_func: ndim is required for a function with "
                                 f"*{var_args}")
            ndim = fixed
        if ndim < fixed or (var_args is None and ndim != fixed):
            raise ValueError(f"IndexMap.from_func: the function takes {fixed} indices"
                             f"{' or more' if var_args else ''}, the buffer has {ndim}")
        n_var = ndim - fixed
        names = positional + [f"{var_args}_{k}" for k in range(n_var)] + kw_only
        ivars = [Var(n, index_dtype) for n in names]
        args = ivars[:len(positional) + n_var]
        kwargs = dict(zip(kw_only, ivars[len(positional) + n_var:]))
        out = mapping_function(*args, **kwargs)
        if not isinstance(out, (list, tuple)):
            out = [out]
        finals: List[PrimExpr] = []
        seps: List[int] = []
        for e in out:
            if e is AXIS_SEPARATOR:
                seps.append(len(finals))
            else:
                finals.append(e)
        imap = IndexMap(ivars, finals, inverse_index_map)
        imap._separators = tuple(seps)
        return imap, seps

    def map_indices(self, indices: Sequence[PrimExpr]) -> List[PrimExpr]:
        """The output indices for the input ``indices``."""
        if len(indices) != len(self.initial_indices):
            raise ValueError(f"IndexMap: {len(indices)} indices given, the map takes "
                             f"{len(self.initial_indices)}")
        vmap = {v: _op.convert(i) for v, i in zip(self.initial_indices, indices)}
        return [substitute(e, vmap) for e in self.final_indices]

    def map_shape(self, shape: Sequence[PrimExpr]) -> List[PrimExpr]:
        """The shape of a buffer of ``shape`` stored in this layout (each output's upper
        bound plus one)."""
        from ..arith.int_set import relax_region

        if len(shape) != len(self.initial_indices):
            raise ValueError(f"IndexMap: a shape of {len(shape)} dimensions given, the map "
                             f"takes {len(self.initial_indices)}")
        dom = {v: Range(IntImm(v.dtype, 0), _op.convert(n))
               for v, n in zip(self.initial_indices, shape)}
        try:
            boxes = relax_region(list(self.final_indices), dom)
        except ValueError:
            # a symbolic divisor (``i // n``): each output is a digit of a known range
            return [_digit_extent(e, list(self.initial_indices), list(shape))
                    for e in self.final_indices]
        for k, b in enumerate(boxes):
            r = _simplify(_op.ge(b.min, 0))
            if not (isinstance(r, IntImm) and r.value):
                raise ValueError(f"output index {k} of the index map can be negative")
        return [_simplify(_op.add(b.min, b.extent)) for b in boxes]

    def non_surjective_inverse(self, shape: Sequence[PrimExpr]
                               ) -> Tuple["IndexMap", PrimExpr]:
        """The inverse over the transformed shape, and the predicate (over the inverse's
        inputs) that is true exactly on padding: points no input of ``shape`` maps to.

        The map's outputs must be digits ``(L // d) % m`` of linear mixed-radix combinations
        ``L`` of the inputs (plus a constant offset), each input in one ``L``: the layouts
        of ``split``/``fuse``/reorder style (``lambda i: [i // 4, i % 4]``). Raises
        ``ValueError`` for any other map.
        """
        return _inverse(self, list(shape))

    def inverse(self, shape: Sequence[PrimExpr]) -> "IndexMap":
        """The inverse over the transformed shape; ``ValueError`` when the map pads."""
        inv, pad = self.non_surjective_inverse(shape)
        if not (isinstance(pad, IntImm) and pad.value == 0):
            raise ValueError(f"IndexMap.inverse: the map pads (at {pad}); use "
                             "non_surjective_inverse")
        return inv

    def __repr__(self) -> str:
        # Python that rebuilds the map (a schedule trace prints it)
        outs = [repr(e) for e in self.final_indices]
        for k in reversed(self._separators):
            outs.insert(k, "tir.IndexMap.AXIS_SEPARATOR")
        ins = ", ".join(v.name for v in self.initial_indices)
        return f"lambda {ins}: [{', '.join(outs)}]"


def _simplify(e: PrimExpr, dom=None) -> PrimExpr:
    from ..arith import Analyzer

    ana = Analyzer()
    for v, r in (dom or {}).items():
        ana.bind(v, r)
    return ana.simplify(e)


def linear_form(e: PrimExpr, inputs: Sequence[Var]) -> Optional[Tuple[Dict[Var, int], int]]:
    """``e`` as ``sum(coef[v] * v) + const`` over ``inputs`` with integer coefficients;
    None when it is not."""
    if isinstance(e, IntImm):
        return {}, e.value
    if isinstance(e, Var):
        return ({e: 1}, 0) if any(e is v for v in inputs) else None
    if isinstance(e, (Add, Sub)):
        a, b = linear_form(e.a, inputs), linear_form(e.b, inputs)
        if a is None or b is None:
            return None
        sign = 1 if isinstance(e, Add) else -1
        coef = dict(a[0])
        for v, c in b[0].items():
            coef[v] = coef.get(v, 0) + sign * c
        return {v: c for v, c in coef.items() if c}, a[1] + sign * b[1]
    if isinstance(e, Mul):
        for x, y in ((e.a, e.b), (e.b, e.a)):
            if isinstance(y, IntImm):
                inner = linear_form(x, inputs)
                if inner is None:
                    return None
                return {v: c * y.value for v, c in inner[0].items()}, inner[1] * y.value
    return None


def _digit(e: PrimExpr, inputs: Sequence[Var]):
    """``e`` as ``(L, d, m)``, meaning ``(L // d) % m`` (``m`` None: no modulus) with ``L``
    linear over ``inputs``; None when it is not of that form."""
    d: PrimExpr = IntImm(e.dtype, 1)
    m: Optional[PrimExpr] = None
    if isinstance(e, FloorMod):
        e, m = e.a, e.b
    if isinstance(e, FloorDiv):
        e, d = e.a, e.b
    lin = linear_form(e, inputs)
    if lin is None or collect_vars(d) & set(inputs) or (m is not None
                                                        and collect_vars(m) & set(inputs)):
        return None
    return lin, d, m


def _span(coef: Dict[Var, int], ext: Dict[Var, PrimExpr], dtype: str) -> PrimExpr:
    """How many values ``sum(coef[v] * v)`` takes over ``v < ext[v]``: a mixed-radix number
    (coefficients 1, e_0, e_0 * e_1, ...); ``ValueError`` for any other combination."""
    span: PrimExpr = IntImm(dtype, 1)
    for v, c in sorted(coef.items(), key=lambda t: t[1]):
        if not _equal(IntImm(dtype, c), span) and _const(ext[v]) != 1:
            raise ValueError(f"IndexMap: cannot invert: input {v.name} has coefficient {c} "
                             f"where {span} is needed")
        span = _op.mul(span, ext[v]) if _const(ext[v]) != 1 else span
    return _simplify(span)


def _digit_extent(e: PrimExpr, inputs: List[Var], shape: List[PrimExpr]) -> PrimExpr:
    dg = _digit(e, inputs)
    if dg is None or (dg[0][1] < 0):
        raise ValueError("the index map's outputs have no bounds over the buffer's shape")
    (coef, base), d, m = dg
    if m is not None:
        return m
    if not coef:
        return IntImm(e.dtype, base + 1)
    end = _simplify(_op.add(_span(coef, dict(zip(inputs, map(_op.convert, shape))), e.dtype),
                            base))
    if _const(d) == 1:
        return end
    return _op.floordiv(_op.add(_op.floormod(_op.sub(IntImm(e.dtype, 0), end), d), end), d)


def _inverse(imap: IndexMap, shape: List[PrimExpr]) -> Tuple[IndexMap, PrimExpr]:
    inputs = list(imap.initial_indices)
    if len(shape) != len(inputs):
        raise ValueError(f"IndexMap: a shape of {len(shape)} dimensions given, the map takes "
                         f"{len(inputs)}")
    new_shape = imap.map_shape(shape)
    dtype = inputs[0].dtype if inputs else "int32"
    outs = [Var(f"axis{k}", e.dtype) for k, e in enumerate(imap.final_indices)]
    dom = {o: Range(IntImm(o.dtype, 0), n) for o, n in zip(outs, new_shape)}
    ext = {v: _op.convert(n) for v, n in zip(inputs, shape)}
    # group the outputs by the linear combination they are digits of
    groups: List[Tuple[Tuple[Dict[Var, int], int], List[Tuple[PrimExpr, Optional[PrimExpr],
                                                               Var]]]] = []
    for o, e in zip(outs, imap.final_indices):
        if not collect_vars(e) & set(inputs):
            continue  # a constant output: one value, nothing to recover
        dg = _digit(e, inputs)
        if dg is None:
            raise ValueError(f"IndexMap: cannot invert output {e}: not a digit (L // d) % m "
                             "of a linear combination L of the inputs")
        lin, d, m = dg
        for g in groups:
            if g[0] == lin:
                g[1].append((d, m, o))
                break
        else:
            groups.append((lin, [(d, m, o)]))
    final: Dict[Var, PrimExpr] = {}
    pad: PrimExpr = IntImm("bool", 0)
    for (coef, base), digits in groups:
        # the digits must tile L: the lowest divides by 1, each modulus is the next divisor
        digits.sort(key=lambda t: _order(t[0]))
        if _const(digits[0][0]) != 1:
            raise ValueError("IndexMap: cannot invert: the lowest digit of a split must not "
                             "be divided")
        for (d, m, _), (d2, _, _) in zip(digits, digits[1:]):
            if m is None or not _equal(m, _op.floordiv(d2, d)):
                raise ValueError("IndexMap: cannot invert: the digits of a split do not tile "
                                 "its range")
        if digits[-1][1] is not None:
            raise ValueError("IndexMap: cannot invert: the top digit of a split has a modulus")
        lin_inv: Optional[PrimExpr] = None
        for d, _, o in reversed(digits):
            t = o if _const(d) == 1 else _op.mul(o, d)
            lin_inv = t if lin_inv is None else _op.add(lin_inv, t)
        lin_inv = _simplify(lin_inv, dom)
        # the inputs of L, a mixed-radix number: coefficients 1, e_0, e_0 * e_1, ...
        terms = sorted(coef.items(), key=lambda t: t[1])
        span = _span(coef, ext, dtype)
        rel = _op.sub(lin_inv, base) if base else lin_inv
        for k, (v, c) in enumerate(terms):
            x = rel if c == 1 else _op.floordiv(rel, c)
            if k + 1 < len(terms):
                x = _op.floormod(x, ext[v])
            final[v] = _simplify(x, dom)
        # padding: L outside [base, base + span)
        end = _simplify(_op.add(span, base))
        top = digits[-1][0]
        if len(digits) > 1:
            # in the last group of the top digit, at or past the end (classic's form)
            right = _op.logical_and(
                _op.logical_and(_op.ne(_op.floormod(_op.sub(0, end), top), 0),
                                _op.eq(_op.floordiv(lin_inv, top), _op.floordiv(end, top))),
                _op.le(_op.floormod(end, top), _op.floormod(lin_inv, top)))
        else:
            right = _op.le(end, lin_inv)
        if base:
            right = _op.logical_or(_op.lt(lin_inv, base), right)
        pad = _op.logical_or(pad, right)
    for v in inputs:
        if v not in final:
            if _const(ext[v]) != 1:
                raise ValueError(f"IndexMap: cannot invert: input {v.name} is in no output")
            final[v] = IntImm(v.dtype, 0)
    for v in inputs:
        if sum(1 for (coef, _), _ in groups if v in coef) > 1:
            raise ValueError(f"IndexMap: cannot invert: input {v.name} is in two outputs' "
                             "linear combinations")
    pad = _simplify(pad, dom)
    return IndexMap(outs, [final[v] for v in inputs]), pad


def _const(e) -> Optional[int]:
    return e.value if isinstance(e, IntImm) else None


def _order(d: PrimExpr):
    c = _const(d)
    return (0, c) if c is not None else (1, 0)


def _equal(a: PrimExpr, b: PrimExpr) -> bool:
    r = _simplify(_op.eq(a, b))
    return isinstance(r, IntImm) and bool(r.value)


def as_index_map(index_map: Union[IndexMap, Callable], ndim: int,
                 index_dtype: str = "int32") -> Tuple[IndexMap, List[int]]:
    """An :class:`IndexMap` (and axis separators) from an IndexMap or a Python function."""
    if isinstance(index_map, IndexMap):
        return index_map, list(index_map._separators)
    if callable(index_map):
        return IndexMap.from_func_with_separators(index_map, ndim, index_dtype=index_dtype)
    raise TypeError(f"expected an IndexMap or a function, got {type(index_map).__name__}")


__all__ = ["IndexMap", "AXIS_SEPARATOR", "as_index_map"]
