"""Relay, the graph-level IR (``tvm.relay``): expressions and types, the operator registry,
type inference, fusion, ``relay.build`` and the ONNX frontend.

Every operator lowers through its one TOPI compute; each fused group becomes one PrimFunc
built by the one lowering pipeline into one library.
"""
from ..contrib.param_dict import load_param_dict, save_param_dict
from ..ir.module import IRModule
from ..ir.printing import register_node_printer as _register_node_printer
from . import op, printer, transform
from .expr import (
    Call,
    Constant,
    Expr,
    Function,
    If,
    Let,
    Tuple,
    TupleGetItem,
    TupleWrapper,
    Var,
    const,
    var,
)
from .op import add, concatenate, divide, multiply, nn, reshape, subtract, transpose
from .ty import FuncType, TensorType, TupleType, Type

_register_node_printer(printer.is_relay_module, printer.astext)


def __getattr__(name: str):
    # the build, the frontends and the analysis helpers load on first use
    import importlib
    lazy = {"build": ("build_module", "build"), "build_config": ("build_module", "build_config"),
            "build_module": ("build_module", None), "frontend": ("frontend", None),
            "analysis": ("analysis", None)}
    if name not in lazy:
        raise AttributeError(f"module 'tvmlite.relay' has no attribute {name!r}")
    modname, attr = lazy[name]
    mod = importlib.import_module(f".{modname}", __name__)
    value = mod if attr is None else getattr(mod, attr)
    globals()[name] = value
    return value
