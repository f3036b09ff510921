"""An RPC server under random and mutated frames (loopback, bounded count and time): it stays
up, serves the next valid client correctly, and leaks no file or descriptor."""
import os
import random
import socket
import struct
import time

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import rpc
from tvmlite.rpc import protocol as P
from tvmlite.rpc import server as S

HOST = "127.0.0.1"
N_FRAMES = int(os.environ.get("TVMLITE_RPC_FUZZ_FRAMES", "500"))


def _fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def _handshake(sock) -> bool:
    hello = P.recv_msg(sock, 4096)
    P.send_msg(sock, [P.MAGIC, "", b"", 0.0])
    return P.recv_msg(sock, 4096)[0] == S.STATUS_OK and hello[0] == P.MAGIC


def _valid_payload(r: random.Random):
    """A well-formed request with hostile contents."""
    name = r.choice(["../x", "/etc/passwd", "a/../../b", "..", ".x", "ok.bin", "x" * 300,
                     "\0", "lib.so", "C:\\x", "sub/dir"])
    dev = P.DeviceSpec(r.choice([1, 2, 4, 12, 99, -1, 1 << 30]), r.randint(-3, 3))
    arr = P.Tensor(np.arange(r.randint(0, 20), dtype=r.choice(["float32", "int8", "uint64"])))
    op = r.choice(list(range(-2, 20)) + [1 << 40, "upload", None, 2.5])
    args = r.choice([
        [], [name], [name, os.urandom(r.randint(0, 64))], [P.Handle(r.randint(-2, 50))],
        [P.Handle(r.randint(0, 5)), "__tvm_main__"], [None, "runtime.nonexistent"],
        [arr, dev], [[r.randint(-5, 1 << 40)], "float32", dev], [[3, 4], "bogus7", dev],
        [P.Handle(1), [P.Handle(1), 3, "s"]], [P.Handle(1), arr], [dev],
        [P.Handle(1), "f", dev, r.randint(-2, 3), r.randint(-2, 3), -1.0],
        [name, b"\x7fELF" + os.urandom(200)], [[[[]]]],
    ])
    return [op, *args]


def _mutate(r: random.Random, frame: bytes) -> bytes:
    b = bytearray(frame)
    for _ in range(r.randint(1, 4)):
        kind = r.randrange(4)
        if kind == 0 and b:
            b[r.randrange(len(b))] = r.randrange(256)
        elif kind == 1 and b:
            del b[r.randrange(len(b)):]
        elif kind == 2:
            b[r.randrange(len(b) + 1):0] = os.urandom(r.randint(1, 8))
        else:
            b[:4] = struct.pack("<I", r.choice([0, 1, 1 << 31, 0xFFFFFFFF, len(b) + 100]))
    return bytes(b)


def _frame(payload: bytes) -> bytes:
    return struct.pack("<I", len(payload)) + payload


def _attack(port: int, r: random.Random, budget: int) -> int:
    """One connection: a handshake (or not), then frames until the budget or a close."""
    sent = 0
    with socket.create_connection((HOST, port), timeout=5) as sock:
        try:
            if r.random() < 0.2:  # junk instead of a handshake
                sock.recv(4096)
                sock.sendall(_mutate(r, _frame(P.encode([P.MAGIC, "", b"", 0.0]))))
                return 1
            if not _handshake(sock):
                return 0
            while sent < budget:
                sent += 1
                payload = P.encode(_valid_payload(r))
                mode = r.random()
                if mode < 0.6:
                    sock.sendall(_frame(payload))
                    P.recv_msg(sock)  # a reply: the error, never a crash
                elif mode < 0.8:
                    sock.sendall(_mutate(r, _frame(payload)))
                    if r.random() < 0.5:
                        return sent  # abrupt disconnect
                    sock.shutdown(socket.SHUT_WR)  # no more bytes: the server must not wait
                    P.recv_msg(sock)  # an error reply, or the session closed
                    return sent
                elif mode < 0.9:
                    sock.sendall(struct.pack("<I", r.choice([1 << 31, 0xFFFFFFFF])) + b"x")
                    return sent
                else:
                    sock.sendall(_frame(payload)[:r.randint(1, len(payload) + 3)])
                    return sent  # truncated, then gone
        except (OSError, P.RPCError, P.ProtocolError):
            pass  # the server closed this session: allowed
    return max(sent, 1)


def _check_serves(port: int, rng):
    with rpc.connect(HOST, port) as remote:
        x = rng.standard_normal((5, 3)).astype("float32")
        a = tvm.nd.array(x, remote.cpu())
        np.testing.assert_array_equal(a.numpy(), x)
        remote.upload(b"hello", "ok.txt")
        assert bytes(remote.download("ok.txt")) == b"hello"


def test_server_survives_random_and_mutated_frames(tmp_path, rng):
    work = tmp_path / "sessions"
    work.mkdir()
    r = random.Random(1234)
    with rpc.Server(HOST, port=0, work_dir=str(work), idle_timeout=5, silent=True) as srv:
        _check_serves(srv.port, rng)
        time.sleep(0.1)
        fds_before = _fds()
        start = time.time()
        sent = 0
        while sent < N_FRAMES and time.time() - start < 120:
            sent += _attack(srv.port, r, min(20, N_FRAMES - sent))
        assert sent >= N_FRAMES
        _check_serves(srv.port, rng)
        # every session ended: its folder is gone and its socket closed
        deadline = time.time() + 15
        while time.time() < deadline and (os.listdir(work) or _fds() > fds_before):
            time.sleep(0.05)
        assert os.listdir(work) == []
        assert _fds() <= fds_before
    assert not (tmp_path / "x").exists() and not (tmp_path.parent / "x").exists()


@pytest.mark.parametrize("junk", [b"", b"\x00", b"\xff" * 3, struct.pack("<I", 1 << 31),
                                  _frame(b"l\x01\x00\x00\x00Z"), os.urandom(64)])
def test_junk_instead_of_a_handshake(junk, rng):
    with rpc.Server(HOST, port=0, silent=True) as srv:
        with socket.create_connection((HOST, srv.port), timeout=5) as sock:
            sock.sendall(junk)
        _check_serves(srv.port, rng)
