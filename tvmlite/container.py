"""``tvm.container``: classic's older home of the runtime containers."""
from .runtime.container import Array, Map, ShapeTuple, String, getitem_helper

__all__ = ["Array", "Map", "ShapeTuple", "String", "getitem_helper"]
