"""Packed-layout operators that ``AlterOpLayout`` introduces: ``layout_transform`` and
``nn.contrib_conv2d_NCHWc`` (data ``NCHW{c}c``, kernel ``OIHW{i}i{o}o``), each lowered by its
one TOPI compute; their types come from that compute (``topi_rel``)."""
from __future__ import annotations

from ... import topi
from ...topi import generic as _generic
from ...topi import x86 as _x86
from ..expr import Expr
from ._rel import topi_rel
from .registry import OpPattern, make_call, register, register_strategy

register("layout_transform", 1, topi_rel("layout_transform"), OpPattern.INJECTIVE,
         {"src_layout": "NCHW", "dst_layout": "NCHW"})


def layout_transform(data: Expr, src_layout: str, dst_layout: str) -> Expr:
    """``data`` re-laid out from ``src_layout`` to ``dst_layout`` ("NCHW" <-> "NCHW8c",
    "OIHW" -> "OIHW4i8o"…)."""
    return make_call("layout_transform", [data], src_layout=src_layout, dst_layout=dst_layout)


def _layout_transform(attrs, ins, ty):
    return [topi.layout_transform(ins[0], attrs.src_layout, attrs.dst_layout)]


register_strategy("layout_transform", "cpu", _layout_transform,
                  lambda attrs, outs, tgt: _x86.schedule_injective(outs))
register_strategy("layout_transform", "generic", _layout_transform,
                  lambda attrs, outs, tgt: _generic.schedule_injective(outs))

register("nn.contrib_conv2d_NCHWc", 2, topi_rel("nn.contrib_conv2d_NCHWc"),
         OpPattern.OUT_ELEMWISE_FUSABLE,
         {"strides": (1, 1), "padding": (0, 0, 0, 0), "dilation": (1, 1), "groups": 1,
          "channels": None, "kernel_size": None, "data_layout": "NCHW8c",
          "kernel_layout": "OIHW8i8o", "out_layout": "NCHW8c", "out_dtype": ""})


def contrib_conv2d_nchwc(data: Expr, kernel: Expr, strides=(1, 1), padding=(0, 0, 0, 0),
                         dilation=(1, 1), channels=None, kernel_size=None,
                         data_layout: str = "NCHW8c", kernel_layout: str = "OIHW8i8o",
                         out_layout: str = "NCHW8c", out_dtype: str = "") -> Expr:
    """Packed 2-D convolution (classic ``relay.nn.contrib_conv2d_nchwc``)."""
    return make_call("nn.contrib_conv2d_NCHWc", [data, kernel], strides=tuple(strides),
                     padding=tuple(padding), dilation=tuple(dilation), channels=channels,
                     kernel_size=kernel_size, data_layout=data_layout,
                     kernel_layout=kernel_layout, out_layout=out_layout, out_dtype=out_dtype)


def _conv2d_nchwc(fn):
    def f(attrs, ins, ty):
        dt = attrs.out_dtype or (ty.dtype if ty is not None else ins[0].dtype)
        return [fn(ins[0], ins[1], attrs.strides, attrs.padding, attrs.dilation,
                   attrs.data_layout, attrs.out_layout, dt)]
    return f


register_strategy("nn.contrib_conv2d_NCHWc", "cpu", _conv2d_nchwc(_x86.conv2d_NCHWc),
                  lambda attrs, outs, tgt: _x86.schedule_conv2d_NCHWc(outs))
register_strategy("nn.contrib_conv2d_NCHWc", "generic", _conv2d_nchwc(topi.nn.conv2d_NCHWc),
                  lambda attrs, outs, tgt: _generic.schedule_conv2d_NCHWc(outs))

register("nn.contrib_depthwise_conv2d_NCHWc", 2,
         topi_rel("nn.contrib_depthwise_conv2d_NCHWc"), OpPattern.OUT_ELEMWISE_FUSABLE,
         {"strides": (1, 1), "padding": (0, 0, 0, 0), "dilation": (1, 1), "groups": 1,
          "channels": None, "kernel_size": None, "data_layout": "NCHW8c",
          "kernel_layout": "OIHW1i8o", "out_layout": "NCHW8c", "out_dtype": ""})


def contrib_depthwise_conv2d_nchwc(data: Expr, kernel: Expr, strides=(1, 1),
                                   padding=(0, 0, 0, 0), dilation=(1, 1), groups: int = 1,
                                   channels=None, kernel_size=None,
                                   data_layout: str = "NCHW8c",
                                   kernel_layout: str = "OIHW1i8o", out_layout: str = "NCHW8c",
                                   out_dtype: str = "") -> Expr:
    """Packed depthwise 2-D convolution (classic ``relay.nn.contrib_depthwise_conv2d_nchwc``):
    data ``NCHW{c}c``, kernel ``(C*M//oc_bn, 1, KH, KW, 1, oc_bn)``."""
    return make_call("nn.contrib_depthwise_conv2d_NCHWc", [data, kernel],
                     strides=tuple(strides), padding=tuple(padding), dilation=tuple(dilation),
                     groups=groups, channels=channels, kernel_size=kernel_size,
                     data_layout=data_layout, kernel_layout=kernel_layout,
                     out_layout=out_layout, out_dtype=out_dtype)


register_strategy("nn.contrib_depthwise_conv2d_NCHWc", "cpu",
                  _conv2d_nchwc(_x86.depthwise_conv2d_NCHWc),
                  lambda attrs, outs, tgt: _x86.schedule_depthwise_conv2d_NCHWc(outs))
register_strategy("nn.contrib_depthwise_conv2d_NCHWc", "generic",
                  _conv2d_nchwc(topi.nn.depthwise_conv2d_NCHWc),
                  lambda attrs, outs, tgt: _generic.schedule_conv2d_NCHWc(outs))

register("nn.contrib_dense_pack", 2, topi_rel("nn.contrib_dense_pack"),
         OpPattern.OUT_ELEMWISE_FUSABLE, {"units": None, "out_dtype": "",
                                          "weight_layout": "NK16n"})


def contrib_dense_pack(data: Expr, weight: Expr, weight_layout: str = "NK16n", units=None,
                       out_dtype: str = "") -> Expr:
    """Dense over a weight packed ahead of time (classic ``relay.nn.contrib_dense_pack``):
    data ``(M, K)``, weight ``(N // bn, K, bn)`` (layout ``NK{bn}n``) -> ``(M, N)``."""
    return make_call("nn.contrib_dense_pack", [data, weight], weight_layout=weight_layout,
                     units=units, out_dtype=out_dtype)


def _dense_pack(fn):
    def f(attrs, ins, ty):
        return [fn(ins[0], ins[1], None, attrs.out_dtype or (ty.dtype if ty is not None
                                                             else ins[0].dtype))]
    return f


register_strategy("nn.contrib_dense_pack", "cpu", _dense_pack(_x86.dense_pack),
                  lambda attrs, outs, tgt: _x86.schedule_dense_pack(outs))
register_strategy("nn.contrib_dense_pack", "generic", _dense_pack(topi.nn.dense_pack),
                  lambda attrs, outs, tgt: _generic.schedule_dense(outs))
