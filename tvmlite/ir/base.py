"""``tvm.ir.base``: the structural comparison functions under their classic module path, and
source locations (``SourceName``, ``Span``)."""
from .structural import (
    assert_structural_equal,
    get_first_structural_mismatch,
    structural_equal,
    structural_hash,
)


class SourceName:
    """The name of a source file (classic ``tvm.ir.SourceName``)."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = str(name)

    def __repr__(self) -> str:
        return self.name


class Span:
    """A source location (classic ``tvm.ir.Span``); relay's text printer shows it as
    ``span=name:line:column``. Spans are not structure: equality ignores them."""

    __slots__ = ("source_name", "line", "end_line", "column", "end_column")

    def __init__(self, source_name: SourceName, line: int, end_line: int, column: int,
                 end_column: int):
        self.source_name = source_name
        self.line, self.end_line = int(line), int(end_line)
        self.column, self.end_column = int(column), int(end_column)

    def same_as(self, other) -> bool:
        """Whether ``other`` is this very span (classic ``ObjectRef.same_as``)."""
        return self is other

    def __repr__(self) -> str:
        name = self.source_name.name if self.source_name is not None else "<unknown>"
        return f"{name}:{self.line}:{self.column}"


__all__ = ["SourceName", "Span", "assert_structural_equal", "get_first_structural_mismatch",
           "structural_equal", "structural_hash"]
