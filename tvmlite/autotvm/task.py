"""Templates and tuning tasks (``autotvm.template``, ``autotvm.task.create``)."""
from __future__ import annotations

import functools
import math
from typing import Any, Callable, Dict, Optional, Sequence, Tuple

from ..error import TVMError
from ..target import Target
from ..te.tensor import ComputeOp, Tensor
from ..tir import expr as E
from ..tir.expr import FloatImm, IntImm, Var
from .dispatch import ApplyConfig, DispatchContext
from .serialize import dumps_function, loads_function
from .space import ConfigEntity, ConfigSpace

# template name -> the template function as written (not the dispatching wrapper)
TASK_TABLE: Dict[str, Callable] = {}


class TaskError(TVMError, ValueError):
    """An unknown template, or arguments a workload cannot hold."""


# ---------------------------------------------------------------------------------- workloads
def serialize_arg(x: Any) -> Any:
    """An argument as it appears in a workload: tensors become ``('TENSOR', shape, dtype)``."""
    if isinstance(x, Tensor):
        return ("TENSOR", tuple(serialize_arg(d) for d in x.shape), x.dtype)
    if isinstance(x, (list, tuple)):
        return tuple(serialize_arg(a) for a in x)
    if isinstance(x, (IntImm, FloatImm)):
        return x.value
    if isinstance(x, Var):
        return x.name
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    if hasattr(x, "__index__"):
        return int(x)
    raise TaskError(f"a template argument must be an int, float, str, None, tensor or a "
                    f"tuple of these to be recorded; got {type(x).__name__}")


def serialize_args(args: Sequence[Any]) -> Tuple:
    """Classic ``autotvm.task.serialize_args``: each argument as a workload holds it."""
    return tuple(serialize_arg(a) for a in args)


def args_to_workload(args: Sequence[Any], task_name: str) -> Tuple:
    """``(task_name, *serialized args)``: the key under which records are found."""
    return (task_name,) + serialize_args(args)


def deserialize_args(args: Sequence[Any]) -> Tuple:
    """Undo JSON's tuple→list on record arguments (``('TENSOR', ...)`` tuples included)."""
    def rec(x):
        if isinstance(x, list):
            return tuple(rec(a) for a in x)
        return x

    return tuple(rec(a) for a in args)


# ---------------------------------------------------------------------------------- templates
def template(task_name: str, func: Optional[Callable] = None):
    """Register ``func`` as the AutoTVM template ``task_name`` (a decorator).

    Calling the decorated function runs the template with the config the current dispatch
    context gives for this workload: the tuned record under ``apply_history_best``, the
    config being measured while tuning, or a fallback config (with a warning) otherwise.
    """
    if not isinstance(task_name, str):
        raise TaskError("autotvm.template needs a task name: @autotvm.template(\"name\")")

    def register(f: Callable) -> Callable:
        TASK_TABLE[task_name] = f

        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            if kwargs:
                raise TaskError(f"template {task_name}: pass arguments positionally (they "
                                f"make up the workload)")

            workload = args_to_workload(args, task_name)
            cfg = DispatchContext.current.query(Target.current(allow_none=True), workload)
            with ApplyConfig(cfg):
                return f(*args)

        wrapper.template_name = task_name
        return wrapper

    return register(func) if func is not None else register


def get_config():
    """The config of the template being instantiated (``cfg = autotvm.get_config()``)."""
    return DispatchContext.current.query(Target.current(allow_none=True), None)


# -------------------------------------------------------------------------------------- flops
def _count(e) -> int:
    if isinstance(e, (E.IntImm, E.FloatImm, E.Var, E.StringImm)):
        return 0
    if isinstance(e, (E.ProducerLoad, E.BufferLoad)):
        return 0
    if isinstance(e, E.Cast):
        return _count(e.value)
    if isinstance(e, E.Reduce):
        n = math.prod(int(iv.dom.extent.value) if isinstance(iv.dom.extent, E.IntImm) else 1
                      for iv in e.axis)
        comb = sum(_count(r) for r in e.combiner.result)
        return n * (comb + sum(_count(s) for s in e.source))
    if isinstance(e, E.Select):
        return _count(e.condition) + max(_count(e.true_value), _count(e.false_value))
    if isinstance(e, E.Call):
        # as classic AutoTVM counts: a call (exp, if_then_else, ...) adds only its arguments
        return sum(_count(a) for a in e.args)
    if isinstance(e, E.Not):
        return 1 + _count(e.a)
    if hasattr(e, "a") and hasattr(e, "b"):
        return 1 + _count(e.a) + _count(e.b)
    return 0


def compute_flop(sch) -> int:
    """FLOPs of a schedule's compute stages (arithmetic, comparisons, the reduction's combiner;
    index arithmetic and loads excluded; a call counts its arguments only). A schedule with
    none raises :class:`TaskError` asking for ``cfg.add_flop``, as classic AutoTVM does."""
    total = 0
    for stage in sch.stages:
        op = stage.op
        if not isinstance(op, ComputeOp):
            continue
        n = 1
        for iv in op.axis:
            if not isinstance(iv.dom.extent, IntImm):
                raise TaskError(f"cannot count the FLOPs of {op.name}: symbolic extent "
                                f"{iv.dom.extent}; call cfg.add_flop in the template")
            n *= int(iv.dom.extent.value)
        total += n * sum(_count(b) for b in op.body)
    if total == 0:
        raise TaskError("Cannot find float number operation in this operator. Please use "
                        "`cfg.add_flop` to manually set FLOP for this operator")
    return total


# -------------------------------------------------------------------------------------- tasks
class Task:
    """A template applied to fixed arguments (``autotvm.task.create``)."""

    def __init__(self, name: str, args: Sequence[Any]):
        if name not in TASK_TABLE:
            raise TaskError(f"no AutoTVM template is registered under {name!r} (registered: "
                            f"{sorted(TASK_TABLE)})")
        self.name = name
        self.args = tuple(args)
        self.func = TASK_TABLE[name]
        self.config_space: Optional[ConfigSpace] = None
        self.flop = 0
        self.target = None
        self.target_host = None

    @property
    def workload(self) -> Tuple:
        return args_to_workload(self.args, self.name)

    def instantiate(self, config: ConfigSpace):
        """Run the template under ``config``: ``(schedule, argument tensors)``."""
        config.flop = 0
        with ApplyConfig(config):
            sch, arg_bufs = self.func(*self.args)
        if not self.flop:  # counted once, when the task is created
            config.flop = config.flop or compute_flop(sch)
            self.flop = config.flop
        return sch, arg_bufs

    def __getstate__(self):
        state = dict(self.__dict__)
        state["func"] = dumps_function(self.func)
        state["target"] = str(self.target) if self.target is not None else None
        return state

    def __setstate__(self, state):
        state = dict(state)
        state["func"] = loads_function(state["func"])
        TASK_TABLE.setdefault(state["name"], state["func"])
        if state["target"] is not None:
            state["target"] = Target(state["target"])
        self.__dict__.update(state)

    def __repr__(self) -> str:
        return (f"Task(func_name={self.name}, args={self.args}, kwargs={{}}, "
                f"workload={self.workload})")


def create(task_name: str, args: Sequence[Any], target="llvm", target_host=None) -> Task:
    """A tuning task: the template ``task_name`` on ``args`` for ``target``, with its
    ``config_space`` and ``flop`` count."""
    task = Task(task_name, args)
    task.target = target if isinstance(target, Target) else Target(target)
    task.target_host = target_host
    space = ConfigSpace()
    with task.target:
        sch, _ = task.instantiate(space)
    task.config_space = space
    task.flop = space.flop
    return task


# ------------------------------------------------------------------------ program extraction
# relay sits above autotvm: it registers its extractor here when it is imported (a program
# to extract from is a relay program, so relay is loaded by then)
_PROGRAM_EXTRACTOR: Optional[Callable] = None


def register_program_extractor(fn: Callable) -> None:
    global _PROGRAM_EXTRACTOR
    _PROGRAM_EXTRACTOR = fn


def extract_from_program(mod, params, target, target_host=None, ops=None):
    """The tuning tasks of a relay program (classic ``autotvm.task.extract_from_program``):
    see :func:`tvmlite.relay.task_extraction.extract_from_program`."""
    if _PROGRAM_EXTRACTOR is None:
        raise TaskError("extract_from_program needs a relay program: import tvmlite.relay")
    return _PROGRAM_EXTRACTOR(mod, params, target, target_host=target_host, ops=ops)


__all__ = ["extract_from_program", "template", "get_config", "create", "Task", "TASK_TABLE",
           "args_to_workload", "compute_flop", "ConfigEntity", "ConfigSpace"]
