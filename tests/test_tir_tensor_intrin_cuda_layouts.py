"""tvm.tir.tensor_intrin.cuda: the ldmatrix fragment layouts are bijections of a tile onto 32
threads' registers; the unimplemented mma/ldmatrix pieces say so."""
import pytest

import tvmlite as tvm
from tvmlite.testing import tir as testing_tir
from tvmlite.tir.tensor_intrin import TensorIntrin, cuda


@pytest.mark.parametrize("layout, rows, cols, slots", [
    (cuda.shared_16x16_to_ldmatrix_32x8_layout, 16, 16, 8),
    (cuda.shared_16x32_to_ldmatrix_32x16_layout, 16, 32, 16),
    (cuda.shared_32x16_to_ldmatrix_32x16_layout, 32, 16, 16),
])
def test_layout_is_a_bijection(layout, rows, cols, slots):
    seen = {layout(i, j) for i in range(rows) for j in range(cols)}
    assert seen == {(t, s) for t in range(32) for s in range(slots)}


def test_16x16_layout_pairs_adjacent_columns():
    # a thread's two consecutive register slots hold two adjacent columns of one row
    assert cuda.shared_16x16_to_ldmatrix_32x8_layout(0, 0) == (0, 0)
    assert cuda.shared_16x16_to_ldmatrix_32x8_layout(0, 1) == (0, 1)
    assert cuda.shared_16x16_to_ldmatrix_32x8_layout(1, 0) == (4, 0)
    assert cuda.shared_16x16_to_ldmatrix_32x8_layout(8, 0) == (0, 2)
    assert cuda.shared_16x16_to_ldmatrix_32x8_layout(0, 8) == (0, 4)


def test_unimplemented_pieces_name_themselves():
    with pytest.raises(tvm.TVMError, match="tvmlite does not implement tvm.testing.tir.mma"):
        testing_tir.mma_schedule()
    with pytest.raises(tvm.TVMError, match=cuda.MMA_f16f16f32_INTRIN):
        TensorIntrin.get(cuda.MMA_f16f16f32_INTRIN)
