"""The relay text printer, in the classic form::

    def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: ...) -> Tensor[...] {
      %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]) /* ty=Tensor[...] */;
      nn.relu(%0) /* ty=Tensor[...] */
    }

Every call, tuple and projection is bound to ``%N`` in evaluation order (one walk with an
explicit stack, so long chains print without recursion); scalar constants print inline
(``1f``), tensors as ``meta[relay.Constant][k]``.
"""
from __future__ import annotations

from typing import Dict, List

from .expr import Call, Constant, Expr, Function, If, Let, Tuple, TupleGetItem, Var, post_order
from .op.registry import Op
from .ty import type_str

_INDENT = "  "


def _scope_children(e: Expr) -> List[Expr]:
    """Children evaluated in the current scope (If branches, Let bodies and function bodies
    open scopes of their own)."""
    if isinstance(e, Call):
        return list(e.args) + ([e.op] if isinstance(e.op, Expr) else [])
    if isinstance(e, Tuple):
        return list(e.fields)
    if isinstance(e, TupleGetItem):
        return [e.tuple_value]
    if isinstance(e, If):
        return [e.cond]
    return []


def _attr_value(v) -> str:
    if isinstance(v, (tuple, list)):
        return "[" + ", ".join(_attr_value(x) for x in v) + "]"
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, float):
        return f"{v:g}f"
    return str(v)


def _scalar(c: Constant) -> str:
    v = c.data.numpy()
    dt = str(v.dtype)
    x = v.item()
    if dt == "float32":
        return f"{x:g}f"
    if dt == "int32":
        return f"{x}"
    if dt == "bool":
        return "True" if x else "False"
    return f"{x}{'f' if dt.startswith('float') else 'i'}{dt[-2:].lstrip('t')}"


class _Printer:
    def __init__(self):
        self.names: Dict[int, str] = {}
        self.counter = 0
        self.meta = 0

    def _ty(self, e: Expr) -> str:
        t = e._checked_type
        return f" /* ty={type_str(t)} */" if t is not None and not isinstance(e, Function) \
            else ""

    def function(self, f: Function, head: str, indent: str) -> str:
        params = []
        for p in f.params:
            self.names[id(p)] = f"%{p.name_hint}"
            t = p.type_annotation or p._checked_type
            params.append(f"%{p.name_hint}" + (f": {type_str(t)}" if t is not None else ""))
        params += [f"{k}={_attr_value(v)}" for k, v in f.attrs.items()]
        ret = f.ret_type or (f.body._checked_type if f._checked_type is not None else None)
        sig = f"{head}({', '.join(params)})" + (f" -> {type_str(ret)}" if ret else "")
        body = self.scope(f.body, indent + _INDENT)
        return f"{sig} {{\n{body}\n{indent}}}"

    def scope(self, e: Expr, indent: str) -> str:
        lines: List[str] = []
        while isinstance(e, Let):
            val = self.value(e.value, lines, indent)
            name = f"%{e.var.name_hint}"
            self.names[id(e.var)] = name
            lines.append(f"let {name} = {val};")
            e = e.body
        lines.append(self.value(e, lines, indent) if id(e) not in self.names
                     else self.names[id(e)])
        return "\n".join(indent + ln for ln in lines)

    def value(self, e: Expr, lines: List[str], indent: str) -> str:
        """Text of ``e``; its sub-expressions are bound first, in ``lines``."""
        for n in post_order(e, _scope_children):
            if id(n) in self.names:
                continue
            if isinstance(n, Var):
                self.names[id(n)] = f"%{n.name_hint}"
                continue
            if isinstance(n, Constant):
                if n.data.shape == ():
                    self.names[id(n)] = _scalar(n)
                else:
                    self.names[id(n)] = f"meta[relay.Constant][{self.meta}]"
                    self.meta += 1
                continue
            if n is e:
                break
            text = self.node(n, indent)
            name = f"%{self.counter}"
            self.counter += 1
            lines.append(f"{name} = {text}{self._ty(n)};")
            self.names[id(n)] = name
        return self.names.get(id(e)) or self.node(e, indent) + self._ty(e)

    def node(self, e: Expr, indent: str) -> str:
        nm = self.names
        if isinstance(e, Call):
            if isinstance(e.op, Op):
                head = e.op.name
                defaults = e.op.attrs_defaults
            else:
                head, defaults = nm.get(id(e.op), "<fn>"), {}
            args = [nm[id(a)] for a in e.args]
            if e.attrs is not None:
                args += [f"{k}={_attr_value(v)}" for k, v in e.attrs.items()
                         if v is not None and (k not in defaults or defaults[k] != v)
                         and v != ""]
            return f"{head}({', '.join(args)})"
        if isinstance(e, Tuple):
            inner = ", ".join(nm[id(f)] for f in e.fields)
            return f"({inner}{',' if len(e.fields) == 1 else ''})"
        if isinstance(e, TupleGetItem):
            return f"{nm[id(e.tuple_value)]}.{e.index}"
        if isinstance(e, If):
            inner = indent + _INDENT
            return (f"if ({nm[id(e.cond)]}) {{\n{self.scope(e.true_branch, inner)}\n{indent}}} "
                    f"else {{\n{self.scope(e.false_branch, inner)}\n{indent}}}")
        if isinstance(e, Function):
            return self.function(e, "fn ", indent)
        if isinstance(e, Let):
            return "{\n" + self.scope(e, indent + _INDENT) + f"\n{indent}}}"
        return repr(e)


def astext(node) -> str:
    """Text of a relay expression or of an IRModule of relay functions."""
    p = _Printer()
    if isinstance(node, Function):
        return p.function(node, "fn ", "")
    if isinstance(node, Expr):
        return p.scope(node, "")
    out = []
    for name, func in node.functions.items():
        if isinstance(func, Function):
            out.append(_Printer().function(func, f"def @{name}", ""))
        else:
            out.append(f"# @{name}: {type(func).__name__}\n{func!r}")
    return "\n".join(out)


def is_relay_module(node) -> bool:
    funcs = getattr(node, "functions", None)
    return bool(funcs) and any(isinstance(f, Expr) for f in funcs.values())


__all__ = ["astext", "is_relay_module"]
