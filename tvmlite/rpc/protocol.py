"""The RPC wire protocol: length-prefixed binary frames of typed values.

A frame is a 4-byte little-endian payload length followed by the payload; a length above the
receiver's cap is refused before anything is read. A payload is one value; messages are lists
whose first element is an opcode (requests) or a status (replies). Values are tagged:

======  =========================================================================
tag     encoding
======  =========================================================================
``N``   None
``T``   True / ``F`` False
``i``   int64
``d``   float64
``s``   str: uint32 length + UTF-8
``b``   bytes: uint32 length + raw
``l``   list: uint32 count + values (nesting depth capped)
``t``   tensor: str dtype, uint8 ndim, int64 dims, raw C-order bytes (size checked)
``h``   handle: int64 id of an object the server holds
``v``   device: int32 type, int32 id
======  =========================================================================

Nothing received is unpickled or evaluated; every length is checked against the bytes present.
"""
from __future__ import annotations

import math
import socket
import struct
from typing import Any, List, NamedTuple, Optional

import numpy as np

from ..error import TVMError

MAGIC = b"TVMLRPC1"
DEFAULT_MAX_FRAME = 1 << 30
MAX_DEPTH = 16
MAX_NDIM = 32
_TENSOR_DTYPES = frozenset(
    ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
     "float16", "float32", "float64"])

_LEN = struct.Struct("<I")
_I64 = struct.Struct("<q")
_F64 = struct.Struct("<d")
_DEV = struct.Struct("<ii")


class ProtocolError(TVMError):
    """A malformed, oversized or unexpected frame."""


class RPCError(TVMError):
    """An error the remote side reported, or a lost connection."""


class Handle(NamedTuple):
    """A reference to an object (module, array, function) held by the server."""

    id: int


class DeviceSpec(NamedTuple):
    """A device as sent on the wire (type code without the session bits, id)."""

    device_type: int
    device_id: int


class Tensor(NamedTuple):
    """A numpy array as sent on the wire."""

    array: np.ndarray


# ---------------------------------------------------------------------------- encoding
def encode(value: Any) -> bytes:
    """Encode a value (see the module docstring for the types allowed)."""
    out: List[bytes] = []
    _enc(value, out, 0)
    return b"".join(out)


def _enc(v: Any, out: List[bytes], depth: int) -> None:
    if depth > MAX_DEPTH:
        raise ProtocolError(f"value nested deeper than {MAX_DEPTH}")
    if v is None:
        out.append(b"N")
    elif v is True or v is False:
        out.append(b"T" if v else b"F")
    elif isinstance(v, Handle):
        out += [b"h", _I64.pack(v.id)]
    elif isinstance(v, DeviceSpec):
        out += [b"v", _DEV.pack(v.device_type, v.device_id)]
    elif isinstance(v, Tensor):
        _enc_tensor(v.array, out)
    elif isinstance(v, (int, np.integer)):
        if not -(1 << 63) <= int(v) < (1 << 63):
            raise ProtocolError(f"integer {v} does not fit in 64 bits")
        out += [b"i", _I64.pack(int(v))]
    elif isinstance(v, (float, np.floating)):
        out += [b"d", _F64.pack(float(v))]
    elif isinstance(v, str):
        data = v.encode()
        out += [b"s", _LEN.pack(len(data)), data]
    elif isinstance(v, (bytes, bytearray, memoryview)):
        data = bytes(v)
        out += [b"b", _LEN.pack(len(data)), data]
    elif isinstance(v, (list, tuple)):
        out += [b"l", _LEN.pack(len(v))]
        for x in v:
            _enc(x, out, depth + 1)
    else:
        raise ProtocolError(f"cannot send a value of type {type(v).__name__}")


def _enc_tensor(a: np.ndarray, out: List[bytes]) -> None:
    dtype = str(a.dtype)
    if dtype not in _TENSOR_DTYPES:
        raise ProtocolError(f"cannot send an array of dtype {dtype}")
    if a.ndim > MAX_NDIM:
        raise ProtocolError(f"cannot send an array of {a.ndim} dimensions")
    d = dtype.encode()
    out += [b"t", _LEN.pack(len(d)), d, struct.pack("<B", a.ndim)]
    out += [_I64.pack(s) for s in a.shape]
    out.append(np.ascontiguousarray(a).tobytes())


# ---------------------------------------------------------------------------- decoding
class _Reader:
    __slots__ = ("buf", "pos")

    def __init__(self, buf: bytes):
        self.buf = memoryview(buf)
        self.pos = 0

    def take(self, n: int) -> memoryview:
        if n < 0 or self.pos + n > len(self.buf):
            raise ProtocolError(f"truncated value: {n} bytes wanted at offset {self.pos}, "
                                f"{len(self.buf) - self.pos} left")
        p = self.pos
        self.pos += n
        return self.buf[p:p + n]


def decode(payload: bytes) -> Any:
    """Decode one value; the whole payload must be consumed."""
    r = _Reader(payload)
    v = _dec(r, 0)
    if r.pos != len(r.buf):
        raise ProtocolError(f"{len(r.buf) - r.pos} trailing bytes after the value")
    return v


def _dec(r: _Reader, depth: int) -> Any:
    if depth > MAX_DEPTH:
        raise ProtocolError(f"value nested deeper than {MAX_DEPTH}")
    tag = bytes(r.take(1))
    if tag == b"N":
        return None
    if tag == b"T":
        return True
    if tag == b"F":
        return False
    if tag == b"i":
        return _I64.unpack(r.take(8))[0]
    if tag == b"d":
        return _F64.unpack(r.take(8))[0]
    if tag == b"h":
        return Handle(_I64.unpack(r.take(8))[0])
    if tag == b"v":
        return DeviceSpec(*_DEV.unpack(r.take(8)))
    if tag in (b"s", b"b"):
        n = _LEN.unpack(r.take(4))[0]
        data = bytes(r.take(n))
        if tag == b"b":
            return data
        try:
            return data.decode()
        except UnicodeDecodeError:
            raise ProtocolError("string is not valid UTF-8") from None
    if tag == b"l":
        n = _LEN.unpack(r.take(4))[0]
        if n > len(r.buf) - r.pos:  # every element takes at least one byte
            raise ProtocolError(f"list of {n} elements in {len(r.buf) - r.pos} bytes")
        return [_dec(r, depth + 1) for _ in range(n)]
    if tag == b"t":
        return _dec_tensor(r)
    raise ProtocolError(f"unknown value tag {tag!r}")


def _dec_tensor(r: _Reader) -> Tensor:
    n = _LEN.unpack(r.take(4))[0]
    try:
        dtype = bytes(r.take(n)).decode()
    except UnicodeDecodeError:
        raise ProtocolError("tensor dtype is not valid UTF-8") from None
    if dtype not in _TENSOR_DTYPES:
        raise ProtocolError(f"unsupported tensor dtype {dtype!r}")
    ndim = r.take(1)[0]
    if ndim > MAX_NDIM:
        raise ProtocolError(f"tensor of {ndim} dimensions")
    shape = tuple(_I64.unpack(r.take(8))[0] for _ in range(ndim))
    if any(s < 0 for s in shape):
        raise ProtocolError(f"negative tensor dimension in {shape}")
    item = np.dtype(dtype).itemsize
    left = len(r.buf) - r.pos
    count = math.prod(shape)
    if count * item > left:
        raise ProtocolError(f"tensor {shape} of {dtype} needs {count * item} bytes, "
                            f"{left} left")
    data = r.take(count * item)
    return Tensor(np.frombuffer(data, dtype=dtype).reshape(shape).copy())


# ---------------------------------------------------------------------------- framing
def send_msg(sock: socket.socket, value: Any, max_frame: int = DEFAULT_MAX_FRAME) -> None:
    """Send one value as a frame."""
    payload = encode(value)
    if len(payload) > max_frame:
        raise ProtocolError(f"frame of {len(payload)} bytes exceeds the cap of {max_frame}")
    sock.sendall(_LEN.pack(len(payload)) + payload)


def _recv_exact(sock: socket.socket, n: int) -> Optional[bytes]:
    chunks = []
    got = 0
    while got < n:
        chunk = sock.recv(min(n - got, 1 << 20))
        if not chunk:
            if got == 0 and not chunks:
                return None
            raise RPCError(f"connection closed in the middle of a frame ({got} of {n} bytes)")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def recv_msg(sock: socket.socket, max_frame: int = DEFAULT_MAX_FRAME) -> Any:
    """Receive one frame and decode it; :class:`RPCError` when the peer has closed."""
    head = _recv_exact(sock, 4)
    if head is None:
        raise RPCError("connection closed by the peer")
    (n,) = _LEN.unpack(head)
    if n > max_frame:
        raise ProtocolError(f"frame of {n} bytes exceeds the cap of {max_frame}")
    payload = _recv_exact(sock, n) if n else b""
    if payload is None:
        raise RPCError("connection closed by the peer")
    return decode(payload)
