"""Bad arguments to topi operators raise a TVMError naming the operator and the argument
when the compute is declared."""
import pytest

import tvmlite as tvm
from tvmlite import te, topi

X = te.placeholder((1, 4, 6, 6), name="X")
W = te.placeholder((8, 4, 3, 3), name="W")
WT = te.placeholder((4, 2, 3, 3), name="WT")


@pytest.mark.parametrize("call,match", [
    (lambda: topi.nn.conv2d_nchw(X, W, 0, 1), "conv2d_nchw: stride must be positive"),
    (lambda: topi.nn.conv2d_nchw(X, W, (1, -1), 1), "conv2d_nchw: stride"),
    (lambda: topi.nn.conv2d_nchw(X, W, 1, -1), "conv2d_nchw: padding must be non-negative"),
    (lambda: topi.nn.conv2d_nchw(X, W, 1, (0, 0, -1, 0)), "conv2d_nchw: padding"),
    (lambda: topi.nn.conv2d_nchw(X, W, 1, 1, 0), "conv2d_nchw: dilation must be positive"),
    (lambda: topi.nn.conv2d_nchw(X, te.placeholder((8, 4, 9, 3)), 1, 1),
     "conv2d_nchw: kernel height .* larger than the padded input"),
    (lambda: topi.nn.conv2d_nchw(X, W, 1, 0, 3), "conv2d_nchw: kernel height \\(dilated: 7\\)"),
    (lambda: topi.nn.conv2d_nchw(X, te.placeholder((8, 3, 3, 3)), 1, 1),
     "conv2d_nchw: Input channels"),
    (lambda: topi.nn.conv2d_nchw(te.placeholder((4, 6, 6)), W, 1, 1),
     "conv2d_nchw: Input must be 4-D"),
    (lambda: topi.nn.conv2d(X, W, 1, 1, 1, layout="NCWH"), "conv2d: layout"),
    (lambda: topi.nn.conv2d_nhwc(X, te.placeholder((3, 3, 5, 2)), 1, 1),
     "conv2d_nhwc: Input channels"),
    (lambda: topi.nn.group_conv2d_nchw(X, te.placeholder((8, 2, 3, 3)), 1, 1, 1, 3),
     "group_conv2d_nchw: groups=3 does not divide the 4 input channels"),
    (lambda: topi.nn.group_conv2d_nchw(X, te.placeholder((6, 1, 3, 3)), 1, 1, 1, 4),
     "group_conv2d_nchw: groups=4 does not divide the 6 output channels"),
    (lambda: topi.nn.group_conv2d_nchw(X, te.placeholder((8, 1, 3, 3)), 1, 1, 1, 2),
     "group_conv2d_nchw: Filter has 1 input channels per group"),
    (lambda: topi.nn.group_conv2d_nchw(X, W, 1, 1, 1, 0), "group_conv2d_nchw: groups"),
    (lambda: topi.nn.depthwise_conv2d_nchw(X, te.placeholder((3, 1, 3, 3)), 1, 1),
     "depthwise_conv2d_nchw: Input channels"),
    (lambda: topi.nn.depthwise_conv2d_nchw(X, te.placeholder((4, 1, 3, 3)), 1, -2),
     "depthwise_conv2d_nchw: padding"),
    (lambda: topi.nn.depthwise_conv2d_nhwc(X, te.placeholder((3, 3, 6, 1)), 1, 1,
                                           kernel_layout="OIHW"),
     "depthwise_conv2d_nhwc: kernel_layout"),
    (lambda: topi.nn.conv2d_NCHWc(te.placeholder((1, 2, 6, 6, 2)),
                                  te.placeholder((2, 2, 3, 3, 2, 4)), 1, 1, 1, "NCHW4c",
                                  "NCHW4c"), "conv2d_NCHWc: layout 'NCHW4c'"),
    (lambda: topi.nn.conv2d_NCHWc(te.placeholder((1, 2, 6, 6, 2)),
                                  te.placeholder((2, 2, 3, 3, 2, 4)), 1, 1, 1, "NHWC2c",
                                  "NCHW4c"), "conv2d_NCHWc: layout must look like"),
    (lambda: topi.nn.conv2d_NCHWc(X, W, 1, 1, 1, "NCHW4c", "NCHW4c"),
     "conv2d_NCHWc: data must be 5-D"),
    (lambda: topi.nn.conv2d_transpose_nchw(X, WT, 0, 0, "float32"),
     "conv2d_transpose_nchw: strides"),
    (lambda: topi.nn.conv2d_transpose_nchw(X, WT, 2, 0, "float32", (2, 0)),
     "conv2d_transpose_nchw: output_padding"),
    (lambda: topi.nn.conv2d_transpose_nchw(X, WT, 1, 3, "float32"),
     "conv2d_transpose_nchw: padding"),
    (lambda: topi.nn.pool2d(X, (2, 2), (0, 1)), "pool2d: stride must be positive"),
    (lambda: topi.nn.pool2d(X, (2, 2), (1, 1), padding=(0, -1, 0, 0)), "pool2d: padding"),
    (lambda: topi.nn.pool2d(X, (9, 2), (1, 1)), "pool2d: kernel height"),
    (lambda: topi.nn.pool2d(X, (2, 2), (1, 1), layout="NCDW"), "pool2d: layout"),
    (lambda: topi.nn.pool2d(X, (2, 2), (1, 1), layout="NHW"), "pool2d: layout 'NHW' has 3"),
    (lambda: topi.nn.pool2d(X, (2, 2), (1, 1), pool_type="min"), "pool2d: pool_type"),
    (lambda: topi.nn.global_pool(X, "max", layout="NC"), "global_pool: layout"),
    (lambda: topi.nn.adaptive_pool(X, (0, 2), "max"), "adaptive_pool: output_size"),
    (lambda: topi.nn.dilate(X, (1, 1, 0, 1)), "dilate: strides must be positive"),
    (lambda: topi.nn.dilate(X, (1, 1)), "dilate: strides has 2 entries"),
    (lambda: topi.nn.batch_norm(X, *[te.placeholder((3,))] * 4), "batch_norm: gamma"),
    (lambda: topi.nn.layer_norm(X, te.placeholder((6,)), te.placeholder((6,)), (2, 3)),
     "layer_norm: gamma"),
    (lambda: topi.nn.lrn(X, 4), "lrn: size must be odd"),
    (lambda: topi.nn.prelu(X, te.placeholder((3,))), "prelu: slope"),
    (lambda: topi.nn.softmax(X, 4), "softmax: axis 4"),
    (lambda: topi.nn.dense(te.placeholder((2, 3)), te.placeholder((4, 5))),
     "dense: data has 3 input features"),
    (lambda: topi.nn.batch_matmul(te.placeholder((2, 3, 4)), te.placeholder((3, 5, 4))),
     "batch_matmul: batch dimensions"),
    (lambda: topi.nn.upsampling(X, 2, 2, layout="HWCN"), "upsampling: layout"),
    (lambda: topi.image.resize2d(X, [0.0] * 4, (3, 3), method="cubicle"), "resize2d: method"),
    (lambda: topi.image.resize2d(X, [0.0] * 4, (3, 3), layout="NCWH"), "resize2d: layout"),
    (lambda: topi.split(X, 4, 2), "split: 4 sections"),
    (lambda: topi.strided_slice(X, [0], [2], [0]), "strided_slice: stride 0"),
    (lambda: topi.layout_transform(X, "NCHW", "NCHW4d"), "layout_transform"),
    (lambda: topi.layout_transform(X, "NCHW", "NCH"), "layout_transform"),
    (lambda: topi.take(X, 0, mode="raise"), "take: mode"),
])
def test_declaration_errors(call, match):
    with pytest.raises(tvm.TVMError, match=match):
        call()
