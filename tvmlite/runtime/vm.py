"""The relay virtual machine's runtime face (classic ``tvm.runtime.vm``): ``Executable``
(what ``relay.vm.compile`` returns) and ``VirtualMachine``, which runs its functions.

The machine itself lives with relay (``tvmlite.relay.backend.vm``): an executable brings
its own (``exe._machine(device)``), so this layer does not depend on relay.
"""
from __future__ import annotations

import json
from typing import Any, Callable, Dict, List, Optional

import numpy as np

from ..error import TVMError
from . import ndarray as _nd
from .module import SECTION_FUNCTIONS, ExecutorModule, Module
from .packed_func import register_func

_LOADER: List[Callable[[bytes, Any], "Executable"]] = []

#: the ELF section of a library exported by ``exe.mod.export_library``: ``exe.save()``'s code
VM_SECTION = ".tvmlite_vm"


def register_executable_loader(fn: Callable[[bytes, Any], "Executable"]) -> None:
    """Have :meth:`Executable.load_exec` read executables by ``fn(code, lib)``."""
    _LOADER[:] = [fn]


def _load(code: bytes, lib) -> "Executable":
    if not _LOADER:
        raise TVMError("Executable.load_exec: import tvmlite.relay first (it reads "
                       "VM executables)")
    return _LOADER[0](bytes(code), lib)


class Executable:
    """A compiled relay program for the VM (classic ``tvm.runtime.vm.Executable``).

    ``Executable(lib)`` is the executable held by ``lib``: ``exe.mod``, or a library
    ``exe.mod.export_library`` wrote and ``tvm.runtime.load_module`` loaded back.
    """

    def __new__(cls, mod=None, *args, **kwargs):
        if cls is not Executable:
            return super().__new__(cls)
        return executable_of(mod)

    @staticmethod
    def load_exec(bytecode, lib) -> "Executable":
        """The executable that ``exe.save()`` gave as ``(bytecode, lib)``."""
        return _load(bytes(bytecode), lib)

    def _machine(self, device):  # pragma: no cover - the relay executable overrides it
        raise TVMError("this executable has no virtual machine")


def executable_of(mod) -> Executable:
    """The executable ``mod`` holds: an :class:`Executable` itself, ``exe.mod``, or a library
    exported from one (read once per loaded module, which keeps its late-bound constants)."""
    if isinstance(mod, Executable):
        return mod
    exe = getattr(mod, "_vm_executable", None)
    if exe is None:
        code = mod.read_section(VM_SECTION) if isinstance(mod, Module) else None
        if code is None:
            raise TVMError(f"runtime.vm.Executable: {mod!r} holds no VM executable (export "
                           "one with exe.mod.export_library and load it with "
                           "tvm.runtime.load_module)")
        exe = mod._vm_executable = _load(code, mod)
    return exe


def _executable_function(exe: Executable, name: str) -> Optional[Callable]:
    """Classic's functions of an executable's module (``lib["load_late_bound_consts"]``)."""
    table = {
        "load_late_bound_consts": "load_late_bound_consts",
        "load_late_bound_consts_from_map": "load_late_bound_consts_from_map",
        "move_late_bound_consts": "move_late_bound_consts",
        "get_late_bound_consts": "get_late_bound_consts",
        "get_lib": "get_lib",
    }
    if name in table:
        return getattr(exe, table[name])
    return {"save": lambda: exe.save()[0], "get_bytecode": lambda: exe.bytecode,
            "get_stats": lambda: exe.stats}.get(name)


class ExecutableModule(Module):
    """Classic ``exe.mod``: the executable as a runtime module. ``export_library(path)``
    writes its kernels' library with the program inside; ``tvm.runtime.load_module(path)``
    gives it back (``VirtualMachine(lib, dev)`` runs it)."""

    def __init__(self, exe: Executable, lib: Module):  # noqa: D107  (no Module.__init__)
        self.__dict__.update(lib.__dict__)
        self._funcs, self._sections = {}, {}
        self._vm_executable = exe

    def get_function(self, name: str, query_imports: bool = False):
        f = _executable_function(self._vm_executable, name)
        return f if f is not None else super().get_function(name, query_imports)

    def implements_function(self, name: str, query_imports: bool = False) -> bool:
        return _executable_function(self._vm_executable, name) is not None or \
            super().implements_function(name, query_imports)

    def export_library(self, file_name: str, fcompile: Optional[Callable] = None, addons=None,
                       workspace_dir: Optional[str] = None,
                       sections: Optional[Dict[str, bytes]] = None, **kwargs) -> None:
        """Export the library with the executable's code in it (late-bound constants
        stay out: load them with ``lib["load_late_bound_consts"](path)``)."""
        sections = dict(sections or {})
        sections[VM_SECTION] = bytes(self._vm_executable.save()[0])
        super().export_library(file_name, fcompile, addons, workspace_dir, sections=sections,
                               **kwargs)

    def __repr__(self) -> str:
        return f"Module(VMExecutable, {id(self):x})"


SECTION_FUNCTIONS[VM_SECTION] = lambda lib, name: _executable_function(executable_of(lib), name)


def _to_array(value):
    """A VM argument: NDArrays and ADTs as they are, numpy arrays and numbers as NDArrays
    (Python ints and bools int32, floats float32, as classic), lists and tuples as tuple
    ADTs."""
    from .container import ADT
    if isinstance(value, (_nd.NDArray, ADT)):
        return value
    if isinstance(value, (list, tuple)) and not isinstance(value, np.ndarray):
        return ADT(0, [_to_array(v) for v in value])
    if isinstance(value, (bool, int)) and not isinstance(value, np.generic):
        return _nd.array(np.asarray(value, dtype="int32"))
    if isinstance(value, float):
        return _nd.array(np.asarray(value, dtype="float32"))
    if isinstance(value, (np.ndarray, np.generic)):
        return _nd.array(np.asarray(value))
    if type(value).__name__ in ("RefValue", "Closure"):  # the machine's own values
        return value
    raise TVMError(f"VirtualMachine: unsupported input of type {type(value).__name__}")


class VirtualMachine:
    """Runs an :class:`Executable` on ``device`` (classic ``tvm.runtime.vm.VirtualMachine``).

    ``vm.invoke("main", x, y)`` (or ``vm.run(x, y)``) returns an NDArray, or an ``ADT`` for a
    tuple or ADT value.
    """

    NAIVE_ALLOCATOR = 1
    POOLED_ALLOCATOR = 2

    def __new__(cls, exe=None, device=None, memory_cfg=None):
        remote = getattr(exe, "_create_vm", None)
        if remote is not None:  # a library loaded on an RPC server: the machine runs there
            return remote(device[0] if isinstance(device, (list, tuple)) else device)
        return super().__new__(cls)

    def __init__(self, exe: Executable, device, memory_cfg=None):
        if isinstance(exe, Module):
            exe = executable_of(exe)
        if not isinstance(exe, Executable):
            raise TypeError(f"VirtualMachine: exe must be an Executable or a Module, got "
                            f"{type(exe).__name__}")
        devices = device if isinstance(device, (list, tuple)) else [device]
        self._exec = exe
        self._dev = devices[0]
        self._machine = exe._machine(self._dev)
        self._inputs: Dict[str, list] = {}
        self._outputs: Optional[list] = None
        #: the machine as a runtime module (classic ``vm.module``): its functions by name
        self.module = ExecutorModule(self._function, "VirtualMachine")

    def _args(self, func_name: str, args, kwargs) -> list:
        names = self._machine.param_names(func_name)

        if kwargs:
            given = list(args) + [None] * (len(names) - len(args))
            for k, v in kwargs.items():
                if k not in names:
                    raise TVMError(f"VirtualMachine: function {func_name!r} has no input "
                                   f"{k!r} (inputs: {names})")
                given[names.index(k)] = v
            missing = [n for n, v in zip(names, given) if v is None]
            if missing:
                raise TVMError(f"VirtualMachine: inputs {missing} of {func_name!r} were not "
                               "given")
            args = given
        return [_to_array(a) for a in args]

    def set_input(self, func_name: str, *args, **kwargs) -> None:
        """Keep the inputs of ``func_name`` for a later ``invoke(func_name)``."""
        self._inputs[func_name] = self._args(func_name, args, kwargs)

    def set_one_input(self, func_name: str, *args, **kwargs) -> None:
        """Set one input of ``func_name``: ``(index_or_name, value)`` or ``name=value``."""
        names = self._machine.param_names(func_name)
        if kwargs:
            if args or len(kwargs) != 1:
                raise TVMError("set_one_input: give one input, by position or by name")
            (key, value), = kwargs.items()
        elif len(args) == 2:
            key, value = args
        else:
            raise TVMError("set_one_input: give one input, by position or by name")
        index = names.index(key) if isinstance(key, str) and key in names else key
        if not isinstance(index, int) or not 0 <= index < len(names):
            raise TVMError(f"set_one_input: function {func_name!r} has no input {key!r} "
                           f"(inputs: {names})")
        current = self._inputs.setdefault(func_name, [None] * len(names))
        current[index] = _to_array(value)

    def invoke_with_outputs(self, func_name: str, input_args, output_args) -> None:
        """Run ``func_name`` on ``input_args`` and copy its outputs into ``output_args``."""
        invoke_with_outputs(self, func_name, input_args, output_args)

    def get_input_index(self, input_name: str, func_name: str = "main") -> int:
        names = self._machine.param_names(func_name)
        return names.index(input_name) if input_name in names else -1

    def invoke(self, func_name: str, *args, **kwargs):
        """Run function ``func_name`` on ``args`` (or the inputs ``set_input`` kept)."""
        if args or kwargs:
            self.set_input(func_name, *args, **kwargs)
        elif func_name not in self._inputs:
            self.set_input(func_name)
        given = self._inputs[func_name]
        if any(v is None for v in given):
            names = self._machine.param_names(func_name)
            unset = [n for n, v in zip(names, given) if v is None]
            raise TVMError(f"VirtualMachine: inputs {unset} of {func_name!r} were not set")
        return self._machine.invoke(func_name, given)

    def run(self, *args, **kwargs):
        """``invoke("main", ...)``."""
        return self.invoke("main", *args, **kwargs)

    def invoke_stateful(self, func_name: str, *args, **kwargs) -> None:
        """Run ``func_name`` and keep its result for :meth:`get_outputs`."""
        out = self.invoke(func_name, *args, **kwargs)
        from .container import ADT
        self._outputs = list(out) if isinstance(out, ADT) and out.tag == 0 else [out]

    def get_outputs(self) -> list:
        """The outputs of the last :meth:`invoke_stateful` (a list of NDArrays)."""
        if self._outputs is None:
            raise TVMError("VirtualMachine.get_outputs: call invoke_stateful first")
        return self._outputs

    def get_num_outputs(self) -> int:
        return len(self.get_outputs())

    def benchmark(self, device=None, *args, func_name: str = "main", repeat: int = 5,
                  number: int = 5, min_repeat_ms=None, limit_zero_time_iterations: int = 100,
                  end_to_end: bool = False, cooldown_interval_ms: int = 0,
                  repeats_to_cooldown: int = 1, **kwargs):
        """Time ``func_name`` through ``self.module.time_evaluator`` (seconds per run in a
        ``BenchmarkResult``); ``end_to_end`` times passing the inputs ``args`` too."""
        min_repeat_ms = 0 if min_repeat_ms is None else min_repeat_ms
        opts = dict(repeat=repeat, number=number, min_repeat_ms=min_repeat_ms,
                    limit_zero_time_iterations=limit_zero_time_iterations,
                    cooldown_interval_ms=cooldown_interval_ms,
                    repeats_to_cooldown=repeats_to_cooldown)
        dev = device if device is not None else self._dev
        if end_to_end:
            inputs = self._args(func_name, args, kwargs)
            return self.module.time_evaluator("invoke_return_to_device", dev, **opts)(
                func_name, dev.device_type, dev.device_id, *inputs)
        if args or kwargs:
            self.set_input(func_name, *args, **kwargs)
        return self.module.time_evaluator("invoke", dev, **opts)(func_name)

    def _function(self, name: str) -> Callable:
        """Classic's functions of the VM module, by name."""
        table = {"invoke": self.invoke, "invoke_stateful": self.invoke_stateful,
                 "set_input": self.set_input, "set_one_input": self.set_one_input,
                 "get_output": lambda i: self.get_outputs()[i],
                 "get_num_outputs": self.get_num_outputs,
                 "get_input_index": lambda name, func="main": self.get_input_index(name, func),
                 "invoke_return_to_device": self._invoke_return_to_device,
                 "_invoke_flat": self._invoke_flat}
        if name not in table:
            raise TVMError(f"the VirtualMachine module has no function {name!r} (it has "
                           f"{', '.join(table)})")
        return table[name]

    def get_function(self, name: str, query_imports: bool = False) -> Callable:
        """Function ``name`` of the VM module (``invoke``, ``set_input`` ...)."""
        return self._function(name)

    def _invoke_flat(self, func_name: str) -> str:
        """Run ``func_name`` on the inputs set, keep its arrays as the outputs and describe
        its value as JSON: ``tree`` (an output index, or ``[tag, [fields]]`` for an ADT)
        and ``types`` (shape and dtype per output). What an RPC client rebuilds it from."""
        from .container import ADT
        flat: list = []

        def walk(v):
            if isinstance(v, ADT):
                return [int(v.tag), [walk(f) for f in v]]
            if not isinstance(v, _nd.NDArray):
                raise TVMError(f"VirtualMachine: {func_name!r} returned a "
                               f"{type(v).__name__}; only tensors and ADTs of them can be "
                               "sent back")
            flat.append(v)
            return len(flat) - 1

        tree = walk(self.invoke(func_name))
        self._outputs = flat
        return json.dumps({"tree": tree,
                           "types": [[list(a.shape), str(a.dtype)] for a in flat]})

    def _invoke_return_to_device(self, func_name: str, device_type: int, device_id: int,
                                 *args):
        """Run ``func_name`` on ``args`` (the result stays on this machine's device)."""
        return self.invoke(func_name, *args)


register_func("tvmlite.vm.create", lambda lib, dev: VirtualMachine(lib, dev), override=True)

__all__ = ["Executable", "VirtualMachine", "register_executable_loader", "ExecutableModule",
           "executable_of", "VM_SECTION"]


def invoke_with_outputs(vm, func_name: str, input_args, output_args) -> None:
    """``vm.invoke(func_name, ...)`` on ``input_args`` (a list, or a dict by name), its
    outputs copied into the arrays ``output_args`` (a local or a remote VM)."""
    from .container import ADT
    out = vm.invoke(func_name, **input_args) if isinstance(input_args, dict) else \
        vm.invoke(func_name, *input_args)
    outs = list(out) if isinstance(out, ADT) and out.tag == 0 else [out]
    if len(outs) != len(output_args):
        raise TVMError(f"invoke_with_outputs: {func_name!r} has {len(outs)} output(s), "
                       f"{len(output_args)} given")
    for src, dst in zip(outs, output_args):
        dst.copyfrom(src)
