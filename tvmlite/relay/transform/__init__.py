"""Relay passes (``relay.transform``), each a ``tvm.transform.Pass`` over an IRModule."""
from ..._classic import fallback as _fallback  # noqa: E402
from .alter_op_layout import AlterOpLayout
from .annotate_spans import AnnotateSpans
from .canonicalize_cast import CanonicalizeCast
from .canonicalize_ops import CanonicalizeOps
from .change_batch import ChangeBatch
from .combine_parallel import (
    CombineParallelBatchMatmul,
    CombineParallelConv2D,
    CombineParallelDense,
    CombineParallelOpBatch,
)
from .convert_layout import ConvertLayout, LayoutConfig
from .dead_code import DeadCodeElimination
from .defuse_ops import DefuseOps
from .dynamic_to_static import DynamicToStatic
from .eliminate_common_subexpr import EliminateCommonSubexpr
from .fake_quantization_to_integer import FakeQuantizationToInteger
from .fast_math import FastMath
from .flatten_atrous_conv import FlattenAtrousConv
from .fold_constant import FoldConstant, FoldConstantExpr
from .fold_explicit_padding import FoldExplicitPadding
from .fold_scale_axis import BackwardFoldScaleAxis, FoldScaleAxis, ForwardFoldScaleAxis
from .function_pass import FunctionPass, function_pass
from .fuse_ops import FuseOps
from .gradient import gradient
from .infer_type import InferType, InferTypeLocal, infer_type
from .inline import Inline
from .legalize import Legalize
from .normal_form import ToANormalForm, ToGraphNormalForm
from .remove_unused_functions import RemoveUnusedFunctions
from .simplify_expr import SimplifyExpr, SimplifyExprPostAlterOp
from .simplify_inference import SimplifyInference

__getattr__ = _fallback(__name__)
