"""Per-target schedule lookup of classic ``topi.testing`` (``get_injective_schedule``…)."""
from __future__ import annotations

from typing import Any, Callable, Dict

from ... import topi
from ...target import Target


def _injective() -> Dict[str, Any]:
    return {"generic": topi.generic.schedule_injective, "cpu": topi.x86.schedule_injective,
            "gpu": topi.cuda.schedule_injective}


def _reduce() -> Dict[str, Any]:
    return {"generic": topi.generic.schedule_reduce, "cpu": topi.x86.schedule_reduce,
            "gpu": topi.cuda.schedule_reduce}


def _conv2d_nchw() -> Dict[str, Any]:
    return {"generic": (topi.nn.conv2d_nchw, topi.generic.schedule_conv2d_nchw),
            "cpu": (topi.x86.conv2d_nchw, topi.x86.schedule_conv2d_nchw),
            "gpu": (topi.cuda.conv2d_nchw, topi.cuda.schedule_conv2d_nchw)}


def dispatch(target, dispatch_map: Dict[str, Any]) -> Any:
    """The entry of ``dispatch_map`` for the first of the target's keys it has, else its
    ``"generic"`` entry."""
    if isinstance(target, str):
        target = Target(target)
    for key in target.keys:
        if key in dispatch_map:
            return dispatch_map[key]
    return dispatch_map["generic"]


def get_injective_schedule(target) -> Callable:
    """The injective schedule for ``target``."""
    return dispatch(target, _injective())


def get_reduce_schedule(target) -> Callable:
    """The reduction schedule for ``target``."""
    return dispatch(target, _reduce())


get_broadcast_schedule = get_injective_schedule
get_elemwise_schedule = get_injective_schedule


def get_conv2d_nchw_implement(target) -> tuple:
    """``(compute, schedule)`` of NCHW conv2d for ``target``."""
    return dispatch(target, _conv2d_nchw())


def compare_numpy_tvm(inputs, output, target, device, compute: Callable,
                      schedule: Callable) -> None:
    """Build ``schedule([compute(*placeholders)])`` for ``target`` (one placeholder per array
    of ``inputs``, of its shape and dtype), run it on ``device`` and compare its result with
    the numpy ``output`` (relative and absolute tolerance 1e-4)."""
    import numpy as np

    from ... import te
    from ...driver import build
    from ...runtime import ndarray as nd
    from ...target import Target as _Target

    placeholders = [te.placeholder(x.shape, str(x.dtype)) for x in inputs]
    result = nd.array(np.zeros(output.shape).astype(output.dtype), device=device)
    with _Target(target):
        out = compute(*placeholders)
        func = build(schedule([out]), placeholders + [out])
        func(*[nd.array(x, device=device) for x in inputs], result)
    np.testing.assert_allclose(result.numpy(), output, atol=1e-4, rtol=1e-4)


__all__ = ["compare_numpy_tvm", "dispatch", "get_injective_schedule", "get_reduce_schedule",
           "get_broadcast_schedule",
           "get_elemwise_schedule", "get_conv2d_nchw_implement"]
