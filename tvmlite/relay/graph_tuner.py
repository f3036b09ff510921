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
import time
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..autotvm.apply_history_best import ApplyHistoryBest
from ..autotvm.record import encode
from ..error import TVMError
from ..ir.module import IRModule
from ..ir.transform import PassContext
from ..runtime.device import cpu
from ..runtime.threading import num_threads
from ..target import Target
from ..topi.x86.utils import vector_lanes
from .build_module import build, optimize
from .expr import Function, var
from .expr import Tuple as RTuple
from .op.layout import layout_transform
from .transform.alter_op_layout import graph_choice
from .transform.layout_choice import Value, choose
from .ty import TensorType

logger = logging.getLogger("autotvm")

#: the operators whose layouts the x86 graph tuner chooses
TUNABLE_OPS = ("nn.conv2d",)


def _layout(block: Optional[int]) -> str:
    return "NCHW" if block is None else f"NCHW{block}c"


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
                 log_file: str = "graph_tuner.log", log_level: int = logging.DEBUG,
                 name: str = "graph_tuner"):
        self.name = name
        self.verbose = verbose
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
        # the other parameters are the weights relay.build binds: constants here too, so the
        # plan is the build's (batch norms folded, weight transforms precomputed)
        weights = {p.name_hint: np.zeros([int(d) for d in p.type_annotation.shape],
                                         p.type_annotation.dtype)
                   for p in func.params if p.name_hint not in dict(input_shapes)
                   and isinstance(p.type_annotation, TensorType)}
        self._records = ApplyHistoryBest(records)
        with self.target, self._records, PassContext(opt_level=3):
            func = optimize(IRModule({"main": func}), weights)["main"]
            self._labels, self._values, _ = graph_choice(func, self.target, max_sch_num)
        self._measured: Optional[Dict[Tuple[Tuple[int, ...], Optional[int], Optional[int]],
                                      float]] = None
        self._chosen: Optional[List[int]] = None
        untuned = sum(1 for labels in self._labels if labels[0].record is None)
        if untuned:
            logger.warning("%s: %d of %d convolutions have no valid record in the log: they "
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
    def _transforms(self) -> List[Tuple[Tuple[int, ...], Optional[int], Optional[int]]]:
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
        """Time, on this machine, every layout transform a choice of configs could need
        (as relay.build emits it: through NCHW), each averaged over ``min_exec_num`` runs.
        With ``infer_layout`` the times are estimated instead (AlterOpLayout's model)."""
        if use_rpc or runner is not None:
            raise TVMError(f"{self.name}: benchmark_layout_transform measures on this "
                           "machine (use_rpc and runner are not supported)")
        if layout_records is not None:
            raise TVMError(f"{self.name}: layout_records are not supported: the transforms "
                           "are measured (or, with infer_layout=True, estimated)")
        if not isinstance(min_exec_num, int) or min_exec_num < 1:
            raise TVMError(f"{self.name}: min_exec_num must be a positive int, got "
                           f"{min_exec_num!r}")
        if infer_layout:
            self._measured = None
            return
        t0 = time.perf_counter()
        todo = self._transforms()
        self._measured = dict(zip(todo, _time_transforms(todo, self.target, min_exec_num)))
        if self.verbose:
            logger.info("%s: %d layout transforms benchmarked in %.1f s", self.name,
                        len(todo), time.perf_counter() - t0)

    # ------------------------------------------------------------------ the choice
    def _cost(self, val: Value, src: Optional[int], dst: Optional[int]) -> float:
        return self._measured[(val.shape, src, dst)]

    def run(self, **kwargs) -> None:
        """Choose each convolution's record: the sum of the kernels' logged times and the
        transforms' times (measured, else estimated) is minimal."""
        t0 = time.perf_counter()
        kernel = [[lb.seconds for lb in labels] for labels in self._labels]
        cost = self._cost if self._measured is not None else None
        self._chosen = choose(kernel, self._values, vector_lanes("float32"), num_threads(),
                              cost) if self._labels else []
        if self.verbose:
            logger.info("%s: chose the configs of %d convolutions in %.2f s (%s transform "
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
            logger.info("%s: wrote %d records to %s", self.name, len(records), record_file)


def _time_transforms(todo: Sequence[Tuple[Tuple[int, ...], Optional[int], Optional[int]]],
                     target: Target, number: int) -> List[float]:
    """Mean seconds over ``number`` runs of each (shape, source block, target block)
    transform as relay.build emits it (through NCHW): one network of them all, built once
    and timed kernel by kernel."""
    from ..contrib.debugger import debug_executor

    if not todo:
        return []
    xs, ys = [], []
    for i, (shape, src, dst) in enumerate(todo):
        n, c, h, w = (1,) * (4 - len(shape)) + tuple(shape)  # as AlterOpLayout packs it
        x = var(f"x{i}", shape=(n, c // src, h, w, src) if src else (n, c, h, w),
                dtype="float32")
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
