"""Relay, the graph-level IR (``tvm.relay``): expressions and types, the operator registry,
type inference, fusion, ``relay.build`` and the ONNX frontend.

Every operator lowers through its one TOPI compute; each fused group becomes one PrimFunc
built by the one lowering pipeline into one library.
"""
from ..contrib.param_dict import load_param_dict, save_param_dict
from ..ir import module as _ir_module
from ..ir.base import SourceName, Span
from ..ir.module import GlobalVar, IRModule
from ..ir.module import register_expr_wrapper as _register_expr_wrapper
from ..ir.printing import register_node_printer as _register_node_printer
from . import (
    analysis,
    backend,
    build_module,
    expr,
    expr_functor,
    frontend,
    op,
    parser,
    printer,
    task_extraction,
    testing,
    transform,
)
from .build_module import build, build_config
from .executor import create_executor
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
from .expr_functor import ExprFunctor, ExprMutator, ExprVisitor
from .op import image, nn, vision
from .op.algorithm import argsort, sort, topk
from .op.layout import layout_transform
from .op.tensor import *  # noqa: F401,F403
from .op.transform import *  # noqa: F401,F403
from .parser import fromtext, parse, parse_expr
from .printer import astext, pretty_print
from .scope_builder import ScopeBuilder
from .ty import Any, FuncType, IncompleteType, TensorType, TupleType, Type, scalar_type

_register_node_printer(printer.is_relay_module, printer.pretty_print, printer.astext)
_register_expr_wrapper(expr.wrap_in_function)
_ir_module._CALL_BUILDERS[:] = [expr.Call]
op.strategy.register_gpu_strategies()
op.registry.mark_builtin()


from .._classic import fallback as _fallback  # noqa: E402
from . import adt, loops, prelude  # noqa: E402
from .adt import (  # noqa: E402
    Clause,
    Constructor,
    GlobalTypeVar,
    Match,
    PatternConstructor,
    PatternTuple,
    PatternVar,
    PatternWildcard,
    RefType,
    TypeCall,
    TypeData,
    TypeVar,
)
from .backend import interpreter, vm  # noqa: E402
from .expr import RefCreate, RefRead, RefWrite  # noqa: E402
from .op.dyn import argwhere  # noqa: E402
from .prelude import Prelude  # noqa: E402
from .transform.annotate_spans import SpanCheck  # noqa: E402

__getattr__ = _fallback(__name__)
