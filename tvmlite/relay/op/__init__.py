"""Relay operators: the registry (``relay.op.get``) and the op constructors."""
from . import algorithm, image, layout, nn, registry, strategy, tensor, transform
from .layout import layout_transform
from .registry import Op, OpPattern, get, list_op_names, register, register_strategy
from .tensor import *  # noqa: F401,F403
from .transform import *  # noqa: F401,F403
