"""from_onnx: the operators current exporters write (opsets 11-18), one small model each,
compiled with relay.build and compared with onnxruntime on random inputs at odd sizes."""
import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from relay_helpers import onnxruntime_outputs, run_onnx  # noqa: E402

import tvmlite as tvm  # noqa: E402
from tvmlite import relay  # noqa: E402

_TP = {"float32": TensorProto.FLOAT, "int64": TensorProto.INT64, "bool": TensorProto.BOOL,
       "int32": TensorProto.INT32, "uint8": TensorProto.UINT8}


def _model(nodes, inputs, outputs, inits=(), opset=17):
    """inputs: (name, array) pairs, whose shapes and dtypes the model declares."""
    g = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info(n, _TP[str(a.dtype)], a.shape)
                     for n, a in inputs],
        [helper.make_empty_tensor_value_info(n) for n in outputs],
        [numpy_helper.from_array(np.asarray(v), k) for k, v in dict(inits).items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def _check(nodes, inputs, outputs=("y",), inits=(), opset=17, rtol=1e-5, atol=1e-5,
           freeze_params=False):
    model = _model(nodes, inputs, list(outputs), inits, opset)
    feeds = dict(inputs)
    expect = onnxruntime_outputs(model, feeds)
    got = run_onnx(model, feeds, freeze_params)
    assert len(got) == len(expect)
    for g, e in zip(got, expect):
        assert g.shape == e.shape and g.dtype == e.dtype
        np.testing.assert_allclose(g, e, rtol=rtol, atol=atol)


def _r(rng, *shape):
    return rng.standard_normal(shape).astype("float32")


def _i64(*v):
    return np.array(v, dtype="int64")


@pytest.mark.parametrize("op", ["Sqrt", "Exp", "Log", "Tanh", "Sigmoid", "Erf", "Abs", "Neg",
                                "Floor", "Ceil", "Reciprocal"])
def test_unary(rng, op):
    x = _r(rng, 3, 7, 5)
    if op in ("Sqrt", "Log", "Reciprocal"):
        x = np.abs(x) + 0.1
    _check([helper.make_node(op, ["x"], ["y"])], [("x", x)])


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_opset20(rng, approximate):
    _check([helper.make_node("Gelu", ["x"], ["y"], approximate=approximate)],
           [("x", _r(rng, 3, 11))], opset=20)


def test_pow_where_compare_cast(rng):
    x, z = np.abs(_r(rng, 4, 9)) + 0.2, _r(rng, 9)
    nodes = [helper.make_node("Pow", ["x", "e"], ["p"]),
             helper.make_node("Greater", ["p", "z"], ["g"]),
             helper.make_node("Equal", ["x", "x"], ["eq"]),
             helper.make_node("And", ["g", "eq"], ["c"]),
             helper.make_node("Where", ["c", "p", "z"], ["w"]),
             helper.make_node("Cast", ["c"], ["ci"], to=TensorProto.INT64),
             helper.make_node("Cast", ["w"], ["y"], to=TensorProto.FLOAT),
             helper.make_node("Max", ["x", "z", "w"], ["m"]),
             helper.make_node("LeakyRelu", ["z"], ["lr"], alpha=0.3),
             helper.make_node("Clip", ["x", "lo", ""], ["cl"])]
    _check(nodes, [("x", x), ("z", z)], ["y", "ci", "m", "lr", "cl"],
           inits={"e": np.float32(1.7), "lo": np.float32(0.5)})


@pytest.mark.parametrize("op, opset, axes, keepdims", [
    ("ReduceMean", 13, [-1], 1), ("ReduceMean", 18, [1, 2], 0), ("ReduceSum", 13, [0], 1),
    ("ReduceSum", 11, None, 0), ("ReduceMax", 18, [2], 0), ("ReduceMin", 13, [1], 1)])
def test_reductions_axes_attribute_or_input(rng, op, opset, axes, keepdims):
    as_input = axes is not None and (opset >= 18 or (op == "ReduceSum" and opset >= 13))
    ins = ["x", "axes"] if as_input else ["x"]
    kw = {} if as_input or axes is None else {"axes": axes}
    inits = {"axes": _i64(*axes)} if as_input else {}
    _check([helper.make_node(op, ins, ["y"], keepdims=keepdims, **kw)],
           [("x", _r(rng, 3, 5, 7))], inits=inits, opset=opset)


def test_shape_arithmetic_folds_into_reshape(rng):
    """Shape -> Gather -> Unsqueeze -> Concat -> Reshape, as torch exports x.view(b, -1)."""
    nodes = [helper.make_node("Shape", ["x"], ["s"]),
             helper.make_node("Gather", ["s", "zero"], ["b"], axis=0),
             helper.make_node("Unsqueeze", ["b", "ax0"], ["bu"]),
             helper.make_node("Concat", ["bu", "minus1"], ["shape"], axis=0),
             helper.make_node("Reshape", ["x", "shape"], ["r"]),
             helper.make_node("ConstantOfShape", ["shape2"], ["ones"],
                              value=numpy_helper.from_array(np.array([1.0], "float32"))),
             helper.make_node("Add", ["r", "ones"], ["y"])]
    _check(nodes, [("x", _r(rng, 3, 5, 7))],
           inits={"zero": np.array(0, "int64"), "ax0": _i64(0), "minus1": _i64(-1),
                  "shape2": _i64(3, 35)})


def test_slice_gather_expand_split_squeeze(rng):
    x = _r(rng, 4, 6, 9)
    nodes = [helper.make_node("Slice", ["x", "st", "en", "ax", "sp"], ["sl"]),
             helper.make_node("Gather", ["x", "idx"], ["ga"], axis=2),
             helper.make_node("Gather", ["x", "dyn_idx"], ["gd"], axis=1),
             helper.make_node("Expand", ["b", "eshape"], ["ex"]),
             helper.make_node("Split", ["x", "split"], ["s0", "s1"], axis=2),
             helper.make_node("Split", ["x"], ["t0", "t1", "t2"], axis=1, num_outputs=3),
             helper.make_node("Unsqueeze", ["s0", "ax_u"], ["u"]),
             helper.make_node("Squeeze", ["u", "ax_u"], ["sq"])]
    _check(nodes, [("x", x), ("b", _r(rng, 6, 1)),
                   ("dyn_idx", np.array([[0, -1], [5, 2]], "int64"))],
           ["sl", "ga", "gd", "ex", "s1", "t2", "u", "sq"], opset=18,
           inits={"st": _i64(1, -2), "en": _i64(4, -2 ** 62), "ax": _i64(1, 2),
                  "sp": _i64(2, -3), "idx": _i64(0, -1, 3, 3), "eshape": _i64(4, 6, 5),
                  "split": _i64(4, 5), "ax_u": _i64(0, 2)})


def test_pad_resize_layernorm(rng):
    x = _r(rng, 1, 3, 5, 7)
    nodes = [helper.make_node("Pad", ["x", "pads", "cv"], ["p"]),
             helper.make_node("Resize", ["x", "", "scales"], ["rn"], mode="nearest"),
             helper.make_node("Resize", ["x", "", "", "sizes"], ["rl"], mode="linear"),
             helper.make_node("LayerNormalization", ["x", "g", "bb"], ["ln"], axis=-1,
                              epsilon=1e-3)]
    _check(nodes, [("x", x)], ["p", "rn", "rl", "ln"],
           inits={"pads": _i64(0, 1, 2, 0, 0, 0, 1, 3), "cv": np.float32(0.5),
                  "scales": np.array([1, 1, 2, 2], "float32"), "sizes": _i64(1, 3, 8, 11),
                  "g": _r(rng, 7), "bb": _r(rng, 7)})


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax"])
def test_softmax_log_softmax(rng, op):
    _check([helper.make_node(op, ["x"], ["y"], axis=1)], [("x", _r(rng, 2, 5, 3))])


@pytest.mark.parametrize("attrs", [{"strides": [2, 2], "pads": [1, 1, 1, 1]},
                                   {"strides": [2, 3], "output_padding": [1, 2]},
                                   {"strides": [2, 2], "auto_pad": "SAME_UPPER"}])
def test_conv_transpose(rng, attrs):
    _check([helper.make_node("ConvTranspose", ["x", "w", "b"], ["y"], **attrs)],
           [("x", _r(rng, 1, 3, 5, 6))], inits={"w": _r(rng, 3, 4, 3, 3), "b": _r(rng, 4)},
           rtol=1e-4)


@pytest.mark.parametrize("a_shape, b_shape", [
    ((2, 5, 7), (2, 7, 3)), ((2, 3, 5, 7), (2, 3, 7, 4)), ((2, 3, 5, 7), (7, 4)),
    ((3, 5, 7), (1, 7, 4)), ((2, 1, 5, 7), (3, 7, 6)), ((5, 7), (3, 7, 2))])
def test_matmul_batched(rng, a_shape, b_shape):
    _check([helper.make_node("MatMul", ["a", "b"], ["y"])],
           [("a", _r(rng, *a_shape)), ("b", _r(rng, *b_shape))], rtol=1e-4)


def test_constant_weight_transposes_fold_under_freeze(rng):
    nodes = [helper.make_node("Transpose", ["w"], ["wt"], perm=[1, 0]),
             helper.make_node("MatMul", ["x", "wt"], ["y"])]
    _check(nodes, [("x", _r(rng, 3, 5))], inits={"w": _r(rng, 4, 5)}, freeze_params=True,
           rtol=1e-4)


def test_bad_inputs_name_the_node(rng):
    m = _model([helper.make_node("Pad", ["x", "pads"], ["y"], mode="reflect", name="pd")],
               [("x", _r(rng, 2, 3))], ["y"], inits={"pads": _i64(1, 1, 1, 1)})
    with pytest.raises(tvm.TVMError, match="Pad \\(node 'pd'\\): mode 'reflect'"):
        relay.frontend.from_onnx(m)
    m = _model([helper.make_node("Gather", ["x", "i"], ["y"], name="gt")],
               [("x", _r(rng, 2, 3))], ["y"], inits={"i": _i64(3)})
    with pytest.raises(tvm.TVMError, match="Gather \\(node 'gt'\\): indices out of range"):
        relay.frontend.from_onnx(m)
    m = _model([helper.make_node("MatMul", ["a", "b"], ["y"], name="mm")],
               [("a", _r(rng, 2, 3, 4)), ("b", _r(rng, 3, 5, 2))], ["y"])
    with pytest.raises(tvm.TVMError, match="MatMul \\(node 'mm'\\)"):
        relay.frontend.from_onnx(m)


# ------------------------------------------------ operators on the relay ops added later
@pytest.mark.parametrize("op", ["Sign", "Tan", "Sinh", "Cosh", "Asin", "Acos", "Atan",
                                "Asinh", "Acosh", "Atanh"])
def test_more_unary(rng, op):
    x = rng.uniform(-0.9, 0.9, (3, 7)).astype("float32")
    if op == "Acosh":
        x = x + 2.0
    if op == "Sign":
        x[0, :2] = 0
    _check([helper.make_node(op, ["x"], ["y"])], [("x", x)])


def test_isnan_isinf(rng):
    x = _r(rng, 4, 5)
    x[0, 0], x[1, 1], x[2, 2] = np.nan, np.inf, -np.inf
    _check([helper.make_node("IsNaN", ["x"], ["n"]), helper.make_node("IsInf", ["x"], ["i"]),
            helper.make_node("IsInf", ["x"], ["p"], detect_negative=0),
            helper.make_node("IsInf", ["x"], ["m"], detect_positive=0)],
           [("x", x)], ["n", "i", "p", "m"])


@pytest.mark.parametrize("op, axis, keepdims, last", [("ArgMax", 1, 1, 0), ("ArgMin", -1, 0, 0),
                                                      ("ArgMax", 0, 0, 1)])
def test_argmax_argmin(rng, op, axis, keepdims, last):
    x = rng.integers(0, 3, (4, 5, 3)).astype("float32")  # ties
    _check([helper.make_node(op, ["x"], ["y"], axis=axis, keepdims=keepdims,
                             select_last_index=last)], [("x", x)])


def test_reduce_prod_min(rng):
    x = rng.uniform(0.5, 1.5, (3, 4, 5)).astype("float32")
    _check([helper.make_node("ReduceProd", ["x", "ax"], ["p"], keepdims=0),
            helper.make_node("ReduceMin", ["x", "ax"], ["m"])], [("x", x)], ["p", "m"],
           opset=18, inits={"ax": _i64(0, -1)}, rtol=1e-4)


def test_tile_gather_elements_gather_nd(rng):
    x = _r(rng, 3, 4, 5)
    ge = rng.integers(-4, 4, (3, 2, 5)).astype("int64")
    gnd = np.stack([rng.integers(-3, 3, (2, 6)), rng.integers(0, 4, (2, 6))], -1).astype(
        "int64")
    bnd = rng.integers(0, 4, (3, 2, 1)).astype("int64")
    _check([helper.make_node("Tile", ["x", "reps"], ["t"]),
            helper.make_node("GatherElements", ["x", "ge"], ["e"], axis=1),
            helper.make_node("GatherND", ["x", "gnd"], ["n"]),
            helper.make_node("GatherND", ["x", "bnd"], ["b"], batch_dims=1)],
           [("x", x), ("ge", ge), ("gnd", gnd), ("bnd", bnd)], ["t", "e", "n", "b"],
           inits={"reps": _i64(2, 1, 3)})


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_one_hot(rng, axis):
    ind = rng.integers(-5, 5, (3, 4)).astype("int64")
    _check([helper.make_node("OneHot", ["i", "depth", "vals"], ["y"], axis=axis)],
           [("i", ind)], inits={"depth": np.array(5, "int64"),
                                "vals": np.array([-1.0, 3.0], "float32")})


def test_range_trilu(rng):
    x = _r(rng, 2, 4, 5)
    _check([helper.make_node("Range", ["s", "l", "d"], ["r"]),
            helper.make_node("Add", ["x", "r"], ["a"]),
            helper.make_node("Trilu", ["a", "k"], ["u"]),
            helper.make_node("Trilu", ["x"], ["lo"], upper=0)], [("x", x)], ["u", "lo"],
           inits={"s": np.array(0.5, "float32"), "l": np.array(3.0, "float32"),
                  "d": np.array(0.5, "float32"), "k": np.array(-1, "int64")})


@pytest.mark.parametrize("mode", ["DCR", "CRD"])
def test_depth_space(rng, mode):
    x = _r(rng, 2, 8, 3, 5)
    _check([helper.make_node("DepthToSpace", ["x"], ["d"], blocksize=2, mode=mode),
            helper.make_node("SpaceToDepth", ["d"], ["y"], blocksize=2)], [("x", x)],
           ["d", "y"])


def test_instance_norm_lrn_global_max_pool(rng):
    x = _r(rng, 2, 5, 4, 3)
    _check([helper.make_node("InstanceNormalization", ["x", "g", "b"], ["i"], epsilon=1e-3),
            helper.make_node("LRN", ["x"], ["l"], size=3, alpha=1e-2, beta=0.7, bias=1.5),
            helper.make_node("GlobalMaxPool", ["x"], ["m"])], [("x", x)], ["i", "l", "m"],
           inits={"g": _r(rng, 5), "b": _r(rng, 5)}, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("xs, ws, attrs", [
    ((2, 3, 17), (4, 3, 3), {"pads": [1, 2], "strides": [2]}),
    ((1, 4, 12), (4, 2, 3), {"group": 2, "strides": [2], "auto_pad": "SAME_UPPER"}),
    ((1, 4, 12), (2, 4, 3), {"dilations": [2], "pads": [0, 1]}),
    ((1, 2, 5, 6, 7), (3, 2, 3, 2, 3), {"pads": [1, 0, 1, 1, 1, 0], "strides": [1, 2, 2]}),
])
def test_conv_1d_3d(rng, xs, ws, attrs):
    _check([helper.make_node("Conv", ["x", "w", "b"], ["y"], **attrs)], [("x", _r(rng, *xs))],
           inits={"w": _r(rng, *ws), "b": _r(rng, ws[0])}, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("op, xs, attrs", [
    ("MaxPool", (2, 3, 13), {"kernel_shape": [3], "strides": [2], "pads": [1, 1]}),
    ("AveragePool", (2, 3, 13), {"kernel_shape": [4], "strides": [3], "pads": [1, 2],
                                 "ceil_mode": 1, "count_include_pad": 1}),
    ("MaxPool", (1, 2, 5, 6, 7), {"kernel_shape": [2, 3, 2], "strides": [2, 1, 2]}),
    ("AveragePool", (1, 2, 5, 6, 7), {"kernel_shape": [3, 2, 2], "pads": [1, 0, 1, 1, 0, 1]}),
])
def test_pool_1d_3d(rng, op, xs, attrs):
    _check([helper.make_node(op, ["x"], ["y"], **attrs)], [("x", _r(rng, *xs))])


@pytest.mark.parametrize("exclusive, reverse", [(0, 0), (1, 0), (0, 1), (1, 1)])
def test_cumsum(rng, exclusive, reverse):
    _check([helper.make_node("CumSum", ["x", "ax"], ["y"], exclusive=exclusive,
                             reverse=reverse)], [("x", _r(rng, 3, 6))],
           inits={"ax": np.array(-1, "int64")})


@pytest.mark.parametrize("slope_shape", [(1,), (5, 1, 1), (1, 5, 1, 1), (7,), (5, 1, 7)])
def test_prelu_slope_broadcasts(rng, slope_shape):
    x = _r(rng, 2, 5, 3, 7)
    slope = rng.uniform(0.05, 0.5, slope_shape).astype("float32")
    _check([helper.make_node("PRelu", ["x", "s"], ["y"])], [("x", x), ("s", slope)])
    _check([helper.make_node("PRelu", ["x", "s"], ["y"])], [("x", x)], inits={"s": slope})


@pytest.mark.parametrize("axis", [-1, 1, 0])
def test_lp_normalization_l2(rng, axis):
    x = _r(rng, 3, 5, 7)
    _check([helper.make_node("LpNormalization", ["x"], ["y"], axis=axis, p=2)], [("x", x)])


def test_lp_normalization_l1_is_a_clear_error(rng):
    model = _model([helper.make_node("LpNormalization", ["x"], ["y"], p=1)],
                   [("x", _r(rng, 2, 3))], ["y"])
    with pytest.raises(tvm.TVMError, match="LpNormalization .*p=1 is not supported"):
        relay.frontend.from_onnx(model)


# ------------------------------------------ activations and reductions composed of relay ops
@pytest.mark.parametrize("op, attrs", [
    ("Elu", {}), ("Elu", {"alpha": 0.3}), ("Selu", {}), ("Selu", {"alpha": 1.2, "gamma": 0.7}),
    ("Celu", {"alpha": 2.0}), ("HardSigmoid", {}), ("HardSigmoid", {"alpha": 0.4, "beta": 0.1}),
    ("HardSwish", {}), ("Softplus", {}), ("Softsign", {}), ("Mish", {}),
    ("ThresholdedRelu", {"alpha": 0.5}), ("Shrink", {}), ("Shrink", {"lambd": 1.0, "bias": 0.5}),
    ("Round", {})])
def test_activations(rng, op, attrs):
    x = (rng.standard_normal((3, 7, 5)) * 4).astype("float32")
    x[0, 0, :4] = [0.5, 1.5, -2.5, 80.0]  # round's ties go to even; softplus far out
    _check([helper.make_node(op, ["x"], ["y"], **attrs)], [("x", x)],
           opset=18 if op == "Mish" else 17)


@pytest.mark.parametrize("op, opset, axes, keepdims", [
    ("ReduceL1", 13, [1], 1), ("ReduceL2", 18, [0, 2], 0), ("ReduceSumSquare", 13, None, 0),
    ("ReduceLogSum", 18, [2], 1), ("ReduceLogSumExp", 13, [-1], 0)])
def test_composed_reductions(rng, op, opset, axes, keepdims):
    x = rng.uniform(0.1, 3.0, (3, 5, 7)).astype("float32")
    if op == "ReduceLogSumExp":
        x = x * 40  # exp overflows float32 unless computed stably
    as_input = axes is not None and opset >= 18
    kw = {} if as_input or axes is None else {"axes": axes}
    _check([helper.make_node(op, ["x", "axes"] if as_input else ["x"], ["y"],
                             keepdims=keepdims, **kw)],
           [("x", x)], inits={"axes": _i64(*axes)} if as_input else {}, opset=opset, rtol=1e-4)


def test_mean_mod_xor_bitshift_castlike_size_eyelike(rng):
    a, b, c = _r(rng, 4, 5), _r(rng, 1, 5), _r(rng, 4, 1)
    i = rng.integers(-9, 9, (4, 5)).astype("int32")
    j = (rng.integers(1, 5, (4, 5)) * np.where(rng.random((4, 5)) < 0.5, -1, 1)).astype("int32")
    p, q = rng.random((4, 5)) < 0.5, rng.random((4, 5)) < 0.5
    u = np.array([1, 7, 255, 16], "uint8")
    s = np.array([1, 2, 3, 0], "uint8")
    nodes = [helper.make_node("Mean", ["a", "b", "c"], ["mean"]),
             helper.make_node("Mod", ["i", "j"], ["mod"]),
             helper.make_node("Mod", ["i", "j"], ["fmod"], fmod=1),
             helper.make_node("Mod", ["a", "b"], ["ffmod"], fmod=1),
             helper.make_node("Xor", ["p", "q"], ["xor"]),
             helper.make_node("BitShift", ["u", "s"], ["shl"], direction="LEFT"),
             helper.make_node("BitShift", ["u", "s"], ["shr"], direction="RIGHT"),
             helper.make_node("CastLike", ["i", "a"], ["castlike"]),
             helper.make_node("Size", ["a"], ["size"]),
             helper.make_node("EyeLike", ["a"], ["eye"], k=1),
             helper.make_node("EyeLike", ["i"], ["eyef"], k=-2, dtype=TensorProto.FLOAT)]
    _check(nodes, [("a", a), ("b", b), ("c", c), ("i", i), ("j", j), ("p", p), ("q", q),
                   ("u", u), ("s", s)],
           ["mean", "mod", "fmod", "ffmod", "xor", "shl", "shr", "castlike", "size", "eye",
            "eyef"])


@pytest.mark.parametrize("opset, axes", [(17, None), (17, [1]), (17, [0, 1, 2, 3])])
def test_mean_variance_normalization(rng, opset, axes):
    kw = {} if axes is None else {"axes": axes}
    _check([helper.make_node("MeanVarianceNormalization", ["x"], ["y"], **kw)],
           [("x", _r(rng, 2, 3, 5, 7))], opset=opset, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("opset, groups", [(18, 3), (18, 1), (21, 2)])
def test_group_normalization(rng, opset, groups):
    x = _r(rng, 2, 6, 5, 3)
    n = groups if opset < 21 else 6
    _check([helper.make_node("GroupNormalization", ["x", "scale", "bias"], ["y"],
                             num_groups=groups, epsilon=1e-3)],
           [("x", x)], inits={"scale": _r(rng, n), "bias": _r(rng, n)}, opset=opset,
           rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("opset, axis", [(13, -1), (13, 1), (11, 1), (11, 2)])
def test_hardmax(rng, opset, axis):
    x = _r(rng, 3, 4, 5)
    x[0, 0, :2] = 9.0  # ties: the first index wins
    _check([helper.make_node("Hardmax", ["x"], ["y"], axis=axis)], [("x", x)], opset=opset)


@pytest.mark.parametrize("mode, opset", [("nearest", 9), ("linear", 9), ("nearest", 7)])
def test_upsample(rng, mode, opset):
    x = _r(rng, 1, 2, 3, 5)
    if opset == 7:
        node = helper.make_node("Upsample", ["x"], ["y"], mode=mode, scales=[1.0, 1.0, 2.0, 3.0])
        _check([node], [("x", x)], opset=7)
    else:
        node = helper.make_node("Upsample", ["x", "s"], ["y"], mode=mode)
        _check([node], [("x", x)], inits={"s": np.array([1, 1, 3, 2], "float32")},
               opset=9)


@pytest.mark.parametrize("time_axis, batch_axis", [(0, 1), (1, 0)])
def test_reverse_sequence(rng, time_axis, batch_axis):
    x = _r(rng, 4, 3, 5) if time_axis == 0 else _r(rng, 3, 4, 5)
    lens = np.array([4, 1, 3], "int64")
    _check([helper.make_node("ReverseSequence", ["x", "lens"], ["y"], time_axis=time_axis,
                             batch_axis=batch_axis)], [("x", x), ("lens", lens)])


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_compress_with_a_constant_condition(rng, axis):
    x = _r(rng, 4, 5)
    n = 20 if axis is None else x.shape[axis]
    cond = rng.random(n - 1) < 0.5  # shorter than the axis: the rest is dropped
    cond[0] = True
    kw = {} if axis is None else {"axis": axis}
    _check([helper.make_node("Compress", ["x", "c"], ["y"], **kw)], [("x", x)],
           inits={"c": cond})


def test_torch_exported_activations_and_group_norm():
    torch = pytest.importorskip("torch")
    import io

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
            self.gn = torch.nn.GroupNorm(2, 8)
            self.acts = [torch.nn.Hardswish(), torch.nn.Hardsigmoid(), torch.nn.Mish(),
                         torch.nn.Softplus(), torch.nn.ELU(0.5), torch.nn.SELU(),
                         torch.nn.CELU(1.5), torch.nn.Softsign(), torch.nn.Hardshrink(0.3)]

        def forward(self, x):
            y = self.gn(self.conv(x))
            return torch.stack([a(y) for a in self.acts]).sum(0)

    torch.manual_seed(0)
    net, x = Net().eval(), torch.randn(2, 3, 9, 7)
    buf = io.BytesIO()
    torch.onnx.export(net, (x,), buf, opset_version=17, dynamo=False)
    model = onnx.load_from_string(buf.getvalue())
    assert {"HardSwish", "Celu", "Selu", "Softplus"} <= {n.op_type for n in model.graph.node}
    got = run_onnx(model, {model.graph.input[0].name: x.numpy()})
    with torch.no_grad():
        expect = net(x).numpy()
    np.testing.assert_allclose(got[0], expect, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("xs, attrs, how", [
    ((1, 2, 7), {"mode": "linear"}, ("scales", [1, 1, 2.0])),
    ((1, 2, 7), {"mode": "nearest", "nearest_mode": "floor",
                 "coordinate_transformation_mode": "asymmetric"}, ("sizes", [1, 2, 12])),
    ((1, 2, 3, 4, 5), {"mode": "linear"}, ("sizes", [1, 2, 5, 3, 8])),
    ((1, 2, 3, 4, 5), {"mode": "nearest", "nearest_mode": "round_prefer_ceil"},
     ("scales", [1, 1, 2.0, 0.5, 1.0])),
    ((2, 3, 6, 5), {"mode": "cubic"}, ("sizes", [2, 3, 11, 9])),
    ((2, 3, 6, 5), {"mode": "cubic", "cubic_coeff_a": -0.5, "exclude_outside": 1,
                    "coordinate_transformation_mode": "align_corners"}, ("sizes", [2, 3, 4, 9])),
    ((2, 3, 6, 5), {"mode": "linear", "coordinate_transformation_mode": "pytorch_half_pixel"},
     ("sizes", [2, 3, 1, 7])),
    ((1, 2, 6, 5), {"mode": "linear", "coordinate_transformation_mode": "tf_crop_and_resize",
                    "extrapolation_value": -1.5}, ("roi", [0, 0, 0.2, -0.1, 1, 1, 0.9, 1.2])),
])
def test_resize_ranks_modes_and_regions(rng, xs, attrs, how):
    x = _r(rng, *xs)
    kind, values = how
    inits, ins = {}, ["x", "", "", ""]
    if kind == "roi":
        inits = {"roi": np.array(values, "float32"), "sizes": _i64(xs[0], xs[1], 5, 7)}
        ins = ["x", "roi", "", "sizes"]
    elif kind == "scales":
        inits, ins[2] = {"scales": np.array(values, "float32")}, "scales"
    else:
        inits, ins[3] = {"sizes": _i64(*values)}, "sizes"
    while not ins[-1]:
        ins.pop()
    _check([helper.make_node("Resize", ins, ["y"], **attrs)], [("x", x)], inits=inits,
           opset=13, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("mode", ["nearest", "linear", "cubic"])
@pytest.mark.parametrize("coord", ["half_pixel", "asymmetric", "pytorch_half_pixel",
                                   "align_corners"])
@pytest.mark.parametrize("scales", [[1, 1, 1.5, 1.7], [1, 1, 0.6, 0.75]])
def test_resize_non_integer_scales_map_by_the_scale(rng, mode, coord, scales):
    # 5 * 1.5 = 7.5 -> 7 rows: ONNX maps an output row back by 1 / 1.5, not by 5 / 7
    x = _r(rng, 1, 2, 5, 7)
    _check([helper.make_node("Resize", ["x", "", "scales"], ["y"], mode=mode,
                             coordinate_transformation_mode=coord)], [("x", x)],
           inits={"scales": np.array(scales, "float32")}, opset=13, rtol=1e-4, atol=1e-5)


def test_upsample_non_integer_scales(rng):
    # 4 * 1.7 = 6.8 -> 6 rows: row 3 reads row floor(3 / 1.7) = 1, not floor(3 * 4 / 6) = 2
    x = _r(rng, 1, 2, 4, 7)
    _check([helper.make_node("Upsample", ["x", "s"], ["y"], mode="nearest")], [("x", x)],
           inits={"s": np.array([1, 1, 1.7, 2.5], "float32")}, opset=9)


def test_resize_axes_attribute_opset18(rng):
    x = _r(rng, 1, 2, 4, 6)
    _check([helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], mode="linear",
                             axes=[3, 2])], [("x", x)], inits={"sizes": _i64(9, 5)}, opset=18,
           rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("axis, reduction", [(0, "none"), (1, "add"), (-1, "mul"),
                                             (0, "max"), (1, "min")])
def test_scatter_elements(rng, axis, reduction):
    x = _r(rng, 4, 5)
    idx_shape = (3, 5) if axis == 0 else (4, 2)
    size = x.shape[axis]
    idx = rng.integers(-size, size, idx_shape).astype("int64")  # negative ones count back
    if reduction == "none":  # one update per position (duplicates are unordered)
        idx = np.stack([rng.permutation(size)[:idx_shape[0]] for _ in range(idx_shape[1])], 1) \
            if axis == 0 else idx
        idx = idx - size * (rng.random(idx.shape) < 0.5)
    kw = {} if reduction == "none" else {"reduction": reduction}
    _check([helper.make_node("ScatterElements", ["x", "i", "u"], ["y"], axis=axis, **kw)],
           [("x", x), ("i", idx), ("u", _r(rng, *idx_shape))], opset=18, rtol=1e-5)


@pytest.mark.parametrize("reduction", ["none", "add"])
def test_scatter_nd(rng, reduction):
    x = _r(rng, 4, 5, 3)
    idx = np.array([[[0, 1], [3, 4]], [[2, 0], [1, 2]]], "int64")  # (2, 2, 2): rows of (i, j)
    upd = _r(rng, 2, 2, 3)
    kw = {} if reduction == "none" else {"reduction": reduction}
    _check([helper.make_node("ScatterND", ["x", "i", "u"], ["y"], **kw)],
           [("x", x), ("i", idx), ("u", upd)], opset=16)
