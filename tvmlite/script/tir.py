"""The ``T`` namespace of TVMScript (``from tvmlite.script import tir as T``): the builders of
:mod:`.tir_builder` and ``T.prim_func``, the parser's entry point."""
from .parser import prim_func  # noqa: F401
from .tir_builder import *  # noqa: F401,F403
from .tir_builder import __getattr__  # noqa: F401  (T.float32x4 and the other dtypes)
