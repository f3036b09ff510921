"""Parse a hybrid script (a Python function of loops over tensors) into the body of a
:class:`~tvmlite.te.tensor.HybridOp`: TIR statements over the buffers of its inputs and outputs,
lowered like a ``te.extern`` body."""
from __future__ import annotations

import ast
import inspect
import numbers
import textwrap
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from ...arith import Analyzer
from ...error import TVMError
from ...ir import dtype as _dt
from ...tir import op as _op
from ...tir.buffer import Buffer, decl_buffer
from ...tir.expr import (
    BufferLoad,
    IntImm,
    IterVar,
    IterVarType,
    PrimExpr,
    Range,
    Select,
    StringImm,
    Var,
)
from ...tir.functor import post_order_visit
from ...tir.stmt import (
    Allocate,
    AssertStmt,
    AttrStmt,
    BufferStore,
    Evaluate,
    For,
    ForKind,
    IfThenElse,
    LetStmt,
    SeqStmt,
    Stmt,
)
from ..tensor import HybridOp, Tensor

_LOOPS = {"range": ForKind.SERIAL, "parallel": ForKind.PARALLEL,
          "vectorize": ForKind.VECTORIZED, "unroll": ForKind.UNROLLED}
_MATH = ("sqrt", "rsqrt", "exp", "exp2", "exp10", "log", "log2", "log10", "log1p", "tanh",
         "sigmoid", "sin", "cos", "tan", "sinh", "cosh", "asin", "acos", "atan", "erf",
         "floor", "ceil", "trunc", "round", "nearbyint", "power", "popcount", "fmod")
_CASTS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
          "float32", "float64", "bool")
_BINOPS = {
    ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: _op.true_div(a, b) if _is_expr(a, b) else a / b,
    ast.FloorDiv: lambda a, b: _op.floordiv(a, b) if _is_expr(a, b) else a // b,
    ast.Mod: lambda a, b: _op.floormod(a, b) if _is_expr(a, b) else a % b,
    ast.BitAnd: lambda a, b: a & b, ast.BitOr: lambda a, b: a | b,
    ast.BitXor: lambda a, b: a ^ b, ast.LShift: lambda a, b: a << b,
    ast.RShift: lambda a, b: a >> b,
}
_CMPS = {ast.Lt: _op.lt, ast.LtE: _op.le, ast.Gt: _op.gt, ast.GtE: _op.ge, ast.Eq: _op.eq,
         ast.NotEq: _op.ne}
_NOP = Evaluate(IntImm("int32", 0))


def _is_expr(*xs) -> bool:
    return any(isinstance(x, PrimExpr) for x in xs)


def _seq(stmts: Sequence[Stmt]) -> Stmt:
    return SeqStmt.flatten(*stmts) if stmts else _NOP


class _Scopes(ast.NodeVisitor):
    """Where each local name lives: the innermost ``for`` (or the function) that holds all its
    uses, and whether it is assigned once, directly in that scope's body (then it is a value,
    not a buffer)."""

    def __init__(self):
        self.stack: List[ast.AST] = []
        self.paths: Dict[str, List[ast.AST]] = {}
        self.stores: Dict[str, int] = {}
        self.direct: Dict[str, List[ast.AST]] = {}  # name -> scope nodes of direct assignments
        self.body_of: Dict[int, ast.AST] = {}  # id(stmt) -> scope node, for direct children

    def _scope(self, node, body):
        for st in body:
            self.body_of[id(st)] = node
        self.stack.append(node)
        for st in body:
            self.visit(st)
        self.stack.pop()

    def visit_FunctionDef(self, node):
        self._scope(node, node.body)

    def visit_For(self, node):
        self.visit(node.iter)
        self.visit(node.target)
        self._scope(node, node.body)
        for st in node.orelse:
            self.visit(st)

    def visit_Name(self, node):
        path = self.paths.get(node.id)
        if path is None:
            self.paths[node.id] = list(self.stack)
        else:
            n = 0
            while n < min(len(path), len(self.stack)) and path[n] is self.stack[n]:
                n += 1
            del path[n:]

    def visit_Assign(self, node):
        for t in node.targets:
            if isinstance(t, ast.Name):
                self.stores[t.id] = self.stores.get(t.id, 0) + 1
                if id(node) in self.body_of:
                    self.direct.setdefault(t.id, []).append(self.body_of[id(node)])
        self.generic_visit(node)

    def visit_AugAssign(self, node):
        if isinstance(node.target, ast.Name):
            self.stores[node.target.id] = self.stores.get(node.target.id, 2) + 2
        self.generic_visit(node)

    def scope_of(self, name: str) -> Optional[ast.AST]:
        path = self.paths.get(name)
        return path[-1] if path else None

    def is_value(self, name: str) -> bool:
        d = self.direct.get(name, [])
        return self.stores.get(name, 0) == 1 and len(d) == 1 and d[0] is self.scope_of(name)


class _Local:
    """A name the script assigns: an array (``output_tensor`` / ``allocate``), a one-element
    buffer (a scalar assigned more than once) or a value (assigned once)."""

    def __init__(self, kind: str, obj: Any):
        self.kind = kind  # "output" | "array" | "scalar" | "value"
        self.obj = obj


class Parser:
    """Turns one hybrid function into a statement over buffers."""

    def __init__(self, func, args: Sequence[Any]):
        self.func = func
        self.fname = func.__name__
        try:
            src = textwrap.dedent(inspect.getsource(func))
        except (OSError, TypeError) as err:
            raise TVMError(f"hybrid script {self.fname}: cannot read its source ({err})") from err
        self.line0 = func.__code__.co_firstlineno - 1
        self.file = func.__code__.co_filename
        tree = ast.parse(src)
        fdef = tree.body[0]
        if not isinstance(fdef, ast.FunctionDef):
            raise TVMError(f"hybrid script {self.fname}: expected a function definition")
        self.fdef = fdef
        self.args = list(args)
        cv = inspect.getclosurevars(func)
        self.outer: Dict[str, Any] = {**func.__globals__, **cv.globals, **cv.nonlocals}
        self.scopes = _Scopes()
        self.scopes.visit(fdef)
        self.ana = Analyzer()
        self.syms: Dict[str, Any] = {}
        self.pending: Dict[int, List[Tuple[str, Buffer]]] = {}  # scope node -> allocations
        self.outputs: List[Buffer] = []
        self.returned: Optional[List[Buffer]] = None
        self.in_bufs: Dict[int, Buffer] = {}
        self.inputs: List[Tensor] = []
        self.loop_depth = 0
        self.loops: List[IterVar] = []  # every loop, inner ones seen (and put) first
        self.inlined = False  # parsing a script called from another one

    # ------------------------------------------------------------------ errors
    def error(self, node: Optional[ast.AST], msg: str) -> TVMError:
        where = f", line {self.line0 + node.lineno}" if node is not None and hasattr(
            node, "lineno") else ""
        return TVMError(f"hybrid script {self.fname} ({self.file}{where}): {msg}")

    def generic_visit(self, node):
        raise self.error(node, f"unsupported syntax: {type(node).__name__}")

    def visit(self, node):
        return getattr(self, "visit_" + type(node).__name__, self.generic_visit)(node)

    # ------------------------------------------------------------------ entry
    def parse(self) -> HybridOp:
        """The op of the script applied to ``args``."""
        params = self.fdef.args
        if params.vararg or params.kwarg or params.kwonlyargs or params.defaults:
            raise self.error(self.fdef, "a hybrid script takes plain positional parameters only")
        if len(params.args) != len(self.args):
            raise self.error(self.fdef, f"{len(params.args)} parameters but {len(self.args)} "
                             "arguments given")
        for p, a in zip(params.args, self.args):
            self.syms[p.arg] = self.bind_arg(a)
        body = self.block(self.fdef, self.fdef.body)
        if self.returned is None:
            raise self.error(self.fdef, "no return of the output tensor(s) found")
        unreturned = [b for b in self.outputs if all(b is not r for r in self.returned)]
        for b in unreturned:  # declared but not returned: scratch memory
            body = Allocate(b.data, b.dtype, b.shape, IntImm("bool", 1), body)
        return HybridOp(self.fname, "HybridOp", None, self.inputs,
                        [self.in_bufs[id(t)] for t in self.inputs], self.returned, body,
                        self.loops)

    def bind_arg(self, a):
        if isinstance(a, Tensor):
            if id(a) not in self.in_bufs:
                self.in_bufs[id(a)] = decl_buffer(a.shape, a.dtype, a.op.name,
                                                  elem_offset=Var("elem_offset", "int32"))
                self.inputs.append(a)
            return ("tensor", a, self.in_bufs[id(a)])
        if isinstance(a, (PrimExpr, numbers.Number)):
            return ("value", _op.convert(a) if isinstance(a, numbers.Number) else a)
        if isinstance(a, (list, tuple)) or type(a).__name__ == "Array":
            # tensors of a list argument are inputs too, indexed as ``inputs[j][i]``
            return ("list", [self.bind_arg(x)[2] if isinstance(x, Tensor) else
                             self.bind_arg(x)[1] for x in a])
        raise self.error(self.fdef, f"unsupported argument {a!r}: pass te Tensors, tir Vars or "
                         "Python numbers")

    # ------------------------------------------------------------------ statements
    def block(self, scope: ast.AST, body: Sequence[ast.stmt]) -> Stmt:
        """The statements of a function or loop body, with the arrays and scalars whose scope
        it is allocated around them."""
        owned = [n for n, p in self.scopes.paths.items() if p and p[-1] is scope]
        saved = {n: self.syms.pop(n) for n in owned if n in self.syms and isinstance(
            self.syms[n], _Local)}
        self.pending[id(scope)] = []
        stmt = self.stmts(body)
        for name, buf in reversed(self.pending.pop(id(scope))):
            if self.syms.get(name) is not None and isinstance(self.syms[name], _Local) and \
                    self.syms[name].kind == "output":
                continue
            stmt = Allocate(buf.data, buf.dtype, buf.shape, IntImm("bool", 1), stmt, None,
                            buf.scope())
        for n in owned:
            if isinstance(self.syms.get(n), _Local) and self.syms[n].kind != "output":
                del self.syms[n]
        self.syms.update(saved)
        return stmt

    def stmts(self, body: Sequence[ast.stmt]) -> Stmt:
        out: List[Stmt] = []
        for i, st in enumerate(body):
            if i == 0 and isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant) and \
                    isinstance(st.value.value, str):
                continue  # docstring
            if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(
                    st.targets[0], ast.Name) and self.scopes.is_value(st.targets[0].id) and \
                    not self.is_alloc_call(st.value) and not self.script_of(st.value):
                name = st.targets[0].id
                value = self.expr(st.value)
                if isinstance(value, PrimExpr):
                    value = self.ana.simplify(value)
                if not isinstance(value, PrimExpr) or not _has_load(value):
                    self.syms[name] = _Local("value", value)
                    continue
                var = Var(name, value.dtype)
                self.syms[name] = _Local("value", var)
                rest = self.stmts(body[i + 1:])
                out.append(LetStmt(var, value, rest))
                break
            s = self.visit(st)
            if s is not None:
                out.append(s)
        return _seq(out)

    @staticmethod
    def is_alloc_call(node) -> bool:
        return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
            node.func.id in ("output_tensor", "allocate")

    def script_of(self, node) -> Optional[Callable]:
        """The Python function of the hybrid script ``node`` calls, if it calls one."""
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)) or \
                node.func.id in self.syms:
            return None
        f = self.outer.get(node.func.id)
        return getattr(f, "__wrapped__", None) if getattr(f, "is_hybrid_script", False) \
            else None

    def inline_call(self, name: str, call: ast.Call) -> Stmt:
        """``c = other_script(...)``: the other script's body inlined, its arguments bound to
        this script's tensors and values, and the tensor it returns allocated here as ``c``."""
        if name in self.syms:
            raise self.error(call, f"{name} is already defined")
        if call.keywords:
            raise self.error(call, f"{call.func.id}: pass arguments by position")
        sub = Parser(self.script_of(call), [])
        sub.inlined = True
        params = sub.fdef.args
        if params.vararg or params.kwarg or params.kwonlyargs or params.defaults or \
                len(params.args) != len(call.args):
            raise self.error(call, f"{call.func.id} takes {len(params.args)} positional "
                             f"arguments, {len(call.args)} given")
        for p, a in zip(params.args, call.args):
            v = self.expr(a)
            if isinstance(v, Buffer):
                sub.syms[p.arg] = ("tensor", None, v)
            elif isinstance(v, (PrimExpr, numbers.Number)):
                sub.syms[p.arg] = ("value", _op.convert(v))
            elif isinstance(v, (tuple, list)):
                sub.syms[p.arg] = ("list", list(v))
            else:
                raise self.error(a, f"{call.func.id}: unsupported argument {v!r}")
        body = sub.block(sub.fdef, sub.fdef.body)
        if sub.returned is None or len(sub.returned) != 1:
            raise self.error(call, f"{call.func.id} must return one tensor to be called from "
                             "another script")
        for b in sub.outputs:  # what it does not return is its scratch memory
            if b is not sub.returned[0]:
                body = Allocate(b.data, b.dtype, b.shape, IntImm("bool", 1), body)
        out = sub.returned[0]
        self.syms[name] = _Local("array", out)
        self.pending[id(self.scopes.scope_of(name))].append((name, out))
        self.loops[0:0] = sub.loops
        return body

    def visit_Pass(self, node):
        return None

    def visit_Expr(self, node):
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return None
        raise self.error(node, "an expression statement has no effect in a hybrid script")

    def visit_Assert(self, node):
        cond = self.expr(node.test)
        msg = node.msg.value if isinstance(node.msg, ast.Constant) else "assertion failed"
        return AssertStmt(cond, StringImm(str(msg)), _NOP)

    def visit_Return(self, node):
        if self.loop_depth:
            raise self.error(node, "return inside a loop is not supported")
        elts = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
        outs = []
        for e in elts:
            sym = self.syms.get(e.id) if isinstance(e, ast.Name) else None
            if not isinstance(sym, _Local) or sym.kind != "output":
                raise self.error(node, "return only tensors made by output_tensor (one or a "
                                 "tuple)")
            if any(sym.obj is b for b in outs):
                raise self.error(node, f"{e.id} is returned twice")
            outs.append(sym.obj)
        self.returned = outs
        return None

    def visit_Assign(self, node):
        if len(node.targets) != 1:
            raise self.error(node, "chained assignment (a = b = ...) is not supported")
        target = node.targets[0]
        if isinstance(target, ast.Name) and self.is_alloc_call(node.value):
            return self.allocate(target.id, node.value)
        if isinstance(target, ast.Name) and self.script_of(node.value):
            return self.inline_call(target.id, node.value)
        if isinstance(target, ast.Tuple):
            raise self.error(node, "tuple assignment is not supported")
        value = self.expr(node.value)
        return self.store(target, value, node)

    def visit_AugAssign(self, node):
        op = _BINOPS.get(type(node.op))
        if op is None:
            raise self.error(node, f"unsupported operator {type(node.op).__name__}")
        load = ast.copy_location(ast.Name(node.target.id, ast.Load()) if isinstance(
            node.target, ast.Name) else ast.Subscript(node.target.value, node.target.slice,
                                                      ast.Load()), node)
        if isinstance(node.target, ast.Name) and node.target.id not in self.syms:
            raise self.error(node, f"{node.target.id} is updated before it is assigned")
        return self.store(node.target, op(self.expr(load), self.expr(node.value)), node)

    def allocate(self, name: str, call: ast.Call) -> Optional[Stmt]:
        if name in self.syms:
            raise self.error(call, f"{name} is already defined")
        kind = call.func.id
        args = [self.expr(a) for a in call.args]
        kw = {k.arg: self.expr(k.value) for k in call.keywords}
        shape = args[0] if args else kw.get("shape")
        dtype = args[1] if len(args) > 1 else kw.get("dtype", "float32")
        scope = args[2] if len(args) > 2 else kw.get("scope", "global")
        if isinstance(shape, (PrimExpr, numbers.Integral)):
            shape = (shape,)
        if not isinstance(shape, (tuple, list)) or not isinstance(dtype, str):
            raise self.error(call, f"{kind}(shape, dtype) expects a tuple shape and a dtype "
                             "string")
        if kind == "output_tensor":
            if len(args) > 2 or "scope" in kw:
                raise self.error(call, "an output tensor has no scope")
            if self.loop_depth:
                raise self.error(call, "output_tensor must be declared outside loops")
            # an inlined script's outputs are the caller's local arrays, at offset 0
            buf = decl_buffer(shape, _dt.canonical(dtype), name, elem_offset=None if
                              self.inlined else Var("elem_offset", "int32"))
            self.outputs.append(buf)
            self.syms[name] = _Local("output", buf)
            return None
        buf = decl_buffer(shape, _dt.canonical(dtype), name, scope=str(scope))
        self.syms[name] = _Local("array", buf)
        self.pending[id(self.scopes.scope_of(name))].append((name, buf))
        return None

    def store(self, target, value, node) -> Stmt:
        if isinstance(target, ast.Name):
            name = target.id
            sym = self.syms.get(name)
            if isinstance(sym, tuple) and sym[0] == "loop":
                raise self.error(node, f"loop variable {name} cannot be assigned")
            if sym is None or (isinstance(sym, _Local) and sym.kind == "value"):
                if isinstance(sym, tuple):
                    raise self.error(node, f"parameter {name} cannot be assigned")
                if not isinstance(value, PrimExpr):
                    raise self.error(node, f"{name}: only scalar expressions can be assigned")
                buf = decl_buffer((1,), value.dtype, name, scope="local")
                self.syms[name] = _Local("scalar", buf)
                self.pending[id(self.scopes.scope_of(name))].append((name, buf))
                sym = self.syms[name]
            if not isinstance(sym, _Local) or sym.kind != "scalar":
                raise self.error(node, f"{name} cannot be assigned (it is not a scalar local)")
            return self.buffer_store(sym.obj, value, [0], node)
        if isinstance(target, ast.Subscript):
            buf = self.buffer_of(target.value)
            idx = self.indices(target.slice)
            return self.buffer_store(buf, value, idx, node)
        raise self.error(node, f"cannot assign to {type(target).__name__}")

    def buffer_store(self, buf: Buffer, value, idx, node) -> Stmt:
        if len(idx) != len(buf.shape):
            raise self.error(node, f"{buf.name} has {len(buf.shape)} dimensions, indexed with "
                             f"{len(idx)}")
        value = _op.convert(value) if not isinstance(value, PrimExpr) else value
        if value.dtype != buf.dtype:
            value = _op.cast(buf.dtype, value)
        return BufferStore(buf, value, [_op.convert(i) for i in idx])

    def buffer_of(self, node) -> Buffer:
        sym = self.syms.get(node.id) if isinstance(node, ast.Name) else None
        if isinstance(sym, tuple) and sym[0] == "tensor":
            return sym[2]
        if isinstance(sym, _Local) and sym.kind in ("output", "array"):
            return sym.obj
        raise self.error(node, "only tensors (parameters, output_tensor, allocate) can be "
                         "indexed")

    def visit_If(self, node):
        cond = self.expr(node.test)
        if isinstance(cond, PrimExpr):
            cond = self.ana.simplify(cond)
        if isinstance(cond, (bool, numbers.Number)) or isinstance(cond, IntImm):
            taken = node.body if int(cond.value if isinstance(cond, IntImm) else cond) else \
                node.orelse
            return self.stmts(taken)
        then = self.stmts(node.body)
        other = self.stmts(node.orelse) if node.orelse else None
        return IfThenElse(cond, then, other)

    def visit_For(self, node):
        if node.orelse:
            raise self.error(node, "for ... else is not supported")
        if not isinstance(node.target, ast.Name):
            raise self.error(node, "the loop target must be one name")
        it = node.iter
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and
                it.func.id in (*_LOOPS, "const_range", "bind")):
            raise self.error(node, "loops iterate over range, const_range, parallel, vectorize, "
                             "unroll or bind only")
        kind = it.func.id
        args = [self.expr(a) for a in it.args]
        name = node.target.id
        if name in self.syms:
            raise self.error(node, f"loop variable {name} shadows an existing name")
        if kind == "bind":
            if len(args) != 2 or not isinstance(args[0], str):
                raise self.error(node, 'bind takes a thread tag and an extent: bind("threadIdx.x"'
                                 ", n)")
            ext = _op.convert(args[1])
            iv = IterVar(Range(IntImm(ext.dtype, 0), ext), Var(name, ext.dtype),
                         IterVarType.ThreadIndex, args[0])
            body = self.loop_body(node, name, iv.var)
            return AttrStmt(iv, "thread_extent", ext, body)
        if len(args) not in (1, 2):
            raise self.error(node, f"{kind} takes (extent) or (start, stop)")
        low, high = (_op.const(0, "int32"), args[0]) if len(args) == 1 else args
        low = self.ana.simplify(_op.convert(low))
        ext = high if isinstance(low, IntImm) and low.value == 0 else high - low
        if kind == "const_range":
            low_c = self.ana.simplify(_op.convert(low))
            ext_c = self.ana.simplify(_op.convert(ext))
            if not isinstance(low_c, IntImm) or not isinstance(ext_c, IntImm):
                raise self.error(node, "const_range needs constant bounds")
            out = []
            for i in range(low_c.value, low_c.value + ext_c.value):
                out.append(self.loop_body(node, name, _op.const(i, "int32")))
            return _seq(out)
        ext = self.ana.simplify(_op.convert(ext))
        var = Var(name, ext.dtype)
        low_e = _op.convert(low)
        offset = var if isinstance(low_e, IntImm) and low_e.value == 0 else var + low_e
        body = self.loop_body(node, name, offset)
        loop = For(var, IntImm(ext.dtype, 0), ext, _LOOPS[kind], body)
        # as classic: the op's axis are all its loops, outer first
        self.loops.insert(0, IterVar(Range(IntImm(ext.dtype, 0), ext), var))
        return loop

    def loop_body(self, node, name, value) -> Stmt:
        self.syms[name] = ("loop", value)
        self.loop_depth += 1
        try:
            return self.block(node, node.body)
        finally:
            self.loop_depth -= 1
            del self.syms[name]

    # ------------------------------------------------------------------ expressions
    def expr(self, node):
        return self.visit(node)

    def visit_Constant(self, node):
        v = node.value
        if isinstance(v, bool):
            return _op.const(v, "bool")
        if isinstance(v, int):
            return _op.const(v, "int32")
        if isinstance(v, float):
            return _op.const(v, "float32")
        if isinstance(v, str):
            return v
        raise self.error(node, f"unsupported constant {v!r}")

    def visit_Name(self, node):
        name = node.id
        sym = self.syms.get(name)
        if sym is None:
            if name in ("True", "False"):
                return _op.const(name == "True", "bool")
            if name in self.outer:
                v = self.outer[name]
                if isinstance(v, bool):
                    return _op.const(v, "bool")
                if isinstance(v, numbers.Integral):
                    return _op.const(int(v), "int32")
                if isinstance(v, numbers.Real):
                    return _op.const(float(v), "float32")
                if isinstance(v, (str, PrimExpr)):
                    return v
                seq = _const_seq(v)
                if seq is not None:
                    return seq
                raise self.error(node, f"{name} ({type(v).__name__}) from outside the script "
                                 "cannot be used")
            raise self.error(node, f"unknown name {name}")
        if isinstance(sym, _Local):
            if sym.kind == "scalar":
                return BufferLoad(sym.obj, [IntImm("int32", 0)])
            if sym.kind == "value":
                return sym.obj
            return sym.obj  # a buffer (for .shape / .dtype / len)
        if sym[0] == "tensor":
            return sym[2]
        return sym[1]

    def visit_Tuple(self, node):
        return tuple(self.expr(e) for e in node.elts)

    visit_List = visit_Tuple

    def indices(self, node) -> List[Any]:
        idx = self.expr(node)
        return list(idx) if isinstance(idx, tuple) else [idx]

    def visit_Subscript(self, node):
        base = node.value
        sym = self.syms.get(base.id) if isinstance(base, ast.Name) else None
        if (isinstance(sym, tuple) and sym[0] == "tensor") or (
                isinstance(sym, _Local) and sym.kind in ("output", "array")):
            buf = self.buffer_of(base)
            idx = self.indices(node.slice)
            if len(idx) != len(buf.shape):
                raise self.error(node, f"{buf.name} has {len(buf.shape)} dimensions, indexed "
                                 f"with {len(idx)}")
            return BufferLoad(buf, [_op.convert(i) for i in idx])
        seq = self.expr(base)
        if isinstance(seq, Buffer):  # a tensor taken from a list argument
            idx = self.indices(node.slice)
            if len(idx) != len(seq.shape):
                raise self.error(node, f"{seq.name} has {len(seq.shape)} dimensions, indexed "
                                 f"with {len(idx)}")
            return BufferLoad(seq, [_op.convert(i) for i in idx])
        if isinstance(seq, (tuple, list)) or type(seq).__name__ == "Array":
            out = seq
            for i in self.indices(node.slice):
                i = self.ana.simplify(_op.convert(i))
                if not isinstance(i, IntImm):
                    raise self.error(node, "a tuple (shape, list argument) needs constant "
                                     "indices")
                out = out[i.value]
            return _op.convert(out) if isinstance(out, numbers.Number) else out
        raise self.error(node, "only tensors, shapes and list arguments can be indexed")

    def visit_Attribute(self, node):
        base = self.expr(node.value)
        if isinstance(base, Buffer) and node.attr in ("shape", "dtype"):
            return tuple(base.shape) if node.attr == "shape" else base.dtype
        raise self.error(node, f"unsupported attribute .{node.attr} (only tensor .shape and "
                         ".dtype)")

    def visit_BinOp(self, node):
        f = _BINOPS.get(type(node.op))
        if f is None:
            raise self.error(node, f"unsupported operator {type(node.op).__name__}")
        return f(self.expr(node.left), self.expr(node.right))

    def visit_UnaryOp(self, node):
        v = self.expr(node.operand)
        if isinstance(node.op, ast.USub):
            return -v
        if isinstance(node.op, ast.UAdd):
            return v
        if isinstance(node.op, ast.Not):
            return _op.logical_not(v)
        if isinstance(node.op, ast.Invert):
            return ~v
        raise self.error(node, f"unsupported operator {type(node.op).__name__}")

    def visit_BoolOp(self, node):
        vals = [self.expr(v) for v in node.values]
        return _op.all(*vals) if isinstance(node.op, ast.And) else _op.any(*vals)

    def visit_Compare(self, node):
        vals = [self.expr(node.left)] + [self.expr(c) for c in node.comparators]
        parts = []
        for i, o in enumerate(node.ops):
            f = _CMPS.get(type(o))
            if f is None:
                raise self.error(node, f"unsupported comparison {type(o).__name__}")
            parts.append(f(vals[i], vals[i + 1]))
        return parts[0] if len(parts) == 1 else _op.all(*parts)

    def visit_IfExp(self, node):
        cond, a, b = self.expr(node.test), self.expr(node.body), self.expr(node.orelse)
        a, b = _op.convert(a), _op.convert(b)
        if a.dtype != b.dtype:
            a, b = _op.match_types(a, b)
        return Select(_op.convert(cond), a, b)

    def visit_Call(self, node):
        if not isinstance(node.func, ast.Name):
            raise self.error(node, "only calls of plain function names are supported")
        f = node.func.id
        if node.keywords:
            raise self.error(node, f"{f}: keyword arguments are not supported here")
        args = [self.expr(a) for a in node.args]
        if f in ("min", "max"):
            if len(args) < 2:
                raise self.error(node, f"{f} needs at least two operands")
            out = args[0]
            for a in args[1:]:
                out = (_op._min if f == "min" else _op._max)(out, a)
            return out
        if f == "abs" and len(args) == 1:
            return _op.abs(args[0])
        if f in _MATH:
            return getattr(_op, f)(*args)
        if f in _CASTS and len(args) == 1:
            return _op.cast(f, args[0])
        if f == "len" and len(args) == 1:
            a = args[0]
            if isinstance(a, Buffer):
                return a.shape[0]
            if isinstance(a, (tuple, list)) or type(a).__name__ == "Array":
                return _op.const(len(a), "int32")
        if f == "ceil_div" and len(args) == 2:
            return _op.floordiv(args[0] + args[1] - 1, args[1])
        if f == "likely" and len(args) == 1:
            return _op.likely(args[0])
        if f in ("inf", "ninf") and len(args) == 1 and isinstance(args[0], str):
            return _op.max_value(args[0]) if f == "inf" else _op.min_value(args[0])
        if f in (*_LOOPS, "const_range", "bind", "output_tensor", "allocate"):
            raise self.error(node, f"{f}(...) is only allowed as a loop iterator or an "
                             "assignment's value" if f not in _LOOPS else
                             f"{f}(...) is only allowed as a loop iterator")
        raise self.error(node, f"unsupported call of {f}")

    def visit_JoinedStr(self, node):
        raise self.error(node, "f-strings are not supported")


def _const_seq(v):
    """A (nested) tuple or list of numbers as nested tuples of constants, else None."""
    if isinstance(v, (numbers.Number, PrimExpr)):
        return _op.convert(v)
    if isinstance(v, (tuple, list)):
        out = tuple(_const_seq(x) for x in v)
        return None if any(x is None for x in out) else out
    return None


def _has_load(e: PrimExpr) -> bool:
    """Whether ``e`` reads a buffer (then it is bound where it is assigned, not inlined)."""
    found = []
    post_order_visit(e, lambda n: found.append(1) if isinstance(n, BufferLoad) else None)
    return bool(found)


def source_to_op(func, args: Sequence[Any]) -> HybridOp:
    """Parse ``func`` applied to ``args`` into a :class:`HybridOp`."""
    return Parser(func, args).parse()
