"""A graph executor that times every kernel (``tvm.contrib.debugger.debug_executor``).

``create(graph_json, lib, dev, dump_root=None)`` gives a :class:`GraphModuleDebug`: a
:class:`~tvmlite.contrib.graph_executor.GraphModule` whose ``run`` executes the graph node by
node, timing each kernel, prints the per-node table classic TVM prints and, with a
``dump_root``, writes the graph and every node's output there. ``run_individual`` returns the
times per kernel without printing.
"""
from __future__ import annotations

import json
import os
import time
from typing import Any, Dict, List, Optional, Union

import numpy as np

from ...error import TVMError
from ...runtime.module import BenchmarkResult
from ..graph_executor import GraphModule
from ..param_dict import save_param_dict


class DebugResult:
    """The last debug run: per kernel node its name, op, mean time (seconds) and outputs."""

    def __init__(self, rows: List[Dict[str, Any]]):
        self._rows = rows
        self._time_list = [[r["time"]] for r in rows]

    def get_debug_result(self, sort_by_time: bool = True) -> str:
        rows = sorted(self._rows, key=lambda r: -r["time"]) if sort_by_time else self._rows
        total = sum(r["time"] for r in rows) or 1.0
        head = f"{'Node Name':<48}{'Ops':<48}{'Time(us)':>12}{'Time(%)':>9}  Shape"
        lines = [head, "-" * len(head)]
        for r in rows:
            lines.append(f"{r['name']:<48}{r['op']:<48}{r['time'] * 1e6:12.3f}"
                         f"{100 * r['time'] / total:9.3f}  {r['shape']}")
        lines.append(f"{'Total time':<96}{total * 1e6:12.3f}")
        return "\n".join(lines)

    def display_debug_result(self, sort_by_time: bool = True) -> None:
        print(self.get_debug_result(sort_by_time))


class GraphModuleDebug(GraphModule):
    """:class:`GraphModule` with per-node timing, outputs and dumps."""

    def _init_debug(self, dump_root: Optional[str]) -> None:
        g = self._graph
        self._kernels = []  # (node id, name, op, function, args, output entries)
        row_ptr = g["node_row_ptr"]
        ops = iter(self._ops)
        for nid, node in enumerate(g["nodes"]):
            if node["op"] == "null" or node["attrs"]["func_name"] == "__nop":
                continue
            f, args = next(ops)
            nout = int(node["attrs"].get("num_outputs", 1))
            self._kernels.append((nid, node["name"], node["attrs"]["func_name"], f, args,
                                  [row_ptr[nid] + i for i in range(nout)]))
        self._dump_root = dump_root
        self.debug_datum: Optional[DebugResult] = None

    def _time(self, k: int, number: int, repeat: int, min_repeat_ms: float) -> List[float]:
        _, _, fname, f, args, _ = self._kernels[k]
        timer = getattr(self.lib, "time_evaluator", None)
        if timer is not None and hasattr(f, "_cfn"):  # native timing of a compiled kernel
            return list(timer(fname, self.dev, number=number, repeat=repeat,
                              min_repeat_ms=min_repeat_ms)(*args).results)
        out = []
        for _ in range(repeat):
            n, t = number, 0.0
            while True:
                t0 = time.perf_counter()
                for _ in range(n):
                    f(*args)
                t = time.perf_counter() - t0
                if t * 1e3 >= min_repeat_ms or n >= 1 << 20:
                    break
                n *= 2
            out.append(t / n)
        return out

    def run_individual(self, number: int, repeat: int = 1, min_repeat_ms: float = 0,
                       limit_zero_time_iterations: int = 100, cooldown_interval_ms: int = 0,
                       repeats_to_cooldown: int = 1) -> List[List[float]]:
        """Seconds per run of every kernel node (graph order), ``repeat`` values each."""
        if number < 1 or repeat < 1:
            raise TVMError("run_individual: number and repeat must be positive")
        return [self._time(k, number, repeat, min_repeat_ms) for k in range(len(self._kernels))]

    def run_individual_node(self, index: int, number: int = 10, repeat: int = 1,
                            min_repeat_ms: float = 0, **kwargs) -> BenchmarkResult:
        """Times of kernel node ``index`` (an index into the graph's nodes)."""
        for k, kern in enumerate(self._kernels):
            if kern[0] == index:
                return BenchmarkResult(self._time(k, number, repeat, min_repeat_ms))
        raise TVMError(f"run_individual_node: node {index} is not a kernel of the graph")

    def run(self, number: int = 10, repeat: int = 1, min_repeat_ms: float = 1,
            limit_zero_time_iterations: int = 100, cooldown_interval_ms: int = 0,
            repeats_to_cooldown: int = 1, sort_by_time: bool = True, **input_dict) -> None:
        """Run the graph node by node (the outputs are the normal run's), time every kernel,
        print the table and dump what ``dump_root`` asks for."""
        if input_dict:
            self.set_input(**input_dict)
        GraphModule.run(self)
        shapes = self._graph["attrs"]["shape"][1]
        rows = []
        for k, (nid, name, fname, _, _, outs) in enumerate(self._kernels):
            t = float(np.median(self._time(k, number, repeat, min_repeat_ms)))
            rows.append({"name": name, "op": fname, "time": t, "node": nid,
                         "shape": shapes[outs[0]]})
        GraphModule.run(self)  # timing re-ran kernels in place: outputs as one run leaves them
        self.debug_datum = DebugResult(rows)
        if self._dump_root is not None:
            self._dump()
        self.debug_datum.display_debug_result(sort_by_time)

    def debug_get_output(self, node: Union[int, str], out=None):
        """The output of graph node ``node`` (its index or name) after the last run."""
        for nid, name, _, _, _, outs in self._kernels:
            if node in (nid, name):
                arr = self._entries[outs[0]]
                return out.copyfrom(arr) if out is not None else arr
        names = [k[1] for k in self._kernels]
        raise TVMError(f"debug_get_output: no kernel node {node!r} (nodes: {names[:8]}...)")

    def _dump(self) -> None:
        dev = f"_tvmdbg_device_{self.dev}".replace("(", "_").replace(")", "").replace(", ", "_")
        path = os.path.join(self._dump_root, dev)
        os.makedirs(path, exist_ok=True)
        with open(os.path.join(path, "_tvmdbg_graph_dump.json"), "w") as fh:
            fh.write(json.dumps(self._graph, indent=2))
        tensors = {f"{name}____topo-index:{nid}____output-num:{i}":
                   self._entries[e].numpy()
                   for nid, name, _, _, _, outs in self._kernels for i, e in enumerate(outs)}
        with open(os.path.join(path, "output_tensors.params"), "wb") as fh:
            fh.write(save_param_dict(tensors))


def create(graph_json_str: str, libmod, device, dump_root: Optional[str] = None
           ) -> GraphModuleDebug:
    """A :class:`GraphModuleDebug` for ``graph_json_str`` whose kernels are in ``libmod``."""
    dev = device[0] if isinstance(device, (list, tuple)) else device
    if not isinstance(graph_json_str, str):
        raise TVMError(f"debug_executor.create: the graph must be a JSON string, got "
                       f"{type(graph_json_str).__name__}")
    if hasattr(libmod, "_create_graph_executor"):
        raise TVMError("debug_executor.create: a module on an RPC server is not supported "
                       "(tvmlite does not implement the remote debug executor)")
    gm = GraphModuleDebug._create(graph_json_str, libmod, dev)
    gm._init_debug(dump_root)
    return gm
