"""``topi.image.dilation2d_nchw`` / ``dilation2d_nhwc``: morphological (grey-scale) 2-D
dilation."""
from __future__ import annotations

from typing import Optional

from ...te.operation import compute, reduce_axis
from ...te.tensor import Tensor
from ...tir import op as _op
from ..nn.pad import pad
from ..nn.utils import checked_pad_tuple, conv_out_size
from ..utils import TopiError, check_tensors, get_const_int


def _pair(op: str, v, what: str):
    v = (v, v) if isinstance(v, int) else tuple(v)
    if len(v) != 2:
        raise TopiError(f"{op}: {what} must be an int or two ints, got {v!r}")
    return tuple(int(x) for x in v)


def _dilation2d(op: str, data: Tensor, kernel: Tensor, stride, padding, dilations,
                out_dtype: Optional[str], layout: str) -> Tensor:
    check_tensors(op, input=data, filter=kernel)
    if data.ndim != 4 or kernel.ndim != 3:
        raise TopiError(f"{op}: input must be 4-D ({layout}) and filter 3-D, got "
                        f"{data.ndim}-D and {kernel.ndim}-D")
    sh, sw = _pair(op, stride, "stride")
    dh, dw = _pair(op, dilations, "dilations")
    hax, wax, cax = (layout.index(c) for c in "HWC")
    kl = "CHW" if layout == "NCHW" else "HWC"
    kc, kh, kw = (get_const_int(kernel.shape[kl.index(c)]) for c in "CHW")
    c = data.shape[cax]
    if get_const_int(c) != kc:
        raise TopiError(f"{op}: input has {c} channels, filter {kc}")
    top, left, bottom, right = checked_pad_tuple(op, padding,
                                                 ((kh - 1) * dh + 1, (kw - 1) * dw + 1))
    before, after = [0] * 4, [0] * 4
    before[hax], before[wax], after[hax], after[wax] = top, left, bottom, right
    padded = pad(data, before, after, name="pad_temp") if max(top, left, bottom, right) \
        else data
    shape = list(data.shape)
    shape[hax] = conv_out_size(op, data.shape[hax], kh, dh, top, bottom, sh, "height")
    shape[wax] = conv_out_size(op, data.shape[wax], kw, dw, left, right, sw, "width")
    out_dtype = out_dtype or data.dtype
    ry = reduce_axis((0, kh), name="ry")
    rx = reduce_axis((0, kw), name="rx")

    def f(*i):
        idx = list(i)
        idx[hax] = i[hax] * sh + ry * dh
        idx[wax] = i[wax] * sw + rx * dw
        kidx = {"C": i[cax], "H": ry, "W": rx}
        return _op.max(_op.cast(out_dtype, padded[tuple(idx)])
                       + _op.cast(out_dtype, kernel[tuple(kidx[c] for c in kl)]),
                       axis=[ry, rx])
    return compute(shape, f, name="dilation2d", tag=f"dilation2d_{layout.lower()}")


def dilation2d_nchw(input: Tensor, filter: Tensor, stride, padding, dilations,  # noqa: A002
                    out_dtype: Optional[str] = None) -> Tensor:
    """Morphological dilation of "NCHW" ``input`` by ``filter`` ``(C, KH, KW)``:
    ``out[n, c, y, x] = max over (i, j) of padded[n, c, y * sh + i * dh, x * sw + j * dw] +
    filter[c, i, j]`` (zero padding: an int, 2 or 4 ints, "SAME" or "VALID"). Tag
    "dilation2d_nchw"."""
    return _dilation2d("dilation2d_nchw", input, filter, stride, padding, dilations,
                       out_dtype, "NCHW")


def dilation2d_nhwc(input: Tensor, filter: Tensor, stride, padding, dilations,  # noqa: A002
                    out_dtype: Optional[str] = None) -> Tensor:
    """Morphological dilation of "NHWC" ``input`` by ``filter`` ``(KH, KW, C)`` (see
    :func:`dilation2d_nchw`). Tag "dilation2d_nhwc"."""
    return _dilation2d("dilation2d_nhwc", input, filter, stride, padding, dilations,
                       out_dtype, "NHWC")
