"""Relay passes (``relay.transform``), each a ``tvm.transform.Pass`` over an IRModule."""
from ..._classic import fallback as _fallback  # noqa: E402
from .alter_op_layout import AlterOpLayout
from .annotate_spans import AnnotateSpans
from .canonicalize_ops import CanonicalizeOps
from .convert_layout import ConvertLayout, LayoutConfig
from .dead_code import DeadCodeElimination
from .dynamic_to_static import DynamicToStatic  # noqa: E402,I001
from .eliminate_common_subexpr import EliminateCommonSubexpr
from .fold_constant import FoldConstant
from .fold_scale_axis import BackwardFoldScaleAxis, FoldScaleAxis, ForwardFoldScaleAxis
from .function_pass import FunctionPass, function_pass
from .fuse_ops import FuseOps
from .infer_type import InferType, infer_type
from .simplify_inference import SimplifyInference

__getattr__ = _fallback(__name__)
