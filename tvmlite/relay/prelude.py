"""Classic ``relay.prelude``: the standard ADTs (``List``, ``Option``, ``Tree``, and
``nat`` from "nat.rly") and their functions (``map``, ``foldl``, ``foldr``, ``concat``,
``length``, ``nth``, ``update``, ``hd``, ``tl`` ...), built as relay functions of a module.
They run on the relay VM (``create_executor`` or ``relay.vm.compile``). The functions are
polymorphic (``def @map[A, B](%f: fn(A) -> B, %xs: List[A]) -> List[B]``), typed by InferType.
"""
from __future__ import annotations

from typing import Callable, List, Optional, Sequence

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
from .ty import FuncType, TensorType, TupleType, Type


def _op(name: str, *args: Expr) -> Call:
    return Call(registry.get(name), list(args))


def _i(v: int) -> Expr:
    return const(v, "int32")


def _fn(names: str, types: List[Type], ret: Type, body: Callable[..., Expr],
        type_params: Sequence[TypeVar] = ()) -> Function:
    """``fn [type_params](%a: types[0], %b: types[1] ...) -> ret { body(a, b ...) }`` with
    parameters named by ``names``."""
    params = [Var(n, t) for n, t in zip(names.split(), types)]
    return Function(params, body(*params), ret, type_params)


def _tvs() -> tuple:
    """Fresh type parameters A, B, C (of one polymorphic function)."""
    return TypeVar("A"), TypeVar("B"), TypeVar("C")


_I32 = TensorType((), "int32")


def _adt(mod: IRModule, name: str, ctors: List[tuple], nparams: int = 1) -> tuple:
    gtv = GlobalTypeVar(name)
    tvs = [TypeVar("ABCDEFGH"[i]) for i in range(nparams)]
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
    tree = mod.get_global_type_var("Tree")
    opt = mod.get_global_type_var("Option")

    def L(t):  # noqa: N802  (List[t])
        return TypeCall(lst, [t])

    def fn(args, ret):
        return FuncType(args, ret)
    g = {n: GlobalVar(n) for n in (
        "id compose flip hd tl nth length update map foldl foldr foldr1 sum concat filter "
        "zip rev map_accumr map_accuml unfoldr unfoldl tmap size iterate").split()}

    a, b, c = _tvs()
    mod[g["id"]] = _fn("x", [a], a, lambda x: x, [a])
    a, b, c = _tvs()
    mod[g["compose"]] = _fn("f g", [fn([b], c), fn([a], b)], fn([a], c), lambda f, gg: _fn(
        "x", [a], c, lambda x: Call(f, [Call(gg, [x])])), [a, b, c])
    a, b, c = _tvs()
    mod[g["flip"]] = _fn("f", [fn([a, b], c)], fn([b, a], c), lambda f: _fn(
        "b a", [b, a], c, lambda y, x: Call(f, [x, y])), [a, b, c])

    def hd(xs):
        x = Var("x")
        return Match(xs, [Clause(_pc(cons, _pv(x), _W()), x)], complete=False)
    a, b, c = _tvs()
    mod[g["hd"]] = _fn("xs", [L(a)], a, hd, [a])

    def tl(xs):
        rest = Var("rest")
        return Match(xs, [Clause(_pc(cons, _W(), _pv(rest)), rest)], complete=False)
    a, b, c = _tvs()
    mod[g["tl"]] = _fn("xs", [L(a)], L(a), tl, [a])

    a, b, c = _tvs()
    mod[g["nth"]] = _fn("xs n", [L(a), _I32], a, lambda xs, n: If(
        _op("equal", n, _i(0)), Call(g["hd"], [xs]),
        Call(g["nth"], [Call(g["tl"], [xs]), _op("subtract", n, _i(1))])), [a])

    def length(xs):
        rest = Var("rest")
        return Match(xs, [
            Clause(_pc(cons, _W(), _pv(rest)), _op("add", _i(1), Call(g["length"], [rest]))),
            Clause(_pc(nil), _i(0))])
    a, b, c = _tvs()
    mod[g["length"]] = _fn("xs", [L(a)], _I32, length, [a])

    a, b, c = _tvs()
    mod[g["update"]] = _fn("xs n v", [L(a), _I32, a], L(a), lambda xs, n, v: If(
        _op("equal", n, _i(0)), Call(cons, [v, Call(g["tl"], [xs])]),
        Call(cons, [Call(g["hd"], [xs]),
                    Call(g["update"], [Call(g["tl"], [xs]), _op("subtract", n, _i(1)), v])])),
        [a])

    def map_(f, xs):
        x, rest = Var("x"), Var("rest")
        return Match(xs, [
            Clause(_pc(cons, _pv(x), _pv(rest)),
                   Call(cons, [Call(f, [x]), Call(g["map"], [f, rest])])),
            Clause(_pc(nil), Call(nil, []))])
    a, b, c = _tvs()
    mod[g["map"]] = _fn("f xs", [fn([a], b), L(a)], L(b), map_, [a, b])

    def foldl(f, acc, xs):
        x, rest = Var("x"), Var("rest")
        return Match(xs, [
            Clause(_pc(cons, _pv(x), _pv(rest)),
                   Call(g["foldl"], [f, Call(f, [acc, x]), rest])),
            Clause(_pc(nil), acc)])
    a, b, c = _tvs()
    mod[g["foldl"]] = _fn("f acc xs", [fn([a, b], a), a, L(b)], a, foldl, [a, b])

    def foldr(f, acc, xs):
        x, rest = Var("x"), Var("rest")
        return Match(xs, [
            Clause(_pc(cons, _pv(x), _pv(rest)),
                   Call(f, [x, Call(g["foldr"], [f, acc, rest])])),
            Clause(_pc(nil), acc)])
    a, b, c = _tvs()
    mod[g["foldr"]] = _fn("f acc xs", [fn([a, b], b), b, L(a)], b, foldr, [a, b])

    def foldr1(f, xs):
        x, x2, rest = Var("x"), Var("x"), Var("rest")
        return Match(xs, [
            Clause(_pc(cons, _pv(x), _pc(nil)), x),
            Clause(_pc(cons, _pv(x2), _pv(rest)), Call(f, [x2, Call(g["foldr1"], [f, rest])]))],
            complete=False)
    a, b, c = _tvs()
    mod[g["foldr1"]] = _fn("f xs", [fn([a, a], a), L(a)], a, foldr1, [a])

    add_x, add_y = Var("x", _I32), Var("y", _I32)
    add_f = Var("add_f")
    mod[g["sum"]] = _fn("xs", [L(_I32)], _I32, lambda xs: Let(
        add_f, Function([add_x, add_y], _op("add", add_x, add_y)),
        Call(g["foldl"], [add_f, _i(0), xs])))
    a, b, c = _tvs()
    mod[g["concat"]] = _fn("xs ys", [L(a), L(a)], L(a),
                           lambda xs, ys: Call(g["foldr"], [cons, ys, xs]), [a])

    def filter_(f, xs):
        x, rest = Var("x"), Var("rest")
        return Match(xs, [
            Clause(_pc(cons, _pv(x), _pv(rest)),
                   If(Call(f, [x]), Call(cons, [x, Call(g["filter"], [f, rest])]),
                      Call(g["filter"], [f, rest]))),
            Clause(_pc(nil), Call(nil, []))])
    a, b, c = _tvs()
    mod[g["filter"]] = _fn("f xs", [fn([a], TensorType((), "bool")), L(a)], L(a), filter_,
                           [a])

    def zip_(xs, ys):
        x, xr, y, yr = Var("x"), Var("x_rest"), Var("y"), Var("y_rest")
        return Match(Tuple([xs, ys]), [
            Clause(PatternTuple([_pc(cons, _pv(x), _pv(xr)), _pc(cons, _pv(y), _pv(yr))]),
                   Call(cons, [Tuple([x, y]), Call(g["zip"], [xr, yr])])),
            Clause(_W(), Call(nil, []))])
    a, b, c = _tvs()
    mod[g["zip"]] = _fn("xs ys", [L(a), L(b)], L(TupleType([a, b])), zip_, [a, b])

    a, b, c = _tvs()
    mod[g["rev"]] = _fn("xs", [L(a)], L(a), lambda xs: Call(g["foldl"], [
        Call(g["flip"], [_fn("h t", [a, L(a)], L(a), lambda h, t: Call(cons, [h, t]))]),
        Call(nil, []), xs]), [a])

    def accum(left: bool):
        a, b, c = _tvs()
        acc_t = TupleType([a, L(c)])

        def body(f, init, xs):
            f_out = Var("f_out")

            def upd(acc, x):
                return Let(f_out, Call(f, [TupleGetItem(acc, 0), x]), Tuple([
                    TupleGetItem(f_out, 0),
                    Call(cons, [TupleGetItem(f_out, 1), TupleGetItem(acc, 1)])]))
            updater = _fn("acc x", [acc_t, b], acc_t, upd) if left else \
                _fn("x acc", [b, acc_t], acc_t, lambda x, acc: upd(acc, x))
            return Call(g["foldl" if left else "foldr"],
                        [updater, Tuple([init, Call(nil, [])]), xs])
        return _fn("f init xs", [fn([a, b], TupleType([a, c])), a, L(b)], acc_t, body,
                   [a, b, c])
    mod[g["map_accumr"]] = accum(False)
    mod[g["map_accuml"]] = accum(True)

    def unfoldr(f, seed):
        val = Var("val")
        return Match(Call(f, [seed]), [
            Clause(_pc(some, _pv(val)), Call(cons, [
                TupleGetItem(val, 1), Call(g["unfoldr"], [f, TupleGetItem(val, 0)])])),
            Clause(_pc(none), Call(nil, []))])
    a, b, c = _tvs()
    unfold_args = [fn([a], TypeCall(opt, [TupleType([a, b])])), a]
    mod[g["unfoldr"]] = _fn("f seed", unfold_args, L(b), unfoldr, [a, b])
    a, b, c = _tvs()
    unfold_args = [fn([a], TypeCall(opt, [TupleType([a, b])])), a]
    mod[g["unfoldl"]] = _fn("f seed", unfold_args, L(b), lambda f, seed: Call(
        g["rev"], [Call(g["unfoldr"], [f, seed])]), [a, b])

    a, b, c = _tvs()

    def tmap(f, t):
        v, sub = Var("v"), Var("sub_trees")
        return Match(t, [Clause(_pc(rose, _pv(v), _pv(sub)), Call(rose, [
            Call(f, [v]), Call(g["map"], [_fn("tt", [TypeCall(tree, [a])], TypeCall(tree, [b]),
                                              lambda tt: Call(g["tmap"], [f, tt])),
                                          sub])]))])
    mod[g["tmap"]] = _fn("f t", [fn([a], b), TypeCall(tree, [a])], TypeCall(tree, [b]), tmap,
                         [a, b])

    def size(t):
        sub = Var("sub_trees")
        return Match(t, [Clause(_pc(rose, _W(), _pv(sub)), _op(
            "add", _i(1), Call(g["sum"], [Call(g["map"], [g["size"], sub])])))])
    a, b, c = _tvs()
    mod[g["size"]] = _fn("t", [TypeCall(tree, [a])], _I32, size, [a])

    a, b, c = _tvs()
    mod[g["iterate"]] = _fn("f n", [fn([a], a), _I32], fn([a], a), lambda f, n: If(
        _op("equal", n, _i(0)), g["id"],
        Call(g["compose"], [f, Call(g["iterate"], [f, _op("subtract", n, _i(1))])])), [a])


def _define_nat(mod: IRModule) -> None:
    """Add classic's nat.rly definitions (``nat`` = ``zero`` | ``succ(nat)``) to ``mod``."""
    if "List" not in mod.type_definitions:
        mod.import_from_std("prelude.rly")
    _, zero, succ = _adt(mod, "nat", [("zero", []), ("succ", [
        lambda gtv, tvs: TypeCall(gtv, [])])], nparams=0)
    g = {n: GlobalVar(n) for n in "nat_double nat_add nat_nth nat_update nat_iterate".split()}
    hd, tl = GlobalVar("hd"), GlobalVar("tl")
    cons = mod.get_type("List")[1]
    lst, nat = mod.get_global_type_var("List"), mod.get_global_type_var("nat")
    nat_t = TypeCall(nat, [])

    def double(x):
        y = Var("y")
        return Match(x, [Clause(_pc(zero), Call(zero, [])), Clause(
            _pc(succ, _pv(y)), Call(succ, [Call(succ, [Call(g["nat_double"], [y])])]))])
    mod[g["nat_double"]] = _fn("x", [nat_t], nat_t, double)

    def add(x, y):
        z = Var("z")
        return Match(x, [Clause(_pc(zero), y), Clause(
            _pc(succ, _pv(z)), Call(succ, [Call(g["nat_add"], [z, y])]))])
    mod[g["nat_add"]] = _fn("x y", [nat_t, nat_t], nat_t, add)

    def nth(lst, n):
        y = Var("y")
        return Match(n, [Clause(_pc(zero), Call(hd, [lst])), Clause(
            _pc(succ, _pv(y)), Call(g["nat_nth"], [Call(tl, [lst]), y]))])
    a, _, _ = _tvs()
    mod[g["nat_nth"]] = _fn("l n", [TypeCall(lst, [a]), nat_t], a, nth, [a])

    def update(lst, index, value):
        y = Var("index_pred")
        return Match(index, [
            Clause(_pc(zero), Call(cons, [value, Call(tl, [lst])])),
            Clause(_pc(succ, _pv(y)), Call(g["nat_update"], [Call(tl, [lst]), y, value]))])
    a, _, _ = _tvs()
    mod[g["nat_update"]] = _fn("list index value", [TypeCall(lst, [a]), nat_t, a],
                               TypeCall(lst, [a]), update, [a])

    a, _, _ = _tvs()
    fa = FuncType([a], a)

    def iterate(f, num):
        y = Var("y")
        return Match(num, [
            Clause(_pc(zero), _fn("x", [a], a, lambda x: x)),
            Clause(_pc(succ, _pv(y)), _fn("i", [a], a, lambda i: Call(
                f, [Call(Call(g["nat_iterate"], [f, y]), [i])])))])
    mod[g["nat_iterate"]] = _fn("f num", [fa, nat_t], fa, iterate, [a])


register_std_importer("prelude.rly", _define_prelude)
register_std_importer("nat.rly", _define_nat)

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
