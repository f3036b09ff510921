"""``autotvm.RPCRunner``: measure AutoTVM candidates on the devices behind a tracker.

Each batch is spread over as many sessions as the tracker has servers of the key: one thread
per session uploads a candidate's library, loads it, fills random inputs on the device and
times it with the remote ``time_evaluator``. A device that fails or dies costs the trial it was
measuring (an error result); its thread asks the tracker for another device and goes on.
"""
from __future__ import annotations

import os
import queue
import threading
import time
from typing import List, Optional, Sequence

import numpy as np

from ..autotvm import worker as _w
from ..autotvm.argcheck import check_int, check_number
from ..autotvm.measure import BuildResult, MeasureErrorNo, MeasureInput, MeasureResult, Runner
from ..error import TVMError
from ..runtime import ndarray as _nd
from ..runtime.module import ENTRY_NAME, Module
from .client import RPCSession, connect_tracker
from .protocol import RPCError


class RPCRunner(Runner):
    """Run candidates on the tracker's devices of ``key`` (``autotvm.RPCRunner``).

    Parameters
    ----------
    key, host, port : str, str, int
        The device key and the tracker's address.
    priority : int
        Priority of this runner's requests in the tracker's queue.
    timeout : float
        Seconds one remote call may take; a longer one is a RUN_TIMEOUT error.
    n_parallel : int, optional
        Devices to use at once (default: every server of the key the tracker knows).
    number, repeat, min_repeat_ms, cooldown_interval, enable_cpu_cache_flush,
    check_correctness :
        As in :class:`~tvmlite.autotvm.measure.LocalRunner`.
    """

    def __init__(self, key: str, host: str, port: int, priority: int = 1,
                 timeout: float = 10, n_parallel: Optional[int] = None, number: int = 4,
                 repeat: int = 3, min_repeat_ms: float = 0, cooldown_interval: float = 0.0,
                 enable_cpu_cache_flush: bool = False, check_correctness: bool = False,
                 module_loader=None):
        super().__init__(timeout, n_parallel)
        self.n_parallel = check_int(n_parallel, "RPCRunner: n_parallel", allow_none=True)
        self.key, self.host, self.port = str(key), str(host), int(port)
        self.priority = check_int(priority, "RPCRunner: priority")
        self.number = check_int(number, "RPCRunner: number")
        self.repeat = check_int(repeat, "RPCRunner: repeat")
        if self.number < 1 or self.repeat < 1:
            raise ValueError("RPCRunner: number and repeat must be at least 1")
        self.min_repeat_ms = check_number(min_repeat_ms, "RPCRunner: min_repeat_ms", 0)
        self.cooldown_interval = check_number(cooldown_interval,
                                              "RPCRunner: cooldown_interval", 0)
        if enable_cpu_cache_flush:
            raise ValueError("RPCRunner: enable_cpu_cache_flush is not supported over RPC")
        self.check_correctness = bool(check_correctness)
        self.ref_path: Optional[str] = None
        self._ref_out: Optional[List[np.ndarray]] = None
        self.request_timeout = max(60.0, 4 * self.timeout)

    def set_task(self, task) -> None:
        super().set_task(task)
        self.ref_path = None
        self._ref_out = None

    def _devices(self) -> int:
        if self.n_parallel:
            return self.n_parallel
        summary = connect_tracker(self.host, self.port).summary()
        total = summary["queue"].get(self.key, [0, 0, 0])[0]
        if total < 1:
            raise TVMError(f"RPCRunner: the tracker at {self.host}:{self.port} has no server "
                           f"of key {self.key!r}")
        return total

    def _reference(self, specs) -> Optional[List[np.ndarray]]:
        if self.ref_path is None:
            return None
        if self._ref_out is None:
            args = _w._random_args(specs, 0)
            Module(self.ref_path).get_function(ENTRY_NAME)(*args)
            self._ref_out = [a.numpy() for a, s in zip(args, specs) if s[2]]
        return self._ref_out

    def _measure(self, sess: RPCSession, br: BuildResult, ref) -> List[float]:
        name = f"cand-{os.getpid()}-{threading.get_ident()}.so"
        # ``timeout`` bounds running the candidate; moving it there may take longer on a busy
        # machine (an isolated server starts a session process first) without being a
        # RUN_TIMEOUT of the candidate
        sess.set_call_timeout(self.request_timeout)
        sess.upload(br.filename, name)
        try:
            mod = sess.load_module(name)
        finally:
            sess.remove(name)
        dev = sess.cpu()
        args = [_nd.array(a.numpy(), dev) for a in _w._random_args(br.arg_info, 0)]
        ev = mod.time_evaluator(ENTRY_NAME, dev, number=self.number, repeat=self.repeat,
                                min_repeat_ms=self.min_repeat_ms)
        sess.set_call_timeout(self.timeout)
        if ref is not None:
            mod(*args)
            got = [a.numpy() for a, s in zip(args, br.arg_info) if s[2]]
            for g, r in zip(got, ref):
                if not np.allclose(g, r, rtol=1e-3, atol=1e-4, equal_nan=True):
                    err = float(np.max(np.abs(g.astype("float64") - r)))
                    raise _WrongAnswer(f"the candidate's output differs from the reference "
                                       f"(max abs error {err:.3g})")
        return list(ev(*args).results)

    def run(self, measure_inputs: Sequence[MeasureInput],
            build_results: Sequence[BuildResult]) -> List[MeasureResult]:
        t0 = time.perf_counter()
        out: List[Optional[MeasureResult]] = [None] * len(measure_inputs)
        todo: "queue.Queue[int]" = queue.Queue()
        for i, br in enumerate(build_results):
            if br.error is not None:
                out[i] = MeasureResult((br.error[1],), int(br.error[0]), br.time_cost,
                                       time.time())
            else:
                todo.put(i)
        if todo.empty():
            return list(out)
        ref = self._reference(next(br.arg_info for br in build_results if br.error is None)) \
            if self.check_correctness else None
        tracker = connect_tracker(self.host, self.port)

        def work() -> None:
            sess: Optional[RPCSession] = None
            try:
                while True:
                    try:
                        i = todo.get_nowait()
                    except queue.Empty:
                        return
                    br = build_results[i]
                    t1 = time.perf_counter()
                    try:
                        if sess is None:
                            sess = tracker.request(self.key, self.priority,
                                                   timeout=self.request_timeout)
                        costs = self._measure(sess, br, ref)
                        res = (tuple(costs), 0)
                    except _WrongAnswer as e:
                        res = ((str(e),), int(MeasureErrorNo.WRONG_ANSWER))
                    except (RPCError, TVMError, OSError) as e:
                        timed_out = "timed out" in str(e)
                        no = MeasureErrorNo.RUN_TIMEOUT if timed_out else \
                            MeasureErrorNo.RUNTIME_DEVICE
                        res = ((f"{type(e).__name__}: {e}",), int(no))
                        if isinstance(e, RPCError) and "lost" in str(e) or timed_out:
                            sess = None  # the device is gone or stuck: ask for another
                    out[i] = MeasureResult(res[0], res[1],
                                           br.time_cost + time.perf_counter() - t1, time.time())
                    if self.cooldown_interval > 0:
                        time.sleep(self.cooldown_interval)
            finally:
                if sess is not None:
                    sess.close()

        n = min(self._devices(), todo.qsize())
        threads = [threading.Thread(target=work, daemon=True) for _ in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.stats["run_s"] += time.perf_counter() - t0
        return list(out)


class _WrongAnswer(Exception):
    pass


def request_remote(device_key: str, host: Optional[str] = None, port: Optional[int] = None,
                   priority: int = 1, timeout: float = 60) -> RPCSession:
    """A session on a free device of ``device_key`` from the tracker at ``host:port``
    (default: ``$TVM_TRACKER_HOST``/``$TVM_TRACKER_PORT``), as classic AutoTVM has it."""
    host = host or os.environ.get("TVM_TRACKER_HOST")
    port = port or os.environ.get("TVM_TRACKER_PORT")
    if not host or not port:
        raise TVMError("request_remote: give host and port, or set TVM_TRACKER_HOST and "
                       "TVM_TRACKER_PORT")
    return connect_tracker(host, int(port)).request(device_key, priority=priority,
                                                    session_timeout=timeout)


def check_remote(target, device_key: str, host: Optional[str] = None,
                 port: Optional[int] = None, priority: int = 100, timeout: float = 10) -> bool:
    """Whether a device of ``device_key`` answers within ``timeout`` seconds."""
    result: List[bool] = []

    def probe() -> None:
        # a tracker that goes away after the timeout is a "no", not an error in a stray thread
        try:
            sess = request_remote(device_key, host, port, priority)
            try:
                result.append(sess.cpu().exist)
            finally:
                sess.close()
        except (TVMError, OSError):
            pass

    t = threading.Thread(target=probe, daemon=True)
    t.start()
    t.join(timeout)
    return bool(result and result[0])
