"""The relay virtual machine (classic ``relay.vm`` / ``relay.backend.vm``).

``relay.vm.compile(mod, target)`` gives an :class:`Executable`;
``tvm.runtime.vm.VirtualMachine(exe, dev)`` runs it. The machine walks the relay program
with an explicit stack (a 10,000-deep recursion is a list 10,000 frames long, not Python
recursion): variables, lets, ifs, tuples, closures and calls through ``GlobalVar``s, ADT
constructors and ``Match``, references. Each dataflow region -- a call of an operator
together with the operator calls, constants and tuples feeding it -- is compiled by
``relay.build`` for the concrete shapes and dtypes of its inputs the first time it meets
them and kept (keyed by the region and those types), so one executable runs inputs of any
shape that ``relay.Any`` dimensions allow. A static program without control flow is one
region: one ``relay.build``, as the graph executor would run it.

Operators whose result shape depends on input values (``shape_of``, ``ndarray_size`` and
the ``dyn.*`` operators) run on the host: their shapes are read from the values.
"""
from __future__ import annotations

import io
import pickle
from typing import Any, Callable, Dict, List, Optional
from typing import Tuple as _Pair

import numpy as np

from ...contrib.graph_executor import GraphModule
from ...error import TVMError
from ...ir.module import GlobalVar, IRModule
from ...runtime import module as _rt_module
from ...runtime import ndarray as _nd
from ...runtime import vm as _rt_vm
from ...runtime.container import ADT
from ..adt import (
    Constructor,
    Match,
    PatternConstructor,
    PatternTuple,
    PatternVar,
    PatternWildcard,
)
from ..build_module import RESHAPE_OPS
from ..expr import (
    Call,
    Constant,
    Expr,
    Function,
    If,
    Let,
    RefCreate,
    RefRead,
    RefWrite,
    Tuple,
    TupleGetItem,
    Var,
)
from ..op.dyn import HOST_EVAL
from ..op.registry import Op
from ..ty import TensorType, TupleType, type_str


class VMError(TVMError):
    """The VM met a bad input or a program it cannot run."""


# ------------------------------------------------------------------------------ values
class ConstructorValue(ADT):
    """A value built by an ADT ``Constructor`` (classic
    ``relay.backend.interpreter.ConstructorValue``; also a runtime ``ADT`` with its tag)."""

    def __new__(cls, tag, fields=None, constructor=None):
        obj = super().__new__(cls, int(tag), list(fields or ()))
        obj.constructor = constructor
        return obj

    def __reduce__(self):
        return ConstructorValue, (self.tag, list(self), self.constructor)

    def __repr__(self) -> str:
        name = getattr(self.constructor, "name_hint", "?")
        return f"{name}({', '.join(map(repr, self))})"


class RefValue:
    """A mutable reference (classic ``relay.backend.interpreter.RefValue``)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __repr__(self) -> str:
        return f"RefValue({self.value!r})"


class Closure:
    """A function value: a relay ``Function`` with the environment it was made in."""

    __slots__ = ("func", "env")

    def __init__(self, func: Function, env: "_Env"):
        self.func, self.env = func, env

    def __repr__(self) -> str:
        return f"Closure(fn of {len(self.func.params)} parameter(s))"


class _Env:
    """The variables of one activation (a function call), over the enclosing one's."""

    __slots__ = ("vars", "parent")

    def __init__(self, parent: Optional["_Env"] = None):
        self.vars: Dict[int, Any] = {}
        self.parent = parent

    def lookup(self, v: Var):
        e = self
        while e is not None:
            got = e.vars.get(id(v), _MISSING)
            if got is not _MISSING:
                return got
            e = e.parent
        raise VMError(f"relay VM: variable %{v.name_hint} is not bound (a free variable)")


_MISSING = object()


# ----------------------------------------------------------------------- host operators
def _host_shape_of(call: Call, args: list):
    return _nd.array(np.array(args[0].shape, dtype=call.attrs.dtype))


def _host_ndarray_size(call: Call, args: list):
    return _nd.array(np.array(int(np.prod(args[0].shape)), dtype=call.attrs.dtype))


def _host_debug(call: Call, args: list):
    """``relay.op.debug``: the value, after calling the global function its attribute
    names (if any) with it."""
    from ...runtime.packed_func import get_global_func
    name = call.attrs.debug_func
    if name:
        get_global_func(name)(args[0])
    return args[0]


#: op name -> fn(call, arg values) -> value, run on the host (shapes from values)
HOST_OPS: Dict[str, Callable[[Call, list], Any]] = {
    "shape_of": _host_shape_of,
    "ndarray_size": _host_ndarray_size,
    "debug": _host_debug,
}


def register_host_op(name: str, fn: Callable[[Call, list], Any]) -> None:
    """Run op ``name`` on the host in the VM: ``fn(call, arg_values)`` gives its value
    (a ``dyn.*`` op computes its shape from the values and calls the static op)."""
    HOST_OPS[name] = fn


# ----------------------------------------------------------------------------- regions
def _on_host(call: Call) -> bool:
    """Whether the VM runs ``call`` on the host (its shape depends on input values)."""
    name = call.op.name
    if name == "argwhere" and call.attrs.count is not None:
        return False  # its static form
    return name in HOST_OPS or name in HOST_EVAL


def _is_inner(n: Expr) -> bool:
    """Whether ``n`` is compiled inside a dataflow region (else it is one of its inputs)."""
    if isinstance(n, Constant):
        return True
    if isinstance(n, Call):
        return isinstance(n.op, Op) and not _on_host(n)
    if isinstance(n, Tuple):
        return True
    if isinstance(n, TupleGetItem):
        t = n.tuple_value
        return isinstance(t, Tuple) or (isinstance(t, Call) and _is_inner(t))
    return False


def _inner_children(n: Expr) -> List[Expr]:
    if isinstance(n, Call):
        return list(n.args)
    if isinstance(n, Tuple):
        return list(n.fields)
    if isinstance(n, TupleGetItem):
        return [n.tuple_value]
    return []


class _Region:
    """A dataflow region: ``root`` (an operator call), its inner nodes in post order and
    its inputs (``leaves``, evaluated by the machine)."""

    __slots__ = ("root", "nodes", "leaves", "reshape_only")

    def __init__(self, root: Expr):
        self.root = root
        self.nodes: List[Expr] = []
        self.leaves: List[Expr] = []
        seen = set()
        stack = [(root, False)]
        while stack:
            n, expanded = stack.pop()
            if expanded:
                self.nodes.append(n)
                continue
            if id(n) in seen:
                continue
            seen.add(id(n))
            if not _is_inner(n):
                self.leaves.append(n)
                continue
            stack.append((n, True))
            for c in reversed(_inner_children(n)):
                stack.append((c, False))
        # only reshapes of one tensor (classic's reshape_tensor): a view, nothing runs
        self.reshape_only = len(self.leaves) == 1 and all(
            isinstance(n, Call) and n.op.name in RESHAPE_OPS and len(n.args) == 1
            for n in self.nodes)


def _signature(value) -> Any:
    """The type signature of a region input's value (a cache key)."""
    if isinstance(value, _nd.NDArray):
        return (tuple(value.shape), str(value.dtype))
    if isinstance(value, ADT) and not isinstance(value, ConstructorValue):
        return tuple(_signature(v) for v in value)
    raise VMError(f"relay VM: an operator is given a {_kind(value)}; operators take tensors "
                  "and tuples of tensors")


def _kind(value) -> str:
    if isinstance(value, ConstructorValue):
        return f"value of constructor {getattr(value.constructor, 'name_hint', value.tag)}"
    if isinstance(value, Closure):
        return "function"
    if isinstance(value, RefValue):
        return "reference"
    return type(value).__name__


def _leaf_expr(value, name: str, params: List[Var], flat: list) -> Expr:
    if isinstance(value, _nd.NDArray):
        v = Var(name, TensorType(value.shape, str(value.dtype)))
        params.append(v)
        flat.append(value)
        return v
    return Tuple([_leaf_expr(f, f"{name}_{i}", params, flat) for i, f in enumerate(value)])


def _nest(ty, flat):
    if isinstance(ty, TupleType):
        return ADT(0, [_nest(f, flat) for f in ty.fields])
    return next(flat)


class _Kernel:
    """A region compiled for one signature of its inputs: a graph executor module whose
    input and output arrays are copied directly (the signature fixes their shapes)."""

    __slots__ = ("gm", "ret_type", "n_inputs", "_ins", "_outs")

    def __init__(self, gm: GraphModule, ret_type, n_inputs: int):
        self.gm, self.ret_type, self.n_inputs = gm, ret_type, n_inputs
        self._ins = [gm.get_input(i) for i in range(n_inputs)]
        self._outs = [gm.get_output(i) for i in range(gm.get_num_outputs())]

    def __call__(self, flat: list):
        for dst, src in zip(self._ins, flat):
            np.copyto(dst._arr, src._arr)
        self.gm.run()
        return _nest(self.ret_type, iter([_copy_out(o) for o in self._outs]))


def _copy_out(src: _nd.NDArray) -> _nd.NDArray:
    """A new (aligned) array with ``src``'s values: a result outlives the kernel's buffer."""
    arr = _nd._aligned_empty(src._arr.shape, src._arr.dtype)
    np.copyto(arr, src._arr)
    return _nd.NDArray(arr, src.device, src.dtype)


def _all_empty(ty) -> bool:
    if isinstance(ty, TupleType):
        return all(_all_empty(f) for f in ty.fields)
    return isinstance(ty, TensorType) and 0 in ty.shape


class _ReshapeKernel:
    """A reshape-only region or operator for one input type: its input viewed in the
    output shape (classic ``reshape_tensor``; VM values are never written in place)."""

    __slots__ = ("shape",)

    def __init__(self, shape):
        self.shape = tuple(int(d) for d in shape)

    def __call__(self, flat: list):
        (src,) = flat
        return _nd.NDArray(src._arr.reshape(self.shape), src.device, src.dtype)


class _EmptyKernel:
    """The results of a region whose outputs are all empty tensors."""

    def __init__(self, ret_type):
        self.ret_type = ret_type

    def __call__(self, flat: list):
        return _empty_value(self.ret_type)


def _empty_value(ty):
    if isinstance(ty, TupleType):
        return ADT(0, [_empty_value(f) for f in ty.fields])
    return _nd.array(np.zeros(ty.shape, dtype=ty.dtype))


# ----------------------------------------------------------------------------- machine
# control-stack frames: (code, ...)
_EVAL, _TUPLE, _PROJ, _LET, _IF, _CALL, _REGION, _MATCH, _HOST, _REF_NEW, _REF_GET, \
    _REF_SET = range(12)


class Machine:
    """Runs one executable's functions on one device (what ``VirtualMachine`` drives)."""

    def __init__(self, exe: "Executable", device):
        self.exe, self.device = exe, device
        self.mod = exe.ir_mod
        self.kernels: Dict[Any, _Kernel] = exe._kernels
        self.regions: Dict[int, _Region] = exe._regions
        self.stats = exe._cache_stats
        self._globals: Dict[str, Closure] = {}
        self._root = _Env()
        # kernels are shared by the machines of one executable, per device
        self._dev_key = (getattr(device, "device_type", None), getattr(device, "device_id", 0))

    # --------------------------------------------------------------- entry points
    def function(self, name: str) -> Function:
        if not isinstance(name, str):
            raise VMError(f"VirtualMachine: function name must be a string, got "
                          f"{type(name).__name__}")
        if name not in self.mod:
            raise VMError(f"VirtualMachine: no function {name!r} in the executable "
                          f"(it has {list(self.mod.functions)})")
        return self.mod[name]

    def param_names(self, name: str) -> List[str]:
        bound = self.exe.params if name == "main" else {}
        return [p.name_hint for p in self.function(name).params if p.name_hint not in bound]

    def invoke(self, name: str, args: list):
        self.exe._check_late_bound()
        func = self.function(name)
        bound = self.exe.params if name == "main" else {}
        free = [p for p in func.params if p.name_hint not in bound]
        if len(args) != len(free):
            raise VMError(f"VirtualMachine: function {name!r} takes {len(free)} input(s) "
                          f"({[p.name_hint for p in free]}), got {len(args)}")
        env = _Env(self._root)
        for p in func.params:
            if p.name_hint in bound:
                env.vars[id(p)] = bound[p.name_hint]
        for p, a in zip(free, args):
            a = _unwrap_single(p, a)
            _check_arg(name, p, a)
            env.vars[id(p)] = a
        return self.run(func.body, env)

    def evaluate(self, expr: Expr):
        """The value of closed expression ``expr`` (it may use the module's functions)."""
        return self.run(expr, _Env(self._root))

    # --------------------------------------------------------------- the loop
    def run(self, expr: Expr, env: _Env):
        stack: List[tuple] = [(_EVAL, expr, env)]
        vals: List[Any] = []
        push, pop = stack.append, stack.pop
        while stack:
            frame = pop()
            code = frame[0]
            if code == _EVAL:
                self._eval(frame[1], frame[2], push, vals)
            elif code == _TUPLE:
                n = frame[1]
                fields = vals[len(vals) - n:]
                del vals[len(vals) - n:]
                vals.append(ADT(0, fields))
            elif code == _PROJ:
                t = vals.pop()
                if not isinstance(t, ADT):
                    raise VMError(f"relay VM: TupleGetItem .{frame[1]} of a {_kind(t)}")
                vals.append(t[frame[1]])
            elif code == _LET:
                let, e = frame[1], frame[2]
                e.vars[id(let.var)] = vals.pop()
                push((_EVAL, let.body, e))
            elif code == _IF:
                c = vals.pop()
                branch = frame[1].true_branch if _truth(c) else frame[1].false_branch
                push((_EVAL, branch, frame[2]))
            elif code == _CALL:
                n = frame[1]
                args = vals[len(vals) - n:]
                del vals[len(vals) - n:]
                self._apply(vals.pop(), args, push, vals)
            elif code == _REGION:
                region = frame[1]
                n = len(region.leaves)
                ins = vals[len(vals) - n:]
                del vals[len(vals) - n:]
                vals.append(self._run_region(region, ins))
            elif code == _MATCH:
                self._match(frame[1], vals.pop(), frame[2], push)
            elif code == _HOST:
                call = frame[1]
                n = len(call.args)
                args = vals[len(vals) - n:]
                del vals[len(vals) - n:]
                vals.append(self._host(call, args))
            elif code == _REF_NEW:
                vals.append(RefValue(vals.pop()))
            elif code == _REF_GET:
                ref = vals.pop()
                if not isinstance(ref, RefValue):
                    raise VMError(f"relay VM: RefRead of a {_kind(ref)}")
                vals.append(ref.value)
            elif code == _REF_SET:
                value, ref = vals.pop(), vals.pop()
                if not isinstance(ref, RefValue):
                    raise VMError(f"relay VM: RefWrite to a {_kind(ref)}")
                ref.value = value
                vals.append(ADT(0, []))
        return vals.pop()

    def _eval(self, e: Expr, env: _Env, push, vals: list) -> None:
        if isinstance(e, Var):
            vals.append(env.lookup(e))
        elif isinstance(e, Constant):
            vals.append(e.data)
        elif isinstance(e, Call):
            op = e.op
            if isinstance(op, Op):
                if _on_host(e):
                    push((_HOST, e))
                    for a in reversed(e.args):
                        push((_EVAL, a, env))
                    return
                self._push_region(e, env, push)
                return
            push((_CALL, len(e.args)))
            for a in reversed(e.args):
                push((_EVAL, a, env))
            push((_EVAL, op, env))
        elif isinstance(e, Let):
            push((_LET, e, env))
            push((_EVAL, e.value, env))
        elif isinstance(e, If):
            push((_IF, e, env))
            push((_EVAL, e.cond, env))
        elif isinstance(e, Tuple):
            if e.fields and all(isinstance(f, Call) and isinstance(f.op, Op) and
                                not _on_host(f) for f in e.fields):
                # a tuple of operator calls is one region (one relay.build, fused)
                self._push_region(e, env, push)
                return
            push((_TUPLE, len(e.fields)))
            for f in reversed(e.fields):
                push((_EVAL, f, env))
        elif isinstance(e, TupleGetItem):
            push((_PROJ, e.index))
            push((_EVAL, e.tuple_value, env))
        elif isinstance(e, Function):
            vals.append(Closure(e, env))
        elif isinstance(e, GlobalVar):
            vals.append(self._global(e.name_hint))
        elif isinstance(e, Constructor):
            vals.append(e)
        elif isinstance(e, Match):
            push((_MATCH, e, env))
            push((_EVAL, e.data, env))
        elif isinstance(e, RefCreate):
            push((_REF_NEW,))
            push((_EVAL, e.value, env))
        elif isinstance(e, RefRead):
            push((_REF_GET,))
            push((_EVAL, e.ref, env))
        elif isinstance(e, RefWrite):
            push((_REF_SET,))
            push((_EVAL, e.value, env))
            push((_EVAL, e.ref, env))
        elif isinstance(e, Op):
            raise VMError(f"relay VM: operator {e.name} used as a value; call it or wrap it "
                          "in a relay Function")
        else:
            raise VMError(f"relay VM: cannot evaluate a {type(e).__name__}")

    def _push_region(self, e: Expr, env: _Env, push) -> None:
        """Evaluate the inputs of the dataflow region rooted at ``e``, then run it."""
        region = self.regions.get(id(e))
        if region is None or region.root is not e:
            region = self.regions[id(e)] = _Region(e)
        push((_REGION, region))
        for leaf in reversed(region.leaves):
            push((_EVAL, leaf, env))

    def _global(self, name: str) -> Closure:
        got = self._globals.get(name)
        if got is None:
            if name not in self.mod:
                raise VMError(f"relay VM: no global function @{name} in the module")
            func = self.mod[name]
            if not isinstance(func, Function):
                raise VMError(f"relay VM: @{name} is a {type(func).__name__}, not a relay "
                              "Function")
            got = self._globals[name] = Closure(func, self._root)
        return got

    def _apply(self, callee, args: list, push, vals: list) -> None:
        if isinstance(callee, Closure):
            params = callee.func.params
            if len(params) != len(args):
                raise VMError(f"relay VM: a function of {len(params)} parameter(s) called "
                              f"with {len(args)} argument(s)")
            env = _Env(callee.env)
            for p, a in zip(params, args):
                env.vars[id(p)] = a
            push((_EVAL, callee.func.body, env))
        elif isinstance(callee, Constructor):
            if len(args) != len(callee.inputs):
                raise VMError(f"relay VM: constructor {callee.name_hint} takes "
                              f"{len(callee.inputs)} field(s), got {len(args)}")
            vals.append(ConstructorValue(callee.tag, args, callee))
        else:
            raise VMError(f"relay VM: cannot call a {_kind(callee)}")

    def _match(self, m: Match, value, env: _Env, push) -> None:
        for clause in m.clauses:
            binds: list = []
            if _matches(clause.lhs, value, binds):
                for v, x in binds:
                    env.vars[id(v)] = x
                push((_EVAL, clause.rhs, env))
                return
        raise VMError(f"relay VM: no clause of a match fits the {_kind(value)} (the match is "
                      "not exhaustive)")

    def _host(self, call: Call, args: list):
        """A host operator's value: computed from the values (``shape_of``), or the static
        operator its shape arguments' values make (``dyn.reshape`` -> ``reshape``)."""
        fn = HOST_OPS.get(call.op.name)
        if fn is not None:
            return fn(call, args)
        for i, a in enumerate(args):
            if not isinstance(a, _nd.NDArray):
                raise VMError(f"relay VM: {call.op.name}: argument {i} is a {_kind(a)}, not a "
                              "tensor")
        name, data, attrs = HOST_EVAL[call.op.name](call.attrs, args)
        return self.run_op(name, data, attrs)

    def run_op(self, name: str, args: list, attrs: Dict[str, Any]):
        """Static operator ``name`` with ``attrs`` on tensor values ``args`` (compiled once
        per attributes and input types)."""
        from ..op.registry import make_call
        key = ("op", name, repr(sorted(attrs.items())), tuple(_signature(v) for v in args),
               self._dev_key)
        kernel = self.kernels.get(key)
        if kernel is None:
            self.stats["misses"] += 1
            params: List[Var] = []
            flat: list = []
            leaves = [_leaf_expr(v, f"vm_input{i}", params, flat) for i, v in enumerate(args)]
            kernel = self.kernels[key] = self._build(params, make_call(name, leaves, **attrs),
                                                     name in RESHAPE_OPS)
        else:
            self.stats["hits"] += 1
        flat = []
        for v in args:
            _flatten(v, flat)
        return kernel(flat)

    def _run_region(self, region: _Region, ins: list):
        key = (id(region.root), tuple(_signature(v) for v in ins), self._dev_key)
        kernel = self.kernels.get(key)
        if kernel is None:
            self.stats["misses"] += 1
            kernel = self.kernels[key] = self._compile(region, ins)
        else:
            self.stats["hits"] += 1
        flat: list = []
        for v in ins:
            _flatten(v, flat)
        return kernel(flat)

    def _compile(self, region: _Region, ins: list) -> _Kernel:
        params: List[Var] = []
        flat: list = []
        memo: Dict[int, Expr] = {}
        for i, (leaf, value) in enumerate(zip(region.leaves, ins)):
            memo[id(leaf)] = _leaf_expr(value, f"vm_input{i}", params, flat)
        for n in region.nodes:
            memo[id(n)] = _copy(n, memo)
        return self._build(params, memo[id(region.root)], region.reshape_only)

    def _build(self, params: List[Var], body: Expr, reshape_only: bool = False):
        """``fn(params) { body }`` built by relay.build for the executable's target (a
        view of the input when it only reshapes it)."""
        from ..build_module import build
        from ..transform.infer_type import infer_type
        func = Function(params, body)
        infer_type(func)
        if reshape_only and len(params) == 1 and isinstance(func.body.checked_type, TensorType):
            return _ReshapeKernel(func.body.checked_type.shape)
        if _all_empty(func.body.checked_type):
            # a region whose results are all empty gives them without running
            return _EmptyKernel(func.body.checked_type)
        factory = build(IRModule.from_expr(func), target=self.exe.target)
        gm = GraphModule(factory["default"](self.device))
        return _Kernel(gm, func.body.checked_type, len(params))


def _copy(n: Expr, memo: Dict[int, Expr]) -> Expr:
    """An untyped copy of inner node ``n`` over the copies of its children."""
    if isinstance(n, Constant):
        return n
    if isinstance(n, Call):
        return Call(n.op, [memo[id(a)] for a in n.args], n.attrs, n.type_args)
    if isinstance(n, Tuple):
        return Tuple([memo[id(f)] for f in n.fields])
    return TupleGetItem(memo[id(n.tuple_value)], n.index)


def _flatten(v, out: list) -> None:
    if isinstance(v, _nd.NDArray):
        out.append(v)
    else:
        for f in v:
            _flatten(f, out)


def _truth(c) -> bool:
    if not isinstance(c, _nd.NDArray):
        raise VMError(f"relay VM: the condition of an If is a {_kind(c)}, not a boolean tensor")
    arr = c.numpy()
    if arr.size != 1:
        raise VMError(f"relay VM: the condition of an If has shape {arr.shape}; it must be a "
                      "scalar")
    return bool(arr.reshape(()))


def _matches(p, value, binds: list) -> bool:
    if isinstance(p, PatternWildcard):
        return True
    if isinstance(p, PatternVar):
        binds.append((p.var, value))
        return True
    if isinstance(p, PatternConstructor):
        if not isinstance(value, ConstructorValue):
            raise VMError(f"relay VM: a match on constructor {p.constructor.name_hint} got a "
                          f"{_kind(value)}")
        if value.tag != p.constructor.tag:
            return False
        return all(_matches(q, f, binds) for q, f in zip(p.patterns, value))
    if isinstance(p, PatternTuple):
        if not isinstance(value, ADT) or len(value) != len(p.patterns):
            raise VMError(f"relay VM: a tuple pattern of {len(p.patterns)} field(s) got a "
                          f"{_kind(value)}")
        return all(_matches(q, f, binds) for q, f in zip(p.patterns, value))
    raise VMError(f"relay VM: unknown pattern {type(p).__name__}")


def _unwrap_single(p: Var, a):
    """A one-field tuple given for a tensor parameter is its field: classic's kernels take
    the fields of tuple arguments (``vm.invoke("main", [x])`` runs as ``invoke("main", x)``)."""
    if (isinstance(p.type_annotation, TensorType) and type(a) is ADT and a.tag == 0
            and len(a) == 1 and isinstance(a[0], _nd.NDArray)):
        return a[0]
    return a


def _check_arg(func_name: str, p: Var, a) -> None:
    """An input against its parameter's annotation: rank, dtype and the known dims."""
    t = p.type_annotation
    if not isinstance(t, TensorType):
        return
    if not isinstance(a, _nd.NDArray):
        raise VMError(f"VirtualMachine: input {p.name_hint!r} of {func_name!r} expects "
                      f"{type_str(t)}, got a {_kind(a)}")
    shape = tuple(a.shape)
    bad = (str(a.dtype) != t.dtype or len(shape) != len(t.shape)
           or any(isinstance(d, int) and d != s for d, s in zip(t.shape, shape)))
    if bad:
        raise VMError(f"VirtualMachine: input {p.name_hint!r} of {func_name!r} expects "
                      f"{type_str(t)}, got shape {shape} and dtype {a.dtype}")


# ------------------------------------------------------------------------- executable
class Executable(_rt_vm.Executable):
    """What :func:`compile` returns (classic ``tvm.runtime.vm.Executable``): the relay
    module (``ir_mod``), the target and the kernels compiled so far (shared by the VMs made
    of it). ``mod`` is the executable as a runtime module (``exe.mod.export_library``)."""

    def __init__(self, mod: IRModule, target=None, params: Optional[Dict[str, Any]] = None,
                 exec_name: str = "vm_mod"):
        if isinstance(mod, _rt_module.Module):
            return  # runtime.vm.Executable(lib): __new__ gave the executable lib holds
        self.ir_mod = mod
        self.exec_name = exec_name
        self.target = target
        self.params = {k: v if isinstance(v, _nd.NDArray) else _nd.array(np.asarray(v))
                       for k, v in (params or {}).items()}
        self._kernels: Dict[Any, _Kernel] = {}
        self._regions: Dict[int, _Region] = {}
        self._cache_stats = {"hits": 0, "misses": 0}
        self._lib = None
        self._mod = None
        # late-bound constants: name -> the array of the Constant node (kept out of save());
        # those not loaded yet (an executable read back without them)
        self._late: Dict[str, _nd.NDArray] = {}
        self._late_missing: set = set()

    def _machine(self, device) -> Machine:
        return Machine(self, device)

    @property
    def mod(self) -> _rt_vm.ExecutableModule:
        """The executable as a runtime module (classic ``exe.mod``)."""
        if self._mod is None:
            self._mod = _rt_vm.ExecutableModule(self, self.lib)
        return self._mod

    @property
    def cache_stats(self) -> Dict[str, int]:
        """How many region runs found their kernel compiled (``hits``) or compiled it."""
        return dict(self._cache_stats)

    @property
    def bytecode(self) -> str:
        """The steps the machine takes for each function, as classic's instructions (the VM
        walks relay, so this is a listing of its steps, not code it reads): a dataflow
        region is ``alloc_storage``, ``alloc_tensor`` (``alloc_tensor_reg`` when its result
        shape is only known at run time) and ``invoke_packed``; a region that only reshapes
        its input is ``reshape_tensor`` (a view, nothing runs)."""
        from ...deep_recursion import run_deep
        from ..transform import InferType
        try:
            mod = InferType()(self.ir_mod)
        except (TVMError, ValueError):  # a program inference refuses may still run: list
            # it untyped (symbolic dims some relations cannot compare raise ValueError)
            mod = self.ir_mod
        out = []
        for i, (name, func) in enumerate(mod.functions.items()):
            if not isinstance(func, Function):
                continue
            lst = _Listing(func)
            run_deep(lst.function)
            params = ", ".join(p.name_hint for p in func.params)
            out.append(f"VM Function[{i}]: {name}({params})\n# reg file size = {lst.regs}\n"
                       f"# instruction count = {len(lst.lines)}\n"
                       + "".join(f"{k:3d}: {line}\n" for k, line in enumerate(lst.lines)))
        return "\n".join(out)

    @property
    def stats(self) -> str:
        """A summary: functions, ADTs, kernels compiled so far."""
        return (f"Relay VM executable statistics:\n  Functions: {len(self.ir_mod.functions)} "
                f"{list(self.ir_mod.functions)}\n  ADTs: {len(self.ir_mod.type_definitions)}\n"
                f"  Kernels compiled: {len(self._kernels)}\n")

    @property
    def globals(self) -> List[str]:
        return list(self.ir_mod.functions)

    @property
    def primitive_ops(self) -> List[str]:
        """The operators the program calls."""
        from ..expr import post_order
        names = set()
        for func in self.ir_mod.functions.values():
            if isinstance(func, Expr):
                names |= {n.op.name for n in post_order(func)
                          if isinstance(n, Call) and isinstance(n.op, Op)}
        return sorted(f"{self.exec_name}_fused_{n.replace('.', '_')}" for n in names)

    @property
    def lib(self):
        """A library standing for the kernels (they are compiled on first use, for the
        shapes met): a small runtime Module that ``save()`` returns and
        ``load_exec`` accepts."""
        if self._lib is None:
            self._lib = _marker_lib()
        return self._lib

    def get_lib(self):
        return self.lib

    def save(self) -> _Pair[bytes, Any]:
        """``(code, lib)``: the program serialized and a library to export;
        ``Executable.load_exec(code, lib)`` gives the executable back (its kernels are
        compiled again on first use). Late-bound constants are left out of ``code``."""
        buf = io.BytesIO()
        _Saver(buf, {id(a): (n, tuple(a.shape), str(a.dtype)) for n, a in self._late.items()})\
            .dump(("tvmlite-relay-vm", 2, self.ir_mod.functions, self.ir_mod.type_definitions,
                   _target_str(self.target), {k: v.numpy() for k, v in self.params.items()}))
        return bytearray(buf.getvalue()), self.lib

    # ------------------------------------------------------------ late-bound constants
    def _mark_late_bound(self, byte_limit: int) -> Dict[str, _nd.NDArray]:
        """Make the constants of at least ``byte_limit`` bytes late-bound; all of them."""
        from ..expr import post_order
        if not isinstance(byte_limit, int) or byte_limit < 0:
            raise VMError(f"late-bound constants: byte_limit must be a non-negative int, got "
                          f"{byte_limit!r}")
        known = {id(a) for a in self._late.values()}
        for func in self.ir_mod.functions.values():
            if not isinstance(func, Expr):
                continue
            for n in post_order(func):
                if isinstance(n, Constant) and id(n.data) not in known and \
                        n.data.numpy().nbytes >= byte_limit:
                    known.add(id(n.data))
                    self._late[f"const_{len(self._late)}"] = n.data
        return dict(self._late)

    def move_late_bound_consts(self, path: str, byte_limit: int = 256) -> None:
        """Write the constants of at least ``byte_limit`` bytes to file ``path`` (in
        ``save_param_dict``'s format) and leave them out of the saved executable."""
        from ...runtime.params import save_param_dict_to_file
        save_param_dict_to_file(self._mark_late_bound(byte_limit), path)

    def get_late_bound_consts(self, byte_limit: int = 256) -> Dict[str, _nd.NDArray]:
        """The constants of at least ``byte_limit`` bytes by name, left out of the saved
        executable from now on."""
        return self._mark_late_bound(byte_limit)

    def load_late_bound_consts(self, path: str) -> None:
        """Load the late-bound constants that ``move_late_bound_consts`` wrote to ``path``."""
        from ...runtime.params import load_param_dict
        try:
            with open(path, "rb") as fh:
                blob = fh.read()
        except OSError as e:
            raise VMError(f"load_late_bound_consts: cannot read {path}: {e}") from None
        self.load_late_bound_consts_from_map(load_param_dict(blob))

    def load_late_bound_consts_from_map(self, consts: Dict[str, Any]) -> None:
        """Load late-bound constants from ``{name: array}`` (``get_late_bound_consts``)."""
        for name, value in dict(consts).items():
            dst = self._late.get(name)
            if dst is None:
                raise VMError(f"load_late_bound_consts: the executable has no late-bound "
                              f"constant {name!r} (it has {sorted(self._late)})")
            src = value.numpy() if hasattr(value, "numpy") else np.asarray(value)
            if tuple(src.shape) != tuple(dst.shape) or str(src.dtype) != str(dst.dtype):
                raise VMError(f"load_late_bound_consts: constant {name!r} is "
                              f"{tuple(dst.shape)} {dst.dtype}, got {tuple(src.shape)} "
                              f"{src.dtype}")
            if src is not dst._arr:
                np.copyto(dst._arr, src)
            self._late_missing.discard(name)

    def _check_late_bound(self) -> None:
        if self._late_missing:
            raise VMError(f"VirtualMachine: late-bound constants {sorted(self._late_missing)} "
                          "are not loaded; call load_late_bound_consts(path) first")


class _Listing:
    """The instructions :attr:`Executable.bytecode` lists for one function."""

    def __init__(self, func: Function):
        self.func = func
        self.lines: List[str] = []
        self.regs = 0
        self.env: Dict[int, str] = {}

    def reg(self) -> str:
        self.regs += 1
        return f"${self.regs - 1}"

    def emit(self, text: str) -> None:
        self.lines.append(text)

    def function(self) -> None:
        for p in self.func.params:
            self.env[id(p)] = self.reg()
        self.emit(f"ret {self.expr(self.func.body)}")

    def expr(self, e: Expr) -> str:  # noqa: C901  (one case per node kind)
        got = self.env.get(id(e))
        if got is not None:
            return got
        if isinstance(e, Let):
            while isinstance(e, Let):
                self.env[id(e.var)] = self.expr(e.value)
                e = e.body
            return self.expr(e)
        r = None
        if isinstance(e, Constant):
            r = self.reg()
            self.emit(f"load_const {r} Const[{tuple(e.data.shape)}, {e.data.dtype}]")
        elif isinstance(e, Call) and isinstance(e.op, Op):
            r = self.op_call(e)
        elif isinstance(e, Tuple) and not (e.fields and all(
                isinstance(f, Call) and isinstance(f.op, Op) and not _on_host(f)
                for f in e.fields)):
            fields = [self.expr(f) for f in e.fields]
            r = self.reg()
            self.emit(f"alloc_data {r} tag(0) [{', '.join(fields)}]")
        elif isinstance(e, Tuple):
            r = self.region(e)
        elif isinstance(e, TupleGetItem):
            if _is_inner(e):
                r = self.region(e)
            else:
                t = self.expr(e.tuple_value)
                r = self.reg()
                self.emit(f"get_field {r} {t}[{e.index}]")
        elif isinstance(e, If):
            c = self.expr(e.cond)
            r = self.reg()
            at = len(self.lines)
            self.emit("")
            self.emit(f"move {r} {self.expr(e.true_branch)}")
            jump = len(self.lines)
            self.emit("")
            self.lines[at] = f"if {c} {jump + 1 - at}"
            self.emit(f"move {r} {self.expr(e.false_branch)}")
            self.lines[jump] = f"goto {len(self.lines) - jump}"
        elif isinstance(e, Call):
            args = [self.expr(a) for a in e.args]
            r = self.reg()
            if isinstance(e.op, GlobalVar):
                self.emit(f"invoke {r} VMFunc[{e.op.name_hint}]({', '.join(args)})")
            elif isinstance(e.op, Constructor):
                self.emit(f"alloc_data {r} tag({e.op.tag}) [{', '.join(args)}]")
            else:
                f = self.expr(e.op)
                self.emit(f"invoke_closure {r} {f}({', '.join(args)})")
        elif isinstance(e, Function):
            r = self.reg()
            self.emit(f"alloc_closure {r} fn of {len(e.params)} parameter(s)")
        elif isinstance(e, (GlobalVar, Constructor)):
            r = self.reg()
            self.emit(f"alloc_closure {r} {e.name_hint}")
        elif isinstance(e, Match):
            d = self.expr(e.data)
            r = self.reg()
            self.emit(f"get_tag {r} {d}")
            for c in e.clauses:
                self.emit(f"move {r} {self.expr(c.rhs)}")
        else:  # references: host steps
            r = self.reg()
            self.emit(f"{type(e).__name__.lower()} {r}")
        self.env[id(e)] = r
        return r

    def op_call(self, e: Call) -> str:
        if not _on_host(e):
            return self.region(e)
        args = [self.expr(a) for a in e.args]
        r = self.reg()
        if e.op.name == "shape_of":
            self.emit(f"shape_of {r} {args[0]}")
        elif e.op.name in ("dyn.reshape", "dyn.squeeze"):
            self.emit(f"reshape_tensor {r} {', '.join(args)}")
        else:
            self.emit(f"alloc_tensor_reg {r} (shape from the values of {', '.join(args)})")
            self.emit(f"invoke_packed PackedFunc[{e.op.name}] ({', '.join(args + [r])})")
        return r

    def region(self, e: Expr) -> str:
        region = _Region(e)
        ins = [self.expr(x) for x in region.leaves]
        r = self.reg()
        if region.reshape_only:
            self.emit(f"reshape_tensor {r} {ins[0]}")
            return r
        ty = getattr(e, "_checked_type", None)
        static = ty is not None and _static(ty)
        self.emit(f"alloc_storage {r}")
        if static:
            self.emit(f"alloc_tensor {r} {type_str(ty)}")
        else:
            self.emit(f"alloc_tensor_reg {r} (shape of the inputs' types)")
        names = sorted({n.op.name for n in region.nodes if isinstance(n, Call)})
        self.emit(f"invoke_packed PackedFunc[fused_{'_'.join(names)}] "
                  f"({', '.join(ins + [r])})")
        return r


def _static(ty) -> bool:
    if isinstance(ty, TupleType):
        return all(_static(f) for f in ty.fields)
    return isinstance(ty, TensorType) and all(isinstance(d, int) for d in ty.shape)


class _Saver(pickle.Pickler):
    """Pickles a program with its late-bound constants' arrays left out (by name)."""

    def __init__(self, buf, late: Dict[int, tuple]):
        super().__init__(buf)
        self._late_ids = late

    def persistent_id(self, obj):
        if isinstance(obj, _nd.NDArray):
            return self._late_ids.get(id(obj))
        return None


class _Loader(pickle.Unpickler):
    """Unpickles a program; each late-bound constant becomes an array to fill."""

    def __init__(self, buf):
        super().__init__(buf)
        self.late: Dict[str, _nd.NDArray] = {}

    def persistent_load(self, pid):
        name, shape, dtype = pid
        arr = self.late.get(name)
        if arr is None:
            arr = self.late[name] = _nd.array(np.zeros(shape, dtype))
        return arr


def _target_str(target) -> Any:
    return str(target) if target is not None else None


def _marker_lib():
    """A small library (one copy kernel) standing for the VM's kernels on disk."""
    from ...driver.build_module import build as tir_build
    from ...te.operation import compute, placeholder
    from ...te.schedule import create_schedule
    a = placeholder((1,), "float32", name="a")
    b = compute((1,), lambda i: a[i], name="b")
    return tir_build(create_schedule(b.op), [a, b], target="llvm", name="vm_marker")


def load_exec(code, lib) -> Executable:
    """The executable of ``code`` from :meth:`Executable.save` (``lib`` is not needed)."""
    loader = _Loader(io.BytesIO(bytes(code)))
    try:
        tag, version, functions, type_defs, target, params = loader.load()
    except Exception as e:  # noqa: BLE001
        raise VMError(f"Executable.load_exec: the code is not a tvmlite VM executable ({e})") \
            from None
    if tag != "tvmlite-relay-vm" or version not in (1, 2):  # 1: before late-bound constants
        raise VMError("Executable.load_exec: the code is not a tvmlite VM executable")
    mod = IRModule(dict(functions))
    mod.type_definitions.update(type_defs)
    exe = Executable(mod, target, params)
    exe._late = dict(loader.late)
    exe._late_missing = set(loader.late)
    return exe


_rt_vm.register_executable_loader(load_exec)


# ---------------------------------------------------------------------------- compile
class VMCompiler:
    """Classic ``relay.vm.VMCompiler``: ``lower(mod, target)`` then ``get_exec()``."""

    def __init__(self):
        self._exec: Optional[Executable] = None
        self._params: Dict[str, Any] = {}

    def set_params(self, params: Dict[str, Any]) -> None:
        self._params = dict(params or {})

    def get_params(self) -> Dict[str, Any]:
        return dict(self._params)

    def lower(self, mod, target=None, target_host=None) -> None:
        self._exec = compile(mod, target, target_host, self._params)

    def codegen(self) -> None:
        """Kernels are compiled on first use, for the shapes met."""

    def optimize(self, mod, target=None, target_host=None, params=None):
        """``(mod, params)`` with ``params`` (or those of :meth:`set_params`) bound into
        ``main`` as constants; tvmlite's VM optimizes each region as relay.build does when
        it compiles it."""
        if isinstance(mod, Function):
            mod = IRModule.from_expr(mod)
        params = dict(params if params is not None else self._params)
        if params and "main" in mod:
            bound = _bind_constants(mod["main"], params)
            if bound is not None:
                mod = mod.copy()
                mod["main"], params = bound, {}
        return mod, params

    def get_exec(self) -> Executable:
        if self._exec is None:
            raise VMError("VMCompiler.get_exec: call lower() first")
        return self._exec


def compile(mod, target=None, target_host=None, params: Optional[Dict[str, Any]] = None,
            exec_name: str = "vm_mod") -> Executable:  # noqa: A001  (classic's name)
    """Compile ``mod`` for the relay VM (classic ``relay.vm.compile``).

    Parameters
    ----------
    mod : IRModule or relay.Function
        The program; ``main`` is what ``VirtualMachine.run`` calls.
    target : str or Target, optional
        Where the kernels run (llvm when None).
    params : dict, optional
        Values of ``main``'s parameters by name (they are not inputs any more).

    Returns
    -------
    Executable
    """
    from ..build_module import resolve_target
    if isinstance(mod, Function):
        mod = IRModule.from_expr(mod)
    if not isinstance(mod, IRModule):
        raise VMError(f"relay.vm.compile expects an IRModule or a relay Function, got "
                      f"{type(mod).__name__}")
    if "main" in mod and params:
        names = {p.name_hint for p in mod["main"].params}
        params = {k: v for k, v in params.items() if k in names}
    tgt = resolve_target(target, target_host)
    if params and "main" in mod:
        bound = _bind_constants(mod["main"], params)
        if bound is not None:  # the weights are constants of the kernels, as classic
            mod = mod.copy()
            mod["main"], params = bound, {}
    return Executable(mod, tgt, params, exec_name)


def _bind_constants(func: Function, params: Dict[str, Any]) -> Optional[Function]:
    """``func`` with the parameters named in ``params`` replaced by constants, or None where
    it holds nodes the rewriter does not know (ADT matches: the values are then bound as
    inputs at each call)."""
    from ..expr import post_order, with_children
    by_name = {p.name_hint: p for p in func.params}
    memo: Dict[int, Expr] = {}
    for name, value in params.items():
        arr = value if isinstance(value, _nd.NDArray) else _nd.array(np.asarray(value))
        _check_arg("main", by_name[name], arr)
        memo[id(by_name[name])] = Constant(arr)
    try:
        for n in post_order(func.body):
            if id(n) not in memo:
                memo[id(n)] = with_children(n, memo)
    except TVMError:
        return None
    return Function([p for p in func.params if p.name_hint not in params],
                    memo[id(func.body)], func.ret_type, func.type_params, func.attrs)


class VMExecutor:
    """Classic ``relay.backend.vm.VMExecutor`` (``create_executor("vm")``)."""

    def __init__(self, mod, device, target):
        self.mod, self.device, self.target = mod, device, target
        self.executable = compile(mod, target)
        self.vm = _rt_vm.VirtualMachine(self.executable, device)

    def _make_executor(self, expr=None):
        if expr is not None:
            raise VMError("VMExecutor: evaluate the module's main (expr must be None)")
        return self.vm.run


__all__ = ["compile", "Executable", "VMCompiler", "VMExecutor", "ConstructorValue", "RefValue",
           "Closure", "Machine", "register_host_op", "HOST_OPS", "load_exec"]
