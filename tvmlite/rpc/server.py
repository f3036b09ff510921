"""The RPC server: runs uploaded modules on this machine for remote clients.

Each client connection is a session with its own temporary folder and handle table (modules,
arrays, functions); both are dropped when the session ends. A malformed frame ends that session
only; the server keeps serving.
"""
from __future__ import annotations

import hmac
import logging
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any, Dict, List, NamedTuple, Optional, Tuple

import numpy as np

from ..contrib.graph_executor import GraphModule
from ..error import TVMError
from ..runtime import ndarray as _nd
from ..runtime.device import Device
from ..runtime.module import BenchmarkResult, Module, load_module
from ..runtime.packed_func import get_global_func
from ..runtime.vm import VirtualMachine
from . import protocol as P
from .tracker import ServerAgent

logger = logging.getLogger("RPCServer")
# what a session may hold and call functions of: loaded libraries, graph executors and VMs
# (``tvm.graph_executor.create`` is a global the client calls, as in classic TVM)
_MODULES = (Module, GraphModule, VirtualMachine)

# opcodes (requests); a reply is [STATUS_OK, value] or [STATUS_ERR, message]
OP_UPLOAD, OP_DOWNLOAD, OP_REMOVE, OP_LISTDIR, OP_LOAD_MODULE = 1, 2, 3, 4, 5
OP_GET_FUNCTION, OP_CALL, OP_ARRAY_NEW, OP_ARRAY_EMPTY, OP_ARRAY_GET = 6, 7, 8, 9, 10
OP_ARRAY_SET, OP_FREE, OP_TIME_EVALUATOR, OP_DEVICE_EXIST, OP_CLOSE = 11, 12, 13, 14, 15
OP_PING = 16
STATUS_OK, STATUS_ERR = 0, 1
AUTH_ENV = "TVM_RPC_AUTH_KEY"


def auth_mac(auth_key: str, nonce: bytes) -> bytes:
    """The client's answer to the server's challenge ``nonce``."""
    return hmac.new(auth_key.encode(), MAGIC_CONTEXT + nonce, "sha256").digest()


MAGIC_CONTEXT = b"tvmlite-rpc-auth:"


def is_loopback(host: str) -> bool:
    """Whether ``host`` names only this machine (binding it exposes nothing)."""
    return host in ("localhost", "::1") or host.startswith("127.")


def check_file_name(name: Any) -> str:
    """A plain file name inside the session folder, or a TVMError: no folders, no ``..``,
    no absolute paths, no NUL or hidden names."""
    if not isinstance(name, str) or not name:
        raise TVMError("RPC file name must be a non-empty string")
    if ("/" in name or "\\" in name or "\0" in name or name.startswith(".")
            or len(name) > 255):
        raise TVMError(f"RPC file name {name!r} is not allowed: use a plain file name (no "
                       f"folders, '..', absolute paths or hidden names)")
    return name


class Limits(NamedTuple):
    """What one session may use."""

    max_frame: int
    max_upload_bytes: int
    max_objects: int


class _Session:
    """One client's state: its folder and the objects it holds by handle."""

    def __init__(self, limits: Limits, sock: socket.socket, directory: str):
        self.server = limits
        self.sock = sock
        self.dir = directory
        self.objects: Dict[int, Any] = {}
        self.next_id = 1

    # ------------------------------------------------------------------ helpers
    def path(self, name: Any) -> str:
        return os.path.join(self.dir, check_file_name(name))

    def put(self, obj: Any) -> P.Handle:
        if len(self.objects) >= self.server.max_objects:
            raise TVMError(f"the session holds {len(self.objects)} objects, the limit")
        h = self.next_id
        self.next_id += 1
        self.objects[h] = obj
        return P.Handle(h)

    def get(self, h: Any, kind: Tuple[type, ...], what: str) -> Any:
        if not isinstance(h, P.Handle) or h.id not in self.objects:
            raise TVMError(f"invalid {what} handle {h!r}")
        obj = self.objects[h.id]
        if not isinstance(obj, kind):
            raise TVMError(f"handle {h.id} is a {type(obj).__name__}, not a {what}")
        return obj

    @staticmethod
    def device(spec: Any) -> Device:
        if not isinstance(spec, P.DeviceSpec):
            raise TVMError(f"expected a device, got {spec!r}")
        return Device(spec.device_type, spec.device_id)

    def arg(self, v: Any) -> Any:
        if isinstance(v, P.Handle):
            return self.get(v, (_nd.NDArray,) + _MODULES, "argument")
        if isinstance(v, P.DeviceSpec):
            return self.device(v)
        if isinstance(v, P.Tensor):
            return _nd.array(v.array)
        if isinstance(v, list):
            raise TVMError(f"cannot pass a {type(v).__name__} to a remote function")
        return v

    def result(self, v: Any) -> Any:
        if isinstance(v, BenchmarkResult):
            return [float(x) for x in v.results]
        if isinstance(v, (_nd.NDArray,) + _MODULES):
            return self.put(v)
        if v is None or isinstance(v, (bool, int, float, str, bytes)):
            return v
        if isinstance(v, (np.integer, np.floating)):
            return v.item()
        return str(v)

    # ------------------------------------------------------------------ requests
    def handle(self, op: Any, args: List[Any]) -> Any:
        fn = _HANDLERS.get(op) if isinstance(op, int) else None
        if fn is None:
            raise TVMError(f"unknown RPC opcode {op!r}")
        return fn(self, *args)

    def op_upload(self, name, data):
        if not isinstance(data, bytes):
            raise TVMError("upload expects bytes")
        path = self.path(name)
        used = sum(os.path.getsize(os.path.join(self.dir, f)) for f in os.listdir(self.dir))
        if used + len(data) > self.server.max_upload_bytes:
            raise TVMError(f"upload of {name!r} would exceed the session's "
                           f"{self.server.max_upload_bytes} bytes")
        with open(path, "wb") as fh:
            fh.write(data)

    def op_download(self, name):
        path = self.path(name)
        if not os.path.isfile(path):
            raise TVMError(f"no file {name!r} in the session folder")
        with open(path, "rb") as fh:
            return fh.read()

    def op_remove(self, name):
        path = self.path(name)
        if not os.path.isfile(path):
            raise TVMError(f"no file {name!r} in the session folder")
        os.unlink(path)

    def op_listdir(self):
        return sorted(os.listdir(self.dir))

    def op_load_module(self, name):
        return self.put(load_module(self.path(name)))

    def op_get_function(self, mod, name):
        if not isinstance(name, str):
            raise TVMError("function name must be a string")
        if mod is None:
            return self.put(get_global_func(name))
        return self.put(self.get(mod, _MODULES, "module").get_function(name))

    def op_call(self, func, args):
        f = self.get(func, (object,), "function")
        if not callable(f) or isinstance(f, _nd.NDArray):
            raise TVMError(f"handle {func.id} is not a function")
        if not isinstance(args, list):
            raise TVMError("call arguments must be a list")
        return self.result(f(*[self.arg(a) for a in args]))

    def op_array_new(self, tensor, dev):
        if not isinstance(tensor, P.Tensor):
            raise TVMError("array_new expects a tensor")
        return self.put(_nd.array(tensor.array, self.device(dev)))

    def op_array_empty(self, shape, dtype, dev):
        if not isinstance(shape, list) or not all(isinstance(s, int) for s in shape):
            raise TVMError("array_empty expects a list of ints")
        if np.prod(shape, dtype=np.float64) * 8 > self.server.max_upload_bytes:
            raise TVMError(f"array of shape {shape} is too large for this server")
        return self.put(_nd.empty(shape, dtype, self.device(dev)))

    def op_array_get(self, arr):
        return P.Tensor(self.get(arr, (_nd.NDArray,), "array").numpy())

    def op_array_set(self, arr, tensor):
        if not isinstance(tensor, P.Tensor):
            raise TVMError("array_set expects a tensor")
        self.get(arr, (_nd.NDArray,), "array").copyfrom(tensor.array)

    def op_free(self, *handles):
        for h in handles:
            if isinstance(h, P.Handle):
                self.objects.pop(h.id, None)

    def op_time_evaluator(self, mod, name, dev, number, repeat, min_repeat_ms):
        m = self.get(mod, (Module,), "module")
        return self.put(m.time_evaluator(name, self.device(dev), number=number, repeat=repeat,
                                         min_repeat_ms=min_repeat_ms))

    def op_device_exist(self, dev):
        return self.device(dev).exist

    def op_ping(self):
        return "pong"

    # ------------------------------------------------------------------ loop
    def serve(self) -> None:
        max_frame = self.server.max_frame
        while True:
            try:
                msg = P.recv_msg(self.sock, max_frame)
            except P.RPCError:
                return
            if not isinstance(msg, list) or not msg:
                raise P.ProtocolError("a request must be a non-empty list")
            op, args = msg[0], msg[1:]
            if op == OP_CLOSE:
                P.send_msg(self.sock, [STATUS_OK, None])
                return
            try:
                reply = [STATUS_OK, self.handle(op, args)]
            except Exception as e:  # noqa: BLE001 - any failure of a request is its reply
                reply = [STATUS_ERR, f"{type(e).__name__}: {e}"]
            P.send_msg(self.sock, reply, max_frame)

    def close(self) -> None:
        self.objects.clear()
        shutil.rmtree(self.dir, ignore_errors=True)


_HANDLERS = {
    OP_UPLOAD: _Session.op_upload, OP_DOWNLOAD: _Session.op_download,
    OP_REMOVE: _Session.op_remove, OP_LISTDIR: _Session.op_listdir,
    OP_LOAD_MODULE: _Session.op_load_module, OP_GET_FUNCTION: _Session.op_get_function,
    OP_CALL: _Session.op_call, OP_ARRAY_NEW: _Session.op_array_new,
    OP_ARRAY_EMPTY: _Session.op_array_empty, OP_ARRAY_GET: _Session.op_array_get,
    OP_ARRAY_SET: _Session.op_array_set, OP_FREE: _Session.op_free,
    OP_TIME_EVALUATOR: _Session.op_time_evaluator, OP_DEVICE_EXIST: _Session.op_device_exist,
    OP_PING: _Session.op_ping,
}


class Server:
    """An RPC server (``tvm.rpc.Server``) listening on ``host:port`` in background threads.

    Parameters
    ----------
    host : str
        Address to bind; anything but loopback logs a warning (clients can run code here).
    port, port_end : int
        The first port in ``[port, port_end)`` that binds is used; ``port=0`` lets the OS pick.
    key : str
        The device key announced to a tracker.
    tracker_addr : (str, int), optional
        Register with this tracker; then clients must present a key the tracker handed out.
    auth_key : str, optional
        Shared secret; clients must answer an HMAC challenge with it (default: the
        ``TVM_RPC_AUTH_KEY`` environment variable).
    work_dir : str, optional
        Where sessions' temporary folders are made (default: the system's).
    isolate : bool
        Serve each session in its own child process (as classic TVM forks one), so a module
        that crashes ends only its session.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 9091, port_end: int = 9199,
                 key: str = "", tracker_addr: Optional[Tuple[str, int]] = None,
                 custom_addr: Optional[str] = None, auth_key: Optional[str] = None,
                 max_frame: int = P.DEFAULT_MAX_FRAME, max_sessions: int = 16,
                 idle_timeout: float = 600.0, max_upload_bytes: int = 1 << 31,
                 max_objects: int = 100000, work_dir: Optional[str] = None,
                 isolate: bool = False, silent: bool = False, use_popen: bool = False):
        if not is_loopback(host):
            logger.warning("RPC server binding %s: anyone who can reach this address can "
                           "upload and run code on this machine", host)
        self.key = key
        self.auth_key = auth_key if auth_key is not None else os.environ.get(AUTH_ENV) or None
        self.max_frame = max_frame
        self.max_upload_bytes = max_upload_bytes
        self.max_objects = max_objects
        self.idle_timeout = idle_timeout
        self.custom_addr = custom_addr
        self.work_dir = work_dir
        self.isolate = isolate or use_popen  # classic's name for a process per session
        self.limits = Limits(max_frame, max_upload_bytes, max_objects)
        self._children: set = set()
        self._child_of: Dict[socket.socket, subprocess.Popen] = {}
        self.sessions: set = set()  # sessions served in this process (isolate=False)
        self._sem = threading.BoundedSemaphore(max_sessions)
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._conns: set = set()
        self.sock = self._bind(host, port, port_end)
        self.host, self.port = host, self.sock.getsockname()[1]
        if not silent:
            logger.info("bind to %s:%d", host, self.port)
        self.tracker_agent = None
        if tracker_addr is not None:
            self.tracker_agent = ServerAgent(self, tracker_addr)
        self._thread = threading.Thread(target=self._accept_loop, daemon=True,
                                        name=f"rpc-server-{self.port}")
        self._thread.start()
        if self.tracker_agent is not None:
            self.tracker_agent.start()

    @staticmethod
    def _bind(host: str, port: int, port_end: int) -> socket.socket:
        last = None
        ports = [0] if port == 0 else range(port, max(port_end, port + 1))
        for p in ports:
            sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET,
                                 socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                sock.bind((host, p))
            except OSError as e:
                sock.close()
                last = e
                continue
            sock.listen(64)
            sock.settimeout(0.2)
            return sock
        raise TVMError(f"RPC server cannot bind {host} on ports [{port}, {port_end}): {last}")

    # ------------------------------------------------------------------ accept
    def _accept_loop(self) -> None:
        while not self._stop.is_set():
            try:
                conn, addr = self.sock.accept()
            except socket.timeout:
                continue
            except OSError:
                break
            if not self._sem.acquire(blocking=False):
                conn.close()
                continue
            threading.Thread(target=self._serve_conn, args=(conn, addr), daemon=True).start()

    def _handshake(self, conn: socket.socket) -> float:
        nonce = secrets.token_bytes(32)
        P.send_msg(conn, [P.MAGIC, nonce, self.auth_key is not None])
        msg = P.recv_msg(conn, 4096)
        if not (isinstance(msg, list) and len(msg) == 4 and msg[0] == P.MAGIC
                and isinstance(msg[1], str) and isinstance(msg[2], bytes)
                and isinstance(msg[3], (int, float)) and 0 <= msg[3] < 1e9):
            raise P.ProtocolError("bad handshake")
        _, key, mac, session_timeout = msg
        if self.auth_key is not None and not hmac.compare_digest(
                mac, auth_mac(self.auth_key, nonce)):
            P.send_msg(conn, [STATUS_ERR, "authentication failed"])
            raise P.ProtocolError("authentication failed")
        if self.tracker_agent is not None:
            if not self.tracker_agent.claim(key):
                P.send_msg(conn, [STATUS_ERR, f"key {key!r} does not match this server"])
                raise P.ProtocolError("key mismatch")
        elif key and self.key and key != self.key:
            P.send_msg(conn, [STATUS_ERR, f"key {key!r} does not match this server's key"])
            raise P.ProtocolError("key mismatch")
        P.send_msg(conn, [STATUS_OK, self.key])
        return float(session_timeout)

    def _serve_conn(self, conn: socket.socket, addr) -> None:
        session = None
        claimed = False
        timer = None
        with self._lock:
            self._conns.add(conn)
        try:
            conn.settimeout(10.0)
            session_timeout = self._handshake(conn)
            claimed = self.tracker_agent is not None
            if session_timeout > 0:  # the client's limit on the whole session
                timer = threading.Timer(session_timeout, self._end_session, args=(conn,))
                timer.daemon = True
                timer.start()
            conn.settimeout(self.idle_timeout)
            directory = tempfile.mkdtemp(prefix="tvmlite-rpc-", dir=self.work_dir)
            if self.isolate:
                try:
                    self._serve_in_child(conn, directory)
                finally:
                    shutil.rmtree(directory, ignore_errors=True)
            else:
                session = _Session(self.limits, conn, directory)
                with self._lock:
                    self.sessions.add(session)
                session.serve()
        except (P.ProtocolError, P.RPCError, OSError) as e:
            logger.debug("session from %s ended: %s", addr, e)
        except Exception as e:  # noqa: BLE001 - a session's failure must not stop the server
            logger.warning("session from %s failed: %s: %s", addr, type(e).__name__, e)
        finally:
            if timer is not None:
                timer.cancel()
            if session is not None:
                session.close()
                with self._lock:
                    self.sessions.discard(session)
            with self._lock:
                self._conns.discard(conn)
            conn.close()
            self._sem.release()
            if claimed:
                self.tracker_agent.release()

    def _end_session(self, conn: socket.socket) -> None:
        logger.info("session timeout: ending the session")
        with self._lock:
            child = self._child_of.get(conn)
        if child is not None:
            child.kill()
        try:
            conn.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def _serve_in_child(self, conn: socket.socket, directory: str) -> None:
        child = subprocess.Popen(
            [sys.executable, "-m", "tvmlite.rpc.session_main", str(conn.fileno()), directory,
             *map(str, self.limits), str(self.idle_timeout)],
            pass_fds=[conn.fileno()], stdin=subprocess.DEVNULL)
        with self._lock:
            self._children.add(child)
            self._child_of[conn] = child
        try:
            while True:
                try:
                    rc = child.wait(0.25)
                    break
                except subprocess.TimeoutExpired:
                    pass
                if _peer_gone(conn):  # the client left while a call runs: stop it
                    child.kill()
        finally:
            with self._lock:
                self._children.discard(child)
                self._child_of.pop(conn, None)
        if rc < 0:
            logger.warning("session process died (signal %d); the server goes on", -rc)

    # ------------------------------------------------------------------ lifetime
    def terminate(self) -> None:
        """Stop accepting, end every session and leave the tracker."""
        self._stop.set()
        if self.tracker_agent is not None:
            self.tracker_agent.stop()
        self._thread.join(5)
        self.sock.close()
        with self._lock:
            conns = list(self._conns)
            children = list(self._children)
        for child in children:
            child.kill()
        for c in conns:
            try:
                c.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        deadline = time.time() + 5
        while time.time() < deadline:
            with self._lock:
                if not self._conns:
                    break
            time.sleep(0.01)

    def __enter__(self) -> "Server":
        return self

    def __exit__(self, *exc) -> None:
        self.terminate()


def serve_session(fd: int, directory: str, limits: Limits, idle_timeout: float) -> None:
    """Serve one session on the connected socket ``fd`` (in a child process), then remove
    its folder."""
    sock = socket.socket(fileno=fd)
    sock.settimeout(idle_timeout)
    session = _Session(limits, sock, directory)
    try:
        session.serve()
    except (P.ProtocolError, P.RPCError, OSError) as e:
        logger.debug("session ended: %s", e)
    finally:
        session.close()
        sock.close()


def _peer_gone(conn: socket.socket) -> bool:
    """Whether the client closed ``conn`` (peeks; consumes nothing)."""
    try:
        return conn.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True
