"""Annotation operators (classic ``relay.annotation``): ``stop_fusion`` marks a value that
``FuseOps`` keeps out of its consumers' kernels, and drops."""
from __future__ import annotations

from ..expr import Expr
from ._rel import tensor_arg
from .registry import OpPattern, make_call, register


def _identity_rel(types, attrs):
    return tensor_arg("annotation.stop_fusion", types, 0, "data")


register("annotation.stop_fusion", 1, _identity_rel, OpPattern.OPAQUE)


def stop_fusion(data: Expr) -> Expr:
    """``data``, ending a fusion group: ``FuseOps`` fuses nothing across it (and removes
    it)."""
    return make_call("annotation.stop_fusion", [data])


def _checkpoint_rel(types, attrs):
    return tensor_arg("annotation.checkpoint", types, 0, "data")


register("annotation.checkpoint", 1, _checkpoint_rel, OpPattern.ELEMWISE)


def checkpoint(data: Expr) -> Expr:
    """``data``, marked as a checkpoint: recomputed rather than kept for the gradient (here
    it is the identity; ``relay.transform.gradient`` passes the gradient through)."""
    return make_call("annotation.checkpoint", [data])


__all__ = ["stop_fusion", "checkpoint"]
