"""The RPC tracker: matches device keys to free servers, queueing requests fairly.

Servers keep one connection open to the tracker and announce themselves with a fresh match
key whenever they are free (``put``); a client's ``request`` waits (highest priority first, then
first come) until a server of its key is free, and gets its address and match key. The server
then accepts only that match key, reports ``claimed``, and announces a new key when the session
ends. A match key handed out but never claimed goes back to the pool after a timeout.
"""
from __future__ import annotations

import itertools
import logging
import secrets
import select
import socket
import threading
import time
from typing import Any, Dict, List, Optional, Tuple

from ..error import TVMError
from . import protocol as P

logger = logging.getLogger("RPCTracker")

TRACKER_MAGIC = b"TVMLTRK1"
MAX_TRACKER_FRAME = 1 << 16


class _Entry:
    __slots__ = ("agent", "key", "host", "port", "match")

    def __init__(self, agent: int, key: str, host: str, port: int, match: str):
        self.agent, self.key, self.host, self.port, self.match = agent, key, host, port, match


class Tracker:
    """A tracker (``tvm.rpc.tracker.Tracker``) serving in background threads.

    Parameters
    ----------
    host : str
        Address to bind (default loopback).
    port, port_end : int
        First free port of ``[port, port_end)``; ``port=0`` lets the OS pick.
    assign_timeout : float
        Seconds a handed-out server waits for its client before it is free again.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 9190, port_end: int = 9199,
                 assign_timeout: float = 10.0, silent: bool = False):
        if not (host.startswith("127.") or host in ("localhost", "::1")):
            logger.warning("RPC tracker binding %s: anyone who can reach it can use and "
                           "register devices", host)
        self.assign_timeout = assign_timeout
        self._cond = threading.Condition()
        self._free: Dict[str, List[_Entry]] = {}
        self._assigned: Dict[str, Tuple[_Entry, float]] = {}  # match key -> entry, deadline
        self._agents: Dict[int, Tuple[str, str, int]] = {}     # id -> key, host, port
        self._queue: List[Tuple[int, int, str]] = []           # (-priority, seq, key)
        self._seq = itertools.count()
        self._stop = threading.Event()
        self._conns: set = set()
        self.sock = _bind(host, port, port_end)
        self.host, self.port = host, self.sock.getsockname()[1]
        if not silent:
            logger.info("bind to %s:%d", host, self.port)
        self._thread = threading.Thread(target=self._accept_loop, daemon=True,
                                        name=f"rpc-tracker-{self.port}")
        self._thread.start()

    # ------------------------------------------------------------------ connections
    def _accept_loop(self) -> None:
        while not self._stop.is_set():
            self._expire()
            try:
                conn, _ = self.sock.accept()
            except socket.timeout:
                continue
            except OSError:
                break
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with self._cond:
            self._conns.add(conn)
        agent_id = None
        try:
            conn.settimeout(10.0)
            hello = P.recv_msg(conn, MAX_TRACKER_FRAME)
            if not (isinstance(hello, list) and len(hello) >= 2 and hello[0] == TRACKER_MAGIC):
                raise P.ProtocolError("bad tracker handshake")
            cmd = hello[1]
            if cmd == "request" and len(hello) == 4:
                self._serve_request(conn, hello[2], hello[3])
            elif cmd == "summary":
                summ = self.summary()
                P.send_msg(conn, ["ok", [[k, *v] for k, v in summ["queue"].items()],
                                  summ["servers"]])
            elif cmd == "server":
                agent_id = id(conn)
                conn.settimeout(None)
                self._serve_agent(conn, agent_id)
            else:
                P.send_msg(conn, ["error", f"unknown tracker command {cmd!r}"])
        except (P.ProtocolError, P.RPCError, OSError, TVMError) as e:
            logger.debug("tracker connection ended: %s", e)
        finally:
            with self._cond:
                self._conns.discard(conn)
                if agent_id is not None:
                    self._drop_agent(agent_id)
                self._cond.notify_all()
            conn.close()

    def _serve_agent(self, conn: socket.socket, agent_id: int) -> None:
        while not self._stop.is_set():
            msg = P.recv_msg(conn, MAX_TRACKER_FRAME)
            if not isinstance(msg, list) or not msg:
                raise P.ProtocolError("bad server message")
            if msg[0] == "put" and len(msg) == 5 and isinstance(msg[1], str) \
                    and isinstance(msg[2], str) and isinstance(msg[3], int) \
                    and isinstance(msg[4], str):
                _, key, host, port, match = msg
                with self._cond:
                    self._agents[agent_id] = (key, host, port)
                    self._forget(agent_id)  # a server has one match key at a time
                    self._free.setdefault(key, []).append(
                        _Entry(agent_id, key, host, port, match))
                    self._cond.notify_all()
            elif msg[0] == "claimed" and len(msg) == 2:
                with self._cond:
                    self._forget(agent_id)
            else:
                raise P.ProtocolError(f"unknown server message {msg[0]!r}")

    def _drop_agent(self, agent_id: int) -> None:
        self._agents.pop(agent_id, None)
        self._forget(agent_id)

    def _forget(self, agent_id: int) -> None:
        """Drop the server's announced match keys, free or handed out."""
        for entries in self._free.values():
            entries[:] = [e for e in entries if e.agent != agent_id]
        for match in [m for m, (e, _) in self._assigned.items() if e.agent == agent_id]:
            del self._assigned[match]

    def _expire(self) -> None:
        now = time.time()
        with self._cond:
            for match, (e, deadline) in list(self._assigned.items()):
                if deadline < now:
                    del self._assigned[match]
                    if e.agent in self._agents:
                        self._free.setdefault(e.key, []).append(e)
                        self._cond.notify_all()

    def _serve_request(self, conn: socket.socket, key: Any, priority: Any) -> None:
        if not isinstance(key, str) or not isinstance(priority, int):
            raise P.ProtocolError("bad request")
        ticket = (-priority, next(self._seq), key)
        with self._cond:
            self._queue.append(ticket)
            self._queue.sort()
            try:
                while True:
                    mine = [t for t in self._queue if t[2] == key]
                    if mine[0] == ticket and self._free.get(key):
                        entry = self._free[key].pop(0)
                        self._queue.remove(ticket)
                        self._assigned[entry.match] = (entry,
                                                       time.time() + self.assign_timeout)
                        break
                    if self._stop.is_set() or _peer_closed(conn):
                        return
                    self._cond.wait(0.25)
                    if self._stop.is_set():
                        return
            finally:
                if ticket in self._queue:
                    self._queue.remove(ticket)
                self._cond.notify_all()
        try:
            P.send_msg(conn, ["ok", entry.host, entry.port, entry.match])
        except OSError:
            with self._cond:  # the client left: the server is free again
                if self._assigned.pop(entry.match, None) is not None:
                    self._free.setdefault(key, []).insert(0, entry)
                    self._cond.notify_all()

    # ------------------------------------------------------------------ state
    def summary(self) -> Dict[str, Any]:
        """Servers and queued requests per key."""
        with self._cond:
            keys = set(self._free) | {k for k, _, _ in self._agents.values()} | \
                {t[2] for t in self._queue}
            out = {}
            for k in sorted(keys):
                total = sum(1 for a in self._agents.values() if a[0] == k)
                free = len(self._free.get(k, []))
                out[k] = [total, free, sum(1 for t in self._queue if t[2] == k)]
            servers = [[a[0], a[1], a[2]] for a in self._agents.values()]
        return {"queue": out, "servers": servers}

    def terminate(self) -> None:
        """Stop serving and close every connection."""
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
            conns = list(self._conns)
        self._thread.join(5)
        self.sock.close()
        for c in conns:
            try:
                c.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def __enter__(self) -> "Tracker":
        return self

    def __exit__(self, *exc) -> None:
        self.terminate()


def _bind(host: str, port: int, port_end: int) -> socket.socket:
    last = None
    for p in ([0] if port == 0 else range(port, max(port_end, port + 1))):
        sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
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
    raise TVMError(f"cannot bind {host} on ports [{port}, {port_end}): {last}")


def _peer_closed(conn: socket.socket) -> bool:
    try:
        r, _, _ = select.select([conn], [], [], 0)
        return bool(r) and conn.recv(1, socket.MSG_PEEK) == b""
    except OSError:
        return True


class ServerAgent:
    """A server's connection to its tracker: announces it free with a fresh match key."""

    def __init__(self, server: Any, tracker_addr: Tuple[str, int]):
        self.server = server
        self.addr = (tracker_addr[0], int(tracker_addr[1]))
        self._lock = threading.Lock()
        self._match: Optional[str] = None
        self._busy = False
        self._sock: Optional[socket.socket] = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="rpc-agent")

    def start(self) -> None:
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                sock = socket.create_connection(self.addr, timeout=5)
            except OSError:
                self._stop.wait(1.0)
                continue
            with self._lock:
                self._sock = sock
                try:
                    P.send_msg(sock, [TRACKER_MAGIC, "server"])
                    if not self._busy:
                        self._put()
                except OSError:
                    pass
            # the tracker sends nothing back; EOF means it went away
            sock.settimeout(None)
            try:
                while not self._stop.is_set() and sock.recv(1):
                    pass
            except OSError:
                pass
            with self._lock:
                self._sock = None
            sock.close()
            self._stop.wait(1.0)

    def _put(self) -> None:
        self._match = secrets.token_hex(16)
        if self._sock is None:
            return
        s = self.server
        host = s.custom_addr or (s.host if s.host not in ("0.0.0.0", "::", "")
                                 else self._sock.getsockname()[0])
        P.send_msg(self._sock, ["put", s.key, host, s.port, self._match])

    def claim(self, key: str) -> bool:
        """Whether ``key`` is the match key handed out (then the server is busy)."""
        with self._lock:
            if self._busy or self._match is None or key != self._match:
                return False
            self._busy = True
            if self._sock is not None:
                try:
                    P.send_msg(self._sock, ["claimed", key])
                except OSError:
                    pass
            return True

    def release(self) -> None:
        """The session ended: announce a new match key."""
        with self._lock:
            self._busy = False
            try:
                self._put()
            except OSError:
                pass

    def stop(self) -> None:
        self._stop.set()
        with self._lock:
            if self._sock is not None:
                try:
                    self._sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        self._thread.join(5)
