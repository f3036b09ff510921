"""Algebraic data types (classic ``relay.adt``): ``TypeData`` declares a type by its
constructors, ``Constructor`` builds a value, ``Match`` takes one apart by ``Clause``s of
patterns. tvmlite runs them on the relay VM (``relay.vm.compile``, ``create_executor``);
type inference, fusion and ``relay.build`` do not take them.
"""
from __future__ import annotations

import zlib
from typing import List, Optional, Sequence

from ..error import TVMError
from .expr import Expr, NodeTuple, Var
from .ty import GlobalTypeVar, RefType, Type, TypeCall, TypeVar  # noqa: F401


class Constructor(Expr):
    """A constructor of an ADT: calling it builds a value with ``tag`` and the fields given
    (classic ``relay.Constructor``). ``tag`` is set by the ``TypeData`` holding it: a
    prefix of the type's name, then its index among the type's constructors."""

    __slots__ = ("name_hint", "inputs", "belong_to", "tag", "type_vars")
    _structural_fields = ("name_hint", "inputs", "belong_to")

    def __init__(self, name_hint: str, inputs: Sequence[Type], belong_to: GlobalTypeVar):
        super().__init__()
        self.name_hint = str(name_hint)
        self.inputs = NodeTuple(inputs)
        self.belong_to = belong_to
        self.tag = -1
        self.type_vars: tuple = ()  # its ADT's type parameters (set by the TypeData)

    def __call__(self, *args: Expr):
        from .expr import Call
        return Call(self, list(args))

    def __repr__(self) -> str:
        return self.name_hint


class TypeData:
    """An ADT's definition: its name ``header``, type parameters and constructors (classic
    ``relay.TypeData``); ``mod[header] = TypeData(...)`` adds it to a module."""

    _is_type_data = True
    _structural_fields = ("header", "type_vars", "constructors")

    def __init__(self, header: GlobalTypeVar, type_vars: Sequence[TypeVar],
                 constructors: Sequence[Constructor]):
        self.header = header
        self.type_vars = NodeTuple(type_vars)
        self.constructors = NodeTuple(constructors)
        # classic's tags: a prefix hashed from the type's name in the top byte, the
        # constructor's index below (unique across a module's ADTs, the same in every module)
        prefix = zlib.crc32(header.name_hint.encode()) & 0xFF
        for i, c in enumerate(self.constructors):
            if not isinstance(c, Constructor):
                raise TVMError(f"TypeData {header.name_hint}: constructor {i} is a "
                               f"{type(c).__name__}, not a relay.Constructor")
            c.tag = (prefix << 24) | i
            c.type_vars = tuple(self.type_vars)

    def __repr__(self) -> str:
        return f"TypeData({self.header!r}, {[c.name_hint for c in self.constructors]})"


class Pattern:
    """Base class of the patterns of a ``Match`` clause."""

    def bound_vars(self) -> List[Var]:
        return []


class PatternWildcard(Pattern):
    """``_``: matches anything."""

    def _structural_value(self) -> str:
        return "_"


class PatternVar(Pattern):
    """Matches anything and binds it to ``var``."""

    _structural_fields = ("var",)

    def __init__(self, var: Var):
        self.var = var

    def bound_vars(self) -> List[Var]:
        return [self.var]


class PatternConstructor(Pattern):
    """Matches a value built by ``constructor`` whose fields match ``patterns``."""

    _structural_fields = ("constructor", "patterns")

    def __init__(self, constructor: Constructor, patterns: Optional[Sequence[Pattern]] = None):
        self.constructor = constructor
        # (a count of patterns that differs from the constructor's fields is refused by type
        # inference, as in classic)
        self.patterns = NodeTuple(patterns or ())

    def bound_vars(self) -> List[Var]:
        return [v for p in self.patterns for v in p.bound_vars()]


class PatternTuple(Pattern):
    """Matches a tuple whose fields match ``patterns``."""

    _structural_fields = ("patterns",)

    def __init__(self, patterns: Optional[Sequence[Pattern]] = None):
        self.patterns = NodeTuple(patterns or ())

    def bound_vars(self) -> List[Var]:
        return [v for p in self.patterns for v in p.bound_vars()]


class Clause:
    """One case of a ``Match``: when ``lhs`` matches, ``rhs`` is the value."""

    _structural_fields = ("lhs", "rhs")

    def __init__(self, lhs: Pattern, rhs: Expr):
        if not isinstance(lhs, Pattern):
            raise TVMError(f"Clause: lhs must be a relay pattern, got {type(lhs).__name__}")
        self.lhs, self.rhs = lhs, rhs


class Match(Expr):
    """``match (data) { clauses }``: the first clause whose pattern matches ``data`` gives
    the value (classic ``relay.Match``)."""

    __slots__ = ("data", "clauses", "complete")
    _structural_fields = ("data", "clauses", "complete")

    def __init__(self, data: Expr, clauses: Sequence[Clause], complete: bool = True):
        super().__init__()
        self.data = data
        self.clauses = NodeTuple(clauses)
        self.complete = bool(complete)

    def _children(self) -> List[Expr]:
        return [self.data] + [c.rhs for c in self.clauses]

    def _bound_vars(self) -> List[Var]:
        return [v for c in self.clauses for v in c.lhs.bound_vars()]


# -------------------------------------------------------------- exhaustiveness of matches
_YES, _NO, _UNKNOWN = range(3)


def _covers(lhs: Pattern, cand: Pattern) -> int:
    """Whether every value of candidate pattern ``cand`` matches ``lhs`` (_YES), none does
    (_NO), or it depends on what ``cand``'s wildcards stand for (_UNKNOWN)."""
    if isinstance(lhs, (PatternWildcard, PatternVar)):
        return _YES
    if isinstance(cand, (PatternWildcard, PatternVar)):
        return _UNKNOWN
    if isinstance(lhs, PatternConstructor):
        if not isinstance(cand, PatternConstructor) or cand.constructor is not lhs.constructor \
                and cand.constructor.tag != lhs.constructor.tag:
            return _NO
        pairs = list(zip(lhs.patterns, cand.patterns))
    else:
        if not isinstance(cand, PatternTuple) or len(cand.patterns) != len(lhs.patterns):
            return _NO
        pairs = list(zip(lhs.patterns, cand.patterns))
    results = [_covers(a, b) for a, b in pairs]
    if _NO in results:
        return _NO
    return _YES if all(r == _YES for r in results) else _UNKNOWN


def _constructors(ctor: Constructor, mod) -> list:
    td = mod.type_definitions.get(ctor.belong_to.name_hint) if mod is not None else None
    if td is None:
        raise TVMError(f"unmatched_cases: the ADT {ctor.belong_to.name_hint} of constructor "
                       f"{ctor.name_hint} is not in the module; pass mod=")
    return list(td.constructors)


def _expand(lhs: Pattern, cand: Pattern, mod) -> list:
    """``cand`` refined along ``lhs`` one step: its wildcard where ``lhs`` names a
    constructor (tuple) becomes each constructor (the tuple) of wildcards."""
    if isinstance(cand, (PatternWildcard, PatternVar)):
        if isinstance(lhs, PatternConstructor):
            return [PatternConstructor(c, [PatternWildcard() for _ in c.inputs])
                    for c in _constructors(lhs.constructor, mod)]
        return [PatternTuple([PatternWildcard() for _ in lhs.patterns])]
    for i, (a, b) in enumerate(zip(lhs.patterns, cand.patterns)):
        if _covers(a, b) == _UNKNOWN:
            out = []
            for e in _expand(a, b, mod):
                fields = list(cand.patterns)
                fields[i] = e
                out.append(PatternConstructor(cand.constructor, fields)
                           if isinstance(cand, PatternConstructor) else PatternTuple(fields))
            return out
    return [cand]


def unmatched_cases(match: Match, mod=None) -> List[Pattern]:
    """The patterns of the values no clause of ``match`` takes (classic
    ``relay.analysis.unmatched_cases``); ``mod`` holds the ADTs' definitions."""
    cands: List[Pattern] = [PatternWildcard()]
    for clause in match.clauses:
        left: List[Pattern] = []
        work = list(cands)
        while work:
            c = work.pop(0)
            r = _covers(clause.lhs, c)
            if r == _NO:
                left.append(c)
            elif r == _UNKNOWN:
                work[:0] = _expand(clause.lhs, c, mod)
        cands = left
    return cands


__all__ = ["unmatched_cases", "TypeVar", "GlobalTypeVar", "TypeCall", "RefType", "Constructor",
           "TypeData", "Pattern", "PatternWildcard", "PatternVar", "PatternConstructor",
           "PatternTuple", "Clause", "Match"]
