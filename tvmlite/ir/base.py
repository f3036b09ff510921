"""``tvm.ir.base``: the structural comparison functions under their classic module path."""
from .structural import (
    assert_structural_equal,
    get_first_structural_mismatch,
    structural_equal,
    structural_hash,
)

__all__ = ["assert_structural_equal", "get_first_structural_mismatch", "structural_equal",
           "structural_hash"]
