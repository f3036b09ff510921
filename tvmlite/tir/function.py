"""PrimFunc: a function over buffers and scalars."""
from __future__ import annotations

from typing import Any, Dict, Tuple

from ..ir.attrs import AttrMap
from .buffer import Buffer
from .expr import Node, Var, node
from .stmt import Stmt


@node
class PrimFunc(Node):
    """A primitive tensor function. ``buffer_map`` maps handle params to their buffers."""

    params: Tuple[Var, ...]
    body: Stmt
    ret_type: Any = None
    buffer_map: Dict[Var, Buffer] = None  # type: ignore[assignment]
    attrs: Dict[str, Any] = None  # type: ignore[assignment]  (None when there are none)

    def __post_init__(self):
        if self.buffer_map is None:
            object.__setattr__(self, "buffer_map", {})
        if any(hasattr(p, "asobject") for p in self.params):
            # classic: an IRBuilder pointer (``ib.pointer``) as parameter is its pointer variable
            object.__setattr__(self, "params", tuple(
                p.data if hasattr(p, "asobject") else p for p in self.params))
        if any(isinstance(p, Buffer) for p in self.params):  # classic: a buffer as parameter
            bmap, params = dict(self.buffer_map), []
            for p in self.params:
                if isinstance(p, Buffer):
                    params.append(Var(f"{p.name}_handle", "handle"))
                    bmap[params[-1]] = p
                else:
                    params.append(p)
            object.__setattr__(self, "params", tuple(params))
            object.__setattr__(self, "buffer_map", bmap)
        # as classic: None without attributes, else a map of IR-like values (.value)
        object.__setattr__(self, "attrs", AttrMap(self.attrs) if self.attrs else None)

    def with_attr(self, attr_key_or_dict, attr_value=None) -> "PrimFunc":
        """A copy with an attribute set; takes a key and value or a dict."""
        attrs = dict(self.attrs or {})
        if isinstance(attr_key_or_dict, dict):
            attrs.update(attr_key_or_dict)
        else:
            attrs[attr_key_or_dict] = attr_value
        return PrimFunc(self.params, self.body, self.ret_type, self.buffer_map, attrs)

    def with_body(self, body: Stmt) -> "PrimFunc":
        return PrimFunc(self.params, body, self.ret_type, self.buffer_map, self.attrs)

    def without_attr(self, key: str) -> "PrimFunc":
        attrs = {k: v for k, v in (self.attrs or {}).items() if k != key}
        return PrimFunc(self.params, self.body, self.ret_type, self.buffer_map, attrs)

    def specialize(self, param_map):
        raise NotImplementedError("PrimFunc.specialize is not supported by tvmlite")
