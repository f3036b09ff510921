"""``tvm.tir.IndexMap``: a function from one index tuple to another (a buffer or block layout)."""
from __future__ import annotations

import inspect
from typing import Callable, List, Optional, Sequence, Tuple, Union

from . import op as _op
from .expr import PrimExpr, Var
from .functor import substitute


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

    def __repr__(self) -> str:
        # Python that rebuilds the map (a schedule trace prints it)
        outs = [repr(e) for e in self.final_indices]
        for k in reversed(self._separators):
            outs.insert(k, "tir.IndexMap.AXIS_SEPARATOR")
        ins = ", ".join(v.name for v in self.initial_indices)
        return f"lambda {ins}: [{', '.join(outs)}]"


def as_index_map(index_map: Union[IndexMap, Callable], ndim: int,
                 index_dtype: str = "int32") -> Tuple[IndexMap, List[int]]:
    """An :class:`IndexMap` (and axis separators) from an IndexMap or a Python function."""
    if isinstance(index_map, IndexMap):
        return index_map, list(index_map._separators)
    if callable(index_map):
        return IndexMap.from_func_with_separators(index_map, ndim, index_dtype=index_dtype)
    raise TypeError(f"expected an IndexMap or a function, got {type(index_map).__name__}")


__all__ = ["IndexMap", "AXIS_SEPARATOR", "as_index_map"]
