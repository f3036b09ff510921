"""Opt-in aliases so unmodified classic scripts run: ``import tvm``, ``from tvm import te``,
``import tvm.te``, ``import topi`` and ``import vta`` resolve to tvmlite's own modules (the same
module objects, no second copy).

Use ``python -m tvmlite script.py`` or call :func:`install` yourself. Nothing named ``tvm`` is
installed by default.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

from . import _classic
from ._classic import is_classic, unsupported

ALIASES = {"tvm": "tvmlite", "topi": "tvmlite.topi", "vta": "tvmlite.vta"}


class _Loader(importlib.abc.Loader):
    def __init__(self, real: str):
        self.real = real

    def create_module(self, spec):
        module = importlib.import_module(self.real)
        self._spec = module.__spec__
        return module

    def exec_module(self, module):
        module.__spec__ = self._spec  # keep the real module's identity

    def get_code(self, fullname):
        # ``python -m tvmlite -m tvm.exec.rpc_server``: runpy runs the real module's code
        return importlib.util.find_spec(self.real).loader.get_code(self.real)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        for alias, real in ALIASES.items():
            if fullname == alias or fullname.startswith(alias + "."):
                realname = real + fullname[len(alias):]
                if importlib.util.find_spec(realname) is None:
                    parent, _, last = realname.rpartition(".")
                    if is_classic(parent, last):
                        raise unsupported(fullname)
                    return None
                return importlib.util.spec_from_loader(fullname, _Loader(realname))
        return None


_FINDER = _Finder()


def install() -> None:
    """Make ``tvm``, ``topi`` and ``vta`` (and their submodules) import tvmlite, and parse
    TVMScript as classic v0.12 did (no implicit ``global_symbol``)."""
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
    _classic.PARSER_V012 = True


def uninstall() -> None:
    """Undo :func:`install` (modules already imported under the aliases stay)."""
    if _FINDER in sys.meta_path:
        sys.meta_path.remove(_FINDER)
    _classic.PARSER_V012 = False
    for name in list(sys.modules):
        if any(name == a or name.startswith(a + ".") for a in ALIASES):
            del sys.modules[name]
