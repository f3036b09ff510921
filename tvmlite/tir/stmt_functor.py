"""``tvm.tir.stmt_functor``: the classic helpers custom lowering passes use to walk and rewrite
statements (implemented in :mod:`tvmlite.tir.functor`)."""
from .functor import ir_transform, post_order_visit, pre_order_visit, substitute

__all__ = ["ir_transform", "post_order_visit", "pre_order_visit", "substitute"]
