"""C spelling shared by the C printer (``codegen_c``) and its dialects (``codegen_c_vector``;
CUDA C next): scalar C types and parenthesis stripping."""
from __future__ import annotations

from ..error import TVMError
from ..ir import dtype as _dt


def c_type(dtype: str) -> str:
    """The C type of a scalar dtype."""
    if dtype == "handle":
        return "void*"
    d = _dt.parse(dtype)
    if d.lanes != 1:
        return f"tvml_{dtype}"
    if d.code == _dt.UINT and d.bits == 1:
        return "_Bool"
    if d.code == _dt.INT:
        return f"int{d.bits}_t"
    if d.code == _dt.UINT:
        return f"uint{d.bits}_t"
    if d.code == _dt.FLOAT:
        return {16: "_Float16", 32: "float", 64: "double"}[d.bits]
    raise TVMError(f"dtype {dtype} is not supported by the C backend")


def _strip(s: str) -> str:
    """Drop one pair of redundant outer parentheses."""
    if len(s) >= 2 and s[0] == "(" and s[-1] == ")":
        depth = 0
        for i, ch in enumerate(s):
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
                if depth == 0 and i != len(s) - 1:
                    return s
        if s.startswith("({"):
            return s
        return s[1:-1]
    return s
