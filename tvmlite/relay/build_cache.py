"""The network cache of ``relay.build``: a build in a new process of the same network (same
graph, params, target, pass configuration, tuning records and tvmlite sources) takes the
graph JSON, library and params the first build stored, skipping the passes, the lowering of
every kernel and the compiler.

The record goes through the driver's one disk-cache helper (``disk_record`` /
``store_disk_record``, a small JSON record beside the library in the kernel cache
directory); the params are a ``save_param_dict`` file next to it. The key is a SHA-256 of the
network's structure and weights, of what the driver's own build key holds (target, ISA flags,
opt_level, config, passes) and of the configs AutoTVM would give: the tuned records of the
``apply_history_best`` contexts in effect (every record with its cost: AlterOpLayout weighs
them all) and any config set by hand. Not cached: a GPU build (its library imports the
device code's module), a function without parameters (FoldConstant evaluating constant
sub-graphs), and a build with pass instruments, user intrinsic-lowering rules, operators or
strategies registered after import, or a dispatch context other than those.

The "Cannot find config" warnings of the fallback configs the first build used are given
again on a hit, once per workload per process, as a build would.
"""
from __future__ import annotations

import ast
import hashlib
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from ..autotvm.apply_history_best import ApplyGraphBest, ApplyHistoryBest
from ..autotvm.dispatch import DispatchContext, FallbackContext
from ..codegen.build_c import compile_flags
from ..contrib.cc import cache_dir
from ..contrib.param_dict import load_param_dict, save_param_dict
from ..contrib.utils import atomic_write
from ..driver.build_module import (
    _cache_key,
    _package_digest,
    _plain,
    disk_record,
    store_disk_record,
)
from ..ir.module import IRModule
from ..ir.op import has_lowering_rules
from ..runtime import ndarray as _nd
from ..target import Target
from .expr import Call, Constant, Function, TupleGetItem, Var, children, post_order
from .op import registry as _registry
from .qnn.op.qnn import current_requantize_config

stats = {"hits": 0, "misses": 0}


def _update_function(h, func: Function) -> None:
    """Feed ``func``'s structure into ``h``: one line per node, naming its children by their
    post-order index (variables by name and type, constants by their bytes)."""
    index: Dict[int, int] = {}
    for n in post_order(func):
        kids = [index[id(c)] for c in children(n)]
        if isinstance(n, Var):
            info: Any = (n.name_hint, str(n.type_annotation))
        elif isinstance(n, Constant):
            arr = np.ascontiguousarray(n.data.numpy())
            info = (arr.shape, str(arr.dtype))
            h.update(arr.tobytes())
        elif isinstance(n, Call):
            op = n.op.name if not isinstance(n.op, Function) else None
            info = (op, sorted((k, repr(v)) for k, v in (n.attrs or {}).items()))
        elif isinstance(n, TupleGetItem):
            info = n.index
        elif isinstance(n, Function):
            for p in n.params:
                index.setdefault(id(p), len(index))
            info = ([index[id(p)] for p in n.params], str(n.ret_type),
                    sorted((k, repr(v)) for k, v in n.attrs.items()) if n.attrs else None)
        else:
            info = None
        index.setdefault(id(n), len(index))
        h.update(repr((type(n).__name__, kids, info)).encode())
        h.update(b"\n")


def _dispatch_digest() -> Optional[str]:
    """The AutoTVM configs a build would see, as text; None under a context it cannot key."""
    parts: List[str] = []
    ctx = DispatchContext.current
    while ctx is not None:
        if isinstance(ctx, ApplyHistoryBest):
            parts.append(repr(sorted((repr(k), str(inp.config)) for k, (inp, _)
                                     in ctx.best_by_targetkey.items())))
            # AlterOpLayout weighs every record of a convolution, not only the best
            parts.append(repr(sorted((repr(k), sorted((c, str(inp.config)) for c, inp, _ in v))
                                     for k, v in ctx._all.items())))
            parts.append(repr(sorted((repr(k), str(c)) for k, c in ctx._best_user.items())))
            if isinstance(ctx, ApplyGraphBest):  # its records go to nodes in order
                parts.append(repr([(repr(inp.task.workload), str(inp.config))
                                   for inp, _ in ctx.nodes]))
        elif isinstance(ctx, FallbackContext):
            # configs set by hand (fallback configs are the same in every process)
            parts.append(repr(sorted((repr(k), str(c)) for k, c in ctx.memory.items()
                                     if not getattr(c, "is_fallback", False))))
            return "\n".join(parts)
        else:
            return None
        ctx = ctx._old_ctx
    return None


def network_key(func: Function, params: Dict[str, Any], target: Target) -> Optional[str]:
    """The network cache key of building ``func`` with ``params`` for ``target`` in the current
    PassContext and dispatch context (None: not cacheable)."""
    if has_lowering_rules() or _registry.generation() != _registry.builtin_generation():
        return None
    if not func.params:  # FoldConstant's one-off evaluation of constant sub-graphs
        return None
    if "gpu" in tuple(target.keys):  # the record holds no device module (CUDA source)
        return None
    build_key = _cache_key(IRModule({}), target, compile_flags(target))
    dispatch = _dispatch_digest()
    if build_key is None or dispatch is None or not _plain(build_key[6]):
        return None
    h = hashlib.sha256(b"relay.build network\n")
    _update_function(h, func)
    for name in sorted(params):
        value = params[name]
        arr = np.ascontiguousarray(value.numpy() if isinstance(value, _nd.NDArray)
                                   else np.asarray(value))
        h.update(repr((name, arr.shape, str(arr.dtype))).encode())
        h.update(arr.tobytes())
    h.update(repr(build_key[2:]).encode())
    h.update(dispatch.encode())
    h.update(repr(current_requantize_config()).encode())  # QNN lowering's defaults
    h.update(_package_digest().encode())
    return h.hexdigest()[:40]


def _root() -> FallbackContext:
    root = DispatchContext.current
    while not isinstance(root, FallbackContext):
        root = root._old_ctx
    return root


def fallback_keys() -> set:
    """The (target, workload) keys the root fallback context holds now."""
    return set(_root().memory)


def fallbacks_since(before: set) -> List[Tuple[str, str, int]]:
    """The fallback configs given since ``before`` (from :func:`fallback_keys`), in order:
    ``(target, workload repr, k)``, ``k`` the position of the entry whose config this one
    shares (AlterOpLayout gives a packed workload its plain one's config), else -1."""
    out: List[Tuple[str, str, int]] = []
    first: Dict[int, int] = {}
    for (target, workload), cfg in _root().memory.items():
        if (target, workload) in before:
            continue
        out.append((target, repr(workload), first.get(id(cfg), -1)))
        first.setdefault(id(cfg), len(out) - 1)
    return out


def lookup(key: Optional[str]) -> Optional[Tuple[str, Any, Dict[str, Any]]]:
    """``(graph_json, lib, params)`` stored under ``key``; the fallback warnings replayed."""
    hit = disk_record(key)
    if hit is None:
        return None
    lib, rec = hit
    try:
        graph_json = rec["graph_json"]
        params = load_param_dict((cache_dir() / rec["params"]).read_bytes())
        fallbacks = [(t, ast.literal_eval(w), int(k)) for t, w, k in rec["fallbacks"]]
    except (OSError, ValueError, KeyError, TypeError, SyntaxError):
        return None
    root = _root()
    for target, workload, k in fallbacks:
        if k < 0:  # queried: warns once per workload, as the build did
            root.query(target, workload)
        else:  # set by the build to the config of an earlier one
            root.update(target, workload, root.query(*fallbacks[k][:2]))
    stats["hits"] += 1
    return graph_json, lib, params


def store(key: Optional[str], graph_json: str, lib, params: Dict[str, Any],
          fallbacks) -> None:
    """Record a build under ``key``; ``fallbacks`` are the fallback configs it gave (from
    :func:`fallbacks_since`)."""
    stats["misses"] += key is not None
    if key is None or lib is None:
        return
    name = f"front_{key}.params"
    try:
        atomic_write(cache_dir() / name, save_param_dict(params))
    except OSError:
        return
    store_disk_record(key, lib, graph_json=graph_json, params=name,
                      fallbacks=[list(f) for f in fallbacks])
