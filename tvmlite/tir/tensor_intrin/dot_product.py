"""Dot-product tensor intrinsics, portable: ``C[i] += A[k] * B[i, k]`` over a small tile.

Classic TVM registers these per ISA (x86 VNNI/AVX-512, Arm NEON/SDOT, AMD/NVIDIA dp4a,
Hexagon vrmpy/vdmpy) with LLVM intrinsics as implementations. tvmlite generates C, so each
registered intrinsic's implementation is the same small loop nest as its description, which
the C compiler turns into the ISA's dot-product instructions where the target has them. The
names and tile shapes are classic's, so schedules that tensorize with them run unchanged.
"""
from __future__ import annotations

from typing import Optional

from ..function import PrimFunc


def dot_product_func(lanes: Optional[int], depth: int, a_dtype: str, b_dtype: str,
                     c_dtype: str = "int32", a_scope: str = "global", b_scope: str = "global",
                     c_scope: str = "global") -> PrimFunc:
    """``C[i] += cast(A[k]) * cast(B[i, k])`` for ``i < lanes``, ``k < depth`` (``lanes``
    None: a scalar ``C[0] += A[k] * B[k]``, as dp4a)."""
    from ...script import from_source  # the script package imports tir

    def buf(shape, dtype, scope):
        return f'T.Buffer({shape}, "{dtype}", offset_factor=1, scope="{scope}")'

    if lanes is None:
        b_shape, c_shape, c_region, b_region = f"({depth},)", "(1,)", "C[0]", f"B[0:{depth}]"
        loops = f"for k in range({depth}):"
        axes = 'vk = T.axis.reduce({depth}, k)'.format(depth=depth)
        lhs, b_load = "C[0]", "B[vk]"
    else:
        b_shape, c_shape = f"({lanes}, {depth})", f"({lanes},)"
        c_region, b_region = f"C[0:{lanes}]", f"B[0:{lanes}, 0:{depth}]"
        loops = f"for i, k in T.grid({lanes}, {depth}):"
        axes = 'vi, vk = T.axis.remap("SR", [i, k])'
        lhs, b_load = "C[vi]", "B[vi, vk]"
    text = f'''
@T.prim_func
def dot_product(A: {buf(f"({depth},)", a_dtype, a_scope)}, B: {buf(b_shape, b_dtype, b_scope)},
                C: {buf(c_shape, c_dtype, c_scope)}):
    with T.block("root"):
        T.reads({c_region}, A[0:{depth}], {b_region})
        T.writes({c_region})
        {loops}
            with T.block("update"):
                {axes}
                {lhs} = {lhs} + T.cast(A[vk], "{c_dtype}") * T.cast({b_load}, "{c_dtype}")
'''
    return from_source(text)


def register_dot_product(name: str, lanes: Optional[int], depth: int, a_dtype: str,
                         b_dtype: str, c_dtype: str = "int32", **scopes: str) -> str:
    """Register the portable dot-product intrinsic ``name`` (description == implementation)."""
    from . import TensorIntrin

    if TensorIntrin.get(name, allow_missing=True) is None:
        func = dot_product_func(lanes, depth, a_dtype, b_dtype, c_dtype, **scopes)
        TensorIntrin.register(name, func, func)
    return name
