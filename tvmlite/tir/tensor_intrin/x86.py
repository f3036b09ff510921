"""x86 dot-product intrinsics under classic TVM's names (VNNI and AVX-512: 16 lanes of a
4-deep u8 x i8 -> i32 dot product); see :mod:`.dot_product`."""
from .dot_product import dot_product_func, register_dot_product

dot_product_16x4_u8i8i32_desc = dot_product_func(16, 4, "uint8", "int8")

VNNI_DOT_16x4_INTRIN = register_dot_product("dot_16x4_vnni", 16, 4, "uint8", "int8")
AVX512_DOT_16x4_INTRIN = register_dot_product("dot_16x4_avx512", 16, 4, "uint8", "int8")
