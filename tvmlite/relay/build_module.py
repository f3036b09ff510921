"""``relay.build``: type inference, fusion, one PrimFunc per fused group (each op's TOPI
compute, the anchor op's schedule) built by the one lowering pipeline into one library, and
the graph JSON the graph executor runs."""
from __future__ import annotations

import json
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

import numpy as np

from ..autotvm.dispatch import DispatchContext
from ..contrib.graph_executor import create, factory_sections, set_params
from ..driver.build_module import _to_module
from ..driver.build_module import build as tir_build
from ..error import TVMError
from ..ir.module import IRModule
from ..ir.transform import PassContext, Sequential
from ..runtime import ndarray as _nd
from ..target import Target
from ..te.operation import PlaceholderOp, compute, placeholder
from ..te.schedule import create_schedule
from ..te.tensor import Tensor
from ..tir.op import const
from ..topi.math import identity as topi_identity
from . import build_cache
from .backend import check_supported
from .expr import (
    Call,
    Constant,
    Expr,
    Function,
    Let,
    TupleGetItem,
    Var,
    dataflow_children,
    post_order,
    with_children,
)
from .expr import Tuple as RTuple
from .op.registry import Op
from .printer import astext
from .qnn.transform import CanonicalizeOps as QnnCanonicalizeOps
from .qnn.transform import Legalize as QnnLegalize
from .transform import (
    AlterOpLayout,
    EliminateCommonSubexpr,
    FastMath,
    FlattenAtrousConv,
    FoldConstant,
    FuseOps,
    InferType,
    Legalize,
    SimplifyInference,
)
from .transform.fuse_ops import group_name
from .transform.infer_type import infer_type
from .ty import TensorType, TupleType, check_static, type_str


def build_config(opt_level: int = 2, required_pass=None, disabled_pass=None,
                 trace=None, config=None) -> PassContext:
    """The classic ``relay.build_config``: a :class:`tvm.transform.PassContext`."""
    return PassContext(opt_level=opt_level, required_pass=required_pass,
                       disabled_pass=disabled_pass, trace=trace, config=config)


def bind_params_by_name(func: Function, params: Dict[str, Any]) -> Function:
    """``func`` with the parameters named in ``params`` replaced by constants (and its let
    bindings inlined: the graph executor runs dataflow graphs)."""
    by_name: Dict[str, Var] = {}
    for p in func.params:
        if p.name_hint in by_name and p.name_hint in params:
            raise TVMError(f"bind_params_by_name: several parameters are named "
                           f"{p.name_hint!r}")
        by_name[p.name_hint] = p
    memo: Dict[int, Expr] = {}
    for name, value in params.items():
        if name not in by_name:
            continue  # classic TVM ignores params the function does not take
        p = by_name[name]
        want = p.type_annotation
        if isinstance(value, (bool, int, float)) and isinstance(want, TensorType) \
                and np.asarray(value, dtype=want.dtype).item() == value:
            value = np.asarray(value, dtype=want.dtype)  # a Python number fitting the type
        arr = value if isinstance(value, _nd.NDArray) else _nd.array(np.asarray(value))
        if isinstance(want, TensorType) and (tuple(arr.shape) != want.shape
                                             or arr.dtype != want.dtype):
            raise TVMError(f"relay.build: param {name!r} has shape {tuple(arr.shape)} and "
                           f"dtype {arr.dtype}, the function expects {type_str(want)}")
        memo[id(p)] = Constant(arr)
    kept = [p for p in func.params if id(p) not in memo]
    nodes = post_order(func.body)
    let_value = {id(n.var): n.value for n in nodes if isinstance(n, Let)}
    if not memo and not let_value:
        return func
    for n in nodes:
        if id(n) in memo:
            continue
        if isinstance(n, Var) and id(n) in let_value:
            memo[id(n)] = memo[id(let_value[id(n)])]  # the value is walked before the body
        elif isinstance(n, Let):
            memo[id(n)] = memo[id(n.body)]
        else:
            memo[id(n)] = with_children(n, memo)
    return Function(kept, memo[id(func.body)], func.ret_type, func.type_params, func.attrs)


# ------------------------------------------------------------------------------- lowering
def _anchor(nodes: List[Expr]) -> Call:
    calls = [n for n in nodes if isinstance(n, Call)]
    if not calls:
        raise TVMError("relay.build: a fused function without an operator call")
    best = calls[-1]
    for c in calls:
        if c.op.pattern > best.op.pattern:
            best = c
    return best


class _ScalarConstant(Tensor):
    """A scalar constant a fused function keeps (classic's 0-d ``compile_engine_const``
    stage) whose element loads are the constant itself: consumers fold it in, and no stage
    is left to inline (a 256-op chain has 128 of them; inlining each walks the whole kernel)."""

    __slots__ = ("value",)

    def __call__(self, *indices):
        super().__call__(*indices)  # the same checks as any tensor's
        return self.value

    def __getitem__(self, indices):
        super().__getitem__(indices)
        return self.value


def _scalar_stage(c: Constant) -> Tensor:
    """Scalar constant ``c`` (one the fused function keeps) as a 0-d tensor whose loads are
    the constant."""
    value = const(c.data.numpy().item(), str(c.data.dtype))
    stage = compute((), lambda: value, name="compile_engine_const", tag="broadcast")
    out = _ScalarConstant(stage.shape, stage.dtype, stage.op, 0)
    out.value = value
    return out


def lower_primitive(func: Function, target: Target, name: str) -> IRModule:
    """One fused function as an (unlowered) PrimFunc ``name``: every op computed by its TOPI
    compute, the group scheduled by its anchor op's strategy."""
    values: Dict[int, Any] = {}
    args = []
    empty = [t for t in [p.checked_type for p in func.params] + [func.body.checked_type]
             if isinstance(t, TensorType) and 0 in t.shape]
    gpu = "gpu" in getattr(target, "keys", ())
    if empty and gpu:
        raise TVMError(f"relay.build: fused function {name} has a zero-size tensor "
                       f"{type_str(empty[0])}; empty tensors are supported on CPU targets only")
    # with an empty tensor the generic computes under the default schedule: tuned templates
    # and schedules tile axes, which an extent of 0 cannot be
    chosen = _GENERIC if empty else target
    for p in func.params:
        # a tuple argument (a tuple another kernel's fields make) is passed field by field
        t = p.checked_type
        fields = list(t.fields) if isinstance(t, TupleType) else [t]
        if not all(isinstance(f, TensorType) for f in fields):
            raise TVMError(f"relay.build: fused function {name} takes a {type_str(t)}; only "
                           "tensor arguments and tuples of tensors are supported")
        if isinstance(t, TupleType):
            phs = [placeholder(f.shape, f.dtype, name=f"{p.name_hint}_{i}")
                   for i, f in enumerate(fields)]
            values[id(p)] = phs
        else:
            phs = [placeholder(t.shape, t.dtype, name=p.name_hint)]
            values[id(p)] = phs[0]
        args.extend(phs)
    nodes = [n for n in post_order(func.body) if not isinstance(n, Var)]
    for n in nodes:
        if isinstance(n, Call):
            if gpu and "gpu" not in n.op.strategies:
                raise TVMError(f"relay.build: operator {n.op.name} has no GPU strategy (it "
                               f"has {sorted(n.op.strategies)}); it cannot run on {target}")
            fcompute, _ = n.op.strategy(chosen)
            ins = []
            for a in n.args:
                v = values[id(a)]
                ins.extend(v if isinstance(v, list) else [v])
            outs = fcompute(n.attrs, ins, n.checked_type)
            values[id(n)] = list(outs) if isinstance(n.checked_type, TupleType) else outs[0]
        elif isinstance(n, RTuple):
            values[id(n)] = [values[id(f)] for f in n.fields]
        elif isinstance(n, TupleGetItem):
            values[id(n)] = values[id(n.tuple_value)][n.index]
        elif isinstance(n, Constant) and n.data.shape == ():
            # a scalar FuseOps kept inside: a 0-d stage the consumers' schedule inlines
            values[id(n)] = _scalar_stage(n)
        else:
            raise TVMError(f"relay.build: {type(n).__name__} inside a fused function")
    out = values[id(func.body)]
    outs = [out]
    if isinstance(func.body.checked_type, TupleType):
        # a multi-output kernel (topk's values and indices): flat tuples of tensors only
        ok = isinstance(out, (list, tuple)) and all(isinstance(o, Tensor) for o in out)
        if not ok or len({id(o) for o in out}) != len(out):
            raise TVMError(f"relay.build: fused function {name} returns a tuple "
                           f"{type_str(func.body.checked_type)}; only its fields can be used "
                           "(e.g. nn.batch_norm(...)[0])")
        outs = list(out)
    # an output that is an input passed through (batch_norm's moving mean and variance) is
    # copied: a kernel's outputs are stages it computes
    outs = [topi_identity(o) if isinstance(o.op, PlaceholderOp) else o for o in outs]
    if empty:
        sch = create_schedule([o.op for o in outs])
    else:
        anchor = _anchor(nodes)
        _, fschedule = anchor.op.strategy(target)
        sch = fschedule(anchor.attrs, outs, target)
    return _to_module(sch, args + outs, name, None)


#: a target whose strategies are the generic ones
_GENERIC = Target("llvm -keys=generic")


# ---------------------------------------------------------------------------- graph codegen
class _GraphCodegen:
    def __init__(self, func: Function, target: Target):
        self.target = target
        self.nodes: List[dict] = []
        self.shapes: List[List[int]] = []
        self.dtypes: List[str] = []
        self.row_ptr: List[int] = [0]
        self.arg_nodes: List[int] = []
        self.params: Dict[str, Any] = {}
        self.funcs: Dict[str, str] = {}  # function text -> kernel name
        self.lowered = IRModule({})
        self.entry: Dict[int, List[Tuple[int, int]]] = {}
        self.func = func
        self._input_names: Optional[set] = None
        self.alias: Dict[int, int] = {}  # a __nop's output entry -> its input entry
        self.lower = True  # False: plan the graph only (no kernel is compiled)
        self.exprs: Dict[int, Expr] = {}  # the nodes with entries, by id
        self.first_size: List[int] = []  # per storage: bytes of the entry it was made for

    def _add_node(self, node: dict, types: List[TensorType]) -> int:
        nid = len(self.nodes)
        self.nodes.append(node)
        for t in types:
            self.shapes.append(list(t.shape))
            self.dtypes.append(t.dtype)
        self.row_ptr.append(self.row_ptr[-1] + len(types))
        return nid

    def _input(self, name: str, t) -> List[Tuple[int, int]]:
        if not isinstance(t, TensorType):
            raise TVMError(f"relay.build: input {name!r} has type {type_str(t)}; only tensor "
                           "inputs are supported")
        nid = self._add_node({"op": "null", "name": name, "inputs": []}, [t])
        self.arg_nodes.append(nid)
        return [(nid, 0)]

    def _constant(self, c: Constant) -> List[Tuple[int, int]]:
        """The graph input of constant ``c`` (a param of its own, once per constant)."""
        if id(c) not in self.entry:
            # p0, p1 ... skipping the names of the function's own inputs: a parameter named
            # "p0" must not take a constant's value
            if self._input_names is None:
                self._input_names = {p.name_hint for p in self.func.params}
            k = len(self.params)
            while f"p{k}" in self._input_names or f"p{k}" in self.params:
                k += 1
            name = f"p{k}"
            self.params[name] = c.data
            self.entry[id(c)] = self._input(name, c.checked_type)
        return self.entry[id(c)]

    def _kernel(self, call: Call) -> List[Tuple[int, int]]:
        if is_reshape_only(call.op):
            return self._nop(call)
        prim, lifted = _lift_constants(call.op)
        text = astext(prim)
        fname = self.funcs.get(text)
        if fname is None:
            base = group_name(prim)
            fname = base
            k = 0
            while fname in self.lowered:
                k += 1
                fname = f"{base}_{k}"
            self.funcs[text] = fname
            self.lowered[fname] = lower_primitive(prim, self.target, fname)[fname] \
                if self.lower else prim
        inputs = []
        for a in call.args:
            inputs.extend(self.entry[id(a)])
        for c in lifted:
            inputs.extend(self._constant(c))
        t = call.checked_type
        types = list(t.fields) if isinstance(t, TupleType) else [t]
        if not types or not all(isinstance(f, TensorType) for f in types):
            raise TVMError(f"relay.build: kernel {fname} returns {type_str(t)}")
        nid = self._add_node({"op": "tvm_op", "name": fname,
                              "attrs": {"func_name": fname, "num_inputs": str(len(inputs)),
                                        "num_outputs": str(len(types)), "flatten_data": "0"},
                              "inputs": [[e[0], e[1], 0] for e in inputs]}, types)
        return [(nid, i) for i in range(len(types))]

    def _nop(self, call: Call) -> List[Tuple[int, int]]:
        """A reshape-only function: a ``__nop`` node whose output shares its input's
        storage (classic: the flat bytes are the same, nothing runs)."""
        (src,) = self.entry[id(call.args[0])]
        nid = self._add_node({"op": "tvm_op", "name": group_name(call.op),
                              "attrs": {"func_name": "__nop", "num_inputs": "1",
                                        "num_outputs": "1", "flatten_data": "0"},
                              "inputs": [[src[0], src[1], 0]]}, [call.checked_type])
        self.alias[self.row_ptr[nid]] = self.row_ptr[src[0]] + src[1]
        return [(nid, 0)]

    def _plan_storage(self, heads: List[List[int]]) -> List[int]:
        """A storage id per entry (classic's plan): a kernel's output takes a free storage
        of a similar size (:func:`_reuse`), grown if needed, or a new one, before the
        kernel's inputs are released, so an output never aliases an input; a ``__nop``'s
        output is its input's storage. Inputs and params keep storages of their own; the
        storage of an input or an output is never freed, any other is free again once no
        entry in it is read any more."""
        n_entries = len(self.shapes)
        inputs = {self.row_ptr[nid] for nid in self.arg_nodes}
        pinned = inputs | {self.row_ptr[h[0]] + h[1] for h in heads}
        refs = [0] * n_entries
        for node in self.nodes:
            for nid, idx, _ in node["inputs"]:
                refs[self.row_ptr[nid] + idx] += 1
        sid = [-1] * n_entries
        sizes: List[int] = []
        free: List[int] = []
        storage_refs: Dict[int, int] = {}
        pinned_storage: set = set()
        for nid, node in enumerate(self.nodes):
            for eid in range(self.row_ptr[nid], self.row_ptr[nid + 1]):
                if eid in self.alias:
                    sid[eid] = sid[self.alias[eid]]
                else:
                    need = _nbytes(self.shapes[eid], self.dtypes[eid])
                    best = None if eid in inputs else _reuse(free, sizes, need)
                    if best is not None:
                        free.remove(best)
                        sizes[best] = max(sizes[best], need)
                        sid[eid] = best
                    else:
                        sid[eid] = len(sizes)
                        sizes.append(need)
                        self.first_size.append(need)
                storage_refs[sid[eid]] = storage_refs.get(sid[eid], 0) + refs[eid]
                if eid in pinned:
                    pinned_storage.add(sid[eid])
            for in_nid, idx, _ in node["inputs"]:
                s = sid[self.row_ptr[in_nid] + idx]
                storage_refs[s] -= 1
                if storage_refs[s] == 0 and s not in pinned_storage:
                    free.append(s)
        return sid

    def run(self) -> str:
        for p in self.func.params:
            self.entry[id(p)] = self._input(p.name_hint, p.checked_type)
            self.exprs[id(p)] = p
        for n in post_order(self.func.body, dataflow_children):
            if id(n) in self.entry:
                continue
            self.exprs[id(n)] = n
            if isinstance(n, Var):
                raise TVMError(f"relay.build: free variable %{n.name_hint}")
            if isinstance(n, Constant):
                self._constant(n)
            elif isinstance(n, Call) and isinstance(n.op, Function):
                self.entry[id(n)] = self._kernel(n)
            elif isinstance(n, RTuple):
                self.entry[id(n)] = [e for f in n.fields for e in self.entry[id(f)]]
            elif isinstance(n, TupleGetItem):
                # a tuple's entries are its leaves, flattened: field i is a run of them
                fields = n.tuple_value.checked_type.fields
                start = sum(_leaf_count(f) for f in fields[:n.index])
                self.entry[id(n)] = self.entry[id(n.tuple_value)][
                    start:start + _leaf_count(fields[n.index])]
            elif isinstance(n, Call) and isinstance(n.op, Op):
                raise TVMError(f"relay.build: operator {n.op.name} was not fused into a "
                               "primitive function")
            else:
                raise TVMError(f"relay.build: {type(n).__name__} is not supported by the "
                               "graph executor (control flow runs on the VM: "
                               "relay.vm.compile)")
        heads = [[nid, idx, 0] for nid, idx in self.entry[id(self.func.body)]]
        self.storage_ids = self._plan_storage(heads)
        graph = {
            "nodes": self.nodes,
            "arg_nodes": self.arg_nodes,
            "heads": heads,
            "attrs": {"shape": ["list_shape", self.shapes],
                      "dltype": ["list_str", self.dtypes],
                      "storage_id": ["list_int", self.storage_ids]},
            "node_row_ptr": self.row_ptr,
        }
        return json.dumps(graph, indent=2)


class StorageInfo:
    """Where one expression's values live (classic ``relay.StorageInfo``): a storage id,
    a device type and a size in bytes per tensor of its value."""

    def __init__(self, storage_ids: List[int], device_types: List[int],
                 storage_sizes: List[int]):
        self.storage_ids = storage_ids
        self.device_types = device_types
        self.storage_sizes = storage_sizes

    def __repr__(self) -> str:
        return (f"StorageInfo(storage_ids={self.storage_ids}, device_types="
                f"{self.device_types}, storage_sizes={self.storage_sizes})")


class StaticMemoryPlan:
    """Classic ``relay.backend.StaticMemoryPlan``: ``expr_to_storage_info`` maps each
    parameter and each value the graph computes to its :class:`StorageInfo`."""

    def __init__(self, expr_to_storage_info: Dict[Expr, StorageInfo]):
        self.expr_to_storage_info = expr_to_storage_info


def plan_memory(func: Function) -> StaticMemoryPlan:
    """The graph executor's storage plan of fused, typed ``func`` (``FuseOps`` then
    ``InferType``; classic ``GraphPlanMemory``) without compiling its kernels. A storage's
    size is that of the tensor it was made for (classic); the executor allocates the largest
    tensor placed in it."""
    if not isinstance(func, Function):
        raise TVMError(f"GraphPlanMemory expects a relay Function, got {type(func).__name__}")
    cg = _GraphCodegen(func, Target("llvm"))
    cg.lower = False
    cg.run()
    plan: Dict[Expr, StorageInfo] = {}
    for key, entries in cg.entry.items():
        expr = cg.exprs.get(key)
        if expr is None or not entries:
            continue
        ids = [cg.storage_ids[cg.row_ptr[nid] + idx] for nid, idx in entries]
        plan[expr] = StorageInfo(ids, [1] * len(ids), [cg.first_size[i] for i in ids])
    return StaticMemoryPlan(plan)


#: a free storage is reused for a request of ``need`` bytes when its size is within this
#: factor of ``need`` (classic's ``match_range``)
MATCH_RANGE = 16


def _reuse(free: List[int], sizes: List[int], need: int) -> Optional[int]:
    """The free storage a request of ``need`` bytes takes (classic's 1-D token allocator):
    the smallest of at least ``need`` bytes and at most ``need * MATCH_RANGE``, else the
    largest smaller one of at least ``need // MATCH_RANGE`` (it grows); None: allocate."""
    larger = [(sizes[s], k) for k, s in enumerate(free)
              if need <= sizes[s] <= need * MATCH_RANGE]
    if larger:
        return free[min(larger)[1]]
    smaller = [(sizes[s], k) for k, s in enumerate(free)
               if need // MATCH_RANGE <= sizes[s] < need]
    return free[max(smaller)[1]] if smaller else None


#: operators that only reinterpret their input's flat data (classic ``TReshapeOp``)
RESHAPE_OPS = frozenset(("reshape", "contrib_reverse_reshape", "squeeze", "expand_dims",
                         "nn.batch_flatten", "dyn.reshape", "dyn.squeeze"))


def is_reshape_only(prim: Function) -> bool:
    """Whether primitive function ``prim`` only reshapes its one tensor parameter (classic
    ``relay.reshape_only``): its output is then the input's storage, nothing runs."""
    if len(prim.params) != 1 or not isinstance(prim.params[0].checked_type, TensorType) \
            or not isinstance(prim.body, Call):
        return False
    n = prim.body
    while isinstance(n, Call):
        if not isinstance(n.op, Op) or n.op.name not in RESHAPE_OPS or len(n.args) != 1:
            return False
        n = n.args[0]
    return n is prim.params[0] and isinstance(prim.body.checked_type, TensorType)


def _lift_constants(prim: Function) -> Tuple[Function, List[Constant]]:
    """``prim`` with the tensor constants in its body (``relay.FuseOps.link_params`` keeps
    them there) made parameters of their own, and those constants: the kernel reads them
    as inputs, as it reads any other param."""
    consts = [n for n in post_order(prim.body)
              if isinstance(n, Constant) and n.data.shape != ()]
    if not consts:
        return prim, []
    memo: Dict[int, Expr] = {}
    params = list(prim.params)
    for c in consts:
        v = Var(f"p{len(params)}", c.checked_type)
        v._checked_type = c.checked_type
        params.append(v)
        memo[id(c)] = v
    for n in post_order(prim.body):
        if id(n) not in memo:
            memo[id(n)] = with_children(n, memo)
    new = Function(params, memo[id(prim.body)], prim.ret_type, prim.type_params, prim.attrs)
    infer_type(new)
    return new, consts


def _leaf_count(ty) -> int:
    """The number of tensors a value of type ``ty`` holds (a nested tuple's leaves)."""
    if isinstance(ty, TupleType):
        return sum(_leaf_count(f) for f in ty.fields)
    return 1


def _nbytes(shape: List[int], dtype: str) -> int:
    return int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize



# ------------------------------------------------------------------------------- factory
class GraphExecutorFactoryModule:
    """What ``relay.build`` returns: the graph JSON, the library and the params.

    Unpacks as ``graph_json, lib, params = relay.build(...)``; ``factory["default"](dev)``
    gives the module ``graph_executor.GraphModule`` wraps. ``ir_mod`` is the fused relay
    module that was lowered (given as a function to call when it is asked for: a build taken
    from the network cache runs the passes again only then).
    """

    def __init__(self, graph_json: str, lib, params: Dict[str, Any], mod_name: str = "default",
                 ir_mod: Union[IRModule, Callable[[], IRModule], None] = None):
        self.graph_json = graph_json
        self.lib = lib
        self.params = params
        self.libmod_name = mod_name
        self._ir_mod = ir_mod

    @property
    def ir_mod(self) -> Optional[IRModule]:
        if callable(self._ir_mod):
            self._ir_mod = self._ir_mod()
        return self._ir_mod

    def get_graph_json(self) -> str:
        return self.graph_json

    def get_lib(self):
        return self.lib

    def get_params(self) -> Dict[str, Any]:
        return self.params

    def __iter__(self):
        return iter((self.graph_json, self.lib, self.params))

    def __getitem__(self, key: str):
        extra = {"get_graph_json": self.get_graph_json, "get_graph_params": self.get_params}
        if key in extra:
            return extra[key]
        if key != self.libmod_name:
            raise TVMError(f"the factory module holds {self.libmod_name!r}, not {key!r}")
        return self._instantiate

    def _instantiate(self, dev):
        gm = create(self.graph_json, self.lib, dev)
        set_params(gm, self.params)
        return gm

    def get_source(self, fmt: str = "") -> str:
        return self.lib.get_source(fmt)

    def export_library(self, file_name: str, *args, **kwargs) -> None:
        """Export the whole network (``.so`` or ``.tar``): the kernel library with the graph
        JSON and the params inside. ``lib = tvm.runtime.load_module(file_name)`` gives it
        back; ``lib["default"](dev)`` is an executor with the params set (and the library
        alone still runs with ``graph_executor.create(graph_json, lib, dev)``)."""
        if self.lib is None:
            raise TVMError("export_library: the network has no kernels (its outputs are its "
                           "inputs or constants), so there is no library to export")
        sections = factory_sections(self.graph_json, self.params, self.libmod_name)
        self.lib.export_library(file_name, *args, sections=sections, **kwargs)


def _main_function(mod) -> Function:
    func = _find_main(mod)
    for p in func.params:
        if p.type_annotation is not None:
            check_static(p.type_annotation, f"relay.build: parameter %{p.name_hint}")
    return func


def _find_main(mod) -> Function:
    if isinstance(mod, Function):
        return mod
    if isinstance(mod, IRModule):
        if "main" not in mod:
            raise TVMError("relay.build: the module has no 'main' function")
        func = mod["main"]
        if not isinstance(func, Function):
            raise TVMError(f"relay.build: 'main' is a {type(func).__name__}, not a relay "
                           "Function")
        return func
    raise TVMError(f"relay.build expects an IRModule or a relay Function, got "
                   f"{type(mod).__name__}")


def optimize(ir_mod, params: Optional[Dict[str, Any]] = None) -> IRModule:
    """``main`` with ``params`` bound, typed and optimized as ``relay.build`` does before
    fusion (under the current target and PassContext). Classic's order: QNN operators
    legalized for the target and lowered to core operators, Legalize (the operators'
    registered callbacks), SimplifyInference, EliminateCommonSubexpr (opt_level 3: skipped
    below it), FoldConstant, FlattenAtrousConv, then FastMath (opt_level 4) and FoldConstant
    again."""
    func = bind_params_by_name(_main_function(ir_mod), params or {})
    return Sequential([InferType(), QnnLegalize(), QnnCanonicalizeOps(), Legalize(),
                       SimplifyInference(), EliminateCommonSubexpr(), FoldConstant(),
                       FlattenAtrousConv(), FastMath(), FoldConstant()],
                      name="relay.optimize")(IRModule({"main": func}))


def resolve_target(target, target_host=None) -> Target:
    """The target ``relay.build`` compiles for: llvm, c or cuda (a one-entry dict, a string
    or a Target; the current target, else llvm, when None)."""
    if isinstance(target, dict):
        if len(target) != 1:
            raise TVMError("relay.build: heterogeneous targets are not supported yet")
        (target,) = target.values()
    if target is None:
        target = Target.current(allow_none=True) or "llvm"
    tgt = target if isinstance(target, Target) else Target(target, host=target_host)
    if tgt.kind.name not in ("llvm", "c", "cuda"):
        raise TVMError(f"relay.build: target {tgt.kind.name!r} is not supported yet")
    return tgt


def build(ir_mod, target=None, target_host=None, params: Optional[Dict[str, Any]] = None,
          mod_name: str = "default", executor=None, runtime=None) -> GraphExecutorFactoryModule:
    """Compile a relay module for ``target`` (``relay.build``).

    Returns
    -------
    GraphExecutorFactoryModule
        Unpacks as ``(graph_json, lib, params)``; the params are the module's constants
        (and the bound ``params``) by the names the graph gives them.
    """
    check_supported(executor, runtime)
    tgt = resolve_target(target, target_host)
    with tgt:
        key = build_cache.network_key(_main_function(ir_mod), params or {}, tgt)
        hit = build_cache.lookup(key)
        if hit is not None:
            graph_json, lib, built_params = hit
            ctx = PassContext.current()
            dispatch = DispatchContext.current  # the configs the build saw (a tuning log)

            def fused() -> IRModule:
                with tgt, ctx:
                    if DispatchContext.current is dispatch:
                        return _fuse(ir_mod, params)
                    with dispatch:
                        return _fuse(ir_mod, params)
            return GraphExecutorFactoryModule(graph_json, lib, built_params, mod_name, fused)
        before = build_cache.fallback_keys()
        mod = _fuse(ir_mod, params)
        cg = _GraphCodegen(mod["main"], tgt)
        graph_json = cg.run()
        if len(cg.lowered):
            lib = tir_build(cg.lowered, target=tgt)
        else:
            lib = None
        build_cache.store(key, graph_json, lib, cg.params, build_cache.fallbacks_since(before))
    return GraphExecutorFactoryModule(graph_json, lib, cg.params, mod_name, mod)


def _fuse(ir_mod, params: Optional[Dict[str, Any]]) -> IRModule:
    """``main`` optimized, in the target's layouts and fused, as ``relay.build`` lowers it."""
    mod = optimize(ir_mod, params)
    mod = Sequential([AlterOpLayout(), FoldConstant()], name="relay.alter_layout")(mod)
    return FuseOps()(mod)


def optimize_module(mod, target=None, params: Optional[Dict[str, Any]] = None
                    ) -> Tuple[IRModule, Dict[str, Any]]:
    """Classic ``relay.optimize``: (``mod`` optimized and fused as ``relay.build`` does it for
    ``target``, the params)."""
    tgt = resolve_target(target)
    with tgt:
        return _fuse(mod, params), dict(params or {})


def create_executor(kind: str = "debug", mod=None, device=None, target="llvm", params=None):
    """Classic ``relay.build_module.create_executor`` (:func:`.executor.create_executor`)."""
    from .executor import create_executor as make
    return make(kind, mod, device, target, params)
