"""TVMScript parser: Python source (a ``@T.prim_func`` function, an ``@I.ir_module`` class, or
printed text) to IR.

The source is never executed: its ``ast`` is interpreted. Names resolve to the variables and
buffers the script defines, then to the Python values around the decorated function (its
closure, the calling frames, its module globals), so constants such as ``N = 128`` can be used
in shapes. ``T.*`` calls are evaluated for real (see :mod:`tvmlite.script.tir_builder`); the spec
objects some of them return are turned into statements here.
"""
from __future__ import annotations

import ast
import builtins
import inspect
import sys
import textwrap
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from .. import _classic
from ..deep_recursion import deep
from ..error import DiagnosticError, TVMError
from ..ir.module import IRModule
from ..tir import op as _op
from ..tir.analysis import block_access_regions
from ..tir.buffer import Buffer, decl_buffer
from ..tir.expr import BufferLoad, IntImm, IterVar, IterVarType, PrimExpr, Ramp, Range, Var
from ..tir.function import PrimFunc
from ..tir.functor import post_order_visit
from ..tir.stmt import (
    Allocate,
    AssertStmt,
    AttrStmt,
    Block,
    BlockRealize,
    BufferRegion,
    BufferStore,
    Evaluate,
    For,
    ForKind,
    IfThenElse,
    LetStmt,
    MatchBufferRegion,
    SeqStmt,
    Stmt,
    While,
)
from . import tir_builder as _T

__all__ = ["from_source", "parse_prim_func", "parse_ir_module"]

_LOOP_FUNCS = {
    _T.serial: ForKind.SERIAL, _T.parallel: ForKind.PARALLEL,
    _T.vectorized: ForKind.VECTORIZED, _T.unroll: ForKind.UNROLLED,
    _T.thread_binding: ForKind.THREAD_BINDING,
}
_SPECIAL_NAMES = {"range": _T.serial}


# --------------------------------------------------------------------------- entry points
@deep
def from_source(source: str, filename: str = "<tvmscript>"):
    """Parse TVMScript text: an ``@I.ir_module`` class gives an IRModule, a function a
    PrimFunc."""
    # the root package and the T / I namespaces (they import this module for their entry
    # points) are loaded before any text is parsed; user code may name the root ``tvm``
    env = {"T": sys.modules[f"{__package__}.tir"], "I": sys.modules[f"{__package__}.ir"],
           "tvm": sys.modules[__name__.partition(".")[0]]}
    text = textwrap.dedent(source)
    parser = _Parser(text, filename, 0, env)
    try:
        tree = ast.parse(text, filename)
    except SyntaxError as e:
        raise parser.syntax_error(e) from None
    defs = [n for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))]
    if len(defs) != 1:
        raise DiagnosticError(f"{filename}: expected exactly one class or function, "
                              f"found {len(defs)}")
    d = defs[0]
    if isinstance(d, ast.ClassDef):
        return parser.parse_module(d)
    return parser.parse_function(d, _private_from_decorators(parser, d))


def _caller_env(depth: int, func=None) -> Dict[str, Any]:
    """Python names visible where a decorator was applied (globals, frame locals, closure)."""
    frames = []
    f = sys._getframe(depth + 1)
    for _ in range(4):
        if f is None:
            break
        frames.append(f)
        f = f.f_back
    env: Dict[str, Any] = {}
    for fr in reversed(frames):
        env.update(fr.f_globals)
    if func is not None:
        env.update(func.__globals__)
    for fr in reversed(frames):
        env.update(fr.f_locals)
    if func is not None and func.__closure__:
        for name, cell in zip(func.__code__.co_freevars, func.__closure__):
            try:
                env[name] = cell.cell_contents
            except ValueError:  # an empty cell
                pass
    return env


def _source_of(obj):
    try:
        lines, start = inspect.getsourcelines(obj)
        filename = inspect.getsourcefile(obj) or "<unknown>"
    except (OSError, TypeError) as e:
        raise DiagnosticError(f"cannot get the source of {obj!r} to parse it as TVMScript "
                              f"({e}); use tvmlite.script.from_source instead") from None
    return textwrap.dedent("".join(lines)), filename, start - 1


def parse_prim_func(func, private: bool = False, depth: int = 1) -> PrimFunc:
    """Parse the Python function ``func`` (written in TVMScript) into a PrimFunc."""
    if isinstance(func, PrimFunc):
        return func
    env = _caller_env(depth, func)
    text, filename, offset = _source_of(func)
    return _parse_function_text(text, filename, offset, env, private)


@deep
def _parse_function_text(text: str, filename: str, offset: int, env: Dict[str, Any],
                         private: bool) -> PrimFunc:
    parser = _Parser(text, filename, offset, env)
    try:
        tree = ast.parse(text, filename)
    except SyntaxError as e:
        raise parser.syntax_error(e) from None
    fdef = next((n for n in tree.body if isinstance(n, ast.FunctionDef)), None)
    if fdef is None:
        raise DiagnosticError(f"{filename}:{offset + 1}: @T.prim_func expects a function")
    return parser.parse_function(fdef, private)


def parse_ir_module(cls, depth: int = 1) -> IRModule:
    """Collect the ``@T.prim_func`` methods of ``cls`` into an IRModule."""
    if isinstance(cls, IRModule):
        return cls
    funcs = {}
    for name, value in vars(cls).items():
        if isinstance(value, PrimFunc):
            funcs[name] = value
    if not funcs:
        text, filename, offset = _source_of(cls)
        raise DiagnosticError(f"{filename}:{offset + 1}: @I.ir_module class {cls.__name__} "
                              "has no @T.prim_func method")
    return IRModule(funcs)


def prim_func(func=None, private: bool = False, check_well_formed: bool = True):
    """Parse a Python function written in TVMScript into a :class:`~tvmlite.tir.PrimFunc`."""
    if func is None:
        return lambda f: parse_prim_func(f, private=private, depth=2)
    return parse_prim_func(func, private=private, depth=2)


def ir_module(cls=None, check_well_formed: bool = True):
    """Parse a class of ``@T.prim_func`` methods into an :class:`~tvmlite.ir.IRModule`."""
    if cls is None:
        return lambda c: parse_ir_module(c, depth=2)
    return parse_ir_module(cls, depth=2)


def _private_from_decorators(parser: "_Parser", fdef: ast.FunctionDef) -> bool:
    for d in fdef.decorator_list:
        if isinstance(d, ast.Call):
            for kw in d.keywords:
                if kw.arg == "private":
                    return bool(parser.eval(kw.value))
    return False


# --------------------------------------------------------------------------- frames
@dataclass
class _FuncFrame:
    attrs: Dict[str, Any] = field(default_factory=dict)
    buffer_map: Dict[Var, Buffer] = field(default_factory=dict)
    alloc_buffers: List[Buffer] = field(default_factory=list)


@dataclass
class _BlockFrame:
    name: str
    iter_vars: List[IterVar] = field(default_factory=list)
    iter_values: List[PrimExpr] = field(default_factory=list)
    reads: Optional[tuple] = None
    writes: Optional[tuple] = None
    where: Optional[PrimExpr] = None
    annotations: Optional[Dict[str, Any]] = None
    alloc_buffers: List[Buffer] = field(default_factory=list)
    match_buffers: List[Any] = field(default_factory=list)
    init: Optional[Stmt] = None


class _Error(Exception):
    """Internal: an error located at an AST node."""

    def __init__(self, node, msg):
        super().__init__(msg)
        self.node, self.msg = node, msg


# --------------------------------------------------------------------------- the parser
class _Parser:
    def __init__(self, text: str, filename: str, line_offset: int, env: Dict[str, Any]):
        self.lines = text.splitlines()
        self.filename = filename
        self.offset = line_offset
        self.env = env
        self.scopes: List[Dict[str, Any]] = []
        self.func: Optional[_FuncFrame] = None
        self.blocks: List[_BlockFrame] = []
        self.loop_ranges: Dict[Var, Range] = {}

    # ---------------------------------------------------------------- errors
    def _diag(self, lineno: int, col: int, msg: str) -> DiagnosticError:
        src = self.lines[lineno - 1] if 0 < lineno <= len(self.lines) else ""
        n = lineno + self.offset
        caret = " " * (len(str(n)) + 3 + max(col, 0)) + "^"
        return DiagnosticError(f"{self.filename}:{n}:{col + 1}: error: {msg}\n"
                               f"{n} | {src}\n{caret}")

    def error(self, node, msg: str) -> DiagnosticError:
        return self._diag(getattr(node, "lineno", 0), getattr(node, "col_offset", 0), msg)

    def syntax_error(self, e: SyntaxError) -> DiagnosticError:
        return self._diag(e.lineno or 0, (e.offset or 1) - 1, f"invalid syntax: {e.msg}")

    def _guard(self, node, fn, *args):
        try:
            return fn(*args)
        except (_Error, DiagnosticError):
            raise
        except (TVMError, TypeError, ValueError, ZeroDivisionError, AttributeError, KeyError,
                IndexError) as e:
            raise _Error(node, f"{type(e).__name__}: {e}") from None

    # ---------------------------------------------------------------- names
    def lookup(self, node: ast.Name):
        name = node.id
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        if name in _SPECIAL_NAMES:
            return _SPECIAL_NAMES[name]
        if name in self.env:
            return self.env[name]
        if hasattr(builtins, name):
            return getattr(builtins, name)
        raise _Error(node, f"undefined name {name!r}")

    def bind(self, name: str, value) -> None:
        self.scopes[-1][name] = value

    # ---------------------------------------------------------------- module / function
    def parse_module(self, cdef: ast.ClassDef) -> IRModule:
        funcs = {}
        for item in cdef.body:
            if isinstance(item, ast.FunctionDef):
                funcs[item.name] = self.parse_function(
                    item, _private_from_decorators(self, item))
            elif isinstance(item, ast.Expr) and isinstance(item.value, ast.Constant):
                continue  # docstring
            elif not isinstance(item, ast.Pass):
                raise self.error(item, "an @I.ir_module class holds only @T.prim_func "
                                       "functions")
        return IRModule(funcs)

    def parse_function(self, fdef: ast.FunctionDef, private: bool = False) -> PrimFunc:
        try:
            return self._function(fdef, private)
        except _Error as e:
            raise self.error(e.node, e.msg) from None

    def _function(self, fdef: ast.FunctionDef, private: bool) -> PrimFunc:
        self.func = _FuncFrame()
        self.scopes = [{}]
        self.blocks = []
        params: List[Var] = []
        a = fdef.args
        if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs:
            raise _Error(fdef, "a prim_func takes plain positional parameters only")
        for arg in a.args:
            if arg.annotation is None:
                raise _Error(arg, f"parameter {arg.arg!r} needs a type annotation "
                                  "(T.Buffer(...), T.handle, T.int32 ...)")
            ann = self.eval(arg.annotation)
            if isinstance(ann, _T.BufferSpec):
                p = Var(arg.arg, "handle")
                buf = self._guard(arg, self.make_buffer, ann, arg.arg)
                self.func.buffer_map[p] = buf
                self.bind(arg.arg, buf)
            elif isinstance(ann, _T.DTypeFunc):
                p = Var(arg.arg, ann.dtype)
                self.bind(arg.arg, p)
            else:
                raise _Error(arg.annotation, f"bad annotation for parameter {arg.arg!r}")
            params.append(p)
        body = self.stmts(fdef.body)
        frame = self.func
        allocs = tuple(frame.alloc_buffers)
        has_block = []
        post_order_visit(body, lambda n: has_block.append(1) if isinstance(n, BlockRealize)
                         else None)
        explicit_root = (isinstance(body, BlockRealize) and not body.block.iter_vars
                         and body.block.name_hint == "root")
        if allocs or (has_block and not explicit_root):
            root = Block((), (), (), "root", body, None, allocs, (), None)
            body = BlockRealize((), IntImm("bool", 1), root)
        attrs = frame.attrs
        if not private and "global_symbol" not in attrs and not _classic.PARSER_V012:
            attrs["global_symbol"] = fdef.name
        bmap = {p: frame.buffer_map[p] for p in params if p in frame.buffer_map}
        self.func = None
        return PrimFunc(tuple(params), body, None, bmap, attrs)

    def make_buffer(self, spec: "_T.BufferSpec", name: str) -> Buffer:
        return decl_buffer(spec.shape, spec.dtype, name, spec.data,
                           list(spec.strides) or None, spec.elem_offset, spec.scope,
                           spec.align, spec.offset_factor,
                           axis_separators=list(spec.axis_separators) or None)

    # ---------------------------------------------------------------- statements
    def stmts(self, nodes: List[ast.stmt]) -> Stmt:
        out: List[Stmt] = []
        i = 0
        while i < len(nodes):
            node = nodes[i]
            rest = nodes[i + 1:]
            res = self._guard(node, self.stmt, node, rest)
            if isinstance(res, tuple):  # the statement consumed the rest of the block
                out.append(res[0])
                break
            if res is not None:
                out.append(res)
            i += 1
        if not out:
            return Evaluate(IntImm("int32", 0))
        return out[0] if len(out) == 1 else SeqStmt(tuple(out))

    def scoped(self, nodes, names: Dict[str, Any]) -> Stmt:
        self.scopes.append(dict(names))
        try:
            return self.stmts(nodes)
        finally:
            self.scopes.pop()

    def stmt(self, node: ast.stmt, rest):
        """One statement; a 1-tuple result means it took ``rest`` as its body."""
        if isinstance(node, ast.For):
            return self.for_stmt(node)
        if isinstance(node, ast.With):
            return self.with_stmt(node)
        if isinstance(node, ast.If):
            cond = _op.convert(self.eval(node.test))
            then = self.scoped(node.body, {})
            other = self.scoped(node.orelse, {}) if node.orelse else None
            return IfThenElse(cond, then, other)
        if isinstance(node, ast.While):
            if node.orelse:
                raise _Error(node, "while ... else is not supported")
            return While(_op.convert(self.eval(node.test)), self.scoped(node.body, {}))
        if isinstance(node, ast.Assert):
            cond = _op.convert(self.eval(node.test))
            msg = _op.convert(self.eval(node.msg) if node.msg is not None else "")
            return (AssertStmt(cond, msg, self.scoped(rest, {})),)
        if isinstance(node, ast.AnnAssign):
            return self.ann_assign(node, rest)
        if isinstance(node, ast.Assign):
            return self.assign(node, rest)
        if isinstance(node, ast.AugAssign):
            if not isinstance(node.target, ast.Subscript):
                raise _Error(node, "augmented assignment works on buffer elements only "
                                   "(A[i] += v); variables are immutable")
            load = ast.Subscript(node.target.value, node.target.slice, ast.Load())
            value = ast.BinOp(load, node.op, node.value)
            return self.assign(ast.copy_location(
                ast.Assign([node.target], ast.copy_location(value, node)), node), rest)
        if isinstance(node, ast.Expr):
            return self.expr_stmt(node, rest)
        if isinstance(node, (ast.Pass, ast.Import, ast.ImportFrom)):
            return None
        if isinstance(node, ast.Return):
            if node.value is None or (isinstance(node.value, ast.Constant)
                                      and node.value.value is None):
                return None
            raise _Error(node, "a prim_func returns nothing")
        raise _Error(node, f"unsupported statement {type(node).__name__}")

    def for_stmt(self, node: ast.For) -> Stmt:
        if node.orelse:
            raise _Error(node, "for ... else is not supported")
        spec = self.eval(node.iter)
        if not isinstance(spec, _T.LoopSpec):
            raise _Error(node.iter, "a for loop iterates over range(), T.grid(), T.serial(), "
                                    "T.parallel(), T.vectorized(), T.unroll() or "
                                    "T.thread_binding()")
        tgt = node.target
        names = [e for e in tgt.elts] if isinstance(tgt, ast.Tuple) else [tgt]
        if not all(isinstance(n, ast.Name) for n in names):
            raise _Error(tgt, "loop variables must be plain names")
        if len(names) != len(spec.extents):
            raise _Error(tgt, f"{len(names)} loop variables for {len(spec.extents)} loops")
        vars_ = [Var(n.id, e.dtype) for n, e in zip(names, spec.extents)]
        for v, lo, ext in zip(vars_, spec.mins, spec.extents):
            self.loop_ranges[v] = Range(lo, ext)
        body = self.scoped(node.body, {n.id: v for n, v in zip(names, vars_)})
        ann = _normalize_attrs(spec.annotations) if spec.annotations is not None else None
        for v, lo, ext in reversed(list(zip(vars_, spec.mins, spec.extents))):
            binding = None
            if spec.kind == ForKind.THREAD_BINDING:
                binding = IterVar(None, Var(spec.thread, v.dtype), IterVarType.ThreadIndex,
                                  spec.thread)
            body = For(v, lo, ext, spec.kind, body, binding, ann)
        return body

    def with_stmt(self, node: ast.With) -> Optional[Stmt]:
        if len(node.items) != 1:
            raise _Error(node, "one context manager per with statement")
        item = node.items[0]
        ctx = self.eval(item.context_expr)
        var_name = None
        if item.optional_vars is not None:
            if not isinstance(item.optional_vars, ast.Name):
                raise _Error(item.optional_vars, "with ... as <name>")
            var_name = item.optional_vars.id
        if isinstance(ctx, _T.BlockSpec):
            return self.block(node, ctx)
        if isinstance(ctx, _T.InitSpec):
            if not self.blocks:
                raise _Error(node, "T.init() outside a block")
            frame = self.blocks[-1]
            frame.init = self.scoped(node.body, {})
            return None
        if isinstance(ctx, _T.AttrSpec):
            return AttrStmt(ctx.node, ctx.key, ctx.value, self.scoped(node.body, {}))
        if isinstance(ctx, _T.AssertSpec):
            return AssertStmt(ctx.condition, ctx.message, self.scoped(node.body, {}))
        if isinstance(ctx, _T.LetSpec):
            if var_name is None:
                raise _Error(node, "with T.LetStmt(value) as <name>:")
            v = Var(var_name, ctx.dtype or ctx.value.dtype)
            return LetStmt(v, ctx.value, self.scoped(node.body, {var_name: v}))
        if isinstance(ctx, _T.AllocateSpec):
            if var_name is None:
                raise _Error(node, "with T.allocate(...) as <name>:")
            v = Var(var_name, "handle")
            return Allocate(v, ctx.dtype, ctx.extents, ctx.condition,
                            self.scoped(node.body, {var_name: v}), ctx.annotations, ctx.scope)
        raise _Error(item.context_expr, "unsupported with statement (expected T.block, T.init, "
                                        "T.attr, T.allocate, T.LetStmt or T.Assert)")

    def block(self, node: ast.With, spec: "_T.BlockSpec") -> Stmt:
        frame = _BlockFrame(spec.name)
        self.blocks.append(frame)
        try:
            body = self.scoped(node.body, {})
        finally:
            self.blocks.pop()
        reads, writes = frame.reads, frame.writes
        if reads is None or writes is None:
            dom = {iv.var: iv.dom for iv in frame.iter_vars}
            r, w = block_access_regions(body, frame.init, frame.alloc_buffers, dom)
            if frame.match_buffers:  # a matched buffer is accessed through its source region
                src = {id(m.buffer): m.source for m in frame.match_buffers}
                r, w = [_dedup([src.get(id(x.buffer), x) for x in rs]) for rs in (r, w)]
            reads = r if reads is None else reads
            writes = w if writes is None else writes
        pred = frame.where if frame.where is not None else IntImm("bool", 1)
        blk = Block(tuple(frame.iter_vars), tuple(reads), tuple(writes), spec.name, body,
                    frame.init, tuple(frame.alloc_buffers), tuple(frame.match_buffers),
                    frame.annotations)
        return BlockRealize(tuple(frame.iter_values), pred, blk)

    def ann_assign(self, node: ast.AnnAssign, rest):
        if not isinstance(node.target, ast.Name):
            raise _Error(node.target, "a let binding assigns a plain name")
        ann = self.eval(node.annotation)
        if not isinstance(ann, _T.DTypeFunc):
            raise _Error(node.annotation, "a let binding is annotated with a dtype (T.int32)")
        name = node.target.id
        v = Var(name, ann.dtype)
        if node.value is None:
            self.bind(name, v)
            return None
        value = _op.convert(self.eval(node.value), ann.dtype)
        return (LetStmt(v, value, self.scoped(rest, {name: v})),)

    def assign(self, node: ast.Assign, rest):
        if len(node.targets) != 1:
            raise _Error(node, "chained assignment is not supported")
        tgt = node.targets[0]
        if isinstance(tgt, ast.Subscript):
            return self.store(tgt, node.value)
        value = self.eval(node.value)
        if isinstance(tgt, ast.Tuple):
            names = [e.id if isinstance(e, ast.Name) else None for e in tgt.elts]
            if None in names:
                raise _Error(tgt, "assignment targets must be plain names")
            if isinstance(value, _T.RemapSpec):
                if len(names) != len(value.bindings):
                    raise _Error(tgt, "T.axis.remap: one name per binding")
                for n, kind, b in zip(names, value.kinds, value.bindings):
                    self.bind(n, self.remap_axis(tgt, n, kind, b))
                return None
            vals = list(value)
            if len(vals) != len(names):
                raise _Error(tgt, f"cannot unpack {len(vals)} values into {len(names)} names")
            for n, v in zip(names, vals):
                self.bind(n, v)
            return None
        if not isinstance(tgt, ast.Name):
            raise _Error(tgt, "unsupported assignment target")
        name = tgt.id
        if isinstance(value, _T.VarSpec):
            self.bind(name, value.make(name))
        elif isinstance(value, _T.BufferSpec):
            self.bind(name, self.make_buffer(value, name))
        elif isinstance(value, _T.MatchBufferSpec):
            p = value.param
            if isinstance(p, BufferRegion):
                if not self.blocks:
                    raise _Error(node.value, "T.match_buffer of a buffer region must be inside "
                                             "a block")
                buf = self.make_buffer(value.spec, name)
                self.blocks[-1].match_buffers.append(MatchBufferRegion(buf, p))
                self.bind(name, buf)
                return None
            if not isinstance(p, Var) or p.dtype != "handle":
                raise _Error(node.value, "T.match_buffer binds a T.handle parameter or, inside "
                                         "a block, a buffer region such as A[i, 0:16]")
            if self.blocks:
                raise _Error(node.value, "T.match_buffer of a T.handle must be at function "
                                         "level")
            buf = self.make_buffer(value.spec, name)
            self.func.buffer_map[p] = buf
            self.bind(name, buf)
        elif isinstance(value, _T.AllocBufferSpec):
            buf = self.make_buffer(value.spec, name)
            (self.blocks[-1] if self.blocks else self.func).alloc_buffers.append(buf)
            self.bind(name, buf)
        elif isinstance(value, _T.AxisSpec):
            if not self.blocks:
                raise _Error(node.value, "T.axis.* outside a block")
            v = Var(name, value.binding.dtype)
            self.blocks[-1].iter_vars.append(IterVar(value.dom, v, value.iter_type))
            self.blocks[-1].iter_values.append(value.binding)
            self.bind(name, v)
        elif isinstance(value, _T.RemapSpec):
            if len(value.bindings) != 1:
                raise _Error(tgt, "T.axis.remap: one name per binding")
            self.bind(name, self.remap_axis(tgt, name, value.kinds, value.bindings[0]))
        elif isinstance(value, _T.AllocateSpec):
            v = Var(name, "handle")
            body = self.scoped(rest, {name: v})
            return (Allocate(v, value.dtype, value.extents, value.condition, body,
                             value.annotations, value.scope),)
        else:
            self.bind(name, value)  # a Python-level alias
        return None

    def remap_axis(self, node, name: str, kind: str, binding) -> Var:
        if not self.blocks:
            raise _Error(node, "T.axis.remap outside a block")
        binding = _op.convert(binding)
        dom = self.loop_ranges.get(binding) if isinstance(binding, Var) else None
        if dom is None:
            raise _Error(node, "T.axis.remap binds loop variables only")
        v = Var(name, binding.dtype)
        itype = IterVarType.DataPar if kind == "S" else IterVarType.CommReduce
        self.blocks[-1].iter_vars.append(IterVar(dom, v, itype))
        self.blocks[-1].iter_values.append(binding)
        return v

    def store(self, tgt: ast.Subscript, value_node) -> Stmt:
        buf = self.eval(tgt.value)
        if not isinstance(buf, Buffer):
            raise _Error(tgt.value, "only buffer elements can be assigned")
        indices = self.indices(tgt.slice)
        _check_ndim(tgt, buf, indices)
        value = self.eval(value_node)
        value = _op.convert(value, buf.dtype)
        return BufferStore(buf, value, tuple(indices))

    def expr_stmt(self, node: ast.Expr, rest):
        value = self.eval(node.value)
        if isinstance(value, _T.Directive):
            self.directive(node, value)
            return None
        if isinstance(value, _T.AttrSpec):
            return (AttrStmt(value.node, value.key, value.value, self.scoped(rest, {})),)
        if isinstance(value, Stmt):
            return value
        if isinstance(value, (PrimExpr, IterVar)):
            return Evaluate(_op.convert(value))
        if value is None or isinstance(value, str):  # docstrings, comments as strings
            return None
        raise _Error(node, f"expression statement of type {type(value).__name__} has no "
                           "meaning in TVMScript")

    def directive(self, node, d: "_T.Directive") -> None:
        if d.kind == "func_attr":
            if self.blocks:
                raise _Error(node, "T.func_attr inside a block")
            self.func.attrs.update(_normalize_attrs(d.value))
            return
        if not self.blocks:
            raise _Error(node, f"T.{d.kind} outside a block")
        frame = self.blocks[-1]
        if d.kind in ("reads", "writes"):
            regions = []
            for r in d.value:
                if isinstance(r, Buffer):
                    r = BufferRegion.full_region(r)
                if not isinstance(r, BufferRegion):
                    raise _Error(node, f"T.{d.kind} takes buffer regions such as A[i, 0:8]")
                regions.append(r)
            setattr(frame, d.kind, tuple(regions))
        elif d.kind == "where":
            # The predicate belongs to the block realize: it sees loop variables only.
            own = {id(iv.var) for iv in frame.iter_vars}
            used = [v.name for v in _vars_of(d.value) if id(v) in own]
            if used:
                raise _Error(node, f"T.where uses the block iterator {used[0]!r}; the "
                                   "predicate is written over the loop variables")
            frame.where = d.value
        elif d.kind == "block_attr":
            frame.annotations = _normalize_attrs(d.value)

    # ---------------------------------------------------------------- expressions
    def eval(self, node):
        try:
            return self._eval(node)
        except (_Error, DiagnosticError):
            raise
        except (TVMError, TypeError, ValueError, ZeroDivisionError, AttributeError, KeyError,
                IndexError) as e:
            raise _Error(node, f"{type(e).__name__}: {e}") from None

    def _eval(self, node):
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return self.lookup(node)
        if isinstance(node, ast.Attribute):
            base = self.eval(node.value)
            try:
                return getattr(base, node.attr)
            except AttributeError:
                raise _Error(node, f"{ast.unparse(node.value)} has no attribute "
                                   f"{node.attr!r}") from None
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.BinOp):
            return self.binop(node)
        if isinstance(node, ast.UnaryOp):
            v = self.eval(node.operand)
            py = not _is_expr(v)
            if isinstance(node.op, ast.USub):
                return -v if py else _op.neg(v)
            if isinstance(node.op, ast.UAdd):
                return v
            if isinstance(node.op, ast.Not):
                return (not v) if py else _op.logical_not(v)
            if isinstance(node.op, ast.Invert):
                return ~v if py else _op.bitwise_not(v)
        if isinstance(node, ast.BoolOp):
            vals = [self.eval(v) for v in node.values]
            f = _op.logical_and if isinstance(node.op, ast.And) else _op.logical_or
            if not any(_is_expr(v) for v in vals):
                r = vals[0]
                for v in vals[1:]:
                    r = (r and v) if isinstance(node.op, ast.And) else (r or v)
                return r
            r = vals[0]
            for v in vals[1:]:
                r = f(r, v)
            return r
        if isinstance(node, ast.Compare):
            left = self.eval(node.left)
            result = None
            for cop, right_node in zip(node.ops, node.comparators):
                right = self.eval(right_node)
                c = self.compare(cop, left, right, node)
                result = c if result is None else (
                    _op.logical_and(result, c) if _is_expr(c) or _is_expr(result)
                    else (result and c))
                left = right
            return result
        if isinstance(node, ast.Subscript):
            base = self.eval(node.value)
            if isinstance(base, Buffer):
                return self.load(base, node.slice)
            return base[self.eval(node.slice)]
        if isinstance(node, ast.Tuple):
            return tuple(self.eval(e) for e in node.elts)
        if isinstance(node, ast.List):
            return [self.eval(e) for e in node.elts]
        if isinstance(node, ast.Dict):
            return {self.eval(k): self.eval(v) for k, v in zip(node.keys, node.values)}
        if isinstance(node, ast.Slice):
            return slice(*(None if x is None else self.eval(x)
                           for x in (node.lower, node.upper, node.step)))
        if isinstance(node, ast.IfExp):
            raise _Error(node, "conditional expressions: use T.if_then_else or T.Select")
        raise _Error(node, f"unsupported expression {type(node).__name__}")

    def binop(self, node: ast.BinOp):
        a, b = self.eval(node.left), self.eval(node.right)
        op = node.op
        if not _is_expr(a) and not _is_expr(b):
            return _PY_BINOPS[type(op)](a, b)
        fn = _EXPR_BINOPS.get(type(op))
        if fn is None:
            raise _Error(node, f"operator {type(op).__name__} is not supported on expressions")
        return fn(a, b)

    def compare(self, cop, a, b, node):
        if not _is_expr(a) and not _is_expr(b):
            return _PY_CMPS[type(cop)](a, b)
        fn = _EXPR_CMPS.get(type(cop))
        if fn is None:
            raise _Error(node, f"comparison {type(cop).__name__} is not supported")
        return fn(a, b)

    def call(self, node: ast.Call):
        func = self.eval(node.func)
        if func is _T.match_buffer and node.args and isinstance(node.args[0], ast.Subscript):
            region = self.region_arg(node.args[0])
            if isinstance(region, BufferRegion):  # a region matched inside a block
                kwargs = {kw.arg: self.eval(kw.value) for kw in node.keywords}
                return func(region, *[self.eval(a) for a in node.args[1:]], **kwargs)
        if func is _T.reads or func is _T.writes:
            regions = []
            for a in node.args:
                r = self.region_arg(a)
                regions.extend(r if isinstance(r, list) else [r])
            return func(*regions)
        if any(isinstance(a, ast.Starred) for a in node.args):
            args = []
            for a in node.args:
                if isinstance(a, ast.Starred):
                    args.extend(self.eval(a.value))
                else:
                    args.append(self.eval(a))
        else:
            args = [self.eval(a) for a in node.args]
        kwargs = {}
        for kw in node.keywords:
            if kw.arg is None:
                raise _Error(kw, "**kwargs are not supported")
            kwargs[kw.arg] = self.eval(kw.value)
        if func in _LOOP_FUNCS and len(args) >= 2 and not isinstance(args[1], str):
            # range(lo, lo + ext): keep ``ext`` as written instead of (lo + ext) - lo
            ext = self.extent(node.args[0], args[0], node.args[1], args[1])
            lo = _op.convert(args[0])
            thread = kwargs.get("thread", args[2] if len(args) > 2 else "")
            return _T.LoopSpec(_LOOP_FUNCS[func], [lo], [ext], thread,
                               kwargs.get("annotations"))
        if func is prim_func or func is ir_module:
            raise _Error(node, "nested prim_func / ir_module is not supported")
        try:
            return func(*args, **kwargs)
        except (_Error, DiagnosticError):
            raise
        except (TVMError, TypeError, ValueError, ZeroDivisionError, AttributeError, KeyError,
                IndexError) as e:
            raise _Error(node, f"{type(e).__name__}: {e}") from None

    def extent(self, lo_node, lo, hi_node, hi):
        """The extent of ``[lo, hi)``, reading ``hi`` written as ``lo + ext`` literally."""
        if (isinstance(hi_node, ast.BinOp) and isinstance(hi_node.op, ast.Add)
                and ast.dump(hi_node.left) == ast.dump(lo_node)):
            return _op.convert(self.eval(hi_node.right))
        return _op.sub(hi, lo)

    def indices(self, slice_node) -> list:
        elts = slice_node.elts if isinstance(slice_node, ast.Tuple) else [slice_node]
        out = []
        for e in elts:
            if isinstance(e, ast.Slice):
                if e.lower is None or e.upper is None or e.step is not None:
                    raise _Error(e, "a vector index is written lo:hi")
                lo = self.eval(e.lower)
                ext = self.extent(e.lower, lo, e.upper, self.eval(e.upper))
                if not isinstance(ext, IntImm):
                    raise _Error(e, "a vector index needs a constant number of lanes")
                out.append(Ramp(_op.convert(lo), _op.const(1, _op.convert(lo).dtype),
                                ext.value))
            else:
                v = self.eval(e)
                if isinstance(v, tuple):  # A[idx] with idx a tuple of indices
                    out.extend(_op.convert(x) for x in v)
                else:
                    out.append(_op.convert(v))
        return out

    def load(self, buf: Buffer, slice_node):
        indices = self.indices(slice_node)
        _check_ndim(slice_node, buf, indices)
        return BufferLoad(buf, tuple(indices))

    def region_arg(self, node):
        if isinstance(node, (ast.List, ast.Tuple)):
            out = []
            for e in node.elts:
                r = self.region_arg(e)
                out.extend(r if isinstance(r, list) else [r])
            return out
        if isinstance(node, ast.Subscript):
            buf = self.eval(node.value)
            if isinstance(buf, Buffer):
                elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
                ranges = []
                for d, e in enumerate(elts):
                    if isinstance(e, ast.Slice):
                        if e.step is not None:
                            raise _Error(e, "a region is written lo:hi")
                        # classic: an omitted bound is the dimension's start or end
                        lo = _op.convert(self.eval(e.lower) if e.lower is not None else 0)
                        if e.upper is None:
                            if d >= len(buf.shape):
                                raise _Error(e, f"{buf.name} has {len(buf.shape)} dimensions")
                            ext = _op.sub(buf.shape[d], lo)
                        else:
                            ext = self.extent(e.lower, lo, e.upper, self.eval(e.upper)) \
                                if e.lower is not None else _op.convert(self.eval(e.upper))
                        ranges.append(Range(lo, ext))
                    else:
                        v = _op.convert(self.eval(e))
                        ranges.append(Range(v, _op.const(1, v.dtype)))
                return BufferRegion(buf, tuple(ranges))
        return self.eval(node)


# --------------------------------------------------------------------------- helpers
def _dedup(regions) -> tuple:
    out = []
    for r in regions:
        if not any(r is x for x in out):
            out.append(r)
    return tuple(out)


def _is_expr(x) -> bool:
    return isinstance(x, (PrimExpr, IterVar))


def _normalize_attrs(attrs) -> Dict[str, Any]:
    """Attribute dicts keep Python values; ``T.bool(True)`` is stored as ``True``."""
    out = {}
    for k, v in attrs.items():
        if isinstance(v, IntImm) and v.dtype == "bool":
            v = bool(v.value)
        out[k] = v
    return out


_PY_BINOPS = {
    ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b, ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b, ast.Pow: lambda a, b: a ** b,
    ast.LShift: lambda a, b: a << b, ast.RShift: lambda a, b: a >> b,
    ast.BitAnd: lambda a, b: a & b, ast.BitOr: lambda a, b: a | b,
    ast.BitXor: lambda a, b: a ^ b,
}
_EXPR_BINOPS = {
    ast.Add: _op.add, ast.Sub: _op.sub, ast.Mult: _op.mul, ast.Div: _op.true_div,
    ast.FloorDiv: _op.floordiv, ast.Mod: _op.floormod, ast.LShift: _op.shift_left,
    ast.RShift: _op.shift_right, ast.BitAnd: _op.bitwise_and, ast.BitOr: _op.bitwise_or,
    ast.BitXor: _op.bitwise_xor,
}
_PY_CMPS = {
    ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b, ast.Lt: lambda a, b: a < b,
    ast.LtE: lambda a, b: a <= b, ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b,
    ast.Is: lambda a, b: a is b, ast.IsNot: lambda a, b: a is not b,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}
_EXPR_CMPS = {
    ast.Eq: _op.eq, ast.NotEq: _op.ne, ast.Lt: _op.lt, ast.LtE: _op.le, ast.Gt: _op.gt,
    ast.GtE: _op.ge,
}


# --------------------------------------------------------------------------- access regions


def _check_ndim(node, buf: Buffer, indices) -> None:
    if len(indices) != len(buf.shape):
        raise _Error(node, f"buffer {buf.name} has {len(buf.shape)} dimensions but is "
                           f"indexed with {len(indices)}")


def _vars_of(e) -> list:
    out = []
    post_order_visit(e, lambda n: out.append(n) if isinstance(n, Var) else None)
    return out
