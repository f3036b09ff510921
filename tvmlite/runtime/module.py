"""Compiled modules: a shared library of generated C functions loaded with ctypes.

Everything the runtime needs (function names and argument kinds, the entry function, the
compiler flags) is embedded in the library as the JSON string ``__tvmlite_metadata``, so a
module loaded back from disk behaves exactly like the one ``build`` returned; the argument
checks themselves are generated C and travel with the library.
"""
from __future__ import annotations

import ctypes
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from functools import lru_cache
from typing import Any, Callable, Dict, List, Optional, Sequence

from ..contrib import cc
from ..contrib import tar as _tar
from ..contrib.cc import build_shared_cached
from ..contrib.elf import (
    add_sections,
    cached_library_ok,
    read_section,
    seal,
    unseal,
    validate_elf,
)
from ..contrib.utils import atomic_write
from ..error import CompileError, TVMError
from ..ir import dtype as _dt
from .ndarray import NDArray
from .packed_func import CALLBACK_ADDRESS, PackedFunc, take_pending_error
from .threading import configure_library

ENTRY_NAME = "__tvm_main__"
_KIND_CODE = {"tensor": _dt.ARG_DLTENSOR, "int": _dt.ARG_INT, "float": _dt.ARG_FLOAT}
_ARGV = ctypes.POINTER(ctypes.c_void_p)
_CODES = ctypes.POINTER(ctypes.c_int32)


def _type_name(x: Any) -> str:
    t = type(x)
    return t.__qualname__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


class CompiledFunc(PackedFunc):
    """A function of a compiled module; calling it checks and passes the arguments."""

    __slots__ = ("module", "_cfn", "_n", "_kinds", "_argnames", "_args", "_codes",
                 "_scalars", "_lock", "_is_tensor")

    def __init__(self, module: "Module", name: str, cfn, signature: dict):
        super().__init__(self._call, name)
        self.module = module
        self._cfn = cfn
        params = signature["args"]
        self._n = len(params)
        self._kinds = tuple(p["kind"] for p in params)
        self._is_tensor = tuple(k == "tensor" for k in self._kinds)
        self._argnames = tuple(p["name"] for p in params)
        self._args, self._codes, self._scalars = self._make_arrays()
        self._lock = threading.Lock()

    @property
    def entry_name(self) -> str:
        return self.name

    def _make_arrays(self):
        n = self._n
        args = (ctypes.c_void_p * max(n, 1))()
        codes = (ctypes.c_int32 * max(n, 1))(*[_KIND_CODE[k] for k in self._kinds])
        scalars: List[Any] = [None] * n
        for i, k in enumerate(self._kinds):
            if k != "tensor":
                scalars[i] = ctypes.c_int64() if k == "int" else ctypes.c_double()
                args[i] = ctypes.addressof(scalars[i])
        return args, codes, scalars

    def __call__(self, *args):
        if len(args) != self._n or not self._lock.acquire(False):
            return self._call(*args)
        try:
            a = self._args
            i = 0
            for x, tensor in zip(args, self._is_tensor):
                if tensor:
                    try:
                        a[i] = x._dlptr
                    except AttributeError:
                        raise self._type_error(i, x) from None
                else:
                    self._set_scalar(self._scalars, i, x)
                i += 1
            rc = self._cfn(a, self._codes, self._n)
        finally:
            self._lock.release()
        if rc != 0:
            self._raise()

    def _call(self, *args):
        """Call with private argument arrays (contended calls, wrong argument counts)."""
        a, codes, keep = self.pack(args)
        rc = self._cfn(a, codes, len(args))
        if rc != 0:
            self._raise()

    def pack(self, args: Sequence):
        """Argument arrays for ``args``: (args, type codes, objects to keep alive)."""
        n = len(args)
        a = (ctypes.c_void_p * max(n, 1))()
        codes = (ctypes.c_int32 * max(n, 1))()
        keep: List[Any] = []
        for i, x in enumerate(args):
            if n != self._n:  # the generated C reports the count mismatch
                if isinstance(x, NDArray):
                    a[i], codes[i] = x._dlptr, _dt.ARG_DLTENSOR
                elif isinstance(x, (int, float)):
                    box = ctypes.c_double(x) if isinstance(x, float) else ctypes.c_int64(x)
                    a[i] = ctypes.addressof(box)
                    codes[i] = _dt.ARG_FLOAT if isinstance(x, float) else _dt.ARG_INT
                else:
                    a[i], codes[i] = None, _dt.ARG_NULL
                keep.append(x if isinstance(x, NDArray) else a[i])
                if isinstance(x, (int, float)):
                    keep.append(box)
                continue
            kind = self._kinds[i]
            if kind == "tensor":
                if not isinstance(x, NDArray):
                    raise self._type_error(i, x)
                a[i], codes[i] = x._dlptr, _dt.ARG_DLTENSOR
                keep.append(x)
                continue
            box = [ctypes.c_int64() if kind == "int" else ctypes.c_double()]
            self._set_scalar(box, 0, x, i)
            a[i], codes[i] = ctypes.addressof(box[0]), _KIND_CODE[kind]
            keep.append(box[0])
        return a, codes, keep

    def _set_scalar(self, store, j: int, x, i: Optional[int] = None) -> None:
        i = j if i is None else i
        box = store[j]
        if isinstance(box, ctypes.c_int64):
            if isinstance(x, bool) or not hasattr(x, "__index__"):
                if not isinstance(x, bool):
                    raise TVMError(f"{self.name}: argument {i} ({self._argnames[i]}) must be an "
                                   f"int, got {_type_name(x)}")
            box.value = int(x)
        else:
            if not isinstance(x, (int, float)) and not hasattr(x, "__float__"):
                raise TVMError(f"{self.name}: argument {i} ({self._argnames[i]}) must be a "
                               f"float, got {_type_name(x)}")
            if isinstance(x, (NDArray, str)):
                raise TVMError(f"{self.name}: argument {i} ({self._argnames[i]}) must be a "
                               f"float, got {_type_name(x)}")
            box.value = float(x)

    def _type_error(self, i: int, x) -> TVMError:
        want = {"tensor": "a tvm.nd.NDArray", "int": "an int", "float": "a float"}[self._kinds[i]]
        return TVMError(f"{self.name}: argument {i} ({self._argnames[i]}) must be {want}, got "
                        f"{_type_name(x)}")

    def _raise(self):
        pending = take_pending_error()
        msg = self.module._last_error()
        if pending is not None:
            raise TVMError(f"{msg}: {type(pending).__name__}: {pending}") from pending
        raise TVMError(msg)

    def __repr__(self) -> str:
        return f"<compiled function {self.name}>"


class BenchmarkResult:
    """Timing of ``repeat`` measurements, each the mean over ``number`` runs (seconds)."""

    def __init__(self, results: Sequence[float]):
        self.results = tuple(results)
        self.mean = statistics.fmean(self.results)
        self.median = statistics.median(self.results)
        self.std = statistics.pstdev(self.results) if len(self.results) > 1 else 0.0
        self.min = min(self.results)
        self.max = max(self.results)

    def __repr__(self) -> str:
        return (f"BenchmarkResult(min={self.min:.6g}, mean={self.mean:.6g}, "
                f"median={self.median:.6g}, max={self.max:.6g}, std={self.std:.6g}, "
                f"results={list(self.results)!r})")

    def __str__(self) -> str:
        ms = [x * 1e3 for x in (self.mean, self.median, self.max, self.min, self.std)]
        return ("Execution time summary:\n"
                " mean (ms)   median (ms)    max (ms)     min (ms)     std (ms)  \n"
                + "".join(f"  {v:10.4f}  " for v in ms))


_TIMER_SOURCE = r"""
#include <stdint.h>
#include <time.h>
typedef int32_t (*tvml_fn)(void**, int32_t*, int32_t);
static double tvml_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
int32_t tvmlite_time(void* f, void** args, int32_t* codes, int32_t n, int64_t number,
                     int32_t repeat, double min_repeat_ms, double* results) {
  tvml_fn fn = (tvml_fn)f;
  if (fn(args, codes, n) != 0) return -1;
  int64_t num = number > 0 ? number : 1;
  for (int32_t r = 0; r < repeat; ++r) {
    double elapsed;
    for (;;) {
      double t0 = tvml_now();
      for (int64_t i = 0; i < num; ++i)
        if (fn(args, codes, n) != 0) return -1;
      elapsed = tvml_now() - t0;
      if (min_repeat_ms <= 0 || elapsed * 1e3 >= min_repeat_ms) break;
      double per = elapsed / (double)num;
      int64_t want = per > 0 ? (int64_t)(min_repeat_ms * 1e-3 / per) + 1 : num * 2;
      int64_t grow = (int64_t)((double)num * 1.618) + 1;
      num = want > grow ? want : grow;
    }
    results[r] = elapsed / (double)num;
  }
  return 0;
}
"""


@lru_cache(maxsize=None)
def _timer():
    lib = ctypes.CDLL(build_shared_cached(_TIMER_SOURCE, ["-O2", "-fPIC", "-shared"]))
    fn = lib.tvmlite_time
    fn.argtypes = [ctypes.c_void_p, _ARGV, _CODES, ctypes.c_int32, ctypes.c_int64,
                   ctypes.c_int32, ctypes.c_double, ctypes.POINTER(ctypes.c_double)]
    fn.restype = ctypes.c_int32
    return lib, fn


#: ELF section → f(module, name): the function ``name`` a package above the runtime gives a
#: library carrying that section (a network exported by ``relay.build``'s factory), or None
SECTION_FUNCTIONS: Dict[str, Callable[["Module", str], Any]] = {}


class FunctionNotFoundError(TVMError, AttributeError):
    """``mod[name]`` of a function the module does not hold (an AttributeError, as in TVM)."""


class Module:
    """A compiled module (``tvm.runtime.Module``): call it, index it, save and export it."""

    def __init__(self, lib_path: str, source: Optional[str] = None,
                 objects: Optional[Dict[str, bytes]] = None):
        # Internal: use tvm.build or tvm.runtime.load_module.
        self._path = lib_path
        self._source = source
        self._objects = objects  # {name: bytes} when loaded from an archive of objects
        try:
            self._lib = ctypes.CDLL(lib_path, mode=os.RTLD_NOW | os.RTLD_LOCAL)
        except OSError as e:
            raise TVMError(f"cannot load the library {lib_path}: {e}") from None
        try:
            meta = ctypes.c_char.in_dll(self._lib, "__tvmlite_metadata")
        except ValueError:
            raise TVMError(f"{lib_path} is not a tvmlite library (no __tvmlite_metadata)") \
                from None
        self._meta = json.loads(ctypes.string_at(ctypes.addressof(meta)).decode())
        self._get_err = self._lib["__tvmlite_get_last_error"]
        self._get_err.restype = ctypes.c_char_p
        self._get_err.argtypes = []
        cb = ctypes.c_void_p.in_dll(self._lib, "__tvmlite_packed_cb")
        cb.value = CALLBACK_ADDRESS

        configure_library(self._lib)
        self._funcs: Dict[str, CompiledFunc] = {}
        self._sections: Dict[str, Optional[bytes]] = {}
        self.imported_modules: List["Module"] = []
        if "cuda" in self._meta:  # host code of a CUDA build: its kernels' PTX rides along
            from .cuda_module import attach_cuda

            attach_cuda(self, self._meta["cuda"])

    # ------------------------------------------------------------------ properties
    @property
    def type_key(self) -> str:
        return self._meta.get("type_key", "llvm")

    @property
    def entry_name(self) -> str:
        return ENTRY_NAME

    @property
    def function_names(self) -> List[str]:
        return list(self._meta["functions"])

    @property
    def target(self) -> str:
        return self._meta.get("target", "llvm")

    @property
    def library_path(self) -> str:
        return self._path

    def _last_error(self) -> str:
        return (self._get_err() or b"").decode(errors="replace") or "unknown error"

    # ------------------------------------------------------------------ functions
    def _entry(self) -> str:
        entry = self._meta.get("entry")
        if entry is None:
            raise TVMError("the module has no entry function (it holds "
                           f"{self.function_names}); call mod[name] instead")
        return entry

    def get_function(self, name: str, query_imports: bool = False) -> CompiledFunc:
        """The function ``name`` (``mod.entry_name`` gives the entry function)."""
        if name == ENTRY_NAME:
            name = self._entry()
        f = self._funcs.get(name)
        if f is None:
            sig = self._meta["functions"].get(name)
            for section, provide in SECTION_FUNCTIONS.items():
                extra = provide(self, name) if sig is None and self.read_section(section) \
                    is not None else None
                if extra is not None:
                    return extra
            if sig is None:
                raise FunctionNotFoundError(f"Module has no function '{name}' (it has "
                                     f"{self.function_names})")
            # a kernel named after a C library function has a symbol of its own
            cfn = getattr(self._lib, sig.get("c_symbol", name))
            cfn.argtypes = [_ARGV, _CODES, ctypes.c_int32]
            cfn.restype = ctypes.c_int32
            f = self._funcs[name] = CompiledFunc(self, name, cfn, sig)
        return f

    def read_section(self, name: str) -> Optional[bytes]:
        """The bytes of ELF section ``name`` of the library (None when it has none)."""
        if name not in self._sections:
            with open(self._path, "rb") as fh:
                self._sections[name] = read_section(fh.read(), name)
        return self._sections[name]

    def __getitem__(self, name: str) -> CompiledFunc:
        if not isinstance(name, str):
            raise ValueError("Can only take string as function name")
        return self.get_function(name)

    def implements_function(self, name: str, query_imports: bool = False) -> bool:
        return name in self._meta["functions"] or (name == ENTRY_NAME and "entry" in self._meta)

    def __call__(self, *args):
        return self.get_function(self._entry())(*args)

    def __repr__(self) -> str:
        return f"Module(llvm, {id(self):x})" if self.type_key == "llvm" else \
            f"Module({self.type_key}, {id(self):x})"

    # ------------------------------------------------------------------ source, files
    def get_source(self, fmt: str = "") -> str:
        """The generated C source ("" for a module loaded from a library); ``"asm"`` (or
        ``"s"``): the assembly the C compiler makes of it under the module's flags."""
        if fmt in ("asm", "s") and self._source:
            # as classic links import_llvm code into the module, the C sources attached with
            # the import_c pragma are part of its assembly
            return "".join(cc.create_assembly(src, self._flags())
                           for src in [self._source] + self._imported_c())
        return self._source or ""

    def _imported_c(self) -> List[str]:
        """The C sources the module's kernels import (``import_c`` pragma)."""
        return list(self._meta.get("imported_c", ()))

    def _flags(self) -> List[str]:
        return list(self._meta.get("cflags", ["-O3", "-fPIC"]))

    def _object_files(self, directory: str) -> List[str]:
        if self._source is not None:
            path = os.path.join(directory, "lib0.o")
            cc.create_object(path, self._source, self._flags())
            paths = [path]
            for k, src in enumerate(self._imported_c()):
                paths.append(os.path.join(directory, f"lib0_import{k}.o"))
                cc.create_object(paths[-1], src, self._flags())
            return paths
        if self._objects:
            paths = []
            for name, data in self._objects.items():
                p = os.path.join(directory, name)
                with open(p, "wb") as fh:
                    fh.write(data)
                paths.append(p)
            return paths
        p = os.path.join(directory, "lib0.so")
        shutil.copyfile(self._path, p)
        return [p]

    def _sealed_object_files(self, directory: str, sections=None) -> List[str]:
        paths = self._object_files(directory)
        for k, p in enumerate(paths):
            with open(p, "rb") as fh:
                data = fh.read()
            if sections and k == 0:
                data = add_sections(data, sections)
            with open(p, "wb") as fh:
                fh.write(seal(data))
        return paths

    def save(self, file_name: str, fmt: str = "") -> None:
        """Save the C source (``.c``) or an object file (``.o``)."""
        fmt = fmt or os.path.splitext(file_name)[1].lstrip(".")
        if fmt in ("c", "cc", "source"):
            if self._source is None:
                raise TVMError("this module was loaded from a library and has no C source")
            atomic_write(file_name, self._source.encode())
        elif fmt == "o":
            if self._source is None:
                raise TVMError("this module was loaded from a library; save(.o) needs its "
                               "C source")
            d = tempfile.mkdtemp(dir=os.path.dirname(os.path.abspath(file_name)))
            try:
                tmp = os.path.join(d, "lib.o")
                cc.create_object(tmp, self._source, self._flags())
                with open(tmp, "rb") as fh:
                    atomic_write(file_name, seal(fh.read()))
            finally:
                shutil.rmtree(d, ignore_errors=True)
        else:
            raise TVMError(f"Module.save: unsupported format {fmt!r} (use .c or .o; "
                           f"export_library for .so and .tar)")

    def export_library(self, file_name: str, fcompile: Optional[Callable] = None,
                       addons=None, workspace_dir: Optional[str] = None,
                       sections: Optional[Dict[str, bytes]] = None, **kwargs) -> None:
        """Export as a shared library (``.so``) or a tar archive of object files (``.tar``);
        ``sections`` ({ELF section name: bytes}) ride along in the file."""
        file_name = os.fspath(file_name)
        use_tar = file_name.endswith(".tar") or getattr(fcompile, "output_format", "") == "tar"
        if use_tar:
            d = tempfile.mkdtemp()
            try:
                _tar.tar(file_name, self._sealed_object_files(d, sections))
            finally:
                shutil.rmtree(d, ignore_errors=True)
            return
        if not file_name.endswith((".so", ".dylib", ".dll")) and fcompile is None:
            raise TVMError(f"export_library: unsupported file type {file_name!r} (use .so or "
                           f".tar)")
        # a new file (new inode) replaces any old one, so a process that has the old library
        # loaded keeps working and a later load sees the new one
        with open(self._path, "rb") as fh:
            data = fh.read()
        atomic_write(file_name, seal(add_sections(data, sections) if sections else data))

    # ------------------------------------------------------------------ timing
    def time_evaluator(self, func_name: str, dev=None, number: int = 10, repeat: int = 1,
                       min_repeat_ms: float = 0, limit_zero_time_iterations: int = 100,
                       cooldown_interval_ms: int = 0, repeats_to_cooldown: int = 1,
                       f_preproc: str = "", ctx=None) -> Callable[..., BenchmarkResult]:
        """A function that times ``func_name`` in native code and returns a BenchmarkResult.

        Each of ``repeat`` measurements runs the function ``number`` times (after one warm-up
        run); when ``min_repeat_ms`` is set, ``number`` grows until a measurement lasts that
        long, as in TVM.
        """
        f = self.get_function(func_name)
        if number < 1 or repeat < 1:
            raise ValueError("time_evaluator: number and repeat must be positive")
        if f_preproc:
            raise TVMError(f"time_evaluator: f_preproc {f_preproc!r} is not supported")
        dev = dev if dev is not None else ctx
        if not isinstance(f, CompiledFunc):  # a function of an executor (graph, VM)
            return _python_time_evaluator(f, int(number), int(repeat), float(min_repeat_ms))
        if "cuda" in self._meta and getattr(dev, "device_type", 1) == 2:
            from .cuda_module import time_evaluator as cuda_time_evaluator

            return cuda_time_evaluator(f, dev, number, repeat, min_repeat_ms)

        def evaluator(*args) -> BenchmarkResult:
            _, timer = _timer()
            a, codes, keep = f.pack(args)
            results = (ctypes.c_double * repeat)()
            fptr = ctypes.cast(f._cfn, ctypes.c_void_p).value
            rc = timer(fptr, a, codes, len(args), int(number), int(repeat),
                       float(min_repeat_ms), results)
            if rc != 0:
                f._raise()
            return BenchmarkResult(list(results))

        return evaluator


class ExecutorModule(Module):
    """An executor as a runtime module (classic ``GraphModule.module``,
    ``VirtualMachine.module``): its functions by name (``run``, ``invoke`` ...), so that
    ``time_evaluator`` times them. It holds no library: it cannot be saved or exported."""

    def __init__(self, functions: Callable[[str], Callable], type_key: str):  # noqa: D107
        self._meta = {"functions": {}, "type_key": type_key}
        self._functions = functions
        self._funcs, self._sections = {}, {}
        self.imported_modules: List[Module] = []

    def get_function(self, name: str, query_imports: bool = False):
        return self._functions(name)

    def implements_function(self, name: str, query_imports: bool = False) -> bool:
        try:
            self._functions(name)
        except TVMError:
            return False
        return True

    def read_section(self, name: str) -> Optional[bytes]:
        return None

    def save(self, file_name: str, fmt: str = "") -> None:
        raise TVMError(f"{self.type_key} module: an executor cannot be saved (export the "
                       "library it runs)")

    def export_library(self, file_name: str, *args, **kwargs) -> None:
        raise TVMError(f"{self.type_key} module: an executor cannot be exported (export the "
                       "library it runs)")

    def __repr__(self) -> str:
        return f"Module({self.type_key}, {id(self):x})"


def _python_time_evaluator(f: Callable, number: int, repeat: int,
                           min_repeat_ms: float) -> Callable[..., BenchmarkResult]:
    """``time_evaluator`` of a function that is not one native kernel: timed from Python,
    with the same warm-up run and ``min_repeat_ms`` growth of ``number``."""
    def evaluator(*args) -> BenchmarkResult:
        f(*args)
        n, results = number, []
        for _ in range(repeat):
            while True:
                t0 = time.perf_counter()
                for _ in range(n):
                    f(*args)
                dt = time.perf_counter() - t0
                if dt * 1e3 >= min_repeat_ms or min_repeat_ms <= 0:
                    break
                n = max(n + 1, int(n * min(1e3 * min_repeat_ms / max(dt * 1e3, 1e-3), 10)))
            results.append(dt / n)
        return BenchmarkResult(results)

    return evaluator


def _link_cached(objects: Dict[str, bytes]) -> str:
    """Link object files into a shared library in the build cache (keyed by their bytes)."""
    h = hashlib.sha256()
    for name in sorted(objects):
        h.update(name.encode() + b"\0" + objects[name])
    h.update(cc.compiler_identity().encode())
    out = cc.cache_dir() / f"link-{h.hexdigest()[:32]}.so"
    if out.exists() and cached_library_ok(out):
        return str(out)
    d = tempfile.mkdtemp(dir=cc.cache_dir())
    try:
        paths = []
        for name, data in objects.items():
            p = os.path.join(d, name)
            with open(p, "wb") as fh:
                fh.write(data)
            paths.append(p)
        tmp = os.path.join(d, "out.so")
        cc.create_shared(tmp, paths)
        os.replace(tmp, out)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    return str(out)


def _content_addressed(data: bytes) -> str:
    """A copy of a library in the cache, named by its content.

    dlopen returns an already-loaded library when the path matches, so a library replaced at
    the same path must be loaded under a new name to be seen at all.
    """
    out = cc.cache_dir() / f"lib-{hashlib.sha256(data).hexdigest()[:32]}.so"
    if not (out.exists() and out.stat().st_size == len(data)):
        atomic_write(str(out), data)
    return str(out)


def _probe_load(lib: str, path: str) -> str:
    """dlopen ``lib`` (a copy of ``path``) in a child process first: headers can be valid
    while the dynamic section is garbage, and then the loader itself crashes."""
    r = subprocess.run([sys.executable, "-I", "-S", "-c",
                        "import ctypes, sys; ctypes.CDLL(sys.argv[1])", lib],
                       capture_output=True, timeout=120)
    if r.returncode < 0:
        raise TVMError(f"load_module: cannot load {path}: not a valid shared library: "
                       f"loading it kills the process (signal {-r.returncode})")
    if r.returncode:
        err = r.stderr.decode(errors="replace").strip().splitlines()
        why = err[-1].replace(lib, "").strip(": ") if err else f"exit status {r.returncode}"
        raise TVMError(f"load_module: cannot load {path}: not a valid shared library: {why}")
    return lib


def _load_shared(raw: bytes, path: str) -> Module:
    """Validate and load a shared library's bytes. One whose SHA-256 trailer matches is what
    ``export_library`` wrote, so it loads directly; any other is first dlopened in a child
    process (~50 ms), so that a loader crash costs a TVMError, not the caller's process."""
    data = unseal(raw, path)
    validate_elf(data, path, "shared library")
    lib = _content_addressed(data)
    return Module(lib if len(data) != len(raw) else _probe_load(lib, path))


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError as e:
        raise TVMError(f"load_module: cannot read {path}: {e}") from None


def _link_objects(objects: Dict[str, bytes], path: str) -> str:
    try:
        return _link_cached(objects)
    except CompileError as e:
        lines = [ln for ln in str(e).splitlines() if "error" in ln.lower()]
        why = lines[0].strip() if lines else "the linker failed"
        raise TVMError(f"load_module: cannot load {path}: its object files do not link into a "
                       f"library: {why}") from None


def _untar_checked(path: str, directory: str) -> None:
    try:
        _tar.untar(path, directory)
    except (tarfile.TarError, EOFError, OSError) as e:
        raise TVMError(f"load_module: cannot load {path}: not a valid tar archive: {e}") from None


#: file magic → loader, for modules of packages above the runtime (``tvmlite.vta``)
FILE_LOADERS: Dict[bytes, Any] = {}


def load_module(path: str, fmt: str = "") -> Module:
    """Load a module exported as ``.so``, ``.tar`` or ``.o`` (``tvm.runtime.load_module``).

    The file is validated first (ELF headers and sizes, tar members): a truncated, zero-filled
    or garbage file is a :class:`TVMError` naming it.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"load_module: path must be a str or os.PathLike, got "
                        f"{type(path).__name__}")
    path = os.fspath(path)
    if not os.path.exists(path):
        raise TVMError(f"load_module: file {path!r} does not exist")
    if not os.path.isfile(path):
        raise TVMError(f"load_module: {path!r} is not a regular file")
    fmt = fmt or os.path.splitext(path)[1].lstrip(".")
    with open(path, "rb") as fh:
        head = fh.read(64)
    for magic, loader in FILE_LOADERS.items():  # e.g. VTA programs (registered by tvmlite.vta)
        if head.startswith(magic):
            return loader(path)
    if fmt in ("so", "dylib", "dll"):
        return _load_shared(_read(path), path)
    if fmt == "o":
        objects = {"lib0.o": unseal(_read(path), path)}
        validate_elf(objects["lib0.o"], path, "object file")
        return Module(_link_objects(objects, path), objects=objects)
    if fmt == "tar":
        d = tempfile.mkdtemp()
        try:
            _untar_checked(path, d)
            names = sorted(os.listdir(d))
            libs = [n for n in names if n.endswith(".so")]
            if libs:
                return _load_shared(_read(os.path.join(d, libs[0])), f"{path}:{libs[0]}")
            objects = {}
            for n in names:
                if n.endswith(".o"):
                    objects[n] = unseal(_read(os.path.join(d, n)), f"{path}:{n}")
                    validate_elf(objects[n], f"{path}:{n}", "object file")
            if not objects:
                raise TVMError(f"load_module: cannot load {path}: it holds no object files "
                               "or library")
            return Module(_link_objects(objects, path), objects=objects)
        finally:
            shutil.rmtree(d, ignore_errors=True)
    raise TVMError(f"load_module: unsupported file type {path!r} (expected .so, .tar or .o)")
