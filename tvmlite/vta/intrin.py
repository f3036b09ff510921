"""VTA tensor intrinsics: the GEMM core as a TE tensor intrinsic.

Its implementation is one ``VTAUopPush`` call with pointers to the accumulator tile,
the input tile and the weight tile in SRAM; the VTA code generator turns the loop
nest around these calls into micro-op kernels and GEMM instructions.
"""
from __future__ import annotations

from .. import te
from ..tir import op as _op
from ..tir.buffer import decl_buffer
from ..tir.stmt import Evaluate

#: the extern call the GEMM intrinsic lowers to: (mode, reset, dst, src, wgt) in elements
UOP_PUSH = "VTAUopPush"


def gemm(env, mock: bool = False):
    """The matrix-multiply tensor intrinsic of ``env``: ``out[BATCH, BLOCK_OUT] +=
    inp[BATCH, BLOCK_IN] * wgt[BLOCK_OUT, BLOCK_IN]^T`` in ``env.acc_dtype``."""
    wgt_shape = (env.BLOCK_OUT, env.BLOCK_IN)
    inp_shape = (env.BATCH, env.BLOCK_IN)
    out_shape = (env.BATCH, env.BLOCK_OUT)
    wgt = te.placeholder(wgt_shape, dtype=env.wgt_dtype, name=env.wgt_scope)
    inp = te.placeholder(inp_shape, dtype=env.inp_dtype, name=env.inp_scope)
    k = te.reduce_axis((0, env.BLOCK_IN), name="k")
    out = te.compute(
        out_shape,
        lambda i, j: te.sum(inp[i, k].astype(env.acc_dtype) * wgt[j, k].astype(env.acc_dtype),
                            axis=[k]),
        name="out")
    lanes = {wgt: wgt_shape[0] * wgt_shape[1], inp: inp_shape[0] * inp_shape[1],
             out: out_shape[0] * out_shape[1]}
    scopes = {wgt: env.wgt_scope, inp: env.inp_scope, out: env.acc_scope}
    binds = {t: decl_buffer(t.shape, t.dtype, scopes[t], scope=scopes[t],
                            offset_factor=lanes[t], data_alignment=lanes[t])
             for t in (wgt, inp, out)}

    def intrin_func(ins, outs):
        dinp, dwgt = ins
        dout = outs[0]
        if mock:
            nop = Evaluate(_op.const(0, "int32"))
            return nop, nop, nop

        def push(reset: int):
            # pointers keep the tiles' buffers visible to the schedule's region analysis
            src = 0 if reset else dinp.access_ptr("r")
            w = 0 if reset else dwgt.access_ptr("r")
            return Evaluate(_op.call_extern("int32", UOP_PUSH, 0, reset,
                                            dout.access_ptr("rw"), src, w))

        return push(0), push(1), push(0)

    return te.decl_tensor_intrin(out.op, intrin_func, name="GEMM", binds=binds)
