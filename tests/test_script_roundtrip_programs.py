"""Every IR the seed programs produce round-trips through TVMScript: the scheduled TensorIR
function and its lowered form both print, parse back and compare structurally equal."""
import book_ch4 as b
import d2ltvm
import pytest
from test_seed_conv1d_schedules import (
    make_conv1d_cpu_scheduler_v0,
    make_conv1d_cpu_scheduler_v2,
    make_conv1d_cpu_scheduler_v3,
    make_conv1d_cpu_scheduler_v4,
    template_schedule,
)

import tvmlite as tvm
from tvmlite.te.schedule import schedule_to_prim_func


def _programs():
    yield "conv1d_v0", lambda: _unpack(make_conv1d_cpu_scheduler_v0(64, 8))
    yield "conv1d_v2", lambda: _unpack(make_conv1d_cpu_scheduler_v2(64, 8))
    yield "conv1d_v3", lambda: _unpack(make_conv1d_cpu_scheduler_v3(64, 8))
    yield "conv1d_v4", lambda: _unpack(make_conv1d_cpu_scheduler_v4(64, 8))
    yield "conv1d_template", lambda: template_schedule(64, 8, 7, 4, True, 8)
    yield "vadd_vectorized", lambda: b.va_vectorized(100)
    yield "bcast_bad", lambda: b.bc_bad(32)
    yield "mm_block", lambda: b.mm_block(64)
    yield "mm_cached_block", lambda: b.mm_cached_block(64)
    yield "conv_cached_block", lambda: b.conv_cached_block(4, 4, 12, 3, 1, 1)
    yield "packed_conv", lambda: b.packed_cached_block(16, 16, 8, 3, 1, 1)
    yield "depthwise", lambda: b.depthwise_cached_block(16, 8, 3, 1, 1)
    yield "avg_pool", lambda: b.schedule_avg((4, 12, 3))
    yield "bn", lambda: b.optimized_bn((4, 8))
    yield "bcast_add", lambda: _default(*d2ltvm.broadcast_add((3, 1), (1, 4)))


def _unpack(t):
    s, *args = t
    return s, args


def _default(*tensors):
    from tvmlite import te

    return te.create_schedule(tensors[-1].op), list(tensors)


@pytest.mark.parametrize("name,make", list(_programs()), ids=[n for n, _ in _programs()])
def test_roundtrip(name, make):
    s, args = make()
    func = schedule_to_prim_func(s, list(args))
    tvm.ir.assert_structural_equal(tvm.script.from_source(func.script()), func)
    mod = tvm.lower(s, list(args))
    tvm.ir.assert_structural_equal(tvm.script.from_source(mod.script()), mod)
