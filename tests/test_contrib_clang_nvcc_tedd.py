"""tvm.contrib.clang (C micro-kernels for the import_llvm pragma), nvcc capability queries and
tedd's DOT graphs."""
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te
from tvmlite.contrib import clang, nvcc, tedd

KERNEL_V1 = """
extern "C" int scale_row(float *out, const float *in, int n) {
    for (int i = 0; i < n; ++i) out[i] = in[i] * 2.0f;
    return 0;
}
"""
KERNEL_V2 = KERNEL_V1.replace("2.0f", "3.0f") + """
extern "C" int unused_helper(void) { return 7; }
"""


def _scaled_rows(rows: int, cols: int, kernels):
    A = te.placeholder((rows, cols), name="A")
    B = te.compute((rows, cols), lambda i, j: A[i, j], name="B")
    s = te.create_schedule(B.op)
    i, j = B.op.axis

    def intrin():
        a = te.placeholder((cols,), name="a")
        b = te.compute((cols,), lambda k: a[k], name="b")
        ab = tvm.tir.decl_buffer(a.shape, a.dtype, name="ab", offset_factor=1)
        bb = tvm.tir.decl_buffer(b.shape, b.dtype, name="bb", offset_factor=1)

        def body(ins, outs):
            ib = tvm.tir.ir_builder.create()
            ib.emit(tvm.tir.call_extern("int32", "scale_row", outs[0].access_ptr("w"),
                                        ins[0].access_ptr("r"), cols))
            return ib.get()

        return te.decl_tensor_intrin(b.op, body, binds={a: ab, b: bb})

    io, ii = s[B].split(i, factor=2)
    s[B].tensorize(j, intrin())
    for loop, code in zip([io, ii], kernels, strict=False):
        s[B].pragma(loop, "import_llvm", code)
    return tvm.build(s, [A, B])


def test_create_llvm_kernel_links_through_import_llvm(tmp_path):
    code = clang.create_llvm(KERNEL_V1, output=str(tmp_path / "k.ll"))
    assert (tmp_path / "k.ll").read_text() == code
    assert 'extern "C"' not in code
    f = _scaled_rows(5, 7, [code])
    a = np.random.rand(5, 7).astype("float32")
    b = tvm.nd.empty((5, 7), "float32")
    f(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a * 2, rtol=1e-6)


def test_outermost_kernel_definition_wins_as_in_classic():
    # classic links import_llvm modules outermost first, skipping symbols already defined
    f = _scaled_rows(5, 7, [clang.create_llvm(KERNEL_V2), clang.create_llvm(KERNEL_V1)])
    a = np.random.rand(5, 7).astype("float32")
    b = tvm.nd.empty((5, 7), "float32")
    f(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a * 3, rtol=1e-6)


def test_create_llvm_reads_source_files(tmp_path):
    src = tmp_path / "kernel.c"
    src.write_text(KERNEL_V2)
    code = clang.create_llvm([str(src)])
    assert "3.0f" in code and "unused_helper" in code


def test_plain_llvm_ir_is_still_refused():
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i] + 1, name="B")
    s = te.create_schedule(B.op)
    s[B].pragma(B.op.axis[0], "import_llvm", "define i32 @f() { ret i32 0 }")
    with pytest.raises(tvm.TVMError, match="import_llvm is not supported"):
        tvm.build(s, [A, B])


def test_nvcc_capabilities():
    assert nvcc.have_fp16("7.5") and nvcc.have_fp16("5.3") and not nvcc.have_fp16("6.1")
    assert not nvcc.have_fp16("5.2")
    assert nvcc.have_int8("6.1") and not nvcc.have_int8("6.0")
    assert nvcc.have_tensorcore("7.0") and not nvcc.have_tensorcore("6.2")
    assert nvcc.have_bf16("8.0") and not nvcc.have_bf16("7.5")
    with pytest.raises(ValueError):
        nvcc.have_fp16("seven")
    with pytest.raises(tvm.TVMError, match="tvmlite does not implement contrib.nvcc"):
        nvcc.compile_cuda("")


def _schedule():
    A = te.placeholder((12, 10), name="A")
    B = te.compute((12, 10), lambda i, j: A[i, j] * 2, name="B")
    C = te.compute((12, 10), lambda i, j: B[i, j] + 1, name="C")
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(C.op.axis[0], factor=4)
    s[B].compute_at(s[C], xo)
    s[C].fuse(xi, C.op.axis[1])
    return s


def test_tedd_graphs(tmp_path):
    s = _schedule()
    path = tmp_path / "dfg.dot"
    dfg = tedd.viz_dataflow_graph(s, dot_file_path=str(path), output_dot_string=True)
    assert path.read_text() == dfg and dfg.startswith("digraph")
    assert '"stage_0_A" -> "stage_1_B"' in dfg and '"stage_1_B" -> "stage_2_C"' in dfg
    tree = tedd.viz_schedule_tree(s, output_dot_string=True)
    assert "compute_at i.outer" in tree and "i.inner.j.fused" in tree
    ivs = tedd.viz_itervar_relationship_graph(s, output_dot_string=True)
    assert ivs.count('label="Split"') == 1 and ivs.count('label="Fuse"') == 1
    assert tedd.viz_schedule_tree(s) is None
