"""``tvm.tir.Schedule``: TVM's TensorIR schedule API over the engine's primitives.

Every primitive lives in its own module; this class resolves handles, forwards, and records
the call in the trace. Every public method is all-or-nothing (:func:`_all_or_nothing`): a
refused call raises and leaves module, trace and handles exactly as they were. Methods named
``*_loops`` (:meth:`Schedule.compute_at_loops`, :meth:`Schedule.reverse_compute_at_loops`) are
the engine's extension returning the loops a primitive created, for the TE facade.
"""
from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

from ...arith import Analyzer
from ...error import InternalError
from ...ir.module import GlobalVar, IRModule
from ..expr import IntImm, PrimExpr, Var
from ..function import PrimFunc
from ..functor import collect_vars, substitute
from ..index_map import IndexMap
from ..stmt import Block, BlockRealize, For, ForKind
from ..tensor_intrin import TensorIntrin
from . import annotate as _annotate
from . import blockize_tensorize as _bt
from . import cache_index as _cidx
from . import cache_read_write as _cache
from . import compute_at as _ca
from . import compute_inline as _ci
from . import decompose_padding as _dp
from . import decompose_reduction as _dr
from . import fuse as _fuse
from . import loop_kind as _lk
from . import merge as _merge
from . import pad_einsum as _pe
from . import read_write_at as _rwa
from . import reindex as _reindex
from . import reindex_cache as _rc
from . import reorder as _reorder
from . import rfactor as _rf
from . import rolling_buffer as _rb
from . import sampling as _sampling
from . import set_dtype as _sd
from . import set_scope as _ss
from . import split as _split
from . import storage_align as _sa
from . import transform_block_layout as _tbl
from . import transform_layout as _tl
from .error import RENDER_LEVELS, HandleError, ScheduleError, fail
from .state import (
    BlockRV,
    LoopRV,
    ScheduleState,
    StmtSRef,
    buffers_read,
    buffers_written,
    child_blocks,
    loops_above,
    replace,
    scope_index,
    walk_stmts,
)
from .trace import ExprRV, Trace

RV = Union[BlockRV, LoopRV, ExprRV]


# parameters that, as in classic TVM, also take a block's name (looked up with get_block)
_BLOCK_PARAMS = ("block", "block_or_loop", "scope_block")


def _all_or_nothing(method: Callable) -> Callable:
    """Make a public method of :class:`Schedule` one transaction (:meth:`Schedule._atomic`);
    a block parameter given as a name is looked up inside it."""
    sig = inspect.signature(method)
    named = [n for n in _BLOCK_PARAMS if n in sig.parameters]

    def by_name(self, *args, **kwargs):
        bound = sig.bind(self, *args, **kwargs)
        for n in named:
            if isinstance(bound.arguments.get(n), str):
                bound.arguments[n] = self.get_block(bound.arguments[n])
        return method(*bound.args, **bound.kwargs)

    @functools.wraps(method)
    def run(self: "Schedule", *args, **kwargs):
        fn = by_name if named and any(isinstance(a, str) for a in (*args, *kwargs.values())) \
            else method
        return self._atomic(method.__name__, fn, (self, *args), kwargs)

    return run


def _with_example(*primitives: Callable) -> Callable:
    """Append the before/after example of the engine functions ``primitives`` to the
    method's docstring, so that it is written once, in the primitive's module."""
    def deco(method: Callable) -> Callable:
        examples = []
        for fn in primitives:
            doc = inspect.getdoc(fn) or ""
            k = doc.find("Before")
            if k >= 0:
                examples.append(doc[k:])
        if examples:
            method.__doc__ = (inspect.cleandoc(method.__doc__ or "")
                              + "\n\nExamples\n--------\n" + "\n\n".join(examples))
        return method

    return deco


def _at_attrs(preserve_unit_loops: bool, index: int) -> Dict[str, Any]:
    attrs: Dict[str, Any] = {"preserve_unit_loops": preserve_unit_loops}
    if index != -1:
        attrs["index"] = index
    return attrs


class Schedule:
    """A TensorIR schedule over an IRModule or PrimFunc (``tvm.tir.Schedule``).

    Parameters
    ----------
    mod : IRModule or PrimFunc
        The program to schedule (copied; the argument is left as it is). Primitives work on
        ``main`` when the module has it, else on its first PrimFunc (see :meth:`work_on`).
    debug_mask : str or int
        ``"none"`` (default, or 0) or ``"all"`` (or any non-zero int): after every primitive
        check the invariants the handles rely on (block names unique, every loop variable
        bound by one loop). Classic TVM's bits select sref-tree and cached-flag checks;
        tvmlite keeps neither, so all non-zero masks mean the same check.
    error_render_level : str
        How a :class:`ScheduleError` message is rendered: ``"detail"`` (default: primitive,
        block or loop, and condition), ``"fast"`` (primitive and condition) or ``"none"``
        (``ScheduleError: (not rendered)``). tvmlite does not print the IR in the message:
        after a refusal :meth:`show` prints it unchanged.

    seed : int, optional
        The seed of the random state the sampling primitives draw from (None or -1:
        nondeterministic).

    Notes
    -----
    Classic TVM's ``enable_check`` is not accepted: every legality check always runs, since
    an unchecked primitive can compute a wrong answer.

    Every method is all-or-nothing: a refused call raises :class:`ScheduleError` (or
    ``TypeError`` for a wrong kind of argument) and leaves :attr:`mod`, :attr:`trace` and
    every handle as they were.
    """

    def __init__(self, mod: Union[IRModule, PrimFunc], *, seed: Optional[int] = None,
                 debug_mask: Union[str, int] = "none", error_render_level: str = "detail"):
        if isinstance(mod, PrimFunc):
            mod = IRModule({"main": mod})
        if not isinstance(mod, IRModule):
            raise TypeError(f"Schedule expects an IRModule or a PrimFunc, got "
                            f"{type(mod).__name__}")
        names = [k for k, f in mod.functions.items() if isinstance(f, PrimFunc)]
        if not names:
            raise ValueError("Schedule: the module has no PrimFunc")
        if error_render_level not in RENDER_LEVELS:
            raise ValueError(f"Schedule: error_render_level must be one of {RENDER_LEVELS}, "
                             f"got {error_render_level!r}")
        if debug_mask in ("all", "none"):
            debug_mask = -1 if debug_mask == "all" else 0
        elif isinstance(debug_mask, bool) or not isinstance(debug_mask, int):
            raise ValueError(f'Schedule: debug_mask must be "all", "none" or an int, got '
                             f"{debug_mask!r}")
        entry = [k for k in names if (mod[k].attrs or {}).get("tir.is_entry_func")]
        entry = entry or [k for k in names if k == "main"] or (names if len(names) == 1 else [])
        func_name = entry[0] if entry else names[0]
        self._state = ScheduleState(mod.copy(), func_name)
        # classic's get_block refuses to guess among several functions, none of them the entry
        self._func_chosen = bool(entry)
        self._trace = Trace()
        self._debug_mask: int = debug_mask
        self._error_render_level = error_render_level
        self._removed: Dict[int, Any] = {}  # id -> handle dropped by remove_rv
        self._running = False
        self._rng = _sampling.new_rng(seed)
        self._values: Dict[ExprRV, Any] = {}  # sampled values

    # ------------------------------------------------------------------ transactions
    def _atomic(self, name: str, fn: Callable, args: tuple, kwargs: dict):
        """``fn(*args, **kwargs)`` all-or-nothing: the one commit/rollback of the schedule.

        The IR is immutable and every primitive installs a new module through
        ``ScheduleState.set_body``, so the snapshot is three references (module, function
        worked on, trace length). On any exception they are restored and a
        :class:`ScheduleError` gets the schedule's ``error_render_level``; on success the
        ``debug_mask`` checks run. Calls nested inside a running one (``compute_at`` →
        ``compute_at_loops``, the calls of a trace replay) join its transaction.
        """
        if self._running:
            return fn(*args, **kwargs)
        state, insts = self._state, self._trace.insts
        mod, func_name, n_insts = state.mod, state.func_name, len(insts)
        renamed = state.renamed
        self._running = True
        try:
            self._check_live(name, args, kwargs.values())
            out = fn(*args, **kwargs)
            if self._debug_mask:
                self._verify(name)
            return out
        except BaseException as err:
            state.mod, state.func_name, state.renamed = mod, func_name, renamed
            del insts[n_insts:]
            if isinstance(err, ScheduleError):
                err.render(self._error_render_level)
            raise
        finally:
            self._running = False

    def _check_live(self, prim: str, args, kwargs) -> None:
        if not self._removed:
            return
        stack = list(args) + list(kwargs)
        while stack:
            x = stack.pop()
            if isinstance(x, (list, tuple)):
                stack.extend(x)
            elif isinstance(x, (BlockRV, LoopRV)) and self._removed.get(id(x)) is x:
                what = (f'block "{x.name}"' if isinstance(x, BlockRV)
                        else f'loop "{x.var.name}"')
                cond = "the handle was removed by remove_rv"
                raise HandleError(f"ScheduleError: {prim}: {what}: {cond}", prim, what, cond)

    def _verify(self, prim: str) -> None:
        """The ``debug_mask`` check: block names and loop variables are unique."""
        names: set = set()
        loop_vars: set = set()
        problems: List[str] = []

        def visit(s):
            if isinstance(s, BlockRealize):
                if s.block.name_hint in names:
                    problems.append(f'two blocks are named "{s.block.name_hint}"')
                names.add(s.block.name_hint)
            elif isinstance(s, For):
                if id(s.loop_var) in loop_vars:
                    problems.append(f'two loops bind variable "{s.loop_var.name}"')
                loop_vars.add(id(s.loop_var))

        walk_stmts(self._state.body, visit)
        if problems:
            raise InternalError(f"{prim}: debug_mask check failed: {'; '.join(problems)}")

    # ------------------------------------------------------------------ basics
    @property
    def mod(self) -> IRModule:
        """The scheduled module (a new object after every primitive that changes it)."""
        return self._state.mod

    @property
    def state(self) -> ScheduleState:
        """The engine's state: the module and the function primitives work on."""
        return self._state

    @property
    def trace(self) -> Trace:
        """The primitives applied so far (printable as Python); refused calls are not in it."""
        return self._trace

    @property
    def func_working_on(self) -> GlobalVar:
        """The function that :meth:`get_block` looks in."""
        return GlobalVar(self._state.func_name)

    @_all_or_nothing
    def work_on(self, func_name: str) -> None:
        """Make later :meth:`get_block` calls look in ``func_name``.

        Parameters
        ----------
        func_name : str
            The name of a PrimFunc of the module.
        """
        if func_name not in self._state.mod or not isinstance(self._state.mod[func_name],
                                                              PrimFunc):
            raise ValueError(f"work_on: {func_name!r} is not a PrimFunc of the module")
        self._state.func_name = func_name
        self._func_chosen = True
        self._trace.record("work_on", [func_name], None)

    def copy(self) -> "Schedule":
        """An independent schedule with the same state, trace and settings; handles remain
        valid in both.

        Returns
        -------
        Schedule
            The copy; primitives applied to either do not affect the other.
        """
        new = Schedule.__new__(Schedule)
        new._state = self._state.copy()
        new._trace = self._trace.copy()
        new._debug_mask = self._debug_mask
        new._func_chosen = self._func_chosen
        new._error_render_level = self._error_render_level
        new._removed = dict(self._removed)
        new._running = False
        new._rng = _sampling.new_rng(_sampling.fork_seed(self._rng))
        new._values = dict(self._values)
        return new

    def show(self) -> None:
        """Print the scheduled module as TVMScript."""
        print(self.mod.script())

    def _func_of(self, rv) -> None:
        fn = getattr(rv, "func_name", None)
        if fn is not None and fn != self._state.func_name and fn in self._state.mod:
            self._state.func_name = fn

    @_all_or_nothing
    def get(self, rv: RV) -> Union[Block, For]:
        """The current node of a handle.

        Parameters
        ----------
        rv : BlockRV or LoopRV
            The handle.

        Returns
        -------
        Block or For
            The block or loop the handle names now (nodes are immutable: a later primitive
            makes a new node, so call ``get`` again after it).
        """
        if isinstance(rv, ExprRV):
            return self._value(rv, "get")
        self._func_of(rv)
        if isinstance(rv, BlockRV):
            return self._state.block_path(rv, "get")[-1].block
        if isinstance(rv, LoopRV):
            return self._state.loop_path(rv, "get")[-1]
        raise TypeError(f"get: expected a BlockRV or LoopRV, got {type(rv).__name__}")

    def _value(self, x: Any, prim: str) -> Any:
        """``x`` with a sampled handle replaced by its value (an expression of handles, such
        as ``j1 * j2``, by the value it computes)."""
        if isinstance(x, ExprRV):
            if x not in self._values:
                raise fail(prim, repr(x), "the handle is not defined in this schedule")
            return self._values[x]
        if isinstance(x, PrimExpr) and not isinstance(x, IntImm):
            y = self._resolve_rvs(x)
            if y is not x:
                return y.value if isinstance(y, IntImm) else y
        return x

    def _rv_values(self) -> Dict[Var, PrimExpr]:
        """The variable of every sampled handle used in an expression, to its value."""
        return {rv._var: IntImm("int32", int(v)) for rv, v in self._values.items()
                if rv._var is not None}

    def _resolve_rvs(self, x: Any) -> Any:
        """``x`` (an expression, an IndexMap or a function giving indices) with the sampled
        handles it uses replaced by their values; ``x`` itself when it uses none."""
        if isinstance(x, PrimExpr):
            vals = self._rv_values()  # the handles' variables exist once used
            if not (vals and collect_vars(x) & set(vals)):
                return x
            return Analyzer().simplify(substitute(x, vals))  # ``j1 * j2`` as one constant
        if isinstance(x, IndexMap):
            finals = [self._resolve_rvs(e) for e in x.final_indices]
            if all(a is b for a, b in zip(finals, x.final_indices)):
                return x
            return IndexMap(x.initial_indices, finals)
        if callable(x):
            @functools.wraps(x)
            def resolved(*idx, **kw):
                out = x(*idx, **kw)
                if isinstance(out, (list, tuple)):
                    return type(out)(self._resolve_rvs(e) if isinstance(e, PrimExpr) else e
                                     for e in out)
                return self._resolve_rvs(out) if isinstance(out, PrimExpr) else out
            return resolved
        return x

    def get_sref(self, rv: RV) -> StmtSRef:
        """Classic TVM's ``get_sref``: a reference whose ``stmt`` is :meth:`get`'s node.

        Parameters
        ----------
        rv : BlockRV or LoopRV
            The handle.

        Returns
        -------
        StmtSRef
            ``.stmt`` is the node the handle names now.
        """
        return self._state.get_sref(self.get(rv))

    @_all_or_nothing
    def remove_rv(self, rv: RV) -> None:
        """Drop a handle from the schedule's symbol table; using it later is an error.

        Parameters
        ----------
        rv : BlockRV or LoopRV
            The handle to drop. Other handles to the same block or loop (e.g. a later
            ``get_block`` of the same name) stay valid.
        """
        if not isinstance(rv, (BlockRV, LoopRV)):
            raise TypeError(f"remove_rv: expected a BlockRV or LoopRV, got {type(rv).__name__}")
        self._removed[id(rv)] = rv
        self._trace.record("remove_rv", [rv], None)

    # ------------------------------------------------------------------ queries
    @_all_or_nothing
    def get_block(self, name: str, func_name: Optional[str] = None) -> BlockRV:
        """The block called ``name``.

        Parameters
        ----------
        name : str
            The block's name (unique within a function).
        func_name : str, optional
            The function to look in (it becomes the function worked on); default the
            function worked on.

        Returns
        -------
        BlockRV
            A handle to the block.
        """
        if func_name is not None:
            if func_name not in self._state.mod:
                raise ValueError(f"get_block: no function {func_name!r} in the module")
            self._state.func_name = func_name
        elif not self._func_chosen:
            raise ValueError("`get_block` does not know which function to be working on. Please "
                             "specify the function name explicitly, or call `work_on` to "
                             "specify the function before using `get_block`.")
        fn = self._state.func_name
        count = []
        walk_stmts(self._state.body, lambda s: count.append(s) if isinstance(
            s, BlockRealize) and s.block.name_hint == name else None)
        if not count:
            err = fail("get_block", f'block "{name}"', f"Cannot find a block with the name: "
                       f'{name} (no block of that name in function "{fn}")')
            # classic's generic "fast" text, after the name
            err.fast_text = (f"Cannot find a block with the name: {name} (Cannot find a block "
                             "with the specified name)")
            raise err
        if len(count) > 1:
            raise fail("get_block", f'block "{name}"', f"{len(count)} blocks have that name")
        rv = BlockRV(name, fn)
        self._trace.record("get_block", [name], rv, {"func_name": fn})
        return rv

    @_all_or_nothing
    def get_loops(self, block: Union[BlockRV, str]) -> List[LoopRV]:
        """The loops above ``block`` up to its enclosing block.

        Parameters
        ----------
        block : BlockRV or str
            The block. (a name is looked up with :meth:`get_block`)

        Returns
        -------
        list of LoopRV
            Outermost first.
        """
        self._func_of(block)
        path = self._state.block_path(block, "get_loops")
        out = [LoopRV(lp.loop_var, block.func_name) for lp in loops_above(path)]
        self._trace.record("get_loops", [block], out)
        return out

    @_all_or_nothing
    def get_child_blocks(self, rv: RV) -> List[BlockRV]:
        """The blocks directly under a block or loop (not those nested in another block).

        Parameters
        ----------
        rv : BlockRV or LoopRV
            The parent.

        Returns
        -------
        list of BlockRV
            In program order.
        """
        self._func_of(rv)
        node = (self._state.block_path(rv, "get_child_blocks")[-1] if isinstance(rv, BlockRV)
                else self._state.loop_path(rv, "get_child_blocks")[-1])
        fn = self._state.func_name
        out = [BlockRV(r.block.name_hint, fn) for r in child_blocks(node)]
        self._trace.record("get_child_blocks", [rv], out)
        return out

    @_all_or_nothing
    def get_output_blocks(self, scope_block: Union[BlockRV, str]) -> List[BlockRV]:
        """The blocks under ``scope_block`` that write a buffer not allocated by their scope
        (for the root scope: the blocks writing the function's outputs).

        Parameters
        ----------
        scope_block : BlockRV or str
            The scope (``"root"`` for the whole function).

        Returns
        -------
        list of BlockRV
            In program order, outer blocks before the blocks nested in them.
        """
        self._func_of(scope_block)
        fn = self._state.func_name
        out: List[BlockRV] = []

        def collect(realize: BlockRealize) -> None:
            allocated = realize.block.alloc_buffers
            for r in child_blocks(realize):
                if any(not any(w is a for a in allocated) for w in buffers_written(r.block)):
                    out.append(BlockRV(r.block.name_hint, fn))
                collect(r)

        collect(self._state.block_path(scope_block, "get_output_blocks")[-1])
        self._trace.record("get_output_blocks", [scope_block], out)
        return out

    @_all_or_nothing
    def add_unit_loop(self, block_or_loop: RV) -> LoopRV:
        """Wrap a block or a loop in a new loop of extent 1 (named ``u``).

        Parameters
        ----------
        block_or_loop : BlockRV or LoopRV
            What the new loop encloses (not the root block).

        Returns
        -------
        LoopRV
            The new loop.
        """
        self._func_of(block_or_loop)
        if isinstance(block_or_loop, BlockRV):
            path = self._state.block_path(block_or_loop, "add_unit_loop")
            if path[-1] is self._state.body:
                raise fail("add_unit_loop", f'block "{block_or_loop.name}"',
                           "Cannot add loops on top of the root block")
        elif isinstance(block_or_loop, LoopRV):
            path = self._state.loop_path(block_or_loop, "add_unit_loop")
        else:
            raise TypeError(f"add_unit_loop expects a BlockRV or a LoopRV, got "
                            f"{type(block_or_loop).__name__}")
        loop = For(Var("u", "int32"), IntImm("int32", 0), IntImm("int32", 1), ForKind.SERIAL,
                   path[-1])
        replace(self._state, path, loop)
        rv = LoopRV(loop.loop_var, self._state.func_name)
        self._trace.record("add_unit_loop", [block_or_loop], rv)
        return rv

    def _scope_siblings(self, rv: BlockRV, prim: str):
        self._func_of(rv)
        path = self._state.block_path(rv, prim)
        si = scope_index(path)
        scope = path[si] if si >= 0 else None
        sibs = child_blocks(scope) if scope is not None else child_blocks(self._state.body)
        return path[-1], sibs

    @_all_or_nothing
    def get_producers(self, block: Union[BlockRV, str]) -> List[BlockRV]:
        """The blocks of the same scope, before ``block`` in program order, that write a
        buffer ``block`` reads (TVM's read-after-write dependences).

        Parameters
        ----------
        block : BlockRV or str
            The consumer. (a name is looked up with :meth:`get_block`)

        Returns
        -------
        list of BlockRV
            In program order.
        """
        me, sibs = self._scope_siblings(block, "get_producers")
        reads = buffers_read(me.block)
        pos = next(k for k, r in enumerate(sibs) if r is me)
        out = [BlockRV(r.block.name_hint, block.func_name) for r in sibs[:pos]
               if any(any(b is w for w in buffers_written(r.block)) for b in reads)]
        self._trace.record("get_producers", [block], out)
        return out

    @_all_or_nothing
    def get_consumers(self, block: Union[BlockRV, str]) -> List[BlockRV]:
        """The blocks of the same scope, after ``block`` in program order, that read a buffer
        ``block`` writes.

        Parameters
        ----------
        block : BlockRV or str
            The producer. (a name is looked up with :meth:`get_block`)

        Returns
        -------
        list of BlockRV
            In program order.
        """
        out = [BlockRV(r.block.name_hint, block.func_name)
               for r in self._consumer_blocks(block, "get_consumers")]
        self._trace.record("get_consumers", [block], out)
        return out

    def _consumer_blocks(self, block: BlockRV, prim: str) -> List[BlockRealize]:
        me, sibs = self._scope_siblings(block, prim)
        writes = buffers_written(me.block)
        pos = next(k for k, r in enumerate(sibs) if r is me)
        return [r for r in sibs[pos + 1:]
                if any(any(b is w for w in buffers_read(r.block)) for b in writes)]

    # ------------------------------------------------------------------ sampling
    def seed(self, seed: int) -> None:
        """Reset the random state of the sampling primitives.

        Parameters
        ----------
        seed : int
            The new seed (-1: nondeterministic).
        """
        self._rng = _sampling.new_rng(seed)

    def fork_seed(self) -> int:
        """A seed drawn from this schedule's random state, for an independent one.

        Returns
        -------
        int
            The new seed.
        """
        return _sampling.fork_seed(self._rng)

    @_all_or_nothing
    def sample_categorical(self, candidates: Sequence[int], probs: Sequence[float],
                           decision: Optional[int] = None) -> ExprRV:
        """Sample one of ``candidates`` with probabilities ``probs``.

        Parameters
        ----------
        candidates : list of int
            The values.
        probs : list of float
            Their probabilities (normalized here).
        decision : int, optional
            The index to pick instead of sampling (a trace replay passes it).

        Returns
        -------
        ExprRV
            A handle to the value (:meth:`get` gives it; ``split`` and ``annotate`` take it).
        """
        value, idx = _sampling.sample_categorical(self._rng, candidates, probs, decision)
        rv = ExprRV()
        self._values[rv] = value
        self._trace.record("sample_categorical", [], rv,
                           {"candidates": [int(getattr(c, "value", c)) for c in candidates],
                            "probs": [float(getattr(p, "value", p)) for p in probs],
                            "decision": _sampling.decision_int(idx)})
        return rv

    @_all_or_nothing
    def sample_perfect_tile(self, loop: LoopRV, n: int, max_innermost_factor: int = 16,
                            decision: Optional[Sequence[int]] = None) -> List[ExprRV]:
        """Sample ``n`` tile sizes whose product is the loop's (constant) extent.

        Parameters
        ----------
        loop : LoopRV
            The loop to tile.
        n : int
            How many factors.
        max_innermost_factor : int
            The largest innermost factor (-1: no limit).
        decision : list of int, optional
            The factors to take instead of sampling (a trace replay passes them).

        Returns
        -------
        list of ExprRV
            Handles to the factors, outermost first, ready for :meth:`split`.
        """
        self._func_of(loop)
        factors = _sampling.sample_perfect_tile(self._state, self._rng, loop, n,
                                                max_innermost_factor, decision)
        out = [ExprRV() for _ in factors]
        self._values.update(zip(out, factors))
        self._trace.record("sample_perfect_tile", [loop], out,
                           {"n": n, "max_innermost_factor": max_innermost_factor,
                            "decision": factors})
        return out

    @_all_or_nothing
    def sample_compute_location(self, block: Union[BlockRV, str],
                                decision: Optional[int] = None) -> LoopRV:
        """Sample a place :meth:`compute_at` can move ``block`` to.

        Parameters
        ----------
        block : BlockRV or str
            The producer.
        decision : int, optional
            -2 (inline), -1 (root) or the index of a loop above its first consumer, to take
            instead of sampling (a trace replay passes it).

        Returns
        -------
        LoopRV
            The loop, or the root or inline mark (which :meth:`compute_at` also takes).
        """
        self._func_of(block)
        consumers = [self._state.block_path(BlockRV(r.block.name_hint, block.func_name))
                     for r in self._consumer_blocks(block, "sample_compute_location")]
        rv, k = _sampling.sample_compute_location(self._state, self._rng, block, consumers,
                                                  decision)
        self._trace.record("sample_compute_location", [block], rv,
                           {"decision": _sampling.decision_int(k)})
        return rv

    # ------------------------------------------------------------------ loops
    @_all_or_nothing
    @_with_example(_split.split)
    def split(self, loop: LoopRV, factors: Sequence[Optional[Any]],
              preserve_unit_iters: bool = True) -> List[LoopRV]:
        """Split ``loop`` into a nest of loops whose extents are ``factors``.

        Parameters
        ----------
        loop : LoopRV
            The loop to split (it is gone afterwards).
        factors : list of int or None
            The extents, outermost first; at most one None, inferred. A product larger than
            the extent guards the tail with a predicate.
        preserve_unit_iters : bool
            Keep iterators of extent 1 in the block bindings.

        Returns
        -------
        list of LoopRV
            The new loops, outermost first.
        """
        self._func_of(loop)
        out = _split.split(self._state, loop, [self._value(f, "split") for f in factors],
                           preserve_unit_iters)
        # a handle is recorded as itself; an expression of handles as its value
        factors = [f if isinstance(f, ExprRV) or f is None else self._value(f, "split")
                   for f in factors]
        self._trace.record("split", [loop], out, {"factors": list(factors),
                                                   "preserve_unit_iters": preserve_unit_iters})
        return out

    @_all_or_nothing
    @_with_example(_fuse.fuse)
    def fuse(self, *loops: LoopRV, preserve_unit_iters: bool = True) -> LoopRV:
        """Fuse consecutive loops of one nest into one.

        Parameters
        ----------
        *loops : LoopRV
            The loops, outermost first (or one list of them); each the only child of the
            previous.
        preserve_unit_iters : bool
            Keep iterators of extent 1 in the block bindings.

        Returns
        -------
        LoopRV
            The fused loop.
        """
        if len(loops) == 1 and isinstance(loops[0], (list, tuple)):
            loops = tuple(loops[0])
        if loops:
            self._func_of(loops[0])
        out = _fuse.fuse(self._state, loops, preserve_unit_iters)
        self._trace.record("fuse", list(loops), out,
                           {"preserve_unit_iters": preserve_unit_iters})
        return out

    @_all_or_nothing
    @_with_example(_merge.merge)
    def merge(self, *loops: LoopRV) -> LoopRV:
        """Run sibling loop nests of the same shape under one shared nest.

        Parameters
        ----------
        *loops : LoopRV
            Loops of adjacent, independent nests (or one list of them); the loops from
            their common ancestor down to each are merged level by level.

        Returns
        -------
        LoopRV
            The innermost merged loop.
        """
        if len(loops) == 1 and isinstance(loops[0], (list, tuple)):
            loops = tuple(loops[0])
        if loops:
            self._func_of(loops[0])
        out = _merge.merge(self._state, loops)
        self._trace.record("merge", list(loops), out)
        return out

    @_all_or_nothing
    @_with_example(_reorder.reorder)
    def reorder(self, *ordered_loops: LoopRV) -> None:
        """Reorder loops of one nest into the given order.

        Parameters
        ----------
        *ordered_loops : LoopRV
            The loops in their new order (or one list of them); loops of the nest not given
            keep their places.
        """
        if len(ordered_loops) == 1 and isinstance(ordered_loops[0], (list, tuple)):
            ordered_loops = tuple(ordered_loops[0])
        if ordered_loops:
            self._func_of(ordered_loops[0])
        _reorder.reorder(self._state, ordered_loops)
        self._trace.record("reorder", list(ordered_loops), None)

    @_all_or_nothing
    @_with_example(_lk.parallel)
    def parallel(self, loop: LoopRV) -> None:
        """Run the iterations of a data-parallel loop in parallel threads.

        Parameters
        ----------
        loop : LoopRV
            A loop bound only to data-parallel block iterators.
        """
        self._func_of(loop)
        _lk.parallel(self._state, loop)
        self._trace.record("parallel", [loop], None)

    @_all_or_nothing
    @_with_example(_lk.vectorize)
    def vectorize(self, loop: LoopRV) -> None:
        """Mark a data-parallel loop to become vector operations.

        Parameters
        ----------
        loop : LoopRV
            A loop bound only to data-parallel block iterators.
        """
        self._func_of(loop)
        _lk.vectorize(self._state, loop)
        self._trace.record("vectorize", [loop], None)

    @_all_or_nothing
    @_with_example(_lk.unroll)
    def unroll(self, loop: LoopRV) -> None:
        """Mark a loop to be unrolled.

        Parameters
        ----------
        loop : LoopRV
            The loop.
        """
        self._func_of(loop)
        _lk.unroll(self._state, loop)
        self._trace.record("unroll", [loop], None)

    @_all_or_nothing
    @_with_example(_lk.bind)
    def bind(self, loop: LoopRV, thread_axis: str) -> None:
        """Bind a loop to a GPU thread axis.

        Parameters
        ----------
        loop : LoopRV
            The loop.
        thread_axis : str
            ``"threadIdx.x"``, ``"blockIdx.y"``, ``"vthread"``, ...
        """
        self._func_of(loop)
        _lk.bind(self._state, loop, thread_axis)
        self._trace.record("bind", [loop], None, {"thread_axis": thread_axis})

    @_all_or_nothing
    @_with_example(_annotate.annotate)
    def annotate(self, block_or_loop: RV, ann_key: str, ann_val: Any) -> None:
        """Set an annotation on a loop or block (a later one with the same key replaces it).

        Parameters
        ----------
        block_or_loop : BlockRV or LoopRV
            What to annotate.
        ann_key : str
            The key, e.g. ``"pragma_unroll_explicit"``.
        ann_val : object
            The value (an int, str, float or PrimExpr).
        """
        self._func_of(block_or_loop)
        _annotate.annotate(self._state, block_or_loop, ann_key, self._value(ann_val, "annotate"))
        self._trace.record("annotate", [block_or_loop], None,
                           {"ann_key": ann_key, "ann_val": ann_val})

    @_all_or_nothing
    def unannotate(self, block_or_loop: RV, ann_key: str) -> None:
        """Remove an annotation from a loop or block (the reverse of :meth:`annotate`).

        Parameters
        ----------
        block_or_loop : BlockRV or LoopRV
            What to unannotate; it must have ``ann_key``.
        ann_key : str
            The key.

        Examples
        --------
        Before: ``for i in T.serial(8, annotations={"pragma_unroll": 1}):`` — After
        ``unannotate(i, "pragma_unroll")``: ``for i in range(8):``
        """
        self._func_of(block_or_loop)
        _annotate.unannotate(self._state, block_or_loop, ann_key)
        self._trace.record("unannotate", [block_or_loop], None, {"ann_key": ann_key})

    # ------------------------------------------------------------------ compute location
    @_all_or_nothing
    @_with_example(_ca.compute_at)
    def compute_at_loops(self, block: BlockRV, loop: LoopRV, preserve_unit_loops: bool = False,
                         index: int = -1) -> List[LoopRV]:
        """:meth:`compute_at`, returning the loops it created for the block.

        Parameters
        ----------
        block, loop, preserve_unit_loops, index
            As for :meth:`compute_at`.

        Returns
        -------
        list of LoopRV
            The new loops around the block, outermost first.
        """
        self._func_of(block)
        if loop is _sampling.COMPUTE_ROOT or loop is _sampling.COMPUTE_INLINE:
            # the marks sample_compute_location returns: stay where it is, or inline
            if loop is _sampling.COMPUTE_INLINE:
                _ci.compute_inline(self._state, block)
            self._trace.record("compute_at", [block, loop], None,
                               {"preserve_unit_loops": preserve_unit_loops})
            return []
        out = _ca.compute_at(self._state, block, loop, preserve_unit_loops, index)
        self._trace.record("compute_at", [block, loop], None, _at_attrs(preserve_unit_loops,
                                                                         index))
        return out

    @_all_or_nothing
    @_with_example(_ca.compute_at)
    def compute_at(self, block: BlockRV, loop: LoopRV, preserve_unit_loops: bool = False,
                   index: int = -1) -> None:
        """Move a producer block under ``loop`` of its consumers, computing per iteration
        only the region they need there.

        Parameters
        ----------
        block : BlockRV
            The producer; the only writer of what it produces, not an output of the function.
        loop : LoopRV
            A loop above every consumer of the block, in the same block scope.
        preserve_unit_loops : bool
            Keep the new loops of extent 1.
        index : int
            The insertion position among the loop's children: -1 (default) just before
            the block's first consumer, -2 just after its last producer, k >= 0 position k
            (refused unless between those two).
        """
        self.compute_at_loops(block, loop, preserve_unit_loops, index)

    @_all_or_nothing
    @_with_example(_ca.reverse_compute_at)
    def reverse_compute_at_loops(self, block: BlockRV, loop: LoopRV,
                                 preserve_unit_loops: bool = False,
                                 index: int = -1) -> List[LoopRV]:
        """:meth:`reverse_compute_at`, returning the loops it created for the block.

        Parameters
        ----------
        block, loop, preserve_unit_loops, index
            As for :meth:`reverse_compute_at`.

        Returns
        -------
        list of LoopRV
            The new loops around the block, outermost first.
        """
        self._func_of(block)
        out = _ca.reverse_compute_at(self._state, block, loop, preserve_unit_loops, index)
        self._trace.record("reverse_compute_at", [block, loop], None,
                           _at_attrs(preserve_unit_loops, index))
        return out

    @_all_or_nothing
    @_with_example(_ca.reverse_compute_at)
    def reverse_compute_at(self, block: BlockRV, loop: LoopRV,
                           preserve_unit_loops: bool = False, index: int = -1) -> None:
        """Move a consumer block under ``loop`` of its producers, computing per iteration the
        part of its domain whose inputs that iteration produced.

        Parameters
        ----------
        block : BlockRV
            The consumer.
        loop : LoopRV
            A loop above every producer of the block, in the same block scope.
        preserve_unit_loops : bool
            Keep the new loops of extent 1.
        index : int
            The insertion position among the loop's children: -1 (default) and -2 just
            after the block's last producer, k >= 0 position k (refused unless between that
            and the first child reading what the block writes).
        """
        self.reverse_compute_at_loops(block, loop, preserve_unit_loops, index)

    @_all_or_nothing
    @_with_example(_ci.compute_inline)
    def compute_inline(self, block: BlockRV) -> None:
        """Inline a producer block into its consumers.

        Parameters
        ----------
        block : BlockRV
            A block storing one value per iteration, with no reduction.
        """
        self._func_of(block)
        _ci.compute_inline(self._state, block)
        self._trace.record("compute_inline", [block], None)

    @_all_or_nothing
    @_with_example(_ci.reverse_compute_inline)
    def reverse_compute_inline(self, block: BlockRV) -> None:
        """Inline a consumer block into its only producer.

        Parameters
        ----------
        block : BlockRV
            A block with no reduction reading one buffer element per iteration.
        """
        self._func_of(block)
        _ci.reverse_compute_inline(self._state, block)
        self._trace.record("reverse_compute_inline", [block], None)

    # ------------------------------------------------------------------ caches & buffers
    @_all_or_nothing
    @_with_example(_cache.cache_read)
    def cache_read(self, block: BlockRV, read_buffer_index: int, storage_scope: str,
                   consumer_blocks: Optional[Sequence[BlockRV]] = None) -> BlockRV:
        """Add a block copying a buffer ``block`` reads into a cache in ``storage_scope``.

        Parameters
        ----------
        block : BlockRV
            A block reading the buffer.
        read_buffer_index : int
            Which of the block's reads (its ``reads`` order).
        storage_scope : str
            ``"global"``, ``"shared"``, ``"local"``, ...
        consumer_blocks : list of BlockRV, optional
            The blocks to read the cache instead of the buffer; default every reader.

        Returns
        -------
        BlockRV
            The copy block.
        """
        self._func_of(block)
        out = _cache.cache_read(self._state, block, read_buffer_index, storage_scope,
                                consumer_blocks)
        attrs = {"read_buffer_index": read_buffer_index, "storage_scope": storage_scope}
        if consumer_blocks is not None:
            attrs["consumer_blocks"] = list(consumer_blocks)
        self._trace.record("cache_read", [block], out, attrs)
        return out

    @_all_or_nothing
    @_with_example(_cache.cache_write)
    def cache_write(self, block: BlockRV, write_buffer_index: int, storage_scope: str,
                    consumer_blocks: Optional[Sequence[BlockRV]] = None) -> BlockRV:
        """Make ``block`` write into a cache in ``storage_scope``, copied out by a new block.

        Parameters
        ----------
        block : BlockRV
            The writer.
        write_buffer_index : int
            Which of the block's writes.
        storage_scope : str
            ``"global"``, ``"shared"``, ``"local"``, ...
        consumer_blocks : list of BlockRV, optional
            Blocks that read the cache directly; the other consumers keep reading the
            original buffer, which the copy block writes back.

        Returns
        -------
        BlockRV
            The copy block.
        """
        self._func_of(block)
        out = _cache.cache_write(self._state, block, write_buffer_index, storage_scope,
                                 consumer_blocks)
        attrs = {"write_buffer_index": write_buffer_index, "storage_scope": storage_scope}
        if consumer_blocks is not None:
            attrs["consumer_blocks"] = list(consumer_blocks)
        self._trace.record("cache_write", [block], out, attrs)
        return out

    @_all_or_nothing
    @_with_example(_cidx.cache_index)
    def cache_index(self, block: BlockRV, storage_scope: str,
                    cse_thresh: int = 0) -> List[BlockRV]:
        """Precompute the pure computations of the block iterators that ``block``'s stores
        use into buffers filled before its loop nest.

        Parameters
        ----------
        block : BlockRV
            The block.
        storage_scope : str
            ``"global"``, ``"shared"``, ``"local"``, ...
        cse_thresh : int
            A computation seen fewer times than this is not cached as a whole; its
            sub-computations are considered instead (0: every largest computation).

        Returns
        -------
        list of BlockRV
            The blocks filling the index buffers.
        """
        self._func_of(block)
        out = _cidx.cache_index(self._state, block, storage_scope, cse_thresh)
        self._trace.record("cache_index", [block], out,
                           {"storage_scope": storage_scope, "cse_thresh": cse_thresh})
        return out

    @_all_or_nothing
    @_with_example(_cache.cache_inplace)
    def cache_inplace(self, block: BlockRV, read_buffer_index: int,
                      storage_scope: str) -> List[BlockRV]:
        """Make a block that reads and writes a buffer in place work on a cache in
        ``storage_scope``, copied in right before it and back right after it.

        Parameters
        ----------
        block : BlockRV
            The block; it both reads and writes the buffer.
        read_buffer_index : int
            Which of the block's reads (or the buffer, or its name).
        storage_scope : str
            ``"global"``, ``"shared"``, ``"local"``, ...

        Returns
        -------
        list of BlockRV
            The copy-in and the copy-out blocks.
        """
        self._func_of(block)
        out = list(_cache.cache_inplace(self._state, block, read_buffer_index, storage_scope))
        self._trace.record("cache_inplace", [block], out,
                           {"read_buffer_index": read_buffer_index,
                            "storage_scope": storage_scope})
        return out

    @_all_or_nothing
    @_with_example(_rwa.read_at)
    def read_at(self, loop: LoopRV, block: BlockRV, read_buffer_index: int,
                storage_scope: str) -> BlockRV:
        """Copy what one iteration of ``loop`` reads of a buffer into ``storage_scope``, by a
        block placed under ``loop`` before its first reader.

        Parameters
        ----------
        loop : LoopRV
            A loop above ``block``.
        block : BlockRV
            A block reading the buffer.
        read_buffer_index : int
            Which of the block's reads.
        storage_scope : str
            ``"shared"``, ``"local"``, ...

        Returns
        -------
        BlockRV
            The copy block (annotated ``auto_copy``).
        """
        self._func_of(block)
        out = _rwa.read_at(self._state, loop, block, read_buffer_index, storage_scope)
        self._trace.record("read_at", [loop, block], out,
                           {"read_buffer_index": read_buffer_index,
                            "storage_scope": storage_scope})
        return out

    @_all_or_nothing
    @_with_example(_rwa.write_at)
    def write_at(self, loop: LoopRV, block: BlockRV, write_buffer_index: int,
                 storage_scope: str) -> BlockRV:
        """Make the writers of a buffer under ``loop`` write a ``storage_scope`` copy, written
        back by a block placed under ``loop`` after its last writer.

        Parameters
        ----------
        loop : LoopRV
            A loop above ``block``.
        block : BlockRV
            A block writing the buffer.
        write_buffer_index : int
            Which of the block's writes.
        storage_scope : str
            ``"shared"``, ``"local"``, ...

        Returns
        -------
        BlockRV
            The copy block (annotated ``auto_copy``).
        """
        self._func_of(block)
        out = _rwa.write_at(self._state, loop, block, write_buffer_index, storage_scope)
        self._trace.record("write_at", [loop, block], out,
                           {"write_buffer_index": write_buffer_index,
                            "storage_scope": storage_scope})
        return out

    @_all_or_nothing
    @_with_example(_sa.storage_align)
    def storage_align(self, block: BlockRV, buffer_index: int, axis: int, factor: int,
                      offset: int) -> None:
        """Pad the stride of ``axis`` of a buffer ``block`` writes to ``k * factor + offset``.

        Parameters
        ----------
        block : BlockRV
            The writer.
        buffer_index : int
            Which of the block's writes; it must be allocated in the function.
        axis : int
            The dimension whose stride is padded.
        factor, offset : int
            ``0 <= offset < factor``.
        """
        self._func_of(block)
        _sa.storage_align(self._state, block, buffer_index, axis, factor, offset)
        self._trace.record("storage_align", [block], None,
                           {"buffer_index": buffer_index, "axis": axis, "factor": factor,
                            "offset": offset})

    @_all_or_nothing
    @_with_example(_ss.set_scope)
    def set_scope(self, block: BlockRV, buffer_index: int, storage_scope: str) -> None:
        """Set the storage scope of a buffer ``block`` writes.

        Parameters
        ----------
        block : BlockRV
            The writer.
        buffer_index : int
            Which of the block's writes; it must be allocated in the function.
        storage_scope : str
            ``"global"``, ``"shared"``, ``"local"``, ...
        """
        self._func_of(block)
        _ss.set_scope(self._state, block, buffer_index, storage_scope)
        self._trace.record("set_scope", [block], None,
                           {"buffer_index": buffer_index, "storage_scope": storage_scope})

    @_all_or_nothing
    @_with_example(_sd.unsafe_set_dtype)
    def unsafe_set_dtype(self, block: BlockRV, buffer_index: int, dtype: str) -> None:
        """Store a buffer ``block`` writes as ``dtype``; its stores cast to it and its loads
        cast back (unsafe: values may lose precision or range).

        Parameters
        ----------
        block : BlockRV or str
            The writer.
        buffer_index : int
            Which of the block's writes; it must be allocated in the function.
        dtype : str
            The new element type.
        """
        self._func_of(block)
        _sd.unsafe_set_dtype(self._state, block, buffer_index, dtype)
        self._trace.record("unsafe_set_dtype", [block], None,
                           {"buffer_index": buffer_index, "dtype": dtype})

    @_all_or_nothing
    @_with_example(_reindex.reindex)
    def reindex(self, block: Union[BlockRV, str], buffer: Any) -> BlockRV:
        """Make ``block`` access a buffer through a copy indexed by the block iterators its
        access uses, filled before it (a read) or written back after it (a write).

        Parameters
        ----------
        block : BlockRV or str
            The block; all its accesses to the buffer use the same indices.
        buffer : tuple or str or Buffer
            ``("read", i)`` / ``("write", i)``, or the buffer's name.

        Returns
        -------
        BlockRV
            The copy block.
        """
        self._func_of(block)
        out, spec = _reindex.reindex(self._state, block, buffer)
        self._trace.record("reindex", [block], out, {"buffer": spec})
        return out

    @_all_or_nothing
    @_with_example(_rc.reindex_cache_read)
    def reindex_cache_read(self, block: Union[BlockRV, str], read_buffer_index: int,
                           storage_scope: str, index_map: Any) -> BlockRV:
        """Make ``block`` read a buffer through a ``storage_scope`` cache laid out by
        ``index_map`` of its iterators, filled by a copy of its loop nest.

        Parameters
        ----------
        block : BlockRV or str
            The consumer; it reads the buffer at one point.
        read_buffer_index : int
            Which of the block's reads.
        storage_scope : str
            ``"shared"``, ``"local"``, ...
        index_map : IndexMap or callable
            Block iterators to cache indices; injective, using the iterators the access uses.

        Returns
        -------
        BlockRV
            The copy block.
        """
        self._func_of(block)
        out, imap = _rc.reindex_cache_read(self._state, block, read_buffer_index,
                                           storage_scope, index_map)
        self._trace.record("reindex_cache_read", [block], out,
                           {"read_buffer_index": read_buffer_index,
                            "storage_scope": storage_scope, "index_map": imap})
        return out

    @_all_or_nothing
    @_with_example(_rc.reindex_cache_write)
    def reindex_cache_write(self, block: Union[BlockRV, str], write_buffer_index: int,
                            storage_scope: str, index_map: Any) -> BlockRV:
        """Make ``block`` write a buffer into a ``storage_scope`` cache laid out by
        ``index_map`` of its iterators, written back by a copy of its loop nest.

        Parameters
        ----------
        block : BlockRV or str
            The only writer of the buffer; it writes one point.
        write_buffer_index : int
            Which of the block's writes.
        storage_scope : str
            ``"shared"``, ``"local"``, ...
        index_map : IndexMap or callable
            Block iterators to cache indices; injective, using the iterators the access uses.

        Returns
        -------
        BlockRV
            The copy block.
        """
        self._func_of(block)
        out, imap = _rc.reindex_cache_write(self._state, block, write_buffer_index,
                                            storage_scope, index_map)
        self._trace.record("reindex_cache_write", [block], out,
                           {"write_buffer_index": write_buffer_index,
                            "storage_scope": storage_scope, "index_map": imap})
        return out

    @_all_or_nothing
    @_with_example(_tl.transform_layout)
    def transform_layout(self, block: Union[BlockRV, str], buffer: Any, index_map: Any,
                         pad_value: Any = None, *,
                         assume_injective_transform: bool = False) -> None:
        """Change the layout of a buffer ``block`` accesses; every access in the function
        follows.

        Parameters
        ----------
        block : BlockRV or str
            A block accessing the buffer.
        buffer : tuple or str or Buffer
            ``("read", i)`` / ``("write", i)`` (the block's i-th read or write region), or
            the buffer's name.
        index_map : IndexMap or callable
            Old indices to new ones, e.g. ``lambda i, j: [i // 16, j, i % 16]``; an
            ``IndexMap.AXIS_SEPARATOR`` among the outputs sets axis separators.
        pad_value : int, float, PrimExpr or callable, optional
            The value of padding elements, where the new layout has any.
        assume_injective_transform : bool
            Allow a padding layout without ``pad_value``: the padding is never accessed.
        """
        self._func_of(block)
        index_map = self._resolve_rvs(index_map)  # ``lambda i: i // (j1 * j2)``
        spec, imap, pad = _tl.transform_layout(self._state, block, buffer, index_map,
                                               pad_value, assume_injective_transform)
        attrs = {"buffer": spec, "index_map": imap, "pad_value": pad}
        if assume_injective_transform:
            attrs["assume_injective_transform"] = True
        self._trace.record("transform_layout", [block], None, attrs)

    @_all_or_nothing
    @_with_example(_tbl.transform_block_layout)
    def transform_block_layout(self, block: Union[BlockRV, str], index_map: Any) -> None:
        """Replace the loops of a block by loops over ``index_map`` of its iterators.

        Parameters
        ----------
        block : BlockRV or str
            A block alone under its loops, each loop bound to one of its iterators.
        index_map : IndexMap or callable
            Block iterators to new ones: an affine bijection, e.g.
            ``lambda i, j: (i * 128 + j,)``.
        """
        self._func_of(block)
        imap = _tbl.transform_block_layout(self._state, block, index_map)
        self._trace.record("transform_block_layout", [block], None, {"index_map": imap})

    @_all_or_nothing
    @_with_example(_tl.set_axis_separator)
    def set_axis_separator(self, block: Union[BlockRV, str], buffer: Any,
                           axis_separators: Optional[Sequence[int]]) -> None:
        """Set the axis separators of a buffer ``block`` accesses.

        Parameters
        ----------
        block : BlockRV or str
            A block accessing the buffer.
        buffer : tuple or str or Buffer
            As for :meth:`transform_layout`.
        axis_separators : list of int
            Increasing axis positions where a new physical dimension starts.
        """
        self._func_of(block)
        spec = _tl.set_axis_separator(self._state, block, buffer, axis_separators)
        self._trace.record("set_axis_separator", [block], None,
                           {"buffer": spec, "axis_separators": list(axis_separators or [])})

    # ------------------------------------------------------------------ reductions
    @_all_or_nothing
    @_with_example(_dr.decompose_reduction)
    def decompose_reduction(self, block: BlockRV, loop: LoopRV) -> BlockRV:
        """Move the init of a reduction block into its own block before ``loop``.

        Parameters
        ----------
        block : BlockRV
            A block with ``T.init()``.
        loop : LoopRV
            A loop above the block, outside every reduction loop of it.

        Returns
        -------
        BlockRV
            The init block.
        """
        self._func_of(block)
        out = _dr.decompose_reduction(self._state, block, loop)
        self._trace.record("decompose_reduction", [block, loop], out)
        return out

    @_all_or_nothing
    @_with_example(_dp.decompose_padding)
    def decompose_padding(self, block: Union[BlockRV, str], loop: LoopRV) -> BlockRV:
        """Split a padding block into a block filling the pad constant, placed before
        ``loop``, and the block itself restricted to the in-bound region.

        Parameters
        ----------
        block : BlockRV or str
            A block storing ``T.if_then_else(predicate, value, constant)``.
        loop : LoopRV
            A loop above the block: where the constant fill goes.

        Returns
        -------
        BlockRV
            The constant-fill block (``<name>_pad_const``).
        """
        self._func_of(block)
        out = _dp.decompose_padding(self._state, block, loop)
        self._trace.record("decompose_padding", [block, loop], out)
        return out

    def can_decompose_padding(self, block: Union[BlockRV, str], loop: LoopRV) -> bool:
        """Whether :meth:`decompose_padding` accepts ``block`` at ``loop`` (nothing changes).

        Parameters
        ----------
        block : BlockRV or str
            The padding block.
        loop : LoopRV
            A loop above it.

        Returns
        -------
        bool
            True when the decomposition would succeed.
        """
        if isinstance(block, str):
            block = self.get_block(block)
        return _dp.can_decompose_padding(self._state, block, loop)

    @_all_or_nothing
    @_with_example(_rb.rolling_buffer)
    def rolling_buffer(self, block: Union[BlockRV, str], write_buffer_index: int) -> None:
        """Keep only the window of a written buffer one tile needs, indexed circularly, and
        skip recomputing what the previous tile produced.

        Parameters
        ----------
        block : BlockRV or str
            The producer block, under a tile loop shared with its consumers.
        write_buffer_index : int
            Which of the block's written buffers rolls.
        """
        self._func_of(block)
        _rb.rolling_buffer(self._state, block, write_buffer_index)
        self._trace.record("rolling_buffer", [block], None,
                           {"write_buffer_index": write_buffer_index})

    @_all_or_nothing
    @_with_example(_pe.pad_einsum)
    def pad_einsum(self, block: Union[BlockRV, str], padding: List[int]) -> None:
        """Pad an einsum block's iterators, its intermediate buffers and its producers' loops
        (the producers store zero in the padding).

        Parameters
        ----------
        block : BlockRV or str
            The einsum (reduction) block.
        padding : list of int
            The padding of each block iterator (non-negative).
        """
        self._func_of(block)
        padding = [int(p) for p in padding]
        _pe.pad_einsum(self._state, block, padding)
        self._trace.record("pad_einsum", [block], None, {"padding": padding})

    @_all_or_nothing
    @_with_example(_rf.rfactor)
    def rfactor(self, loop: LoopRV, factor_axis: int) -> BlockRV:
        """Factor a reduction over ``loop`` into a block of partial results and a block
        reducing them.

        Parameters
        ----------
        loop : LoopRV
            A loop bound to reduction iterators of one reduction block.
        factor_axis : int
            Where the new dimension goes in the partial-result buffer.

        Returns
        -------
        BlockRV
            The partial-result (``rf``) block.
        """
        self._func_of(loop)
        out = _rf.rfactor(self._state, loop, factor_axis)
        self._trace.record("rfactor", [loop], out, {"factor_axis": factor_axis})
        return out

    # ------------------------------------------------------------------ tensorization
    @_all_or_nothing
    def blockize(self, loop: LoopRV, preserve_unit_iters: bool = True) -> BlockRV:
        """Wrap the loops from ``loop`` down to their single block in a new outer block.

        Parameters
        ----------
        loop : LoopRV
            The top of a perfect nest over one block.
        preserve_unit_iters : bool
            Keep block iterators of extent 1 (so an intrinsic description with unit loops
            still lines up); without it they are folded away.

        Returns
        -------
        BlockRV
            The outer block, named after the inner one with ``_o``.

        Examples
        --------
        Before::

            for i_0, i_1 in T.grid(2, 4):
                with T.block("B"):
                    vi = T.axis.spatial(8, i_0 * 4 + i_1)
                    B[vi] = A[vi] * 2.0

        After ``blockize(i_1)``::

            for i_0 in range(2):
                with T.block("B_o"):
                    vi_o = T.axis.spatial(2, i_0)
                    for i_1 in range(4):
                        with T.block("B"):
                            vi_i = T.axis.spatial(4, i_1)
                            B[vi_o * 4 + vi_i] = A[vi_o * 4 + vi_i] * 2.0
        """
        self._func_of(loop)
        out = _bt.blockize(self._state, loop, preserve_unit_iters)
        self._trace.record("blockize", [loop], out,
                           {"preserve_unit_iters": preserve_unit_iters})
        return out

    @_all_or_nothing
    def tensorize(self, block_or_loop: RV, tensor_intrin: Any,
                  preserve_unit_iters: bool = True) -> None:
        """Replace a block (or the block :meth:`blockize` makes of a loop) by an intrinsic.

        Parameters
        ----------
        block_or_loop : BlockRV or LoopRV
            The block whose computation matches the intrinsic's description, or the loop to
            blockize first.
        tensor_intrin : str or TensorIntrin
            The name of a registered ``tir.TensorIntrin``, the object itself, or a
            ``te.decl_tensor_intrin`` result.
        preserve_unit_iters : bool
            As for :meth:`blockize`.

        Examples
        --------
        Before (``i_1`` a loop of 4 over ``C[vi] = C[vi] + A[vi] * B[vi]``)::

            for i_0, i_1 in T.grid(2, 4):
                with T.block("C"):
                    ...

        After ``tensorize(i_1, "dot4")``::

            for i_0 in range(2):
                with T.block("C_o"):
                    vi_o = T.axis.spatial(2, i_0)
                    ...  # the body of the intrinsic's implementation, on C[vi_o * 4:...]
        """
        self._func_of(block_or_loop)
        intrin = (TensorIntrin.get(tensor_intrin) if isinstance(tensor_intrin, str)
                  else tensor_intrin)
        if not isinstance(intrin, TensorIntrin) and not hasattr(intrin, "as_engine_intrin"):
            raise TypeError(f"tensorize: expected a TensorIntrin or its registered name, got "
                            f"{type(tensor_intrin).__name__}")
        state = self._state
        block = (_bt.blockize(state, block_or_loop, preserve_unit_iters)
                 if isinstance(block_or_loop, LoopRV)
                 else block_or_loop)
        if isinstance(intrin, TensorIntrin):
            impl = intrin.impl
            bufs = [impl.buffer_map.get(p) for p in impl.params]
            _bt.tensorize_block(state, block, intrin.desc, bufs, impl)
        else:
            desc, bufs, body, reset, update = intrin.as_engine_intrin()
            _bt.tensorize_block(state, block, desc, bufs, body, reset, update)
        # The trace names a registered intrinsic, so that its Python replays.
        recorded = tensor_intrin if isinstance(tensor_intrin, str) else TensorIntrin.name_of(
            intrin) or intrin
        self._trace.record("tensorize", [block_or_loop], None,
                           {"tensor_intrin": recorded,
                            "preserve_unit_iters": preserve_unit_iters})


__all__ = ["Schedule", "ScheduleError", "BlockRV", "LoopRV"]
