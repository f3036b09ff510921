"""The graph executor (``tvm.contrib.graph_executor``): runs the graph JSON ``relay.build``
emits, calling one library function per node.

The JSON is classic TVM's: ``nodes`` (``null`` inputs/params and ``tvm_op`` kernels with
``attrs.func_name``), ``arg_nodes``, ``heads``, ``node_row_ptr`` and ``attrs`` holding
``shape``, ``dltype`` and ``storage_id`` per entry. Every entry's array is allocated once
and every kernel call is pre-packed, so ``run()`` is one native loop over the kernels (no
Python per node).
"""
from __future__ import annotations

import ctypes
import json
from functools import lru_cache
from typing import Any, Dict, List, Optional, Union

import numpy as np

from ..error import TVMError
from ..runtime import ndarray as _nd
from ..runtime.device import Device, cpu
from ..runtime.module import SECTION_FUNCTIONS, ExecutorModule, Module
from ..runtime.packed_func import register_func
from .cc import build_shared_cached
from .param_dict import load_param_dict, save_param_dict

_RUNNER_SOURCE = r"""
#include <stdint.h>
typedef int32_t (*tvml_fn)(void**, int32_t*, int32_t);
/* run kernels 0..n-1; 0 on success, else 1 + the index of the kernel that failed */
int64_t tvmlite_graph_run(int64_t n, void** fns, void*** args, int32_t** codes,
                          int32_t* nargs) {
  for (int64_t i = 0; i < n; ++i)
    if (((tvml_fn)fns[i])(args[i], codes[i], nargs[i]) != 0) return i + 1;
  return 0;
}
"""


@lru_cache(maxsize=None)
def _runner():
    lib = ctypes.CDLL(build_shared_cached(_RUNNER_SOURCE, ["-O2", "-fPIC", "-shared"]))
    fn = lib.tvmlite_graph_run
    fn.argtypes = [ctypes.c_int64] + [ctypes.c_void_p] * 4
    fn.restype = ctypes.c_int64
    return lib, fn


@lru_cache(maxsize=None)
def _keep_freed_memory() -> None:
    """Keep memory that kernels free in the process heap (glibc).

    Generated kernels allocate their workspaces on every call (padded inputs, per-tile
    accumulators inside parallel loops). By default glibc serves blocks of 128 KiB or more
    with ``mmap`` and gives the heap top back to the OS past 128 KiB, so each call faults its
    workspace pages in again: in a network's process, with its weights on the heap, that made
    whole kernels (a 1280-channel global pool: 28 ms instead of 0.05 ms; MobileNetV2 3-7x in
    all) slower. Classic TVM's graph executor keeps a workspace pool for the same reason.
    """
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc: nothing to tune
        return
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    m_trim_threshold, m_mmap_threshold = -1, -3
    mallopt(m_trim_threshold, 1 << 30)
    mallopt(m_mmap_threshold, 32 << 20)  # glibc's largest


def _allocate(shapes, dtypes, storage_id, dev) -> List[Any]:
    """One array per entry; entries sharing a storage id are views of one buffer."""
    if storage_id is None:
        return [_nd.empty(tuple(s), dt, dev) for s, dt in zip(shapes, dtypes)]
    sids = storage_id[1]
    if len(sids) != len(shapes):
        raise TVMError(f"graph executor: {len(sids)} storage ids for {len(shapes)} entries")
    size: Dict[int, int] = {}
    for shape, dt, sid in zip(shapes, dtypes, sids):
        nbytes = int(np.prod(shape, dtype=np.int64)) * np.dtype(dt).itemsize
        size[sid] = max(size.get(sid, 0), nbytes)
    pools = {sid: _nd.empty((max(n, 1),), "uint8", dev) for sid, n in size.items()}
    out = []
    for shape, dt, sid in zip(shapes, dtypes, sids):
        npdt = np.dtype(dt)
        count = int(np.prod(shape, dtype=np.int64))
        # a view of the pool's (aligned) bytes, wrapped without a copy
        buf = pools[sid]._arr[:count * npdt.itemsize].view(npdt).reshape(tuple(shape))
        out.append(_nd.NDArray(buf, dev, dt))
    return out


class GraphModule:
    """Executor of a compiled graph: ``set_input``, ``run``, ``get_output``.

    Build it from ``relay.build``'s result (``GraphModule(lib["default"](dev))``) or with
    :func:`create` from ``(graph_json, lib, dev)``.
    """

    def __new__(cls, module=None, dev: Optional[Device] = None):
        remote = getattr(module, "_as_graph_module", None)
        if remote is not None:  # rlib["default"](remote.cpu()): an executor on an RPC server
            return remote()
        return super().__new__(cls)

    def __init__(self, module, dev: Optional[Device] = None):
        if isinstance(module, GraphModule):
            self.__dict__.update(module.__dict__)
            return
        graph_json, lib, params = getattr(module, "_graph_parts", (None, None, None))
        if graph_json is None:
            raise TVMError("GraphModule expects the result of factory['default'](dev) or "
                           "graph_executor.create(graph_json, lib, dev)")
        self._init(graph_json, lib, dev or getattr(module, "_dev", None) or cpu(0))
        if params:
            self._set_params(params)

    def _set_params(self, params) -> None:
        """Set the build's params (inputs ``get_input_info`` leaves out)."""
        self.set_input(**params)
        self._param_names.update(params)

    @classmethod
    def _create(cls, graph_json: str, lib, dev: Device) -> "GraphModule":
        self = cls.__new__(cls)
        self._init(graph_json, lib, dev)
        return self

    def _init(self, graph_json: str, lib, dev: Device) -> None:
        try:
            g = json.loads(graph_json) if isinstance(graph_json, str) else dict(graph_json)
            nodes = g["nodes"]
            attrs = g["attrs"]
            shapes = attrs["shape"][1]
            dtypes = attrs["dltype"][1]
            row_ptr = g["node_row_ptr"]
            heads = g["heads"]
            arg_nodes = g["arg_nodes"]
        except (ValueError, KeyError, TypeError, IndexError) as e:
            raise TVMError(f"graph executor: malformed graph JSON ({type(e).__name__}: {e})") \
                from None
        self.dev = dev
        self.lib = lib
        self._graph = g
        self._graph_json = graph_json if isinstance(graph_json, str) else json.dumps(g)
        _keep_freed_memory()
        self._entries: List[Any] = _allocate(shapes, dtypes, attrs.get("storage_id"), dev)
        # inputs by position; a name shared by several inputs names the first (classic)
        self._input_entries = [row_ptr[nid] for nid in arg_nodes]
        self._input_index: Dict[str, int] = {}
        for nid in arg_nodes:
            self._input_index.setdefault(nodes[nid]["name"], row_ptr[nid])
        self._input_names = [nodes[nid]["name"] for nid in arg_nodes]
        self._param_names: set = set()  # inputs the build's (or loaded) params set
        self._ops = []
        self._op_names = []
        for nid, node in enumerate(nodes):
            if node["op"] == "null":
                continue
            if node["op"] != "tvm_op":
                raise TVMError(f"graph executor: node {node.get('name')!r} has unknown op "
                               f"{node['op']!r}")
            fname = node["attrs"]["func_name"]
            args = [self._entries[row_ptr[e[0]] + e[1]] for e in node["inputs"]]
            nout = int(node["attrs"].get("num_outputs", 1))
            args += [self._entries[row_ptr[nid] + i] for i in range(nout)]
            if fname == "__nop":
                continue
            self._ops.append((lib.get_function(fname), tuple(args)))
            self._op_names.append(node["name"])
        self._outputs = [row_ptr[h[0]] + h[1] for h in heads]
        self._native = self._pack_native()

    def _pack_native(self):
        """Argument arrays of every kernel for the native loop (None when a kernel is not a
        compiled C function, e.g. a remote one: then ``run`` calls them from Python)."""
        n = len(self._ops)
        if n == 0 or not all(hasattr(f, "_cfn") and hasattr(f, "pack") for f, _ in self._ops):
            return None
        keep = []
        fns = (ctypes.c_void_p * n)()
        argv = (ctypes.c_void_p * n)()
        codev = (ctypes.c_void_p * n)()
        nargs = (ctypes.c_int32 * n)()
        for i, (f, args) in enumerate(self._ops):
            a, codes, held = f.pack(args)
            keep.append((a, codes, held))
            fns[i] = ctypes.cast(f._cfn, ctypes.c_void_p).value
            argv[i] = ctypes.addressof(a)
            codev[i] = ctypes.addressof(codes)
            nargs[i] = len(args)
        keep.append((fns, argv, codev, nargs))
        return (_runner()[1], n, fns, argv, codev, nargs, keep)

    # ----------------------------------------------------------------------------- inputs
    def _input_entry(self, key: Union[int, str]) -> int:
        if isinstance(key, int):
            if not 0 <= key < len(self._input_names):
                raise TVMError(f"set_input: input index {key} out of range (the graph has "
                               f"{len(self._input_names)} inputs)")
            return self._input_entries[key]
        if key not in self._input_index:
            raise TVMError(f"set_input: the graph has no input named {key!r} (inputs: "
                           f"{self._input_names})")
        return self._input_index[key]

    def set_input(self, key: Union[int, str, None] = None, value=None, **params) -> None:
        """Copy ``value`` into input ``key`` (a name or an index); ``**params`` sets many."""
        if key is not None:
            self._set_one(key, value)
        for k, v in params.items():
            self._set_one(k, v)

    def _set_one(self, key, value) -> None:
        entry = self._input_entry(key)
        dst = self._entries[entry]
        src = value.numpy() if isinstance(value, _nd.NDArray) else np.asarray(value)
        if tuple(src.shape) != tuple(dst.shape):
            raise TVMError(f"set_input: input {key!r} expects shape {tuple(dst.shape)}, got "
                           f"{tuple(src.shape)}")
        if str(src.dtype) != dst.dtype:
            raise TVMError(f"set_input: input {key!r} expects dtype {dst.dtype}, got "
                           f"{src.dtype}")
        dst.copyfrom(src)

    def load_params(self, params_bytes: bytes) -> None:
        """Set inputs from a blob of ``relay.save_param_dict`` (names the graph does not have
        are ignored, as in classic TVM)."""
        params = load_param_dict(params_bytes)
        self._set_params({k: v for k, v in params.items() if k in self._input_index})

    def get_input(self, key: Union[int, str], out=None):
        """The array of input ``key``."""
        arr = self._entries[self._input_entry(key)]
        if out is not None:
            out.copyfrom(arr)
            return out
        return arr

    def get_input_index(self, name: str) -> int:
        """The index of the (first) input called ``name``; -1 if there is none."""
        try:
            return self._input_names.index(name)
        except ValueError:
            return -1

    def get_num_inputs(self) -> int:
        return len(self._input_names)

    def get_input_info(self):
        """``(shape_dict, dtype_dict)``: the shape and dtype of each input that is not a
        param (classic: Maps of ``ShapeTuple`` and ``String``)."""
        from ..ir.container import Map, ShapeTuple, String
        shapes, dtypes = {}, {}
        for name, eid in zip(self._input_names, self._input_entries):
            if name in self._param_names or name in shapes:
                continue
            arr = self._entries[eid]
            shapes[name] = ShapeTuple(list(arr.shape))
            dtypes[name] = String(str(arr.dtype))
        return Map(shapes), Map(dtypes)

    # ---------------------------------------------------------------------------- running
    def run(self, **inputs) -> None:
        """Set ``inputs`` (if any), then run every kernel in order."""
        if inputs:
            self.set_input(**inputs)
        if self._native is None:
            for f, args in self._ops:
                f(*args)
            return
        run, n, fns, argv, codev, nargs, _ = self._native
        failed = run(n, fns, argv, codev, nargs)
        if failed:  # call it again through Python for its error message
            f, args = self._ops[failed - 1]
            f(*args)
            raise TVMError(f"graph executor: kernel {self._op_names[failed - 1]} failed")

    def get_num_outputs(self) -> int:
        return len(self._outputs)

    def get_output(self, index: int, out=None):
        """Output ``index`` (an NDArray; copied into ``out`` when given)."""
        if not 0 <= index < len(self._outputs):
            raise TVMError(f"get_output: index {index} out of range (the graph has "
                           f"{len(self._outputs)} outputs)")
        arr = self._entries[self._outputs[index]]
        if out is not None:
            out.copyfrom(arr)
            return out
        return arr

    def benchmark(self, device=None, func_name: str = "run", repeat: int = 5, number: int = 5,
                  min_repeat_ms: Optional[float] = None, limit_zero_time_iterations: int = 100,
                  end_to_end: bool = False, cooldown_interval_ms: int = 0,
                  repeats_to_cooldown: int = 1, **kwargs):
        """Time ``func_name`` (``run``) through ``self.module.time_evaluator`` (seconds per
        run in a ``BenchmarkResult``); ``end_to_end`` times setting the inputs ``kwargs``
        too."""
        min_repeat_ms = 0 if min_repeat_ms is None else min_repeat_ms
        dev = device if device is not None else self.dev
        opts = dict(repeat=repeat, number=number, min_repeat_ms=min_repeat_ms,
                    limit_zero_time_iterations=limit_zero_time_iterations,
                    cooldown_interval_ms=cooldown_interval_ms,
                    repeats_to_cooldown=repeats_to_cooldown)
        if end_to_end:
            flat = [x for kv in kwargs.items() for x in kv]
            return self.module.time_evaluator("run_from_inputs", dev, **opts)(
                dev.device_type, dev.device_id, *flat)
        if kwargs:
            self.set_input(**kwargs)
        return self.module.time_evaluator(func_name, dev, **opts)()

    @property
    def module(self) -> Module:
        """The executor as a runtime module (classic ``GraphModule.module``)."""
        return ExecutorModule(self.get_function, "GraphExecutor")

    def _run_from_inputs(self, device_type: int, device_id: int, *name_values) -> None:
        """Classic ``run_from_inputs``: set inputs from ``name, value`` pairs, then run."""
        if len(name_values) % 2:
            raise TVMError("run_from_inputs: expected name, value pairs")
        for k, v in zip(name_values[::2], name_values[1::2]):
            self.set_input(k, v)
        self.run()

    def get_graph_json(self) -> str:
        """The graph JSON this executor runs."""
        return self._graph_json

    def __getitem__(self, name: str):
        return getattr(self, name)

    # the functions a remote client may call (classic: the executor is a module of them)
    _FUNCTIONS = ("set_input", "run", "get_output", "get_input", "get_num_outputs",
                  "get_num_inputs", "load_params", "benchmark", "get_graph_json")

    def get_function(self, name: str, query_imports: bool = False):
        """The executor's function ``name`` (``set_input``, ``run``, ``get_output`` …)."""
        if name == "run_from_inputs":
            return self._run_from_inputs
        if name not in self._FUNCTIONS:
            raise TVMError(f"the graph executor has no function {name!r} (it has "
                           f"{', '.join(self._FUNCTIONS)})")
        return getattr(self, name)


def set_params(gm, params: Dict[str, Any]) -> None:
    """Set a build's ``params`` on executor ``gm`` (a local one records them as params; a
    remote one just takes them as inputs)."""
    if isinstance(gm, GraphModule):
        gm._set_params(params)
    else:
        gm.set_input(**params)


def create(graph_json_str: str, libmod, device, *more_devices) -> GraphModule:
    """A :class:`GraphModule` for ``graph_json_str`` whose kernels are in ``libmod``."""
    dev = device[0] if isinstance(device, (list, tuple)) else device
    if not isinstance(graph_json_str, str):
        raise TVMError(f"graph_executor.create: the graph must be a JSON string, got "
                       f"{type(graph_json_str).__name__}")
    remote = getattr(libmod, "_create_graph_executor", None)
    if remote is not None:  # a module loaded on an RPC server: the executor runs there
        return remote(graph_json_str, dev)
    return GraphModule._create(graph_json_str, libmod, dev)


register_func("tvm.graph_executor.create", create, override=True)


# ------------------------------------------------------------------ an exported network
#: the ELF sections of a library exported by ``relay.build``'s factory: the graph JSON with
#: the module name, and the params in ``save_param_dict``'s format
GRAPH_SECTION = ".tvmlite_graph"
PARAMS_SECTION = ".tvmlite_params"


def factory_sections(graph_json: str, params: Dict[str, Any],
                     module_name: str = "default") -> Dict[str, bytes]:
    """The sections ``export_library`` adds to the kernel library of a network."""
    head = json.dumps({"module_name": module_name, "graph_json": graph_json})
    return {GRAPH_SECTION: head.encode(), PARAMS_SECTION: save_param_dict(params)}


def _factory_function(lib: Module, name: str):
    """The classic factory's functions of a library loaded back from an exported network:
    ``lib[module_name](dev)`` (an executor with the params set), ``get_graph_json``,
    ``get_graph_params``."""
    try:
        head = json.loads(lib.read_section(GRAPH_SECTION).decode())
        module_name, graph_json = head["module_name"], head["graph_json"]
    except (ValueError, KeyError, TypeError, UnicodeDecodeError) as e:
        raise TVMError(f"{lib.library_path}: the network's graph section is corrupted "
                       f"({type(e).__name__}: {e})") from None

    def params() -> Dict[str, Any]:
        blob = lib.read_section(PARAMS_SECTION)
        return load_param_dict(blob) if blob is not None else {}

    def instantiate(device, *more_devices) -> GraphModule:
        gm = create(graph_json, lib, device, *more_devices)
        set_params(gm, params())
        return gm

    return {module_name: instantiate, "get_graph_json": lambda: graph_json,
            "get_graph_params": params}.get(name)


SECTION_FUNCTIONS[GRAPH_SECTION] = _factory_function
