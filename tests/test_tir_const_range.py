"""Constants out of their dtype's range raise, as in classic TVM (no silent wrap-around)."""
import math

import pytest

import tvmlite as tvm
from tvmlite import te, tir
from tvmlite.script import from_source


@pytest.mark.parametrize("value, dtype", [(-1, "uint8"), (256, "uint8"), (2**64, "uint64"),
                                          (-1, "uint64"), (2**31, "int32"), (-2**31 - 1, "int32"),
                                          (128, "int8"), (2**63, "int64"), (1e39, "float32"),
                                          (-1e39, "float32"), (70000.0, "float16")])
def test_out_of_range_constant_raises(value, dtype):
    with pytest.raises(ValueError, match=f"Literal value .* out of range for {dtype}"):
        tir.const(value, dtype)
    with pytest.raises(tvm.TVMError):
        tir.const(value, dtype)


@pytest.mark.parametrize("value, dtype", [(255, "uint8"), (0, "uint8"), (2**64 - 1, "uint64"),
                                          (-2**31, "int32"), (2**31 - 1, "int32"),
                                          (-2**63, "int64"), (3.4e38, "float32"),
                                          (1e300, "float64"), (True, "bool"), (1, "bool")])
def test_in_range_constant_is_exact(value, dtype):
    c = tir.const(value, dtype)
    assert c.value == value or (dtype == "bool" and c.value == 1)


def test_inf_and_nan_are_representable():
    assert math.isinf(tir.const(float("inf"), "float32").value)
    assert math.isnan(tir.const(float("nan"), "float16").value)


def test_python_number_mixed_into_an_expression_is_checked():
    A = te.placeholder((4,), "uint8", name="A")
    assert (A[0] + 255).b.value == 255
    with pytest.raises(ValueError, match="300 is out of range for uint8"):
        A[0] + 300


def test_tvmscript_literal_out_of_range():
    with pytest.raises(tvm.TVMError, match="out of range for uint8"):
        from_source('''
@T.prim_func
def f(A: T.Buffer((4,), "uint8")):
    for i in range(4):
        A[i] = T.uint8(-1)
''')


def test_split_factor_beyond_the_loop_dtype_is_refused():
    A = te.placeholder((10,), name="A")
    B = te.compute((10,), lambda i: A[i] + 1.0, name="B")
    for kw in ({"factor": 2**31}, {"nparts": 2**40}):
        s = te.create_schedule(B.op)
        s[B].split(B.op.axis[0], **kw)
        with pytest.raises(tvm.TVMError, match="does not fit the loop variable's dtype int32"):
            tvm.build(s, [A, B])
    sch = tir.Schedule(te.create_prim_func([A, B]))
    (i,) = sch.get_loops(sch.get_block("B"))
    with pytest.raises(tir.ScheduleError, match="product of the factors"):
        sch.split(i, [65536, 65536])
