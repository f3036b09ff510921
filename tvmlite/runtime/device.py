"""Devices: ``tvm.cpu(0)``, ``tvm.cuda(0)``, ``tvm.device("llvm", 0)``."""
from __future__ import annotations

import importlib.util
import os
from functools import lru_cache

from ..error import TVMError

CPU, CUDA, EXT_DEV = 1, 2, 12

_TYPE_NAMES = {CPU: "cpu", CUDA: "cuda", 3: "cuda_host", 4: "opencl", 7: "vulkan", 8: "metal",
               9: "vpi", 10: "rocm", 11: "rocm_host", EXT_DEV: "ext_dev", 13: "cuda_managed",
               14: "oneapi", 15: "webgpu", 16: "hexagon", 32: "aocl", 33: "sdaccel",
               34: "opengl", 35: "microdev"}
# classic's names of device types (``sdaccel`` is an OpenCL device, ``aocl`` Intel FPGA's)
_STR_TO_TYPE = {
    "cpu": CPU, "llvm": CPU, "c": CPU, "stackvm": CPU, "test": CPU, "hybrid": CPU,
    "composite": CPU, "cuda": CUDA, "gpu": CUDA, "nvptx": CUDA, "cl": 4, "opencl": 4,
    "sdaccel": 4, "aocl": 32, "aocl_sw_emu": 32, "vulkan": 7, "metal": 8, "ext_dev": EXT_DEV,
    "rocm": 10, "vpi": 9, "hexagon": 16, "webgpu": 15,
}


@lru_cache(maxsize=None)
def cuda_available() -> bool:
    """Whether CUDA can be used: the ``cuda-python`` package and an NVIDIA driver are present.

    Nothing CUDA is imported here; the check only looks for them.
    """
    if not (os.path.exists("/dev/nvidiactl") or os.path.exists("/proc/driver/nvidia/version")):
        return False
    try:
        return importlib.util.find_spec("cuda") is not None
    except (ImportError, ValueError):
        return False


def gpu_emulation() -> bool:
    """Whether CUDA devices are emulated on the CPU (``TVMLITE_GPU_EMULATION=1``): their
    arrays live in host memory and GPU kernels run as C compiled for the host."""
    return os.environ.get("TVMLITE_GPU_EMULATION", "") not in ("", "0")


class Device:
    """A device handle: ``device_type`` (1 cpu, 2 cuda) and ``device_id``."""

    __slots__ = ("device_type", "device_id")

    def __init__(self, device_type: int, device_id: int = 0):
        self.device_type = int(device_type)
        self.device_id = int(device_id)

    def __repr__(self) -> str:
        name = _TYPE_NAMES.get(self.device_type, f"device{self.device_type}")
        return f"{name}({self.device_id})"

    def __eq__(self, other) -> bool:
        return (isinstance(other, Device) and self.device_type == other.device_type
                and self.device_id == other.device_id)

    def __ne__(self, other) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash((self.device_type, self.device_id))

    @property
    def exist(self) -> bool:
        """Whether the device exists on this machine."""
        if self.device_type == CPU:
            return self.device_id == 0
        if self.device_type == CUDA:
            if gpu_emulation():
                return True
            if not cuda_available():
                return False
            from .cuda_driver import device_count

            return 0 <= self.device_id < device_count()
        return False

    @property
    def emulated(self) -> bool:
        """Whether this is a CUDA device emulated on the CPU (``TVMLITE_GPU_EMULATION=1``)."""
        return self.device_type == CUDA and gpu_emulation()

    def sync(self) -> None:
        """Wait for the device to finish its work (CPU work is synchronous)."""
        if self.device_type != CPU and not self.exist:
            raise TVMError(f"device {self!r} is not available")
        if self._real_cuda():
            from .cuda_driver import synchronize

            synchronize(self.device_id)

    def _real_cuda(self) -> bool:
        return self.device_type == CUDA and not gpu_emulation() and cuda_available()

    def _cuda_attr(self, name: str, emulated: int, other: int) -> int:
        """A device attribute: the driver's on a real GPU, an H100's when emulated."""
        if self.device_type != CUDA:
            return other
        if self._real_cuda():
            from .cuda_driver import attribute

            return attribute(self.device_id, name)
        return emulated

    @property
    def max_threads_per_block(self) -> int:
        return self._cuda_attr("max_threads_per_block", 1024, 1)

    @property
    def max_shared_memory_per_block(self) -> int:
        return self._cuda_attr("max_shared_memory_per_block", 49152, 0)

    @property
    def warp_size(self) -> int:
        return self._cuda_attr("warp_size", 32, 1)

    @property
    def compute_version(self) -> str:
        """The CUDA compute capability; an emulated device reports an H100's."""
        if self.device_type != CUDA or not self.exist:
            raise TVMError(f"device {self!r} is not available")
        if self._real_cuda():
            from .cuda_driver import compute_version

            return compute_version(self.device_id)
        return "9.0"

    @property
    def multi_processor_count(self) -> int:
        return self._cuda_attr("multi_processor_count", 132, 1)

    # TVM 0.7 spelling
    @property
    def device_name(self) -> str:
        return _TYPE_NAMES.get(self.device_type, "unknown")


def device(dev_type, dev_id: int = 0) -> Device:
    """Make a device from a name (``"llvm"``, ``"cpu"``, ``"c"``, ``"cuda"``, ``"gpu"``) or a
    type code; a target string such as ``"llvm -mcpu=znver3"`` uses its first word."""
    if isinstance(dev_type, Device):
        return dev_type
    if isinstance(dev_type, int):
        return Device(dev_type, dev_id)
    if not isinstance(dev_type, str):
        kind = getattr(getattr(dev_type, "kind", None), "name", None)  # a Target
        if kind is None:
            raise TypeError(f"cannot make a device from {dev_type!r}")
        dev_type = kind
    name = dev_type.split()[0] if dev_type.strip() else dev_type
    if name not in _STR_TO_TYPE:
        raise ValueError(f"unknown device type {dev_type!r}")
    return Device(_STR_TO_TYPE[name], dev_id)


context = device


def cpu(dev_id: int = 0) -> Device:
    """The host CPU."""
    return Device(CPU, dev_id)


def cuda(dev_id: int = 0) -> Device:
    """A CUDA GPU."""
    return Device(CUDA, dev_id)


gpu = cuda


def ext_dev(dev_id: int = 0) -> Device:
    """An external device (VTA)."""
    return Device(EXT_DEV, dev_id)
