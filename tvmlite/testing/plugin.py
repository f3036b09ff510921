"""The pytest plugin for classic TVM tests (``-p tvm.testing.plugin``; ``python -m tvmlite -m
pytest`` and :func:`tvm.testing.main` load it): feature marks, ``target``/``dev`` fixtures
parametrized over ``TVM_TEST_TARGETS``, and :func:`tvm.testing.parameters` groups."""
from __future__ import annotations

import pytest

from ..runtime import device
from .features import ALL_FEATURES
from .params import parametrize_correlated
from .targets import _kind, device_enabled, enabled_targets


def pytest_configure(config) -> None:
    for name in ALL_FEATURES:
        config.addinivalue_line("markers", f"{name}: mark a test as requiring {name}")


def _explicitly_parametrized(metafunc, argname: str) -> bool:
    for mark in metafunc.definition.iter_markers("parametrize"):
        names = mark.args[0]
        names = names.split(",") if isinstance(names, str) else list(names)
        if argname in [n.strip() for n in names]:
            return True
    return False


def pytest_generate_tests(metafunc) -> None:
    if "target" in metafunc.fixturenames and not _explicitly_parametrized(metafunc, "target"):
        excluded = getattr(metafunc.function, "tvm_excluded_targets", [])
        names = [t for t, _ in enabled_targets() if t not in excluded]
        metafunc.parametrize("target", names, scope="session")
    parametrize_correlated(metafunc)


def pytest_runtest_setup(item) -> None:
    callspec = getattr(item, "callspec", None)
    if callspec is None or "target" not in callspec.params:
        return
    target = callspec.params["target"]
    if not device_enabled(target):
        pytest.skip(f"target {_kind(target)!r} is not enabled here (TVM_TEST_TARGETS)")
    failing = getattr(getattr(item, "function", None), "tvm_known_failing_targets", [])
    if target in failing:
        item.add_marker(pytest.mark.xfail(reason=f"known failing on {target}"))


@pytest.fixture
def dev(target):
    """The device of the test's ``target``."""
    return device(_kind(target))
