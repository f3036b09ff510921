"""``FoldExplicitPadding``: an ``nn.pad`` of only the spatial dimensions feeding a
convolution or pool becomes that op's own padding, as in classic relay: for convolutions and
average pools when the pad value is 0 (``qnn.conv2d``: when it is the input zero point; an
average pool that excluded padding then counts it, so only one without padding of its own
folds), for max pools when it is the dtype's lowest value; the pad mode must be
"constant"."""
from __future__ import annotations

import re
from typing import List, Optional

import numpy as np

from ...ir.transform import Pass
from ..dataflow_pattern import DFPatternCallback, is_op, rewrite, wildcard
from ..expr import Constant, rebuild_call
from ..op import registry
from .function_pass import function_pass

_CONVS = ("nn.conv1d", "nn.conv2d", "nn.conv3d", "nn.contrib_conv2d_NCHWc")
_AVG_POOLS = ("nn.avg_pool1d", "nn.avg_pool2d", "nn.avg_pool3d")
_MAX_POOLS = ("nn.max_pool1d", "nn.max_pool2d", "nn.max_pool3d")


def _spatial_padding(pad_width, layout: str) -> Optional[List[int]]:
    """The (befores..., afters...) padding of the spatial (D, H, W) axes of ``layout`` that
    ``pad_width`` adds, or None if it pads another axis."""
    axes = re.findall(r"\d*[A-Za-z]", layout)
    if len(axes) != len(pad_width):
        return None
    spatial = [i for i, a in enumerate(axes) if a in ("D", "H", "W")]
    if any(int(b) or int(e) for i, (b, e) in enumerate(pad_width) if i not in spatial):
        return None
    return [int(pad_width[i][0]) for i in spatial] + [int(pad_width[i][1]) for i in spatial]


def _full_padding(padding, n: int) -> List[int]:
    """An op's ``padding`` attribute as (befores..., afters...) of ``n`` spatial axes."""
    p = [int(v) for v in (padding if isinstance(padding, (list, tuple)) else [padding])]
    if len(p) == 1:
        return p * (2 * n)
    if len(p) == n:
        return p + p
    return p


def _lowest(dtype: str) -> float:
    return float(np.iinfo(dtype).min if "int" in dtype else np.finfo(dtype).min)


class _FoldPad(DFPatternCallback):
    def __init__(self):
        super().__init__(require_type=True)
        names = set(registry.list_op_names())
        self.x = wildcard()
        self.pad = is_op("nn.pad")(self.x, wildcard()) | is_op("nn.pad")(self.x)
        ops = [n for n in _CONVS if n in names]
        conv = is_op(ops[0])
        for n in ops[1:]:
            conv = conv | is_op(n)
        self.conv = conv(self.pad, wildcard())
        pools = [n for n in _AVG_POOLS + _MAX_POOLS if n in names]
        pool = is_op(pools[0])
        for n in pools[1:]:
            pool = pool | is_op(n)
        self.pattern = self.conv | pool(self.pad)
        if "qnn.conv2d" in names:  # padding with the input zero point (classic)
            self.pattern = self.pattern | is_op("qnn.conv2d")(
                self.pad, *[wildcard() for _ in range(5)])

    def callback(self, pre, post, node_map):
        pad = pre.args[0]
        if pad.attrs.pad_mode != "constant":
            return post
        if len(pad.args) == 2:
            if not isinstance(pad.args[1], Constant) or pad.args[1].data.numpy().ndim:
                return post
            value = float(pad.args[1].data.numpy())
            dtype = str(pad.args[1].data.dtype)
        else:
            value, dtype = float(pad.attrs.pad_value), pad.checked_type.dtype
        name = pre.op.name
        layout = pre.attrs.get("data_layout") or pre.attrs.get("layout") or ""
        extra = _spatial_padding(pad.attrs.pad_width, layout)
        if extra is None:
            return post
        n = len(extra) // 2
        padding = _full_padding(pre.attrs.padding, n)
        changes = {}
        if name in _MAX_POOLS:
            if value != _lowest(dtype):
                return post
        elif name == "qnn.conv2d":
            zp = pre.args[2]
            if not isinstance(zp, Constant) or zp.data.numpy().ndim \
                    or value != float(zp.data.numpy()):
                return post
        elif value != 0.0:
            return post
        elif name in _AVG_POOLS and not pre.attrs.count_include_pad:
            if any(padding):
                return post  # padding it excluded would now be counted
            changes["count_include_pad"] = True
        changes["padding"] = tuple(a + b for a, b in zip(padding, extra))
        args = [node_map[self.x][0]] + list(post.args[1:])
        return rebuild_call(pre, args, **changes)


def FoldExplicitPadding() -> Pass:  # noqa: N802
    """Fold explicit ``nn.pad`` ops into the convolutions and pools they feed
    (``relay.transform.FoldExplicitPadding()``)."""
    return function_pass(lambda f, mod, ctx: rewrite(_FoldPad(), f, mod), opt_level=0,
                         name="FoldExplicitPadding", required=["InferType"])
