"""``relay.create_executor``: evaluate a relay function as classic TVM's interpreter-style API
does, by building it with :func:`relay.build` and running it with the graph executor.

    f = relay.create_executor("graph", mod=mod, device=tvm.cpu(0), target="llvm").evaluate()
    out = f(x_np, w_np)                     # NDArray (a tuple of them for a tuple result)
"""
from __future__ import annotations

from typing import Any, Dict, Optional

import numpy as np

from ..contrib.graph_executor import GraphModule
from ..error import TVMError
from ..ir.module import GlobalVar, IRModule
from ..runtime import ndarray as _nd
from ..runtime.container import ADT
from ..runtime.device import Device, cpu
from .analysis import free_vars
from .build_module import build
from .expr import Constant, Expr, Function, const, post_order, with_children
from .transform import InferType
from .ty import TensorType, TupleType

KINDS = ("graph", "debug", "vm", "aot")


class Executor:
    """What :func:`create_executor` returns: ``evaluate(expr=None)`` gives a Python callable
    that takes the function's parameters positionally (or by name) as numpy arrays or
    NDArrays and returns NDArrays."""

    def __init__(self, kind: str, mod: IRModule, device: Device, target,
                 params: Optional[Dict[str, Any]] = None):
        self.kind, self.mod, self.device, self.target = kind, mod, device, target
        self.params = dict(params or {})

    def evaluate(self, expr: Optional[Expr] = None, binds=None):
        """A callable running ``expr`` (default: the module's ``main``)."""
        if binds:
            expr = _bind(self.mod["main"] if expr is None else expr, binds)
        if expr is not None and not isinstance(expr, Function) and self.kind in _VM_KINDS:
            return self._vm_evaluate(expr)
        if expr is not None and not isinstance(expr, Function):
            # an expression is evaluated at once (classic): it must be closed
            free = free_vars(expr)
            if free:
                raise TVMError(f"create_executor: evaluate() of an expression with free "
                               f"variables {[v.name_hint for v in free]}: bind them with "
                               f"binds={{var: value}} or pass a Function")
            return Executor(self.kind, self.mod, self.device, self.target, self.params) \
                .evaluate(Function([], expr))()
        if self.kind in _VM_KINDS:
            return self._vm_evaluate(expr)
        mod = self.mod
        if expr is not None:
            mod = IRModule.from_expr(expr)
        func = mod["main"]
        names = [p.name_hint for p in func.params if p.name_hint not in self.params]
        factory = build(mod, target=self.target, params=self.params)
        gm = GraphModule(factory["default"](self.device))
        ret_type = InferType()(mod)["main"].body.checked_type

        def run(*args, **kwargs):
            if len(args) > len(names):
                raise TVMError(f"create_executor: the function takes {len(names)} inputs "
                               f"({names}), got {len(args)} positional arguments")
            # by position: parameters may share a name (the graph's inputs are the
            # function's unbound parameters, in order)
            given = dict(enumerate(args))
            for k, v in kwargs.items():
                if k not in names:
                    raise TVMError(f"create_executor: the function has no input {k!r} "
                                   f"(inputs: {names})")
                i = names.index(k)
                if i in given:
                    raise TVMError(f"create_executor: input {k!r} given twice")
                given[i] = v
            missing = [n for i, n in enumerate(names) if i not in given]
            if missing:
                raise TVMError(f"create_executor: inputs {missing} were not given")
            for i, v in given.items():
                if isinstance(v, (int, float, bool, np.ndarray)):
                    # numbers and numpy arrays take the input's dtype (classic copyfrom)
                    v = np.asarray(v, dtype=gm.get_input(i).dtype)
                gm.set_input(i, v if isinstance(v, _nd.NDArray) else _nd.array(v))
            gm.run()
            outs = iter([gm.get_output(i) for i in range(gm.get_num_outputs())])
            return _nest(ret_type, outs)

        return run


    def _vm_evaluate(self, expr: Optional[Expr]):
        """The VM kinds ("vm", "debug"): the relay VM runs the module's functions (control
        flow, closures, ADTs, dynamic shapes); a closed expression is evaluated at once."""
        from ..runtime.vm import VirtualMachine
        from .backend.vm import compile as vm_compile
        mod = self.mod.copy()
        if expr is None or isinstance(expr, (Function, GlobalVar)):
            if expr is not None:
                mod["main"] = self.mod[expr] if isinstance(expr, GlobalVar) else expr
            if "main" not in mod:
                raise TVMError("create_executor: the module has no 'main' function to "
                               "evaluate")
            vm = VirtualMachine(vm_compile(mod, self.target, params=self.params), self.device)
            params = [p for p in mod["main"].params if p.name_hint not in self.params]

            def run(*args, **kwargs):
                args = [_as_input(p, a) for p, a in zip(params, args)] + list(args[len(params):])
                kwargs = {k: _as_input(next((p for p in params if p.name_hint == k), None), v)
                          for k, v in kwargs.items()}
                return vm.invoke("main", *args, **kwargs)
            return run
        free = free_vars(expr)
        if free:
            raise TVMError(f"create_executor: evaluate() of an expression with free "
                           f"variables {[v.name_hint for v in free]}: bind them with "
                           f"binds={{var: value}} or pass a Function")
        machine = vm_compile(mod, self.target)._machine(self.device)
        return machine.evaluate(expr)


_VM_KINDS = ("vm", "debug")


def _as_input(param, value):
    """A number or numpy array given for ``param`` in its annotated dtype (classic's
    executors copy inputs into the parameter's type); a relay constant is its value."""
    ann = getattr(param, "type_annotation", None)
    if isinstance(value, Constant):
        value = value.data
    if isinstance(value, (bool, int, float, np.ndarray, np.generic)) and \
            isinstance(ann, TensorType):
        return np.asarray(value, dtype=ann.dtype)
    if isinstance(value, (list, tuple)) and not isinstance(value, ADT):
        fields = getattr(ann, "fields", None) or [None] * len(value)
        return ADT(0, [_to_vm(_as_input(_Typed(t), v)) for t, v in zip(fields, value)])
    return value


class _Typed:
    """A stand-in parameter annotated ``type_annotation`` (a tuple input's field)."""

    def __init__(self, t):
        self.type_annotation = t


def _to_vm(value):
    if isinstance(value, (_nd.NDArray, ADT)):
        return value
    if isinstance(value, Constant):
        return value.data
    return _nd.array(np.asarray(value))


def _nest(ty, flat):
    """The graph's flat outputs (an iterator) in the structure of the result type ``ty``:
    a (nested) :class:`ADT` (classic's tuple value) for a tuple type, else one array."""
    if isinstance(ty, TupleType):
        return ADT(_nest(f, flat) for f in ty.fields)
    return next(flat)


def _bind(expr: Expr, binds) -> Expr:
    """``expr`` with the variables of ``binds`` replaced by their values (expressions, or
    arrays made constants); a function loses the parameters bound."""
    value = {id(v): (x if isinstance(x, Expr) else const(x if isinstance(x, _nd.NDArray)
                                                          else np.asarray(x)))
             for v, x in binds.items()}
    body = expr.body if isinstance(expr, Function) else expr
    memo: Dict[int, Expr] = {}
    for n in post_order(body):
        memo[id(n)] = value[id(n)] if id(n) in value else with_children(n, memo)
    if not isinstance(expr, Function):
        return memo[id(body)]
    return Function([p for p in expr.params if id(p) not in value], memo[id(body)],
                    expr.ret_type, expr.type_params, expr.attrs)


def create_executor(kind: str = "debug", mod: Optional[IRModule] = None,
                    device: Optional[Device] = None, target="llvm",
                    params: Optional[Dict[str, Any]] = None) -> Executor:
    """Classic ``relay.create_executor``. "vm" and "debug" (classic's interpreter) run on the
    relay VM (control flow, closures, ADTs, ``relay.Any`` shapes); "graph" and "aot" build
    the module with :func:`relay.build` and run it with the graph executor (static
    dataflow)."""
    if kind not in KINDS:
        raise TVMError(f"create_executor: unknown executor kind {kind!r} (one of {KINDS})")
    if mod is None:
        mod = IRModule()
    if not isinstance(mod, IRModule):
        raise TVMError(f"create_executor: mod must be an IRModule, got {type(mod).__name__}")
    return Executor(kind, mod, device if device is not None else cpu(0), target, params)
