"""The relay operator registry (``relay.op.get``).

Each operator names its type relation, its fusion pattern and its strategy: per target key
(``"cpu"`` for llvm/c, ``"generic"`` otherwise) the TOPI compute and schedule that lower it.
There is no compute here: an op's only compute definition is its TOPI function.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from ...error import TVMError


class OpPattern:
    """Fusion patterns (classic ``relay.op.OpPattern``)."""

    ELEMWISE = 0
    BROADCAST = 1
    INJECTIVE = 2
    COMM_REDUCE = 3
    OUT_ELEMWISE_FUSABLE = 4
    TUPLE = 7
    OPAQUE = 8


class _Required:
    """The default of an attribute that has none (classic ``TVM_ATTR_FIELD`` without
    ``set_default``, as a pool's ``pool_size``): a call must give it, and the text printer
    always prints it."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "REQUIRED"

    def __reduce__(self):
        return "REQUIRED"


#: marks an attribute without a default in ``register``'s ``attrs_defaults``
REQUIRED = _Required()


# fcompute(attrs, inputs: list of te.Tensor, out_type) -> list of te.Tensor
FCompute = Callable[[Any, List[Any], Any], List[Any]]
# fschedule(attrs, outs: list of te.Tensor, target) -> te.Schedule
FSchedule = Callable[[Any, List[Any], Any], Any]


class Op:
    """A primitive operator: what ``relay.op.get(name)`` returns."""

    __slots__ = ("name", "num_inputs", "type_rel", "pattern", "strategies", "attrs_defaults",
                 "description", "_attrs", "arg_types", "support_level", "arguments",
                 "attrs_type_key")

    def __reduce__(self):
        # an operator is pickled by name (save_json): the registry's one instance on load
        return get, (self.name,)

    def __init__(self, name: str, num_inputs: int, type_rel: Callable, pattern: int,
                 attrs_defaults: Optional[Dict[str, Any]] = None, description: str = ""):
        self.name = name
        self.num_inputs = num_inputs  # -1: variadic (a tuple argument)
        self.type_rel = type_rel
        self.pattern = pattern
        self.strategies: Dict[str, Tuple[FCompute, FSchedule]] = {}
        self.attrs_defaults = dict(attrs_defaults or {})
        self.description = description
        self._attrs: Dict[str, Any] = {}
        # arg_types(types, attrs) -> types: the types of arguments left unknown (None) that
        # the others and the attributes determine (a conv2d's weight from its channels and
        # kernel_size), as classic's type relations assign them
        self.arg_types: Optional[Callable[[List[Any], Any], List[Any]]] = None
        #: classic's documentation level (1: basic ... 10: temporary / experimental)
        self.support_level = 10
        self.arguments: List[Tuple[str, str, str]] = []
        self.attrs_type_key = ""

    def set_attrs_type_key(self, key: str) -> None:
        """Classic ``Op.set_attrs_type_key``: the kind of attributes its calls take."""
        self.attrs_type_key = str(key)

    def set_num_inputs(self, n: int) -> None:
        """Classic ``Op.set_num_inputs``: how many arguments a call takes."""
        self.num_inputs = int(n)

    def add_argument(self, name: str, type: str, description: str) -> None:  # noqa: A002
        """Classic ``Op.add_argument``: document an argument."""
        self.arguments.append((name, type, description))

    def set_support_level(self, level: int) -> None:
        """Classic ``Op.set_support_level``."""
        self.support_level = int(level)

    def add_type_rel(self, rel_name: str, type_rel_func: Optional[Callable] = None) -> None:
        """Classic ``Op.add_type_rel``: the op's type relation, ``type_rel_func(arg_types,
        attrs) -> out_type`` or a built-in one by name ("Identity": the first argument's type;
        "Broadcast": the arguments' broadcast type)."""
        global _generation
        if type_rel_func is not None:
            self.type_rel = type_rel_func
        elif rel_name == "Identity":
            self.type_rel = lambda types, attrs: types[0]
        elif rel_name == "Broadcast":
            from ..ty import TensorType
            from ._rel import broadcast_shapes, same_dtype, tensor_arg
            name = self.name

            def rel(types, attrs):
                a, b = tensor_arg(name, types, 0), tensor_arg(name, types, 1)
                same_dtype(name, a, b)
                return TensorType(broadcast_shapes(name, a.shape, b.shape), a.dtype)
            self.type_rel = rel
        else:
            raise TVMError(f"{self.name}.add_type_rel: no built-in type relation {rel_name!r} "
                           "(Identity or Broadcast; or give type_rel_func)")
        _generation += 1

    def get_attr(self, key: str):
        """Classic ``Op.get_attr``: ``TOpPattern``, ``FTVMStrategy`` and whatever
        :meth:`set_attr` set (``FTVMAlterOpLayout``, ``FTVMConvertOpLayout`` ...); None if
        unset."""
        if key == "TOpPattern":
            return self.pattern
        if key == "FTVMStrategy":
            return dict(self.strategies)
        got = self._attrs.get(key)
        return None if got is None else got[0]

    def set_attr(self, key: str, value: Any, plevel: int = 10) -> None:
        """Set attribute ``key`` (classic ``Op.set_attr``); ``TOpPattern`` sets the fusion
        pattern. A second value of a key that is set replaces it only at a higher
        ``plevel``."""
        global _generation
        if key == "TOpPattern":
            self.pattern = int(value)
        elif key == "FTVMStrategy":
            raise TVMError(f"{self.name}: set strategies with relay.op.register_strategy")
        else:
            old = self._attrs.get(key)
            if old is not None and plevel <= old[1]:
                raise TVMError(f"attribute {key} of operator {self.name} is already registered "
                               f"with the same or higher plevel ({old[1]})")
            self._attrs[key] = (value, plevel)
        _generation += 1

    def reset_attr(self, key: str) -> None:
        """Remove attribute ``key`` (classic ``Op.reset_attr``)."""
        global _generation
        self._attrs.pop(key, None)
        _generation += 1

    def has_attr(self, key: str) -> bool:
        return key in ("TOpPattern", "FTVMStrategy") or key in self._attrs

    def strategy(self, target) -> Tuple[FCompute, FSchedule]:
        """The (compute, schedule) pair for ``target`` (its keys first, then "generic")."""
        keys = list(getattr(target, "keys", ()) or ()) + ["generic"]
        for k in keys:
            if k in self.strategies:
                return self.strategies[k]
        raise TVMError(f"operator {self.name} has no strategy for target {target} "
                       f"(it has {sorted(self.strategies)})")

    def __repr__(self) -> str:
        return f"Op({self.name})"


_OPS: Dict[str, Op] = {}
_generation = 0  # operators and strategies registered so far
_builtin_generation = -1  # that count once tvmlite.relay's own registrations are done


def generation() -> int:
    """A count of the operator and strategy registrations made in this process."""
    return _generation


def builtin_generation() -> int:
    """:func:`generation` after tvmlite's own registrations (the network cache of
    ``relay.build`` is off once a program registers an operator or strategy of its own)."""
    return _builtin_generation


def restore_generation(value: int) -> None:
    """Set :func:`generation` back to ``value``, a count before registrations that were all
    undone since (``TempOpAttr``'s exit)."""
    global _generation
    _generation = value


def mark_builtin() -> None:
    global _builtin_generation
    _builtin_generation = _generation


def register(name: str, num_inputs: int, type_rel: Callable, pattern: int,
             attrs_defaults: Optional[Dict[str, Any]] = None, description: str = "") -> Op:
    """Register operator ``name``; add its strategies with :func:`register_strategy`."""
    global _generation
    if name in _OPS:
        raise TVMError(f"operator {name} is already registered")
    _generation += 1
    required = [k for k, v in (attrs_defaults or {}).items() if v is REQUIRED]
    if required:
        type_rel = _checking_required(name, required, type_rel)
    op = _OPS[name] = Op(name, num_inputs, type_rel, pattern, attrs_defaults, description)
    return op


def _checking_required(name: str, required: List[str], type_rel: Callable) -> Callable:
    """``type_rel`` refusing a call whose attributes leave a required one unset (a call
    built without :func:`make_call`, as from parsed text)."""
    def rel(types, attrs):
        missing = [k for k in required if attrs is None or attrs.get(k) is REQUIRED
                   or k not in attrs.keys()]
        if missing:
            raise TVMError(f"{name}: required attribute(s) {missing} not given (they have no "
                           f"default)")
        return type_rel(types, attrs)
    return rel


def register_strategy(name: str, target_key: str, fcompute: FCompute,
                      fschedule: FSchedule) -> None:
    """Lower ``name`` on targets with key ``target_key`` by ``fcompute`` + ``fschedule``."""
    global _generation
    _generation += 1
    get(name).strategies[target_key] = (fcompute, fschedule)


def register_arg_types(name: str, fn: Callable[[List[Any], Any], List[Any]]) -> None:
    """Let op ``name`` determine the types of arguments left unknown (see ``Op.arg_types``)."""
    get(name).arg_types = fn


def get(name: str) -> Op:
    """The registered operator ``name`` (``relay.op.get("nn.conv2d")``)."""
    try:
        return _OPS[name]
    except KeyError:
        raise TVMError(f"relay operator {name!r} is not registered") from None


def list_op_names() -> List[str]:
    return sorted(_OPS)


def make_call(name: str, args: Sequence[Any], /, **attrs):
    """A call of op ``name`` with its registered attribute defaults filled in."""
    from ..expr import Attrs, Call
    op = get(name)
    unknown = set(attrs) - set(op.attrs_defaults)
    if unknown:
        raise TVMError(f"{name}: unknown attribute(s) {sorted(unknown)} "
                       f"(known: {sorted(op.attrs_defaults)})")
    full = {**op.attrs_defaults, **attrs}
    missing = sorted(k for k, v in full.items() if v is REQUIRED)
    if missing:
        raise TVMError(f"{name}: required attribute(s) {missing} not given (they have no "
                       f"default)")
    return Call(op, list(args), Attrs(full))
