"""Data layouts (classic ``tvm.tir.layout``): a string of axes such as ``"NCHW"`` or
``"NCHW16c"``, upper case a primal axis, lower case with a factor a subordinate (split)
one. The empty layout is undefined (``layout("")`` is None, as classic)."""
from __future__ import annotations

import re
from typing import List, Optional, Union

from ..error import TVMError

_TOKEN = re.compile(r"(\d*)([A-Za-z])")


class Layout:
    """A parsed layout: ``name``, its axes in order, the factors of its subordinate axes."""

    def __init__(self, name: str):
        tokens = _TOKEN.findall(name)
        if "".join(f + a for f, a in tokens) != name:
            raise TVMError(f"Invalid layout {name}")
        self.name = name
        self._axes: List[str] = []
        self._factors = {}
        for factor, axis in tokens:
            if axis.isupper() and factor:
                raise TVMError(f"Invalid layout {name}: invalid factor size {factor} before "
                               f"dimension {axis}")
            if axis.islower() and (not factor or int(factor) <= 0):
                raise TVMError(f"Invalid layout {name}: invalid factor size {factor or 0} for "
                               f"dimension {axis}")
            if axis in self._axes:
                raise TVMError(f"Invalid layout {name}: duplicated axis {axis}")
            self._axes.append(axis)
            if factor:
                self._factors[axis] = int(factor)
        for a in self._axes:
            if a.islower() and a.upper() not in self._axes:
                raise TVMError(f"Invalid layout {name}: missing axis {a.upper()}")

    def __len__(self) -> int:
        return len(self._axes)

    def __contains__(self, axis: str) -> bool:
        return len(axis) == 1 and axis.isalpha() and axis in self._axes

    def __getitem__(self, index: int) -> str:
        if not -len(self._axes) <= index < len(self._axes):
            raise IndexError("Layout index out of range")
        return self._axes[index]

    def index_of(self, axis: str) -> int:
        """The position of ``axis`` (one letter), -1 if absent."""
        if len(axis) != 1 or not axis.isalpha():
            raise ValueError(f"axis must be a single letter, got {axis}")
        return self._axes.index(axis) if axis in self._axes else -1

    def factor_of(self, axis: str) -> int:
        """The factor of ``axis``'s subordinate (split) axis; -1 if it is not split."""
        if len(axis) != 1 or not axis.isalpha():
            raise ValueError(f"axis must be a single letter, got {axis}")
        return self._factors.get(axis.lower(), -1)

    @property
    def ndim_primal(self) -> int:
        """The number of primal (upper-case) axes."""
        return sum(a.isupper() for a in self._axes)

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"Layout({self.name})"

    def __eq__(self, other) -> bool:
        if isinstance(other, Layout):
            return self.name == other.name
        return isinstance(other, str) and self.name == other

    def __hash__(self) -> int:
        return hash(self.name)


def layout(layout_str: Union[str, Layout, None], dtype: str = "int32") -> Optional[Layout]:
    """The layout ``layout_str`` (None for ``""``/``"__undef__"``: undefined, as classic)."""
    if not str(dtype).startswith(("int", "uint")):
        raise TVMError("TypeError: The input dtype should be integer type")
    if isinstance(layout_str, Layout):
        return layout_str
    if layout_str is None or layout_str in ("", "__undef__"):
        return None
    return Layout(layout_str)
