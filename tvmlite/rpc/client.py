"""The RPC client: ``rpc.connect`` gives a session whose devices, arrays and modules live on
the server; ``rpc.LocalSession`` offers the same interface on this machine."""
from __future__ import annotations

import json
import os
import shutil
import socket
import tempfile
import threading
from typing import Any, Callable, Dict, List, Optional

import numpy as np

from ..error import TVMError
from ..runtime import ndarray as _nd
from ..runtime.device import _TYPE_NAMES, CPU, CUDA, EXT_DEV, Device, cpu, cuda
from ..runtime.device import device as make_device
from ..runtime.module import ENTRY_NAME, BenchmarkResult, load_module
from ..runtime.packed_func import get_global_func
from . import protocol as P
from . import server as S
from .tracker import MAX_TRACKER_FRAME, TRACKER_MAGIC

RPC_SESS_MASK = 128
FREE_BATCH = 64  # remote objects dropped by the client are freed this many at a time


class RPCDevice(Device):
    """A device of a remote session; ``tvm.nd.array(x, dev)`` allocates on the server."""

    __slots__ = ("_rpc_sess",)

    def __init__(self, sess: "RPCSession", device_type: int, device_id: int = 0):
        super().__init__(device_type + RPC_SESS_MASK * (sess._index + 1), device_id)
        self._rpc_sess = sess

    @property
    def base_type(self) -> int:
        return self.device_type % RPC_SESS_MASK

    def spec(self) -> P.DeviceSpec:
        return P.DeviceSpec(self.base_type, self.device_id)

    def __repr__(self) -> str:
        name = _TYPE_NAMES.get(self.base_type, f"device{self.base_type}")
        return f"remote[{self._rpc_sess._index}]:{name}({self.device_id})"

    @property
    def exist(self) -> bool:
        return bool(self._rpc_sess._call(S.OP_DEVICE_EXIST, self.spec()))

    def sync(self) -> None:
        """Remote calls are synchronous: nothing to wait for."""


class _RemoteObject:
    """Something held by the server under a handle; freed when dropped."""

    def __init__(self, sess: "RPCSession", handle: P.Handle):
        self._sess = sess
        self._handle = handle

    def __del__(self):
        # no I/O here: a collection can run in the middle of a call on the same thread; the
        # handle is freed with the session's next call
        sess = getattr(self, "_sess", None)
        if sess is not None:
            sess._pending_free.append(self._handle)


class RemoteNDArray(_RemoteObject):
    """An array on the server (``tvm.nd.NDArray`` of a remote device)."""

    def __init__(self, sess: "RPCSession", handle: P.Handle, shape, dtype: str,
                 dev: RPCDevice):
        super().__init__(sess, handle)
        self.shape = tuple(int(s) for s in shape)
        self.dtype = dtype
        self.device = dev

    ctx = property(lambda self: self.device)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def numpy(self) -> np.ndarray:
        """Copy the data back to this machine."""
        return self._sess._call(S.OP_ARRAY_GET, self._handle).array

    asnumpy = numpy

    def copyfrom(self, source) -> "RemoteNDArray":
        """Copy a numpy array (or a local/remote array) into this array."""
        src = source.numpy() if hasattr(source, "numpy") else np.asarray(source)
        if tuple(src.shape) != self.shape:
            raise ValueError(f"array shape do not match the shape of NDArray "
                             f"{tuple(src.shape)} vs {self.shape}")
        self._sess._call(S.OP_ARRAY_SET, self._handle, P.Tensor(src.astype(self.dtype)))
        return self

    def copyto(self, target):
        """Copy into an array (local or remote) or onto a device (local or remote)."""
        if isinstance(target, (RemoteNDArray, _nd.NDArray)):
            return target.copyfrom(self.numpy())
        if isinstance(target, Device):
            return _nd.array(self.numpy(), target)
        raise TypeError(f"copyto expects an NDArray or a Device, got {type(target).__name__}")

    def __setitem__(self, key, value) -> None:
        if not (isinstance(key, slice) and key == slice(None)):
            raise ValueError("NDArray only supports assignment to the whole array, a[:] = value")
        self.copyfrom(value)

    def __repr__(self) -> str:
        return f"<tvm.nd.NDArray shape={self.shape}, {self.device!r}>"


class RemoteFunction(_RemoteObject):
    """A function on the server; arguments are remote arrays, numbers or strings."""

    def __init__(self, sess: "RPCSession", handle: P.Handle, name: str,
                 wrap: Optional[Callable[[Any], Any]] = None):
        super().__init__(sess, handle)
        self.name = name
        self._wrap = wrap

    def __call__(self, *args):
        out = self._sess._call(S.OP_CALL, self._handle, [self._sess._arg(a) for a in args])
        return self._wrap(out) if self._wrap is not None else self._sess._result(out)

    def _as_graph_module(self) -> "RemoteGraphModule":
        """``graph_executor.GraphModule(rlib["default"](remote.cpu()))``: this object is an
        executor made on the server from an exported network."""
        get_json = self._sess._call(S.OP_GET_FUNCTION, self._handle, "get_graph_json")
        graph_json = self._sess._call(S.OP_CALL, get_json, [])
        return RemoteGraphModule(self, graph_json, self._sess.cpu(0), executor=self._handle)


class RemoteModule(_RemoteObject):
    """A module loaded on the server (``remote.load_module``)."""

    def get_function(self, name: str, query_imports: bool = False) -> RemoteFunction:
        return RemoteFunction(self._sess, self._sess._call(S.OP_GET_FUNCTION, self._handle,
                                                           name), name)

    def __getitem__(self, name: str) -> RemoteFunction:
        return self.get_function(name)

    def __call__(self, *args):
        return self.get_function(ENTRY_NAME)(*args)

    @property
    def entry_name(self) -> str:
        return ENTRY_NAME

    def time_evaluator(self, func_name: str, dev, number: int = 10, repeat: int = 1,
                       min_repeat_ms: float = 0, **kwargs) -> RemoteFunction:
        """Time ``func_name`` on the server; calling the result gives a BenchmarkResult."""
        if number < 1 or repeat < 1:
            raise ValueError("time_evaluator: number and repeat must be positive")
        spec = dev.spec() if isinstance(dev, RPCDevice) else P.DeviceSpec(
            make_device(dev).device_type, make_device(dev).device_id)
        h = self._sess._call(S.OP_TIME_EVALUATOR, self._handle, func_name, spec, int(number),
                             int(repeat), float(min_repeat_ms))
        return RemoteFunction(self._sess, h, func_name, wrap=BenchmarkResult)

    def _create_graph_executor(self, graph_json: str, dev) -> "RemoteGraphModule":
        """What ``graph_executor.create(graph_json, <this module>, dev)`` returns."""
        if not isinstance(dev, RPCDevice) or dev._rpc_sess is not self._sess:
            raise TVMError(f"graph_executor.create: the library is on an RPC server, so the "
                           f"device must be one of that session (remote.cpu()), got {dev!r}")
        return RemoteGraphModule(self, graph_json, dev)

    def _create_vm(self, dev) -> "RemoteVirtualMachine":
        """What ``runtime.vm.VirtualMachine(<this module>, dev)`` returns."""
        if not isinstance(dev, RPCDevice) or dev._rpc_sess is not self._sess:
            raise TVMError(f"VirtualMachine: the executable is on an RPC server, so the device "
                           f"must be one of that session (remote.cpu()), got {dev!r}")
        return RemoteVirtualMachine(self, dev)

    def __repr__(self) -> str:
        return f"Module(rpc, {self._handle.id})"


class RemoteVirtualMachine:
    """A relay VM running on the server (``runtime.vm.VirtualMachine(remote_lib,
    remote.cpu())`` of a library ``exe.mod.export_library`` wrote): inputs go from here,
    results stay there until ``.numpy()``."""

    def __init__(self, lib: RemoteModule, dev: RPCDevice):
        self._sess = lib._sess
        self.dev = dev
        create = self._sess.get_function("tvmlite.vm.create")
        handle = self._sess._call(S.OP_CALL, create._handle, [lib._handle, dev.spec()])
        self.module = RemoteModule(self._sess, handle)
        self._fns: Dict[str, RemoteFunction] = {}
        self._outputs: Optional[list] = None

    def _call(self, name: str, *args) -> Any:
        f = self._fns.get(name)
        if f is None:
            f = self._fns[name] = self.module.get_function(name)
        return self._sess._call(S.OP_CALL, f._handle, [self._sess._arg(a) for a in args])

    @staticmethod
    def _value(v):
        if isinstance(v, _nd.NDArray):
            return v.numpy()
        if isinstance(v, (RemoteNDArray, np.ndarray, str)):
            return v
        if isinstance(v, (list, tuple)):
            raise TVMError("VirtualMachine over RPC: tuple inputs are not supported; pass "
                           "tensors")
        return np.asarray(v)

    def set_input(self, func_name: str, *args, **kwargs) -> None:
        """Send the inputs of ``func_name`` (by position or by name)."""
        for key, v in list(enumerate(args)) + list(kwargs.items()):
            self._call("set_one_input", func_name, key, self._value(v))

    def set_one_input(self, func_name: str, *args, **kwargs) -> None:
        if kwargs:
            (key, value), = kwargs.items()
        else:
            key, value = args
        self._call("set_one_input", func_name, key, self._value(value))

    def invoke(self, func_name: str, *args, **kwargs):
        """Run ``func_name`` there; tensors come back as remote arrays (in ADTs)."""
        from ..runtime.container import ADT
        if args or kwargs:
            self.set_input(func_name, *args, **kwargs)
        info = json.loads(self._call("_invoke_flat", func_name))
        flat = [RemoteNDArray(self._sess, self._call("get_output", i), shape, dtype, self.dev)
                for i, (shape, dtype) in enumerate(info["types"])]
        self._outputs = flat

        def build(t):
            return flat[t] if isinstance(t, int) else ADT(t[0], [build(f) for f in t[1]])
        return build(info["tree"])

    def run(self, *args, **kwargs):
        return self.invoke("main", *args, **kwargs)

    def invoke_stateful(self, func_name: str, *args, **kwargs) -> None:
        self.invoke(func_name, *args, **kwargs)

    def get_outputs(self) -> list:
        if self._outputs is None:
            raise TVMError("VirtualMachine.get_outputs: call invoke_stateful first")
        return list(self._outputs)

    def get_input_index(self, input_name: str, func_name: str = "main") -> int:
        return int(self._call("get_input_index", input_name, func_name))

    def invoke_with_outputs(self, func_name: str, input_args, output_args) -> None:
        """Run ``func_name`` on ``input_args`` and copy its outputs into ``output_args``."""
        from ..runtime.vm import invoke_with_outputs
        invoke_with_outputs(self, func_name, input_args, output_args)


class RemoteGraphModule:
    """A graph executor running on the server (classic: ``graph_runtime.create(graph,
    remote_lib, remote.cpu())``). Inputs go from here, kernels run there, outputs stay there
    until ``.numpy()``."""

    def __init__(self, lib: RemoteModule, graph_json: str, dev: RPCDevice,
                 executor: Optional[P.Handle] = None):
        try:
            g = json.loads(graph_json)
            nodes, row_ptr = g["nodes"], g["node_row_ptr"]
            shapes, dtypes = g["attrs"]["shape"][1], g["attrs"]["dltype"][1]
            self._inputs = {nodes[n]["name"]: row_ptr[n] for n in g["arg_nodes"]}
            self._outputs = [row_ptr[h[0]] + h[1] for h in g["heads"]]
        except (ValueError, KeyError, TypeError, IndexError) as e:
            raise TVMError(f"graph executor: malformed graph JSON ({type(e).__name__}: "
                           f"{e})") from None
        self._sess = lib._sess
        self._types = list(zip(shapes, dtypes))
        self._input_names = list(self._inputs)
        self.dev = dev
        if executor is None:  # else one made on the server (a factory's lib["default"])
            create = self._sess.get_function("tvm.graph_executor.create")
            executor = self._sess._call(S.OP_CALL, create._handle,
                                        [graph_json, lib._handle, dev.spec()])
        self._module = RemoteModule(self._sess, executor)
        self._fns: Dict[str, P.Handle] = {}

    def _call(self, name: str, *args) -> Any:
        h = self._fns.get(name)
        if h is None:
            h = self._fns[name] = RemoteFunction(self._sess, self._sess._call(
                S.OP_GET_FUNCTION, self._module._handle, name), name)
        return self._sess._call(S.OP_CALL, h._handle, [self._sess._arg(a) for a in args])

    def _array(self, handle: P.Handle, entry: int) -> RemoteNDArray:
        shape, dtype = self._types[entry]
        return RemoteNDArray(self._sess, handle, shape, dtype, self.dev)

    def set_input(self, key=None, value=None, **params) -> None:
        """Send ``value`` (numpy, a local or a remote array) to input ``key``."""
        items = ([(key, value)] if key is not None else []) + list(params.items())
        for k, v in items:
            if isinstance(v, _nd.NDArray):
                v = v.numpy()
            elif not isinstance(v, (RemoteNDArray, np.ndarray)):
                v = np.asarray(v)
            self._call("set_input", k, v)

    def run(self, **inputs) -> None:
        if inputs:
            self.set_input(**inputs)
        self._call("run")

    def get_num_inputs(self) -> int:
        return len(self._input_names)

    def get_num_outputs(self) -> int:
        return len(self._outputs)

    def get_input(self, key, out=None):
        """Input ``key`` (a remote array)."""
        name = self._input_names[key] if isinstance(key, int) and \
            0 <= key < len(self._input_names) else key
        arr = self._array(self._call("get_input", key), self._inputs.get(name, 0))
        return out.copyfrom(arr) if out is not None else arr

    def get_output(self, index: int, out=None):
        """Output ``index`` (a remote array; ``.numpy()`` brings it here)."""
        if not isinstance(index, int) or not 0 <= index < len(self._outputs):
            raise TVMError(f"get_output: index {index} out of range (the graph has "
                           f"{len(self._outputs)} outputs)")
        arr = self._array(self._call("get_output", index), self._outputs[index])
        return out.copyfrom(arr) if out is not None else arr

    def load_params(self, params_bytes: bytes) -> None:
        self._call("load_params", bytes(params_bytes))

    def benchmark(self, device=None, func_name: str = "run", repeat: int = 5, number: int = 5,
                  min_repeat_ms: float = 0, end_to_end: bool = False, **kwargs):
        """Time ``run`` on the server (seconds per run in a ``BenchmarkResult``)."""
        if kwargs:
            self.set_input(**kwargs)
        return BenchmarkResult(self._call("benchmark", None, func_name, int(repeat),
                                          int(number), float(min_repeat_ms)))

    def __getitem__(self, name: str):
        return getattr(self, name)


class RPCSession:
    """A connection to an RPC server (``tvm.rpc.RPCSession``)."""

    _counter = 0
    _counter_lock = threading.Lock()

    def __init__(self, sock: socket.socket, key: str = "",
                 max_frame: int = P.DEFAULT_MAX_FRAME):
        self._sock: Optional[socket.socket] = sock
        self._lock = threading.Lock()
        self._pending_free: List[P.Handle] = []
        self._max_frame = max_frame
        self.key = key
        with RPCSession._counter_lock:
            RPCSession._counter += 1
            self._index = RPCSession._counter

    def set_call_timeout(self, seconds: Optional[float]) -> None:
        """Seconds a call waits for its reply (None: forever); a late reply ends the
        session with an :class:`RPCError`."""
        with self._lock:
            if self._sock is not None:
                self._sock.settimeout(seconds)

    # ------------------------------------------------------------------ transport
    def _call(self, op: int, *args) -> Any:
        with self._lock:
            if self._sock is None:
                raise P.RPCError("the RPC session is closed")
            try:
                if len(self._pending_free) >= FREE_BATCH:
                    handles, self._pending_free[:] = list(self._pending_free), []
                    P.send_msg(self._sock, [S.OP_FREE, *handles])
                    P.recv_msg(self._sock, 1024)
                P.send_msg(self._sock, [op, *args], self._max_frame)
                reply = P.recv_msg(self._sock, self._max_frame)
            except (OSError, P.RPCError, P.ProtocolError) as e:
                self._drop()
                raise P.RPCError(f"RPC connection lost: {e}") from None
        if not (isinstance(reply, list) and len(reply) == 2 and reply[0] in (0, 1)):
            raise P.ProtocolError(f"malformed reply {reply!r:.100}")
        if reply[0] == S.STATUS_ERR:
            raise P.RPCError(f"remote error: {reply[1]}")
        return reply[1]

    def _drop(self) -> None:
        if self._sock is not None:
            try:
                self._sock.close()
            finally:
                self._sock = None

    def _arg(self, a: Any) -> Any:
        if isinstance(a, _RemoteObject):
            if a._sess is not self:
                raise TVMError("an argument belongs to another RPC session")
            return a._handle
        if isinstance(a, RPCDevice):
            return a.spec()
        if isinstance(a, _nd.NDArray):
            raise TVMError(f"cannot pass a local NDArray on {a.device!r} to a remote "
                           f"function: copy it to the remote device first")
        if isinstance(a, np.ndarray):
            return P.Tensor(a)
        if isinstance(a, (bool, int, float, str, bytes, np.integer, np.floating)) or a is None:
            return a
        raise TVMError(f"cannot pass a {type(a).__name__} to a remote function")

    def _result(self, v: Any) -> Any:
        if isinstance(v, P.Handle):
            return RemoteFunction(self, v, "")
        return v

    def close(self) -> None:
        """End the session; the server removes its files and objects."""
        with self._lock:
            if self._sock is None:
                return
            try:
                P.send_msg(self._sock, [S.OP_CLOSE])
                P.recv_msg(self._sock, 1024)
            except (OSError, P.RPCError, P.ProtocolError):
                pass
            self._drop()

    def __enter__(self) -> "RPCSession":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        sock = getattr(self, "_sock", None)
        if sock is not None:
            sock.close()

    # ------------------------------------------------------------------ files
    def upload(self, data, target: Optional[str] = None) -> None:
        """Send a file (a path or bytes) into the session folder as ``target`` (default: the
        file's base name)."""
        if isinstance(data, (bytes, bytearray)):
            if target is None:
                raise ValueError("upload of bytes needs a target name")
            blob = bytes(data)
        else:
            path = os.fspath(data)
            with open(path, "rb") as fh:
                blob = fh.read()
            target = target or os.path.basename(path)
        self._call(S.OP_UPLOAD, target, blob)

    def download(self, path: str) -> bytearray:
        """The bytes of a file in the session folder."""
        return bytearray(self._call(S.OP_DOWNLOAD, path))

    def remove(self, path: str) -> None:
        """Delete a file of the session folder."""
        self._call(S.OP_REMOVE, path)

    def listdir(self) -> List[str]:
        """The files of the session folder."""
        return list(self._call(S.OP_LISTDIR))

    def load_module(self, path: str) -> RemoteModule:
        """Load an uploaded ``.so``/``.tar``/``.o`` on the server."""
        return RemoteModule(self, self._call(S.OP_LOAD_MODULE, path))

    def get_function(self, name: str) -> RemoteFunction:
        """A global function registered on the server (``tvm.register_func``)."""
        return RemoteFunction(self, self._call(S.OP_GET_FUNCTION, None, name), name)

    # ------------------------------------------------------------------ devices, arrays
    def device(self, dev_type, dev_id: int = 0) -> RPCDevice:
        """A device of the server."""
        d = make_device(dev_type, dev_id)
        return RPCDevice(self, d.device_type, d.device_id)

    def cpu(self, dev_id: int = 0) -> RPCDevice:
        return self.device(CPU, dev_id)

    def cuda(self, dev_id: int = 0) -> RPCDevice:
        return self.device(CUDA, dev_id)

    gpu = cuda
    context = device

    def ext_dev(self, dev_id: int = 0) -> RPCDevice:
        return self.device(EXT_DEV, dev_id)

    def array(self, arr: np.ndarray, dev: RPCDevice) -> RemoteNDArray:
        """Copy ``arr`` to ``dev`` (what ``tvm.nd.array(arr, dev)`` calls)."""
        h = self._call(S.OP_ARRAY_NEW, P.Tensor(arr), dev.spec())
        return RemoteNDArray(self, h, arr.shape, str(arr.dtype), dev)

    def empty(self, shape, dtype: str, dev: RPCDevice) -> RemoteNDArray:
        """An uninitialised array on ``dev`` (what ``tvm.nd.empty`` calls)."""
        shape = [int(s) for s in shape]
        h = self._call(S.OP_ARRAY_EMPTY, shape, dtype, dev.spec())
        return RemoteNDArray(self, h, shape, dtype, dev)


def connect(url: str, port: int, key: str = "", session_timeout: float = 0,
            auth_key: Optional[str] = None, timeout: float = 60.0,
            max_frame: int = P.DEFAULT_MAX_FRAME) -> RPCSession:
    """Connect to an RPC server (``tvm.rpc.connect``).

    Parameters
    ----------
    url, port : str, int
        The server's address.
    key : str
        The server's key (or the match key a tracker handed out).
    session_timeout : float
        Seconds the session may last: the server ends it then (0: no limit). A call also
        waits at most this long for its reply (``timeout`` when 0).
    auth_key : str, optional
        Shared secret for servers started with one (default: ``TVM_RPC_AUTH_KEY``).
    """
    if auth_key is None:
        auth_key = os.environ.get(S.AUTH_ENV) or None
    try:
        sock = socket.create_connection((url, int(port)), timeout=timeout)
    except OSError as e:
        raise P.RPCError(f"cannot connect to the RPC server at {url}:{port}: {e}") from None
    try:
        hello = P.recv_msg(sock, 4096)
        if not (isinstance(hello, list) and len(hello) == 3 and hello[0] == P.MAGIC
                and isinstance(hello[1], bytes)):
            raise P.ProtocolError(f"{url}:{port} is not a tvmlite RPC server")
        _, nonce, need_auth = hello
        if need_auth and auth_key is None:
            raise P.RPCError(f"the RPC server at {url}:{port} requires an auth key "
                             f"(pass auth_key= or set {S.AUTH_ENV})")
        mac = S.auth_mac(auth_key, nonce) if need_auth else b""
        P.send_msg(sock, [P.MAGIC, key, mac, float(session_timeout or 0)])
        reply = P.recv_msg(sock, 4096)
        if not isinstance(reply, list) or len(reply) != 2 or reply[0] != S.STATUS_OK:
            why = reply[1] if isinstance(reply, list) and len(reply) == 2 else reply
            raise P.RPCError(f"the RPC server at {url}:{port} refused the session: {why}")
        sock.settimeout(session_timeout if session_timeout else timeout)
    except BaseException:
        sock.close()
        raise
    return RPCSession(sock, key, max_frame)


class LocalSession:
    """The session interface on this machine (``tvm.rpc.LocalSession``): files go to a
    temporary folder, modules and arrays are local."""

    def __init__(self):
        self._dir = tempfile.mkdtemp(prefix="tvmlite-rpc-local-")

    def _path(self, name: str) -> str:
        return os.path.join(self._dir, S.check_file_name(name))

    def upload(self, data, target: Optional[str] = None) -> None:
        if isinstance(data, (bytes, bytearray)):
            if target is None:
                raise ValueError("upload of bytes needs a target name")
            blob = bytes(data)
        else:
            with open(os.fspath(data), "rb") as fh:
                blob = fh.read()
            target = target or os.path.basename(os.fspath(data))
        with open(self._path(target), "wb") as fh:
            fh.write(blob)

    def download(self, path: str) -> bytearray:
        with open(self._path(path), "rb") as fh:
            return bytearray(fh.read())

    def remove(self, path: str) -> None:
        os.unlink(self._path(path))

    def listdir(self) -> List[str]:
        return sorted(os.listdir(self._dir))

    def load_module(self, path: str):
        return load_module(self._path(path))

    def get_function(self, name: str):
        return get_global_func(name)

    def device(self, dev_type, dev_id: int = 0) -> Device:
        return make_device(dev_type, dev_id)

    def cpu(self, dev_id: int = 0) -> Device:
        return cpu(dev_id)

    def cuda(self, dev_id: int = 0) -> Device:
        return cuda(dev_id)

    def ext_dev(self, dev_id: int = 0) -> Device:
        return make_device(EXT_DEV, dev_id)

    gpu = cuda
    context = device

    def close(self) -> None:
        shutil.rmtree(self._dir, ignore_errors=True)

    def __del__(self):
        d = getattr(self, "_dir", None)
        if d:
            shutil.rmtree(d, ignore_errors=True)


class TrackerSession:
    """A client's view of a tracker (``rpc.connect_tracker``)."""

    def __init__(self, host: str, port: int):
        self.host, self.port = host, int(port)

    def _ask(self, msg: List[Any], timeout: Optional[float]) -> Any:
        try:
            sock = socket.create_connection((self.host, self.port), timeout=10)
        except OSError as e:
            raise P.RPCError(f"cannot connect to the tracker at {self.host}:{self.port}: "
                             f"{e}") from None
        try:
            sock.settimeout(timeout)
            P.send_msg(sock, [TRACKER_MAGIC, *msg])
            reply = P.recv_msg(sock, MAX_TRACKER_FRAME)
        except socket.timeout:
            raise P.RPCError(f"no reply from the tracker within {timeout} s") from None
        finally:
            sock.close()
        if not isinstance(reply, list) or not reply or reply[0] != "ok":
            raise P.RPCError(f"tracker error: {reply!r:.200}")
        return reply[1:]

    def summary(self) -> Dict[str, Any]:
        """Servers and queue lengths per key."""
        queue, servers = self._ask(["summary"], 10)
        return {"queue": {q[0]: q[1:] for q in queue}, "servers": servers}

    def text_summary(self) -> str:
        """The tracker's state as a table."""
        s = self.summary()
        lines = ["Server List", "----------------------------", "server-address\tkey",
                 "----------------------------"]
        lines += [f"{h}:{p}\tserver:{k}" for k, h, p in s["servers"]]
        lines += ["", "Queue Status", "-------------------------------",
                  "key\ttotal\tfree\tpending", "-------------------------------"]
        lines += [f"{k}\t{t}\t{f}\t{q}" for k, (t, f, q) in s["queue"].items()]
        return "\n".join(lines) + "\n"

    def request(self, key: str, priority: int = 1, session_timeout: float = 0,
                max_retry: int = 5, timeout: Optional[float] = None, auth_key=None):
        """A session on a free server of ``key``, waiting in the tracker's queue for one."""
        last = None
        for _ in range(max(1, max_retry)):
            host, port, match = self._ask(["request", key, int(priority)], timeout)
            try:
                return connect(host, port, key=match, session_timeout=session_timeout,
                               auth_key=auth_key)
            except P.RPCError as e:
                last = e
        raise P.RPCError(f"cannot get a session of key {key!r} after {max_retry} tries: "
                         f"{last}")

    def request_and_run(self, key: str, func, priority: int = 1, session_timeout: float = 0,
                        max_retry: int = 2):
        """Request a session and run ``func(session)`` on it."""
        sess = self.request(key, priority, session_timeout, max_retry)
        try:
            return func(sess)
        finally:
            sess.close()


def connect_tracker(url: str, port: int) -> TrackerSession:
    """A handle on the tracker at ``url:port`` (``tvm.rpc.connect_tracker``)."""
    return TrackerSession(url, port)
