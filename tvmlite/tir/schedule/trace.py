"""The record of a schedule's calls, printable as Python that replays them."""
from __future__ import annotations

from typing import Any, Dict, List, Optional

from ..expr import IntImm, PrimExpr
from .state import BlockRV, LoopRV


class Trace:
    """Calls in order: ``(primitive, inputs, outputs, attrs)``; a refused call is not
    recorded (``Schedule`` drops what it recorded when the call raises)."""

    def __init__(self):
        self.insts: List[tuple] = []

    def copy(self) -> "Trace":
        """An independent trace with the same calls."""
        t = Trace()
        t.insts = list(self.insts)
        return t

    def record(self, name: str, inputs: List[Any], outputs: Any,
               attrs: Optional[Dict[str, Any]] = None) -> None:
        """Append the call ``name(*inputs, **attrs)`` that returned ``outputs``."""
        self.insts.append((name, list(inputs), outputs, dict(attrs or {})))

    def __len__(self) -> int:
        return len(self.insts)

    def as_python(self) -> List[str]:
        """The calls as lines of Python over a schedule called ``sch``."""
        names: Dict[Any, str] = {}
        counters = {"b": 0, "l": 0}

        def name_of(rv):
            if isinstance(rv, (BlockRV, LoopRV)):
                if rv not in names:
                    kind = "b" if isinstance(rv, BlockRV) else "l"
                    names[rv] = f"{kind}{counters[kind]}"
                    counters[kind] += 1
                return names[rv]
            if isinstance(rv, (list, tuple)):
                return "[" + ", ".join(name_of(x) for x in rv) + "]"
            return _lit(rv)

        lines = []
        for name, inputs, outputs, attrs in self.insts:
            args = [name_of(x) for x in inputs]
            if name == "get_block":
                args = [repr(inputs[0])]
                attrs = {"func_name": attrs.get("func_name", "main")}
            args += [f"{k}={name_of(v)}" for k, v in attrs.items()]
            call = f"sch.{name}({', '.join(args)})"
            if outputs is None:
                lines.append(call)
            elif isinstance(outputs, list):
                lhs = ", ".join(name_of(o) for o in outputs)
                lines.append(f"{lhs}{',' if len(outputs) == 1 else ''} = {call}"
                             if outputs else call)
            else:
                lines.append(f"{name_of(outputs)} = {call}")
        return lines

    def show(self) -> None:
        """Print the trace as Python."""
        print(str(self))

    def apply_to_schedule(self, sch, remove_postproc: bool = False) -> None:
        """Replay the recorded calls on ``sch`` (a fresh schedule of the same module), all or
        nothing: when a call is refused, ``sch`` is left as it was before the replay.

        Parameters
        ----------
        sch : Schedule
            The schedule to apply the calls to.
        remove_postproc : bool
            Classic TVM's flag for meta-schedule postprocessors; tvmlite records none, so it
            changes nothing.
        """
        sch._atomic("apply_to_schedule", self._replay, (sch,), {})

    def _replay(self, sch) -> None:
        rvs: Dict[Any, Any] = {}

        def new(x):
            if isinstance(x, (BlockRV, LoopRV)):
                if x not in rvs:
                    raise ValueError(f"apply_to_schedule: {x!r} is used before the trace "
                                     "defines it")
                return rvs[x]
            if isinstance(x, (list, tuple)):
                return type(x)(new(y) for y in x)
            return x

        for name, inputs, outputs, attrs in self.insts:
            if name in ("get_block", "work_on"):
                args = list(inputs)
            else:
                args = [new(x) for x in inputs]
            result = getattr(sch, name)(*args, **{k: new(v) for k, v in attrs.items()})
            if isinstance(outputs, list):
                for old, got in zip(outputs, result):
                    rvs[old] = got
            elif outputs is not None:
                rvs[outputs] = result

    def __str__(self) -> str:
        return "\n".join(self.as_python())

    __repr__ = __str__


def _lit(v) -> str:
    if isinstance(v, IntImm):
        return str(v.value)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_lit(x) for x in v) + "]"
    if isinstance(v, PrimExpr):
        try:
            return repr(v)
        except Exception:
            return f"<{type(v).__name__}>"
    return repr(v)
