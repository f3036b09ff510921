"""CUDA tensor-core intrinsics under classic TVM's names (``tvm.tir.tensor_intrin.cuda``).

tvmlite does not implement the PTX ``ldmatrix`` / ``mma.sync`` intrinsics: the names below are
classic's, so code importing them loads, but none is registered, and tensorizing with one
raises ``TensorIntrinNotFound`` naming it. The fragment layouts of ``ldmatrix`` (which thread
holds which element of a shared-memory tile, and where in its registers) are provided: they are
plain index arithmetic, usable with ``transform_layout``.
"""
from __future__ import annotations

from typing import Tuple


def shared_16x16_to_ldmatrix_32x8_layout(i, j) -> Tuple:
    """(thread, register slot) of element ``(i, j)`` of a 16x16 16-bit tile: 32 threads hold
    8 values each; a thread owns two adjacent columns of a row in each 8x8 quadrant."""
    row8, col8 = i % 8, j % 8
    return 4 * row8 + col8 // 2, 4 * (j // 8) + 2 * (i // 8) + j % 2


def shared_16x32_to_ldmatrix_32x16_layout(i, j) -> Tuple:
    """(thread, register slot) of element ``(i, j)`` of a 16x32 8-bit tile (A operand)."""
    return 4 * (i % 8) + (j % 16) // 4, 8 * (j // 16) + 4 * (i // 8) + j % 4


def shared_32x16_to_ldmatrix_32x16_layout(i, j) -> Tuple:
    """(thread, register slot) of element ``(i, j)`` of a 32x16 8-bit tile (B operand)."""
    return 4 * (j % 8) + (i % 16) // 4, 8 * (j // 8) + 4 * (i // 16) + i % 4


LDMATRIX_16x16_A_INTRIN = "mma.ldmatrix_16x16_a"
LDMATRIX_16x16_B_INTRIN = "mma.ldmatrix_16x16_b"
LDMATRIX_16x16_A_DYN_INTRIN = "mma.ldmatrix_16x16_a_dyn"
LDMATRIX_16x16_B_DYN_INTRIN = "mma.ldmatrix_16x16_b_dyn"
LDMATRIX_16x16_B_TRANS_INTRIN = "mma.ldmatrix_16x16_b_trans"
LDMATRIX_16x32_A_INTRIN = "mma.ldmatrix_16x32_a"
LDMATRIX_32x16_B_INTRIN = "mma.ldmatrix_32x16_b"
LDMATRIX_16x32_B_TRANS_INTRIN = "mma.ldmatrix_16x32_b_trans"
MMA_f16f16f32_INTRIN = "mma_f16f16f32"
MMA_f16f16f32_TRANS_INTRIN = "mma_f16f16f32_trans"
MMA_f16f16f16_INTRIN = "mma_f16f16f16"
MMA_f16f16f16_TRANS_INTRIN = "mma_f16f16f16_trans"
MMA_i8i8i32_INTRIN = "mma_i8i8i32"
MMA_i8i8i32_TRANS_INTRIN = "mma_i8i8i32_trans"
MMA_fill_16x16_f32_INTRIN = "mma_fill_16x16_f32"
MMA_fill_16x16_f16_INTRIN = "mma_fill_16x16_f16"
MMA_fill_16x16_i32_INTRIN = "mma_fill_16x16_i32"
MMA_store_16x16_f32_global_INTRIN = "mma_store_16x16_f32_global_"
MMA_store_16x16_f16_global_INTRIN = "mma_store_16x16_f16_global_"
MMA_store_16x16_i32_global_INTRIN = "mma_store_16x16_i32_global_"
