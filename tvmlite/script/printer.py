"""TVMScript printer: IR nodes to the Python-like text of modern TVM (``T.*`` / ``I.*``).

The text parses back with :func:`tvmlite.script.from_source` into a structurally equal IR.
"""
from __future__ import annotations

import json
import keyword
import math
import re
from typing import Dict, List, Optional

from .. import _classic
from ..deep_recursion import deep
from ..ir import dtype as _dt
from ..ir.module import IRModule
from ..ir.structural import structural_equal
from ..tir.buffer import Buffer
from ..tir.expr import (
    EQ,
    GE,
    GT,
    LE,
    LT,
    NE,
    Add,
    And,
    Broadcast,
    BufferLoad,
    Call,
    Cast,
    CommReducer,
    Div,
    FloatImm,
    FloorDiv,
    FloorMod,
    IntImm,
    IterVar,
    IterVarType,
    Let,
    Max,
    Min,
    Mod,
    Mul,
    Not,
    Or,
    PrimExpr,
    ProducerLoad,
    Ramp,
    Range,
    Reduce,
    Select,
    SizeVar,
    StringImm,
    Sub,
    Var,
)
from ..tir.function import PrimFunc
from ..tir.functor import post_order_visit
from ..tir.stmt import (
    ALLOCATE_CONST_DATA,
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
from .tir_builder import ITER_TYPE_NAMES, MATH_OPS

__all__ = ["astext"]

_INDENT = "    "
# Python operator precedence (higher binds tighter).
_OR, _AND, _NOT, _CMP, _ADD, _MUL, _UNARY, _ATOM = 1, 2, 3, 4, 6, 7, 8, 10
_BINOPS = {Add: ("+", _ADD), Sub: ("-", _ADD), Mul: ("*", _MUL), FloorDiv: ("//", _MUL),
           FloorMod: ("%", _MUL)}
_CMPOPS = {EQ: "==", NE: "!=", LT: "<", LE: "<=", GT: ">", GE: ">="}
_FUNCOPS = {Min: "T.min", Max: "T.max", Mod: "T.truncmod"}
# Call ops printed as T.<op>(args): the parser rebuilds them through tvmlite.tir.op.
_KNOWN_CALLS = set(MATH_OPS) | {
    "if_then_else", "likely", "assume", "shift_left", "shift_right", "bitwise_and", "bitwise_or",
    "bitwise_xor", "bitwise_not", "fabs", "pow", "fmod", "isnan", "popcount"}
_FOR_KINDS = {ForKind.SERIAL: "T.serial", ForKind.PARALLEL: "T.parallel",
              ForKind.VECTORIZED: "T.vectorized", ForKind.UNROLLED: "T.unroll",
              ForKind.THREAD_BINDING: "T.thread_binding"}
_AXIS_KINDS = {IterVarType.DataPar: "spatial", IterVarType.CommReduce: "reduce",
               IterVarType.Ordered: "scan", IterVarType.Opaque: "opaque"}
_RESERVED = {"T", "I", "range", "True", "False", "None"}


@deep
def astext(node, **kwargs) -> str:
    """TVMScript text of an IRModule, PrimFunc, statement, expression or other IR node."""
    p = _Printer()
    if isinstance(node, IRModule):
        return p.module(node)
    if isinstance(node, PrimFunc):
        name = node.attrs.get("global_symbol", "main") if node.attrs else "main"
        return "# from tvm.script import tir as T\n\n" + p.function(node, str(name), 0)
    if isinstance(node, Stmt):
        p.analyze(node, {})
        p.stmt(node, 0, True)
        return "\n".join(p.lines)
    if isinstance(node, Buffer):
        return f"{p.buf_name(node)}: {p.buffer_decl(node, param=True)}"
    if isinstance(node, (BufferRegion, Range, IterVar, CommReducer, MatchBufferRegion,
                         PrimExpr)):
        return p.any(node)
    return p.value(node)


def _sanitize(name: str) -> str:
    n = re.sub(r"\W", "_", str(name))
    if not n:
        n = "v"
    if n[0].isdigit():
        n = "v_" + n
    return n


def _is_true(e) -> bool:
    return isinstance(e, IntImm) and e.value == 1 and e.dtype == "bool"


def _is_zero(e) -> bool:
    return isinstance(e, IntImm) and e.value == 0


def _fmt_float(v: float) -> str:
    if math.isnan(v) or math.isinf(v):
        return json.dumps(str(v))
    if v.is_integer() and abs(v) < 1e16:
        return str(int(v))
    return repr(v)


class _Printer:
    def __init__(self):
        self.lines: List[str] = []
        self.names: Dict[int, str] = {}
        self.used: Dict[str, int] = {}
        self.data_owner: Dict[int, Buffer] = {}
        self.alloc_decls: Dict[int, List[Buffer]] = {}
        self.loop_doms: Dict[int, tuple] = {}

    # ---------------------------------------------------------------- names
    def define(self, obj, hint: str) -> str:
        base = _sanitize(hint)
        name = base
        k = 0
        while name in self.used or keyword.iskeyword(name) or name in _RESERVED:
            k += 1
            name = f"{base}_{k}"
        self.used[name] = id(obj)
        self.names[id(obj)] = name
        return name

    def undefine(self, obj) -> None:
        name = self.names.pop(id(obj), None)
        if name is not None:
            self.used.pop(name, None)

    def var_name(self, v: Var) -> str:
        n = self.names.get(id(v))
        if n is not None:
            return n
        owner = self.data_owner.get(id(v))
        if owner is not None:
            return f"{self.buf_name(owner)}.data"
        return self.define(v, v.name)

    def buf_name(self, b: Buffer) -> str:
        n = self.names.get(id(b))
        return n if n is not None else self.define(b, b.name)

    # ---------------------------------------------------------------- module / function
    def module(self, mod: IRModule) -> str:
        out = ["# from tvm.script import ir as I", "# from tvm.script import tir as T", "",
               "@I.ir_module", "class Module:"]
        first = True
        for name, func in mod.functions.items():
            if not first:
                out.append("")
            first = False
            if isinstance(func, PrimFunc):
                out.append(_Printer().function(func, name, 1))
            else:
                out.append(_INDENT + f"# {name}: {type(func).__name__} (not printable)")
        return "\n".join(out)

    def function(self, f: PrimFunc, name: str, level: int) -> str:
        ind = _INDENT * level
        attrs = dict(f.attrs or {})
        gs = attrs.get("global_symbol")
        if gs is None:
            deco = "@T.prim_func(private=True)"
        else:
            deco = "@T.prim_func"
            if gs == name and not _classic.PARSER_V012:
                # implied by the name; classic v0.12 scripts (the alias) spell it out, as
                # their parser adds none
                del attrs["global_symbol"]
        # parameters
        static = {}
        for p in f.params:
            b = f.buffer_map.get(p)
            if b is not None:
                static[id(p)] = not (_has_var(b.shape) or _has_var(b.strides)
                                     or _has_var(b.elem_offset))
                self.define(b, b.name)
        params_txt = []
        for p in f.params:
            b = f.buffer_map.get(p)
            if b is not None and static[id(p)]:
                params_txt.append(f"{self.names[id(b)]}: {self.buffer_decl(b, param=True)}")
                continue
            hint = p.name if p.name not in self.used else "var_" + p.name
            pn = self.define(p, hint)
            params_txt.append(f"{pn}: {self.dtype_ann(p.dtype)}")
        for b in f.buffer_map.values():
            self.data_owner.setdefault(id(b.data), b)
        free, implicit = self.analyze(f.body, f.buffer_map, f.params)
        out = [ind + deco, ind + f"def {_sanitize(name)}({', '.join(params_txt)}):"]
        body_ind = ind + _INDENT
        if attrs:
            out.append(body_ind + f"T.func_attr({self.value(attrs)})")
        for v in free:
            extra = "is_size_var=True" if isinstance(v, SizeVar) else ""
            out.append(body_ind + f"{self.define(v, v.name)} = {self.dtype_ann(v.dtype)}({extra})")
        for p in f.params:
            b = f.buffer_map.get(p)
            if b is not None and not static[id(p)]:
                out.append(body_ind + f"{self.names[id(b)]} = T.match_buffer("
                           f"{self.names[id(p)]}, {self.buffer_args(b, dtype_always=False)})")
        body = f.body
        root = self.root_block(body)
        if root is not None:
            out.append(body_ind + '# with T.block("root"):')
            for b in root.alloc_buffers:
                out.append(body_ind + self.alloc_buffer_line(b))
        for b in implicit:
            out.append(body_ind + f"{self.buf_name(b)} = {self.buffer_decl(b)}")
        self.lines = []
        self.stmt(root.body if root is not None else body, level + 1, True)
        return "\n".join(out + self.lines)

    def root_block(self, body) -> Optional[Block]:
        if not isinstance(body, BlockRealize):
            return None
        b = body.block
        if (b.name_hint != "root" or b.iter_vars or b.reads or b.writes or b.init is not None
                or b.match_buffers or b.annotations or not _is_true(body.predicate)):
            return None
        has_block = []
        post_order_visit(b.body, lambda n: has_block.append(1)
                         if isinstance(n, BlockRealize) else None)
        if not b.alloc_buffers and not has_block:
            return None  # the parser would not re-create it implicitly
        return b

    def analyze(self, body, buffer_map, params=()) -> tuple:
        """Find the free variables and the buffers to declare at the top of the body."""
        buffers: List[Buffer] = []
        seen: set = set()
        allocs: Dict[int, Allocate] = {}
        block_allocs: set = set()

        def f(n):
            if isinstance(n, Buffer) and id(n) not in seen:
                seen.add(id(n))
                buffers.append(n)
            elif isinstance(n, Allocate):
                allocs[id(n.buffer_var)] = n
            elif isinstance(n, Block):
                block_allocs.update(id(b) for b in n.alloc_buffers)

        post_order_visit(body, f)
        param_bufs = {id(b) for b in buffer_map.values()}
        for b in buffers:
            if id(b) in block_allocs:
                self.data_owner.setdefault(id(b.data), b)
        implicit = []
        for b in buffers:
            if id(b) in param_bufs or id(b) in block_allocs:
                continue
            if id(b.data) in allocs:
                self.alloc_decls.setdefault(id(b.data), []).append(b)
            else:
                implicit.append(b)
                self.data_owner.setdefault(id(b.data), b)
        free = _FreeVars(self.data_owner, buffer_map, params).run(body, implicit)
        return free, implicit

    # ---------------------------------------------------------------- buffers
    def dtype_ann(self, dtype: str) -> str:
        return f"T.{dtype}"

    def shape_text(self, shape) -> str:
        items = [self.expr(s) for s in shape]
        if len(items) == 1:
            return f"({items[0]},)"
        return "(" + ", ".join(items) + ")"

    def buffer_args(self, b: Buffer, dtype_always: bool, data: Optional[str] = None) -> str:
        args = [self.shape_text(b.shape)]
        if dtype_always or b.dtype != "float32":
            args.append(json.dumps(b.dtype))
        if data is not None:
            args.append(f"data={data}")
        if b.strides:
            args.append(f"strides={self.shape_text(b.strides)}")
        auto_offset = (isinstance(b.elem_offset, Var) and b.offset_factor != 0
                       and b.elem_offset.name == b.name + "_elem_offset")
        if auto_offset:  # the variable decl_buffer makes for an offset_factor
            args.append(f"offset_factor={b.offset_factor}")
        elif not (isinstance(b.elem_offset, IntImm) and b.elem_offset.value == 0
                  and b.elem_offset.dtype == "int32"):
            args.append(f"elem_offset={self.expr(b.elem_offset)}")
        if b.scope_name != "global":
            args.append(f"scope={json.dumps(b.scope_name)}")
        if b.data_alignment != 64:
            args.append(f"align={b.data_alignment}")
        if b.offset_factor != 1 and not auto_offset:
            args.append(f"offset_factor={b.offset_factor}")
        if b.axis_separators:
            args.append(f"axis_separators={list(b.axis_separators)}")
        return ", ".join(args)

    def buffer_decl(self, b: Buffer, param: bool = False) -> str:
        data = None
        if not param:
            owner = self.data_owner.get(id(b.data))
            if owner is not b:
                data = self.var_name(b.data)
        return f"T.Buffer({self.buffer_args(b, dtype_always=param, data=data)})"

    def alloc_buffer_line(self, b: Buffer) -> str:
        name = self.define(b, b.name) if id(b) not in self.names else self.names[id(b)]
        return f"{name} = T.alloc_buffer({self.buffer_args(b, dtype_always=False)})"

    # ---------------------------------------------------------------- statements
    def emit(self, level: int, text: str) -> None:
        self.lines.append(_INDENT * level + text)

    def stmt(self, s, level: int, tail: bool) -> None:
        m = getattr(self, "s_" + type(s).__name__, None)
        if m is None:
            self.emit(level, f"# unprintable statement {type(s).__name__}")
            return
        m(s, level, tail)

    def s_SeqStmt(self, s: SeqStmt, level, tail):
        n = len(s.seq)
        for k, x in enumerate(s.seq):
            self.stmt(x, level, tail and k == n - 1)

    def _grid_ok(self, loop: For) -> bool:
        return (loop.kind == ForKind.SERIAL and _is_zero(loop.min) and not loop.annotations
                and loop.thread_binding is None)

    def s_For(self, s: For, level, tail):
        chain = [s]
        if self._grid_ok(s):
            while isinstance(chain[-1].body, For) and self._grid_ok(chain[-1].body):
                inner = chain[-1].body
                outer_vars = {id(c.loop_var) for c in chain}
                used = []
                post_order_visit(inner.extent, lambda n, used=used: used.append(id(n))
                                 if isinstance(n, Var) else None)
                if outer_vars & set(used):
                    break
                chain.append(inner)
        if len(chain) > 1:
            exts = ", ".join(self.expr(c.extent) for c in chain)
            names = [self.define(c.loop_var, c.loop_var.name) for c in chain]
            self.emit(level, f"for {', '.join(names)} in T.grid({exts}):")
        else:
            head = self.loop_head(s)
            name = self.define(s.loop_var, s.loop_var.name)
            self.emit(level, f"for {name} in {head}:")
        for c in chain:
            self.loop_doms[id(c.loop_var)] = (c.min, c.extent)
        self.stmt(chain[-1].body, level + 1, True)
        for c in chain:
            self.loop_doms.pop(id(c.loop_var), None)
            self.undefine(c.loop_var)

    def loop_head(self, s: For) -> str:
        if _is_zero(s.min) and s.min.dtype == s.extent.dtype:
            rng = [self.expr(s.extent)]
        else:
            rng = [self.expr(s.min), self.end_text(s.min, s.extent)]
        extra = []
        if s.kind == ForKind.THREAD_BINDING:
            tag = s.thread_binding.thread_tag if s.thread_binding is not None else ""
            extra.append(f"thread={json.dumps(tag)}")
        if s.annotations:
            extra.append(f"annotations={self.value(s.annotations)}")
        if s.kind == ForKind.SERIAL and not extra:
            return f"range({', '.join(rng)})"
        return f"{_FOR_KINDS[s.kind]}({', '.join(rng + extra)})"

    def end_text(self, lo, ext) -> str:
        """``lo + ext`` written so that the parser reads ``ext`` back unchanged."""
        if isinstance(lo, IntImm) and isinstance(ext, IntImm) and lo.dtype == ext.dtype \
                and lo.dtype != "bool":
            return self.expr(IntImm(lo.dtype, lo.value + ext.value))
        if isinstance(ext, Sub) and structural_equal(ext.b, lo, map_free_vars=False):
            return self.expr(ext.a)  # [lo, hi) stored as extent hi - lo
        return f"{self.expr(lo, _ADD)} + {self.expr(ext, _ADD + 1)}"

    def s_LetStmt(self, s: LetStmt, level, tail):
        value = self.expr(s.value)
        name = self.define(s.var, s.var.name)
        if tail:
            self.emit(level, f"{name}: {self.dtype_ann(s.var.dtype)} = {value}")
            self.stmt(s.body, level, True)
        else:
            self.emit(level, f"with T.LetStmt({value}) as {name}:")
            self.stmt(s.body, level + 1, True)
        self.undefine(s.var)

    def s_AttrStmt(self, s: AttrStmt, level, tail):
        node = self.any(s.node)
        self.emit(level, f"with T.attr({node}, {json.dumps(s.attr_key)}, {self.any(s.value)}):")
        self.stmt(s.body, level + 1, True)

    def s_AssertStmt(self, s: AssertStmt, level, tail):
        cond, msg = self.expr(s.condition), self.any(s.message)
        if tail:
            self.emit(level, f"assert {cond}, {msg}")
            self.stmt(s.body, level, True)
        else:
            self.emit(level, f"with T.Assert({cond}, {msg}):")
            self.stmt(s.body, level + 1, True)

    def s_BufferStore(self, s: BufferStore, level, tail):
        self.emit(level, f"{self.buf_name(s.buffer)}[{self.index_text(s.indices)}] = "
                         f"{self.expr(s.value)}")

    def s_Allocate(self, s: Allocate, level, tail):
        extents = f"[{', '.join(self.expr(e) for e in s.extents)}]"
        anns = dict(s.annotations or {})
        data = anns.pop(ALLOCATE_CONST_DATA, None)
        if data is not None:
            args = [f"[{', '.join(repr(v) for v in data)}]", json.dumps(s.dtype), extents]
        else:
            args = [extents, json.dumps(s.dtype), json.dumps(s.scope)]
            if not _is_true(s.condition):
                args.append(self.expr(s.condition))
        if anns:
            args.append(f"annotations={self.value(anns)}")
        call = f"T.allocate{'_const' if data is not None else ''}({', '.join(args)})"
        name = self.define(s.buffer_var, s.buffer_var.name)
        inner = level if tail else level + 1
        if tail:
            self.emit(level, f"{name} = {call}")
        else:
            self.emit(level, f"with {call} as {name}:")
        for b in self.alloc_decls.get(id(s.buffer_var), []):
            bn = self.define(b, b.name) if id(b) not in self.names else self.names[id(b)]
            self.emit(inner, f"{bn} = {self.buffer_decl(b)}")
        self.stmt(s.body, inner, True)
        self.undefine(s.buffer_var)

    def s_While(self, s: While, level, tail):
        self.emit(level, f"while {self.expr(s.condition)}:")
        self.stmt(s.body, level + 1, True)

    def s_IfThenElse(self, s: IfThenElse, level, tail):
        self.emit(level, f"if {self.expr(s.condition)}:")
        self.stmt(s.then_case, level + 1, True)
        if s.else_case is not None:
            self.emit(level, "else:")
            self.stmt(s.else_case, level + 1, True)

    def s_Evaluate(self, s: Evaluate, level, tail):
        if isinstance(s.value, Call):
            self.emit(level, self.expr(s.value))
        else:
            self.emit(level, f"T.evaluate({self.expr(s.value)})")

    def s_BlockRealize(self, s: BlockRealize, level, tail):
        b = s.block
        self.emit(level, f"with T.block({json.dumps(b.name_hint)}):")
        inner = level + 1
        remap = self.remap_text(s)
        names = [self.define(iv.var, iv.var.name) for iv in b.iter_vars]
        if remap is not None:
            self.emit(inner, f"{', '.join(names)} = {remap}")
        else:
            for n, iv, v in zip(names, b.iter_vars, s.iter_values):
                kind = _AXIS_KINDS.get(iv.iter_type, "opaque")
                dom = iv.dom
                if _is_zero(dom.min) and dom.min.dtype == dom.extent.dtype:
                    d = self.expr(dom.extent)
                else:
                    d = f"({self.expr(dom.min)}, {self.end_text(dom.min, dom.extent)})"
                self.emit(inner, f"{n} = T.axis.{kind}({d}, {self.expr(v)})")
        if not _is_true(s.predicate):
            self.emit(inner, f"T.where({self.expr(s.predicate)})")
        self.emit(inner, f"T.reads({', '.join(self.region(r) for r in b.reads)})")
        self.emit(inner, f"T.writes({', '.join(self.region(r) for r in b.writes)})")
        if b.annotations:
            self.emit(inner, f"T.block_attr({self.value(b.annotations)})")
        for buf in b.alloc_buffers:
            self.data_owner.setdefault(id(buf.data), buf)
            self.emit(inner, self.alloc_buffer_line(buf))
        for mb in b.match_buffers:
            self.emit(inner, f"{self.buf_name(mb.buffer)} = T.match_buffer("
                             f"{self.region(mb.source)}, "
                             f"{self.buffer_args(mb.buffer, dtype_always=False)})")
        if b.init is not None:
            self.emit(inner, "with T.init():")
            self.stmt(b.init, inner + 1, True)
        self.stmt(b.body, inner, True)
        for iv in b.iter_vars:
            self.undefine(iv.var)

    def s_Block(self, s: Block, level, tail):
        self.s_BlockRealize(BlockRealize(tuple(iv.var for iv in s.iter_vars),
                                         IntImm("bool", 1), s), level, tail)

    def remap_text(self, s: BlockRealize) -> Optional[str]:
        b = s.block
        if not b.iter_vars:
            return None
        kinds, binds = [], []
        for iv, v in zip(b.iter_vars, s.iter_values):
            if iv.iter_type not in (IterVarType.DataPar, IterVarType.CommReduce):
                return None
            if not isinstance(v, Var) or id(v) not in self.loop_doms or v.dtype != iv.var.dtype:
                return None
            lo, ext = self.loop_doms[id(v)]
            if not (structural_equal(lo, iv.dom.min) and structural_equal(ext, iv.dom.extent)):
                return None
            kinds.append("S" if iv.iter_type == IterVarType.DataPar else "R")
            binds.append(self.var_name(v))
        return f'T.axis.remap("{"".join(kinds)}", [{", ".join(binds)}])'

    # ---------------------------------------------------------------- expressions
    def any(self, x) -> str:
        """Text of any IR object or Python value."""
        if isinstance(x, (PrimExpr,)):
            return self.expr(x)
        if isinstance(x, IterVar):
            dom = "None" if x.dom is None else self.any(x.dom)
            t = ITER_TYPE_NAMES[x.iter_type] if 0 <= x.iter_type < len(ITER_TYPE_NAMES) \
                else str(x.iter_type)
            return (f"T.iter_var({self.var_name(x.var)}, {dom}, {json.dumps(t)}, "
                    f"{json.dumps(x.thread_tag)})")
        if isinstance(x, Range):
            return f"T.Range({self.expr(x.min)}, {self.end_text(x.min, x.extent)})"
        if isinstance(x, Buffer):
            return self.buf_name(x)
        if isinstance(x, BufferRegion):
            return self.region(x)
        if isinstance(x, CommReducer):
            return self.comm_reducer(x)
        if isinstance(x, MatchBufferRegion):
            return f"T.match_buffer({self.region(x.source)}, {self.shape_text(x.buffer.shape)})"
        return self.value(x)

    def value(self, v) -> str:
        """Attribute values: Python values stay Python, IR values print as IR."""
        if isinstance(v, bool):
            return f"T.bool({v})"
        if isinstance(v, IntImm):
            if v.dtype == "bool":
                return f"T.bool({bool(v.value)})"
            return f"T.{v.dtype}({v.value})"
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return repr(v) if isinstance(v, int) else _fmt_float(float(v))
        if isinstance(v, str):
            return json.dumps(v)
        if v is None:
            return "None"
        if isinstance(v, (list, tuple)):
            items = ", ".join(self.value(x) for x in v)
            return f"[{items}]" if isinstance(v, list) else (
                f"({items},)" if len(v) == 1 else f"({items})")
        if isinstance(v, dict):
            keys = sorted(v, key=str) if all(isinstance(k, str) for k in v) else list(v)
            return "{" + ", ".join(f"{self.value(k)}: {self.value(v[k])}" for k in keys) + "}"
        if isinstance(v, (PrimExpr, IterVar, Range, Buffer, BufferRegion, CommReducer)):
            return self.any(v)
        return repr(v)

    def region(self, r: BufferRegion) -> str:
        parts = []
        for rng in r.region:
            if isinstance(rng.extent, IntImm) and rng.extent.value == 1:
                parts.append(self.expr(rng.min))
            else:
                parts.append(f"{self.expr(rng.min)}:{self.end_text(rng.min, rng.extent)}")
        return f"{self.buf_name(r.buffer)}[{', '.join(parts) if parts else '()'}]"

    def index_text(self, indices) -> str:
        if not indices:
            return "()"
        parts = []
        for i in indices:
            if isinstance(i, Ramp) and isinstance(i.stride, IntImm) and i.stride.value == 1 \
                    and i.stride.dtype == i.base.dtype:
                ext = IntImm(i.base.dtype, i.lanes)
                parts.append(f"{self.expr(i.base)}:{self.end_text(i.base, ext)}")
            else:
                parts.append(self.expr(i))
        return ", ".join(parts)

    def expr(self, e, prec: int = 0) -> str:
        text, p = self._expr(e)
        return f"({text})" if p < prec else text

    def _expr(self, e):
        t = type(e)
        if t is IntImm:
            if e.dtype == "bool":
                return f"T.bool({bool(e.value)})", _ATOM
            if e.dtype == "int32":
                return str(e.value), (_UNARY if e.value < 0 else _ATOM)
            return f"T.{e.dtype}({e.value})", _ATOM
        if t is FloatImm:
            return f"T.{e.dtype}({_fmt_float(e.value)})", _ATOM
        if t is StringImm:
            return json.dumps(e.value), _ATOM
        if t is Var or t is SizeVar:
            return self.var_name(e), _ATOM
        if t in _BINOPS:
            sym, p = _BINOPS[t]
            return f"{self.expr(e.a, p)} {sym} {self.expr(e.b, p + 1)}", p
        if t is Div:
            if _dt.is_float(e.dtype):
                return f"{self.expr(e.a, _MUL)} / {self.expr(e.b, _MUL + 1)}", _MUL
            return f"T.truncdiv({self.expr(e.a)}, {self.expr(e.b)})", _ATOM
        if t in _FUNCOPS:
            return f"{_FUNCOPS[t]}({self.expr(e.a)}, {self.expr(e.b)})", _ATOM
        if t in _CMPOPS:
            return f"{self.expr(e.a, _CMP + 1)} {_CMPOPS[t]} {self.expr(e.b, _CMP + 1)}", _CMP
        if t is And:
            return f"{self.expr(e.a, _AND)} and {self.expr(e.b, _AND + 1)}", _AND
        if t is Or:
            return f"{self.expr(e.a, _OR)} or {self.expr(e.b, _OR + 1)}", _OR
        if t is Not:
            return f"not {self.expr(e.a, _NOT)}", _NOT
        if t is Cast:
            return f"T.Cast({json.dumps(e.dtype)}, {self.expr(e.value)})", _ATOM
        if t is Select:
            return (f"T.Select({self.expr(e.condition)}, {self.expr(e.true_value)}, "
                    f"{self.expr(e.false_value)})"), _ATOM
        if t is Ramp:
            return f"T.Ramp({self.expr(e.base)}, {self.expr(e.stride)}, {e.lanes})", _ATOM
        if t is Broadcast:
            return f"T.Broadcast({self.expr(e.value)}, {e.lanes})", _ATOM
        if t is Let:
            return (f"T.Let({self.expr(e.body)}, where={{{self.var_name(e.var)}: "
                    f"{self.expr(e.value)}}})"), _ATOM
        if t is Call:
            return self.call(e), _ATOM
        if t is BufferLoad:
            return f"{self.buf_name(e.buffer)}[{self.index_text(e.indices)}]", _ATOM
        if t is ProducerLoad:
            idx = ", ".join(self.expr(i) for i in e.indices)
            return f"{_sanitize(getattr(e.producer, 'name', 'tensor'))}[{idx}]", _ATOM
        if t is Reduce:
            return self.reduce(e), _ATOM
        if t is IterVar:
            return self.var_name(e.var), _ATOM
        if isinstance(e, Buffer):
            return self.buf_name(e), _ATOM
        if isinstance(e, (Range, BufferRegion, CommReducer)):
            return self.any(e), _ATOM
        return self.value(e), _ATOM

    def call(self, e: Call) -> str:
        op = e.op
        if op == "type_annotation" and not e.args:
            return f"T.type_annotation({json.dumps(e.dtype)})"
        if op == "tvm_access_ptr" and e.args and isinstance(e.args[1], Buffer):
            # tvmlite's access_ptr holds the Buffer where classic TVM holds its data
            args = [self.any(a) for a in e.args]
            args[1] = f"{args[1]}.data"
            return f"T.tvm_access_ptr({', '.join(args)})"
        args = [self.any(a) for a in e.args]
        if op in _KNOWN_CALLS:
            return f"T.{op}({', '.join(args)})"
        if op in ("call_extern", "call_pure_extern"):
            return f"T.{op}({json.dumps(e.dtype)}, {', '.join(args)})"
        if op == "call_packed" and e.dtype == "int32":
            return f"T.call_packed({', '.join(args)})"
        if op == "reinterpret":
            return f"T.reinterpret({json.dumps(e.dtype)}, {', '.join(args)})"
        if e.dtype == "int32" and re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", op):
            return f"T.tir.{op}({', '.join(args)})"
        return f"T.call_intrin({json.dumps(e.dtype)}, {json.dumps(op)}, {', '.join(args)})"

    def comm_reducer(self, c: CommReducer) -> str:
        params = [self.var_name(v) for v in c.lhs + c.rhs]
        res = [self.expr(r) for r in c.result]
        body = res[0] if len(res) == 1 else "(" + ", ".join(res) + ")"
        ident = ", ".join(self.expr(x) for x in c.identity_element)
        return f"T.comm_reducer(lambda {', '.join(params)}: {body}, [{ident}])"

    def reduce(self, r: Reduce) -> str:
        parts = [self.comm_reducer(r.combiner),
                 "source=[" + ", ".join(self.expr(s) for s in r.source) + "]",
                 "init=[" + ", ".join(self.expr(s) for s in r.init) + "]",
                 "axis=[" + ", ".join(self.any(a) for a in r.axis) + "]",
                 f"condition={self.expr(r.condition)}", f"value_index={r.value_index}"]
        return f"T.reduce({', '.join(parts)})"


def _has_var(x) -> bool:
    found = []
    post_order_visit(x, lambda n: found.append(1) if isinstance(n, Var) else None)
    return bool(found)


class _FreeVars:
    """Variables a function body uses without defining them (declared as ``n = T.int32()``).
    """

    def __init__(self, data_owner: Dict[int, Buffer], buffer_map, params):
        self.data_owner = data_owner
        self.defined: set = {id(p) for p in buffer_map} | {id(p) for p in params}
        self.free: List[Var] = []
        self.seen_free: set = set()
        self.seen_buf: set = set()
        self.params = buffer_map

    def run(self, body, implicit) -> List[Var]:
        for _p, b in self.params.items():
            self.buffer(b)
        for b in implicit:
            self.buffer(b)
        self.walk(body)
        return self.free

    def use(self, v: Var) -> None:
        if id(v) in self.defined or id(v) in self.seen_free:
            return
        if id(v) in self.data_owner:
            return
        self.seen_free.add(id(v))
        self.free.append(v)

    def buffer(self, b: Buffer) -> None:
        if id(b) in self.seen_buf:
            return
        self.seen_buf.add(id(b))
        self.walk(b.shape)
        self.walk(b.strides)
        self.walk(b.elem_offset)

    def walk(self, x) -> None:
        if isinstance(x, Var):
            self.use(x)
        elif isinstance(x, Buffer):
            self.buffer(x)
        elif isinstance(x, (tuple, list)):
            for y in x:
                self.walk(y)
        elif isinstance(x, dict):
            for y in x.values():
                self.walk(y)
        elif isinstance(x, For):
            self.walk((x.min, x.extent))
            self.defined.add(id(x.loop_var))
            self.walk(x.annotations)
            self.walk(x.body)
        elif isinstance(x, LetStmt):
            self.walk(x.value)
            self.defined.add(id(x.var))
            self.walk(x.body)
        elif isinstance(x, Allocate):
            self.walk((x.extents, x.condition))
            self.defined.add(id(x.buffer_var))
            self.walk(x.body)
        elif isinstance(x, Block):
            for iv in x.iter_vars:
                self.walk(iv.dom)
                self.defined.add(id(iv.var))
            for b in x.alloc_buffers:
                self.buffer(b)
            self.walk((x.reads, x.writes, x.match_buffers, x.init, x.body, x.annotations))
        elif isinstance(x, CommReducer):
            self.defined.update(id(v) for v in x.lhs + x.rhs)
            self.walk((x.result, x.identity_element))
        elif isinstance(x, ProducerLoad):
            self.walk(x.indices)
        elif hasattr(x, "__dataclass_fields__"):
            for name in x.__dataclass_fields__:
                if isinstance(x, For) and name == "thread_binding":
                    continue
                self.walk(getattr(x, name))
