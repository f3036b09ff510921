"""Hexagon HVX dot-product intrinsics under classic TVM's names (32 lanes: vrmpy 4-deep
u8 products, vdmpy 2-deep i16 products, into i32); see :mod:`.dot_product`."""
from .dot_product import register_dot_product

VRMPY_u8u8i32_INTRIN = register_dot_product("dot_32x4_u8u8i32_vrmpy", 32, 4, "uint8", "uint8")
VRMPY_u8i8i32_INTRIN = register_dot_product("dot_32x4_u8i8i32_vrmpy", 32, 4, "uint8", "int8")
VDMPY_i16i16i32_INTRIN = register_dot_product("dot_product_32x2_i16i16i32_vdmpy", 32, 2,
                                              "int16", "int16")
