"""Classic ``tvm.relay.transform.infer_layout_utils``: what an ``FInferCorrectLayout``
callback (:func:`tvmlite.relay.op.op.register_infer_correct_layout`) returns. ConvertLayout
calls the callbacks registered from Python; its built-in rules stand for classic's C++ ones.
AlterOpLayout refuses them."""
from __future__ import annotations

from typing import Any, Sequence


class InferCorrectLayoutOutput:
    """The layouts an operator wants for its inputs and gives its outputs, and its new
    attributes."""

    def __init__(self, input_layouts: Sequence[Any], output_layouts: Sequence[Any],
                 new_attrs: Any):
        self.input_layouts = list(input_layouts)
        self.output_layouts = list(output_layouts)
        self.new_attrs = new_attrs
