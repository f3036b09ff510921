"""The graph tuner (classic ``tvm.autotvm.graph_tuner``): for each convolution of a network,
the tuned config to build with, chosen over the whole graph.

Tuning each convolution alone picks its fastest record, whose channel blocks (``tile_ic``,
``tile_oc``) may disagree with its neighbours', and each disagreement costs a layout
transform between them. The tuner weighs the logged kernel times against the transforms'
times, measured on this machine by :meth:`BaseGraphTuner.benchmark_layout_transform`, and
minimises their sum exactly (:func:`~tvmlite.relay.transform.layout_choice.minimize`:
variable elimination, the dynamic programme of classic's ``DPTuner``, which also stands in
for ``PBQPTuner``'s heuristic solver)::

    tuner = DPTuner(mod["main"], {"data": (1, 3, 224, 224)}, "tune.log",
                    [relay.op.get("nn.conv2d")], "llvm")
    tuner.benchmark_layout_transform(min_exec_num=2000)
    tuner.run()
    tuner.write_opt_sch2record_file("graph_opt.log")
    with autotvm.apply_graph_best("graph_opt.log"):
        lib = relay.build(mod, "llvm", params=params)

The candidates of a convolution and the values whose layouts they decide are those
``relay.build``'s AlterOpLayout plans (:func:`~.transform.alter_op_layout.graph_choice`), so
the choice is the one the build then makes, node by node, under ``apply_graph_best``.
"""
from __future__ import annotations

import itertools
import json
import logging
import math
import time
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .. import topi
from ..autotvm.apply_history_best import ApplyHistoryBest
from ..autotvm.measure import LocalRunner, MeasureInput, MeasureResult
from ..autotvm.record import encode
from ..autotvm.task import create as create_task
from ..autotvm.task import get_config, template
from ..error import TVMError
from ..ir.module import IRModule
from ..ir.transform import PassContext
from ..runtime.device import cpu
from ..runtime.threading import num_threads
from ..target import Target
from ..te.operation import placeholder
from ..topi.x86.utils import vector_lanes
from .build_module import build, optimize
from .expr import Function, var
from .expr import Tuple as RTuple
from .op.layout import layout_transform
from .transform import InferType
from .transform.alter_op_layout import graph_choice
from .transform.layout_choice import Value, choose, transform_seconds
from .ty import TensorType

#: the operators whose layouts the x86 graph tuner chooses
TUNABLE_OPS = ("nn.conv2d",)

Transform = Tuple[Tuple[int, ...], Optional[int], Optional[int]]  # (NCHW shape, src, dst)


@template("layout_transform")
def layout_transform_template(*args):
    """The AutoTVM task of a layout transform (classic's, for the graph tuner's layout
    records): ``args`` are ``topi.layout_transform``'s."""
    get_config().add_flop(-1)
    out = topi.layout_transform(*args)
    return topi.generic.schedule_injective([out]), [args[0], out]


def _layout(block: Optional[int]) -> str:
    return "NCHW" if block is None else f"NCHW{block}c"


def _packed_shape(t: Transform) -> Tuple[int, ...]:
    """The shape of the transform's input as AlterOpLayout packs it."""
    shape, src, _ = t
    n, c, h, w = (1,) * (4 - len(shape)) + tuple(shape)
    return (n, c // src, h, w, src) if src else (n, c, h, w)


def _workload(t: Transform, dtype: str = "float32") -> tuple:
    """The ``layout_transform`` task workload of transform ``t`` (classic's record key)."""
    return ("layout_transform", ("TENSOR", _packed_shape(t), dtype), _layout(t[1]),
            _layout(t[2]))


class BaseGraphTuner:
    """Choose one tuned record per convolution of ``graph`` (classic
    ``autotvm.graph_tuner.base_graph_tuner.BaseGraphTuner``).

    Parameters
    ----------
    graph : relay.Function or IRModule
        The network (its ``main``); weights may be free parameters.
    input_shapes : dict of str to tuple
        The shape of each named input; it must agree with the graph's type.
    records : str or iterable of (MeasureInput, MeasureResult)
        The kernels' tuning log (a file name or the records).
    target_ops : list of relay.op.Op or str
        The operators to tune the layouts of: ``nn.conv2d``.
    target : str or Target
        A CPU target (llvm or c).
    max_sch_num : int
        The most candidate configs (distinct channel-block pairs) per convolution.
    """

    def __init__(self, graph, input_shapes: Dict[str, Sequence[int]], records,
                 target_ops: Sequence[Any], target, max_sch_num: int = 20,
                 dtype: str = "float32", verbose: bool = True,
                 log_file: Optional[str] = "graph_tuner.log", log_level: int = logging.DEBUG,
                 name: str = "graph_tuner"):
        self.name = name
        self.verbose = verbose
        self._dtype = dtype
        self._logger = logging.getLogger(f"autotvm.graph_tuner.{name}")
        for h in [h for h in self._logger.handlers if isinstance(h, logging.FileHandler)]:
            self._logger.removeHandler(h)  # the previous tuner of this name's file
            h.close()
        if log_file:  # classic writes the tuner's log to this file (None: no file)
            handler = logging.FileHandler(log_file)
            handler.setLevel(log_level)
            handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
            self._logger.addHandler(handler)
            self._logger.setLevel(min(log_level, logging.INFO))
        self.target = target if isinstance(target, Target) else Target(str(target))
        if self.target.kind.name not in ("llvm", "c"):
            raise TVMError(f"{name}: the graph tuner chooses x86 layouts: target must be llvm "
                           f"or c, got {self.target}")
        ops = [getattr(o, "name", o) for o in target_ops]
        unknown = [o for o in ops if o not in TUNABLE_OPS]
        if not ops or unknown:
            raise TVMError(f"{name}: target_ops must name {list(TUNABLE_OPS)}; got {ops} "
                           "(only convolution layouts are tuned)")
        if not isinstance(max_sch_num, int) or max_sch_num < 1:
            raise TVMError(f"{name}: max_sch_num must be a positive int, got {max_sch_num!r}")
        func = graph["main"] if isinstance(graph, IRModule) else graph
        if not isinstance(func, Function):
            raise TVMError(f"{name}: graph must be a relay Function or IRModule, got "
                           f"{type(graph).__name__}")
        self._check_inputs(func, input_shapes, dtype)
        # typed: weights declared without a type (relay.testing nets) get theirs
        func = InferType()(IRModule({"main": func}))["main"]
        # the other parameters are the weights relay.build binds: constants here too, so the
        # plan is the build's (batch norms folded, weight transforms precomputed)
        weights = {p.name_hint: np.zeros([int(d) for d in p.checked_type.shape],
                                         p.checked_type.dtype)
                   for p in func.params if p.name_hint not in dict(input_shapes)
                   and isinstance(p.checked_type, TensorType)}
        self._records = ApplyHistoryBest(records)
        with self.target, self._records, PassContext(opt_level=3):
            func = optimize(IRModule({"main": func}), weights)["main"]
            self._labels, self._values, _ = graph_choice(func, self.target, max_sch_num)
        self._measured: Optional[Dict[Transform, float]] = None
        #: classic's: the time of each layout transform, by its task workload
        self._layout_transform_perf_records: Dict[tuple, Tuple[Any, Any]] = {}
        self._chosen: Optional[List[int]] = None
        untuned = sum(1 for labels in self._labels if labels[0].record is None)
        if untuned:
            self._logger.warning("%s: %d of %d convolutions have no valid record in the log: they "
                           "keep their fallback configs", name, untuned, len(self._labels))

    def _check_inputs(self, func: Function, input_shapes, dtype: str) -> None:
        params = {p.name_hint: p for p in func.params}
        for key, shape in dict(input_shapes).items():
            if key not in params:
                raise TVMError(f"{self.name}: the graph has no input {key!r} (inputs: "
                               f"{sorted(params)})")
            t = params[key].type_annotation
            got = tuple(int(d) for d in getattr(t, "shape", ()))
            if t is not None and got != tuple(int(d) for d in shape):
                raise TVMError(f"{self.name}: input {key!r} has shape {got} in the graph, "
                               f"input_shapes gives {tuple(shape)}")
            if t is not None and getattr(t, "dtype", dtype) != dtype:
                raise TVMError(f"{self.name}: input {key!r} is {t.dtype} in the graph, "
                               f"dtype gives {dtype}")

    # ------------------------------------------------------------------ layout transforms
    def _transforms(self) -> List[Transform]:
        """Every (shape, source block, target block) some choice of labels implies."""
        sizes = [len(labels) for labels in self._labels]
        out = set()
        for val in self._values:
            scope = sorted(set(val.produced.vars).union(*(b.vars for b in val.needs)))
            for point in itertools.product(*(range(sizes[v]) for v in scope)):
                lb = dict(zip(scope, point))
                src = val.produced.at(lb)
                out.update((val.shape, src, b.at(lb)) for b in val.needs
                           if b.at(lb) != src)
        return sorted(out, key=repr)

    def benchmark_layout_transform(self, min_exec_num: int = 100, timeout: float = 10,
                                   use_rpc: bool = False, device_key: Optional[str] = None,
                                   host: str = "127.0.0.1", port: int = 9190,
                                   n_parallel: int = 1, build_func: str = "default",
                                   layout_records=None, target_host=None,
                                   infer_layout: bool = False, runner=None) -> None:
        """The time of every layout transform a choice of configs could need (as
        relay.build emits it: through NCHW): from ``layout_records`` (``layout_transform``
        task records, a file name or the pairs) where they hold it; else inferred from their
        mean time per element with ``infer_layout`` (AlterOpLayout's model without records);
        else measured on this machine, averaged over ``min_exec_num`` runs (a LocalRunner's
        ``number`` when one is given)."""
        if use_rpc or (runner is not None and not infer_layout
                       and not isinstance(runner, LocalRunner)):
            raise TVMError(f"{self.name}: benchmark_layout_transform measures on this "
                           "machine (use_rpc and remote runners are not supported)")
        number = getattr(runner, "number", min_exec_num) if runner is not None \
            else min_exec_num
        if not isinstance(number, int) or number < 1:
            raise TVMError(f"{self.name}: min_exec_num must be a positive int, got "
                           f"{number!r}")
        known: Dict[tuple, Tuple[Any, Any]] = {}
        if layout_records is not None:
            items: list = []
            ApplyHistoryBest._collect(layout_records, items)
            known = {inp.task.workload: (inp, res) for inp, res in items
                     if inp.task.workload[0] == "layout_transform" and res.error_no == 0}
        t0 = time.perf_counter()
        todo = self._transforms()
        seconds: Dict[Transform, float] = {}
        for t in todo:
            if _workload(t, self._dtype) in known:
                seconds[t] = float(known[_workload(t, self._dtype)][1].costs[0])
        rest = [t for t in todo if t not in seconds]
        if infer_layout:
            if known:  # classic: the records' mean seconds per input element
                total_time, num_flops = 0.0, 0
                for inp, res in known.values():
                    total_time += res.costs[0]
                    num_flops += np.prod(inp.task.workload[1][1])
                per_element = total_time / num_flops
                for t in rest:
                    seconds[t] = float(math.prod(_packed_shape(t)) * per_element)
            else:
                lanes, threads = vector_lanes("float32"), num_threads()
                for t in rest:
                    seconds[t] = transform_seconds(math.prod(t[0]), t[1], t[2], lanes,
                                                   threads)
        else:
            seconds.update(zip(rest, _time_transforms(rest, self.target, number)))
        self._measured = seconds
        for t, sec in seconds.items():
            args = [placeholder(_packed_shape(t), self._dtype), _layout(t[1]), _layout(t[2])]
            task = create_task("layout_transform", args, self.target)
            self._layout_transform_perf_records[task.workload] = (
                MeasureInput(self.target, task, None),
                MeasureResult((sec,), 0, -1, time.time()))
        if self.verbose:
            how = "inferred" if infer_layout else "measured"
            self._logger.info("%s: %d layout transforms (%d from records, the others %s) in %.1f s",
                        self.name, len(todo), len(todo) - len(rest), how,
                        time.perf_counter() - t0)

    # ------------------------------------------------------------------ the choice
    def _cost(self, val: Value, src: Optional[int], dst: Optional[int]) -> float:
        return self._measured[(val.shape, src, dst)]

    def run(self, **kwargs) -> None:
        """Choose each convolution's record: the sum of the kernels' logged times and the
        transforms' times (measured, else estimated) is minimal."""
        t0 = time.perf_counter()
        kernel = [[lb.seconds for lb in labels] for labels in self._labels]
        cost = self._cost if self._measured is not None else None  # else: the model
        self._chosen = choose(kernel, self._values, vector_lanes("float32"), num_threads(),
                              cost) if self._labels else []
        if self.verbose:
            self._logger.info("%s: chose the configs of %d convolutions in %.2f s (%s transform "
                        "times)", self.name, len(self._chosen), time.perf_counter() - t0,
                        "measured" if cost else "estimated")

    def get_optimal_records(self) -> List[Tuple[Any, Any]]:
        """The chosen ``(MeasureInput, MeasureResult)`` of each tuned convolution, in the
        order of the graph's nodes (a convolution without records is left out)."""
        if self._chosen is None:
            raise TVMError(f"{self.name}: call run() before get_optimal_records()")
        out = []
        for labels, k in zip(self._labels, self._chosen):
            if labels[k].record is not None:
                out.append(labels[k].record)
        return out

    def write_opt_sch2record_file(self, record_file: str = "graph_opt_schedule.log") -> None:
        """Write :meth:`get_optimal_records` to ``record_file`` for
        ``autotvm.apply_graph_best``."""
        records = self.get_optimal_records()
        with open(record_file, "w") as f:
            for inp, res in records:
                f.write(encode(inp, res) + "\n")
        if self.verbose:
            self._logger.info("%s: wrote %d records to %s", self.name, len(records), record_file)


def _time_transforms(todo: Sequence[Transform], target: Target, number: int) -> List[float]:
    """Mean seconds over ``number`` runs of each (shape, source block, target block)
    transform as relay.build emits it (through NCHW): one network of them all, built once
    and timed kernel by kernel."""
    from ..contrib.debugger import debug_executor

    if not todo:
        return []
    xs, ys = [], []
    for i, t in enumerate(todo):
        _, src, dst = t
        x = var(f"x{i}", shape=_packed_shape(t), dtype="float32")
        y = x if src is None else layout_transform(x, _layout(src), "NCHW")
        xs.append(x)
        ys.append(y if dst is None else layout_transform(y, "NCHW", _layout(dst)))
    with PassContext(opt_level=3):
        lib = build(IRModule.from_expr(Function(xs, RTuple(ys))), target)
    m = debug_executor.create(lib.get_graph_json(), lib.get_lib(), cpu())
    rng = np.random.default_rng(0)
    for x in xs:
        m.set_input(x.name_hint, rng.standard_normal(
            [int(d) for d in x.type_annotation.shape]).astype("float32"))
    nodes = json.loads(lib.get_graph_json())["nodes"]
    times = m.run_individual(number=number, repeat=1)
    out: List[Optional[float]] = [None] * len(todo)
    for (nid, *_), t in zip(m._kernels, times):
        source = nodes[nodes[nid]["inputs"][0][0]]["name"]  # the input x{i} it transforms
        out[int(source[1:])] = float(np.mean(t))
    if any(t is None for t in out):
        raise TVMError("graph tuner: a layout transform was not built as a kernel of its own")
    return out


class DPTuner(BaseGraphTuner):
    """The graph tuner that minimises exactly by dynamic programming over the graph
    (variable elimination; classic ``autotvm.graph_tuner.DPTuner``)."""


class PBQPTuner(BaseGraphTuner):
    """Classic ``autotvm.graph_tuner.PBQPTuner``: the same exact minimisation as
    :class:`DPTuner` (classic's PBQP heuristics reach at best that optimum)."""


__all__ = ["BaseGraphTuner", "DPTuner", "PBQPTuner"]
