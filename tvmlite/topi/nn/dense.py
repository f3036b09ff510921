"""Fully connected layer (``topi.nn.dense``)."""
from __future__ import annotations

from typing import Optional

from ...error import TVMError
from ...te.operation import compute, reduce_axis
from ...te.tensor import Tensor, _dim_equal
from ...tir import op as _op
from .. import tag


def dense(data: Tensor, weight: Tensor, bias: Optional[Tensor] = None,
          out_dtype: Optional[str] = None) -> Tensor:
    """``data @ weight.T (+ bias)``: data ``(batch, in)``, weight ``(out, in)``, bias ``(out,)``.
    Stage ``T_dense`` (tag "dense"); the bias is a separate broadcast stage."""
    if data.ndim != 2 or weight.ndim != 2:
        raise TVMError(f"dense: data and weight must be 2-D, got {data.ndim}-D and "
                       f"{weight.ndim}-D")
    if bias is not None and bias.ndim != 1:
        raise TVMError(f"dense: bias must be 1-D, got {bias.ndim}-D")
    out_dtype = out_dtype or data.dtype
    batch, in_dim = data.shape
    out_dim, in_dim_w = weight.shape
    if not _dim_equal(in_dim, in_dim_w):
        raise TVMError(f"dense: data has {in_dim} input features but weight has {in_dim_w}")
    k = reduce_axis((0, in_dim), name="k")
    mat = compute((batch, out_dim),
                  lambda i, j: _op.sum(_op.mul(data[i, k].astype(out_dtype),
                                               weight[j, k].astype(out_dtype)), axis=k),
                  name="T_dense", tag="dense")
    if bias is not None:
        mat = compute((batch, out_dim),
                      lambda i, j: _op.add(mat[i, j], bias[j].astype(out_dtype)),
                      tag=tag.BROADCAST)
    return mat
