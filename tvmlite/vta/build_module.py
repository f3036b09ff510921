"""``vta.build_config``, ``vta.lower``, ``vta.build`` and the VTA runtime module."""
from __future__ import annotations

import contextlib
import pickle
from typing import Any, Optional, Sequence

import numpy as np

from .. import driver
from ..error import TVMError
from ..ir.transform import PassContext
from ..runtime import module as _module
from ..runtime import ndarray as _nd
from ..te.schedule import Schedule
from . import codegen, simulator
from .environment import get_env
from .transform import AnnotatePragmas, LowerToIntrinsics

MAGIC = b"TVMLITE-VTA-PROGRAM\n"


def build_config(debug_flag: int = 0, **kwargs) -> PassContext:
    """A PassContext with the VTA passes added to the lowering pipeline."""
    config = dict(kwargs.pop("config", {}) or {})
    passes = list(config.get("tir.add_lower_pass", ()))
    config["tir.add_lower_pass"] = [(0, AnnotatePragmas())] + passes
    return PassContext(config=config, **kwargs)


@contextlib.contextmanager
def _gemm_as_pragma(sch):
    """Lower ``tensorize(env.gemm)`` as a ``vta_gemm`` pragma region; the VTA code generator
    checks the region computes the intrinsic and emits its micro-ops."""
    saved = []
    if isinstance(sch, Schedule):
        for st in sch.stages:
            for iv, a in list(st.iter_var_attrs.items()):
                intrin = getattr(a, "tensor_intrin", None)
                if intrin is not None and getattr(intrin, "name", "") == "GEMM":
                    saved.append((st, iv, a, a.iter_type, intrin))
                    a.tensor_intrin = None
                    a.iter_type = iv.iter_type
                    st.pragma(iv, "vta_gemm")
    try:
        yield
    finally:
        for _st, _iv, a, itype, intrin in saved:
            a.tensor_intrin, a.iter_type = intrin, itype
            keys = [k.value for k in a.pragma_keys]
            k = keys.index("vta_gemm")
            del a.pragma_keys[k]
            del a.pragma_values[k]


def lower(sch, args: Optional[Sequence[Any]] = None, name: str = "main", binds=None,
          simple_mode: bool = False):
    """Lower a schedule with the VTA passes (classic ``vta.lower``)."""
    ctx = PassContext.current()
    with contextlib.ExitStack() as stack:
        if not any(getattr(p, "name", "") == "vta.AnnotatePragmas"
                   for _, p in ctx.config.get("tir.add_lower_pass", ())):
            stack.enter_context(build_config())
        stack.enter_context(_gemm_as_pragma(sch))
        if simple_mode:  # print the regions as the runtime calls classic lowers them to
            cur = PassContext.current()
            cfg = dict(cur.config)
            cfg["tir.add_lower_pass"] = list(cfg.get("tir.add_lower_pass", ())) + [
                (3, LowerToIntrinsics())]
            stack.enter_context(PassContext(cur.opt_level, cur.required_pass,
                                            cur.disabled_pass, config=cfg))
        return driver.lower(sch, args, name=name, binds=binds, simple_mode=simple_mode)


class VTAModule:
    """A compiled VTA function: calling it runs the program on the simulator."""

    type_key = "vta"

    def __init__(self, program: codegen.Program):
        self.program = program
        self.entry_name = program.name

    def __call__(self, *args) -> None:
        prog = self.program
        if len(args) != len(prog.arg_names):
            raise TVMError(f"{prog.name}: expected {len(prog.arg_names)} arguments, got "
                           f"{len(args)}")
        arrays = []
        for a, name, shape, dtype in zip(args, prog.arg_names, prog.arg_shapes,
                                         prog.arg_dtypes):
            arr = a.numpy() if hasattr(a, "numpy") else np.asarray(a)
            if tuple(arr.shape) != tuple(shape) or str(arr.dtype) != dtype:
                raise TVMError(f"{prog.name}: argument {name} must be {dtype}{list(shape)}, "
                               f"got {arr.dtype}{list(arr.shape)}")
            arrays.append(np.ascontiguousarray(arr).copy())
        simulator.run(prog, arrays, get_env())
        for a, arr in zip(args, arrays):
            if isinstance(a, _nd.NDArray):
                a.copyfrom(arr)
            elif isinstance(a, np.ndarray):
                a[...] = arr

    def get_function(self, name: str):
        if name != self.entry_name:
            raise TVMError(f"VTA module has no function {name!r}")
        return self

    def __getitem__(self, name: str):
        return self.get_function(name)

    def save(self, path: str, fmt: str = "") -> None:
        """Write the program (``module.save("conv2d.o")``)."""
        with open(path, "wb") as fh:
            fh.write(MAGIC + pickle.dumps(self.program))

    export_library = save

    def get_source(self, fmt: str = "") -> str:
        """The instruction listing."""
        return "\n".join(f"{type(i).__name__} {i}" for i in self.program.insns)


def load(path: str) -> VTAModule:
    """Load a module written by :meth:`VTAModule.save`."""
    with open(path, "rb") as fh:
        blob = fh.read()
    if not blob.startswith(MAGIC):
        raise TVMError(f"{path} is not a VTA program")
    return VTAModule(pickle.loads(blob[len(MAGIC):]))


def build(sch, args: Optional[Sequence[Any]] = None, target=None, target_host=None,
          name: str = "default_function", binds=None) -> VTAModule:
    """Build a VTA function (classic ``vta.build``): lower with the VTA passes, then generate
    the instruction program its host loops make."""
    env = get_env()
    mod = lower(sch, args, name=name, binds=binds)
    funcs = list(mod.functions.items())
    if len(funcs) != 1:
        raise TVMError("vta.build: expected one function")
    return VTAModule(codegen.generate(funcs[0][1], env, name))


_module.FILE_LOADERS[MAGIC] = load
