"""The runtime (``tvm.runtime``): devices, NDArray, compiled modules, global functions."""
from __future__ import annotations

import importlib.util

from ..ir.dtype import DataType
from . import container, ndarray
from .container import String, convert, convert_to_object
from .device import Device, context, cpu, cuda, cuda_available, device, ext_dev, gpu
from .module import BenchmarkResult, Module, load_module
from .ndarray import NDArray
from .packed_func import PackedFunc, get_global_func, list_global_func_names, register_func
from .params import (
    load_param_dict,
    load_param_dict_from_file,
    save_param_dict,
    save_param_dict_to_file,
)

nd = ndarray


def enabled(target: str) -> bool:
    """Whether a backend is usable here: ``"llvm"``/``"c"`` always, ``"cuda"`` if CUDA is."""
    name = str(target).split()[0] if str(target).strip() else ""
    if name in ("llvm", "c", "cpu", "stackvm"):
        return True
    if name in ("cuda", "gpu", "nvptx"):
        return cuda_available()
    if name == "rpc":
        return importlib.util.find_spec("tvmlite.rpc") is not None
    return False


__all__ = ["Device", "context", "cpu", "cuda", "device", "ext_dev", "gpu", "ndarray", "nd",
           "NDArray", "PackedFunc", "get_global_func", "list_global_func_names",
           "register_func", "BenchmarkResult", "Module", "load_module", "enabled", "container",
           "convert", "convert_to_object", "String", "DataType", "save_param_dict",
           "load_param_dict", "save_param_dict_to_file", "load_param_dict_from_file"]


from .._classic import fallback as _fallback  # noqa: E402
from .object import Object  # noqa: E402

__getattr__ = _fallback(__name__)
