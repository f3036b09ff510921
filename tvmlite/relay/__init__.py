"""Relay, the graph-level IR (``tvm.relay``): expressions and types, the operator registry,
type inference, fusion, ``relay.build`` and the ONNX frontend.

Every operator lowers through its one TOPI compute; each fused group becomes one PrimFunc
built by the one lowering pipeline into one library.
"""
from ..contrib.param_dict import load_param_dict, save_param_dict
from ..ir.base import SourceName, Span
from ..ir.module import GlobalVar, IRModule
from ..ir.module import register_call_builder as _register_call_builder
from ..ir.module import register_expr_wrapper as _register_expr_wrapper
from ..ir.op import register_op_resolver as _register_op_resolver
from ..ir.printing import register_node_printer as _register_node_printer
from . import (
    analysis,
    backend,
    build_module,
    data_dep_optimization,
    dataflow_pattern,
    expr,
    expr_functor,
    frontend,
    op,
    parser,
    printer,
    qnn,
    task_extraction,
    testing,
    transform,
)
from .build_module import build, build_config
from .build_module import optimize_module as optimize
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
    bind,
    const,
    var,
)
from .expr_functor import ExprFunctor, ExprMutator, ExprVisitor
from .op import image, nn, vision
from .op.algorithm import argsort, searchsorted, sort, topk
from .op.layout import layout_transform
from .op.tensor import *  # noqa: F401,F403
from .op.transform import *  # noqa: F401,F403
from .parser import fromtext, parse, parse_expr
from .printer import astext, pretty_print
from .scope_builder import ScopeBuilder
from .ty import (
    Any,
    FuncType,
    IncompleteType,
    TensorType,
    TupleType,
    Type,
    TypeKind,
    TypeRelation,
    scalar_type,
)
from .type_functor import TypeFunctor, TypeMutator, TypeVisitor

_register_node_printer(printer.is_relay_module, printer.pretty_print, printer.astext)
_register_expr_wrapper(expr.wrap_in_function)
_register_call_builder(lambda gvar, args: expr.Call(gvar, args))
op.strategy.register_gpu_strategies()
op.op._set_support_levels()
_register_op_resolver(op.registry._OPS.get)
op.registry.mark_builtin()


from .._classic import fallback as _fallback  # noqa: E402
from . import adt, base, loops, prelude  # noqa: E402
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
