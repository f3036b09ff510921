"""Fully connected layer and batched matrix product (``topi.nn.dense``,
``topi.nn.batch_matmul``)."""
from __future__ import annotations

from typing import Optional

from ..._classic import unsupported
from ...te.operation import compute, reduce_axis
from ...te.tensor import Tensor, _dim_equal
from ...tir import op as _op
from ...tir.expr import IntImm
from .. import tag
from ..transform import _matmul
from ..utils import TopiError, get_const_int


def dense(data: Tensor, weight: Tensor, bias: Optional[Tensor] = None,
          out_dtype: Optional[str] = None) -> Tensor:
    """``data @ weight.T (+ bias)``: data ``(batch, in)``, weight ``(out, in)``, bias ``(out,)``.
    Stage ``T_dense`` (tag "dense"); the bias is a separate broadcast stage."""
    return _matmul(data, weight, False, True, bias, out_dtype, ("dense", "data", "weight"),
                   "T_dense", "dense")


def matmul(tensor_a: Tensor, tensor_b: Tensor, bias: Optional[Tensor] = None,
           out_dtype: Optional[str] = None, transpose_a: bool = False, transpose_b: bool = False,
           auto_scheduler_rewritten_layout: str = "",
           meta_schedule_original_shape=None) -> Tensor:
    """``op(tensor_a) @ op(tensor_b) (+ bias)``, ``op`` transposing where asked: a
    ``(M, K)`` (``(K, M)`` if ``transpose_a``), b ``(K, N)`` (``(N, K)`` if ``transpose_b``),
    bias ``(N,)``. Stage ``T_matmul_{N|T}{N|T}``, tag "matmul" ("dense" for NT, as classic);
    the bias is a separate broadcast stage.

    Parameters
    ----------
    tensor_a, tensor_b : Tensor
        The 2-D operands.
    bias : Optional[Tensor]
        1-D, added to every row.
    out_dtype : Optional[str]
        The accumulation and output type (default: tensor_a's).
    transpose_a, transpose_b : bool
        Whether the operand is stored transposed.
    auto_scheduler_rewritten_layout, meta_schedule_original_shape
        Layout rewrites of classic's auto-scheduler / meta-schedule; tvmlite has neither, so
        they must be left empty.

    Returns
    -------
    Tensor
        ``(M, N)``.
    """
    if auto_scheduler_rewritten_layout or meta_schedule_original_shape:
        raise unsupported("the layout rewrite arguments of tvm.topi.nn.matmul")
    name = "T_matmul_" + ("T" if transpose_a else "N") + ("T" if transpose_b else "N")
    tag_ = "dense" if (transpose_a, transpose_b) == (False, True) else "matmul"
    return _matmul(tensor_a, tensor_b, transpose_a, transpose_b, bias, out_dtype,
                   ("matmul", "tensor_a", "tensor_b"), name, tag_)


def dense_pack(data: Tensor, weight: Tensor, bias: Optional[Tensor] = None,
               out_dtype: Optional[str] = None) -> Tensor:
    """``dense`` with a packed weight: data ``(M, K)``, weight ``(N // bn, K, bn)`` (the
    ``(N, K)`` weight in layout ``NK{bn}n``) -> ``(M, N)``. Stage ``T_dense_pack``, tag
    "dense_pack"; the bias is a separate broadcast stage."""
    op = "dense_pack"
    if data.ndim != 2 or weight.ndim != 3:
        raise TopiError(f"{op}: data must be 2-D and weight 3-D (N//bn, K, bn), got "
                        f"{data.ndim}-D and {weight.ndim}-D")
    out_dtype = out_dtype or data.dtype
    m, k_dim = data.shape
    n_chunk, k_w, bn = weight.shape
    if not _dim_equal(k_dim, k_w):
        raise TopiError(f"{op}: data has {k_dim} input features but weight has {k_w}")
    bn_v = get_const_int(bn)
    n = _op.mul(n_chunk, bn)
    k = reduce_axis((0, k_dim), name="k")
    mat = compute((m, n), lambda y, x: _op.sum(
        data[y, k].astype(out_dtype) * weight[x // bn_v, k, x % bn_v].astype(out_dtype),
        axis=k), name="T_dense_pack", tag="dense_pack")
    if bias is not None:
        if bias.ndim != 1 or not _dim_equal(bias.shape[0], n):
            raise TopiError(f"{op}: bias must be 1-D of length {n}")
        mat = compute((m, n), lambda i, j: _op.add(mat[i, j], bias[j].astype(out_dtype)),
                      tag=tag.BROADCAST)
    return mat


def _is_one(d) -> bool:
    return isinstance(d, IntImm) and d.value == 1


def batch_matmul(tensor_a: Tensor, tensor_b: Tensor, oshape=None,
                 out_dtype: Optional[str] = None, transpose_a: bool = False,
                 transpose_b: bool = True) -> Tensor:
    """Batched product: ``a`` ``(B, M, K)`` (``(B, K, M)`` if ``transpose_a``), ``b``
    ``(B, N, K)`` (``(B, K, N)`` unless ``transpose_b``) -> ``(B, M, N)``; a batch of 1
    broadcasts. Stage ``T_batch_matmul_{N|T}{N|T}``, tag "batch_matmul"."""
    op = "batch_matmul"
    if tensor_a.ndim != 3 or tensor_b.ndim != 3:
        raise TopiError(f"{op}: tensor_a and tensor_b must be 3-D, got {tensor_a.ndim}-D and "
                        f"{tensor_b.ndim}-D")
    out_dtype = out_dtype or tensor_a.dtype
    ab, a1, a2 = tensor_a.shape
    bb, b1, b2 = tensor_b.shape
    m, ka = (a2, a1) if transpose_a else (a1, a2)
    n, kb = (b1, b2) if transpose_b else (b2, b1)
    if not _dim_equal(ka, kb):
        raise TopiError(f"{op}: reduction dimensions differ: {ka} vs {kb}")
    if not (_dim_equal(ab, bb) or _is_one(ab) or _is_one(bb)):
        raise TopiError(f"{op}: batch dimensions {ab} and {bb} do not broadcast")
    batch = bb if _is_one(ab) else ab
    k = reduce_axis((0, ka), name="k")

    def f(b, i, j):
        ba = 0 if _is_one(ab) else b
        bq = 0 if _is_one(bb) else b
        x = tensor_a[ba, k, i] if transpose_a else tensor_a[ba, i, k]
        y = tensor_b[bq, j, k] if transpose_b else tensor_b[bq, k, j]
        return _op.sum(_op.mul(x.astype(out_dtype), y.astype(out_dtype)), axis=k)
    name = "T_batch_matmul_" + ("T" if transpose_a else "N") + ("T" if transpose_b else "N")
    return compute(oshape or (batch, m, n), f, name=name, tag="batch_matmul")
