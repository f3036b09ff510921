"""AutoTVM tasks of a relay program (``autotvm.task.extract_from_program``), as the classic
tune_relay_x86 tutorial extracts them.

The program is optimized as ``relay.build`` does; each selected operator's strategy compute
then runs on placeholders of its argument types under a tracing dispatch context, which
records every AutoTVM workload the TOPI computes ask a config for (every implementation of
an operator that has several, e.g. ``dense_nopack.x86`` and ``dense_pack.x86``). Each
distinct workload becomes one ``autotvm.task.create`` task.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

from ..autotvm import task as _task
from ..autotvm.dispatch import DispatchContext
from ..autotvm.space import FallbackConfigEntity
from ..error import TVMError
from ..te.operation import placeholder
from .build_module import optimize, resolve_target
from .expr import Call, post_order
from .op.registry import Op
from .ty import TensorType, TupleType, type_str


class TaskTracer(DispatchContext):
    """A dispatch context recording each workload queried, answering with a fresh fallback
    config (no warning, no memory: extraction does not decide any config)."""

    # the strategies compute every implementation of an op under this context
    trace_all_implementations = True

    def __init__(self):
        super().__init__()
        self.workloads: List[Tuple] = []
        self._seen = set()

    def query(self, target, workload):
        return self._query_inside(target, workload)

    def _query_inside(self, target, workload):
        if workload is not None and workload not in self._seen:
            self._seen.add(workload)
            self.workloads.append(workload)
        return FallbackConfigEntity()

    def update(self, target, workload, cfg) -> None:
        pass


def _placeholders(call: Call) -> List[Any]:
    ins = []
    for i, a in enumerate(call.args):
        types = a.checked_type.fields if isinstance(a.checked_type, TupleType) else \
            [a.checked_type]
        for t in types:
            if not isinstance(t, TensorType):
                raise TVMError(f"extract_from_program: argument {i} of {call.op.name} has "
                               f"type {type_str(t)}")
            ins.append(placeholder(t.shape, t.dtype, name=f"arg{len(ins)}"))
    return ins


def extract_from_program(mod, params: Optional[Dict[str, Any]], target,
                         target_host=None, ops: Optional[Sequence[Op]] = None) -> List[Any]:
    """The tuning tasks of ``mod`` (an IRModule or its ``main`` Function) for ``target``.

    Parameters
    ----------
    mod : IRModule or relay.Function
        The program.
    params : dict of str to array, optional
        Parameters to bind as constants (as ``relay.build`` binds them).
    target : str or Target
        The target the tasks are created for.
    target_host : str or Target, optional
        Kept on each task (classic signature).
    ops : sequence of relay Op, optional
        Only calls of these operators give tasks (``(relay.op.get("nn.conv2d"),)``);
        every operator when None.

    Returns
    -------
    list of autotvm.task.Task
        One task per distinct workload, in the order the program first uses them.
    """
    tgt = resolve_target(target, target_host)
    wanted = None if ops is None else {id(op) for op in ops}
    for op in ops or ():
        if not isinstance(op, Op):
            raise TVMError(f"extract_from_program: ops must hold relay operators "
                           f"(relay.op.get(name)), got {op!r}")
    tracer = TaskTracer()
    with tgt:
        func = optimize(mod, params)["main"]
        with tracer:
            for n in post_order(func.body):
                if not (isinstance(n, Call) and isinstance(n.op, Op)):
                    continue
                if wanted is not None and id(n.op) not in wanted:
                    continue
                fcompute, _ = n.op.strategy(tgt)
                fcompute(n.attrs, _placeholders(n), n.checked_type)
    tasks = []
    for wl in tracer.workloads:
        if wl[0] not in _task.TASK_TABLE:
            continue
        t = _task.create(wl[0], wl[1:], tgt, target_host)
        tasks.append(t)
    return tasks


_task.register_program_extractor(extract_from_program)

__all__ = ["extract_from_program", "TaskTracer"]
