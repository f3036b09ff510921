"""Relay operators: the registry (``relay.op.get``) and the op constructors."""
from . import (
    algorithm,
    annotation,
    dyn,
    image,
    layout,
    nn,
    op,
    registry,
    strategy,
    tensor,
    transform,
    vision,
)
from .algorithm import *  # noqa: F401,F403  (classic relay.op.argsort, topk ...)
from .layout import layout_transform
from .op import (
    OpStrategy,
    debug,
    register_alter_op_layout,
    register_compute,
    register_convert_op_layout,
    register_external_compiler,
    register_fake_quantization_to_integer,
    register_gradient,
    register_legalize,
    register_mixed_precision_conversion,
    register_pattern,
)
from .registry import Op, OpPattern, get, list_op_names, register, register_strategy
from .tensor import *  # noqa: F401,F403
from .transform import *  # noqa: F401,F403
