"""The one table of argument type codes (``tvmlite.ir.dtype``) drives both the runtime's packing
and the checks and messages in the generated C."""
import ctypes

import pytest
from test_codegen_c_kernels import build_one, vadd

import tvmlite as tvm
from tvmlite.ir import dtype as _dt


@pytest.fixture(scope="module")
def raw():
    mod = build_one(vadd(100))
    fn = mod._lib["default_function"]
    fn.restype = ctypes.c_int32
    return mod, fn


@pytest.mark.parametrize("code, name", sorted(_dt.ARG_TYPE_NAMES.items()) + [(99, "object")])
def test_generated_c_names_each_code_from_the_table(raw, code, name):
    mod, fn = raw
    a, b, c = (tvm.nd.empty((100,)) for _ in range(3))
    args = (ctypes.c_void_p * 3)(a._dlptr, b._dlptr, c._dlptr)
    codes = (ctypes.c_int32 * 3)(*[_dt.ARG_DLTENSOR] * 3)
    assert fn(args, codes, 3) == 0
    codes[1] = code
    if code == _dt.ARG_DLTENSOR:
        return
    assert fn(args, codes, 3) == -1
    assert mod._last_error().endswith(f"Argument b is expected to be a tensor (DLTensor*), "
                                      f"got {name}")


def test_runtime_packs_with_the_table_codes(raw):
    mod, _ = raw
    f = mod["default_function"]
    # a wrong argument count packs every value by its own type (the C reports the count)
    _, codes, _ = f.pack([tvm.nd.empty((100,)), 3, 2.5, None])
    assert list(codes) == [_dt.ARG_DLTENSOR, _dt.ARG_INT, _dt.ARG_FLOAT, _dt.ARG_NULL]
