"""Worker processes for building and running candidates.

Each worker is a fresh interpreter (``python -m tvmlite.autotvm._worker_main``, i.e. spawned, never
forked, so it inherits no OpenMP threads or locks). It reads pickled requests from a private
pipe and answers each with ``("ok", value)`` or ``("err", error_no, message)``. The parent
kills a worker that passes its deadline and starts a new one; a worker that dies (a crashing
kernel) shows up as end-of-file on its pipe. Either way the candidate gets an error result
and tuning goes on.
"""
from __future__ import annotations

import atexit
import contextlib
import os
import signal
import subprocess
import sys
import time
import traceback
from multiprocessing.connection import Connection, wait
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from .. import te
from ..alias import _FINDER, install
from ..driver import build as driver_build
from ..driver import lower
from ..ir.transform import PassContext
from ..runtime import ndarray as nd
from ..runtime.device import device
from ..runtime.module import Module
from ..te.tensor import PlaceholderOp, Tensor
from ..tir.analysis import gpu_code_errors
from ..tir.expr import IntImm
from ..tir.transform import prim_func_pass
from .env import GLOBAL_SCOPE
from .feature import loop_nest_features

# MeasureErrorNo values (kept here so a worker need not import the measure module)
INSTANTIATION_ERROR = 1
COMPILE_HOST = 2
RUNTIME_DEVICE = 4
WRONG_ANSWER = 5
BUILD_TIMEOUT = 6
RUN_TIMEOUT = 7
UNKNOWN_ERROR = 8


class WorkerError(Exception):
    def __init__(self, error_no: int, msg: str):
        super().__init__(msg)
        self.error_no = error_no


# ------------------------------------------------------------------------- the worker side
_TASKS: Dict[Any, Any] = {}
_REF: Dict[str, Any] = {}


def _short_tb(e: BaseException) -> str:
    lines = traceback.format_exception_only(type(e), e)
    return "".join(lines).strip()[-2000:]


def _outputs(args) -> List[int]:
    return [i for i, a in enumerate(args)
            if isinstance(a, Tensor) and not isinstance(a.op, PlaceholderOp)]


def _arg_specs(args) -> List[Tuple[Tuple[int, ...], str, bool]]:
    outs = set(_outputs(args))
    specs = []
    for i, a in enumerate(args):
        if not isinstance(a, Tensor):
            raise WorkerError(INSTANTIATION_ERROR, f"argument {i} of the template is not a "
                              f"tensor ({type(a).__name__}); measuring needs tensor arguments")
        shape = []
        for d in a.shape:
            if not isinstance(d, IntImm):
                raise WorkerError(INSTANTIATION_ERROR, f"argument {a.name} has a symbolic shape")
            shape.append(int(d.value))
        specs.append((tuple(shape), a.dtype, i in outs))
    return specs


def _instantiate(task, index: int):
    """The schedule and arguments of config ``index``, as measured: with
    ``GLOBAL_SCOPE.in_tuning`` set (a template may then leave out work a network does
    elsewhere, as ``conv2d_NCHWc.x86`` leaves the packing of its NCHW arguments)."""
    cfg = task.config_space.get(index)
    scope = GLOBAL_SCOPE
    old, scope.in_tuning = scope.in_tuning, True
    try:
        with task.target:
            out = task.instantiate(cfg)
    except Exception as e:  # noqa: BLE001  (any template error is the candidate's result)
        raise WorkerError(INSTANTIATION_ERROR, _short_tb(e)) from None
    finally:
        scope.in_tuning = old
    if not cfg.valid():  # the template called cfg.raise_error
        raise WorkerError(INSTANTIATION_ERROR, "InstantiationError: " + "; ".join(cfg.errors))
    return out


def _lower(task, sch, args):
    """The loop nest of a config: the first stage of lowering (unrolled and vectorized loops
    still annotated), what its features read and a GPU config's checks run on."""
    try:
        with task.target, _gpu_checks(task):
            return lower(sch, args, name="default_function", _loops_only=True)
    except Exception as e:  # noqa: BLE001
        raise WorkerError(INSTANTIATION_ERROR, _short_tb(e)) from None


def _is_gpu(task) -> bool:
    return task.target.kind.name in ("cuda", "nvptx")


#: the largest product of nested vthread extents a GPU candidate may have: each is a copy of
#: the kernel's body (classic's check_gpu leaves it unbounded; 9x9x8 took minutes to build)
GPU_MAX_VTHREAD = 64


def gpu_limits(target) -> Dict[str, int]:
    """The ``verify_gpu_code`` constraints of a GPU build for ``target`` (classic LocalBuilder's
    ``check_gpu``): the target's threads and shared memory per block, CUDA's thread extents,
    local memory per thread and vector width, and :data:`GPU_MAX_VTHREAD`."""
    return {"max_threads_per_block": int(target.max_num_threads),
            "max_shared_memory_per_block": int(target.attrs.get("max_shared_memory_per_block",
                                                                49152)),
            "max_thread_x": 1024, "max_thread_y": 1024, "max_thread_z": 64,
            "max_local_memory_per_block": 512 * 1024, "max_vector_bytes": 16,
            "max_vthread": GPU_MAX_VTHREAD}


def _gpu_verify_pass(limits: Dict[str, int]):
    def verify(func, mod, ctx):
        errors = gpu_code_errors(func, limits)
        if errors:
            raise WorkerError(INSTANTIATION_ERROR, "Skipped because of invalid gpu kernel: "
                              + "; ".join(errors))
        return func

    return prim_func_pass(verify, opt_level=0, name="autotvm.verify_gpu_code")


def _gpu_checks(task):
    """A PassContext checking a GPU candidate against :func:`gpu_limits` while it lowers:
    threads and virtual threads before vthread injection (phase 1), everything once buffers
    are compacted (phase 2), so a candidate over the limits costs no injection and no C."""
    if not _is_gpu(task):
        return contextlib.nullcontext()
    limits = gpu_limits(task.target)
    early = {k: v for k, v in limits.items() if "memory" not in k}
    cur = PassContext.current()
    passes = [*cur.config.get("tir.add_lower_pass", ()), (1, _gpu_verify_pass(early)),
              (2, _gpu_verify_pass(limits))]
    return PassContext(cur.opt_level, cur.required_pass, cur.disabled_pass,
                       config={**cur.config, "tir.add_lower_pass": passes})


def _compile(task, sch, args, target=None) -> str:
    """The library of a config, built as ``tvm.build`` builds it (a GPU build's kernels are
    emulated on the CPU)."""
    try:
        return driver_build(sch, args, target or task.target,
                            name="default_function").library_path
    except Exception as e:  # noqa: BLE001
        raise WorkerError(COMPILE_HOST, _short_tb(e)) from None


def do_build(key, index: int, want_features: bool) -> dict:
    """Instantiate and compile one config, with its loop-nest features when asked (a GPU
    config is always checked on its loop nest first)."""
    task = _TASKS[key]
    t0 = time.perf_counter()
    sch, args = _instantiate(task, index)
    specs = _arg_specs(args)
    feats = None
    if want_features or _is_gpu(task):
        nest = _lower(task, sch, args)
        feats = loop_nest_features(nest) if want_features else None
    path = _compile(task, sch, args)
    return {"path": path, "specs": specs, "features": feats,
            "time": time.perf_counter() - t0}


def do_features(key, indices: Sequence[int]) -> List[Optional[List[float]]]:
    """Loop-nest features of several configs (None for one that does not lower)."""
    task = _TASKS[key]
    out = []
    for i in indices:
        try:
            sch, args = _instantiate(task, i)
            out.append(loop_nest_features(_lower(task, sch, args)))
        except WorkerError:
            out.append(None)
    return out


def do_build_reference(key) -> dict:
    """The template's outputs under a plain schedule (no primitives), for correctness
    checks."""
    task = _TASKS[key]
    sch, args = _instantiate(task, 0)
    outs = [args[i] for i in _outputs(args)]
    plain = te.create_schedule([t.op for t in outs])
    # a GPU task's reference is its plain schedule run on the CPU
    host = "llvm" if _is_gpu(task) else None
    return {"path": _compile(task, plain, args, host), "specs": _arg_specs(args)}


def _random_args(specs, seed: int, dev=None):
    import numpy as np


    rng = np.random.default_rng(seed)
    arrays = []
    for shape, dtype, is_out in specs:
        if is_out:
            a = np.zeros(shape, dtype=dtype)
        elif dtype.startswith(("int", "uint")):
            a = rng.integers(0, 8, size=shape).astype(dtype)
        elif dtype == "bool":
            a = rng.integers(0, 2, size=shape).astype(bool)
        else:
            a = rng.uniform(-1, 1, size=shape).astype(dtype)
        arrays.append(nd.array(a, dev) if dev is not None else nd.array(a))
    return arrays


def _load(path: str):
    try:
        return Module(path)
    except Exception as e:  # noqa: BLE001
        raise WorkerError(RUNTIME_DEVICE, _short_tb(e)) from None


def do_run(path: str, specs, number: int, repeat: int, min_repeat_ms: float,
           flush: bool, ref_path: Optional[str], dev_type: str = "cpu",
           gpu_emulation: Optional[str] = None) -> List[float]:
    """Time one built candidate (native timer) on a ``dev_type`` device (``gpu_emulation``:
    the parent's ``TVMLITE_GPU_EMULATION``); check it against the reference (run on the CPU)
    if asked."""
    import numpy as np


    mod = _load(path)
    if gpu_emulation is not None:
        os.environ["TVMLITE_GPU_EMULATION"] = gpu_emulation
    dev = device(dev_type, 0)
    args = _random_args(specs, 0, dev)
    try:
        if ref_path is not None:
            ref = _REF.get(ref_path)
            if ref is None:
                rargs = _random_args(specs, 0)
                _load(ref_path)(*rargs)
                ref = _REF[ref_path] = [a.numpy() for a, s in zip(rargs, specs) if s[2]]
            mod(*args)
            got = [a.numpy() for a, s in zip(args, specs) if s[2]]
            for g, r in zip(got, ref):
                if not np.allclose(g, r, rtol=1e-3, atol=1e-4, equal_nan=True):
                    err = float(np.max(np.abs(g.astype("float64") - r)))
                    raise WorkerError(WRONG_ANSWER, f"the candidate's output differs from the "
                                      f"reference (max abs error {err:.3g})")
        ev = mod.time_evaluator(mod.entry_name, dev, number=number,
                                repeat=1 if flush else repeat, min_repeat_ms=min_repeat_ms)
        if not flush:
            return list(ev(*args).results)
        # classic's cache_flush_cpu_non_first_arg: every argument but the first (the data, which
        # the previous layer of a network has just written) comes from memory, as a network's
        # weights do; evict everything, then read the data back in
        costs = []
        junk = np.empty(1 << 23, dtype="float64")  # 64 MiB, larger than any last-level cache
        for _ in range(repeat):
            junk += 1.0
            if dev_type == "cpu" and args and hasattr(args[0], "numpy"):
                args[0].numpy()
            costs.extend(ev(*args).results)
        return costs
    except WorkerError:
        raise
    except Exception as e:  # noqa: BLE001
        raise WorkerError(RUNTIME_DEVICE, _short_tb(e)) from None


def _serve(inp: Connection, out: Connection) -> None:
    handlers: Dict[str, Callable] = {"build": do_build, "features": do_features,
                                     "reference": do_build_reference, "run": do_run}
    out.send(("ready", os.getpid()))
    while True:
        try:
            msg = inp.recv()
        except EOFError:
            return
        kind = msg[0]
        if kind == "exit":
            return
        if kind == "task":
            import pickle


            _TASKS[msg[1]] = pickle.loads(msg[2])
            continue
        try:
            out.send(("ok", handlers[kind](*msg[1:])))
        except WorkerError as e:
            out.send(("err", e.error_no, str(e)))
        except Exception as e:  # noqa: BLE001
            out.send(("err", UNKNOWN_ERROR, _short_tb(e)))


def main() -> None:
    # the private channel: duplicated stdin/stdout; fds 0 and 1 become /dev/null and stderr,
    # so whatever a template prints cannot corrupt the channel
    inp = Connection(os.dup(0), writable=False)
    out = Connection(os.dup(1), readable=False)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(2, 1)
    init = inp.recv()
    _, path, alias = init
    for p in reversed(path):
        if p not in sys.path:
            sys.path.insert(0, p)
    if alias:
        install()
    _serve(inp, out)


# ------------------------------------------------------------------------- the parent side
def _package_root() -> str:
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Worker:
    """One worker process and its pipe."""

    def __init__(self):
        env = dict(os.environ)
        root = _package_root()
        env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH")
                                    else "")
        env.setdefault("OMP_NUM_THREADS", str(os.cpu_count() or 1))
        self.proc = subprocess.Popen([sys.executable, "-m", "tvmlite.autotvm._worker_main"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env,
                                     close_fds=True, start_new_session=True)
        self.send_conn = Connection(os.dup(self.proc.stdin.fileno()), readable=False)
        self.recv_conn = Connection(os.dup(self.proc.stdout.fileno()), writable=False)
        self.proc.stdin.close()
        self.proc.stdout.close()
        self.send_conn.send(("init", list(sys.path), _FINDER in sys.meta_path))
        self.ready = False
        self.tasks: set = set()

    def wait_ready(self, timeout: float = 120.0) -> None:
        if self.ready:
            return
        if not self.recv_conn.poll(timeout):
            raise RuntimeError("an AutoTVM worker process did not start")
        msg = self.recv_conn.recv()
        if msg[0] != "ready":
            raise RuntimeError(f"unexpected message from an AutoTVM worker: {msg!r}")
        self.ready = True

    def alive(self) -> bool:
        return self.proc.poll() is None

    def death_message(self) -> str:
        try:
            rc = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            return "the worker stopped answering"
        if rc < 0:
            try:
                name = signal.Signals(-rc).name
            except ValueError:
                name = str(-rc)
            return f"the worker process died with signal {name}"
        return f"the worker process exited with code {rc}"

    def kill(self) -> None:
        # the whole process group: a C compiler the worker started dies with it (a config
        # that times out in gcc must not keep compiling, and using the CPU, after the deadline)
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        for c in (self.send_conn, self.recv_conn):
            try:
                c.close()
            except OSError:
                pass

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.send_conn.send(("exit",))
                self.proc.wait(timeout=2)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.kill()


class WorkerPool:
    """``n`` workers; :meth:`map` runs requests on them, each under its own deadline."""

    def __init__(self, n: int):
        self.n = max(1, int(n))
        self.workers: List[Worker] = [Worker() for _ in range(self.n)]
        self.restarts = 0

    def _replace(self, i: int) -> None:
        self.workers[i].kill()
        self.workers[i] = Worker()
        self.restarts += 1

    def map(self, requests: Sequence[Tuple], timeout: float,
            tasks: Optional[Dict[Any, bytes]] = None) -> List[Tuple]:
        """Run ``requests`` (tuples ``(kind, task_key_or_arg, ...)``); each answer is
        ``("ok", value)`` or ``("err", error_no, message)``, in request order."""
        tasks = tasks or {}
        results: List[Optional[Tuple]] = [None] * len(requests)
        todo = list(range(len(requests)))[::-1]
        busy: Dict[int, Tuple[int, float]] = {}  # worker slot -> (request, deadline)
        while todo or busy:
            for slot in range(self.n):
                if slot in busy or not todo:
                    continue
                w = self.workers[slot]
                w.wait_ready()
                r = todo.pop()
                req = requests[r]
                try:
                    for key, blob in tasks.items():
                        if key not in w.tasks:
                            w.send_conn.send(("task", key, blob))
                            w.tasks.add(key)
                    w.send_conn.send(req)
                except (BrokenPipeError, OSError):
                    self._replace(slot)
                    todo.append(r)
                    continue
                busy[slot] = (r, time.monotonic() + timeout)
            if not busy:
                continue
            now = time.monotonic()
            wait_s = max(0.0, min(d for _, d in busy.values()) - now)
            conns = {self.workers[s].recv_conn: s for s in busy}
            ready = wait(list(conns), timeout=wait_s)
            for c in ready:
                slot = conns[c]
                r, _ = busy.pop(slot)
                try:
                    results[r] = c.recv()
                except (EOFError, OSError):
                    msg = self.workers[slot].death_message()
                    results[r] = ("err", None, msg)
                    self._replace(slot)
            now = time.monotonic()
            for slot, (r, deadline) in list(busy.items()):
                if now >= deadline:
                    busy.pop(slot)
                    results[r] = ("timeout", timeout)
                    self._replace(slot)
        return results  # type: ignore[return-value]

    def close(self) -> None:
        for w in self.workers:
            w.close()


_POOLS: Dict[Tuple[str, int], WorkerPool] = {}


def get_pool(kind: str, n: int) -> WorkerPool:
    """A pool kept for the life of the process (workers start once)."""
    key = (kind, n)
    pool = _POOLS.get(key)
    if pool is None:
        pool = _POOLS[key] = WorkerPool(n)
    return pool


@atexit.register
def shutdown_pools() -> None:
    """Stop every worker this process started."""
    for pool in _POOLS.values():
        pool.close()
    _POOLS.clear()

