"""Classic TVM's test hooks into TE's tensorize, registered as global functions on first
lookup (``tvm.get_global_func("test.op.InferTensorizeRegion")``)."""
from __future__ import annotations

from typing import Dict, List

from ..runtime.packed_func import register_func
from ..te.bound import infer_tensorize_region
from ..te.stage import Stage
from ..te.tensor_intrin import TensorIntrin, match_tensorize_body
from ..tir.expr import IterVar, PrimExpr, Range


def _infer_tensorize_region(stage: Stage, dom_map: Dict[IterVar, Range]) -> list:
    """``[out_dom, in_region]``: the root IterVars' ranges and the input tensors' regions of
    one call of ``stage``'s tensor intrinsic."""
    out_dom, in_region = infer_tensorize_region(stage, dom_map)
    return [out_dom, _ItemsMap(in_region)]


def _match_tensorize_body(stage: Stage, out_dom, in_region, intrin: TensorIntrin
                          ) -> List[PrimExpr]:
    """``stage``'s compute bodies rewritten onto ``intrin``'s axes and placeholders."""
    return match_tensorize_body(stage, dict(out_dom), dict(in_region), intrin)


class _ItemsMap(dict):
    """A dict whose ``items()`` is a list, as a classic ``Map``'s is (``m.items()[0]``)."""

    def items(self):  # type: ignore[override]
        return list(super().items())


register_func("test.op.InferTensorizeRegion", _infer_tensorize_region, override=True)
register_func("test.op.MatchTensorizeBody", _match_tensorize_body, override=True)
