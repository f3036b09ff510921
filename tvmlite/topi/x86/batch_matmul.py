"""x86 ``batch_matmul`` (AutoTVM template ``batch_matmul.x86``): per batch, ``tile_y x
tile_x`` output tiles accumulated in a local block, vectorized along the columns, with
``(batch, y-tiles)`` fused and parallel; element-wise consumers fused."""
from __future__ import annotations

from typing import Optional

from ... import autotvm
from ...te.schedule import Schedule
from ...te.tensor import Tensor
from ..nn.dense import batch_matmul as _nn_batch_matmul
from ..utils import get_const_int, is_const
from .dense import _inline_and_find, _tensor_arg, config_of
from .utils import get_config, vector_lanes

_NOMINAL = 64  # the extent a symbolic dimension's tiling knobs are defined over


def batch_matmul(tensor_a: Tensor, tensor_b: Tensor, oshape=None,
                 out_dtype: Optional[str] = None, transpose_a: bool = False,
                 transpose_b: bool = True) -> Tensor:
    """``topi.nn.batch_matmul`` with the ``batch_matmul.x86`` knobs (``tile_y``,
    ``tile_x``, ``tile_k``) on its config."""
    args = (tensor_a, tensor_b, oshape, out_dtype, transpose_a, transpose_b)
    cfg, workload = get_config("batch_matmul.x86", args)
    out = _nn_batch_matmul(*args)
    dims = [*out.shape, out.op.reduce_axis[0].dom.extent]
    # a symbolic extent (dynamic shapes) gets the tiles of a nominal one (guarded tails)
    b, m, n, k = (get_const_int(d) if is_const(d) else _NOMINAL for d in dims)
    cfg.define_split("tile_y", m, num_outputs=2)
    cfg.define_split("tile_x", n, num_outputs=2)
    cfg.define_split("tile_k", k, num_outputs=2)
    if cfg.is_fallback:
        cfg.fallback_split("tile_y", [-1, 8])
        cfg.fallback_split("tile_x", [-1, vector_lanes(tensor_a.dtype)])
        cfg.fallback_split("tile_k", [-1, 4])
    if all(is_const(d) for d in dims):
        cfg.add_flop(2 * b * m * n * k)
    out.op.attrs["workload"] = workload
    return out


def schedule_batch_matmul(outs) -> Schedule:
    """Schedule of :func:`batch_matmul` and its element-wise consumers."""
    s, mm, out = _inline_and_find(outs, "batch_matmul")
    cfg = config_of(out)
    acc = s.cache_write(mm, "global") if out is mm else mm
    b, y, x = s[out].op.axis
    yo, yi = cfg["tile_y"].apply(s, out, y)
    xo, xi = cfg["tile_x"].apply(s, out, x)
    s[out].reorder(b, yo, xo, yi, xi)
    s[out].parallel(s[out].fuse(b, yo))
    s[out].vectorize(xi)
    s[acc].compute_at(s[out], xo)
    _, cy, cx = s[acc].op.axis
    (k,) = s[acc].op.reduce_axis
    ko, ki = cfg["tile_k"].apply(s, acc, k)
    s[acc].reorder(ko, ki, cy, cx)
    s[acc].unroll(ki)
    s[acc].vectorize(cx)
    return s


@autotvm.template("batch_matmul.x86")
def _batch_matmul_template(tensor_a, tensor_b, oshape=None, out_dtype=None,
                           transpose_a=False, transpose_b=True):
    a, b = _tensor_arg(tensor_a, "tensor_a"), _tensor_arg(tensor_b, "tensor_b")
    out = batch_matmul(a, b, oshape, out_dtype, transpose_a, transpose_b)
    return schedule_batch_matmul(out), [a, b, out]
