"""NDArray: a 64-byte aligned n-dimensional array on a device (``tvm.nd``).

Each NDArray owns (or views) a numpy array and keeps a DLTensor struct describing it, built
once, so passing it to a compiled function costs one pointer store.
"""
from __future__ import annotations

import ctypes
import math
from typing import Optional

import numpy as np

from ..error import TVMError
from ..ir import dtype as _dt
from .device import CPU, CUDA, EXT_DEV, Device, cpu, cuda_available, gpu_emulation
from .device import device as _make_device

ALIGNMENT = 64


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    """The DLPack tensor descriptor that compiled functions receive (type code 7)."""

    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


def _np_dtype(dtype: str) -> np.dtype:
    if dtype == "bool":
        return np.dtype("bool")
    d = _dt.parse(dtype)
    if d.lanes != 1 or d.code not in (_dt.INT, _dt.UINT, _dt.FLOAT):
        raise TVMError(f"NDArray does not support dtype {dtype}")
    return np.dtype(dtype)


def _tvm_dtype(npdtype: np.dtype) -> str:
    s = str(npdtype)
    try:
        _dt.parse(s)
    except ValueError:
        raise TVMError(f"numpy dtype {s} has no tvmlite equivalent") from None
    return s


def _aligned_empty(shape: tuple, npdtype: np.dtype) -> np.ndarray:
    nbytes = int(np.prod(shape, dtype=np.int64)) * npdtype.itemsize
    raw = np.empty(nbytes + ALIGNMENT, dtype=np.uint8)
    off = (-raw.ctypes.data) % ALIGNMENT
    return raw[off:off + nbytes].view(npdtype).reshape(shape)


class NDArray:
    """An n-dimensional array on a device (``tvm.nd.NDArray``)."""

    __slots__ = ("_arr", "_device", "_dtype", "_dl", "_dl_shape", "_dl_strides", "_dlptr",
                 "__weakref__")

    def __init__(self, arr: np.ndarray, device: Device, dtype: Optional[str] = None):
        # Internal: wraps ``arr`` without copying. Use tvm.nd.array / tvm.nd.empty.
        self._arr = arr
        self._device = device
        self._dtype = dtype or _tvm_dtype(arr.dtype)
        nd = arr.ndim
        self._dl_shape = (ctypes.c_int64 * max(nd, 1))(*arr.shape)
        dl = DLTensor()
        dl.data = arr.ctypes.data if arr.size else (arr.ctypes.data or ALIGNMENT)
        dl.device = DLDevice(device.device_type, device.device_id)
        dl.ndim = nd
        code, bits, lanes = _dt.parse(self._dtype)
        dl.dtype = DLDataType(code, bits, lanes)
        dl.shape = ctypes.cast(self._dl_shape, ctypes.POINTER(ctypes.c_int64))
        if arr.flags.c_contiguous or arr.size == 0:
            self._dl_strides = None
        else:
            item = arr.itemsize
            if any(s % item for s in arr.strides):
                raise TVMError("NDArray strides must be multiples of the element size")
            self._dl_strides = (ctypes.c_int64 * nd)(*(s // item for s in arr.strides))
            dl.strides = ctypes.cast(self._dl_strides, ctypes.POINTER(ctypes.c_int64))
        dl.byte_offset = 0
        self._dl = dl
        self._dlptr = ctypes.addressof(dl)

    def __reduce__(self):
        # pickled (save_json, copy) as its values, dtype and device
        return _unpickle, (np.array(self._arr), self._dtype, self._device.device_type,
                           self._device.device_id)

    # ------------------------------------------------------------------ properties
    @property
    def shape(self) -> tuple:
        return tuple(int(s) for s in self._arr.shape)

    @property
    def dtype(self) -> str:
        return self._dtype

    @property
    def device(self) -> Device:
        return self._device

    ctx = device

    @property
    def ndim(self) -> int:
        return self._arr.ndim

    @property
    def handle(self):
        """A pointer to the array's DLTensor."""
        return ctypes.pointer(self._dl)

    # ------------------------------------------------------------------ data movement
    def numpy(self) -> np.ndarray:
        """A copy of the data as a numpy array."""
        return np.array(self._arr, copy=True)

    asnumpy = numpy

    def copyfrom(self, source) -> "NDArray":
        """Copy data from a numpy array, list or NDArray of the same shape into this array.

        A numpy array or list of another dtype is converted to this array's dtype, as in TVM;
        an NDArray must have the same dtype.
        """
        if isinstance(source, NDArray):
            src = source._arr if source._arr is not None else source.numpy()  # a device array
            if src.dtype != self._arr.dtype:
                raise ValueError(f"NDArray dtype {source.dtype} does not match the NDArray "
                                 f"dtype {self.dtype}")
        else:
            src = np.asarray(source)
            if src.dtype.kind not in "biuf":
                raise TypeError(f"cannot copy an array of numpy dtype {src.dtype} into an "
                                f"NDArray")
        if tuple(src.shape) != self.shape:
            raise ValueError(f"array shape do not match the shape of NDArray "
                             f"{tuple(src.shape)} vs {self.shape}")
        np.copyto(self._arr, src, casting="unsafe")
        return self

    def copyto(self, target) -> "NDArray":
        """Copy into another NDArray, or into a new array on a device."""
        if isinstance(target, NDArray):
            target.copyfrom(self)
            return target
        if isinstance(target, Device):
            return array(self._arr, target)
        raise TypeError(f"copyto expects an NDArray or a Device, got {type(target).__name__}")

    def __setitem__(self, key, value) -> None:
        if not (isinstance(key, slice) and key == slice(None)):
            raise ValueError("NDArray only supports assignment to the whole array, a[:] = value")
        if isinstance(value, NDArray):
            self.copyfrom(value)
        elif isinstance(value, (np.ndarray, list, tuple)):
            src = np.asarray(value)
            self.copyfrom(src.astype(self._arr.dtype) if src.dtype != self._arr.dtype else src)
        else:
            self._arr[...] = value

    def __repr__(self) -> str:
        return f"<tvm.nd.NDArray shape={self.shape}, {self._device!r}>\n{self._arr!r}"

    def __str__(self) -> str:
        return str(self._arr)

    def to_dlpack(self):
        """A DLPack capsule viewing this array (no copy)."""
        from .cuda_ndarray import to_dlpack

        return to_dlpack(self)

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        return self.to_dlpack()

    def __dlpack_device__(self) -> tuple:
        return (self._device.device_type, self._device.device_id)

    def same_as(self, other) -> bool:
        return self is other

    def _numpy_view(self) -> np.ndarray:
        """The underlying numpy array (no copy); internal use by the runtime."""
        return self._arr


def _check_device(dev: Device) -> None:
    if dev.device_type != CPU:
        if dev.device_type == EXT_DEV:
            return  # the VTA simulator's DRAM is host memory
        if dev.device_type == CUDA and gpu_emulation():
            return  # emulated: the array lives in host memory
        if dev.device_type == CUDA and not cuda_available():
            raise TVMError(f"cannot create an NDArray on {dev!r}: CUDA is not available on "
                           f"this machine (no NVIDIA driver or cuda-python)")
        raise TVMError(f"NDArray on {dev!r} is not supported yet")


def _resolve_device(device, ctx) -> Device:
    d = device if device is not None else ctx
    if d is None:
        return cpu(0)
    return d if isinstance(d, Device) else _make_device(d)


def empty(shape, dtype: str = "float32", device=None, ctx=None) -> NDArray:
    """An uninitialised array (``tvm.nd.empty``)."""
    dev = _resolve_device(device, ctx)
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    shape = tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"negative dimension in shape {shape}")
    dtype = _dt.canonical(dtype)
    remote = getattr(dev, "_rpc_sess", None)  # a device of an RPC session (tvm.rpc)
    if remote is not None:
        return remote.empty(shape, dtype, dev)
    _check_device(dev)
    if math.prod(shape) * _dt.nbytes(dtype) > 1 << 48:
        raise ValueError(f"shape {shape} of {dtype} is too large to allocate")
    if dev.device_type == CUDA and not gpu_emulation():
        from .cuda_ndarray import empty_cuda

        return empty_cuda(shape, dtype, dev)
    return NDArray(_aligned_empty(shape, _np_dtype(dtype)), dev, dtype)


def array(arr, device=None, ctx=None, dtype: Optional[str] = None) -> NDArray:
    """Copy a numpy array, list or NDArray into a new NDArray (``tvm.nd.array``)."""
    if isinstance(arr, NDArray):
        arr = arr._arr
    elif not isinstance(arr, np.ndarray):
        arr = np.asarray(arr, dtype=None if dtype is None else _np_dtype(_dt.canonical(dtype)))
    if dtype is not None and str(arr.dtype) != _dt.canonical(dtype):
        arr = arr.astype(_np_dtype(_dt.canonical(dtype)))
    if arr.dtype.kind not in "biuf":
        raise TVMError(f"cannot make an NDArray from numpy dtype {arr.dtype}")
    dev = _resolve_device(device, ctx)
    remote = getattr(dev, "_rpc_sess", None)  # a device of an RPC session (tvm.rpc)
    if remote is not None:
        return remote.array(arr, dev)
    out = empty(arr.shape, _tvm_dtype(arr.dtype), device, ctx)
    if out._arr is None:  # device memory
        out.copyfrom(arr)
    else:
        np.copyto(out._arr, arr)
    return out


def from_dlpack(obj) -> NDArray:
    """An NDArray sharing the memory of a DLPack tensor (torch, cupy, numpy) or capsule."""
    from .cuda_ndarray import from_dlpack as _from_dlpack

    return _from_dlpack(obj)


def from_numpy_view(arr: np.ndarray, device: Optional[Device] = None) -> NDArray:
    """Wrap ``arr`` without copying (it may be strided); the NDArray shares its memory."""
    return NDArray(arr, device or cpu(0))


def from_dltensor(ptr: int) -> NDArray:
    """An NDArray viewing the memory a DLTensor pointer describes (no copy)."""
    dl = DLTensor.from_address(ptr)
    dtype = _dt_name(dl.dtype.code, dl.dtype.bits, dl.dtype.lanes)
    npd = _np_dtype(dtype)
    shape = tuple(dl.shape[i] for i in range(dl.ndim))
    n = int(np.prod(shape, dtype=np.int64))
    if dl.strides:
        el_strides = tuple(dl.strides[i] for i in range(dl.ndim))
        span = 1 + sum((s - 1) * abs(st) for s, st in zip(shape, el_strides)) if n else 1
        buf = (ctypes.c_uint8 * (span * npd.itemsize)).from_address(dl.data + dl.byte_offset)
        arr = np.lib.stride_tricks.as_strided(
            np.frombuffer(buf, dtype=npd), shape=shape,
            strides=tuple(st * npd.itemsize for st in el_strides))
    else:
        buf = (ctypes.c_uint8 * max(n * npd.itemsize, 1)).from_address(dl.data + dl.byte_offset)
        arr = np.frombuffer(buf, dtype=npd, count=n).reshape(shape)
    return NDArray(arr, Device(dl.device.device_type, dl.device.device_id), dtype)


def _dt_name(code: int, bits: int, lanes: int) -> str:
    if code == _dt.UINT and bits == 1:
        base = "bool"
    else:
        base = {_dt.INT: "int", _dt.UINT: "uint", _dt.FLOAT: "float",
                _dt.BFLOAT: "bfloat"}.get(code, f"code{code}") + str(bits)
    return _dt.with_lanes(base, lanes)


__all__ = ["NDArray", "array", "empty", "DLTensor", "from_numpy_view", "from_dltensor",
           "from_dlpack"]


def _unpickle(arr: np.ndarray, dtype: str, device_type: int, device_id: int) -> NDArray:
    """An NDArray from what :meth:`NDArray.__reduce__` saved."""
    from .device import Device
    return NDArray(np.array(arr, order="C"), Device(device_type, device_id), dtype)
