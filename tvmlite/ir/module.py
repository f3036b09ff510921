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


# ``import_from_std`` readers of classic's standard relay files, by file name ("nat.rly")
_STD_IMPORTERS: Dict[str, Callable[[Any], None]] = {}


def register_std_importer(name: str, fn: Callable[[Any], None]) -> None:
    """Have :meth:`IRModule.import_from_std` add the definitions of ``name`` by ``fn(mod)``."""
    _STD_IMPORTERS[name] = fn


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
        # relay ADTs: type name -> TypeData (classic ``type_definitions``)
        self.type_definitions: Dict[str, Any] = {}
        self._std_imported: set = set()

    @staticmethod
    def from_expr(expr, functions=None, type_defs=None, name: str = "main") -> "IRModule":
        """A module whose ``main`` is ``expr``: a relay expression that is not a function is
        wrapped in one over its free variables (classic ``IRModule.from_expr``)."""
        for wrap in _EXPR_WRAPPERS:
            expr = wrap(expr)
        mod = IRModule(functions)
        for k, v in (type_defs or {}).items():
            mod[k] = v
        mod[name] = expr
        return mod

    def __getitem__(self, name: Union[str, GlobalVar]):
        if getattr(name, "_is_global_type_var", False):  # a relay ADT's definition
            return self.type_definitions[name.name_hint]
        key = name.name_hint if isinstance(name, GlobalVar) else name
        try:
            return self.functions[key]
        except KeyError:
            raise KeyError(f"function {key!r} is not in the module "
                           f"(it has {list(self.functions)})") from None

    def __setitem__(self, name, func):
        if getattr(name, "_is_global_type_var", False) or getattr(func, "_is_type_data", False):
            self.type_definitions[name.name_hint if hasattr(name, "name_hint") else name] = func
            return
        key = name.name_hint if isinstance(name, GlobalVar) else name
        for wrap in _EXPR_WRAPPERS:  # a relay expression becomes a function (classic)
            func = wrap(func)
        self.functions[key] = func

    def _add(self, name, func, update: bool = False) -> None:
        """Classic ``IRModule._add``: ``self[name] = func``; without ``update`` a function
        already there is an error."""
        key = name.name_hint if isinstance(name, GlobalVar) else name
        if not update and key in self.functions:
            raise TVMError(f"IRModule._add: function {key!r} is already in the module (pass "
                           "update=True to replace it)")
        self[name] = func

    def get_global_type_var(self, name: str):
        """The ``GlobalTypeVar`` of ADT ``name``."""
        if name not in self.type_definitions:
            raise TVMError(f"Cannot find global type var {name} in the Module (it has "
                           f"{list(self.type_definitions)})")
        return self.type_definitions[name].header

    def get_global_type_vars(self) -> list:
        return [td.header for td in self.type_definitions.values()]

    def get_type(self, name: str) -> tuple:
        """``(type_var, *constructors)`` of ADT ``name`` (classic ``IRModule.get_type``)."""
        td = self.type_definitions.get(name)
        if td is None:
            raise TVMError(f"Cannot find type {name} in the Module (it has "
                           f"{list(self.type_definitions)})")
        return (td.header, *td.constructors)

    def get_constructor(self, tag: int):
        """The constructor with ``tag`` (the first one, across this module's ADTs)."""
        for td in self.type_definitions.values():
            for c in td.constructors:
                if c.tag == tag:
                    return c
        raise TVMError(f"no constructor with tag {tag} in the module")

    def import_from_std(self, file_to_import: str) -> None:
        """Add the definitions of classic's standard relay file ``file_to_import``
        ("prelude.rly", "nat.rly")."""
        fn = _STD_IMPORTERS.get(file_to_import)
        if fn is None:
            raise TVMError(f"import_from_std: unknown standard file {file_to_import!r} "
                           f"(known: {sorted(_STD_IMPORTERS)})")
        if file_to_import not in self._std_imported:
            self._std_imported.add(file_to_import)
            fn(self)

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
        if isinstance(other, IRModule):
            self.type_definitions.update(other.type_definitions)
            self._std_imported |= other._std_imported

    def same_as(self, other) -> bool:
        """Whether ``other`` is this very module (reference equality, as classic)."""
        return self is other

    def with_attr(self, key: str, value) -> "IRModule":
        mod = IRModule(self.functions, {**self.attrs, key: value})
        mod.type_definitions.update(self.type_definitions)
        return mod

    def copy(self) -> "IRModule":
        mod = IRModule(self.functions, self.attrs)
        mod.type_definitions.update(self.type_definitions)
        mod._std_imported |= self._std_imported
        return mod

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
