"""Where ``LocalBuilder`` compiles candidates when one machine is not enough.

By default a builder compiles in its own pool of worker processes (:mod:`.worker`). Given an
``executor`` — a ``dask.distributed.Client`` (a ``LocalCluster`` in tests, a scheduler address
in use) or any ``concurrent.futures``-style object with ``submit`` — each candidate becomes one
task: :func:`build_remote` runs on the executor's worker, compiles the config in *that*
machine's tvmlite worker pool (so a crashing or hanging template is isolated and timed out
there, exactly as locally), and sends the compiled library back as bytes. The scheduling of
those tasks is the executor's (Dask's), not ours.
"""
from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import tempfile
import threading
import time
from typing import Any, List, Optional, Sequence, Tuple

from ..error import TVMError
from . import worker as _w

UNKNOWN_ERROR = _w.UNKNOWN_ERROR


def build_remote(task_blob: bytes, digest: str, index: int, want_features: bool,
                 timeout: float) -> Tuple:
    """Compile config ``index`` of the pickled task on this (executor) worker.

    Returns ``("ok", {"so": bytes, "specs", "features", "time"})`` or the worker pool's
    ``("err", error_no, message)`` / ``("timeout", seconds)``.
    """
    # one pool per executor thread: a Dask worker runs several tasks at once in threads
    pool = _w.get_pool(f"build-{threading.get_ident()}", 1)
    ans = pool.map([("build", digest, index, want_features)], timeout, {digest: task_blob})[0]
    if ans[0] != "ok":
        return ans
    v = ans[1]
    with open(v["path"], "rb") as fh:
        data = fh.read()
    return ("ok", {"so": data, "specs": v["specs"], "features": v["features"],
                   "time": v["time"]})


def check_executor(executor: Any) -> Any:
    """``executor`` itself when it can run builds (has ``submit``), else a ``TVMError``."""
    if executor is None or executor == "local":
        return None
    if not callable(getattr(executor, "submit", None)):
        raise TVMError(f"LocalBuilder: executor must be a dask.distributed.Client or an object "
                       f"with submit() (concurrent.futures), got {type(executor).__name__}")
    return executor


class ExecutorBuilds:
    """Builds of one task through an executor; libraries land in a private temp folder."""

    def __init__(self, executor: Any):
        self.executor = executor
        self.is_dask = callable(getattr(executor, "scatter", None))
        self._dir: Optional[str] = None
        self._blob_ref: Any = None
        self._digest: Optional[str] = None

    def set_task(self, blob: bytes) -> None:
        self._digest = "task-" + hashlib.sha256(blob).hexdigest()[:32]
        # Dask: ship the task to the workers once, not with every candidate
        self._blob_ref = self.executor.scatter(blob, broadcast=True) if self.is_dask else blob

    def _folder(self) -> str:
        if self._dir is None:
            self._dir = tempfile.mkdtemp(prefix="tvmlite-builds-")
            atexit.register(shutil.rmtree, self._dir, True)
        return self._dir

    def map(self, indices: Sequence[int], want_features: bool, timeout: float) -> List[Tuple]:
        """One answer per config index, in the order given (the worker pool's answer format,
        with ``path`` a local copy of the library)."""
        if self._digest is None:
            raise TVMError("LocalBuilder: set_task() must come before build()")
        kw = {"pure": False} if self.is_dask else {}
        futures = []
        for idx in indices:
            try:
                futures.append(self.executor.submit(build_remote, self._blob_ref, self._digest,
                                                    int(idx), bool(want_features),
                                                    float(timeout), **kw))
            except Exception as e:  # noqa: BLE001  (a closed or broken executor)
                futures.append(e)
        # a generous deadline for the whole batch: queued tasks wait for a free worker
        deadline = time.monotonic() + timeout * max(1, len(indices)) + 60.0
        out = []
        for idx, fut in zip(indices, futures):
            out.append(self._answer(idx, fut, deadline))
        return out

    def _answer(self, idx: int, fut: Any, deadline: float) -> Tuple:
        if isinstance(fut, Exception):
            return ("err", UNKNOWN_ERROR, f"the executor refused the build: "
                                          f"{type(fut).__name__}: {fut}")
        try:
            ans = fut.result(timeout=max(0.0, deadline - time.monotonic()))
        except Exception as e:  # noqa: BLE001  (a dead executor worker, a lost connection)
            if self.is_dask:
                fut.cancel()
            return ("err", UNKNOWN_ERROR, f"the build executor failed: "
                                          f"{type(e).__name__}: {e}")
        if not (isinstance(ans, tuple) and ans and ans[0] in ("ok", "err", "timeout")):
            return ("err", UNKNOWN_ERROR, f"malformed answer from the build executor: "
                                          f"{ans!r:.200}")
        if ans[0] != "ok":
            return ans
        v = dict(ans[1])
        path = os.path.join(self._folder(), f"cand{idx}-{os.urandom(6).hex()}.so")
        with open(path, "wb") as fh:
            fh.write(v.pop("so"))
        v["path"] = path
        return ("ok", v)
