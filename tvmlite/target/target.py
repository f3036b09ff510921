"""Compilation targets: ``Target("llvm -mcpu=skylake-avx512")``, ``Target("cuda")``."""
from __future__ import annotations

import threading
from typing import Any, Dict, Optional, Union

from ..deep_recursion import register_thread_local
from ..error import TVMError


class TargetParseError(TVMError, ValueError):
    """A target string or dict that cannot be understood (both a TVMError and a ValueError)."""


#: target options classic TVM removed (they describe how relay.build packages the result);
#: ``-link-params`` stays readable: AutoTVM logs of older versions carry ``-link-params=0``
_MOVED_OPTIONS = {k: "relay.backend.Runtime" for k in ("runtime", "system-lib")}
_MOVED_OPTIONS.update({k: "relay.backend.Executor" for k in (
    "executor", "interface-api", "unpacked-api")})


class TargetKind:
    """The kind of a target (``target.kind.name``)."""

    __slots__ = ("name", "device_type", "default_keys")

    def __init__(self, name: str, device_type: int, default_keys: tuple):
        self.name = name
        self.device_type = device_type
        self.default_keys = default_keys

    def __repr__(self) -> str:
        return self.name


_KINDS = {
    "llvm": TargetKind("llvm", 1, ("cpu",)),
    "c": TargetKind("c", 1, ("cpu",)),
    "cuda": TargetKind("cuda", 2, ("cuda", "gpu")),
    "nvptx": TargetKind("nvptx", 2, ("cuda", "gpu")),
    "ext_dev": TargetKind("ext_dev", 12, ("ext_dev",)),
    "opencl": TargetKind("opencl", 4, ("opencl", "gpu")),
}
_ALIASES = {"gpu": "cuda", "cpu": "llvm"}

_STATE = register_thread_local(threading.local())


def _parse_value(v: str) -> Any:
    if "," in v:
        return [x for x in v.split(",") if x]
    return v


def _nvidia(arch: str, shared_kb: int = 48, regs: int = 65536) -> Dict[str, Any]:
    return {"kind": "cuda", "arch": arch, "max_num_threads": 1024, "thread_warp_size": 32,
            "max_shared_memory_per_block": shared_kb * 1024, "registers_per_block": regs}


# classic TVM's "nvidia/…" tags (a selection): the CUDA target of one GPU model
TAGS: Dict[str, Dict[str, Any]] = {
    "nvidia/tesla-t4": _nvidia("sm_75"),
    "nvidia/tesla-v100": _nvidia("sm_70"),
    "nvidia/nvidia-a100": _nvidia("sm_80"),
    "nvidia/nvidia-a10g": _nvidia("sm_86"),
    "nvidia/nvidia-h100": _nvidia("sm_90"),
    "nvidia/nvidia-h200": _nvidia("sm_90"),
    "nvidia/geforce-rtx-2080-ti": _nvidia("sm_75"),
    "nvidia/geforce-rtx-3080": _nvidia("sm_86"),
    "nvidia/geforce-rtx-3090": _nvidia("sm_86"),
    "nvidia/geforce-rtx-4090": _nvidia("sm_89"),
    "nvidia/jetson-agx-orin-64gb": _nvidia("sm_87"),
}


class Target:
    """A compilation target: a kind with attributes, and an optional host target."""

    def __init__(self, target: Union[str, Dict[str, Any], "Target"], host=None):
        if isinstance(target, Target):
            self.kind, self.attrs = target.kind, dict(target.attrs)
            self.host = target.host
            self._keys = target._keys
        elif isinstance(target, dict):
            self._init_dict(dict(target))
        elif isinstance(target, str):
            self._init_str(target)
        else:
            raise TypeError(f"Target expects a string or a dict, got {type(target).__name__}")
        if host is not None:
            self.host = host if isinstance(host, Target) else Target(host)

    def _init_kind(self, name: str) -> None:
        name = _ALIASES.get(name, name)
        if name not in _KINDS:
            raise TargetParseError(f"Target kind {name!r} is not supported by tvmlite (supported: "
                             f"{', '.join(sorted(_KINDS))})")
        self.kind = _KINDS[name]
        self.host = None
        self.attrs: Dict[str, Any] = {}
        self._keys: tuple = ()

    def _init_str(self, s: str) -> None:
        parts = s.split()
        if not parts:
            raise TargetParseError("empty target string")
        if parts[0] in TAGS:  # "nvidia/nvidia-h100 -arch=…": the tag's attributes, then options
            d = dict(TAGS[parts[0]])
            self._init_kind(d.pop("kind"))
            self.attrs.update(d)
            self.attrs["tag"] = parts[0]
        elif "/" in parts[0]:
            raise TargetParseError(f"unknown target tag {parts[0]!r} (known: "
                                   f"{', '.join(sorted(TAGS))})")
        else:
            self._init_kind(parts[0])
        for p in parts[1:]:
            if not p.startswith("-"):
                raise TargetParseError(f"cannot parse target option {p!r} in {s!r}")
            p = p.lstrip("-")
            key, eq, val = p.partition("=")
            if key in _MOVED_OPTIONS:
                raise TargetParseError(f"Cannot recognize '-{p}' in target {s!r}: classic TVM "
                                       f"0.9 moved it to {_MOVED_OPTIONS[key]}")
            if key == "keys":
                self._keys = tuple(_parse_value(val)) if "," in val else (val,)
                continue
            if key == "target":
                key = "mtriple"
            self.attrs[key] = _parse_value(val) if eq else True

    def _init_dict(self, d: Dict[str, Any]) -> None:
        self._init_kind(d.pop("kind"))
        host = d.pop("host", None)
        keys = d.pop("keys", None)
        if keys:
            self._keys = tuple(keys)
        self.attrs.update(d)
        if host is not None:
            self.host = host if isinstance(host, Target) else Target(host)

    # ------------------------------------------------------------------ properties
    @property
    def keys(self) -> tuple:
        extra = ()
        device = self.attrs.get("device")
        if isinstance(device, str) and device not in self.kind.default_keys and (
                self.kind.name in ("llvm", "c", "opencl")):
            extra = (device,)  # classic: "-device=mali" makes "mali" the first key
        return self._keys or extra + self.kind.default_keys

    @property
    def mcpu(self) -> str:
        return self.attrs.get("mcpu", "")

    @property
    def mattr(self) -> list:
        v = self.attrs.get("mattr", [])
        return v if isinstance(v, list) else [v]

    @property
    def model(self) -> str:
        return self.attrs.get("model", "unknown")

    @property
    def libs(self) -> list:
        v = self.attrs.get("libs", [])
        return v if isinstance(v, list) else [v]

    @property
    def device_name(self) -> str:
        return self.attrs.get("device", "")

    @property
    def max_num_threads(self) -> int:
        default = {2: 1024, 4: 256}.get(self.kind.device_type, 1)  # cuda, opencl
        return int(self.attrs.get("max_num_threads", default))

    @property
    def thread_warp_size(self) -> int:
        return int(self.attrs.get("thread_warp_size", 32 if self.kind.device_type == 2 else 1))

    @property
    def arch(self) -> str:
        return self.attrs.get("arch", "")

    # ------------------------------------------------------------------ text, equality
    def __str__(self) -> str:
        out = [self.kind.name]
        if self._keys:
            out.append("-keys=" + ",".join(self._keys))
        for k, v in self.attrs.items():
            if v is True:
                out.append(f"-{k}")
            elif isinstance(v, list):
                out.append(f"-{k}=" + ",".join(str(x) for x in v))
            else:
                out.append(f"-{k}={v}")
        return " ".join(out)

    def __repr__(self) -> str:
        return str(self)

    def __eq__(self, other) -> bool:
        if isinstance(other, str):
            try:
                other = Target(other)
            except (ValueError, TypeError):
                return False
        return isinstance(other, Target) and str(self) == str(other) and (
            str(self.host) == str(other.host))

    def __hash__(self) -> int:
        return hash(str(self))

    def export(self) -> Dict[str, Any]:
        d = {"kind": self.kind.name, "keys": list(self.keys), **self.attrs}
        if self.host is not None:
            d["host"] = self.host.export()
        return d

    # ------------------------------------------------------------------ scope
    def __enter__(self) -> "Target":
        stack = getattr(_STATE, "stack", None)
        if stack is None:
            stack = _STATE.stack = []
        stack.append(self)
        return self

    def __exit__(self, *exc) -> None:
        _STATE.stack.pop()

    @staticmethod
    def current(allow_none: bool = True) -> Optional["Target"]:
        """The innermost target of an enclosing ``with Target(...)`` block."""
        stack = getattr(_STATE, "stack", None)
        if stack:
            return stack[-1]
        if not allow_none:
            raise TVMError("Target context required: wrap the call in `with tvm.target."
                           "Target(...)`")
        return None

    @staticmethod
    def list_kinds() -> list:
        return sorted(_KINDS)

    @staticmethod
    def canon_target(target) -> Optional["Target"]:
        if target is None:
            return None
        return target if isinstance(target, Target) else Target(target)

    @staticmethod
    def canon_target_and_host(target, target_host=None):
        """``(target, host)``: ``target`` as a Target, with ``target_host`` as its host when
        it has none; the host is the result's ``host``."""
        target = Target.canon_target(target)
        if target is None:
            if target_host is not None:
                raise TVMError("canon_target_and_host: a target host without a target")
            return None, None
        if target.host is None and target_host is not None:
            target = Target(target, host=Target.canon_target(target_host))
        return target, target.host


def create(target: Union[str, Dict[str, Any], Target]) -> Target:
    """``tvm.target.create`` (TVM 0.7): same as ``Target(target)``."""
    return target if isinstance(target, Target) else Target(target)


def cuda(model: str = "unknown", arch: Optional[str] = None, options=None) -> Target:
    """A CUDA target (``tvm.target.cuda()``)."""
    s = f"cuda -model={model}" + (f" -arch={arch}" if arch else "")
    if options:
        s += " " + (" ".join(options) if isinstance(options, (list, tuple)) else options)
    return Target(s)


def _with_options(base: str, options) -> Target:
    if options:
        base += " " + (" ".join(options) if isinstance(options, (list, tuple)) else options)
    return Target(base)


def mali(model: str = "unknown", options=None) -> Target:
    """An ARM Mali GPU (OpenCL) target, ``opencl -device=mali``; tvmlite describes it (AutoTVM
    keys, features) but builds no OpenCL."""
    return _with_options(f"opencl -device=mali -model={model}", options)


def bifrost(model: str = "unknown", options=None) -> Target:
    """An ARM Bifrost GPU (OpenCL) target, ``opencl -device=bifrost``."""
    return _with_options(f"opencl -device=bifrost -model={model}", options)


def intel_graphics(model: str = "unknown", options=None) -> Target:
    """An Intel GPU (OpenCL) target, ``opencl -device=intel_graphics`` (warps of 16)."""
    return _with_options(f"opencl -device=intel_graphics -model={model} -thread_warp_size=16",
                         options)


# a few of classic TVM's named ARM boards: model, triple and CPU features
_ARM_BOARDS = {
    "pixel2": "-model=snapdragon835 -mtriple=arm64-linux-android -mattr=+neon",
    "rasp3b": "-model=bcm2837 -mtriple=armv7l-linux-gnueabihf -mattr=+neon",
    "rasp4b64": "-model=bcm2711 -mtriple=aarch64-linux-gnu -mattr=+neon -mcpu=cortex-a72",
    "rk3399": "-model=rk3399 -mtriple=aarch64-linux-gnu -mattr=+neon",
}


def arm_cpu(model: str = "unknown", options=None) -> Target:
    """An ARM CPU target, ``llvm -device=arm_cpu`` (keys ``arm_cpu, cpu``); a named board adds
    its triple, which tvmlite describes (AutoTVM keys, TopHub) but does not build for."""
    board = _ARM_BOARDS.get(model, f"-model={model}")
    return _with_options(f"llvm -keys=arm_cpu,cpu -device=arm_cpu {board}", options)


def rasp(options=None) -> Target:
    """The Raspberry Pi 3B, ``arm_cpu("rasp3b")``."""
    return arm_cpu("rasp3b", options)
