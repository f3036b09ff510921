"""Classic ``tvm.relay.transform.infer_layout_utils``: what an ``FInferCorrectLayout``
callback returns. tvmlite's ConvertLayout has its own fixed layout rules and refuses such
callbacks (:func:`tvmlite.relay.op.op.register_infer_correct_layout`)."""
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
