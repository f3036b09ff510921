"""The RPC wire protocol: typed values round-trip; malformed payloads are ProtocolErrors."""
import socket
import struct

import numpy as np
import pytest

from tvmlite.error import TVMError
from tvmlite.rpc import protocol as P


@pytest.mark.parametrize("value", [
    None, True, False, 0, -1, (1 << 63) - 1, -(1 << 63), 3.25, float("inf"), "", "héllo",
    b"", b"\x00\xff" * 7, [], [1, "a", [2.5, None, [b"x"]]], P.Handle(7), P.DeviceSpec(1, 0),
])
def test_roundtrip_scalars_and_lists(value):
    assert P.decode(P.encode(value)) == (list(value) if isinstance(value, tuple)
                                         and not hasattr(value, "_fields") else value)


@pytest.mark.parametrize("dtype,shape", [("float32", (3, 5)), ("int8", (7,)), ("float64", ()),
                                         ("uint16", (2, 0, 3)), ("bool", (4, 1))])
def test_roundtrip_tensor(rng, dtype, shape):
    a = (rng.standard_normal(shape) * 50).astype(dtype)
    b = P.decode(P.encode(P.Tensor(a)))
    assert isinstance(b, P.Tensor) and b.array.dtype == a.dtype and b.array.shape == a.shape
    np.testing.assert_array_equal(b.array, a)
    # a strided view goes out in C order
    c = np.arange(30, dtype=dtype).reshape(5, 6)[:, ::2] if dtype != "bool" else None
    if c is not None:
        np.testing.assert_array_equal(P.decode(P.encode(P.Tensor(c))).array, c)


@pytest.mark.parametrize("payload,why", [
    (b"", "truncated"),
    (b"i\x01\x02", "truncated"),
    (b"s" + struct.pack("<I", 1000) + b"abc", "truncated"),
    (b"l" + struct.pack("<I", 1 << 30), "list of"),
    (b"Z", "unknown value tag"),
    (b"NN", "trailing"),
    (b"s" + struct.pack("<I", 2) + b"\xff\xfe", "UTF-8"),
    (b"t" + struct.pack("<I", 6) + b"object" + b"\x00", "dtype"),
    (b"t" + struct.pack("<I", 7) + b"float32" + b"\x01" + struct.pack("<q", -4), "negative"),
    (b"t" + struct.pack("<I", 7) + b"float32" + b"\x01" + struct.pack("<q", 1 << 40), "needs"),
    (b"t" + struct.pack("<I", 7) + b"float32" + b"\xff", "dimensions"),
    (b"l\x01\x00\x00\x00" * 40 + b"N", "nested"),
])
def test_malformed_payloads(payload, why):
    with pytest.raises(P.ProtocolError, match=why):
        P.decode(payload)
    assert issubclass(P.ProtocolError, TVMError)


@pytest.mark.parametrize("value", [object(), {"a": 1}, 1 << 64, P.Tensor(np.array(["x"]))])
def test_unsendable_values(value):
    with pytest.raises(P.ProtocolError):
        P.encode(value)


def test_frames_over_a_socket_pair_and_the_size_cap():
    a, b = socket.socketpair()
    with a, b:
        P.send_msg(a, [1, "x", P.Tensor(np.arange(5, dtype="int32"))])
        msg = P.recv_msg(b)
        assert msg[:2] == [1, "x"] and msg[2].array.tolist() == [0, 1, 2, 3, 4]
        with pytest.raises(P.ProtocolError, match="exceeds the cap"):
            P.send_msg(a, b"x" * 100, max_frame=50)
        a.sendall(struct.pack("<I", 1 << 31))  # the receiver refuses before reading a byte
        with pytest.raises(P.ProtocolError, match="exceeds the cap"):
            P.recv_msg(b, max_frame=1 << 20)
        a.sendall(struct.pack("<I", 10) + b"abc")
        a.close()
        with pytest.raises(P.RPCError, match="middle of a frame"):
            P.recv_msg(b)
