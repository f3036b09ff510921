"""Per-channel scale and shift (``topi.nn.scale_shift_*``, classic ``nn/mapping.py``): batch
normalization at inference folded to ``x * scale[c] + shift[c]``."""
from __future__ import annotations

from ...te.operation import compute
from ...te.tensor import Tensor
from .. import tag
from ..utils import TopiError
from .conv2d import _channels_match


def _scale_shift(op: str, data: Tensor, scale: Tensor, shift: Tensor, ndim: int,
                 channel_axes) -> Tensor:
    if not all(isinstance(t, Tensor) for t in (data, scale, shift)):
        raise TopiError(f"{op}: Input, Scale and Shift must be Tensors")
    if data.ndim != ndim:
        raise TopiError(f"{op}: Input must be {ndim}-D, got {data.ndim}-D")
    want = [data.shape[a] for a in channel_axes]
    for name, t in (("Scale", scale), ("Shift", shift)):
        if t.ndim != len(want):
            raise TopiError(f"{op}: {name} must be {len(want)}-D, got {t.ndim}-D")
        for d, w in zip(t.shape, want):
            _channels_match(op, f"{name} does not match the Input channels", d, w)

    def f(*i):
        c = [i[a] for a in channel_axes]
        return data(*i) * scale(*c) + shift(*c)
    return compute(data.shape, f, name="ScaleShift", tag=tag.BROADCAST)


def scale_shift_nchw(Input: Tensor, Scale: Tensor, Shift: Tensor) -> Tensor:  # noqa: N803
    """``Input[n, c, h, w] * Scale[c] + Shift[c]`` (stage ``ScaleShift``)."""
    return _scale_shift("scale_shift_nchw", Input, Scale, Shift, 4, (1,))


def scale_shift_nhwc(Input: Tensor, Scale: Tensor, Shift: Tensor) -> Tensor:  # noqa: N803
    """``Input[n, h, w, c] * Scale[c] + Shift[c]`` (stage ``ScaleShift``)."""
    return _scale_shift("scale_shift_nhwc", Input, Scale, Shift, 4, (3,))


def scale_shift_nchwc(Input: Tensor, Scale: Tensor, Shift: Tensor) -> Tensor:  # noqa: N803
    """``Input[n, cc, h, w, cb] * Scale[cc, cb] + Shift[cc, cb]`` (packed NCHWc)."""
    return _scale_shift("scale_shift_nchwc", Input, Scale, Shift, 5, (1, 4))
