"""Module-level test parameters and fixtures: ``x = tvm.testing.parameter(1, 2)`` makes every
test taking ``x`` run once per value; :func:`parameters` ties several together; :func:`fixture`
is ``pytest.fixture`` that can cache an expensive value across the parametrizations."""
from __future__ import annotations

import copy
import functools
import itertools
from typing import Any, Optional, Sequence

import pytest

_GROUPS = itertools.count()


def parameter(*values, ids=None, by_dict: Optional[dict] = None):
    """A fixture parametrized over ``values`` (or the values of ``by_dict``, named by its keys).

    Assign it to a module or class attribute; the attribute's name is the argument name."""
    if by_dict is not None:
        if values or ids:
            raise TypeError("parameter: pass either values or by_dict, not both")
        ids, values = list(by_dict.keys()), tuple(by_dict.values())

    @pytest.fixture(params=values, ids=ids)
    def as_fixture(*_cls, request):
        return request.param

    return as_fixture


def parameters(*value_sets: Sequence[Any], ids=None):
    """Several fixtures parametrized together: ``a, b = parameters((1, 2), (3, 4))`` runs each
    test with (a, b) = (1, 2) and then (3, 4) — not the cross product."""
    group = next(_GROUPS)
    outputs = []
    for position, values in enumerate(zip(*value_sets)):
        def fixture_func(*_cls, request):
            return request.param

        fixture_func.tvm_parametrize_group = group
        fixture_func.tvm_parametrize_position = position
        fixture_func.tvm_parametrize_values = values
        fixture_func.tvm_parametrize_ids = ids
        outputs.append(pytest.fixture(fixture_func))
    return outputs


def parametrize_correlated(metafunc) -> None:
    """Plugin hook body: parametrize the fixtures made by :func:`parameters` jointly."""
    groups: dict = {}
    for name in metafunc.fixturenames:
        # the closest definition only: a class attribute overrides the module's (or a base
        # class's) fixture of the same name, as pytest resolves it
        fixturedefs = metafunc._arg2fixturedefs.get(name, ())
        if not fixturedefs:
            continue
        func = getattr(fixturedefs[-1].func, "__wrapped__", fixturedefs[-1].func)
        if hasattr(func, "tvm_parametrize_group"):
            groups.setdefault(func.tvm_parametrize_group, []).append((name, func))
    for members in groups.values():
        members.sort(key=lambda m: m[1].tvm_parametrize_position)
        names = [m[0] for m in members]
        value_sets = list(zip(*[m[1].tvm_parametrize_values for m in members]))
        ids = members[0][1].tvm_parametrize_ids
        metafunc.parametrize(names, value_sets, indirect=True, ids=ids)


def fixture(func=None, *, cache_return_value: bool = False):
    """``pytest.fixture``; with ``cache_return_value=True`` the value is computed once per
    distinct set of arguments and each test gets a deep copy of it."""
    if func is None:
        return functools.partial(fixture, cache_return_value=cache_return_value)
    if not cache_return_value:
        return pytest.fixture(func)
    cache: dict = {}

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        key = repr((args, sorted(kwargs.items())))
        if key not in cache:
            cache[key] = func(*args, **kwargs)
        return copy.deepcopy(cache[key])

    return pytest.fixture(wrapper)
