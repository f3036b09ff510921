"""IRModule: a named collection of functions."""
from __future__ import annotations

from typing import Any, Callable, Dict, Iterator, List, Optional, Union

from ..error import TVMError
from .printing import astext, text_format

# functions ``expr -> function`` that the layers above register: relay wraps an expression that
# is not a function in one over its free variables
_EXPR_WRAPPERS: List[Callable[[Any], Any]] = []


def register_expr_wrapper(wrap: Callable[[Any], Any]) -> None:
    """Have :meth:`IRModule.from_expr` pass its expression through ``wrap`` first."""
    _EXPR_WRAPPERS.append(wrap)


_CALL_BUILDERS: List[Callable[[Any, list], Any]] = []


def register_call_builder(make: Callable[[Any, list], Any]) -> None:
    """Have ``GlobalVar(...)(args)`` build its call with ``make(gvar, args)`` (relay's
    ``Call``; ir knows no expression kinds)."""
    _CALL_BUILDERS.append(make)


class GlobalVar:
    """The name of a function in an IRModule."""

    __slots__ = ("name_hint",)

    def __init__(self, name_hint: str):
        self.name_hint = name_hint

    def __call__(self, *args):
        """A call of the global function: ``gv(x, y)`` (a relay ``Call``)."""
        if not _CALL_BUILDERS:
            raise TVMError(f"GlobalVar {self.name_hint}: no expression kind is registered to "
                           "call it with (import tvmlite.relay)")
        return _CALL_BUILDERS[-1](self, list(args))

    def __repr__(self):
        return f'I.GlobalVar("{self.name_hint}")'

    def __eq__(self, other):
        if isinstance(other, GlobalVar):
            return self.name_hint == other.name_hint
        return NotImplemented

    def __hash__(self):
        return hash(self.name_hint)


class _Functions(dict):
    """The name-to-function map of a module; hashed by identity, as classic TVM's Map."""

    __hash__ = object.__hash__

    def items(self) -> list:
        """The ``(name, function)`` pairs as a list (classic ``Map.items()`` returns one:
        ``mod.functions.items()[0]``)."""
        return list(super().items())


class IRModule:
    """A module of PrimFuncs, keyed by name (``mod["main"]``)."""

    def __init__(self, functions: Optional[Dict[Union[str, GlobalVar], Any]] = None,
                 attrs: Optional[Dict[str, Any]] = None):
        self.functions: Dict[str, Any] = _Functions()
        for k, v in (functions or {}).items():
            self.functions[k.name_hint if isinstance(k, GlobalVar) else str(k)] = v
        self.attrs: Dict[str, Any] = dict(attrs or {})

    @staticmethod
    def from_expr(expr, functions=None, type_defs=None, name: str = "main") -> "IRModule":
        """A module whose ``main`` is ``expr``: a relay expression that is not a function is
        wrapped in one over its free variables (classic ``IRModule.from_expr``)."""
        if type_defs:
            raise TVMError("IRModule.from_expr: type_defs (relay ADTs) are not supported by "
                           "tvmlite")
        for wrap in _EXPR_WRAPPERS:
            expr = wrap(expr)
        mod = IRModule(functions)
        mod[name] = expr
        return mod

    def __getitem__(self, name: Union[str, GlobalVar]):
        key = name.name_hint if isinstance(name, GlobalVar) else name
        try:
            return self.functions[key]
        except KeyError:
            raise KeyError(f"function {key!r} is not in the module "
                           f"(it has {list(self.functions)})") from None

    def __setitem__(self, name, func):
        key = name.name_hint if isinstance(name, GlobalVar) else name
        self.functions[key] = func

    def __contains__(self, name) -> bool:
        key = name.name_hint if isinstance(name, GlobalVar) else name
        return key in self.functions

    def __iter__(self) -> Iterator[str]:
        return iter(self.functions)

    def __len__(self) -> int:
        return len(self.functions)

    def items(self):
        return [(GlobalVar(k), v) for k, v in self.functions.items()]

    def get_global_var(self, name: str) -> GlobalVar:
        if name not in self.functions:
            raise ValueError(f"Cannot find global var {name} in the Module")
        return GlobalVar(name)

    def get_global_vars(self):
        return [GlobalVar(k) for k in self.functions]

    def update_func(self, gv: Union[str, GlobalVar], func) -> None:
        self[gv] = func

    def update(self, other) -> None:
        """Add the functions of ``other`` (an IRModule or a dict), replacing those of the same
        name."""
        items = other.functions.items() if isinstance(other, IRModule) else other.items()
        for k, v in items:
            self[k] = v

    def same_as(self, other) -> bool:
        """Whether ``other`` is this very module (reference equality, as classic)."""
        return self is other

    def with_attr(self, key: str, value) -> "IRModule":
        return IRModule(self.functions, {**self.attrs, key: value})

    def copy(self) -> "IRModule":
        return IRModule(self.functions, self.attrs)

    def script(self, **kwargs) -> str:
        return astext(self, **kwargs)

    def astext(self, show_meta_data: bool = True, annotate=None) -> str:
        """Classic ``astext``: relay's text format for a module of relay functions (with the
        metadata section when ``show_meta_data``), else the module's script."""
        text = text_format(self, show_meta_data, annotate)
        return self.script() if text is None else text

    def show(self) -> None:
        print(self.script())

    def __str__(self) -> str:
        return self.script()

    __repr__ = __str__
    __hash__ = object.__hash__
