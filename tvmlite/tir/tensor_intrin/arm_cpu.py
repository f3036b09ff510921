"""Arm dot-product intrinsics under classic TVM's names (4 lanes of a 4-deep dot product);
see :mod:`.dot_product`."""
from .dot_product import register_dot_product
from .rocm import DP4A_INTRIN  # noqa: F401  (classic exports it here too)

ARM_DOT_4x4_i8_NEON_INTRIN = register_dot_product("dot_4x4_i8i8s32_neon", 4, 4, "int8", "int8")
ARM_DOT_4x4_i8_SDOT_INTRIN = register_dot_product("dot_4x4_i8i8s32_sdot", 4, 4, "int8", "int8")
ARM_DOT_4x4_u8_UDOT_INTRIN = register_dot_product("dot_4x4_u8u8u32_udot", 4, 4, "uint8",
                                                  "uint8", "uint32")
ARM_DOT_4x4_u8_HDOT_INTRIN = register_dot_product("dot_4x4_u8u8i32_hdot", 4, 4, "uint8",
                                                  "uint8")
