"""The operator registry of classic ``tvm.ir``: attributes of built-in ops by name
(``register_op_attr``) and per-target intrinsic lowering rules (``register_intrin_lowering``),
which the ``LowerIntrin`` pass applies before code generation.

A TIR ``Call`` names its op by a plain string (``"exp"``, ``"call_extern"``); the registry
speaks classic names (``"tir.exp"``). A rule receives the call with an op whose ``name`` is the
classic one (``op.op.name == "tir.exp"``).
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Tuple

from ..error import TVMError


def classic_op_name(op: str) -> str:
    """``"exp"`` → ``"tir.exp"`` (a name with a namespace stays as it is)."""
    return op if "." in op else "tir." + op


def tir_op_name(name: str) -> str:
    """``"tir.exp"`` → ``"exp"``: how a TIR ``Call`` spells the op."""
    return name[4:] if name.startswith("tir.") else name


class OpName(str):
    """The op string of a ``Call`` handed to a lowering rule: compares as the TIR spelling,
    and ``.name`` gives the classic one."""

    @property
    def name(self) -> str:
        return classic_op_name(str(self))


class Op:
    """A registered op (classic ``tvm.ir.Op``): a name and its attributes."""

    _registry: Dict[str, "Op"] = {}

    def __init__(self, name: str):
        self.name = name
        self._attrs: Dict[str, Tuple[Any, int]] = {}

    def __repr__(self) -> str:
        return f"Op({self.name})"

    @staticmethod
    def get(op_name: str) -> "Op":
        """The op named ``op_name`` (created on first use)."""
        if not isinstance(op_name, str) or not op_name:
            raise TVMError(f"Op.get: expected an op name, got {op_name!r}")
        name = classic_op_name(op_name)
        op = Op._registry.get(name)
        if op is None:
            op = Op._registry[name] = Op(name)
        return op

    def get_attr(self, attr_name: str) -> Any:
        """The value of attribute ``attr_name``, or None."""
        hit = self._attrs.get(attr_name)
        return None if hit is None else hit[0]

    def has_attr(self, attr_name: str) -> bool:
        return attr_name in self._attrs

    def set_attr(self, attr_name: str, value: Any, plevel: int = 10) -> None:
        """Set an attribute; an existing value of a higher level wins, one of the same level
        is an error (classic TVM's rule)."""
        old = self._attrs.get(attr_name)
        if old is not None:
            if old[1] == plevel:
                raise TVMError(f"attribute {attr_name} of op {self.name} is already registered "
                               f"with the same priority level {plevel}")
            if old[1] > plevel:
                return
        self._attrs[attr_name] = (value, plevel)
        global _generation
        _generation += 1

    def reset_attr(self, attr_name: str) -> None:
        self._attrs.pop(attr_name, None)
        global _generation
        _generation += 1


_generation = 0  # bumped on every change: part of the build cache key


def registry_generation() -> int:
    """A number that changes whenever an op attribute changes."""
    return _generation


_OP_RESOLVERS: list = []


def register_op_resolver(resolve: Callable[[str], Any]) -> None:
    """Let ``register_op_attr`` find ops of a higher IR by name (relay's operators): a name
    ``resolve`` knows gets the attribute there."""
    _OP_RESOLVERS.append(resolve)


def register_op_attr(op_name: str, attr_key: str, value: Any = None, level: int = 10):
    """Register attribute ``attr_key`` of op ``op_name``; without ``value``, a decorator
    registering the decorated function.

    Parameters
    ----------
    op_name : str
        The op, e.g. ``"tir.exp"``, or a relay operator (``"exp"``, ``"nn.conv2d"``).
    attr_key : str
        The attribute, e.g. ``"TCallEffectKind"`` or ``"cuda.FLowerIntrinsic"``.
    value : object, optional
        The value.
    level : int
        The priority: a higher level overrides a lower one.
    """
    def register(v):
        for resolve in _OP_RESOLVERS:
            op = resolve(op_name)
            if op is not None:  # a relay operator ("exp", "nn.conv2d")
                op.set_attr(attr_key, v, level)
                return v
        Op.get(op_name).set_attr(attr_key, v, level)
        return v

    return register if value is None else register(value)


def register_intrin_lowering(op_name: str, target: str, *, f: Optional[Callable] = None,
                             level: int = 10):
    """Register ``f(call) -> PrimExpr`` as the lowering of intrinsic ``op_name`` for target
    kind ``target`` (``"cuda"``, ``"llvm"``, ``"c"`` or ``"default"``); without ``f``, a
    decorator. The rule returns the call itself to leave it alone. The rule is always the TIR
    intrinsic's (``"exp"`` is ``"tir.exp"`` here, never the relay operator)."""
    def register(v):
        Op.get(op_name).set_attr(f"{target}.FLowerIntrinsic", v, level)
        return v

    return register if f is None else register(f)


def lowering_rule(op: str, kinds: Tuple[str, ...]) -> Optional[Callable]:
    """The lowering rule of TIR op ``op`` for the first of ``kinds`` that has one."""
    entry = Op._registry.get(classic_op_name(op))
    if entry is None:
        return None
    for kind in kinds:
        rule = entry.get_attr(f"{kind}.FLowerIntrinsic")
        if rule is not None:
            return rule
    return None


def has_lowering_rules() -> bool:
    return any(k.endswith(".FLowerIntrinsic") for op in Op._registry.values()
               for k in op._attrs)
