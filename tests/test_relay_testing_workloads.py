"""relay.testing: the classic test networks with random weights, built and run against a
numpy evaluation of the same graph (tests/models/numpy_reference.py; where torch is
installed, that evaluator is also checked against a torch one)."""
import numpy as np
import pytest
from models.numpy_reference import run_reference

import tvmlite as tvm
from tvmlite import relay
from tvmlite.contrib import graph_executor
from tvmlite.relay import testing


def _randomize_bn(params, seed=0):
    """relay.testing's batch norms are identities (gamma 1, beta 0, mean 0, var 1): give them
    non-trivial statistics so that the comparison sees them."""
    rng = np.random.default_rng(seed)
    out = dict(params)
    for k, v in params.items():
        shape = v.shape
        if k.endswith("_moving_mean"):
            new = rng.standard_normal(shape) * 0.1
        elif k.endswith("_moving_var"):
            new = rng.uniform(0.5, 1.5, shape)
        elif k.endswith("_gamma"):
            new = rng.uniform(0.5, 1.5, shape)
        elif k.endswith("_beta"):
            new = rng.standard_normal(shape) * 0.1
        else:
            continue
        out[k] = tvm.nd.array(new.astype("float32"))
    return out


def _check(mod, params, data_shape, rtol=1e-4, atol=1e-5, seed=0):
    rng = np.random.default_rng(seed)
    data = rng.uniform(-1, 1, size=data_shape).astype("float32")
    params = _randomize_bn(params, seed)
    with tvm.transform.PassContext(opt_level=3):
        lib = relay.build(mod, target="llvm", params=params)
    gm = graph_executor.GraphModule(lib["default"](tvm.cpu()))
    gm.set_input("data", data)
    gm.run()
    out = gm.get_output(0).numpy()
    ref = run_reference(mod["main"], {"data": data, **{k: v.numpy() for k, v in
                                                       params.items()}})
    assert out.shape == ref.shape
    np.testing.assert_allclose(out, ref, rtol=rtol, atol=atol)
    return out


def test_resnet18_shapes_and_params():
    mod, params = testing.resnet.get_workload(num_layers=18, batch_size=1,
                                              image_shape=(3, 224, 224))
    func = mod["main"]
    assert [p.name_hint for p in func.params][0] == "data"
    assert "data" not in params and len(params) == len(func.params) - 1
    assert params["conv0_weight"].shape == (64, 3, 7, 7)
    assert params["fc1_weight"].shape == (1000, 512)
    assert func.checked_type.ret_type == relay.TensorType((1, 1000), "float32")
    assert np.all(params["bn0_gamma"].numpy() == 1)
    assert np.all(params["bn0_moving_mean"].numpy() == 0)
    w = params["conv0_weight"].numpy()
    assert w.std() > 0 and np.abs(w).max() <= np.sqrt(3 / ((3 + 64) * 49 / 2)) + 1e-6
    # the same seed gives the same weights
    _, again = testing.resnet.get_workload(num_layers=18)
    np.testing.assert_array_equal(again["conv0_weight"].numpy(), w)


@pytest.mark.parametrize("num_layers,image_shape,batch", [(8, (3, 17, 17), 2),
                                                          (18, (3, 40, 40), 1)])
def test_resnet_small_variants_match_numpy(num_layers, image_shape, batch):
    mod, params = testing.resnet.get_workload(batch_size=batch, num_classes=11,
                                              num_layers=num_layers, image_shape=image_shape)
    out = _check(mod, params, (batch,) + image_shape)
    np.testing.assert_allclose(out.sum(axis=1), 1, rtol=1e-5)  # softmax rows


def test_resnet50_bottleneck_structure():
    mod, params = testing.resnet.get_workload(num_layers=50, num_classes=10,
                                              image_shape=(3, 64, 64))
    assert params["stage1_unit1_conv3_weight"].shape == (256, 64, 1, 1)
    assert params["stage4_unit1_sc_weight"].shape == (2048, 1024, 1, 1)


def test_mobilenet_small_matches_numpy():
    mod, params = testing.mobilenet.get_workload(batch_size=1, num_classes=7,
                                                 image_shape=(3, 33, 33), alpha=0.25)
    assert params["separable_conv_block_1_depthwise_conv1_weight"].shape == (8, 1, 3, 3)
    _check(mod, params, (1, 3, 33, 33))


def test_mobilenet_default_shapes():
    mod, params = testing.mobilenet.get_workload()
    assert mod["main"].checked_type.ret_type == relay.TensorType((1, 1000), "float32")
    assert params["fc_weight"].shape == (1000, 1024)


def test_mlp_matches_numpy():
    mod, params = testing.mlp.get_workload(batch_size=3, num_classes=10)
    assert params["fc1_weight"].shape == (128, 784)
    _check(mod, params, (3, 1, 28, 28))


def test_dcgan_small_matches_numpy():
    mod, params = testing.dcgan.get_workload(batch_size=2, oshape=(3, 64, 64), ngf=8,
                                             random_len=13)
    assert mod["main"].checked_type.ret_type == relay.TensorType((2, 3, 64, 64), "float32")
    _check(mod, params, (2, 13))


def test_create_workload_of_a_user_function():
    x = relay.var("data", shape=(2, 5))
    w = relay.var("my_weight", shape=(4, 5))
    b = relay.var("my_bias", shape=(4,))
    y = relay.nn.bias_add(relay.nn.dense(x, w), b)
    mod, params = testing.create_workload(relay.Function(relay.analysis.free_vars(y), y),
                                          seed=7)
    assert sorted(params) == ["my_bias", "my_weight"]
    assert np.all(params["my_bias"].numpy() == 0) and params["my_weight"].numpy().std() > 0
    with pytest.raises(tvm.TVMError, match="relay Function"):
        testing.create_workload("not a function")


def test_free_vars_and_all_vars():
    x = relay.var("x", shape=(3,))
    y = relay.var("y", shape=(3,))
    v = relay.var("v")
    body = relay.Let(v, relay.add(x, y), relay.multiply(v, x))
    assert [a.name_hint for a in relay.analysis.free_vars(body)] == ["x", "y"]
    assert {a.name_hint for a in relay.analysis.all_vars(body)} == {"x", "y", "v"}
    f = relay.Function([x], relay.add(x, y))
    assert [a.name_hint for a in relay.analysis.free_vars(f)] == ["y"]
    assert {a.name_hint for a in relay.analysis.all_vars(f)} == {"x", "y"}


@pytest.mark.parametrize("workload", ["resnet", "mobilenet", "dcgan"])
def test_numpy_reference_agrees_with_torch(workload):
    """The numpy evaluator against an independent one (torch's ops); skipped without torch."""
    pytest.importorskip("torch")
    from models import torch_reference
    if workload == "resnet":
        mod, params = testing.resnet.get_workload(batch_size=2, num_classes=11, num_layers=8,
                                                  image_shape=(3, 17, 17))
        shape = (2, 3, 17, 17)
    elif workload == "mobilenet":
        mod, params = testing.mobilenet.get_workload(num_classes=7, image_shape=(3, 33, 33),
                                                     alpha=0.25)
        shape = (1, 3, 33, 33)
    else:
        mod, params = testing.dcgan.get_workload(batch_size=2, oshape=(3, 64, 64), ngf=8,
                                                 random_len=13)
        shape = (2, 13)
    data = np.random.default_rng(3).uniform(-1, 1, size=shape).astype("float32")
    inputs = {"data": data, **{k: v.numpy() for k, v in _randomize_bn(params, 3).items()}}
    want = torch_reference.run_reference(mod["main"], inputs)
    np.testing.assert_allclose(run_reference(mod["main"], inputs), want, rtol=1e-9, atol=1e-12)


def test_inception_v3_structure():
    func = testing.inception_v3.get_net(2, 10, (3, 299, 299), "float32")
    func = relay.testing.run_infer_type(func)
    assert func.checked_type.ret_type == relay.TensorType((2, 10), "float32")
    convs = [n for n in relay.expr.post_order(func.body)
             if isinstance(n, relay.Call) and getattr(n.op, "name", "") == "nn.conv2d"]
    assert len(convs) == 94  # Inception-v3's convolutions
    by_name = {p.name_hint: p.checked_type.shape for p in func.params}
    assert len(by_name) == len(func.params)  # every parameter has a name of its own
    assert by_name["stem_0_conv_weight"] == (32, 3, 3, 3)
    assert by_name["mixed_4_tower1_0_conv_weight"] == (128, 768, 1, 1)  # 17x17: 768 channels
    assert by_name["mixed_9_conv_conv_weight"] == (320, 1280, 1, 1)  # 8x8: 1280 channels
    assert by_name["fc1_weight"] == (10, 2048)
    _, params = testing.inception_v3.get_workload(batch_size=1, num_classes=10)
    assert params["fc1_weight"].shape == (10, 2048) and "data" not in params
