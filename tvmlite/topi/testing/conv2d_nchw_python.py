"""Reference 2-D convolution in NCHW layout, in numpy."""
from __future__ import annotations

import numpy as np

from ..nn.utils import get_pad_tuple


def _pair(x):
    return (x, x) if isinstance(x, int) else (int(x[0]), int(x[1]))


def _conv(a_np, w_np, stride, padding, groups):
    n, c, h, w = a_np.shape
    f, cg, kh, kw = w_np.shape
    if c % groups or f % groups or c // groups != cg:
        raise ValueError(f"conv2d: {c} input channels, filter {w_np.shape}, groups={groups} "
                         "do not match")
    sh, sw = _pair(stride)
    top, left, bottom, right = get_pad_tuple(padding, (kh, kw))
    a = np.pad(a_np, ((0, 0), (0, 0), (top, bottom), (left, right)))
    oh = (h + top + bottom - kh) // sh + 1
    ow = (w + left + right - kw) // sw + 1
    out = np.zeros((n, f, oh, ow), dtype=np.result_type(a_np, w_np))
    fg = f // groups
    for g in range(groups):
        ag = a[:, g * cg:(g + 1) * cg]
        wg = w_np[g * fg:(g + 1) * fg]
        for ry in range(kh):
            for rx in range(kw):
                win = ag[:, :, ry:ry + sh * (oh - 1) + 1:sh, rx:rx + sw * (ow - 1) + 1:sw]
                out[:, g * fg:(g + 1) * fg] += np.einsum("nchw,fc->nfhw", win, wg[:, :, ry, rx])
    return out


def conv2d_nchw_python(a_np: np.ndarray, w_np: np.ndarray, stride, padding,
                       groups: int = 1) -> np.ndarray:
    """Convolve ``a_np`` ``(N, C, H, W)`` with ``w_np`` ``(F, C // groups, KH, KW)``.

    ``stride`` is an int or ``(sh, sw)``; ``padding`` an int, ``(ph, pw)``,
    ``(top, left, bottom, right)``, "SAME" or "VALID". Returns ``(N, F, OH, OW)``.
    """
    return _conv(a_np, w_np, stride, padding, groups)


def depthwise_conv2d_python_nchw(input_np: np.ndarray, filter_np: np.ndarray, stride,
                                 padding) -> np.ndarray:
    """Depthwise convolution: input ``(N, C, H, W)``, filter ``(C, M, KH, KW)``."""
    c, m, kh, kw = filter_np.shape
    w = filter_np.reshape(c * m, 1, kh, kw)
    return _conv(input_np, w, stride, padding, groups=c) if m == 1 else np.concatenate(
        [_conv(input_np[:, k:k + 1], filter_np[k][:, None], stride, padding, 1)
         for k in range(c)], axis=1)


def depthwise_conv2d_python_nchwc(input_np: np.ndarray, filter_np: np.ndarray, stride,
                                  padding) -> np.ndarray:
    """Packed depthwise convolution: input ``(N, C//cb, H, W, cb)``, filter
    ``(OC//ob, 1, KH, KW, 1, ob)`` with ``OC = C*M`` -> ``(N, OC//ob, OH, OW, ob)``; output
    channel ``o`` reads input channel ``o // M``."""
    n, c_chunk, h, w, cb = input_np.shape
    oc_chunk, m_chunk, kh, kw, m_block, ob = filter_np.shape
    if m_chunk * m_block != 1:
        raise ValueError(f"depthwise_conv2d_python_nchwc: filter {filter_np.shape} must have "
                         "1 as its second and fifth dimensions")
    data = input_np.transpose(0, 1, 4, 2, 3).reshape(n, c_chunk * cb, h, w)
    weight = filter_np.transpose(0, 5, 1, 4, 2, 3).reshape(oc_chunk * ob, 1, kh, kw)
    out = _conv(data, weight, stride, padding, groups=c_chunk * cb)
    _, _, oh, ow = out.shape
    return out.reshape(n, oc_chunk, ob, oh, ow).transpose(0, 1, 3, 4, 2)
