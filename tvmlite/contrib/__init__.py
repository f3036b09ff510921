"""Helpers around the build: compiler (``cc``), archives (``tar``), temp dirs (``utils``)."""
import importlib as _importlib

from .._classic import missing


def __getattr__(name):
    if name.startswith("_"):
        raise AttributeError(name)
    try:
        mod = _importlib.import_module(f".{name}", __name__)
    except ModuleNotFoundError as e:
        if e.name != f"{__name__}.{name}":
            raise

        return missing(__name__, name)
    globals()[name] = mod
    return mod
