"""The CPU schedules of the book's chapter 4 (§4.3–4.11), as the book writes them; shared by
the tests (``test_seed_book_ch4.py``) and the benchmarks (``bench/bench_book_ch4.py``)."""
import d2ltvm
import numpy as np

from tvmlite import te

# §4.3 vector add -------------------------------------------------------------------------


def va_default(n):
    A, B, C = d2ltvm.vector_add(n)
    s = te.create_schedule(C.op)
    return s, (A, B, C)


def va_parallel(n):
    s, (A, B, C) = va_default(n)
    s[C].parallel(C.op.axis[0])
    return s, (A, B, C)


def va_vectorized(n):
    s, (A, B, C) = va_default(n)
    outer, inner = s[C].split(C.op.axis[0], factor=8)
    s[C].parallel(outer)
    s[C].vectorize(inner)
    return s, (A, B, C)


# §4.4 broadcast add ----------------------------------------------------------------------


def bc_default(n):
    A, B, C = d2ltvm.broadcast_add((n, 1), (n, n))
    s = te.create_schedule(C.op)
    return s, (A, B, C)


def bc_good(n):
    s, (A, B, C) = bc_default(n)
    x, y = C.op.axis
    s[C].parallel(x)
    s[C].vectorize(y)
    return s, (A, B, C)


def bc_bad(n):
    s, (A, B, C) = bc_default(n)
    x, y = C.op.axis
    s[C].reorder(y, x)
    s[C].parallel(y)
    s[C].vectorize(x)
    return s, (A, B, C)


# §4.5 matmul -----------------------------------------------------------------------------


def mm_default(n):
    A, B, C = d2ltvm.matmul(n, n, n)
    return te.create_schedule(C.op), (A, B, C)


def mm_reorder(n):
    s, (A, B, C) = mm_default(n)
    (x, y), (k,) = C.op.axis, C.op.reduce_axis
    s[C].reorder(x, k, y)
    return s, (A, B, C)


def mm_parallel(n):
    s, (A, B, C) = mm_reorder(n)
    s[C].parallel(C.op.axis[0])
    return s, (A, B, C)


# §4.6 blocking ---------------------------------------------------------------------------
tx, ty, tk = 32, 32, 4


def mm_block(n):
    A, B, C = d2ltvm.matmul(n, n, n)
    s = te.create_schedule(C.op)
    xo, yo, xi, yi = s[C].tile(*C.op.axis, tx, ty)
    xy = s[C].fuse(xo, yo)
    s[C].parallel(xy)
    ko, ki = s[C].split(s[C].op.reduce_axis[0], factor=tk)
    s[C].reorder(ko, xi, ki, yi)
    s[C].vectorize(yi)
    s[C].unroll(ki)
    return s, (A, B, C)


def mm_cached_block(n):
    A, B, C = d2ltvm.matmul(n, n, n)
    s = te.create_schedule(C.op)
    CachedC = s.cache_write(C, 'local')
    xo, yo, xi, yi = s[C].tile(*C.op.axis, tx, ty)
    xy = s[C].fuse(xo, yo)
    s[C].parallel(xy)
    s[CachedC].compute_at(s[C], xy)
    xc, yc = s[CachedC].op.axis
    ko, ki = s[CachedC].split(CachedC.op.reduce_axis[0], factor=tk)
    s[CachedC].reorder(ko, xc, ki, yc)
    s[CachedC].unroll(ki)
    s[CachedC].vectorize(yc)
    return s, (A, B, C)


# §4.7 blocked convolution ----------------------------------------------------------------
th, tw = 8, 8


def conv_cached_block(oc, ic, n, k, p, s):
    X, K, Y, PaddedX = d2ltvm.conv(oc, ic, n, n, k, k, p, p, s, s)
    s = te.create_schedule(Y.op)
    CachedY = s.cache_write(Y, 'local')
    oc, h, w = Y.op.axis
    ho, wo, hi, wi = s[Y].tile(h, w, th, tw)
    ochw = s[Y].fuse(oc, ho, wo)
    s[Y].parallel(ochw)
    s[CachedY].compute_at(s[Y], ochw)
    _, ch, cw = CachedY.op.axis
    ric, rkh, rkw = CachedY.op.reduce_axis
    s[CachedY].reorder(ric, rkh, rkw, ch, cw)
    s[CachedY].vectorize(cw)
    s[CachedY].unroll(ch)
    if PaddedX != X:
        s[PaddedX].parallel(PaddedX.op.axis[0])
    return s, (X, K, Y)


# §4.8 packed convolution -----------------------------------------------------------------


def conv_pack(oc, ic, nh, nw, kh, kw, ph, pw, toc, tic):
    X = te.placeholder((ic, nh, nw), name='X')
    K = te.placeholder((oc, ic, kh, kw), name='K')
    PaddedX = d2ltvm.padding(X, ph, pw) if ph * pw != 0 else X
    assert ic % tic == 0 and oc % toc == 0
    PackedX = te.compute(
        (ic // tic, nh + ph * 2, nw + pw * 2, tic),
        lambda ic_out, x, y, ic_in: PaddedX[ic_out * tic + ic_in, x, y],
        name='PackedX')
    PackedK = te.compute(
        (oc // toc, ic // tic, kh, kw, tic, toc),
        lambda oc_out, ic_out, x, y, ic_in, oc_in: K[
            oc_out * toc + oc_in, ic_out * tic + ic_in, x, y],
        name='PackedK')
    return X, K, PaddedX, PackedX, PackedK


def packed_conv(oc, ic, nh, nw, kh, kw, ph, pw, sh, sw, toc, tic):
    X, K, PaddedX, PackedX, PackedK = conv_pack(oc, ic, nh, nw, kh, kw, ph, pw, toc, tic)
    ric_in = te.reduce_axis((0, tic), name='ric_in')
    ric_out = te.reduce_axis((0, ic // tic), name='ric_out')
    rkh = te.reduce_axis((0, kh), name='rkh')
    rkw = te.reduce_axis((0, kw), name='rkw')
    oh = d2ltvm.conv_out_size(nh, kh, ph, sh)
    ow = d2ltvm.conv_out_size(nw, kw, pw, sw)
    PackedY = te.compute(
        (oc // toc, oh, ow, toc),
        lambda oc_out, x, y, oc_in: te.sum(
            PackedX[ric_out, x * sh + rkh, y * sw + rkw, ric_in] *
            PackedK[oc_out, ric_out, rkh, rkw, ric_in, oc_in],
            axis=[ric_out, rkh, rkw, ric_in]), name='Y')
    Y = te.compute((oc, oh, ow),
                   lambda oc, x, y: PackedY[oc // toc, x, y, oc % toc],
                   name='Y')
    return X, K, Y, PaddedX, PackedX, PackedK, PackedY


def packed_cached_block(oc, ic, n, k, p, s, toc=16, tic=16, tw=4):
    X, K, Y, PaddedX, PackedX, PackedK, PackedY = packed_conv(
        oc, ic, n, n, k, k, p, p, s, s, toc, tic)
    s = te.create_schedule(Y.op)
    CachedY = s.cache_write(PackedY, 'local')
    oc_out, h, w, oc_in = s[PackedY].op.axis
    oc_out_h = s[PackedY].fuse(oc_out, h)
    s[PackedY].parallel(oc_out_h)
    w_out, w_in = s[PackedY].split(w, factor=tw)
    s[CachedY].compute_at(s[PackedY], w_out)
    _, _, cw, oc_in = CachedY.op.axis
    ric_out, rkh, rkw, ric_in = CachedY.op.reduce_axis
    s[CachedY].reorder(ric_out, rkh, rkw, ric_in, cw, oc_in)
    s[CachedY].unroll(ric_in)
    s[CachedY].unroll(cw)
    s[CachedY].vectorize(oc_in)
    if PaddedX != X:
        s[PaddedX].parallel(PaddedX.op.axis[0])
    s[PackedX].parallel(s[PackedX].fuse(*PackedX.op.axis[0:2]))
    s[PackedX].unroll(PackedX.op.axis[-1])
    s[PackedK].parallel(s[PackedK].fuse(*PackedK.op.axis[0:2]))
    s[PackedK].unroll(PackedK.op.axis[-1])
    s[Y].parallel(s[Y].fuse(*Y.op.axis[0:2]))
    s[Y].unroll(Y.op.axis[-1])
    return s, (X, K, Y)


# §4.9 depthwise convolution --------------------------------------------------------------


def depthwise_conv_pack(c, nh, nw, kh, kw, ph, pw, tc):
    X = te.placeholder((c, nh, nw), name='X')
    K = te.placeholder((c, 1, kh, kw), name='K')
    PaddedX = d2ltvm.padding(X, ph, pw) if ph * pw != 0 else X
    if c < tc:
        tc = c
    assert c % tc == 0
    PackedX = te.compute(
        (c // tc, nh + ph * 2, nw + pw * 2, tc),
        lambda c_out, x, y, c_in: PaddedX[c_out * tc + c_in, x, y],
        name='PackedX')
    PackedK = te.compute(
        (c // tc, 1, kh, kw, 1, tc),
        lambda c_out, _, x, y, __, c_in: K[c_out * tc + c_in, 0, x, y],
        name='PackedK')
    return X, K, PaddedX, PackedX, PackedK


def packed_depthwise_conv(c, nh, nw, kh, kw, ph, pw, sh, sw, tc):
    X, K, PaddedX, PackedX, PackedK = depthwise_conv_pack(c, nh, nw, kh, kw, ph, pw, tc)
    rkh = te.reduce_axis((0, kh), name='rkh')
    rkw = te.reduce_axis((0, kw), name='rkw')
    oh = d2ltvm.conv_out_size(nh, kh, ph, sh)
    ow = d2ltvm.conv_out_size(nw, kw, pw, sw)
    PackedY = te.compute(
        (c // tc, oh, ow, tc),
        lambda c_out, x, y, c_in: te.sum(
            (PackedX[c_out, x * sh + rkh, y * sw + rkw, c_in] *
             PackedK[c_out, 0, rkh, rkw, 0, c_in]),
            axis=[rkh, rkw]), name='PackedY')
    Y = te.compute((c, oh, ow), lambda c, x, y: PackedY[c // tc, x, y, c % tc], name='Y')
    return X, K, Y, PaddedX, PackedX, PackedK, PackedY


def depthwise_cached_block(c, n, k, p, s, tc=16, tw=4):
    X, K, Y, PaddedX, PackedX, PackedK, PackedY = packed_depthwise_conv(
        c, n, n, k, k, p, p, s, s, tc)
    sch = te.create_schedule(Y.op)
    CachedY = sch.cache_write(PackedY, 'global')
    c_out, h, w, c_in = sch[PackedY].op.axis
    w_out, w_in = sch[PackedY].split(w, factor=tw)
    sch[PackedY].reorder(c_out, h, w_out, w_in, c_in)
    c_out_h = sch[PackedY].fuse(c_out, h)
    sch[PackedY].parallel(c_out_h)
    sch[CachedY].compute_at(sch[PackedY], w_out)
    cc_out, ch, cw, cc_in = sch[CachedY].op.axis
    kh, kw = sch[CachedY].op.reduce_axis
    sch[CachedY].reorder(cc_out, ch, kh, kw, cw, cc_in)
    sch[CachedY].vectorize(cc_in)
    sch[CachedY].unroll(cw)
    if PaddedX != X:
        sch[PaddedX].parallel(PaddedX.op.axis[0])
    sch[PackedX].parallel(sch[PackedX].fuse(*PackedX.op.axis[0:2]))
    sch[PackedX].unroll(PackedX.op.axis[-1])
    sch[PackedK].parallel(sch[PackedK].fuse(*PackedK.op.axis[0:2]))
    sch[PackedK].unroll(PackedK.op.axis[-1])
    sch[Y].parallel(sch[Y].fuse(*Y.op.axis[0:2]))
    sch[Y].unroll(Y.op.axis[-1])
    return sch, (X, K, Y)


# §4.10 pooling ---------------------------------------------------------------------------


def default_max(size):
    c, n, k = size[:]
    X, Y, PaddedX = d2ltvm.pool('max', c, n, n, k, k, 1, 1, 1, 1)
    sch = te.create_schedule(Y.op)
    return sch, (X, Y)


def optimized_max(size):
    sch, (X, Y) = default_max(size)
    te.schedule.AutoInlineInjective(sch)
    c, h, w = Y.op.axis[0:3]
    fused = sch[Y].fuse(c, h)
    sch[Y].parallel(fused)
    sch[Y].vectorize(w)
    return sch, (X, Y)


def default_avg(size):
    c, n, k = size[:]
    X, Y, PaddedX = d2ltvm.pool('avg', c, n, n, k, k, 1, 1, 1, 1)
    sch = te.create_schedule(Y.op)
    return sch, (X, Y)


def schedule_avg(size):
    sch, (X, Y) = default_avg(size)
    te.schedule.AutoInlineInjective(sch)
    c, h, w = Y.op.axis[0:3]
    fused = sch[Y].fuse(c, h)
    sch[Y].parallel(fused)
    sch[Y].vectorize(w)
    PoolSum = Y.op.input_tensors[0]
    sch[PoolSum].compute_at(sch[Y], Y.op.axis[2])
    return sch, (X, Y)


# §4.11 batch norm ------------------------------------------------------------------------


def default_bn(size):
    c, n = size[:]
    X, Mean, Var, Gamma, Beta, Y = d2ltvm.batch_norm(c, n)
    sch = te.create_schedule(Y.op)
    return sch, (X, Mean, Var, Gamma, Beta, Y)


def optimized_bn(size):
    sch, (X, Mean, Var, Gamma, Beta, Y) = default_bn(size)
    te.schedule.AutoInlineInjective(sch)
    c, h, w = Y.op.axis[0:3]
    fused = sch[Y].fuse(c, h)
    sch[Y].parallel(fused)
    sch[Y].vectorize(w)
    return sch, (X, Mean, Var, Gamma, Beta, Y)


# numpy references ------------------------------------------------------------------------


def conv_ref(data, weight, p, s, depthwise=False):
    x = np.pad(data, ((0, 0), (p, p), (p, p))).astype('float64')
    k = weight.shape[-1]
    win = np.lib.stride_tricks.sliding_window_view(x, (k, k), axis=(1, 2))[:, ::s, ::s]
    if depthwise:
        return np.einsum('chwij,cij->chw', win, weight[:, 0].astype('float64'))
    return np.einsum('chwij,ocij->ohw', win, weight.astype('float64'))


def pool_ref(kind, data, k, p, s):
    fill = -np.inf if kind == 'max' else 0.0
    x = np.pad(data, ((0, 0), (p, p), (p, p)), constant_values=fill)
    win = np.lib.stride_tricks.sliding_window_view(x, (k, k), axis=(1, 2))[:, ::s, ::s]
    return win.max(axis=(-2, -1)) if kind == 'max' else win.mean(axis=(-2, -1))
