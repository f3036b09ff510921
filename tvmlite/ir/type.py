"""Classic type annotations (``tvm.ir.PrimType``, ``PointerType``).

tvmlite variables carry a dtype string; these types *are* that string (a ``str`` subclass:
``PrimType("int32") == "int32"``, any ``PointerType`` == ``"handle"``), so classic code passing a
type where a dtype goes (``te.var("a", PointerType(PrimType("float32")))``) gets the right
variable, while ``.dtype``/``.element_type``/``.storage_scope`` answer as classic ones do."""
from __future__ import annotations


class Type(str):
    """Base of the classic type annotations."""


class PrimType(Type):
    """The type of a scalar of ``dtype``."""

    def __new__(cls, dtype: str):
        obj = super().__new__(cls, str(dtype))
        obj.dtype = str(dtype)
        return obj

    def __repr__(self) -> str:
        return f"PrimType({self.dtype!r})"


class PointerType(Type):
    """A pointer to ``element_type`` in ``storage_scope`` (its variables have dtype handle)."""

    def __new__(cls, element_type, storage_scope: str = ""):
        obj = super().__new__(cls, "handle")
        obj.element_type = element_type if isinstance(element_type, Type) else PrimType(
            element_type)
        obj.storage_scope = storage_scope
        return obj

    def __repr__(self) -> str:
        scope = f", {self.storage_scope!r}" if self.storage_scope else ""
        return f"PointerType({self.element_type!r}{scope})"
