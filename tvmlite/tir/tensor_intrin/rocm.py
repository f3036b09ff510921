"""GPU 4-element int8 dot products under classic TVM's names (dp4a, AMD sdot4): a scalar
``C[0] += A[k] * B[k]`` over shared-memory operands into a local accumulator; see
:mod:`.dot_product`."""
from .dot_product import register_dot_product

_SCOPES = {"a_scope": "shared", "b_scope": "shared", "c_scope": "local"}

DP4A_INTRIN = register_dot_product("dp4a", None, 4, "int8", "int8", **_SCOPES)
AMDGPU_SDOT4_INTRIN = register_dot_product("sdot4", None, 4, "int8", "int8", **_SCOPES)
