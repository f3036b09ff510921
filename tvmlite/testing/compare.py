"""``tvm.testing.CompareBeforeAfter``: a test class comparing a TIR function before and after
a transform with the expected result (or the exception the transform must raise).

A subclass defines ``before``, ``transform`` and ``expected``; each becomes a pytest fixture
and the inherited ``test_compare`` runs the check.

- ``before`` / ``expected``: a PrimFunc, an undecorated TVMScript function (parsed when the
  test runs, so a parse error fails only that test), a class of such functions (an IRModule),
  a method returning one of these, or a pytest fixture; ``expected`` may also be an
  ``Exception`` class.
- ``transform``: a Pass, a method returning a callable from IRModule to IRModule (a Pass or a
  plain function), or a pytest fixture returning one. A PrimFunc is passed through the
  transform as the ``main`` function of a module.
"""
from __future__ import annotations

import inspect
import textwrap
from typing import Any, Callable

from ..ir.module import IRModule
from ..ir.structural import assert_structural_equal
from ..script import from_source
from ..tir.function import PrimFunc


def _is_fixture(obj) -> bool:
    return hasattr(obj, "_pytestfixturefunction") or hasattr(obj, "_fixture_function_marker") \
        or type(obj).__name__ == "FixtureFunctionDefinition"


def _takes_self(func) -> bool:
    try:
        return "self" in inspect.signature(func).parameters
    except (TypeError, ValueError):
        return False


def _parse(func) -> Any:
    return from_source("@T.prim_func\n" + textwrap.dedent(inspect.getsource(func)))


def _ir(obj, owner) -> Any:
    """The PrimFunc or IRModule that ``obj`` (a class attribute) stands for."""
    if isinstance(obj, (PrimFunc, IRModule)):
        return obj
    if inspect.isclass(obj):
        funcs = {}
        for name, member in vars(obj).items():
            if name.startswith("_"):
                continue
            funcs[name] = member if isinstance(member, PrimFunc) else _parse(member)
        return IRModule(funcs)
    if _takes_self(obj):
        return obj(owner)
    return _parse(obj)


def _as_module_transform(transform: Callable) -> Callable:
    def run(obj):
        if isinstance(obj, IRModule):
            return transform(obj)
        if isinstance(obj, PrimFunc):
            return transform(IRModule({"main": obj}))["main"]
        raise TypeError(f"Expected IRModule or PrimFunc, but received {type(obj)}")

    return run


def _unnamed(obj):
    if isinstance(obj, PrimFunc):
        return obj.without_attr("global_symbol")
    if isinstance(obj, IRModule):
        return IRModule({k: _unnamed(f) for k, f in obj.functions.items()})
    return obj


class CompareBeforeAfter:
    """Base class of before/after tests of TIR transforms (see the module docstring)."""

    def __init_subclass__(cls, **kwargs):
        import pytest

        super().__init_subclass__(**kwargs)
        for name in ("before", "expected"):
            obj = cls.__dict__.get(name)
            if obj is None or _is_fixture(obj):
                continue
            if name == "expected" and inspect.isclass(obj) and issubclass(obj, BaseException):
                setattr(cls, name, pytest.fixture(lambda self, _e=obj: _e, name=name))
            else:
                setattr(cls, name, pytest.fixture(
                    lambda self, _o=obj: _ir(_o, self), name=name))
        transform = cls.__dict__.get("transform")
        if transform is None:
            return
        if _is_fixture(transform):
            cls._transform_orig = transform

            def from_fixture(self, _transform_orig):
                return _as_module_transform(_transform_orig)

            cls.transform = pytest.fixture(from_fixture, name="transform")
        elif _takes_self(transform):
            cls.transform = pytest.fixture(
                lambda self, _t=transform: _as_module_transform(_t(self)), name="transform")
        elif callable(transform):
            cls.transform = pytest.fixture(
                lambda self, _t=transform: _as_module_transform(_t), name="transform")
        else:
            raise TypeError("CompareBeforeAfter: transform must be a Pass, or a method or "
                            f"fixture returning one, got {transform!r}")

    def test_compare(self, before, expected, transform):
        """Apply ``transform`` to ``before``; compare with ``expected`` or expect its error."""
        import pytest


        if inspect.isclass(expected) and issubclass(expected, BaseException):
            with pytest.raises(expected):
                after = transform(before)
                pytest.fail(f"expected {expected.__name__} from the transform, got\n"
                            f"{after.script()}")
        elif isinstance(expected, (PrimFunc, IRModule)):
            after = transform(before)
            try:
                # the names ``before``/``expected`` are the protocol's, not the functions'
                assert_structural_equal(_unnamed(after), _unnamed(expected))
            except ValueError as err:
                raise ValueError("TIR after the transform does not match the expected one:\n"
                                 f"before:\n{before.script()}\nafter:\n{after.script()}\n"
                                 f"expected:\n{expected.script()}") from err
        else:
            raise TypeError("CompareBeforeAfter: expected must be a PrimFunc, an IRModule or "
                            f"an Exception class, got {expected!r}")
