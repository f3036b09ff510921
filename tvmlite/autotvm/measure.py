"""Measuring candidates: ``measure_option``, ``LocalBuilder``, ``LocalRunner``.

Builds run in parallel worker processes (fresh interpreters); runs go one at a time through
a separate runner process, timed in native code by ``Module.time_evaluator``. A candidate that
fails to build, raises, crashes its process, passes its timeout or (with
``check_correctness=True``) computes a wrong result gets a :class:`MeasureResult` carrying the
matching :class:`MeasureErrorNo` and message; the others go on.
"""
from __future__ import annotations

import enum
import os
import pickle
import time
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Tuple

from .. import _classic
from .._classic import unsupported
from ..error import TVMError
from . import build_executor as _bx
from . import worker as _w
from .argcheck import check_int, check_number
from .executor import Executor, InlineExecutor


class MeasureErrorNo(enum.IntEnum):
    """Why a measurement failed (classic AutoTVM's numbers)."""

    NO_ERROR = 0
    INSTANTIATION_ERROR = 1
    COMPILE_HOST = 2
    COMPILE_DEVICE = 3
    RUNTIME_DEVICE = 4
    WRONG_ANSWER = 5
    BUILD_TIMEOUT = 6
    RUN_TIMEOUT = 7
    UNKNOWN_ERROR = 8


class MeasureInput(NamedTuple):
    """What is measured: a target, a task and one config of its space."""

    target: Any
    task: Any
    config: Any


class MeasureResult(NamedTuple):
    """``costs`` (seconds per run; the error message instead when ``error_no`` is not 0),
    ``error_no``, ``all_cost`` (seconds spent building and running) and ``timestamp``."""

    costs: Tuple
    error_no: int
    all_cost: float
    timestamp: float

    def __repr__(self) -> str:
        return (f"MeasureResult(costs={self.costs!r}, error_no={int(self.error_no)}, "
                f"all_cost={self.all_cost:.4g}, timestamp={self.timestamp:.6f})")


class BuildResult(NamedTuple):
    """A built candidate: its library, argument specs, error (None when fine) and time."""

    filename: Optional[str]
    arg_info: Any
    error: Optional[Tuple[int, str]]
    time_cost: float
    features: Optional[List[float]] = None


def _task_key(task) -> Tuple:
    return (task.name, task.workload, str(task.target), id(task))


def _task_blob(task) -> bytes:
    try:
        return pickle.dumps(task)
    except Exception as e:  # noqa: BLE001
        raise TVMError(f"cannot send task {task.name} to the build workers: {e}") from None


class Builder:
    """Base of builders: ``build(measure_inputs) -> [BuildResult]``."""

    def __init__(self, timeout: float = 10, n_parallel: Optional[int] = None):
        self.timeout = check_number(timeout, "builder timeout", positive=True)
        check_int(n_parallel, "n_parallel", allow_none=True)
        self.n_parallel = int(n_parallel or os.cpu_count() or 1)
        if self.n_parallel < 1:
            raise ValueError("n_parallel must be at least 1")
        self.task = None
        self.stats = {"build_s": 0.0}

    def set_task(self, task, build_kwargs=None) -> None:
        self.task = task


class LocalBuilder(Builder):
    """Build candidates in ``n_parallel`` worker processes (default: one per CPU), each with
    ``timeout`` seconds.

    ``executor`` spreads the builds over more machines: a ``dask.distributed.Client`` (or any
    object with a ``concurrent.futures``-style ``submit``) compiles each candidate on one of
    its workers (see :mod:`~tvmlite.autotvm.build_executor`); ``n_parallel`` then only sizes
    the local pool used for features and the correctness reference.
    """

    def __init__(self, timeout: float = 10, n_parallel: Optional[int] = None,
                 build_kwargs: Optional[dict] = None, build_func: str = "default",
                 do_fork: bool = False, runtime=None, executor=None):
        super().__init__(timeout, n_parallel)
        executor = _bx.check_executor(executor)
        self.executor = None if executor is None else _bx.ExecutorBuilds(executor)
        if build_func not in ("default", "so"):
            raise ValueError(f"LocalBuilder: unsupported build_func {build_func!r}")
        if build_kwargs:
            raise ValueError(f"LocalBuilder: build_kwargs {sorted(build_kwargs)} are not "
                             "supported (tvmlite builds with tvm.build's defaults)")
        if runtime is not None:
            raise ValueError("LocalBuilder: runtime= (microTVM) is not supported")
        # do_fork is accepted for compatibility: builds always run in spawned workers
        self.do_fork = do_fork
        self._blob: Optional[bytes] = None
        self._key = None
        self.want_features = False
        self.feature_cache: Dict[int, List[float]] = {}  # config index -> features of builds

    @property
    def pool(self) -> _w.WorkerPool:
        return _w.get_pool("build", self.n_parallel)

    def set_task(self, task, build_kwargs=None) -> None:
        super().set_task(task, build_kwargs)
        self._key = _task_key(task)
        self._blob = _task_blob(task)
        if self.executor is not None:
            self.executor.set_task(self._blob)

    def _map(self, requests):
        return self.pool.map(requests, self.timeout, {self._key: self._blob})

    def build(self, measure_inputs: Sequence[MeasureInput]) -> List[BuildResult]:
        t0 = time.perf_counter()
        if self.executor is not None:
            answers = self.executor.map([inp.config.index for inp in measure_inputs],
                                        self.want_features, self.timeout)
        else:
            answers = self._map([("build", self._key, inp.config.index, self.want_features)
                                 for inp in measure_inputs])
        out = []
        for inp, ans in zip(measure_inputs, answers):
            if ans[0] == "ok":
                v = ans[1]
                if v["features"] is not None:
                    self.feature_cache[inp.config.index] = v["features"]
                out.append(BuildResult(v["path"], v["specs"], None, v["time"], v["features"]))
            elif ans[0] == "timeout":
                out.append(BuildResult(None, None, (MeasureErrorNo.BUILD_TIMEOUT,
                           f"building took longer than the timeout ({self.timeout:g} s)"),
                           self.timeout))
            else:
                no = MeasureErrorNo.COMPILE_HOST if ans[1] is None else MeasureErrorNo(ans[1])
                out.append(BuildResult(None, None, (no, ans[2]), 0.0))
        self.stats["build_s"] += time.perf_counter() - t0
        return out

    def features(self, indices: Sequence[int]) -> List[Optional[List[float]]]:
        """Loop-nest features of configs, lowered in the workers (None where lowering
        fails)."""
        if not indices:
            return []
        chunks = max(1, min(len(indices), self.n_parallel * 4))
        parts = [list(indices[i::chunks]) for i in range(chunks)]
        answers = self.pool.map([("features", self._key, p) for p in parts],
                                self.timeout * max(len(p) for p in parts),
                                {self._key: self._blob})
        res: Dict[int, Optional[List[float]]] = {}
        for p, ans in zip(parts, answers):
            vals = ans[1] if ans[0] == "ok" else [None] * len(p)
            res.update(zip(p, vals))
        return [res[i] for i in indices]

    def reference(self) -> Optional[str]:
        ans = self._map([("reference", self._key)])[0]
        if ans[0] != "ok":
            raise TVMError(f"cannot build the reference for the correctness check: {ans}")
        return ans[1]["path"]


class Runner:
    """Base of runners: ``run(measure_inputs, build_results) -> [MeasureResult]``."""

    def __init__(self, timeout: float = 10, n_parallel: Optional[int] = None):
        self.timeout = check_number(timeout, "runner timeout", positive=True)
        self.n_parallel = n_parallel or 1
        self.task = None
        self.stats = {"run_s": 0.0}

    def set_task(self, task) -> None:
        self.task = task


class LocalRunner(Runner):
    """Run candidates one at a time in a separate process.

    Each measurement runs the kernel ``number`` times (grown until one measurement lasts at
    least ``min_repeat_ms``) and is taken ``repeat`` times; ``enable_cpu_cache_flush`` flushes
    every argument but the first (the data) from the CPU caches before each measurement, as
    classic TVM does (a network's weights come from memory; use ``number=1``);
    ``check_correctness`` compares every candidate's
    outputs with the template's outputs under a plain schedule, on random inputs.
    """

    def __init__(self, timeout: float = 10, number: int = 4, repeat: int = 3,
                 min_repeat_ms: float = 0, cooldown_interval: float = 0.0,
                 enable_cpu_cache_flush: bool = False, check_correctness: bool = False,
                 module_loader=None):
        super().__init__(timeout, 1)
        number = check_int(number, "LocalRunner: number")
        repeat = check_int(repeat, "LocalRunner: repeat")
        if number < 1 or repeat < 1:
            raise ValueError("LocalRunner: number and repeat must be at least 1")
        self.number = number
        self.repeat = repeat
        self.min_repeat_ms = check_number(min_repeat_ms, "LocalRunner: min_repeat_ms", 0)
        self.cooldown_interval = check_number(cooldown_interval, "LocalRunner: cooldown_interval",
                                              0)
        self.enable_cpu_cache_flush = bool(enable_cpu_cache_flush)
        self.check_correctness = bool(check_correctness)
        self.ref_path: Optional[str] = None
        # classic hooks: ``executor`` takes each measurement when set; ``ref_input`` (inputs
        # to time the kernel on) is only handed to such an executor
        self.executor: Optional[Executor] = None
        self.ref_input: Optional[List[Any]] = None

    @property
    def pool(self) -> _w.WorkerPool:
        return _w.get_pool("run", 1)

    def set_task(self, task) -> None:
        super().set_task(task)
        self.ref_path = None

    def run(self, measure_inputs: Sequence[MeasureInput],
            build_results: Sequence[BuildResult]) -> List[MeasureResult]:
        t0 = time.perf_counter()
        if self.executor is None and self.ref_input is not None:
            raise unsupported("autotvm LocalRunner.ref_input (timing on given inputs)")
        executor = self.executor or InlineExecutor()
        futures = [executor.submit(self._measure_one, inp, br, ref_input=self.ref_input)
                   for inp, br in zip(measure_inputs, build_results)]
        out: List[MeasureResult] = []
        for fut in futures:
            res = fut.result()
            out.append(res if isinstance(res, MeasureResult) else MeasureResult(
                (f"the runner's executor returned {res!r}, not a MeasureResult",),
                int(MeasureErrorNo.RUNTIME_DEVICE), 0.0, time.time()))
        self.stats["run_s"] += time.perf_counter() - t0
        return out

    def _measure_one(self, measure_input: MeasureInput, br: BuildResult,
                     ref_input: Optional[List[Any]] = None) -> MeasureResult:
        """Measure one built candidate in the runner process."""
        if br.error is not None:
            return MeasureResult((br.error[1],), int(br.error[0]), br.time_cost, time.time())
        t1 = time.perf_counter()
        kind = measure_input.target.kind.name
        # classic: device(str(target)); the worker may predate the emulation switch
        dev = ("cuda", os.environ.get("TVMLITE_GPU_EMULATION", "")) \
            if kind in ("cuda", "nvptx") else ()
        ans = self.pool.map([("run", br.filename, br.arg_info, self.number, self.repeat,
                              self.min_repeat_ms, self.enable_cpu_cache_flush,
                              self.ref_path, *dev)], self.timeout)[0]
        cost = br.time_cost + time.perf_counter() - t1
        if ans[0] == "ok":
            res = MeasureResult(tuple(ans[1]), 0, cost, time.time())
        elif ans[0] == "timeout":
            res = MeasureResult((f"running took longer than the timeout "
                                 f"({self.timeout:g} s)",),
                                int(MeasureErrorNo.RUN_TIMEOUT), cost, time.time())
        else:
            no = MeasureErrorNo.RUNTIME_DEVICE if ans[1] is None else ans[1]
            res = MeasureResult((ans[2],), int(no), cost, time.time())
        if self.cooldown_interval > 0:
            time.sleep(self.cooldown_interval)
        return res


def measure_option(builder="local", runner="local", **kwargs) -> Dict[str, Any]:
    """The measurement settings a tuner uses: ``{"builder": ..., "runner": ...}``."""
    if builder == "local":
        builder = LocalBuilder()
    if runner == "local":
        runner = LocalRunner()
    if not isinstance(builder, Builder):
        raise TypeError(f"builder must be a LocalBuilder (or 'local'), got {builder!r}")
    if not isinstance(runner, Runner):
        raise TypeError(f"runner must be a LocalRunner (or 'local'), got {runner!r}")
    if kwargs:
        raise TypeError(f"measure_option: unknown arguments {sorted(kwargs)}")
    return {"builder": builder, "runner": runner}


def create_measure_batch(task, option: Dict[str, Any]):
    """A function measuring a list of MeasureInputs (builds in parallel, then runs)."""
    builder, runner = option["builder"], option["runner"]
    builder.set_task(task)
    runner.set_task(task)
    # start the worker processes now, side by side (each takes a moment to import)
    for m in (builder, runner):
        if hasattr(m, "pool"):
            _ = m.pool
    if getattr(runner, "check_correctness", False):
        runner.ref_path = builder.reference()

    def measure_batch(measure_inputs: Sequence[MeasureInput]) -> List[MeasureResult]:
        return runner.run(measure_inputs, builder.build(measure_inputs))

    measure_batch.n_parallel = builder.n_parallel
    measure_batch.builder = builder
    measure_batch.runner = runner
    return measure_batch


_classic_getattr = _classic.fallback(__name__)


def __getattr__(name: str):
    # classic ``autotvm.measure.RPCRunner`` / ``request_remote`` / ``check_remote``: they live
    # in tvmlite.rpc, a layer above autotvm, and are re-exported on first use
    if name in ("RPCRunner", "request_remote", "check_remote"):
        from ..rpc import runner as _rpc_runner

        return getattr(_rpc_runner, name)
    return _classic_getattr(name)
