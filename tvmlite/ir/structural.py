"""Structural equality and hashing of IR nodes.

Two IRs are equal when they have the same shape, the same constants and dtypes, and their
variables correspond one-to-one (a variable is matched to its counterpart the first time the
two meet, so names do not matter).

Nodes are compared by their dataclass fields, or, for classes that are not dataclasses (the
relay expressions), by the fields named in their ``_structural_fields`` class attribute; a
field named in ``_structural_optional`` is compared only when neither side is None; a class
with a ``_structural_value()`` method compares (and hashes) by the value it returns.
"""
from __future__ import annotations

import dataclasses
import enum
import hashlib
from typing import Any, Dict, Optional

from ..deep_recursion import deep


def _field_names(obj):
    """The names of the fields that make ``obj``'s structure."""
    if dataclasses.is_dataclass(obj):
        return [f.name for f in dataclasses.fields(obj)]
    return getattr(type(obj), "_structural_fields", ())


def _optional(obj, field: str) -> bool:
    return field in getattr(type(obj), "_structural_optional", ())


def _def_kind(x) -> Optional[str]:
    """``"var"`` or ``"buffer"`` for nodes that compare by binding (their class sets
    ``_structural_def``: ``tir.Var``, ``tir.Buffer``), else None; keeps ir free of tir."""
    return getattr(type(x), "_structural_def", None)

def _path_text(path) -> str:
    """The text of a path kept as nested ``(parent, step)`` pairs (built only on a mismatch,
    so a deep comparison does not copy its path at every level)."""
    steps = []
    while isinstance(path, tuple):
        path, step = path
        steps.append(step)
    return path + "".join(reversed(steps))


class _Mismatch(Exception):
    def __init__(self, path, lhs, rhs, why: str):
        path = _path_text(path)
        super().__init__(path)
        self.path, self.lhs, self.rhs, self.why = path, lhs, rhs, why


# Fields where variables are defined: there two different variables may correspond even
# when free variables must match exactly (``map_free_vars=False``).
_DEFINING = {
    ("For", "loop_var"), ("LetStmt", "var"), ("Let", "var"), ("Allocate", "buffer_var"),
    ("PrimFunc", "params"), ("PrimFunc", "buffer_map"), ("Block", "iter_vars"),
    ("Block", "alloc_buffers"), ("CommReducer", "lhs"), ("CommReducer", "rhs"),
    ("Reduce", "axis"), ("Function", "params"),
    # relay type parameters (polymorphic functions, ADTs) and pattern variables
    ("Function", "type_params"), ("FuncType", "type_params"), ("TypeData", "type_vars"),
    ("PatternVar", "var"),
}

# Fields that are labels, not structure (as in TVM: a block's name is for people and for
# ``get_block``; two blocks that differ only in name compute the same thing).
_LABELS = {("Block", "name_hint")}


def _is_graph_node(x) -> bool:
    """Whether ``x`` is a graph node (its class sets ``_structural_graph``: relay calls, lets,
    ifs, functions and non-empty tuples), whose sharing structural equality respects."""
    flag = getattr(type(x), "_structural_graph", False)
    return flag(x) if callable(flag) else bool(flag)


def _skip(obj, field: str) -> bool:
    return (field == "name" and _def_kind(obj) == "buffer") or \
        (type(obj).__name__, field) in _LABELS


class _Equal:
    def __init__(self, map_free_vars: bool = True):
        self.lmap: Dict[int, Any] = {}
        self.rmap: Dict[int, Any] = {}
        self.map_free_vars = map_free_vars
        self.defining = 0
        self.same: set = set()  # (id, id) of node pairs found equal
        self.gl: Dict[int, Any] = {}  # graph nodes matched: left id -> right node
        self.gr: Dict[int, Any] = {}
        self.keep: list = []

    def var(self, a, b, path):
        ma, mb = self.lmap.get(id(a)), self.rmap.get(id(b))
        if ma is None and mb is None:
            if not (self.map_free_vars or self.defining):
                raise _Mismatch(path, a, b, f"free variables {_name(a)} and {_name(b)} differ")
            if getattr(a, "dtype", None) != getattr(b, "dtype", None):
                raise _Mismatch(path, a, b, f"dtype {a.dtype} vs {b.dtype}")
            if type(a) is not type(b):
                raise _Mismatch(path, a, b, f"{type(a).__name__} vs {type(b).__name__}")
            for f in getattr(type(a), "_structural_fields", ()):  # a relay variable's type
                # (a TIR var's name is not)
                self.eq(getattr(a, f), getattr(b, f), (path, f".{f}"))
            self.lmap[id(a)], self.rmap[id(b)] = b, a
            return
        if ma is not b or mb is not a:
            raise _Mismatch(path, a, b, "different variables")

    def eq(self, a, b, path: str):
        if a is b:
            if _def_kind(a) is not None:
                self.lmap.setdefault(id(a), b)
                self.rmap.setdefault(id(b), a)
            return
        if type(a) is not type(b):
            if isinstance(a, (int, float, str)) and isinstance(b, (int, float, str)) \
                    and not isinstance(a, bool) and a == b:
                return
            if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
                pass  # classic TVM has one Array type: a list and a tuple compare by items
            elif isinstance(a, dict) and isinstance(b, dict):
                pass  # an attribute map and a dict compare by entries
            elif _literal_matches(a, b) or _literal_matches(b, a):
                return
            else:
                raise _Mismatch(path, a, b, f"{type(a).__name__} vs {type(b).__name__}")
        if _def_kind(a) == "var":
            return self.var(a, b, path)
        if hasattr(a, "_structural_value"):
            return self.eq(a._structural_value(), b._structural_value(), path)
        if _def_kind(a) == "buffer":
            mb = self.lmap.get(id(a))
            if mb is not None:
                if mb is not b:
                    raise _Mismatch(path, a, b, f"buffer {a.name} vs {b.name}")
                return
            self.lmap[id(a)], self.rmap[id(b)] = b, a
        if isinstance(a, (tuple, list)):
            if len(a) != len(b):
                raise _Mismatch(path, a, b, f"length {len(a)} vs {len(b)}")
            for i, (x, y) in enumerate(zip(a, b)):
                self.eq(x, y, (path, f"[{i}]"))
            return
        if isinstance(a, dict):
            if len(a) != len(b):
                raise _Mismatch(path, a, b, f"{len(a)} vs {len(b)} entries")
            if all(isinstance(k, str) for k in a):
                if set(a) != set(b):
                    raise _Mismatch(path, a, b, f"keys {sorted(a)} vs {sorted(b)}")
                for k in a:
                    self.eq(a[k], b[k], (path, f"[{k!r}]"))
            else:  # keyed by variables: compare in insertion order
                for i, ((ka, va), (kb, vb)) in enumerate(zip(a.items(), b.items())):
                    self.eq(ka, kb, (path, f".key{i}"))
                    self.eq(va, vb, (path, f"[{i}]"))
            return
        fs = _field_names(a)
        if fs:
            graph = _is_graph_node(a)
            if graph:
                # a relay dataflow node corresponds to one node on the other side, as a
                # variable does: sharing is structure (classic's graph nodes)
                ma, mb = self.gl.get(id(a)), self.gr.get(id(b))
                if ma is not None or mb is not None:
                    if ma is not b or mb is not a:
                        raise _Mismatch(path, a, b, "a shared node corresponds to different "
                                        "nodes")
                    return
            # a node shared in a graph (a relay DAG) is compared once per pair
            elif (id(a), id(b)) in self.same:
                return
            for f in fs:
                if _skip(a, f):
                    continue  # as in TVM, names of buffers and blocks are not structure
                x, y = getattr(a, f), getattr(b, f)
                if _optional(a, f) and (x is None or y is None):
                    continue
                defining = (type(a).__name__, f) in _DEFINING
                self.defining += defining
                try:
                    self.eq(x, y, (path, f".{f}"))
                finally:
                    self.defining -= defining
            if graph:
                self.gl[id(a)], self.gr[id(b)] = b, a
            else:
                self.same.add((id(a), id(b)))
            self.keep.append((a, b))  # the ids stay theirs while the comparison runs
            return
        if hasattr(a, "functions") and hasattr(a, "attrs"):  # IRModule
            # relay ADTs first: their type parameters are bound before functions use them
            self.eq(getattr(a, "type_definitions", {}), getattr(b, "type_definitions", {}),
                    (path, ".type_definitions"))
            self.eq(a.functions, b.functions, (path, ".functions"))
            self.eq(a.attrs, b.attrs, (path, ".attrs"))
            return
        if isinstance(a, enum.Enum) or isinstance(a, (int, float, str, bool, type(None))):
            if isinstance(a, float) and isinstance(b, float) and abs(a - b) < 1e-9:
                return  # classic compares float attributes within 1e-9
            if a != b:
                raise _Mismatch(path, a, b, f"{a!r} vs {b!r}")
            return
        if hasattr(a, "__eq__") and a == b:
            return
        raise _Mismatch(path, a, b, "values differ")


def _name(v) -> str:
    return str(getattr(v, "name", None) or getattr(v, "name_hint", ""))


def _literal_matches(node, value) -> bool:
    """Whether a Python number ``value`` is the constant ``node`` (classic TVM converts a
    Python int to an int32 constant, int64 when it does not fit, and a float to float32)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    kind = type(node).__name__
    if isinstance(value, int) and kind == "IntImm":
        dtype = "int32" if -(2**31) <= value < 2**31 else "int64"
    elif isinstance(value, float) and kind == "FloatImm":
        dtype = "float32"
    else:
        return False
    return node.dtype == dtype and node.value == value


@deep
def structural_equal(lhs, rhs, map_free_vars: bool = True) -> bool:
    """True when ``lhs`` and ``rhs`` have the same structure up to renaming of variables."""
    try:
        _Equal(map_free_vars).eq(lhs, rhs, "root")
        return True
    except _Mismatch:
        return False


@deep
def assert_structural_equal(lhs, rhs, map_free_vars: bool = True) -> None:
    """Raise ``ValueError`` showing where ``lhs`` and ``rhs`` first differ."""
    try:
        _Equal(map_free_vars).eq(lhs, rhs, "root")
    except _Mismatch as m:
        def show(x):
            try:
                text = repr(x)
            except Exception:  # pragma: no cover - printing must not hide the mismatch
                text = object.__repr__(x)
            return text if len(text) < 2000 else text[:2000] + " ..."

        raise ValueError(
            "StructuralEqual check failed, caused by\n"
            f"  at {m.path}: {m.why}\n"
            f"lhs:\n{show(m.lhs)}\nrhs:\n{show(m.rhs)}"
        ) from None


def get_first_structural_mismatch(lhs, rhs, map_free_vars: bool = True):
    """Where ``lhs`` and ``rhs`` first differ, as ``(lhs path, rhs path)``; None when they are
    structurally equal (``tvm.ir.base.get_first_structural_mismatch``)."""
    try:
        _Equal(map_free_vars).eq(lhs, rhs, "root")
    except _Mismatch as m:
        return (m.path, m.path)
    return None


def structural_hash(node, map_free_vars: bool = True) -> int:
    """A hash consistent with :func:`structural_equal` (variables hash by first appearance,
    free ones by identity unless ``map_free_vars``; a shared graph node by its first
    appearance)."""
    h = hashlib.blake2b(digest_size=8)
    _hash_into(node, h, _HashState(map_free_vars))
    return int.from_bytes(h.digest(), "little") & ((1 << 63) - 1)


class _HashState:
    __slots__ = ("ids", "graph", "map_free_vars", "defining", "keep")

    def __init__(self, map_free_vars: bool):
        self.ids: Dict[int, int] = {}
        self.graph: Dict[int, int] = {}
        self.map_free_vars = map_free_vars
        self.defining = 0
        self.keep: list = []


def _hash_into(x, h, st) -> None:  # noqa: C901 (one branch per kind of value)
    """Feed ``x``'s structure to the hashlib-like ``h``; ``st`` is a :class:`_HashState` or a
    dict of variable numbers (free variables then numbered too)."""
    if isinstance(st, dict):
        ids, st = st, _HashState(True)
        st.ids = ids
    ids = st.ids
    if _def_kind(x) == "var":
        if id(x) not in ids and not (st.map_free_vars or st.defining):
            h.update(f"F{id(x)};".encode())  # a free variable: only itself is equal to it
            st.keep.append(x)
            return
        first = id(x) not in ids
        n = ids.setdefault(id(x), len(ids))
        h.update(f"V{n}:{getattr(x, 'dtype', '')};".encode())
        if first:  # a relay variable's type annotation is part of it
            for f in getattr(type(x), "_structural_fields", ()):
                _hash_into(getattr(x, f), h, st)
        return
    if hasattr(x, "_structural_value"):
        _hash_into(x._structural_value(), h, st)
        return
    if _def_kind(x) == "buffer" and id(x) in ids:
        h.update(f"B{ids[id(x)]};".encode())
        return
    if _def_kind(x) == "buffer":
        ids[id(x)] = len(ids)
    if isinstance(x, (tuple, list)):
        h.update(f"[{len(x)}".encode())
        for y in x:
            _hash_into(y, h, st)
        h.update(b"]")
        return
    if isinstance(x, dict):
        h.update(f"{{{len(x)}".encode())
        for k, v in x.items():
            _hash_into(k, h, st)
            _hash_into(v, h, st)
        h.update(b"}")
        return
    fs = _field_names(x)
    if fs:
        if _is_graph_node(x):
            if id(x) in st.graph:
                h.update(f"G{st.graph[id(x)]};".encode())
                return
            st.graph[id(x)] = len(st.graph)
            st.keep.append(x)
        h.update(type(x).__name__.encode())
        for f in fs:
            if _skip(x, f) or _optional(x, f):
                continue
            defining = (type(x).__name__, f) in _DEFINING
            st.defining += defining
            try:
                _hash_into(getattr(x, f), h, st)
            finally:
                st.defining -= defining
        return
    if hasattr(x, "functions") and hasattr(x, "attrs"):
        _hash_into(x.functions, h, st)
        _hash_into(x.attrs, h, st)
        return
    if type(x) is not bool and isinstance(x, (int, float)):  # AttrInt, AttrFloat: numbers
        x = (int if isinstance(x, int) else float)(x)
    h.update(f"{type(x).__name__}:{x!r};".encode())
