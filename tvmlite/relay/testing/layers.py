"""Layers of the test networks: each makes the parameter variables it needs (named
``{name}_weight``, ``{name}_bias`` …, shaped from its input's inferred type)."""
from __future__ import annotations

from typing import Optional, Tuple

from ..expr import Expr, Var, var
from ..op import nn as _nn
from ..transform.infer_type import infer_type


def shape_of(expr: Expr) -> Tuple[int, ...]:
    """The (inferred) shape of ``expr``."""
    return tuple(infer_type(expr).checked_type.shape)


def dtype_of(expr: Expr) -> str:
    """The (inferred) dtype of ``expr``."""
    return infer_type(expr).checked_type.dtype


def conv2d(data: Expr, channels: int, kernel_size=(3, 3), strides=(1, 1), padding=(0, 0),
           groups: int = 1, name: str = "conv", weight: Optional[Var] = None,
           **kwargs) -> Expr:
    """``nn.conv2d`` with its weight variable ``{name}_weight`` (OIHW)."""
    c = shape_of(data)[1]
    if weight is None:
        weight = var(f"{name}_weight", shape=(channels, c // groups) + tuple(kernel_size),
                     dtype=dtype_of(data))
    return _nn.conv2d(data, weight, strides=strides, padding=padding, groups=groups,
                      channels=channels, kernel_size=kernel_size, **kwargs)


def conv2d_transpose(data: Expr, channels: int, kernel_size=(4, 4), strides=(2, 2),
                     padding=(0, 0), output_padding=(0, 0), name: str = "deconv") -> Expr:
    """``nn.conv2d_transpose`` with its weight variable ``{name}_weight`` (IOHW)."""
    c = shape_of(data)[1]
    weight = var(f"{name}_weight", shape=(c, channels) + tuple(kernel_size), dtype=dtype_of(data))
    return _nn.conv2d_transpose(data, weight, strides=strides, padding=padding,
                                output_padding=output_padding, channels=channels,
                                kernel_size=kernel_size)


def batch_norm_infer(data: Expr, epsilon: float = 1e-5, scale: bool = True,
                     center: bool = True, axis: int = 1, name: str = "bn") -> Expr:
    """Inference batch norm with variables ``{name}_gamma/_beta/_moving_mean/_moving_var``."""
    c = shape_of(data)[axis]
    dt = dtype_of(data)
    vs = [var(f"{name}_{k}", shape=(c,), dtype=dt)
          for k in ("gamma", "beta", "moving_mean", "moving_var")]
    return _nn.batch_norm(data, *vs, axis=axis, epsilon=epsilon, center=center,
                          scale=scale)[0]


def dense_add_bias(data: Expr, units: int, name: str = "dense", weight: Optional[Var] = None,
                   bias: Optional[Var] = None) -> Expr:
    """``nn.dense`` + ``nn.bias_add`` with ``{name}_weight`` and ``{name}_bias`` (or the given
    ``weight`` and ``bias`` variables)."""
    if weight is None or bias is None:
        k = shape_of(data)[-1]
        dt = dtype_of(data)
        weight = weight or var(f"{name}_weight", shape=(units, k), dtype=dt)
        bias = bias or var(f"{name}_bias", shape=(units,), dtype=dt)
    return _nn.bias_add(_nn.dense(data, weight, units), bias, axis=-1)


__all__ = ["shape_of", "dtype_of", "conv2d", "conv2d_transpose", "batch_norm_infer",
           "dense_add_bias"]
