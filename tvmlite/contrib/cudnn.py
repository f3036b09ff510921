"""``tvm.contrib.cudnn`` on a build without cuDNN: :func:`exists` is False and the operators
(convolutions, softmax) raise :class:`~tvmlite._classic.UnsupportedError`; classic code checks
``cudnn.exists()`` (or the ``-libs=cudnn`` target attribute) before using them.

The pure-Python parts that need no library (the algorithm names and indices, the output shapes
of a convolution) behave as classic's.
"""
from __future__ import annotations

from typing import List, Sequence, Union

from .._classic import unsupported_function

_FWD_ALGOS = [f"CUDNN_CONVOLUTION_FWD_ALGO_{a}" for a in (
    "IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT", "FFT", "FFT_TILING", "WINOGRAD",
    "WINOGRAD_NONFUSED", "COUNT")]
_BWD_FILTER_ALGOS = [f"CUDNN_CONVOLUTION_BWD_FILTER_ALGO_{a}" for a in (
    "0", "1", "FFT", "3", "WINOGRAD", "WINOGRAD_NONFUSED", "FFT_TILING", "COUNT")]
_BWD_DATA_ALGOS = [f"CUDNN_CONVOLUTION_BWD_DATA_ALGO_{a}" for a in (
    "0", "1", "FFT", "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED", "COUNT")]
_ALGOS = {"fwd": _FWD_ALGOS, "bwd_filter": _BWD_FILTER_ALGOS, "bwd_data": _BWD_DATA_ALGOS}

IntOrList = Union[int, Sequence[int]]


def exists() -> bool:
    """Whether cuDNN can be used here: never in tvmlite."""
    return False


def algo_to_index(algo_type: str, algo_name: str) -> int:
    """The index of the cuDNN algorithm ``algo_name`` among those of ``algo_type`` (``"fwd"``,
    ``"bwd_filter"`` or ``"bwd_data"``)."""
    if algo_type not in _ALGOS:
        raise ValueError(f"unknown cuDNN algorithm type {algo_type!r}")
    names = _ALGOS[algo_type]
    if algo_name not in names:
        raise ValueError(f"unknown cuDNN {algo_type} algorithm {algo_name!r}")
    return names.index(algo_name)


def _per_dim(value: IntOrList, dims: int) -> List[int]:
    return [int(value)] * dims if isinstance(value, int) else [int(v) for v in value]


def conv_output_shape(tensor_format: int, pad: IntOrList, stride: IntOrList,
                      dilation: IntOrList, x_shape: Sequence[int], w_shape: Sequence[int],
                      data_dtype: str = "float32", conv_dtype: str = "float32",
                      groups: int = 1) -> List[int]:
    """The output shape of a 2-D or 3-D convolution in cuDNN's ``tensor_format`` (0 NCHW,
    1 NHWC, 2 NCHW_VECT_C), as cuDNN computes it."""
    if len(x_shape) != len(w_shape) or len(x_shape) not in (4, 5):
        raise ValueError("x_shape and w_shape must both be 4-D or both 5-D")
    if tensor_format in (0, 2):
        x_chan, w_chan, x_sp, w_sp = x_shape[1], w_shape[1], x_shape[2:], w_shape[2:]
    elif tensor_format == 1:
        if len(x_shape) != 4:
            raise ValueError("CuDNN layout NHWC is only well-defined for 4d tensors")
        x_chan, w_chan, x_sp, w_sp = x_shape[-1], w_shape[-1], x_shape[1:-1], w_shape[1:-1]
    else:
        raise ValueError(f"Unknown CuDNN tensor format: '{tensor_format}'")
    if x_chan != w_chan * groups:
        raise ValueError(f"data has {x_chan} channels but the weights take {w_chan} per group "
                         f"({groups} groups)")
    dims = len(x_sp)
    pad, stride, dilation = (_per_dim(v, dims) for v in (pad, stride, dilation))
    spatial = [1 + (x + 2 * p - ((w - 1) * d + 1)) // s
               for x, w, p, s, d in zip(x_sp, w_sp, pad, stride, dilation)]
    if tensor_format == 1:
        return [x_shape[0], *spatial, w_shape[0]]
    return [x_shape[0], w_shape[0], *spatial]


def _unsupported(name: str):
    return unsupported_function(__name__, name, "this build has no cuDNN")


conv_forward = _unsupported("conv_forward")
conv_backward_data = _unsupported("conv_backward_data")
conv_backward_filter = _unsupported("conv_backward_filter")
conv_forward_find_algo = _unsupported("conv_forward_find_algo")
conv_backward_data_find_algo = _unsupported("conv_backward_data_find_algo")
conv_backward_filter_find_algo = _unsupported("conv_backward_filter_find_algo")
conv_dgrad_shape = _unsupported("conv_dgrad_shape")
softmax = _unsupported("softmax")
log_softmax = _unsupported("log_softmax")
