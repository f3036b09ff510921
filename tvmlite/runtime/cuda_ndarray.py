"""NDArrays in CUDA device memory, and DLPack exchange (torch, cupy, numpy) for every NDArray.

A :class:`CUDANDArray` owns (or views) ``cuMemAlloc`` memory; its DLTensor points there, so
compiled host code passes it to kernels as is. Copies go through the driver API.
"""
from __future__ import annotations

import ctypes
import math
import weakref

import numpy as np

from ..error import TVMError
from ..ir import dtype as _dt
from . import cuda_driver
from .device import CPU, CUDA, Device
from .ndarray import DLDataType, DLDevice, DLTensor, NDArray, _np_dtype, from_dltensor


class CUDANDArray(NDArray):
    """An NDArray in the memory of a CUDA device (``tvm.nd.empty(shape, dev=tvm.cuda(0))``)."""

    __slots__ = ("_ptr", "_shape", "_finalizer")

    def __init__(self, shape: tuple, dtype: str, device: Device, ptr=None, owner=None):
        # Internal: use tvm.nd.empty/array with a CUDA device, or tvm.nd.from_dlpack.
        npd = _np_dtype(dtype)
        nbytes = math.prod(shape) * npd.itemsize
        if ptr is None:
            ptr = cuda_driver.mem_alloc(nbytes, device.device_id)
            self._finalizer = weakref.finalize(self, cuda_driver.mem_free, ptr, device.device_id)
        else:
            self._finalizer = owner
        self._arr = None
        self._ptr = int(ptr)
        self._shape = tuple(int(s) for s in shape)
        self._device = device
        self._dtype = dtype
        self._dl_shape = (ctypes.c_int64 * max(len(shape), 1))(*shape)
        self._dl_strides = None
        dl = DLTensor()
        dl.data = self._ptr
        dl.device = DLDevice(CUDA, device.device_id)
        dl.ndim = len(shape)
        dl.dtype = DLDataType(*_dt.parse(dtype))
        dl.shape = ctypes.cast(self._dl_shape, ctypes.POINTER(ctypes.c_int64))
        dl.byte_offset = 0
        self._dl = dl
        self._dlptr = ctypes.addressof(dl)

    @property
    def shape(self) -> tuple:
        return self._shape

    @property
    def ndim(self) -> int:
        return len(self._shape)

    @property
    def _nbytes(self) -> int:
        return math.prod(self._shape) * _np_dtype(self._dtype).itemsize

    def numpy(self) -> np.ndarray:
        """A host copy of the data."""
        out = np.empty(self._shape, dtype=_np_dtype(self._dtype))
        cuda_driver.copy_to_host(out.ctypes.data, self._ptr, self._nbytes,
                                 self._device.device_id)
        return out

    asnumpy = numpy

    def copyfrom(self, source) -> "CUDANDArray":
        """Copy from a numpy array, list or NDArray of the same shape (host or device)."""
        if isinstance(source, CUDANDArray):
            if source.dtype != self.dtype or source.shape != self.shape:
                raise ValueError(f"cannot copy {source.dtype}{list(source.shape)} into "
                                 f"{self.dtype}{list(self.shape)}")
            cuda_driver.copy_device(self._ptr, source._ptr, self._nbytes, self._device.device_id)
            return self
        src = source.numpy() if isinstance(source, NDArray) else np.asarray(source)
        if isinstance(source, NDArray) and source.dtype != self.dtype:
            raise ValueError(f"NDArray dtype {source.dtype} does not match the NDArray dtype "
                             f"{self.dtype}")
        if src.dtype.kind not in "biuf":
            raise TypeError(f"cannot copy an array of numpy dtype {src.dtype} into an NDArray")
        if tuple(src.shape) != self.shape:
            raise ValueError(f"array shape do not match the shape of NDArray "
                             f"{tuple(src.shape)} vs {self.shape}")
        host = np.ascontiguousarray(src, dtype=_np_dtype(self._dtype))
        cuda_driver.copy_to_device(self._ptr, host.ctypes.data, self._nbytes,
                                   self._device.device_id)
        return self

    def copyto(self, target) -> NDArray:
        """Copy into another NDArray, or into a new array on a device."""
        if isinstance(target, NDArray):
            if isinstance(target, CUDANDArray):
                return target.copyfrom(self)
            return target.copyfrom(self.numpy())
        if isinstance(target, Device):
            from .ndarray import array

            return array(self.numpy(), target)
        raise TypeError(f"copyto expects an NDArray or a Device, got {type(target).__name__}")

    def __setitem__(self, key, value) -> None:
        if not (isinstance(key, slice) and key == slice(None)):
            raise ValueError("NDArray only supports assignment to the whole array, a[:] = value")
        if isinstance(value, (NDArray, np.ndarray, list, tuple)):
            self.copyfrom(value)
        else:
            self.copyfrom(np.full(self._shape, value, dtype=_np_dtype(self._dtype)))

    def __repr__(self) -> str:
        return f"<tvm.nd.NDArray shape={self.shape}, {self._device!r}>\n{self.numpy()!r}"

    def __str__(self) -> str:
        return str(self.numpy())

    def _numpy_view(self) -> np.ndarray:
        raise TVMError(f"an NDArray on {self._device!r} has no host view; call .numpy()")


def empty_cuda(shape: tuple, dtype: str, dev: Device) -> CUDANDArray:
    """An uninitialised array in device memory."""
    return CUDANDArray(shape, dtype, dev)


# ------------------------------------------------------------------------------------- DLPack
class DLManagedTensor(ctypes.Structure):
    pass


_DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                            ("deleter", _DELETER)]

_CAPSULE_NAME = ctypes.create_string_buffer(b"dltensor")
_USED_NAME = ctypes.create_string_buffer(b"used_dltensor")
_EXPORTED: dict = {}  # address of a DLManagedTensor → what it keeps alive

_api = ctypes.pythonapi
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]


@_DELETER
def _deleter(managed):
    _EXPORTED.pop(ctypes.addressof(managed.contents), None)


_CAPSULE_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


@_CAPSULE_DESTRUCTOR
def _capsule_destructor(cap):
    # a capsule nobody consumed still owns its tensor
    obj = ctypes.cast(cap, ctypes.py_object)
    if _api.PyCapsule_IsValid(obj, _CAPSULE_NAME):
        _EXPORTED.pop(_api.PyCapsule_GetPointer(obj, _CAPSULE_NAME), None)


def to_dlpack(arr: NDArray):
    """A DLPack capsule viewing ``arr`` (``torch.from_dlpack`` / ``cupy.from_dlpack`` read it)."""
    managed = DLManagedTensor()
    ctypes.memmove(ctypes.addressof(managed.dl_tensor), arr._dlptr, ctypes.sizeof(DLTensor))
    managed.deleter = _deleter
    addr = ctypes.addressof(managed)
    _EXPORTED[addr] = (managed, arr)
    return _api.PyCapsule_New(addr, _CAPSULE_NAME,
                              ctypes.cast(_capsule_destructor, ctypes.c_void_p))


def dlpack_device(arr: NDArray) -> tuple:
    return (arr.device.device_type, arr.device.device_id)


def _call_deleter(addr: int) -> None:
    m = DLManagedTensor.from_address(addr)
    if ctypes.cast(m.deleter, ctypes.c_void_p).value:
        m.deleter(ctypes.pointer(m))


def from_dlpack(obj) -> NDArray:
    """An NDArray viewing the memory of a DLPack producer (a torch/cupy tensor, a numpy array
    or a capsule) without copying; the producer's tensor lives as long as the NDArray."""
    cap = obj.__dlpack__() if hasattr(obj, "__dlpack__") else obj
    if not _api.PyCapsule_IsValid(cap, _CAPSULE_NAME):
        raise TVMError("from_dlpack expects a DLPack capsule named 'dltensor' (or an object "
                       "with __dlpack__) that has not been consumed")
    addr = _api.PyCapsule_GetPointer(cap, _CAPSULE_NAME)
    _api.PyCapsule_SetName(cap, _USED_NAME)
    dl = DLTensor.from_address(addr)
    dev_type = dl.device.device_type
    if dev_type == CPU:
        out = from_dltensor(addr)
    elif dev_type == CUDA:
        shape = tuple(dl.shape[i] for i in range(dl.ndim))
        if dl.strides:
            compact, step = [], 1
            for s in reversed(shape):
                compact.insert(0, step)
                step *= s
            if any(dl.strides[i] != compact[i] for i in range(dl.ndim) if shape[i] != 1):
                _call_deleter(addr)
                raise TVMError("from_dlpack: a strided CUDA tensor is not supported; make it "
                               "contiguous first")
        code, bits, lanes = dl.dtype.code, dl.dtype.bits, dl.dtype.lanes
        from .ndarray import _dt_name

        out = CUDANDArray(shape, _dt_name(code, bits, lanes),
                          Device(CUDA, dl.device.device_id), ptr=dl.data + dl.byte_offset,
                          owner=True)
    else:
        _call_deleter(addr)
        raise TVMError(f"from_dlpack: tensors on device type {dev_type} are not supported")
    weakref.finalize(out, _call_deleter, addr)
    return out
