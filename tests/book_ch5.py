"""The GPU schedules of the book's chapter 5 (§5.2–5.8), as the book writes them; shared by the
GPU tests (``test_gpu_book_ch5.py``) and the benchmarks."""
import d2ltvm

from tvmlite import te

# §5.2 vector add --------------------------------------------------------------------------


def va_parallel(n, nt=64):
    A, B, C = d2ltvm.vector_add(n)
    s = te.create_schedule(C.op)
    bx, tx = s[C].split(C.op.axis[0], factor=nt)
    s[C].bind(bx, te.thread_axis("blockIdx.x"))
    s[C].bind(tx, te.thread_axis("threadIdx.x"))
    return s, (A, B, C)


# §5.3 broadcast add -----------------------------------------------------------------------


def bc_continuous(n, nt=64, nb=256):
    A, B, C = d2ltvm.broadcast_add((n, 1), (n, n))
    s = te.create_schedule(C.op)
    x, y = C.op.axis
    fused = s[C].fuse(x, y)
    if n * n > nb * nt:
        bx, tx = s[C].split(fused, nparts=nb)
        tx, xi = s[C].split(tx, nparts=nt)
    else:
        bx, tx = s[C].split(fused, factor=nt)
    s[C].bind(bx, te.thread_axis("blockIdx.x"))
    s[C].bind(tx, te.thread_axis("threadIdx.x"))
    return s, (A, B, C)


def bc_alternate(n, nt=64, nb=256):
    A, B, C = d2ltvm.broadcast_add((n, 1), (n, n))
    s = te.create_schedule(C.op)
    x, y = C.op.axis
    fused = s[C].fuse(x, y)
    if n * n > nb * nt:
        xo, xi = s[C].split(fused, factor=nb * nt)
        bx, tx = s[C].split(xi, factor=nt)
        s[C].reorder(bx, tx, xo)
    else:
        bx, tx = s[C].split(fused, factor=nt)
    s[C].bind(bx, te.thread_axis("blockIdx.x"))
    s[C].bind(tx, te.thread_axis("threadIdx.x"))
    return s, (A, B, C)


# §5.4 matrix multiplication ---------------------------------------------------------------


def matmul_gpu(n, block_size=16, tx=8, ty=4, tk=32):
    A, B, C = d2ltvm.matmul(n, n, n)
    s = te.create_schedule(C.op)
    A_shared = s.cache_read(A, "shared", [C])
    A_local = s.cache_read(A_shared, "local", [C])
    B_shared = s.cache_read(B, "shared", [C])
    B_local = s.cache_read(B_shared, "local", [C])
    C_local = s.cache_write(C, "local")
    x, y = s[C].op.axis
    xb, xo, xi = d2ltvm.split(s[C], x, (block_size, tx))
    yb, yo, yi = d2ltvm.split(s[C], y, (block_size, ty))
    s[C].reorder(xb, yb, xo, yo, xi, yi)
    d2ltvm.bind_thread(s[C], (yb, xb, yo, xo),
                       ("blockIdx.x", "blockIdx.y", "threadIdx.x", "threadIdx.y"))
    s[C_local].compute_at(s[C], yo)
    yi, xi = s[C_local].op.axis
    k, = s[C_local].op.reduce_axis
    ko, ki = s[C_local].split(k, tk)
    s[C_local].reorder(ko, ki, yi, xi)

    def optimize_read_cache(shared, local):
        s[shared].compute_at(s[C_local], ko)
        s[local].compute_at(s[C_local], ki)
        y, x = s[shared].op.axis
        yo, yi = s[shared].split(y, nparts=block_size)
        xo, xi = s[shared].split(x, nparts=block_size)
        s[shared].reorder(yo, xo, yi, xi)
        d2ltvm.bind_thread(s[shared], (yo, xo), ("threadIdx.y", "threadIdx.x"))

    optimize_read_cache(A_shared, A_local)
    optimize_read_cache(B_shared, B_local)
    return s, (A, B, C)


# §5.5 convolution -------------------------------------------------------------------------


def conv_default(oc, ic, n, k, p, s):
    X, K, Y, PaddedX = d2ltvm.conv(oc, ic, n, n, k, k, p, p, s, s)
    sch = te.create_schedule(Y.op)
    sch[PaddedX].compute_inline()
    _, y, x = sch[Y].op.axis
    sch[Y].bind(y, te.thread_axis("blockIdx.x"))
    sch[Y].bind(x, te.thread_axis("threadIdx.x"))
    return sch, (X, K, Y)


def _conv_cached(oc, ic, n, k, p, s, tile_c, tile_h, tile_w, tile_rc, tile_rh, tile_rw):
    """§5.5.3 tiling (two-part tiles) and §5.5.4 virtual threads (three-part tiles)."""
    X, K, Y, PaddedX = d2ltvm.conv(oc, ic, n, n, k, k, p, p, s, s)
    sch = te.create_schedule(Y.op)
    sch[PaddedX].compute_inline()
    YL = sch.cache_write(Y, 'local')
    XX = sch.cache_read(PaddedX, 'shared', [YL])
    KK = sch.cache_read(K, 'shared', [YL])
    XL = sch.cache_read(XX, 'local', [YL])
    KL = sch.cache_read(KK, 'local', [YL])
    c, h, w = sch[Y].op.axis
    vt = len(tile_c) == 3
    cs = d2ltvm.split_axis(tile_c, sch, Y, c)
    hs = d2ltvm.split_axis(tile_h, sch, Y, h)
    ws = d2ltvm.split_axis(tile_w, sch, Y, w)
    for ax, tag in zip((cs[0], hs[0], ws[0]), ("blockIdx.z", "blockIdx.y", "blockIdx.x")):
        sch[Y].bind(ax, te.thread_axis(tag))
    if vt:
        for ax in (cs[1], hs[1], ws[1]):
            sch[Y].bind(ax, te.thread_axis("vthread"))
    for ax, tag in zip((cs[-2], hs[-2], ws[-2]), ("threadIdx.z", "threadIdx.y", "threadIdx.x")):
        sch[Y].bind(ax, te.thread_axis(tag))
    sch[Y].reorder(*[axes[i] for i in range(len(cs)) for axes in (cs, hs, ws)])
    sch[YL].compute_at(sch[Y], ws[-2])
    c, h, w = sch[YL].op.axis
    rc, rh, rw = sch[YL].op.reduce_axis
    rco, rcm, rci = d2ltvm.split_axis(tile_rc, sch, YL, rc)
    rho, rhm, rhi = d2ltvm.split_axis(tile_rh, sch, YL, rh)
    rwo, rwm, rwi = d2ltvm.split_axis(tile_rw, sch, YL, rw)
    sch[YL].reorder(rco, rho, rwo, rcm, rhm, rwm, rci, rhi, rwi, c, h, w)
    sch[XX].compute_at(sch[YL], rwo)
    sch[KK].compute_at(sch[YL], rwo)
    sch[XL].compute_at(sch[YL], rwm)
    sch[KL].compute_at(sch[YL], rwm)
    for load in [XX, KK]:
        fused = sch[load].fuse(*sch[load].op.axis)
        tz, fused = sch[load].split(fused, nparts=tile_c[-2])
        ty, fused = sch[load].split(fused, nparts=tile_h[-2])
        tx, _ = sch[load].split(fused, nparts=tile_w[-2])
        sch[load].bind(tz, te.thread_axis("threadIdx.z"))
        sch[load].bind(ty, te.thread_axis("threadIdx.y"))
        sch[load].bind(tx, te.thread_axis("threadIdx.x"))
    return sch, (X, K, Y)


def conv_tiling(oc, ic, n, k, p, s):
    return _conv_cached(oc, ic, n, k, p, s, [4, 8], [2, 2], [16, 4], [1, 1], [1, 1], [1, 3])


def conv_vthread(oc, ic, n, k, p, s):
    return _conv_cached(oc, ic, n, k, p, s, [1, 4, 8], [1, 2, 2], [2, 16, 2], [1, 1],
                        [1, 3], [1, 1])


# §5.6 depthwise convolution ---------------------------------------------------------------


def depthwise_default(ic, n, k, p, s):
    X, K, Y, PaddedX = d2ltvm.depthwise_conv(ic, n, n, k, k, p, p, s, s)
    sch = te.create_schedule(Y.op)
    sch[PaddedX].compute_inline()
    _, y, x = sch[Y].op.axis
    sch[Y].bind(y, te.thread_axis("blockIdx.x"))
    sch[Y].bind(x, te.thread_axis("threadIdx.x"))
    return sch, (X, K, Y)


def depthwise_schedule(ic, n, k, p, s, tile_c=(1, 1), tile_h=(2, 8), tile_w=(64, 1)):
    X, K, Y, PaddedX = d2ltvm.depthwise_conv(ic, n, n, k, k, p, p, s, s)
    sch = te.create_schedule(Y.op)
    sch[PaddedX].compute_inline()
    YL = sch.cache_write(Y, 'local')
    XX = sch.cache_read(PaddedX, 'shared', [YL])
    KK = sch.cache_read(K, 'shared', [YL])
    XL = sch.cache_read(XX, 'local', [YL])
    KL = sch.cache_read(KK, 'local', [YL])
    c, h, w = sch[Y].op.axis
    bc, tc, ic = d2ltvm.split_axis(tile_c, sch, Y, c)
    bh, th, ih = d2ltvm.split_axis(tile_h, sch, Y, h)
    bw, tw, iw = d2ltvm.split_axis(tile_w, sch, Y, w)
    sch[Y].bind(bc, te.thread_axis("blockIdx.z"))
    sch[Y].bind(bh, te.thread_axis("blockIdx.y"))
    sch[Y].bind(bw, te.thread_axis("blockIdx.x"))
    sch[Y].bind(tc, te.thread_axis("threadIdx.z"))
    sch[Y].bind(th, te.thread_axis("threadIdx.y"))
    sch[Y].bind(tw, te.thread_axis("threadIdx.x"))
    sch[Y].reorder(bc, bh, bw, tc, th, tw, ic, ih, iw)
    sch[YL].compute_at(sch[Y], tw)
    sch[XX].compute_at(sch[Y], bw)
    sch[KK].compute_at(sch[Y], bw)
    sch[XL].compute_at(sch[Y], tw)
    sch[KL].compute_at(sch[Y], tw)
    for load in [XX, KK]:
        fused = sch[load].fuse(*sch[load].op.axis)
        tz, fused = sch[load].split(fused, nparts=tile_c[0])
        ty, fused = sch[load].split(fused, nparts=tile_h[0])
        tx, _ = sch[load].split(fused, nparts=tile_w[0])
        sch[load].bind(tz, te.thread_axis("threadIdx.z"))
        sch[load].bind(ty, te.thread_axis("threadIdx.y"))
        sch[load].bind(tx, te.thread_axis("threadIdx.x"))
    return sch, (X, K, Y)


# §5.7 pooling ----------------------------------------------------------------------------


def pool_max(c, n, k, nt=1024):
    X, Y, PaddedX = d2ltvm.pool('max', c, n, n, k, k, 1, 1, 1, 1)
    sch = te.create_schedule(Y.op)
    sch[PaddedX].compute_inline()
    fused = sch[Y].fuse(*sch[Y].op.axis)
    bx, tx = sch[Y].split(fused, factor=nt)
    sch[Y].bind(bx, te.thread_axis("blockIdx.x"))
    sch[Y].bind(tx, te.thread_axis("threadIdx.x"))
    return sch, (X, Y)


def pool_avg(c, n, k, nt=1024):
    X, Y, PaddedX = d2ltvm.pool('avg', c, n, n, k, k, 1, 1, 1, 1)
    sch = te.create_schedule(Y.op)
    sch[PaddedX].compute_inline()
    fused = sch[Y].fuse(*sch[Y].op.axis)
    bx, tx = sch[Y].split(fused, factor=nt)
    sch[Y].bind(bx, te.thread_axis("blockIdx.x"))
    sch[Y].bind(tx, te.thread_axis("threadIdx.x"))
    PoolSum = Y.op.input_tensors[0]
    sch[PoolSum].compute_at(sch[Y], tx)
    return sch, (X, Y)


# §5.8 batch norm -------------------------------------------------------------------------


def bn_default(c, n):
    X, Mean, Var, Gamma, Beta, Y = d2ltvm.batch_norm(c, n)
    sch = te.create_schedule(Y.op)
    te.schedule.AutoInlineInjective(sch)
    c, h, w = Y.op.axis[0:3]
    sch[Y].bind(c, te.thread_axis("blockIdx.x"))
    sch[Y].bind(h, te.thread_axis("threadIdx.x"))
    return sch, (X, Mean, Var, Gamma, Beta, Y)
