"""The record of a schedule's calls: classic TVM's trace, printable as the Python function
``apply_trace(sch)`` that replays it, or as JSON."""
from __future__ import annotations

import inspect
import json
import re
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from ..expr import FloatImm, IntImm, PrimExpr, Var
from .state import BlockRV, LoopRV


class ExprRV:
    """A handle to an integer a sampling primitive chose (``tvm.tir.schedule.ExprRV``);
    ``Schedule.get`` gives its value, and split factors or annotation values may be one."""

    __slots__ = ("name", "_var")

    def __init__(self, name: str = "v"):
        self.name = name
        self._var: Optional[Var] = None

    def __repr__(self) -> str:
        return f"ExprRV({self.name!r})"

    def as_var(self) -> Var:
        """The int32 variable standing for the value in expressions (``j1 * j2``, as classic's
        ExprRV is a PrimExpr); the schedule substitutes the sampled value where it takes one."""
        if self._var is None:
            self._var = Var(self.name, "int32")
        return self._var

    # arithmetic builds expressions over the value (classic ExprRV is a tir Var)
    def __add__(self, o):
        return self.as_var() + _operand(o)

    def __radd__(self, o):
        return _operand(o) + self.as_var()

    def __sub__(self, o):
        return self.as_var() - _operand(o)

    def __rsub__(self, o):
        return _operand(o) - self.as_var()

    def __mul__(self, o):
        return self.as_var() * _operand(o)

    def __rmul__(self, o):
        return _operand(o) * self.as_var()

    def __floordiv__(self, o):
        return self.as_var() // _operand(o)

    def __rfloordiv__(self, o):
        return _operand(o) // self.as_var()

    def __mod__(self, o):
        return self.as_var() % _operand(o)

    def __rmod__(self, o):
        return _operand(o) % self.as_var()

    def __neg__(self):
        return -self.as_var()


def _operand(x):
    """An ExprRV as its variable; anything else as it is."""
    return x.as_var() if isinstance(x, ExprRV) else x

    def same_as(self, other: Any) -> bool:
        """Identity, as classic TVM's ``same_as``."""
        return self is other


_RV = (BlockRV, LoopRV, ExprRV, Var)

# Methods that are instructions without being Schedule methods.
_IMPURE = {"enter_postproc"}
# Classic kind names that are not the CamelCase of the method.
_KIND_NAMES = {"enter_postproc": "EnterPostproc", "rfactor": "RFactor", "reindex": "ReIndex",
               "unsafe_set_dtype": "UnsafeSetDType", "remove_rv": "RemoveRV"}
# Classic's split of a call's arguments into inputs (handles and anything that may hold one)
# and attributes, where it differs from "the arguments the schedule records positionally are
# the inputs". A leading "*" marks a list flattened into the inputs.
_CLASSIC_ARGS: Dict[str, Tuple[Tuple[str, ...], Tuple[str, ...]]] = {
    "get_block": ((), ("name", "func_name")),
    "split": (("loop", "*factors"), ("preserve_unit_iters",)),
    "annotate": (("block_or_loop", "ann_val"), ("ann_key",)),
    "cache_read": (("block", "consumer_blocks"), ("read_buffer_index", "storage_scope")),
    "cache_write": (("block", "consumer_blocks"), ("write_buffer_index", "storage_scope")),
}
# Kinds whose outputs print as a list (``l1, = ...``) even when there is one.
_LIST_OUT = {"get_loops", "get_child_blocks", "get_producers", "get_consumers",
             "get_output_blocks", "split", "sample_perfect_tile", "cache_index",
             "compute_at_loops", "reverse_compute_at_loops"}
# Kinds that take a decision (the last keyword of their Python).
_DECIDED = {"sample_categorical", "sample_perfect_tile", "sample_compute_location"}
# Arguments printed without their keyword.
_POSITIONAL = {("get_child_blocks", "rv")}


def _params(method: str) -> List[inspect.Parameter]:
    """The Schedule method's parameters (after ``self``), [] for pseudo-instructions."""
    from .schedule import Schedule
    fn = getattr(Schedule, method, None)
    if fn is None or method in _IMPURE:
        return []
    return [p for p in inspect.signature(inspect.unwrap(fn)).parameters.values()
            if p.name != "self"]


def _kind_name(method: str) -> str:
    return _KIND_NAMES.get(method) or "".join(w.capitalize() for w in method.split("_"))


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
        self.name = _kind_name(method)
        self.is_pure = method in self._PURE

    @property
    def is_postproc(self) -> bool:
        """Whether this is the mark where meta-schedule postprocessing starts."""
        return self.method == "enter_postproc"

    @classmethod
    def get(cls, name: str) -> "InstructionKind":
        """The kind called ``name`` (classic ``"GetLoops"`` or the method name ``"get_loops"``).
        """
        method = name
        if not name.islower():
            by_kind = {v: k for k, v in _KIND_NAMES.items()}
            method = by_kind.get(name) or re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()
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
        Classic TVM's inputs: the handles and the arguments that may hold one.
    attrs : list or dict
        Classic TVM's attributes, in order; a dict (the schedule's own record) names the
        arguments other than ``inputs``, which then are the method's leading arguments.
    outputs : list, handle or None
        What it returned.
    """

    __slots__ = ("name", "args", "outputs", "_n_in")

    def __init__(self, kind: Union[InstructionKind, str], inputs: Sequence[Any],
                 attrs: Union[Dict[str, Any], Sequence[Any], None], outputs: Any):
        self.name = kind.method if isinstance(kind, InstructionKind) else kind
        params = _params(self.name)
        args: Dict[str, Any] = {}
        if isinstance(attrs, dict):
            # the schedule's record: positional inputs, keyword rest
            inputs = list(inputs)
            for p in params:
                if not inputs:
                    break
                if p.kind is p.VAR_POSITIONAL:
                    args[p.name], inputs = inputs, []
                else:
                    args[p.name] = inputs.pop(0)
            if inputs:
                raise ValueError(f"Instruction {self.name}: {len(inputs)} inputs too many")
            self._n_in = len(args)
            args.update(attrs)
        else:
            args = self._from_classic(params, list(inputs), list(attrs or []))
        self.args = args
        if outputs is None:
            self.outputs = []
        elif isinstance(outputs, (list, tuple)):
            self.outputs = list(outputs)
        else:
            self.outputs = [outputs]

    def _from_classic(self, params, inputs: List[Any], attrs: List[Any]) -> Dict[str, Any]:
        if self.name in _CLASSIC_ARGS:
            in_names, attr_names = _CLASSIC_ARGS[self.name]
        elif params and params[0].kind is params[0].VAR_POSITIONAL:
            in_names = ("*" + params[0].name,)
            attr_names = tuple(p.name for p in params[1:] if p.name != "decision")
        else:
            names = [p.name for p in params if p.name != "decision"]
            in_names = tuple(names[:len(inputs)])
            attr_names = tuple(names[len(inputs):])
        args: Dict[str, Any] = {}
        rest = list(inputs)
        for k, name in enumerate(in_names):
            if name.startswith("*"):
                args[name[1:]] = rest[:len(rest) - (len(in_names) - k - 1)]
                rest = rest[len(args[name[1:]]):]
            elif rest:
                args[name] = rest.pop(0)
        if rest or len(attrs) > len(attr_names):
            from ...error import TVMError
            raise TVMError(f"Instruction {_kind_name(self.name)}: {len(inputs)} inputs and "
                           f"{len(attrs)} attributes do not match its arguments")
        self._n_in = len(args)
        args.update(zip(attr_names, attrs))
        return args

    @property
    def kind(self) -> InstructionKind:
        """The instruction's kind."""
        return InstructionKind.get(self.name)

    @property
    def kwargs(self) -> Dict[str, Any]:
        """The call's arguments by name."""
        return dict(self.args)

    def _split(self) -> Tuple[Tuple[str, ...], Tuple[str, ...]]:
        if self.name in _CLASSIC_ARGS:
            return _CLASSIC_ARGS[self.name]
        names = list(self.args)
        ins = tuple(names[:self._n_in])
        params = _params(self.name)
        if ins and params and params[0].kind is params[0].VAR_POSITIONAL:
            ins = ("*" + ins[0],) + ins[1:]
        return ins, tuple(names[self._n_in:])

    @property
    def inputs(self) -> List[Any]:
        """Classic TVM's inputs: handles and the arguments that may hold one."""
        in_names, _ = self._split()
        out: List[Any] = []
        for name in in_names:
            if name.startswith("*"):
                out.extend(self.args.get(name[1:], []))
            elif name in self.args:
                out.append(self.args[name])
        return out

    @property
    def attrs(self) -> List[Any]:
        """Classic TVM's attributes: the other arguments, in order."""
        _, attr_names = self._split()
        return [self.args[n] for n in attr_names if n in self.args]

    def same_as(self, other: Any) -> bool:
        """Identity, as classic TVM's ``same_as``."""
        return self is other

    def as_python(self, name_of: Callable[[Any], str], out_names: List[str],
                  decision: Any = None) -> str:
        """The call as a line of Python, handles named by ``name_of``."""
        parts = []
        for p in _params(self.name) or [inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY)
                                        for k in self.kwargs]:
            if p.name == "decision" or p.name not in self.args:
                continue
            v = self.args[p.name]
            if p.kind is p.VAR_POSITIONAL:
                parts += [_py(x, name_of) for x in v]
            elif (self.name, p.name) in _POSITIONAL:
                parts.append(_py(v, name_of))
            elif not (p.name == "consumer_blocks" and not v):
                parts.append(f"{p.name}={_py(v, name_of)}")
        if decision is not None:
            parts.append(f"decision={_py(decision, name_of)}")
        call = f"sch.{self.name}({', '.join(parts)})"
        if not out_names:
            return call
        if self.name in _LIST_OUT and len(out_names) == 1:
            return f"{out_names[0]}, = {call}"
        return f"{', '.join(out_names)} = {call}"

    def __str__(self) -> str:
        return self.as_python(lambda rv: "_", ["_"] * len(self.outputs))

    __repr__ = __str__


def _py(v: Any, name_of: Callable[[Any], str]) -> str:
    """``v`` as Python source, handles named by ``name_of``."""
    if isinstance(v, _RV):
        return name_of(v)
    if v is None or isinstance(v, bool):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, IntImm):
        return str(v.value)
    if isinstance(v, (float, FloatImm)):
        f = float(getattr(v, "value", v))
        return str(int(f)) if f.is_integer() and abs(f) < 2 ** 53 else repr(f)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_py(x, name_of) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_py(k, name_of)}: {_py(x, name_of)}"
                               for k, x in v.items()) + "}"
    if isinstance(v, PrimExpr):
        try:
            return repr(v)
        except Exception:
            return f"<{type(v).__name__}>"
    return repr(v)


class _Namer:
    """Classic naming: the k-th handle a trace defines is ``b<k>``, ``l<k>`` or ``v<k>``."""

    def __init__(self):
        self.names: Dict[Any, str] = {}
        self.count = 0

    def define(self, rv: Any) -> str:
        prefix = "b" if isinstance(rv, BlockRV) else "l" if isinstance(rv, LoopRV) else "v"
        name = f"{prefix}{self.count}"
        self.count += 1
        self.names[rv] = name
        return name

    def __call__(self, rv: Any) -> str:
        if rv not in self.names:  # a handle from outside the trace
            return self.define(rv)
        return self.names[rv]


class Trace:
    """Calls in order (``tvm.tir.schedule.Trace``) and the decisions of the sampling ones; a
    refused call is not recorded (``Schedule`` drops what it recorded when the call raises).

    Parameters
    ----------
    insts : list of Instruction, optional
    decisions : dict, optional
        Instruction -> decision.
    """

    def __init__(self, insts: Optional[Sequence[Instruction]] = None,
                 decisions: Optional[Dict[Instruction, Any]] = None):
        self.insts: List[Instruction] = list(insts or [])
        self._decisions: Dict[Instruction, Any] = dict(decisions or {})

    def copy(self) -> "Trace":
        """An independent trace with the same calls."""
        return Trace(self.insts, self._decisions)

    def record(self, name: str, inputs: List[Any], outputs: Any,
               attrs: Optional[Dict[str, Any]] = None) -> None:
        """Append the call ``name(*inputs, **attrs)`` that returned ``outputs``; an attribute
        ``decision`` becomes the instruction's decision."""
        attrs = dict(attrs or {})
        decision = attrs.pop("decision", None)
        self.append(Instruction(name, inputs, attrs, outputs), decision)

    def append(self, inst: Instruction, decision: Any = None) -> None:
        """Append ``inst`` (with its ``decision``, if it takes one)."""
        self.insts.append(inst)
        if decision is not None:
            self._decisions[inst] = decision

    def pop(self) -> Optional[Instruction]:
        """Remove and return the last instruction; None when the trace is empty."""
        if not self.insts:
            return None
        inst = self.insts.pop()
        self._decisions.pop(inst, None)
        return inst

    @property
    def decisions(self) -> Dict[Instruction, Any]:
        """The sampling instructions' choices: an index into the candidates for
        ``sample_categorical`` and ``sample_compute_location``, the factors for
        ``sample_perfect_tile``."""
        return {i: self._decisions[i] for i in self.insts if i in self._decisions}

    def get_decision(self, inst: Instruction) -> Any:
        """The decision of ``inst``; None when it made none."""
        return self._decisions.get(inst) if inst in self.insts else None

    def with_decision(self, inst: Instruction, decision: Any,
                      remove_postproc: bool) -> "Trace":
        """A copy whose ``inst`` takes ``decision`` (cut at the postprocessing mark when
        ``remove_postproc``)."""
        t = Trace(self._valid(remove_postproc), self._decisions)
        t._decisions[inst] = decision
        return t

    def simplified(self, remove_postproc: bool) -> "Trace":
        """A copy without the pure instructions whose outputs nothing uses (cut at the
        postprocessing mark when ``remove_postproc``)."""
        used: set = set()
        kept: List[Instruction] = []
        for inst in reversed(self._valid(remove_postproc)):
            if inst.kind.is_pure and not any(o in used for o in inst.outputs):
                continue
            kept.append(inst)
            stack = list(inst.kwargs.values())
            while stack:
                x = stack.pop()
                if isinstance(x, (list, tuple)):
                    stack.extend(x)
                elif isinstance(x, _RV):
                    used.add(x)
        return Trace(kept[::-1], self._decisions)

    def _valid(self, remove_postproc: bool) -> List[Instruction]:
        if not remove_postproc:
            return list(self.insts)
        out = []
        for inst in self.insts:
            if inst.name == "enter_postproc":
                break
            out.append(inst)
        return out

    def __len__(self) -> int:
        return len(self.insts)

    def as_python(self, remove_postproc: bool = False) -> List[str]:
        """The calls as lines of Python over a schedule called ``sch``, handles named as
        classic TVM names them."""
        namer = _Namer()
        lines = []
        for inst in self._valid(remove_postproc):
            decision = self._decisions.get(inst)
            # inputs are named before outputs, as a call reads them
            inst.as_python(namer, [], decision)
            outs = [namer.define(o) for o in inst.outputs]
            lines.append(inst.as_python(namer, outs, decision))
        return lines

    def __str__(self) -> str:
        body = self.as_python() or ["pass"]
        return "\n".join(["# from tvm import tir", "def apply_trace(sch: tir.Schedule) -> None:"]
                         + ["  " + line for line in body])

    __repr__ = __str__

    def show(self, style: Optional[str] = None, black_format: bool = True) -> None:
        """Print the trace as Python."""
        print(str(self))

    def as_json(self, remove_postproc: bool = False) -> List[Any]:
        """The trace as classic TVM's JSON: ``[[kind, inputs, attrs, outputs]...]`` and
        ``[[index, decision]...]``; handles are named, strings among inputs quoted."""
        namer = _Namer()
        insts, decisions = [], []
        for k, inst in enumerate(self._valid(remove_postproc)):
            inputs = [_json_input(x, namer) for x in inst.inputs]
            attrs = [_json_value(a) for a in inst.attrs]
            outs = [namer.define(o) for o in inst.outputs]
            insts.append([inst.kind.name, inputs, attrs, outs])
            if inst in self._decisions:
                decisions.append([k, _json_value(self._decisions[inst])])
        return [insts, decisions]

    @staticmethod
    def apply_json_to_schedule(json_obj: Any, sch) -> None:
        """Replay a trace given as :meth:`as_json` wrote it onto ``sch``."""
        from ...error import TVMError
        try:
            json_insts, json_decisions = json_obj
            decided = {int(k): d for k, d in json_decisions}
        except (TypeError, ValueError):
            raise TVMError("Trace.apply_json_to_schedule: expected [instructions, decisions]"
                           f", got {json_obj!r}") from None
        rvs: Dict[str, Any] = {}

        def parse(x):
            if isinstance(x, list):
                return [parse(y) for y in x]
            if not isinstance(x, str):
                return x
            if len(x) >= 2 and x[0] == x[-1] == '"':
                return x[1:-1]
            if x == "None":
                return None
            if x not in rvs:
                raise TVMError(f"Trace.apply_json_to_schedule: handle {x!r} is used before "
                               "the trace defines it")
            return rvs[x]

        def run():
            for k, (kind, inputs, attrs, outputs) in enumerate(json_insts):
                inst = Instruction(InstructionKind.get(kind), parse(list(inputs)),
                                   list(attrs), [])
                got = _call(sch, inst, decided.get(k))
                for name, rv in zip(outputs, got):
                    rvs[name] = rv

        sch._atomic("apply_json_to_schedule", run, (), {})

    def apply_to_schedule(self, sch, remove_postproc: bool = False,
                          decision_provider: Optional[Callable] = None) -> None:
        """Replay the recorded calls on ``sch`` (a fresh schedule of the same module), all or
        nothing: when a call is refused, ``sch`` is left as it was before the replay.

        Parameters
        ----------
        sch : Schedule
            The schedule to apply the calls to.
        remove_postproc : bool
            Stop at the postprocessing mark (``enter_postproc``).
        decision_provider : callable, optional
            ``(inst, inputs, attrs, decision) -> decision``: the decision to use for each
            instruction.
        """
        sch._atomic("apply_to_schedule", self._replay, (sch, remove_postproc,
                                                        decision_provider), {})

    def _replay(self, sch, remove_postproc: bool, decision_provider) -> None:
        rvs: Dict[Any, Any] = {}

        def new(x):
            if isinstance(x, (list, tuple)):
                return type(x)(new(y) for y in x)
            if isinstance(x, _RV) and not (isinstance(x, Var) and x not in rvs):
                if x not in rvs:
                    raise ValueError(f"apply_to_schedule: {x!r} is used before the trace "
                                     "defines it")
                return rvs[x]
            return x

        for inst in self._valid(remove_postproc):
            decision = self._decisions.get(inst)
            if decision_provider is not None:
                decision = decision_provider(inst, [new(x) for x in inst.inputs], inst.attrs,
                                             decision)
            args = {k: new(v) for k, v in inst.args.items()}
            replayed = Instruction.__new__(Instruction)
            replayed.name, replayed.args, replayed.outputs = inst.name, args, []
            replayed._n_in = getattr(inst, "_n_in", 0)
            got = _call(sch, replayed, decision)
            for old, rv in zip(inst.outputs, got):
                rvs[old] = rv


def _call(sch, inst: Instruction, decision: Any) -> List[Any]:
    """Call ``inst`` on ``sch``; its outputs as a list."""
    if inst.name == "enter_postproc":
        return []
    kwargs = inst.kwargs
    if decision is not None and inst.name in _DECIDED:
        kwargs["decision"] = getattr(decision, "value", decision) if not isinstance(
            decision, (list, tuple)) else [getattr(d, "value", d) for d in decision]
    pos: List[Any] = []
    for p in _params(inst.name):
        if p.kind is p.VAR_POSITIONAL and p.name in kwargs:
            pos += list(kwargs.pop(p.name))
    out = getattr(sch, inst.name)(*pos, **kwargs)
    if out is None:
        return []
    return list(out) if isinstance(out, (list, tuple)) else [out]


def _json_value(v: Any) -> Any:
    if isinstance(v, IntImm):
        return v.value
    if isinstance(v, FloatImm):
        return v.value
    if isinstance(v, (list, tuple)):
        return [_json_value(x) for x in v]
    return v


def _json_input(x: Any, namer: _Namer) -> Any:
    if x is None:
        return "None"
    if isinstance(x, _RV):
        return namer(x)
    if isinstance(x, str):
        return f'"{x}"'
    if isinstance(x, (list, tuple)):
        return [_json_input(y, namer) for y in x]
    return _json_value(x)
