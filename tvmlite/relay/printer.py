"""The relay text printer: classic's text format, version 0.0.5 (read back by
:mod:`tvmlite.relay.parser`)::

    #[version = "0.0.5"]
    def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: ...) -> Tensor[...] {
      %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]) /* ty=Tensor[...] */;
      nn.relu(%0) /* ty=Tensor[...] */
    }

It prints as classic's printer does: an expression used once at the head of a scope is printed
inline, every other call, tuple, projection and function is bound to a temporary ``%N`` the
first time a parent prints it; the children of calls, tuples and projections are visited with
an explicit stack (classic's ``ExpandDataflow``), so a chain of any length prints without deep
recursion. Scalars of the simple dtypes print inline (``1f``, ``3i64``, ``True``); other
constants and symbolic shape dimensions print as ``meta[relay.Constant][k]`` /
``meta[tir.SizeVar][k]``, stored in the ``#[metadata]`` section when ``show_meta_data``.
Attributes equal to the operator's defaults are left out; the parser fills them back in.
"""
from __future__ import annotations

import base64
import json
import numbers
from typing import Any, Callable, Dict, List, Optional, Set

import numpy as np

from .._classic import UnsupportedError
from ..ir.module import GlobalVar
from ..tir import expr as _tir
from .adt import (
    Constructor,
    Match,
    PatternConstructor,
    PatternTuple,
    PatternVar,
    PatternWildcard,
)
from .expr import (
    Call,
    Constant,
    Expr,
    Function,
    If,
    Let,
    RefCreate,
    RefRead,
    RefWrite,
    Tuple,
    TupleGetItem,
    Var,
    post_order,
)
from .expr import children as _children
from .op.registry import Op
from .ty import (
    FuncType,
    GlobalTypeVar,
    IncompleteType,
    RefType,
    TensorType,
    TupleType,
    TypeCall,
    TypeVar,
)

SEMVER = "0.0.5"
#: dtypes whose scalars print (and parse) as literals
SIMPLE_DTYPES = ("int16", "int32", "int64", "float16", "float32", "float64", "bool")
_INT_SUFFIX = {"int16": "i16", "int32": "", "int64": "i64"}
_FLOAT_SUFFIX = {"float16": "f16", "float32": "f", "float64": "f64"}
_WARNING = ("/* For debugging purposes the metadata section has been omitted.\n"
            " * If you would like to see the full metadata section you can set the \n"
            " * option to `True` when invoking `astext`. \n */")


def _indent(text: str) -> str:
    return text.replace("\n", "\n  ")


def float_text(value: float, dtype: str = "float64") -> str:
    """``value`` as C++'s ``ostream`` prints it (``%g``) when that reads back as the same
    ``dtype`` value, else the shortest text that does (so printing round-trips)."""
    value = float(value)
    if np.isinf(value):
        return "inf" if value > 0 else "-inf"
    text = f"{value:g}"
    np_type = np.dtype(dtype).type
    if np.isnan(value) or np_type(float(text)) == np_type(value):
        return text
    return repr(value) if dtype == "float64" else str(np_type(value))


def scalar_text(c: Constant) -> Optional[str]:
    """The literal of a scalar constant of a simple dtype (``42i16``, ``3f``, ``True``), or
    None for any other constant (it prints as a meta reference)."""
    if c.data.shape != () or str(c.data.dtype) not in SIMPLE_DTYPES:
        return None
    v = c.data.numpy()
    dt = str(v.dtype)
    if dt == "bool":
        return "True" if bool(v) else "False"
    if dt in _INT_SUFFIX:
        return f"{int(v)}{_INT_SUFFIX[dt]}"
    return float_text(float(v), dt) + _FLOAT_SUFFIX[dt]


def type_key(obj) -> str:
    """Classic's type key of ``obj`` (``relay.Constant``, ``tir.SizeVar``)."""
    mod = type(obj).__module__
    for pkg in ("relay", "tir"):
        if f".{pkg}." in f".{mod}.":
            return f"{pkg}.{type(obj).__name__}"
    return type(obj).__name__


def _same_value(a, b) -> bool:
    """Whether attribute values ``a`` and ``b`` are equal (a list equals a tuple of the same
    items, a bool never equals an int)."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, (bool, np.bool_)) or isinstance(b, (bool, np.bool_)):
        return type(a) is type(b) and a == b
    if isinstance(a, numbers.Number) and isinstance(b, numbers.Number):
        return a == b
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    return a is b


def _dataflow_children(e) -> List[Any]:
    """What classic's ExpandDataflow pushes (the last is visited first): a call's arguments
    in reverse then its callee, a tuple's fields in reverse, a projection's tuple."""
    if isinstance(e, Call):
        return list(reversed(e.args)) + [e.op]
    if isinstance(e, Tuple):
        return list(reversed(e.fields))
    if isinstance(e, TupleGetItem):
        return [e.tuple_value]
    if isinstance(e, (RefCreate, RefRead, RefWrite)):  # printed as calls
        return list(reversed(e._children()))
    return []


_REF_NAMES = {RefCreate: "ref", RefRead: "ref_read", RefWrite: "ref_write"}


class _Meta:
    """The metadata table: the objects printed as ``meta[type_key][index]``."""

    def __init__(self):
        self.tables: Dict[str, List[Any]] = {}
        self.refs: Dict[int, str] = {}

    def ref(self, obj) -> str:
        got = self.refs.get(id(obj))
        if got is None:
            key = type_key(obj)
            table = self.tables.setdefault(key, [])
            got = self.refs[id(obj)] = f"meta[{key}][{len(table)}]"
            table.append(obj)
        return got

    def section(self) -> str:
        """The JSON of the table: ``{type_key: [entry, ...]}``, an entry a line."""
        tables = []
        for key, objs in self.tables.items():
            entries = ",\n".join("    " + json.dumps(meta_to_json(o)) for o in objs)
            tables.append(f"  {json.dumps(key)}: [\n{entries}\n  ]")
        return "{\n" + ",\n".join(tables) + "\n}"


def meta_to_json(obj) -> Dict[str, Any]:
    """The JSON form of a metadata object (read back by ``parser.meta_from_json``)."""
    out: Dict[str, Any] = {"type_key": type_key(obj)}
    if isinstance(obj, Constant):
        arr = np.ascontiguousarray(obj.data.numpy())
        out.update(dtype=str(arr.dtype), shape=list(arr.shape),
                   data=base64.b64encode(arr.tobytes()).decode("ascii"))
    elif isinstance(obj, _tir.Var):
        out.update(name=obj.name, dtype=obj.dtype)
    else:
        out["repr"] = repr(obj)  # printed for people; the parser refuses it
    return out


class _Printer:
    """One print: names, temporaries and the metadata table are shared by everything it
    prints (as classic's, its counters run on across the functions of a module)."""

    def __init__(self, show_meta_data: bool, annotate: Optional[Callable[[Any], str]]):
        self.show_meta_data = show_meta_data
        self.annotate = annotate
        self.meta = _Meta()
        self.memo: Dict[int, str] = {}
        self.result_memo: Dict[int, str] = {}
        self.var_memo: Set[int] = set()
        self.opt_memo: Set[int] = set()
        self.name_alloc: Dict[str, int] = {}
        self.uses: Dict[int, int] = {}
        self.counter = 0
        self.doc_stack: List[List[str]] = []

    # ------------------------------------------------------------------ scopes and names
    def set_graph(self, root: Expr) -> None:
        """Count the uses of each node under ``root`` (an expression used once prints
        inline at the head of a scope)."""
        self.uses = {}
        for n in post_order(root):
            for c in _children(n):
                self.uses[id(c)] = self.uses.get(id(c), 0) + 1

    def scope(self, node: Expr) -> str:
        self.doc_stack.append([])
        text = self.print_expr(node, try_inline=True)
        return "".join(self.doc_stack.pop()) + text

    def body(self, node: Expr) -> str:
        return "{" + _indent("\n" + self.scope(node)) + "\n}"

    def unique_name(self, prefix: str) -> str:
        name = prefix
        if prefix in self.name_alloc:
            while True:
                self.name_alloc[prefix] += 1
                name = f"{prefix}{self.name_alloc[prefix]}"
                if name not in self.name_alloc:
                    break
        self.name_alloc[name] = 0
        return name

    def alloc_var(self, v: Var) -> str:
        if id(v) in self.memo:
            return self.memo[id(v)] + "-malformed-ir"
        name = v.name_hint
        if not name or not (name[0].isascii() and name[0].isalpha()):
            name = "v" + name
        val = self.memo[id(v)] = self.unique_name("%" + name)
        if v.type_annotation is not None:
            val += ": " + self.type_text(v.type_annotation)
        return val + self.opt_info(v)

    def opt_info(self, e) -> str:
        if id(e) in self.opt_memo:
            return ""
        self.opt_memo.add(id(e))
        if self.annotate is not None:
            return self.annotate(e) or ""
        if not isinstance(e, (Constant, Call, Var, Function, Tuple, TupleGetItem)):
            return ""
        info = "" if e._checked_type is None else f" ty={self.type_text(e._checked_type)}"
        if e.span is not None:
            info += f" span={e.span.source_name.name}:{e.span.line}:{e.span.column}"
        return f" /*{info} */" if info else ""

    # ------------------------------------------------------------------ expressions
    def print_expr(self, e, meta: bool = False, try_inline: bool = False,
                   optional_info: bool = True) -> str:
        if isinstance(e, Op):
            return e.name
        if isinstance(e, GlobalVar):
            return "@" + e.name_hint
        inline = isinstance(e, (Var, Constant, Constructor)) or \
            (try_inline and self.uses.get(id(e), 0) <= 1)
        if meta:
            printed = self.meta.ref(e)
        elif not inline and isinstance(e, Let):
            printed = "(" + _indent("\n" + self.visit(e)) + "\n)"
        else:
            printed = self.visit(e)
        if optional_info:
            printed += self.opt_info(e)
        if isinstance(e, Var):
            if id(e) not in self.var_memo:
                self.var_memo.add(id(e))
                if id(e) in self.result_memo:  # first met in a body: a free variable
                    self.doc_stack[-1].append(f"free_var {self.result_memo[id(e)]};\n")
            return self.memo[id(e)]
        if inline:
            self.memo[id(e)] = printed
            return printed
        if id(e) in self.var_memo:
            return self.memo[id(e)]
        self.var_memo.add(id(e))
        temp = self.memo[id(e)] = f"%{self.counter}"
        self.counter += 1
        self.doc_stack[-1].append(f"{temp} = {printed};\n")
        return temp

    def visit(self, e: Expr) -> str:
        """The text of ``e`` (memoized); the calls, tuples and projections it reaches are
        visited first, children before parents, with an explicit stack."""
        if id(e) not in self.memo:
            stack = [[e, False]]
            while stack:
                top = stack[-1]
                if id(top[0]) in self.memo:
                    stack.pop()
                elif top[1]:
                    stack.pop()
                    self.visit_leaf(top[0])
                else:
                    top[1] = True
                    stack.extend([c, False] for c in _dataflow_children(top[0])
                                 if id(c) not in self.memo)
        return self.memo[id(e)]

    def visit_leaf(self, e) -> None:
        if id(e) in self.memo:
            return
        result = self.node(e)
        if id(e) in self.memo:  # a variable met first here (free): its definition text
            self.result_memo[id(e)] = result
        else:
            self.memo[id(e)] = result

    def node(self, e) -> str:
        if isinstance(e, Op):
            return e.name
        if isinstance(e, GlobalVar):
            return "@" + e.name_hint
        if isinstance(e, Var):
            return self.alloc_var(e)
        if isinstance(e, Constant):
            text = scalar_text(e)
            return text if text is not None else self.print_expr(e, meta=True, optional_info=False)
        if isinstance(e, Call):
            if isinstance(e.op, Constructor) and not e.args:
                return e.op.name_hint  # a nullary constructor's value: `Nil`
            args = [self.print_expr(a) for a in e.args] + self.call_attrs(e)
            return f"{self.print_expr(e.op)}({', '.join(args)})"
        if isinstance(e, Tuple):
            fields = [self.print_expr(f) for f in e.fields]
            return "(" + ", ".join(fields) + ("," if len(fields) == 1 else "") + ")"
        if isinstance(e, TupleGetItem):
            return f"{self.print_expr(e.tuple_value)}.{e.index}"
        if isinstance(e, Constructor):
            return e.name_hint
        if type(e) in _REF_NAMES:
            args = ", ".join(self.print_expr(c) for c in e._children())
            return f"{_REF_NAMES[type(e)]}({args})"
        if isinstance(e, Match):
            return self.match(e)
        if isinstance(e, If):
            cond = self.print_expr(e.cond)
            return (f"if ({cond}) {self.body(e.true_branch)} else "
                    f"{self.body(e.false_branch)}")
        if isinstance(e, Let):
            return self.let(e)
        if isinstance(e, Function):
            return self.function("fn ", e)
        return self.meta.ref(e)

    def let(self, e: Let) -> str:
        base = len(self.doc_stack)
        while isinstance(e, Let):
            head = f"let {self.alloc_var(e.var)} = "
            self.doc_stack.append([head + self.print_expr(e.value, try_inline=True) + ";\n"])
            e = e.body
        body = self.scope(e)
        out = "".join("".join(d) for d in self.doc_stack[base:]) + body
        del self.doc_stack[base:]
        return out

    def match(self, m: Match) -> str:
        """``match (data) { pattern => { rhs }, ... }`` (``match?``: not complete)."""
        data = self.print_expr(m.data)
        clauses = [f"{self.pattern(c.lhs)} => {self.body(c.rhs)}," for c in m.clauses]
        head = "match" if m.complete else "match?"
        return f"{head} ({data}) {{" + _indent("".join("\n" + c for c in clauses)) + "\n}"

    def pattern(self, p) -> str:
        if isinstance(p, PatternWildcard):
            return "_"
        if isinstance(p, PatternVar):
            return self.alloc_var(p.var)
        if isinstance(p, PatternConstructor):
            if not p.patterns:
                return p.constructor.name_hint
            return f"{p.constructor.name_hint}({', '.join(map(self.pattern, p.patterns))})"
        if isinstance(p, PatternTuple):
            return f"({', '.join(map(self.pattern, p.patterns))})"
        raise UnsupportedError(f"relay text printer: pattern {type(p).__name__}")

    def type_params(self, tps) -> str:
        return f"[{', '.join(t.name_hint for t in tps)}]" if tps else ""

    def function(self, prefix: str, f: Function) -> str:
        params = [self.alloc_var(p) for p in f.params]
        params += [f"{k}={self.attr_value(v)}" for k, v in f.attrs.items()]
        text = f"{prefix}{self.type_params(f.type_params)}({', '.join(params)}) "
        ret = f.ret_type
        if ret is None and f._checked_type is not None:  # classic inference sets ret_type
            ret = f.body._checked_type
        if ret is not None:
            text += f"-> {self.type_text(ret)} "
        return text + self.body(f.body)

    # ------------------------------------------------------------------ attributes, types
    def call_attrs(self, e: Call) -> List[str]:
        if e.attrs is None:
            return []
        defaults = e.op.attrs_defaults if isinstance(e.op, Op) else {}
        return [f"{k}={self.attr_value(v)}" for k, v in e.attrs.items()
                if k not in defaults or not _same_value(defaults[k], v)]

    def attr_value(self, v) -> str:
        if v is None:
            return "None"
        if isinstance(v, (bool, np.bool_)):
            return "True" if v else "False"
        if isinstance(v, (int, np.integer)):
            return str(int(v))
        if isinstance(v, (float, np.floating)):
            return float_text(v) + "f"
        if isinstance(v, str):
            return f'"{v}"'
        if isinstance(v, (list, tuple)):
            return "[" + ", ".join(self.attr_value(x) for x in v) + "]"
        if isinstance(v, _tir.IntImm):
            if v.dtype == "bool":
                return "True" if v.value else "False"
            return f"{v.value}{_INT_SUFFIX.get(v.dtype, '')}"
        if isinstance(v, _tir.FloatImm):
            return float_text(v.value, v.dtype if v.dtype in _FLOAT_SUFFIX else "float64") + \
                _FLOAT_SUFFIX.get(v.dtype, "")
        if isinstance(v, GlobalVar) and not self.show_meta_data:
            return f"'{v.name_hint}'"
        if isinstance(v, _tir.Any):
            return "?"
        return self.meta.ref(v)

    def type_text(self, t) -> str:
        if isinstance(t, TensorType):
            if not t.shape:
                return t.dtype
            return f"Tensor[({', '.join(map(self.attr_value, t.shape))}), {t.dtype}]"
        if isinstance(t, TupleType):
            fields = [self.type_text(f) for f in t.fields]
            return "(" + ", ".join(fields) + ("," if len(fields) == 1 else "") + ")"
        if isinstance(t, FuncType):
            args = ", ".join(self.type_text(a) for a in t.arg_types)
            return f"fn {self.type_params(t.type_params)}({args}) -> {self.type_text(t.ret_type)}"
        if isinstance(t, (TypeVar, GlobalTypeVar)):
            return t.name_hint
        if isinstance(t, TypeCall):
            return f"{self.type_text(t.func)}[{', '.join(map(self.type_text, t.args))}]"
        if isinstance(t, RefType):
            return f"ref({self.type_text(t.value)})"
        if isinstance(t, IncompleteType):
            return "_" if t._link is None else self.type_text(t._link)
        return self.meta.ref(t)

    def type_data(self, td) -> str:
        """``type Name[A] { Ctor(A, Name[A]), ... }`` (``extern type Name[A]``: none)."""
        head = f"{td.header.name_hint}{self.type_params(td.type_vars)}"
        if not td.constructors:
            return f"extern type {head}\n"
        ctors = []
        for c in td.constructors:
            args = ", ".join(self.type_text(t) for t in c.inputs)
            ctors.append(f"{c.name_hint}({args})," if c.inputs else f"{c.name_hint},")
        return f"type {head} {{" + _indent("".join("\n" + c for c in ctors)) + "\n}\n"

    # ------------------------------------------------------------------ entry points
    def final(self, node, show_warning: bool) -> str:
        if isinstance(node, Expr):
            self.set_graph(node)
            text = self.scope(node)
        else:
            text = self.module(node)
        if self.meta.tables:
            text += "\n"
            if self.show_meta_data:
                text += "#[metadata]\n" + self.meta.section()
            elif show_warning:
                text += _WARNING
        return text

    def module(self, mod) -> str:
        out = [self.type_data(td) for td in getattr(mod, "type_definitions", {}).values()]
        for name in sorted(mod.functions):
            func = mod.functions[name]
            if isinstance(func, Function):
                self.set_graph(func)
                out.append(self.function(f"def @{name}", func) + "\n")
            else:  # a PrimFunc: its TVMScript (the relay parser does not read it)
                out.append(f"@{name} = {func.script()}\n")
        return "\n".join(out)


def astext(node, show_meta_data: bool = True,
           annotate: Optional[Callable[[Any], str]] = None) -> str:
    """Classic ``astext``: the text of a relay expression or an IRModule of relay functions,
    after the ``#[version = "0.0.5"]`` header, with the ``#[metadata]`` section when
    ``show_meta_data``; ``annotate(expr) -> str`` replaces the ``/* ty=... */`` comments."""
    body = _Printer(show_meta_data, annotate).final(node, show_warning=True)
    return f'#[version = "{SEMVER}"]\n' + body


def pretty_print(node) -> str:
    """Classic ``relay.pretty_print`` (``str`` of a node): the text without the version
    header or the metadata section."""
    return _Printer(False, None).final(node, show_warning=False)


def is_relay_module(node) -> bool:
    funcs = getattr(node, "functions", None)
    if funcs is None:
        return False
    return any(isinstance(f, Expr) for f in funcs.values()) or \
        bool(getattr(node, "type_definitions", None))


__all__ = ["astext", "pretty_print", "is_relay_module", "scalar_text", "float_text",
           "type_key", "meta_to_json", "SEMVER", "SIMPLE_DTYPES"]
