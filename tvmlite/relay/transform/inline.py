"""``Inline``: calls of global functions marked ``Inline`` (non-recursive, calling no other
global function once their own callees are inlined) become the function's body with its
parameters bound to the arguments; the inlined functions then leave the module (classic
relay's ``InlineGlobals``)."""
from __future__ import annotations

from typing import Dict, List

from ...ir.module import GlobalVar, IRModule
from ...ir.transform import ModulePass, Pass
from ..analysis import CallGraph
from ..expr import Call, Expr, Function, post_order, replace_children, substitute, visit_children


def _flag(func, key: str) -> bool:
    value = (getattr(func, "attrs", None) or {}).get(key)
    value = getattr(value, "value", value)
    return bool(value) and value != "0"


class _Inliner:
    def __init__(self, mod: IRModule):
        cg = CallGraph(mod)
        self.funcs: Dict[str, object] = dict(mod.functions)
        self.calls: Dict[str, List[str]] = {n: list(cg._calls[n]) for n in cg._calls}
        self.refs: Dict[str, int] = dict(cg._refs)
        self.order = cg.topo_order()[::-1]  # callees first

    def recursive(self, name: str) -> bool:
        return name in self.calls[name]

    def can_inline(self, name: str) -> bool:
        func = self.funcs.get(name)
        return not self.calls[name] and not self.recursive(name) \
            and isinstance(func, Function) and _flag(func, "Inline")

    def inline_into(self, name: str) -> None:
        func = self.funcs[name]
        memo: Dict[int, Expr] = {}

        def sub(c):
            return memo.get(id(c), c)
        for n in post_order(func.body, visit_children):
            post = replace_children(n, sub)
            if isinstance(n, Call) and isinstance(n.op, GlobalVar) \
                    and n.op.name_hint in self.funcs and self.can_inline(n.op.name_hint):
                callee_name = n.op.name_hint
                self.calls[name].remove(callee_name)
                self.refs[callee_name] -= 1
                callee = self.funcs[callee_name]
                if (callee.attrs or {}).get("Compiler") or _flag(callee, "Extern"):
                    post = Call(Function(callee.params, callee.body, callee.ret_type,
                                         callee.type_params, callee.attrs),
                                list(post.args), post.attrs, post.type_args)
                else:
                    post = substitute(callee.body, {id(p): a for p, a in
                                                    zip(callee.params, post.args)})
            memo[id(n)] = post
        body = sub(func.body)
        if body is not func.body:
            self.funcs[name] = Function(func.params, body, func.ret_type, func.type_params,
                                        func.attrs)

    def run(self, mod: IRModule) -> IRModule:
        roots = set()
        for name in self.order:
            if self.refs.get(name, 0) == 0:
                roots.add(name)
            calls = self.calls[name]
            if not calls or (self.recursive(name) and len(calls) == 1):
                continue
            if isinstance(self.funcs[name], Function):
                self.inline_into(name)
        for name in self.order:
            if self.recursive(name) or name in roots:
                continue
            func = self.funcs[name]
            if isinstance(func, Function) and _flag(func, "Inline") and self.refs[name] == 0:
                del self.funcs[name]
        return IRModule(self.funcs, mod.attrs)


def inline_module(mod: IRModule) -> IRModule:
    """``mod`` with its ``Inline`` global functions inlined into their callers."""
    return _Inliner(mod).run(mod)


def Inline() -> Pass:  # noqa: N802
    """Inline global functions marked ``Inline`` (``relay.transform.Inline()``)."""
    return ModulePass(lambda mod, ctx: inline_module(mod), "InlineGlobals", opt_level=1)
