"""Target-dependent legalization of QNN operators (``FTVMQnnLegalize``, classic's rules):

* x86 ("cpu" targets): with fast int8 instructions (an ``-mcpu`` with SSE4.2 or newer), a
  qnn.conv2d / qnn.dense gets uint8 data and int8 weights (``q + 128`` with its zero point
  ``+ 128``, or ``- 128``); without, it becomes nn.conv2d / nn.dense of the inputs minus their
  zero points in int16;
* arm_cpu: without dot-product instructions (and, for conv2d, unless NHWC non-depthwise) the
  same lowering; else both inputs get one dtype;
* cuda: both inputs int8;
* qnn.conv2d_transpose: always the lowering to nn.conv2d_transpose.
"""
from __future__ import annotations

from typing import Optional

from ....target import Target
from ...expr import Expr, const
from ...op import tensor as _t
from ...op.registry import get, make_call
from . import canonicalizations as _c

LEGALIZE = "FTVMQnnLegalize"

#: classic ``target_has_sse42``: the -mcpu values with SSE4.2 (AVX, AVX2, AVX-512 and VNNI
#: ones included)
_SSE42_CPUS = frozenset("""
    silvermont slm goldmont goldmont-plus tremont nehalem corei7 westmere bdver1 bdver2 bdver3
    x86-64-v2 sandybridge corei7-avx ivybridge core-avx-i haswell core-avx2 broadwell skylake
    bdver4 znver1 znver2 znver3 x86-64-v3 skylake-avx512 skx knl knm x86-64-v4 cannonlake
    cascadelake icelake-client icelake-server rocketlake tigerlake cooperlake sapphirerapids
    alderlake
""".split())


def is_fast_int8_on_intel(target: Target) -> bool:
    """Whether ``target``'s -mcpu has SSE4.2 or newer (classic ``is_fast_int8_on_intel``)."""
    return target.mcpu in _SSE42_CPUS


def _arm_features(target: Target):
    mattr = [str(a) for a in target.mattr]
    triple = str(target.attrs.get("mtriple", ""))
    asimd = "+neon" in mattr or triple.startswith("aarch64") or triple.startswith("arm64")
    return asimd, "+dotprod" in mattr


def _shift(data: Expr, zero_point: Expr, out_dtype: str):
    """``data`` and ``zero_point`` moved by 128 into ``out_dtype`` (uint8 up, int8 down)."""
    delta = 128 if out_dtype == "uint8" else -128
    data = _t.cast(_t.add(_t.cast(data, "int32"), const(delta, "int32")), out_dtype)
    return data, _t.add(zero_point, const(delta, "int32"))


def _change_dtypes(attrs, inputs, types, make, data_dtype: str, kernel_dtype: str):
    data, kernel, izp, kzp, iscale, kscale = inputs
    if types[0].dtype == data_dtype and types[1].dtype == kernel_dtype:
        return None
    if types[0].dtype != data_dtype and types[0].dtype in ("int8", "uint8"):
        data, izp = _shift(data, izp, data_dtype)
    if types[1].dtype != kernel_dtype and types[1].dtype in ("int8", "uint8"):
        kernel, kzp = _shift(kernel, kzp, kernel_dtype)
    return make_call(make, [data, kernel, izp, kzp, iscale, kscale], **dict(attrs.items()))


def _same_dtypes(attrs, inputs, types, make):
    """Both inputs in the data's dtype (classic ``helper_change_dtypes_to_be_same``)."""
    if types[0].dtype == types[1].dtype:
        return None
    want = types[0].dtype
    return _change_dtypes(attrs, inputs, types, make, want, want)


def _lower(name: str):
    rule = _c.RULES[name]

    def f(attrs, inputs, types):
        return rule(attrs, inputs, types)
    return f


def _weighted_legalize(name: str):
    qname = f"qnn.{name}"
    lower = _lower(qname)

    def legalize(attrs, inputs, types) -> Optional[Expr]:
        target = Target.current(allow_none=True)
        if target is None:
            return None
        keys = tuple(target.keys)
        if "arm_cpu" in keys:
            asimd, dotprod = _arm_features(target)
            other = dotprod
            if name == "conv2d":
                depthwise = int(attrs.groups) > 1 and int(attrs.groups) == int(
                    types[0].shape[(attrs.data_layout or "NCHW").index("C")])
                other = other or (not depthwise and attrs.data_layout == "NHWC")
            if asimd and not other:
                return lower(attrs, inputs, types)
            return _same_dtypes(attrs, inputs, types, qname)
        if "cuda" in keys or "gpu" in keys:
            if target.kind.name == "cuda":
                return _change_dtypes(attrs, inputs, types, qname, "int8", "int8")
            return None
        if "cpu" in keys:
            if is_fast_int8_on_intel(target):
                return _change_dtypes(attrs, inputs, types, qname, "uint8", "int8")
            return lower(attrs, inputs, types)
        return None
    return legalize


for _name in ("conv2d", "dense"):
    get(f"qnn.{_name}").set_attr(LEGALIZE, _weighted_legalize(_name))
get("qnn.conv2d_transpose").set_attr(LEGALIZE, _lower("qnn.conv2d_transpose"))

__all__ = ["LEGALIZE", "is_fast_int8_on_intel"]
