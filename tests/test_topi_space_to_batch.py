"""topi.nn.space_to_batch_nd / batch_to_space_nd, depth_to_space's modes and
topi.vision.reorg, built and compared with element-by-element numpy loops (and the
topi.testing references with those loops)."""
import itertools

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, topi
from tvmlite.topi import testing as ref
from tvmlite.topi.utils import TopiError

RNG = np.random.default_rng(7)


def run(out, inputs, arrays, schedule=None):
    s = (schedule or topi.generic.schedule_injective)(out)
    f = tvm.build(s, list(inputs) + [out], "llvm")
    res = tvm.nd.array(np.zeros([int(x) for x in out.shape], out.dtype))
    f(*[tvm.nd.array(a) for a in arrays], res)
    return res.numpy()


def s2b_loops(x, blocks, lo, hi, value):
    m, n = len(blocks), x.shape[0]
    padded = [x.shape[i + 1] + lo[i] + hi[i] for i in range(m)]
    out = np.empty([n * int(np.prod(blocks))] + [p // b for p, b in zip(padded, blocks)]
                   + list(x.shape[m + 1:]), x.dtype)
    for idx in itertools.product(*[range(d) for d in out.shape]):
        bpos, src_n = divmod(idx[0], n)
        offs = np.unravel_index(bpos, blocks)
        src = [idx[1 + i] * blocks[i] + offs[i] - lo[i] for i in range(m)]
        inside = all(0 <= s < x.shape[i + 1] for i, s in enumerate(src))
        out[idx] = x[(src_n, *src, *idx[m + 1:])] if inside else value
    return out


CASES = [([3, 3, 2, 1], [3], [0], [0]), ([3, 3, 2, 1], [3], [1], [2]),
         ([2, 3, 4, 5, 2], [3, 4, 2], [1, 0, 3], [2, 0, 0]),
         ([1, 5, 7], [2, 3], [1, 0], [0, 2]), ([3, 3, 4, 5, 2], [3, 4, 2, 2], [1, 4, 0, 0],
                                               [2, 0, 1, 0])]


@pytest.mark.parametrize("shape,blocks,lo,hi", CASES)
def test_space_to_batch_nd(shape, blocks, lo, hi):
    x = RNG.uniform(size=shape).astype("float32")
    A = te.placeholder(shape, name="A")
    want = s2b_loops(x, blocks, lo, hi, -2.5)
    np.testing.assert_array_equal(ref.space_to_batch_nd_python(x, blocks, lo, hi, -2.5), want)
    np.testing.assert_array_equal(
        run(topi.nn.space_to_batch_nd(A, blocks, lo, hi, -2.5), [A], [x]), want)


@pytest.mark.parametrize("shape,blocks,lo,hi", CASES)
def test_batch_to_space_nd_inverts_space_to_batch(shape, blocks, lo, hi):
    x = RNG.uniform(size=shape).astype("float32")
    y = s2b_loops(x, blocks, lo, hi, 0.0)
    B = te.placeholder(y.shape, name="B")
    np.testing.assert_array_equal(ref.batch_to_space_nd_python(y, blocks, lo, hi), x)
    np.testing.assert_array_equal(run(topi.nn.batch_to_space_nd(B, blocks, lo, hi), [B], [y]), x)


def test_batch_to_space_nd_crops_odd_sizes():
    y = RNG.uniform(size=(12, 3, 5, 2)).astype("float32")
    B = te.placeholder(y.shape, name="B")
    out = run(topi.nn.batch_to_space_nd(B, [2, 3], [1, 2], [0, 1]), [B], [y])
    assert out.shape == (2, 5, 12, 2)
    for n, h, w, c in itertools.product(range(2), range(5), range(12), range(2)):
        hh, ww = h + 1, w + 2
        src = ((hh % 2) * 3 + ww % 3) * 2 + n
        assert out[n, h, w, c] == y[src, hh // 2, ww // 3, c]


def test_space_batch_errors():
    A = te.placeholder((4, 5, 6), name="A")
    with pytest.raises(TopiError, match="does not divide"):
        topi.nn.space_to_batch_nd(A, [2], [0], [0])
    with pytest.raises(TopiError, match="multiple of prod"):
        topi.nn.batch_to_space_nd(A, [3], [0], [0])
    with pytest.raises(TopiError, match="block_shape"):
        topi.nn.space_to_batch_nd(A, [1, 1, 1], [0, 0, 0], [0, 0, 0])


@pytest.mark.parametrize("mode", ["DCR", "CDR", "CRD"])
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_depth_to_space_modes(mode, layout):
    b, n, c, h, w = 3, 2, 18, 3, 5
    x = RNG.uniform(size=(n, c, h, w)).astype("float32")
    want = np.empty((n, c // 9, h * b, w * b), "float32")
    for i, k, y, z in itertools.product(range(n), range(c // 9), range(h * b), range(w * b)):
        blk = (y % b) * b + z % b
        src = blk * (c // 9) + k if mode == "DCR" else k * 9 + blk
        want[i, k, y, z] = x[i, src, y // b, z // b]
    np.testing.assert_array_equal(ref.depth_to_space_python(x, b, mode), want)
    if layout == "NHWC":
        x, want = x.transpose(0, 2, 3, 1), want.transpose(0, 2, 3, 1)
    A = te.placeholder(x.shape, name="A")
    out = run(topi.nn.depth_to_space(A, b, layout, mode), [A], [np.ascontiguousarray(x)])
    np.testing.assert_array_equal(out, want)
    with pytest.raises(TopiError, match="mode"):
        topi.nn.depth_to_space(A, b, layout, "RDC")


def reorg_loops(x, s):
    n, c, h, w = x.shape
    oc, flat, out = c // (s * s), x.reshape(-1), np.empty(x.size, x.dtype)
    pos = 0
    for b, k, j, i in itertools.product(range(n), range(c), range(h), range(w)):
        off = k // oc
        h2, w2 = j * s + off // s, i * s + off % s
        out[pos] = flat[w2 + w * s * (h2 + h * s * (k % oc + oc * b))]
        pos += 1
    return out.reshape(n, c * s * s, h // s, w // s)


@pytest.mark.parametrize("shape,stride", [((1, 8, 20, 20), 2), ((2, 9, 6, 3), 3),
                                          ((3, 4, 2, 4), 2), ((2, 5, 3, 7), 1)])
@pytest.mark.parametrize("sched", ["generic", "cuda"])
def test_reorg(shape, stride, sched):
    x = RNG.uniform(size=shape).astype("float32")
    want = reorg_loops(x, stride)
    np.testing.assert_array_equal(ref.reorg_python(x, stride), want)
    A = te.placeholder(shape, name="A")
    out = topi.vision.reorg(A, stride)
    if sched == "generic":
        np.testing.assert_array_equal(run(out, [A], [x], topi.generic.schedule_reorg), want)
    else:  # the GPU schedule binds threads; checked by lowering on the CPU
        with tvm.target.Target("cuda"):
            s = topi.cuda.schedule_reorg([out])
        assert "threadIdx.x" in str(tvm.lower(s, [A, out]))
    with pytest.raises(TopiError, match="must divide"):
        topi.vision.reorg(te.placeholder((1, 6, 4, 4), name="B"), 2)
