"""The record of a schedule's calls, printable as Python that replays them."""
from __future__ import annotations

import inspect
import re
from typing import Any, Dict, List, Optional, Sequence, Union

from ..expr import IntImm, PrimExpr
from .state import BlockRV, LoopRV


class ExprRV:
    """A handle to an integer a sampling primitive chose (``tvm.tir.schedule.ExprRV``);
    ``Schedule.get`` gives its value, and split factors or annotation values may be one."""

    __slots__ = ("name",)

    def __init__(self, name: str = "v"):
        self.name = name

    def __repr__(self) -> str:
        return f"ExprRV({self.name!r})"

    def same_as(self, other: Any) -> bool:
        """Identity, as classic TVM's ``same_as``."""
        return self is other


# what a primitive that changes nothing but handles or the random state is, in classic terms
_IMPURE = {"enter_postproc"}
_KIND_NAMES = {"enter_postproc": "EnterPostproc"}


class InstructionKind:
    """The kind of a trace instruction (``tvm.tir.schedule.InstructionKind``): a
    :class:`Schedule` method, by classic TVM's CamelCase name (``"GetLoops"``).

    Attributes
    ----------
    name : str
        Classic TVM's name of the kind.
    is_pure : bool
        Whether the instruction leaves the program unchanged (queries, sampling).
    """

    _registry: Dict[str, "InstructionKind"] = {}
    _PURE = {"get_block", "get_loops", "get_child_blocks", "get_producers", "get_consumers",
             "get_output_blocks", "sample_categorical", "sample_perfect_tile",
             "sample_compute_location"}

    def __init__(self, method: str):
        self.method = method
        self.name = _KIND_NAMES.get(method) or "".join(
            w.capitalize() for w in method.split("_"))
        self.is_pure = method in self._PURE

    @classmethod
    def get(cls, name: str) -> "InstructionKind":
        """The kind called ``name`` (classic ``"GetLoops"`` or the method name ``"get_loops"``).
        """
        method = name if name.islower() else re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()
        if method not in _IMPURE:
            from .schedule import Schedule
            if not callable(getattr(Schedule, method, None)) or method.startswith("_"):
                from ...error import TVMError
                raise TVMError(f"InstructionKind: no instruction kind called {name!r}")
        if method not in cls._registry:
            cls._registry[method] = InstructionKind(method)
        return cls._registry[method]

    def same_as(self, other: Any) -> bool:
        """Identity, as classic TVM's ``same_as``."""
        return self is other

    def __repr__(self) -> str:
        return f"InstructionKind({self.name!r})"


class Instruction:
    """One call of a trace (``tvm.tir.schedule.Instruction``).

    Parameters
    ----------
    kind : InstructionKind or str
        The primitive (a kind or a :class:`Schedule` method name).
    inputs : list
        The handles (and, for ``get_block``, the name) it was given.
    attrs : dict or list
        Its other arguments, by keyword (a list: classic TVM's positional attributes).
    outputs : list, handle or None
        What it returned.
    """

    __slots__ = ("name", "inputs", "attrs_by_name", "outputs")

    def __init__(self, kind: Union[InstructionKind, str], inputs: Sequence[Any],
                 attrs: Union[Dict[str, Any], Sequence[Any], None], outputs: Any):
        self.name = kind.method if isinstance(kind, InstructionKind) else kind
        self.inputs = list(inputs)
        if isinstance(attrs, dict):
            self.attrs_by_name = dict(attrs)
        else:
            self.attrs_by_name = {f"attr{k}": a for k, a in enumerate(attrs or [])}
        self.outputs = list(outputs) if isinstance(outputs, tuple) else outputs

    @property
    def kind(self) -> InstructionKind:
        """The instruction's kind."""
        return InstructionKind.get(self.name)

    @property
    def attrs(self) -> List[Any]:
        """The non-handle arguments, in order."""
        return list(self.attrs_by_name.values())

    def same_as(self, other: Any) -> bool:
        """Identity, as classic TVM's ``same_as``."""
        return self is other

    def __iter__(self):  # unpacks as (name, inputs, outputs, attrs)
        return iter((self.name, self.inputs, self.outputs, self.attrs_by_name))

    def __str__(self) -> str:
        from .schedule import Schedule
        method = getattr(Schedule, self.name, None)
        params = [] if method is None else [
            p for p in inspect.signature(inspect.unwrap(method)).parameters if p != "self"]
        args = [f"{params[k]}=_" if k < len(params) else "_" for k in range(len(self.inputs))]
        args += [f"{k}={_lit(v)}" for k, v in self.attrs_by_name.items()]
        call = f"sch.{self.name}({', '.join(args)})"
        outs = self.outputs if isinstance(self.outputs, list) else (
            [] if self.outputs is None else [self.outputs])
        return f"{', '.join('_' for _ in outs)} = {call}" if outs else call

    __repr__ = __str__


class Trace:
    """Calls in order: ``(primitive, inputs, outputs, attrs)``; a refused call is not
    recorded (``Schedule`` drops what it recorded when the call raises)."""

    def __init__(self):
        self.insts: List[Instruction] = []

    def copy(self) -> "Trace":
        """An independent trace with the same calls."""
        t = Trace()
        t.insts = list(self.insts)
        return t

    def record(self, name: str, inputs: List[Any], outputs: Any,
               attrs: Optional[Dict[str, Any]] = None) -> None:
        """Append the call ``name(*inputs, **attrs)`` that returned ``outputs``."""
        self.insts.append(Instruction(name, inputs, attrs, outputs))

    @property
    def decisions(self) -> Dict[Instruction, Any]:
        """The sampling instructions' choices: an index into the candidates for
        ``sample_categorical`` and ``sample_compute_location``, the factors for
        ``sample_perfect_tile``."""
        return {inst: inst.attrs_by_name["decision"] for inst in self.insts
                if "decision" in inst.attrs_by_name}

    def get_decision(self, inst: Instruction) -> Any:
        """The decision of ``inst``; None when it made none."""
        return inst.attrs_by_name.get("decision") if inst in self.insts else None

    def __len__(self) -> int:
        return len(self.insts)

    def as_python(self) -> List[str]:
        """The calls as lines of Python over a schedule called ``sch``."""
        names: Dict[Any, str] = {}
        counters = {"b": 0, "l": 0, "v": 0}

        def name_of(rv):
            if isinstance(rv, (BlockRV, LoopRV, ExprRV)):
                if rv not in names:
                    kind = ("b" if isinstance(rv, BlockRV) else
                            "l" if isinstance(rv, LoopRV) else "v")
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
            if isinstance(x, (BlockRV, LoopRV, ExprRV)):
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
