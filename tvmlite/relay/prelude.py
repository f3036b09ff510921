"""Classic ``relay.prelude``: the standard ADTs (``List``, ``Option``, ``Tree``, and
``nat`` from "nat.rly") and their functions (``map``, ``foldl``, ``foldr``, ``concat``,
``length``, ``nth``, ``update``, ``hd``, ``tl`` ...), built as relay functions of a module.
They run on the relay VM (``create_executor`` or ``relay.vm.compile``).

Functions are left untyped (polymorphic in classic); the VM checks values as it runs.
"""
from __future__ import annotations

from typing import Callable, List, Optional

from ..error import TVMError
from ..ir.module import GlobalVar, IRModule, register_std_importer
from .adt import (
    Clause,
    Constructor,
    GlobalTypeVar,
    Match,
    PatternConstructor,
    PatternTuple,
    PatternVar,
    PatternWildcard,
    TypeCall,
    TypeData,
    TypeVar,
)
from .expr import Call, Expr, Function, If, Let, Tuple, TupleGetItem, Var, const
from .op import registry
from .ty import TensorType


def _op(name: str, *args: Expr) -> Call:
    return Call(registry.get(name), list(args))


def _i(v: int) -> Expr:
    return const(v, "int32")


def _fn(names: str, body: Callable[..., Expr]) -> Function:
    """``fn [A](%a, %b ...) { body(a, b ...) }`` with parameters named by ``names``: a
    polymorphic function (classic's prelude types them; tvmlite's inference leaves them to
    the VM)."""
    params = [Var(n) for n in names.split()]
    return Function(params, body(*params), type_params=[TypeVar("A")])


def _adt(mod: IRModule, name: str, ctors: List[tuple], nparams: int = 1) -> tuple:
    gtv = GlobalTypeVar(name)
    tvs = [TypeVar(f"A{i}") for i in range(nparams)]
    built = [Constructor(cname, [arg(gtv, tvs) for arg in fields], gtv)
             for cname, fields in ctors]
    mod[gtv] = TypeData(gtv, tvs, built)
    return (gtv, *built)


def _pc(ctor: Constructor, *pats) -> PatternConstructor:
    return PatternConstructor(ctor, list(pats))


def _pv(v: Var) -> PatternVar:
    return PatternVar(v)


_W = PatternWildcard


def _define_prelude(mod: IRModule) -> None:
    """Add classic's prelude.rly definitions to ``mod``."""
    def tv(i):
        return lambda gtv, tvs: tvs[i]

    def self_of(gtv, tvs):
        return TypeCall(gtv, tvs)

    _, cons, nil = _adt(mod, "List", [("Cons", [tv(0), self_of]), ("Nil", [])])
    lst = mod.get_global_type_var("List")
    _, some, none = _adt(mod, "Option", [("Some", [tv(0)]), ("None", [])])
    _adt(mod, "Tree", [("Rose", [tv(0), lambda g, t: TypeCall(lst, [TypeCall(g, t)])])])
    rose = mod.get_type("Tree")[1]
    g = {n: GlobalVar(n) for n in (
        "id compose flip hd tl nth length update map foldl foldr foldr1 sum concat filter "
        "zip rev map_accumr map_accuml unfoldr unfoldl tmap size iterate").split()}

    mod[g["id"]] = _fn("x", lambda x: x)
    mod[g["compose"]] = _fn("f g", lambda f, gg: _fn("x", lambda x: Call(f, [Call(gg, [x])])))
    mod[g["flip"]] = _fn("f", lambda f: _fn("b a", lambda b, a: Call(f, [a, b])))

    def hd(xs):
        x = Var("x")
        return Match(xs, [Clause(_pc(cons, _pv(x), _W()), x)], complete=False)
    mod[g["hd"]] = _fn("xs", hd)

    def tl(xs):
        rest = Var("rest")
        return Match(xs, [Clause(_pc(cons, _W(), _pv(rest)), rest)], complete=False)
    mod[g["tl"]] = _fn("xs", tl)

    mod[g["nth"]] = _fn("xs n", lambda xs, n: If(
        _op("equal", n, _i(0)), Call(g["hd"], [xs]),
        Call(g["nth"], [Call(g["tl"], [xs]), _op("subtract", n, _i(1))])))

    def length(xs):
        rest = Var("rest")
        return Match(xs, [
            Clause(_pc(cons, _W(), _pv(rest)), _op("add", _i(1), Call(g["length"], [rest]))),
            Clause(_pc(nil), _i(0))])
    mod[g["length"]] = _fn("xs", length)

    mod[g["update"]] = _fn("xs n v", lambda xs, n, v: If(
        _op("equal", n, _i(0)), Call(cons, [v, Call(g["tl"], [xs])]),
        Call(cons, [Call(g["hd"], [xs]),
                    Call(g["update"], [Call(g["tl"], [xs]), _op("subtract", n, _i(1)), v])])))

    def map_(f, xs):
        x, rest = Var("x"), Var("rest")
        return Match(xs, [
            Clause(_pc(cons, _pv(x), _pv(rest)),
                   Call(cons, [Call(f, [x]), Call(g["map"], [f, rest])])),
            Clause(_pc(nil), Call(nil, []))])
    mod[g["map"]] = _fn("f xs", map_)

    def foldl(f, acc, xs):
        x, rest = Var("x"), Var("rest")
        return Match(xs, [
            Clause(_pc(cons, _pv(x), _pv(rest)),
                   Call(g["foldl"], [f, Call(f, [acc, x]), rest])),
            Clause(_pc(nil), acc)])
    mod[g["foldl"]] = _fn("f acc xs", foldl)

    def foldr(f, acc, xs):
        x, rest = Var("x"), Var("rest")
        return Match(xs, [
            Clause(_pc(cons, _pv(x), _pv(rest)),
                   Call(f, [x, Call(g["foldr"], [f, acc, rest])])),
            Clause(_pc(nil), acc)])
    mod[g["foldr"]] = _fn("f acc xs", foldr)

    def foldr1(f, xs):
        x, x2, rest = Var("x"), Var("x"), Var("rest")
        return Match(xs, [
            Clause(_pc(cons, _pv(x), _pc(nil)), x),
            Clause(_pc(cons, _pv(x2), _pv(rest)), Call(f, [x2, Call(g["foldr1"], [f, rest])]))],
            complete=False)
    mod[g["foldr1"]] = _fn("f xs", foldr1)

    i32 = TensorType((), "int32")
    add_x, add_y = Var("x", i32), Var("y", i32)
    add_f = Var("add_f")
    mod[g["sum"]] = _fn("xs", lambda xs: Let(
        add_f, Function([add_x, add_y], _op("add", add_x, add_y)),
        Call(g["foldl"], [add_f, _i(0), xs])))
    mod[g["concat"]] = _fn("xs ys", lambda xs, ys: Call(g["foldr"], [cons, ys, xs]))

    def filter_(f, xs):
        x, rest = Var("x"), Var("rest")
        return Match(xs, [
            Clause(_pc(cons, _pv(x), _pv(rest)),
                   If(Call(f, [x]), Call(cons, [x, Call(g["filter"], [f, rest])]),
                      Call(g["filter"], [f, rest]))),
            Clause(_pc(nil), Call(nil, []))])
    mod[g["filter"]] = _fn("f xs", filter_)

    def zip_(xs, ys):
        x, xr, y, yr = Var("x"), Var("x_rest"), Var("y"), Var("y_rest")
        return Match(Tuple([xs, ys]), [
            Clause(PatternTuple([_pc(cons, _pv(x), _pv(xr)), _pc(cons, _pv(y), _pv(yr))]),
                   Call(cons, [Tuple([x, y]), Call(g["zip"], [xr, yr])])),
            Clause(_W(), Call(nil, []))])
    mod[g["zip"]] = _fn("xs ys", zip_)

    mod[g["rev"]] = _fn("xs", lambda xs: Call(g["foldl"], [
        Call(g["flip"], [_fn("h t", lambda h, t: Call(cons, [h, t]))]), Call(nil, []), xs]))

    def accum(left: bool):
        def body(f, init, xs):
            f_out = Var("f_out")

            def upd(acc, x):
                return Let(f_out, Call(f, [TupleGetItem(acc, 0), x]), Tuple([
                    TupleGetItem(f_out, 0),
                    Call(cons, [TupleGetItem(f_out, 1), TupleGetItem(acc, 1)])]))
            updater = _fn("acc x", upd) if left else _fn("x acc", lambda x, acc: upd(acc, x))
            return Call(g["foldl" if left else "foldr"],
                        [updater, Tuple([init, Call(nil, [])]), xs])
        return _fn("f init xs", body)
    mod[g["map_accumr"]] = accum(False)
    mod[g["map_accuml"]] = accum(True)

    def unfoldr(f, seed):
        val = Var("val")
        return Match(Call(f, [seed]), [
            Clause(_pc(some, _pv(val)), Call(cons, [
                TupleGetItem(val, 1), Call(g["unfoldr"], [f, TupleGetItem(val, 0)])])),
            Clause(_pc(none), Call(nil, []))])
    mod[g["unfoldr"]] = _fn("f seed", unfoldr)
    mod[g["unfoldl"]] = _fn("f seed", lambda f, seed: Call(
        g["rev"], [Call(g["unfoldr"], [f, seed])]))

    def tmap(f, t):
        v, sub = Var("v"), Var("sub_trees")
        return Match(t, [Clause(_pc(rose, _pv(v), _pv(sub)), Call(rose, [
            Call(f, [v]), Call(g["map"], [_fn("tt", lambda tt: Call(g["tmap"], [f, tt])),
                                          sub])]))])
    mod[g["tmap"]] = _fn("f t", tmap)

    def size(t):
        sub = Var("sub_trees")
        return Match(t, [Clause(_pc(rose, _W(), _pv(sub)), _op(
            "add", _i(1), Call(g["sum"], [Call(g["map"], [g["size"], sub])])))])
    mod[g["size"]] = _fn("t", size)

    mod[g["iterate"]] = _fn("f n", lambda f, n: If(
        _op("equal", n, _i(0)), g["id"],
        Call(g["compose"], [f, Call(g["iterate"], [f, _op("subtract", n, _i(1))])])))


def _define_nat(mod: IRModule) -> None:
    """Add classic's nat.rly definitions (``nat`` = ``zero`` | ``succ(nat)``) to ``mod``."""
    if "List" not in mod.type_definitions:
        mod.import_from_std("prelude.rly")
    _, zero, succ = _adt(mod, "nat", [("zero", []), ("succ", [
        lambda gtv, tvs: TypeCall(gtv, [])])], nparams=0)
    g = {n: GlobalVar(n) for n in "nat_double nat_add nat_nth nat_update nat_iterate".split()}
    hd, tl = GlobalVar("hd"), GlobalVar("tl")
    cons = mod.get_type("List")[1]

    def double(x):
        y = Var("y")
        return Match(x, [Clause(_pc(zero), Call(zero, [])), Clause(
            _pc(succ, _pv(y)), Call(succ, [Call(succ, [Call(g["nat_double"], [y])])]))])
    mod[g["nat_double"]] = _fn("x", double)

    def add(x, y):
        z = Var("z")
        return Match(x, [Clause(_pc(zero), y), Clause(
            _pc(succ, _pv(z)), Call(succ, [Call(g["nat_add"], [z, y])]))])
    mod[g["nat_add"]] = _fn("x y", add)

    def nth(lst, n):
        y = Var("y")
        return Match(n, [Clause(_pc(zero), Call(hd, [lst])), Clause(
            _pc(succ, _pv(y)), Call(g["nat_nth"], [Call(tl, [lst]), y]))])
    mod[g["nat_nth"]] = _fn("l n", nth)

    def update(lst, index, value):
        y = Var("index_pred")
        return Match(index, [
            Clause(_pc(zero), Call(cons, [value, Call(tl, [lst])])),
            Clause(_pc(succ, _pv(y)), Call(g["nat_update"], [Call(tl, [lst]), y, value]))])
    mod[g["nat_update"]] = _fn("list index value", update)

    def iterate(f, num):
        y = Var("y")
        return Match(num, [
            Clause(_pc(zero), _fn("x", lambda x: x)),
            Clause(_pc(succ, _pv(y)), _fn("i", lambda i: Call(
                f, [Call(Call(g["nat_iterate"], [f, y]), [i])])))])
    mod[g["nat_iterate"]] = _fn("f num", iterate)


def _untyped(define: Callable[[IRModule], None]) -> Callable[[IRModule], None]:
    """``define``, then its functions marked as left untyped by tvmlite's inference."""
    def run(mod: IRModule) -> None:
        from .transform.infer_type import mark_untyped
        before = set(mod.functions)
        define(mod)
        for name in set(mod.functions) - before:
            mark_untyped(mod[name])
    return run


register_std_importer("prelude.rly", _untyped(_define_prelude))
register_std_importer("nat.rly", _untyped(_define_nat))

_GLOBALS = ("id compose flip hd tl nth length update map foldl foldr foldr1 sum concat filter "
            "zip rev map_accumr map_accuml unfoldr unfoldl tmap size iterate").split()


class Prelude:
    """The prelude's ADTs and functions in module ``mod`` (classic ``relay.prelude``):
    ``p.map``, ``p.foldl`` ... are ``GlobalVar``s; ``p.mod.get_type("List")`` gives
    ``(List, Cons, Nil)``."""

    def __init__(self, mod: Optional[IRModule] = None):
        if mod is None:
            mod = IRModule()
        self.mod = mod
        self.load_prelude()

    def load_prelude(self) -> None:
        """Add the prelude to ``self.mod`` (once)."""
        self.mod.import_from_std("prelude.rly")
        for name in _GLOBALS:
            setattr(self, name, self.mod.get_global_var(name))
        self.l, self.cons, self.nil = self.mod.get_type("List")
        self.List, self.Cons, self.Nil = self.l, self.cons, self.nil
        self.optional, self.some, self.none = self.mod.get_type("Option")
        self.tree, self.rose = self.mod.get_type("Tree")

    def get_name(self, canonical: str, dtype: Optional[str] = None) -> str:
        if dtype is not None:
            raise TVMError("Prelude: tensor arrays (dtype-specific definitions) are not "
                           "supported by tvmlite")
        return canonical

    def get_global_var(self, canonical: str, dtype: Optional[str] = None) -> GlobalVar:
        """The function ``canonical`` of the prelude."""
        return self.mod.get_global_var(self.get_name(canonical, dtype))

    def get_type(self, canonical: str, dtype: Optional[str] = None):
        """The ``GlobalTypeVar`` of ADT ``canonical``."""
        return self.mod.get_global_type_var(self.get_name(canonical, dtype))

    def get_ctor(self, ty_name: str, canonical: str, dtype: Optional[str] = None):
        """The constructor ``canonical`` of ADT ``ty_name``."""
        for c in self.mod.get_type(self.get_name(ty_name, dtype))[1:]:
            if c.name_hint == canonical:
                return c
        raise TVMError(f"Prelude: ADT {ty_name} has no constructor {canonical}")


class StaticTensorArrayOps:
    """Classic's tensor arrays of static shape: not supported by tvmlite."""

    def __init__(self, prelude, dtype, shape, batch_dim=None):
        from .._classic import UnsupportedError
        raise UnsupportedError("relay.prelude.StaticTensorArrayOps (tensor arrays) is not "
                               "supported by tvmlite")


def make_nat_expr(prelude: Prelude, n: int) -> Expr:
    """The relay expression of nat ``n`` (``succ(succ(... zero()))``)."""
    _, z, s = prelude.mod.get_type("nat")
    e = Call(z, [])
    for _ in range(n):
        e = Call(s, [e])
    return e


def make_nat_value(prelude: Prelude, n: int):
    """The VM value of nat ``n``."""
    from .backend.vm import ConstructorValue
    _, z, s = prelude.mod.get_type("nat")
    v = ConstructorValue(z.tag, [], z)
    for _ in range(n):
        v = ConstructorValue(s.tag, [v], s)
    return v


def count(prelude: Prelude, n) -> int:
    """The int a nat value ``n`` stands for."""
    _, z, s = prelude.mod.get_type("nat")
    k = 0
    while n.tag == s.tag:
        k += 1
        n = n.fields[0]
    if n.tag != z.tag:
        raise TVMError(f"count: not a nat value: {n!r}")
    return k


__all__ = ["StaticTensorArrayOps", "Prelude", "make_nat_expr", "make_nat_value", "count"]
