"""Loss functions (``topi.nn.nll_loss``)."""
from __future__ import annotations

from ...te.operation import compute
from ...te.tensor import Tensor, _dim_equal
from ...tir import op as _op
from .. import tag
from ..broadcast import divide
from ..reduction import sum as _sum
from ..utils import TopiError, check_tensors


def nll_loss(predictions: Tensor, targets: Tensor, weights: Tensor, reduction: str = "mean",
             ignore_index: int = -100) -> Tensor:
    """Negative log likelihood loss: ``out[n, i...] = -predictions[n, t, i...] * weights[t]``
    with ``t = targets[n, i...]`` (0 where ``t == ignore_index``), then reduced.

    Parameters
    ----------
    predictions : Tensor
        ``(N, C, d_1 .. d_k)`` log-probabilities, or ``(C,)`` without a batch.
    targets : Tensor
        ``(N, d_1 .. d_k)`` integer classes (``()`` without a batch).
    weights : Tensor
        ``(C,)``, the weight of each class.
    reduction : str
        "mean" (the sum of the losses over the sum of the weights of the targets not
        ignored), "sum" or "none" (the per-element losses, stage ``nll_loss``).
    ignore_index : int
        The target value that contributes nothing.

    Returns
    -------
    Tensor
        A scalar for "mean" and "sum", else of ``targets``' shape. Without a batch, "sum" and
        "none" are the one loss.
    """
    op = "nll_loss"
    check_tensors(op, predictions=predictions, targets=targets, weights=weights)
    if reduction not in ("mean", "sum", "none"):
        raise TopiError(f"{op}: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
    if not targets.dtype.startswith(("int", "uint")):
        raise TopiError(f"{op}: targets must have an integer dtype, got {targets.dtype}")
    batched = predictions.ndim != 1
    want = list(predictions.shape[:1]) + list(predictions.shape[2:]) if batched else []
    if targets.ndim != len(want) or not all(_dim_equal(a, b) for a, b in
                                            zip(targets.shape, want)):
        raise TopiError(f"{op}: targets must have shape {want} for predictions of shape "
                        f"{list(predictions.shape)}, got {list(targets.shape)}")
    if weights.ndim != 1 or not _dim_equal(weights.shape[0], predictions.shape[int(batched)]):
        raise TopiError(f"{op}: weights must be 1-D with one entry per class, got shape "
                        f"{list(weights.shape)}")
    zero = _op.const(0, predictions.dtype)

    def keep(c):
        return _op.ne(c, _op.const(ignore_index, c.dtype))

    def loss(*i):
        c = targets(*i)
        p = predictions(*i[:1], c, *i[1:])
        return _op.if_then_else(keep(c), _op.sub(zero, _op.mul(p, weights(c))), zero)

    def weight(*i):
        c = targets(*i)
        return _op.if_then_else(keep(c), weights(c), zero)
    losses = compute(targets.shape, loss, name=op, tag=tag.BROADCAST)
    if reduction == "none" or (reduction == "sum" and not batched):
        return losses
    weight_of = compute(targets.shape, weight, name=op, tag=tag.BROADCAST)
    if not batched:  # "mean" of one loss
        return divide(losses, weight_of)
    if reduction == "sum":
        return _sum(losses)
    return divide(_sum(losses), _sum(weight_of))
