"""Relay operators: the registry (``relay.op.get``) and the op constructors."""
from . import nn, registry, strategy, tensor
from .registry import Op, OpPattern, get, list_op_names, register, register_strategy
from .tensor import add, concatenate, divide, multiply, reshape, subtract, transpose
