"""The CUDA driver API through NVIDIA's Python bindings (``cuda-python``'s ``cuda.bindings``).

Nothing here is imported before a real CUDA device is used: :func:`driver` loads the bindings on
first use and turns a missing package or driver into a :class:`TVMError`. Each device runs in
its primary context; kernels are launched on the default stream.
"""
from __future__ import annotations

import ctypes
import threading
from functools import lru_cache
from typing import Dict, Sequence, Tuple

from ..error import TVMError

_LOCK = threading.Lock()
_CONTEXTS: Dict[int, object] = {}
_MODULES: Dict[Tuple[str, int], object] = {}
_FUNCS: Dict[Tuple[str, int, str], object] = {}
_CURRENT = threading.local()

# device attributes by their classic names
ATTRIBUTES = {
    "max_threads_per_block": "CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK",
    "max_shared_memory_per_block": "CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK",
    "warp_size": "CU_DEVICE_ATTRIBUTE_WARP_SIZE",
    "multi_processor_count": "CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT",
    "max_clock_rate": "CU_DEVICE_ATTRIBUTE_CLOCK_RATE",
    "compute_major": "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR",
    "compute_minor": "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR",
    "max_registers_per_block": "CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK",
}


@lru_cache(maxsize=None)
def driver():
    """The ``cuda.bindings.driver`` module, initialised (``cuInit``)."""
    try:
        from cuda.bindings import driver as cu
    except ImportError:
        try:
            from cuda import cuda as cu  # cuda-python 11.x/12.0 layout
        except ImportError:
            raise TVMError("CUDA needs NVIDIA's Python bindings: pip install "
                           "'tvmlite[cuda]' (cuda-python)") from None
    try:
        (err,) = cu.cuInit(0)
    except Exception as e:  # noqa: BLE001  (a missing libcuda.so raises from the loader)
        raise TVMError(f"cannot initialise the CUDA driver: {e}") from None
    if err != cu.CUresult.CUDA_SUCCESS:
        raise TVMError(f"cannot initialise the CUDA driver: {_error_name(cu, err)}")
    return cu


def _error_name(cu, err) -> str:
    try:
        _, name = cu.cuGetErrorName(err)
        return name.decode() if isinstance(name, bytes) else str(name)
    except Exception:  # noqa: BLE001
        return str(err)


def check(result, what: str):
    """The values of a driver call's result tuple; a failure raises TVMError naming ``what``."""
    cu = driver()
    err, rest = result[0], result[1:]
    if err != cu.CUresult.CUDA_SUCCESS:
        raise TVMError(f"CUDA {what} failed: {_error_name(cu, err)}")
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else rest


def device_count() -> int:
    """The number of CUDA devices (0 when the driver or the bindings are missing)."""
    try:
        return int(check(driver().cuDeviceGetCount(), "cuDeviceGetCount"))
    except TVMError:
        return 0


def set_device(dev_id: int) -> None:
    """Make ``dev_id``'s primary context current on this thread (kernels launch there)."""
    cu = driver()
    ctx = _CONTEXTS.get(dev_id)
    if ctx is None:
        with _LOCK:
            ctx = _CONTEXTS.get(dev_id)
            if ctx is None:
                n = device_count()
                if not 0 <= dev_id < n:
                    raise TVMError(f"cuda({dev_id}) does not exist ({n} CUDA devices)")
                d = check(cu.cuDeviceGet(dev_id), "cuDeviceGet")
                ctx = _CONTEXTS[dev_id] = check(cu.cuDevicePrimaryCtxRetain(d),
                                                "cuDevicePrimaryCtxRetain")
    if getattr(_CURRENT, "dev", None) != dev_id:
        check(cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
        _CURRENT.dev = dev_id


def current_device() -> int:
    """The device this thread last used (0 at first)."""
    return getattr(_CURRENT, "dev", 0)


def attribute(dev_id: int, name: str) -> int:
    """A device attribute by its classic name (``max_threads_per_block``…)."""
    cu = driver()
    d = check(cu.cuDeviceGet(dev_id), "cuDeviceGet")
    attr = getattr(cu.CUdevice_attribute, ATTRIBUTES[name])
    return int(check(cu.cuDeviceGetAttribute(attr, d), f"cuDeviceGetAttribute({name})"))


def device_name(dev_id: int) -> str:
    cu = driver()
    d = check(cu.cuDeviceGet(dev_id), "cuDeviceGet")
    raw = check(cu.cuDeviceGetName(256, d), "cuDeviceGetName")
    return raw.split(b"\0", 1)[0].decode()


def compute_version(dev_id: int) -> str:
    return f"{attribute(dev_id, 'compute_major')}.{attribute(dev_id, 'compute_minor')}"


# ------------------------------------------------------------------------------------ memory
def mem_alloc(nbytes: int, dev_id: int) -> int:
    set_device(dev_id)
    return int(check(driver().cuMemAlloc(max(int(nbytes), 1)), f"cuMemAlloc({nbytes} bytes)"))


def mem_free(ptr: int, dev_id: int) -> None:
    cu = driver()
    set_device(dev_id)
    cu.cuMemFree(ptr)  # at exit the context may already be gone: nothing to report


def copy_to_device(dst: int, src_host: int, nbytes: int, dev_id: int) -> None:
    set_device(dev_id)
    if nbytes:
        check(driver().cuMemcpyHtoD(dst, src_host, nbytes), "cuMemcpyHtoD")


def copy_to_host(dst_host: int, src: int, nbytes: int, dev_id: int) -> None:
    set_device(dev_id)
    if nbytes:
        check(driver().cuMemcpyDtoH(dst_host, src, nbytes), "cuMemcpyDtoH")


def copy_device(dst: int, src: int, nbytes: int, dev_id: int) -> None:
    set_device(dev_id)
    if nbytes:
        check(driver().cuMemcpyDtoD(dst, src, nbytes), "cuMemcpyDtoD")


def synchronize(dev_id: int) -> None:
    set_device(dev_id)
    check(driver().cuCtxSynchronize(), "cuCtxSynchronize")


# ----------------------------------------------------------------------------------- kernels
def get_function(key: str, images: Sequence[bytes], name: str, dev_id: int):
    """The kernel ``name`` of the first of ``images`` (cubin, PTX) the device loads (once per
    device; ``key`` names the images)."""
    f = _FUNCS.get((key, dev_id, name))
    if f is not None:
        return f
    cu = driver()
    set_device(dev_id)
    with _LOCK:
        mod = _MODULES.get((key, dev_id))
        if mod is None:
            errors = []
            for image in images:
                data = image if image.endswith(b"\0") else image + b"\0"
                try:
                    mod = check(cu.cuModuleLoadData(data), "cuModuleLoadData")
                    break
                except TVMError as e:
                    errors.append(str(e))
            if mod is None:
                raise TVMError(f"cannot load the kernels of {name} on cuda({dev_id}): "
                               + "; ".join(errors))
            _MODULES[(key, dev_id)] = mod
        f = _FUNCS[(key, dev_id, name)] = check(cu.cuModuleGetFunction(mod, name.encode()),
                                                f"cuModuleGetFunction({name})")
    return f


_CTYPES = {"handle": ctypes.c_uint64, "int32": ctypes.c_int32, "int64": ctypes.c_int64,
           "uint32": ctypes.c_uint32, "int16": ctypes.c_int16, "int8": ctypes.c_int8,
           "uint8": ctypes.c_uint8, "float32": ctypes.c_float, "float64": ctypes.c_double,
           "bool": ctypes.c_bool}


def pack_params(types: Sequence[str], values: Sequence) -> tuple:
    """A ``void**`` kernel-parameter array for ``values`` of element ``types`` (and the
    ctypes objects it points to, to keep alive)."""
    boxes = []
    for t, v in zip(types, values):
        ct = _CTYPES.get(t)
        if ct is None:
            raise TVMError(f"a CUDA kernel parameter of type {t} is not supported")
        boxes.append(ct(v if t != "handle" else (v or 0)))
    arr = (ctypes.c_void_p * max(len(boxes), 1))(*[ctypes.addressof(b) for b in boxes])
    return arr, boxes


def launch(func, grid: Sequence[int], block: Sequence[int], types: Sequence[str],
           values: Sequence, what: str) -> None:
    """Launch ``func`` on the current device's default stream."""
    arr, _keep = pack_params(types, values)
    check(driver().cuLaunchKernel(func, *grid, *block, 0, 0, ctypes.addressof(arr), 0),
          f"launch of {what} (grid {tuple(grid)}, block {tuple(block)})")


class EventTimer:
    """Elapsed device time between two CUDA events on the default stream (ms)."""

    def __init__(self, dev_id: int):
        cu = driver()
        set_device(dev_id)
        self.start = check(cu.cuEventCreate(0), "cuEventCreate")
        self.end = check(cu.cuEventCreate(0), "cuEventCreate")

    def record_start(self) -> None:
        check(driver().cuEventRecord(self.start, 0), "cuEventRecord")

    def elapsed_ms(self) -> float:
        cu = driver()
        check(cu.cuEventRecord(self.end, 0), "cuEventRecord")
        check(cu.cuEventSynchronize(self.end), "cuEventSynchronize")
        return float(check(cu.cuEventElapsedTime(self.start, self.end), "cuEventElapsedTime"))

    def __del__(self):
        try:
            cu = driver()
            cu.cuEventDestroy(self.start)
            cu.cuEventDestroy(self.end)
        except Exception:  # noqa: BLE001  (interpreter shutdown)
            pass
