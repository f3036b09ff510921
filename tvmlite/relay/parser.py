"""The relay text parser: classic's ``tvm.relay.parse`` / ``parse_expr`` / ``fromtext`` for the
text format version 0.0.5 that :mod:`tvmlite.relay.printer` writes.

A hand-written tokenizer and recursive-descent parser (the grammar is small and classic's own
is hand-written; a library would not shorten it much and would make error positions and the
long binding chains of real networks harder to handle). Sequences of bindings
(``%0 = ...; let %x = ...;``) are parsed in a loop, so a program of any length parses at a
constant stack depth. A syntax error raises :class:`~tvmlite.error.DiagnosticError` naming the
line and column. Algebraic data types (``type List[A] { Cons(A, List[A]), Nil }``,
``extern type T[A]``), pattern matching (``match`` / ``match?``), references (``ref``,
``ref_read``, ``ref_write``) and polymorphic functions (``def @id[A](%x: A) -> A``) are read.
"""
from __future__ import annotations

import base64
import bisect
import json
import re
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from .._classic import UnsupportedError
from ..error import DiagnosticError
from ..ir.module import GlobalVar, IRModule
from ..tir import expr as _tir
from . import adt as _adt
from . import expr as _expr
from .op import registry
from .printer import SEMVER
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

_KEYWORDS = {"let", "fn", "def", "if", "else", "type", "match", "extern", "free_var", "ref",
             "ref_read", "ref_write"}
_REFS = {"ref": (_expr.RefCreate, 1), "ref_read": (_expr.RefRead, 1),
         "ref_write": (_expr.RefWrite, 2)}
# binary operators: (tokens, op name, precedence); all are left associative
_BINOPS = [(("*",), "multiply", 12), (("/",), "divide", 12), (("+",), "add", 10),
           (("-",), "subtract", 10), (("<", "="), "less_equal", 8), (("<",), "less", 8),
           ((">", "="), "greater_equal", 8), ((">",), "greater", 8),
           (("=", "="), "equal", 7), (("!", "="), "not_equal", 7)]
_BINOP_START = {t[0][0] for t in _BINOPS}
_NUMBER = re.compile(r"(\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)([fi]\d*)?")
_IDENT = re.compile(r"[A-Za-z_/][A-Za-z0-9_/]*")
_PUNCT = set("(),.=;:+*<>{}[]!@?/-")


class _Token:
    __slots__ = ("kind", "value", "line", "col")

    def __init__(self, kind: str, value: Any, line: int, col: int):
        self.kind, self.value, self.line, self.col = kind, value, line, col

    def __repr__(self) -> str:
        return f"{self.kind} {self.value!r}"


def _describe(tok: _Token) -> str:
    if tok.kind == "eof":
        return "the end of the input"
    if tok.kind in ("punct", "keyword"):
        return f"`{tok.value}`"
    if tok.kind in ("local", "graph"):
        return f"`%{tok.value}`"
    if tok.kind == "global":
        return f"`@{tok.value}`"
    return f"{tok.kind} `{tok.value}`"


class _Source:
    def __init__(self, name: str, text: str):
        self.name, self.text = name, text
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def position(self, pos: int) -> Tuple[int, int]:
        line = bisect.bisect_right(self.line_starts, pos)
        return line, pos - self.line_starts[line - 1] + 1

    def error(self, line: int, col: int, msg: str) -> DiagnosticError:
        lines = self.text.split("\n")
        shown = lines[line - 1] if 0 < line <= len(lines) else ""
        return DiagnosticError(f"{self.name}:{line}:{col}: error: {msg}\n    {shown}\n    "
                               f"{' ' * (col - 1)}^")


def _number(src: _Source, text: str, suffix: Optional[str], negative: bool, line: int,
            col: int) -> _Token:
    """An integer or float literal token: its value and dtype (classic's widths: ``i``
    and no suffix are 32 bits, a too-large unsuffixed integer becomes int64)."""
    is_float = bool(suffix) and suffix[0] == "f"
    width_text = suffix[1:] if suffix else ""
    width = int(width_text) if width_text else (32 if suffix or is_float else None)
    if is_float:
        if width not in (16, 32, 64):
            raise src.error(line, col, f"invalid numeric suffix `{suffix}`")
        value = -float(text) if negative else float(text)
        limit = {16: 65504.0, 32: float(np.finfo(np.float32).max)}.get(width)
        if limit is not None and abs(value) > limit and not np.isinf(value):
            raise src.error(line, col, f"floating point number `{text}` unrepresentable in "
                                       f"width {width}")
        return _Token("float", (value, f"float{width}"), line, col)
    if not re.fullmatch(r"\d+", text):
        raise src.error(line, col, f"invalid integer number `{text}` (a float literal needs "
                                   "the suffix f, f16, f32 or f64)")
    value = -int(text) if negative else int(text)
    if width is None:
        width = 32 if -2**31 <= value < 2**31 else 64
    if width not in (16, 32, 64):
        raise src.error(line, col, f"invalid numeric suffix `{suffix}`")
    if not -2**(width - 1) <= value < 2**(width - 1):
        raise src.error(line, col, f"integer number `{text}` unrepresentable in width {width}")
    return _Token("int", (value, f"int{width}"), line, col)


def tokenize(src: _Source) -> Tuple[List[_Token], Optional[str]]:
    """The tokens of ``src`` (comments and white space dropped) and the text of its
    ``#[metadata]`` section, if any."""
    text, toks, pos, n = src.text, [], 0, len(src.text)
    metadata = None
    while pos < n:
        c = text[pos]
        if c in " \t\r\n":
            pos += 1
            continue
        line, col = src.position(pos)
        if text.startswith("//", pos):
            end = text.find("\n", pos)
            pos = n if end < 0 else end
        elif text.startswith("/*", pos):  # comments nest
            depth, pos = 1, pos + 2
            while depth and pos < n:
                if text.startswith("/*", pos):
                    depth, pos = depth + 1, pos + 2
                elif text.startswith("*/", pos):
                    depth, pos = depth - 1, pos + 2
                else:
                    pos += 1
            if depth:
                raise src.error(line, col, "unterminated comment")
        elif c == "#":
            m = re.compile(r"#\[([^\]]*)\]").match(text, pos)
            if not m:
                raise src.error(line, col, "`#` starts an attribute and must be followed by "
                                           "`[...]`")
            attr = m.group(1).strip()
            pos = m.end()
            if attr == "metadata":
                metadata, pos = text[pos:], n
            elif attr.startswith("version"):
                toks.append(_Token("version", attr.partition("=")[2].strip().strip('"'),
                                   line, col))
            else:
                raise src.error(line, col, f"unsupported attribute {attr}")
        elif c == '"':
            end = text.find('"', pos + 1)
            if end < 0:
                raise src.error(line, col, "unterminated string literal")
            toks.append(_Token("string", text[pos + 1:end], line, col))
            pos = end + 1
        elif text.startswith("meta[", pos):
            m = re.compile(r"meta\[([^\]]*)\]\[(\d+)\]").match(text, pos)
            if not m:
                raise src.error(line, col, "malformed meta reference (expected "
                                           "meta[type_key][index])")
            toks.append(_Token("meta", (m.group(1), int(m.group(2))), line, col))
            pos = m.end()
        elif c == "-" or c.isdigit() or text.startswith("inff", pos):
            negs = 0
            while pos + negs < n and text[pos + negs] == "-":
                negs += 1
            after = pos + negs
            if after < n and (text[after].isdigit() or text.startswith("inff", after)) and \
                    not (toks and toks[-1].kind == "punct" and toks[-1].value == "."):
                if text.startswith("inff", after):
                    toks.append(_Token("float", (float("-inf" if negs % 2 else "inf"),
                                                 "float32"), line, col))
                    pos = after + 4
                else:
                    m = _NUMBER.match(text, after)
                    toks.append(_number(src, m.group(1), m.group(2), negs % 2 == 1, line, col))
                    pos = m.end()
            elif c == "-":
                toks.append(_Token("punct", "-", line, col))
                pos += 1
            else:  # the index of a projection: digits only
                m = re.compile(r"\d+").match(text, pos)
                toks.append(_Token("int", (int(m.group(0)), "int32"), line, col))
                pos = m.end()
        elif c in "%@":
            m = re.compile(r"\d+").match(text, pos + 1)
            if c == "%" and m:
                toks.append(_Token("graph", int(m.group(0)), line, col))
                pos = m.end()
                continue
            m = _IDENT.match(text, pos + 1)
            if not m:
                raise src.error(line, col, f"expected a name after `{c}`")
            toks.append(_Token("local" if c == "%" else "global", m.group(0), line, col))
            pos = m.end()
        elif c.isalpha() or c == "_":
            m = _IDENT.match(text, pos)
            word = m.group(0)
            pos = m.end()
            if word in ("True", "False"):
                toks.append(_Token("bool", word == "True", line, col))
            elif word == "_":
                toks.append(_Token("punct", "_", line, col))
            elif word in _KEYWORDS:
                toks.append(_Token("keyword", word, line, col))
            else:
                toks.append(_Token("ident", word, line, col))
        elif c in _PUNCT:
            toks.append(_Token("punct", c, line, col))
            pos += 1
        else:
            raise src.error(line, col, f"unexpected character `{c}`")
    line, col = src.position(n)
    toks.extend(_Token("eof", None, line, col) for _ in range(4))  # lookahead past the end
    return toks, metadata


def meta_from_json(entry: Dict[str, Any]):
    """The object of one metadata entry written by ``printer.meta_to_json``."""
    key = entry.get("type_key")
    if key == "relay.Constant":
        arr = np.frombuffer(base64.b64decode(entry["data"]), dtype=entry["dtype"])
        return _expr.Constant(arr.reshape(entry["shape"]).copy())
    if key in ("tir.Var", "tir.SizeVar"):
        cls = _tir.SizeVar if key == "tir.SizeVar" else _tir.Var
        return cls(entry["name"], entry["dtype"])
    raise UnsupportedError(f"relay parser: metadata objects of type {key} cannot be read by "
                           "tvmlite")


def _load_metadata(src: _Source, text: Optional[str]) -> Dict[str, List[Any]]:
    if text is None or not text.strip():
        return {}
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as e:
        raise DiagnosticError(f"{src.name}: the #[metadata] section is not valid JSON: "
                              f"{e}") from None
    if not isinstance(raw, dict) or "root" in raw:
        raise UnsupportedError("relay parser: the #[metadata] section is not one tvmlite "
                               "wrote (classic TVM's JSON object graphs are not readable)")
    return {k: [meta_from_json(e) for e in v] for k, v in raw.items()}


class _Parser:
    def __init__(self, src: _Source, tokens: List[_Token], meta: Dict[str, List[Any]]):
        self.src, self.toks, self.pos, self.meta = src, tokens, 0, meta
        self.scopes: List[Dict[str, _expr.Var]] = [{}]
        self.graph: Dict[int, _expr.Expr] = {}
        self.free_vars: Dict[str, _expr.Var] = {}
        self.globals: Dict[str, GlobalVar] = {}
        self.type_scopes: List[Dict[str, TypeVar]] = [{}]
        self.adts: Dict[str, GlobalTypeVar] = {}
        self.ctors: Dict[str, _adt.Constructor] = {}

    # ------------------------------------------------------------------ token helpers
    def peek(self, k: int = 0) -> _Token:
        return self.toks[self.pos + k]  # the end is padded with eof tokens

    def error(self, msg: str, tok: Optional[_Token] = None) -> DiagnosticError:
        tok = tok or self.peek()
        return self.src.error(tok.line, tok.col, msg)

    def is_(self, kind: str, value=None, k: int = 0) -> bool:
        t = self.toks[self.pos + k]
        return t.kind == kind and (value is None or t.value == value)

    def accept(self, kind: str, value=None) -> Optional[_Token]:
        if self.is_(kind, value):
            self.pos += 1
            return self.toks[self.pos - 1]
        return None

    def expect(self, kind: str, value=None, what: Optional[str] = None) -> _Token:
        tok = self.accept(kind, value)
        if tok is None:
            want = what or (f"`{value}`" if value is not None else kind)
            raise self.error(f"expected {want}, found {_describe(self.peek())}")
        return tok

    def unsupported(self, what: str):
        tok = self.peek()
        return UnsupportedError(f"relay parser ({self.src.name}:{tok.line}:{tok.col}): {what} "
                                "are not supported by tvmlite")

    # ------------------------------------------------------------------ names
    def bind(self, name: str, ty) -> _expr.Var:
        if isinstance(ty, IncompleteType):  # `%x: _`: unannotated
            ty = None
        v = _expr.Var(name, ty)
        self.scopes[-1][name] = v
        return v

    def lookup(self, tok: _Token) -> _expr.Var:
        for scope in reversed(self.scopes):
            if tok.value in scope:
                return scope[tok.value]
        if tok.value in self.free_vars:
            return self.free_vars[tok.value]
        raise self.error(f"unbound local variable `%{tok.value}`", tok)

    def global_var(self, name: str) -> GlobalVar:
        return self.globals.setdefault(name, GlobalVar(name))

    # ------------------------------------------------------------------ programs
    def version(self, required: bool) -> None:
        tok = self.accept("version")
        if tok is None:
            if required:
                raise self.error(f'expected the version header #[version = "{SEMVER}"]')
        elif tok.value != SEMVER:
            raise self.error(f"unsupported text format version {tok.value} (tvmlite reads "
                             f"{SEMVER})", tok)

    def known_types(self, mod: IRModule) -> None:
        """The ADTs and constructors of ``mod`` (an ``init_module``) are in scope."""
        for td in getattr(mod, "type_definitions", {}).values():
            self.adts[td.header.name_hint] = td.header
            for c in td.constructors:
                self.ctors[c.name_hint] = c

    def module(self, mod: IRModule) -> IRModule:
        self.version(required=True)
        self.known_types(mod)
        while not self.is_("eof"):
            if self.accept("keyword", "def"):
                tok = self.expect("global", what="a global function name `@name`")
                if tok.value in mod.functions:
                    raise self.error(f"duplicate global function definition `@{tok.value}`",
                                     tok)
                mod[tok.value] = self.function_def()
            elif self.is_("keyword", "type") or self.is_("keyword", "extern"):
                td = self.type_def()
                mod[td.header] = td
            else:
                raise self.error(f"expected a definition (`def @name` ...), found "
                                 f"{_describe(self.peek())}")
        return mod

    def type_params(self) -> List[TypeVar]:
        """``[A, B]`` (nothing if absent): new type variables, put in scope."""
        out: List[TypeVar] = []
        if self.accept("punct", "["):
            while not self.accept("punct", "]"):
                tok = self.expect("ident", what="a type parameter name")
                tv = TypeVar(tok.value)
                self.type_scopes[-1][tok.value] = tv
                out.append(tv)
                if not self.accept("punct", ","):
                    self.expect("punct", "]")
                    break
        return out

    def type_def(self) -> "_adt.TypeData":
        """``type Name[A...] { Ctor(types), ... }`` or ``extern type Name[A...]``."""
        extern = self.accept("keyword", "extern") is not None
        self.expect("keyword", "type")
        tok = self.expect("ident", what="a type name")
        if tok.value in self.adts or tok.value in self.ctors:
            raise self.error(f"duplicate definition of `{tok.value}` (a type or constructor "
                             "of that name exists)", tok)
        header = self.adts[tok.value] = GlobalTypeVar(tok.value)
        self.type_scopes.append({})
        tvs = self.type_params()
        ctors: List[_adt.Constructor] = []
        if not extern:
            self.expect("punct", "{")
            while not self.accept("punct", "}"):
                ctok = self.expect("ident", what="a constructor name")
                if ctok.value in self.ctors or ctok.value in self.adts:
                    raise self.error(f"duplicate constructor `{ctok.value}`", ctok)
                inputs = []
                if self.accept("punct", "("):
                    while not self.accept("punct", ")"):
                        inputs.append(self.type_())
                        if not self.accept("punct", ","):
                            self.expect("punct", ")")
                            break
                c = self.ctors[ctok.value] = _adt.Constructor(ctok.value, inputs, header)
                ctors.append(c)
                if not self.accept("punct", ","):
                    self.expect("punct", "}")
                    break
        self.type_scopes.pop()
        return _adt.TypeData(header, tvs, ctors)

    def function_def(self) -> _expr.Function:
        """``[T...](%p: type, ..., attr=value) -> ret { body }`` after ``fn`` / ``def @f``."""
        self.type_scopes.append({})
        try:
            tps = self.type_params()
            return self._function_rest(tps)
        finally:
            self.type_scopes.pop()

    def _function_rest(self, tps: List[TypeVar]) -> _expr.Function:
        self.scopes.append({})
        params, attrs = [], {}
        self.expect("punct", "(")
        while not self.accept("punct", ")"):
            if self.is_("ident") and self.is_("punct", "=", 1):
                attrs = self.attrs()
                self.expect("punct", ")")
                break
            tok = self.expect("local", what="a parameter `%name`")
            if self.accept("punct", "{"):
                raise self.unsupported("virtual devices of parameters")
            ty = self.type_() if self.accept("punct", ":") else None
            params.append(self.bind(tok.value, ty))
            if not self.accept("punct", ","):
                self.expect("punct", ")")
                break
        ret = None
        if self.accept("punct", "-"):
            self.expect("punct", ">")
            ret = self.type_()
            if isinstance(ret, IncompleteType):  # `-> _`: left to inference
                ret = None
        body = self.block()
        self.scopes.pop()
        return _expr.Function(params, body, ret, tps, attrs)

    def block(self) -> _expr.Expr:
        self.expect("punct", "{")
        self.scopes.append({})
        body = self.expr()
        self.scopes.pop()
        self.expect("punct", "}")
        return body

    # ------------------------------------------------------------------ expressions
    def expr(self) -> _expr.Expr:
        """A sequence ``e1; e2; ...`` of bindings and expressions (classic's ParseExpr)."""
        exprs: List[_expr.Expr] = []
        while True:
            tok = self.peek()
            if tok.kind == "punct" and tok.value == "{":
                exprs.append(self.block())
            elif tok.kind == "keyword" and tok.value == "free_var":
                self.pos += 1
                name = self.expect("local", what="a variable `%name`").value
                ty = self.type_() if self.accept("punct", ":") else None
                if isinstance(ty, IncompleteType):  # `free_var %x: _`: unannotated
                    ty = None
                self.free_vars[name] = _expr.Var(name, ty)
                if not self.accept("punct", ";"):
                    raise self.error("expected `;` after a free_var declaration")
                continue
            elif tok.kind == "keyword" and tok.value == "let" or \
                    tok.kind == "graph" and self.is_("punct", "=", 1) and \
                    not self.is_("punct", "=", 2):
                exprs.append(self.bindings())
            else:
                exprs.append(self.binop())
            if not self.accept("punct", ";"):
                break
        body = exprs.pop()
        while exprs:  # `a; b` evaluates a for its effects: let %_ = a; b
            body = _expr.Let(_expr.Var("", None), exprs.pop(), body)
        return body

    def bindings(self) -> _expr.Expr:
        """``%0 = e; let %x = e; ... body`` in a loop (constant stack depth)."""
        lets: List[Tuple[_expr.Var, _expr.Expr]] = []
        scopes = 0
        while True:
            tok = self.peek()
            if tok.kind == "graph" and self.is_("punct", "=", 1) and \
                    not self.is_("punct", "=", 2):
                self.pos += 2
                value = self.binop()
                self.expect("punct", ";")
                self.graph[tok.value] = value
            elif tok.kind == "keyword" and tok.value == "let":
                self.pos += 1
                if not self.is_("local"):
                    raise self.error(f"a let binds a local variable `%name`, found "
                                     f"{_describe(self.peek())}")
                name = self.accept("local").value
                ty = self.type_() if self.accept("punct", ":") else None
                self.expect("punct", "=")
                value = self.binop()
                self.expect("punct", ";")
                self.scopes.append({})
                scopes += 1
                lets.append((self.bind(name, ty), value))
            else:
                body = self.expr()
                del self.scopes[len(self.scopes) - scopes:]
                for var, value in reversed(lets):
                    body = _expr.Let(var, value, body)
                return body

    def binop_rule(self):
        tok = self.peek()
        if tok.kind != "punct" or tok.value not in _BINOP_START:
            return None
        for toks, name, prec in _BINOPS:
            if all(self.is_("punct", t, i) for i, t in enumerate(toks)):
                if toks == ("-",) and self.is_("punct", ">", 1):
                    return None  # `->`
                if len(toks) == 1 and toks[0] in "<>" and self.is_("punct", "=", 1):
                    continue
                return toks, name, prec
        return None

    def binop(self) -> _expr.Expr:
        """Binary operators by precedence climbing (all left associative)."""
        operands = [self.call()]
        ops: List[Tuple[str, int]] = []

        def reduce():
            name, _ = ops.pop()
            rhs, lhs = operands.pop(), operands.pop()
            operands.append(registry.make_call(name, [lhs, rhs]))

        while True:
            rule = self.binop_rule()
            if rule is None:
                break
            toks, name, prec = rule
            self.pos += len(toks)
            while ops and ops[-1][1] >= prec:
                reduce()
            ops.append((name, prec))
            operands.append(self.call())
        while ops:
            reduce()
        return operands[0]

    def call(self) -> _expr.Expr:
        e = self.atom()
        while self.is_("punct", "("):
            e = self.call_args(e)
        return e

    def call_args(self, callee) -> _expr.Expr:
        self.expect("punct", "(")
        args, attrs = [], {}
        while not self.accept("punct", ")"):
            if self.is_("ident") and self.is_("punct", "=", 1):
                attrs = self.attrs()
                self.expect("punct", ")")
                break
            args.append(self.expr())
            if not self.accept("punct", ","):
                self.expect("punct", ")", what="`,` or `)` in a call")
                break
        if isinstance(callee, registry.Op):
            unknown = set(attrs) - set(callee.attrs_defaults)
            if unknown:
                raise self.error(f"operator {callee.name} has no attribute(s) "
                                 f"{sorted(unknown)} (it has {sorted(callee.attrs_defaults)})")
            return _expr.Call(callee, args, _expr.Attrs({**callee.attrs_defaults, **attrs}))
        return _expr.Call(callee, args, _expr.Attrs(attrs) if attrs else None)

    def attrs(self) -> Dict[str, Any]:
        """``key=value, ...`` up to a closing bracket."""
        out = {}
        while self.is_("ident"):
            key = self.dotted_name()
            self.expect("punct", "=")
            out[key] = self.attr_value()
            self.accept("punct", ",")
        return out

    def attr_value(self):
        tok = self.peek()
        if tok.kind in ("int", "float"):
            self.pos += 1
            return tok.value[0]
        if tok.kind in ("bool", "string"):
            self.pos += 1
            return tok.value
        if tok.kind == "meta":
            return self.meta_ref()
        if self.accept("punct", "["):
            items = []
            while not self.accept("punct", "]"):
                items.append(self.attr_value())
                if not self.accept("punct", ","):
                    self.expect("punct", "]")
                    break
            return tuple(items)
        if self.accept("punct", "("):
            value = self.attr_value()
            self.expect("punct", ")")
            return value
        if tok.kind == "ident" and tok.value in ("None", "nullptr"):
            self.pos += 1
            return None
        raise self.error(f"expected an attribute value, found {_describe(tok)}")

    def meta_ref(self):
        tok = self.expect("meta")
        key, index = tok.value
        table = self.meta.get(key)
        if table is None or index >= len(table):
            raise self.error(f"meta[{key}][{index}] is not in the metadata table (it holds "
                             f"{ {k: len(v) for k, v in self.meta.items()} })", tok)
        return table[index]

    def dotted_name(self) -> str:
        parts = [self.expect("ident").value]
        while self.is_("punct", ".") and self.is_("ident", k=1):
            self.pos += 1
            parts.append(self.accept("ident").value)
        return ".".join(parts)

    def atom(self) -> _expr.Expr:
        tok = self.peek()
        kind = tok.kind
        if kind in ("int", "float"):
            self.pos += 1
            value, dtype = tok.value
            e = _expr.const(value, dtype)
        elif kind == "bool":
            self.pos += 1
            e = _expr.const(tok.value, "bool")
        elif kind == "local":
            self.pos += 1
            e = self.lookup(tok)
        elif kind == "global":
            self.pos += 1
            e = self.global_var(tok.value)
        elif kind == "graph":
            self.pos += 1
            if tok.value not in self.graph:
                raise self.error(f"`%{tok.value}` is not bound", tok)
            e = self.graph[tok.value]
        elif kind == "ident" and tok.value in self.ctors:
            self.pos += 1
            e = self.ctors[tok.value]
            if not e.inputs and not self.is_("punct", "("):
                e = _expr.Call(e, [])  # `Nil`: a nullary constructor's value
        elif kind == "ident":
            name = self.dotted_name()
            try:
                e = registry.get(name)
            except Exception:
                raise self.error(f"operator `{name}` not found, perhaps you forgot to "
                                 "register it?", tok) from None
        elif kind == "meta":
            e = self.meta_ref()
        elif kind == "keyword" and tok.value == "fn":
            self.pos += 1
            e = self.function_def()
        elif kind == "keyword" and tok.value == "if":
            self.pos += 1
            self.expect("punct", "(")
            cond = self.expr()
            self.expect("punct", ")")
            then = self.block()
            self.expect("keyword", "else")
            e = _expr.If(cond, then, self.block())
        elif kind == "keyword" and tok.value in _REFS:
            self.pos += 1
            cls, n = _REFS[tok.value]
            self.expect("punct", "(")
            args = [self.expr()]
            while len(args) < n:
                self.expect("punct", ",")
                args.append(self.expr())
            self.expect("punct", ")")
            e = cls(*args)
        elif kind == "keyword" and tok.value == "match":
            self.pos += 1
            e = self.match()
        elif kind == "punct" and tok.value == "(":
            self.pos += 1
            if self.accept("punct", ")"):
                e = _expr.Tuple([])
            else:
                first = self.expr()
                if self.accept("punct", ")"):
                    e = first
                else:
                    self.expect("punct", ",", what="`,` or `)`")
                    fields = [first]
                    while not self.accept("punct", ")"):
                        fields.append(self.expr())
                        if not self.accept("punct", ","):
                            self.expect("punct", ")", what="`,` or `)` in a tuple")
                            break
                    e = _expr.Tuple(fields)
        else:
            raise self.error(f"expected an expression, found {_describe(tok)}")
        while self.is_("punct", ".") and self.is_("int", k=1):
            self.pos += 1
            e = _expr.TupleGetItem(e, self.accept("int").value[0])
        return e

    def match(self) -> "_adt.Match":
        """``match (e) { pattern => rhs, ... }`` after ``match``; ``match?``: incomplete."""
        complete = self.accept("punct", "?") is None
        self.expect("punct", "(")
        data = self.expr()
        self.expect("punct", ")")
        self.expect("punct", "{")
        clauses = []
        while not self.accept("punct", "}"):
            self.scopes.append({})
            lhs = self.pattern()
            self.expect("punct", "=")
            self.expect("punct", ">")
            rhs = self.block() if self.is_("punct", "{") else self.binop()
            self.scopes.pop()
            clauses.append(_adt.Clause(lhs, rhs))
            if not self.accept("punct", ","):
                self.expect("punct", "}")
                break
        return _adt.Match(data, clauses, complete)

    def pattern(self) -> "_adt.Pattern":
        tok = self.peek()
        if self.accept("punct", "_"):
            return _adt.PatternWildcard()
        if tok.kind == "local":
            self.pos += 1
            ty = self.type_() if self.accept("punct", ":") else None
            return _adt.PatternVar(self.bind(tok.value, ty))
        if self.accept("punct", "("):
            pats = []
            while not self.accept("punct", ")"):
                pats.append(self.pattern())
                if not self.accept("punct", ","):
                    self.expect("punct", ")")
                    break
            return _adt.PatternTuple(pats)
        if tok.kind == "ident":
            if tok.value not in self.ctors:
                raise self.error(f"unknown constructor `{tok.value}` in a pattern", tok)
            self.pos += 1
            pats = []
            if self.accept("punct", "("):
                while not self.accept("punct", ")"):
                    pats.append(self.pattern())
                    if not self.accept("punct", ","):
                        self.expect("punct", ")")
                        break
            return _adt.PatternConstructor(self.ctors[tok.value], pats)
        raise self.error(f"expected a pattern, found {_describe(tok)}")

    # ------------------------------------------------------------------ types
    def type_var(self, name: str):
        for scope in reversed(self.type_scopes):
            if name in scope:
                return scope[name]
        return None

    def type_(self):
        tok = self.peek()
        if self.accept("punct", "("):
            fields = []
            while not self.accept("punct", ")"):
                fields.append(self.type_())
                if not self.accept("punct", ","):
                    self.expect("punct", ")")
                    break
            return TupleType(fields)
        if self.accept("keyword", "ref"):
            self.expect("punct", "(")
            value = self.type_()
            self.expect("punct", ")")
            return RefType(value)
        if self.accept("keyword", "fn"):
            self.type_scopes.append({})
            try:
                tps = self.type_params()
                return self._func_type(tps)
            finally:
                self.type_scopes.pop()
        if self.accept("punct", "_"):
            return IncompleteType()  # left for inference
        name = self.expect("ident", what="a type").value
        tv = self.type_var(name)
        if tv is not None:
            return tv
        if name in self.adts:
            gtv = self.adts[name]
            if not self.accept("punct", "["):
                return gtv
            args = []
            while not self.accept("punct", "]"):
                args.append(self.type_())
                if not self.accept("punct", ","):
                    self.expect("punct", "]")
                    break
            return TypeCall(gtv, args)
        return self.tensor_type(tok, name)

    def _func_type(self, tps: List[TypeVar]) -> FuncType:
        self.expect("punct", "(")
        args = []
        while not self.accept("punct", ")"):
            args.append(self.type_())
            if not self.accept("punct", ","):
                self.expect("punct", ")")
                break
        self.expect("punct", "-")
        self.expect("punct", ">")
        return FuncType(args, self.type_(), tps)

    def tensor_type(self, tok: _Token, name: str) -> TensorType:
        if name == "Tensor":
            self.expect("punct", "[")
            self.expect("punct", "(")
            dims = []
            while not self.accept("punct", ")"):
                if self.is_("meta"):
                    dims.append(self.meta_ref())
                elif self.accept("punct", "?"):
                    dims.append(_tir.Any())
                else:
                    dims.append(self.expect("int", what="a dimension").value[0])
                if not self.accept("punct", ","):
                    self.expect("punct", ")")
                    break
            self.expect("punct", ",")
            dtype = self.expect("ident", what="a dtype").value
            self.expect("punct", "]")
            return TensorType(dims, dtype)
        if re.fullmatch(r"(u?int|float|bfloat)(\d+(x\d+)?)?|bool", name):  # `int`: int32
            return TensorType((), name)
        raise self.error(f"unknown type `{name}` (not a dtype, a type parameter in scope "
                         "or a defined type)", tok)


def _parser(source: str, source_name: str, init_meta_table=None) -> _Parser:
    if not isinstance(source, str):
        raise DiagnosticError(f"relay parser: the source must be a str, got "
                              f"{type(source).__name__}")
    src = _Source(source_name, source)
    tokens, metadata = tokenize(src)
    meta = _load_metadata(src, metadata)
    for key, items in (init_meta_table or {}).items():
        meta[key] = list(meta.get(key, [])) + list(items)
    return _Parser(src, tokens, meta)


def _typed(mod: IRModule) -> IRModule:
    """``mod`` after type inference, as classic's parser returns it, where every parameter
    is annotated; otherwise ``mod`` as parsed."""
    from .transform import InferType
    for func in mod.functions.values():
        if not isinstance(func, _expr.Function):
            return mod
        for n in _expr.post_order(func):
            if isinstance(n, _expr.Function) and \
                    any(p.type_annotation is None for p in n.params):
                return mod
    return InferType()(mod)


def parse(source: str, source_name: str = "from_string", init_module: Optional[IRModule] = None,
          init_meta_table: Optional[Dict[str, List[Any]]] = None) -> IRModule:
    """Classic ``tvm.relay.parse``: the IRModule of a program in the relay text format
    (``#[version = "0.0.5"]`` then ``def @name(...) { ... }`` definitions, then an optional
    ``#[metadata]`` section); its functions are added to ``init_module`` when given, and
    ``init_meta_table`` ({type_key: [objects]}) extends the metadata the text refers to.

    Raises
    ------
    DiagnosticError
        On a syntax error (the message names the line and column).
    """
    p = _parser(source, source_name, init_meta_table)
    mod = p.module(init_module if init_module is not None else IRModule())
    return _typed(mod)


def parse_expr(source: str) -> _expr.Expr:
    """Classic ``tvm.relay.parse_expr``: one relay expression in the text format (the version
    header is optional)."""
    p = _parser(source, "string")
    p.version(required=False)
    e = p.expr()
    p.expect("eof", what="the end of the input")
    return e


def fromtext(source: str, source_name: str = "from_string") -> IRModule:
    """Classic ``tvm.relay.fromtext``: :func:`parse`."""
    return parse(source, source_name)


__all__ = ["parse", "parse_expr", "fromtext", "tokenize", "meta_from_json"]
