"""``FlattenAtrousConv``: ``batch_to_space_nd(conv2d(space_to_batch_nd(x), w))`` (how
TensorFlow writes a dilated "atrous" convolution) becomes one NHWC conv2d of ``x`` with the
block shape as its dilation and "SAME" padding, as in classic relay."""
from __future__ import annotations

from ...ir.transform import Pass
from ..dataflow_pattern import DFPatternCallback, is_op, rewrite, wildcard
from ..expr import Call, post_order, rebuild_call
from ..op import registry
from .function_pass import function_pass


def _same_pad(size: int, kernel: int):
    """(before, after) padding that keeps ``size`` at stride 1 for a ``kernel``-wide window."""
    pad = max(kernel - 1, 0)
    return pad // 2, pad - pad // 2


class _FlattenAtrous(DFPatternCallback):
    def __init__(self):
        super().__init__(require_type=True)
        self.data, self.weight = wildcard(), wildcard()
        s2b = is_op("nn.space_to_batch_nd")(self.data)
        self.conv = is_op("nn.conv2d")(s2b, wildcard())
        if "qnn.conv2d" in registry.list_op_names():
            self.conv = self.conv | is_op("qnn.conv2d")(s2b, *[wildcard() for _ in range(5)])
        self.pattern = is_op("nn.batch_to_space_nd")(self.conv)

    def callback(self, pre, post, node_map):
        conv = node_map[self.conv][0]
        attrs = conv.attrs
        block = [int(b) for b in pre.attrs.block_shape]
        kernel = attrs.get("kernel_size")
        if (attrs.get("data_layout") or "NCHW") != "NHWC" or len(block) != 2 or not kernel:
            return post
        in_h, in_w = (int(d) for d in pre.args[0].args[0].args[0].checked_type.shape[1:3])
        kh = (int(kernel[0]) - 1) * block[0] + 1
        kw = (int(kernel[1]) - 1) * block[1] + 1
        (top, bottom), (left, right) = _same_pad(in_h, kh), _same_pad(in_w, kw)
        args = [node_map[self.data][0]] + list(conv.args[1:])
        return rebuild_call(conv, args, strides=(1, 1), padding=(top, left, bottom, right),
                            dilation=tuple(block))


def FlattenAtrousConv() -> Pass:  # noqa: N802
    """Fold space_to_batch_nd - conv2d - batch_to_space_nd into a dilated conv2d
    (``relay.transform.FlattenAtrousConv()``)."""
    return function_pass(_run, opt_level=0, name="FlattenAtrousConv", required=["InferType"])


def _run(func, mod, ctx):
    if not any(isinstance(n, Call) and getattr(n.op, "name", "") == "nn.batch_to_space_nd"
               for n in post_order(func)):
        return func  # nothing to flatten (relay.build runs this pass on every network)
    return rewrite(_FlattenAtrous(), func, mod)
