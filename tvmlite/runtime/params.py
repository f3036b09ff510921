"""``tvm.runtime.save_param_dict`` / ``load_param_dict`` (relay and
``tvm.contrib.param_dict`` re-export them): parameters as bytes in classic TVM's NDArray-list
format (magic, names, then each array as a serialized DLTensor), so a params file written by
classic TVM loads here and the other way round."""
from __future__ import annotations

import struct
from typing import Any, Dict

import numpy as np

from ..error import TVMError
from ..ir import dtype as _dt
from . import ndarray as _nd

_LIST_MAGIC = 0xF7E58D4F05049CB7
_ARRAY_MAGIC = 0xDD5E40F096B4A13F
_KDL_CPU = 1


def save_param_dict(params: Dict[str, Any]) -> bytearray:
    """Serialize ``{name: NDArray or numpy array}`` to bytes."""
    names = list(params)
    out = [struct.pack("<QQQ", _LIST_MAGIC, 0, len(names))]
    for name in names:
        raw = name.encode()
        out.append(struct.pack("<Q", len(raw)) + raw)
    out.append(struct.pack("<Q", len(names)))
    for name in names:
        v = params[name]
        arr = v.numpy() if isinstance(v, _nd.NDArray) else np.asarray(v)
        dtype = "bool" if arr.dtype == np.bool_ else str(arr.dtype)
        try:
            code, bits, lanes = _dt.parse(dtype)
        except ValueError:
            raise TVMError(f"save_param_dict: param {name!r} has unsupported dtype "
                           f"{arr.dtype}") from None
        data = np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<")).tobytes()
        out.append(struct.pack("<QQiiiBBH", _ARRAY_MAGIC, 0, _KDL_CPU, 0, arr.ndim, code, bits,
                               lanes))
        out.append(struct.pack(f"<{arr.ndim}q", *arr.shape))
        out.append(struct.pack("<q", len(data)) + data)
    return bytearray(b"".join(out))  # classic returns a bytearray


class _Reader:
    def __init__(self, data: bytes):
        self.data, self.pos = memoryview(data), 0

    def take(self, fmt: str):
        size = struct.calcsize(fmt)
        if self.pos + size > len(self.data):
            raise TVMError("load_param_dict: the data is truncated")
        vals = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += size
        return vals

    def raw(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise TVMError("load_param_dict: the data is truncated")
        out = bytes(self.data[self.pos:self.pos + n])
        self.pos += n
        return out


def load_param_dict(param_bytes) -> Dict[str, Any]:
    """The ``{name: NDArray}`` dict :func:`save_param_dict` wrote."""
    if isinstance(param_bytes, (bytearray, memoryview)):
        param_bytes = bytes(param_bytes)
    if not isinstance(param_bytes, bytes):
        raise TVMError(f"load_param_dict expects bytes, got {type(param_bytes).__name__}")
    r = _Reader(param_bytes)
    magic, _, n_names = r.take("<QQQ")
    if magic != _LIST_MAGIC:
        raise TVMError("load_param_dict: not a parameter blob (bad magic number)")
    names = [r.raw(r.take("<Q")[0]).decode() for _ in range(n_names)]
    (n_arrays,) = r.take("<Q")
    if n_arrays != len(names):
        raise TVMError(f"load_param_dict: {len(names)} names but {n_arrays} arrays")
    out = {}
    for name in names:
        magic, _, _, _, ndim, code, bits, lanes = r.take("<QQiiiBBH")
        if magic != _ARRAY_MAGIC:
            raise TVMError(f"load_param_dict: array {name!r} has a bad magic number")
        if lanes != 1:
            raise TVMError(f"load_param_dict: array {name!r} has vector lanes {lanes}")
        shape = r.take(f"<{ndim}q")
        if code == _dt.UINT and bits == 1:
            np_dtype = np.dtype(np.bool_)
        else:
            try:
                np_dtype = np.dtype(f"{_dt.TYPE_CODE_NAMES[code]}{bits}")
            except (KeyError, TypeError):
                raise TVMError(f"load_param_dict: array {name!r} has unsupported type code "
                               f"{code} ({bits} bits)") from None
        (nbytes,) = r.take("<q")
        expect = int(np.prod(shape, dtype=np.int64)) * np_dtype.itemsize
        if nbytes != expect:
            raise TVMError(f"load_param_dict: array {name!r} of shape {tuple(shape)} and "
                           f"dtype {np_dtype} holds {nbytes} bytes, expected {expect}")
        arr = np.frombuffer(r.raw(nbytes), np_dtype.newbyteorder("<")).reshape(shape)
        out[name] = _nd.array(arr.astype(np_dtype))
    return out


def save_param_dict_to_file(params: Dict[str, Any], path: str) -> None:
    """Write :func:`save_param_dict` of ``params`` to ``path``."""
    with open(path, "wb") as f:
        f.write(save_param_dict(params))


def load_param_dict_from_file(path: str) -> Dict[str, Any]:
    """:func:`load_param_dict` of the file ``path``."""
    with open(path, "rb") as f:
        return load_param_dict(f.read())
