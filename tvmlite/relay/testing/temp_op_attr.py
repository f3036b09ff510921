"""``TempOpAttr``: set an attribute of a relay operator for the duration of a ``with`` block
(classic ``tvm.relay.testing.temp_op_attr``), e.g. a custom ``FTVMAlterOpLayout`` in a test."""
from __future__ import annotations

from typing import Any

from ..op import registry


class TempOpAttr:
    """``with TempOpAttr("nn.conv2d", "FTVMAlterOpLayout", alter): ...`` sets the attribute
    and restores the previous value (or its absence) on exit."""

    def __init__(self, op_name: str, attr_key: str, attr_value: Any):
        self.op = registry.get(op_name)
        self.attr_key = attr_key
        self.attr_value = attr_value
        self.older_attr = None

    def __enter__(self) -> "TempOpAttr":
        self._generation = registry.generation()
        self.older_attr = self.op.get_attr(self.attr_key)
        self.op.reset_attr(self.attr_key)
        self.op.set_attr(self.attr_key, self.attr_value)
        self._set_generation = registry.generation()
        return self

    def __exit__(self, ptype, value, trace) -> None:
        untouched = registry.generation() == self._set_generation
        self.op.reset_attr(self.attr_key)
        if self.older_attr is not None:
            self.op.set_attr(self.attr_key, self.older_attr)
        if untouched:
            # nothing else was registered meanwhile: the registry is as it was (relay.build's
            # network cache, off while user attributes are set, is on again)
            registry.restore_generation(self._generation)
