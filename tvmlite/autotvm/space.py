"""Configuration spaces of AutoTVM templates (``autotvm.task.space``).

A template defines knobs on the config it gets from ``autotvm.get_config()``: a
:class:`ConfigSpace` while a task is created (the definitions build the space), a
:class:`ConfigEntity` (one point, the definitions are ignored) while a config is applied, or a
:class:`FallbackConfigEntity` when no tuned record matches (each knob takes a default value).

A point's index mixes the knobs in definition order, the first knob varying fastest (as in
classic TVM), so index ``i`` decodes as ``i % len(knob0)``, ``(i // len(knob0)) % len(knob1)``…
"""
from __future__ import annotations

import bisect
import itertools
import math
import random
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence

from .. import te
from ..error import TVMError
from ..tir.expr import IntImm


class SpaceError(TVMError, ValueError):
    """A knob definition or a config index that makes no sense."""


def _extent_of(axis) -> int:
    """The constant extent of an IterVar, a VirtualAxis or a plain int."""
    if isinstance(axis, VirtualAxis):
        return axis.length
    if isinstance(axis, bool):
        raise SpaceError(f"a split axis must be an IterVar or an int, got {axis!r}")
    if isinstance(axis, int):
        return axis
    dom = getattr(axis, "dom", None)
    if dom is not None:
        ext = dom.extent
        if isinstance(ext, IntImm):
            return int(ext.value)
        raise SpaceError(f"cannot define a split over axis {axis.var.name} of symbolic extent "
                         f"{ext}")
    raise SpaceError(f"a split axis must be an IterVar or an int, got {type(axis).__name__}")


class VirtualAxis:
    """An axis known only by its length (``cfg.axis(n)``), for knobs defined before the
    compute."""

    def __init__(self, var, name: Optional[str] = None):
        self.length = _extent_of(var)
        self.name = name or f"axis_{self.length}"

    def __repr__(self) -> str:
        return f"VirtualAxis({self.name}, {self.length})"


# ----------------------------------------------------------------------------------- entities
class SplitEntity:
    """One way to split an axis: ``size`` lists the factors, outermost first (``-1`` stands
    for "whatever remains")."""

    def __init__(self, size: Sequence[int]):
        self.size = list(size)

    def apply(self, sch, op, axis) -> list:
        """Split ``axis`` of stage ``sch[op]`` into ``len(size)`` loops, outermost first."""
        ret = []
        for i in range(1, len(self.size)):
            factor = math.prod(self.size[i:])
            outer, inner = sch[op].split(axis, factor=factor)
            ret.append(outer)
            axis = inner
        return ret + [axis]

    @property
    def val(self):
        return self.size

    def __eq__(self, other) -> bool:
        return isinstance(other, SplitEntity) and self.size == other.size

    def __hash__(self) -> int:
        return hash(tuple(self.size))

    def __repr__(self) -> str:
        return str(self.size)


class ReorderEntity:
    """A permutation of axes (``perm`` indexes the defining axis list)."""

    def __init__(self, perm: Sequence[int]):
        self.perm = list(perm)

    def apply(self, sch, op, axes) -> list:
        if len(axes) != len(self.perm):
            raise SpaceError(f"reorder knob over {len(self.perm)} axes applied to {len(axes)}")
        new = [axes[i] for i in self.perm]
        sch[op].reorder(*new)
        return new

    @property
    def val(self):
        return self.perm

    def __eq__(self, other) -> bool:
        return isinstance(other, ReorderEntity) and self.perm == other.perm

    def __hash__(self) -> int:
        return hash(tuple(self.perm))

    def __repr__(self) -> str:
        return str(self.perm)


class AnnotateEntity:
    """An annotation per axis: ``"none"``, ``"unroll"``, ``"vec"``, ``"parallel"``, ``"fuse"``
    (into the next axis) or a thread tag such as ``"blockIdx.x"``; for ``locate_cache``, the
    indices of the anchor axes."""

    def __init__(self, anns: Sequence[str]):
        self.anns = list(anns)

    def apply(self, sch, op, axes, axis_lens=None, max_unroll=None, vec_size=None,
              cfg=None, source=None) -> list:
        axes = list(axes)
        if source is not None:  # locate_cache: attach each group of caches at its anchor
            if len(source) != len(self.anns):
                raise SpaceError(f"locate_cache knob with {len(self.anns)} anchors applied to "
                                 f"{len(source)} groups of caches")
            for group, at in zip(source, self.anns):
                for t in group:
                    sch[t].compute_at(sch[op], axes[at])
            return axes
        if len(axes) != len(self.anns):
            raise SpaceError(f"annotate knob over {len(self.anns)} axes applied to {len(axes)}")

        for i, ann in enumerate(self.anns):
            ax = axes[i]
            if ann == "none":
                continue
            if ann == "fuse":  # bind_gpu on more axes than thread kinds: fuse into the next
                if i + 1 >= len(axes):
                    raise SpaceError("annotation 'fuse' on the last axis")
                axes[i + 1] = sch[op].fuse(ax, axes[i + 1])
                continue
            # classic: a limit broken marks the config invalid (cfg.raise_error) and the
            # annotation is applied anyway; without a cfg the annotation is left out
            if ann == "unroll":
                if max_unroll and axis_lens is not None and axis_lens[i] > max_unroll:
                    if cfg is None:
                        continue
                    cfg.raise_error("Too large factor for unrolling")
                sch[op].unroll(ax)
            elif ann == "vec":
                if vec_size and axis_lens is not None and axis_lens[i] not in vec_size:
                    if cfg is None:
                        continue
                    cfg.raise_error("Wrong size of lanes in vectorization")
                sch[op].vectorize(ax)
            elif ann == "parallel":
                sch[op].parallel(ax)
            elif ann.startswith(("blockIdx", "threadIdx", "vthread")):
                sch[op].bind(ax, te.thread_axis(ann))
            else:
                raise SpaceError(f"unknown annotation {ann!r}")
        return axes

    @property
    def val(self):
        return self.anns

    def __eq__(self, other) -> bool:
        return isinstance(other, AnnotateEntity) and self.anns == other.anns

    def __hash__(self) -> int:
        return hash(tuple(self.anns))

    def __repr__(self) -> str:
        return str(self.anns)


class OtherOptionEntity:
    """One value of an enumerated knob (``cfg["unroll"].val``)."""

    def __init__(self, val):
        self.val = val

    def __eq__(self, other) -> bool:
        return isinstance(other, OtherOptionEntity) and self.val == other.val

    def __hash__(self) -> int:
        return hash(repr(self.val))

    def __repr__(self) -> str:
        return str(self.val)


# ------------------------------------------------------------------------------------ spaces
class TransformSpace:
    """The candidates of one knob."""

    kind = ""
    title = ""

    def __init__(self):
        self.entities: List[Any] = []
        self.policy: Optional[str] = None

    def __len__(self) -> int:
        return len(self.entities)

    def __getitem__(self, i: int):
        return self.entities[i]

    def index_of(self, entity) -> int:
        try:
            return self.entities.index(entity)
        except ValueError:
            raise SpaceError(f"{entity!r} is not a candidate of this {self.kind} knob") from None

    def __repr__(self) -> str:  # classic AutoTVM's form
        return f"{self.title}(policy={self.policy}) len={len(self)}"


def _factors(n: int) -> List[int]:
    small = [d for d in range(1, int(math.isqrt(n)) + 1) if n % d == 0]
    return sorted(set(small + [n // d for d in small]))


def _pow2s(n: int) -> List[int]:
    out, x = [], 1
    while x <= n:
        out.append(x)
        x *= 2
    return out


class SplitSpace(TransformSpace):
    """Ways to split an axis of extent ``product`` into ``num_outputs`` loops.

    policy ``"factors"``: exact factorisations; ``"power2"``: inner factors are powers of two
    (the outer loop takes the rest, the split need not divide); ``"verbose"``: both;
    ``"candidate"``: the lists given as ``candidate``.
    """

    kind = "sp"
    title = "Split"

    def __repr__(self) -> str:
        return (f"Split(policy={self.policy}, product={self.product}, "
                f"num_outputs={self.num_outputs}) len={len(self)}")

    def __init__(self, axes, policy: str, **kwargs):
        super().__init__()
        axis = axes[0] if isinstance(axes, (list, tuple)) else axes
        self.product = _extent_of(axis)
        self.policy = policy
        self.num_outputs = int(kwargs.pop("num_outputs", 2))
        max_factor = kwargs.pop("max_factor", None)
        self.max_factor = self.product if max_factor is None else int(max_factor)
        fil = kwargs.pop("filter", None)
        candidate = kwargs.pop("candidate", None)
        # classic: no_tail keeps only splits whose factors divide the extent
        no_tail = kwargs.pop("no_tail", None)
        if kwargs:
            raise SpaceError(f"define_split: unknown arguments {sorted(kwargs)}")
        if self.num_outputs < 1:
            raise SpaceError("define_split: num_outputs must be at least 1")
        if policy == "candidate":
            if not candidate:
                raise SpaceError("define_split policy 'candidate' needs candidate=[[...], ...]")
            for c in candidate:
                if len(c) != self.num_outputs:
                    raise SpaceError(f"split candidate {c} does not have {self.num_outputs} "
                                     f"factors")
                self.entities.append(SplitEntity(c))
        else:
            if policy == "factors":
                cands = _factors(self.product)
                exact = True
            elif policy == "power2":
                cands, exact = _pow2s(self.product), False
            elif policy == "verbose":
                cands, exact = sorted(set(_factors(self.product)) | set(_pow2s(self.product))), \
                    False
            else:
                raise SpaceError(f"define_split: unknown policy {policy!r} (use factors, power2, "
                                 f"verbose or candidate)")
            cands = [c for c in cands if c <= self.max_factor]
            self._generate(cands, exact if no_tail is None else bool(no_tail))
        if fil is not None:
            self.entities = [e for e in self.entities if fil(e)]
        if not self.entities:
            raise SpaceError(f"define_split over an axis of extent {self.product}: no candidate "
                             f"is left (check filter/max_factor)")

    def _generate(self, cands: List[int], exact: bool) -> None:
        n_inner = self.num_outputs - 1

        def rec(prefix: List[int], rest: int):
            if len(prefix) == n_inner:
                self.entities.append(SplitEntity([-1] + prefix[::-1]))
                return
            for c in cands:
                if exact and rest % c == 0:
                    rec(prefix + [c], rest // c)
                elif not exact and c <= rest:
                    rec(prefix + [c], rest // c)

        rec([], self.product)


class ReorderSpace(TransformSpace):
    """Permutations of a list of axes: policy ``"all"``, ``"identity"`` or ``"candidate"``."""

    kind = "re"
    title = "Reorder"

    def __init__(self, axes, policy: str, **kwargs):
        super().__init__()
        self.policy = policy
        self.num_axis = len(axes)
        if policy == "identity":
            perms = [list(range(self.num_axis))]
        elif policy == "all":
            perms = [list(p) for p in itertools.permutations(range(self.num_axis))]
        elif policy == "candidate":
            cands = kwargs.pop("candidate", None)
            if not cands:
                raise SpaceError("define_reorder policy 'candidate' needs candidate=[[axes...]]")
            perms = []
            for c in cands:
                try:
                    perms.append([next(i for i, a in enumerate(axes) if a is x) for x in c])
                except StopIteration:
                    raise SpaceError("a reorder candidate names an axis outside the knob's "
                                     "axes") from None
        else:
            raise SpaceError(f"define_reorder: unknown policy {policy!r} (use all, identity or "
                             f"candidate)")
        self.entities = [ReorderEntity(p) for p in perms]


_XYZ = ["blockIdx.z", "blockIdx.y", "blockIdx.x", "threadIdx.z", "threadIdx.y", "threadIdx.x"]
#: classic GPU binding policies: (at least this many axes, the tags of the last ones); the
#: axes before those are fused into the first bound one
_BIND_GPU = {
    "bind_gpu": [(6, _XYZ), (4, [_XYZ[1], _XYZ[2], _XYZ[4], _XYZ[5]]), (2, [_XYZ[2], _XYZ[5]])],
    "bind_gpu_virtual": [(9, _XYZ[:3] + ["vthread"] * 3 + _XYZ[3:]),
                         (6, [_XYZ[1], _XYZ[2], "vthread", "vthread", _XYZ[4], _XYZ[5]]),
                         (3, [_XYZ[2], "vthread", _XYZ[5]])],
}


class AnnotateSpace(TransformSpace):
    """Annotations over a list of axes: policy ``"try_unroll"``, ``"try_unroll_vec"``,
    ``"try_vec"``, ``"try_parallel"``, ``"candidate"`` (lists of annotation strings),
    ``"bind_gpu"`` / ``"bind_gpu_virtual"`` (the last axes bound to blocks, virtual threads and
    threads, the ones before fused into them) or ``"locate_cache"`` (``num_anchor`` of the axes
    where ``apply(..., source=[[caches], ...])`` attaches each group of caches)."""

    kind = "an"

    title = "Annotate"

    def __init__(self, axes, policy: str, **kwargs):
        super().__init__()
        self.policy = policy
        n = len(axes)
        if policy == "candidate":
            cands = kwargs.pop("candidate", None)
            if not cands or any(len(c) != n for c in cands):
                raise SpaceError(f"define_annotate policy 'candidate' needs lists of {n} "
                                 f"annotations")
            self.entities = [AnnotateEntity(c) for c in cands]
            return
        if policy in _BIND_GPU:
            for need, tags in _BIND_GPU[policy]:
                if n >= need:
                    self.entities = [AnnotateEntity(["fuse"] * (n - need) + tags)]
                    return
            raise SpaceError(f"define_annotate policy {policy!r} needs at least "
                             f"{_BIND_GPU[policy][-1][0]} axes, got {n}")
        if policy == "locate_cache":
            anchors = kwargs.pop("num_anchor", None)
            if not isinstance(anchors, int) or not 0 < anchors <= n:
                raise SpaceError(f"define_annotate policy 'locate_cache' needs num_anchor "
                                 f"between 1 and {n} (the number of axes), got {anchors!r}")
            self.entities = [AnnotateEntity(list(c))
                             for c in itertools.combinations(range(n), anchors)]
            return
        if policy == "try_parallel":
            choices = [["none", "parallel"]] + [["none"]] * (n - 1)
            self.entities = [AnnotateEntity(list(c)) for c in itertools.product(*choices)]
            return
        # classic: "try_unroll_vec" -> every axis tries none/unroll/vec ("try" is "none"),
        # with at most one vectorized axis
        anns = policy.replace("try", "none").split("_")
        if not all(a in ("none", "unroll", "vec") for a in anns):
            raise SpaceError(f"define_annotate: unknown policy {policy!r} (use try_unroll, "
                             f"try_vec, try_unroll_vec, unroll, vec, try_parallel or "
                             f"candidate)")
        self.entities = [AnnotateEntity(list(c)) for c in itertools.product(anns, repeat=n)
                         if c.count("vec") <= 1]


class OtherOptionSpace(TransformSpace):
    """An enumerated knob (``cfg.define_knob(name, candidates)``)."""

    kind = "ot"

    def __init__(self, axes, policy: str, **kwargs):
        super().__init__()
        cands = kwargs.pop("candidate", None)
        if cands is None or len(cands) == 0:
            raise SpaceError("define_knob needs a non-empty list of candidates")
        self.entities = [OtherOptionEntity(c) for c in cands]

    def __repr__(self) -> str:
        return f"OtherOption({self.entities}) len={len(self)}"


_SPACE_OF_KIND = {"sp": SplitSpace, "re": ReorderSpace, "an": AnnotateSpace,
                  "ot": OtherOptionSpace}
_ENTITY_OF_KIND = {"sp": SplitEntity, "re": ReorderEntity, "an": AnnotateEntity,
                   "ot": OtherOptionEntity}


# ------------------------------------------------------------------------------------ configs
def _in_sorted(values: List[int], x: int) -> bool:
    k = bisect.bisect_left(values, x)
    return k < len(values) and values[k] == x


class ConfigSpace:
    """The space a template defines (``task.config_space``)."""

    def __init__(self):
        self.space_map: Dict[str, TransformSpace] = {}
        self._entity_map: Dict[str, Any] = {}
        self._collect = True
        self._length: Optional[int] = None
        self.flop = 0
        self.code_hash = None
        self.errors: List[str] = []
        self._shared_filter: Optional[Callable[[Any], bool]] = None
        self._valid: Optional[List[int]] = None  # sorted indices passing the shared filter

    # -- definitions
    def _add(self, name: str, space: TransformSpace) -> None:
        old = self.space_map.get(name)
        # a split defined again over the same extent replaces the first in place (classic
        # templates re-filter a split this way); any other duplicate is a template bug
        if old is not None and not (isinstance(old, SplitSpace) and isinstance(space, SplitSpace)
                                    and old.product == space.product):
            raise SpaceError(f"knob {name!r} is defined twice")
        self.space_map[name] = space
        self._entity_map[name] = space[0]
        self._length = None
        self._valid = None

    def define_split(self, name: str, axis, policy: str = "factors", **kwargs) -> None:
        """Define a knob splitting ``axis`` (an IterVar or an extent)."""
        if self._collect:
            self._add(name, SplitSpace([axis], policy, **kwargs))

    def define_reorder(self, name: str, axes, policy: str, **kwargs) -> None:
        """Define a knob reordering ``axes``."""
        if self._collect:
            self._add(name, ReorderSpace(list(axes), policy, **kwargs))

    def define_annotate(self, name: str, axes, policy: str, **kwargs) -> None:
        """Define a knob annotating each of ``axes``."""
        if self._collect:
            self._add(name, AnnotateSpace(list(axes), policy, **kwargs))

    def define_knob(self, name: str, candidate: Sequence) -> None:
        """Define an enumerated knob."""
        if self._collect:
            self._add(name, OtherOptionSpace([], "", candidate=list(candidate)))

    def axis(self, var) -> VirtualAxis:
        return VirtualAxis(var)

    reduce_axis = axis

    def add_flop(self, flop) -> None:
        """Add to the FLOP count of the task (used for GFLOPS)."""
        self.flop += float(flop)

    def raise_error(self, msg: str) -> None:
        self.errors.append(msg)

    def valid(self) -> bool:
        return not self.errors

    @property
    def is_fallback(self) -> bool:
        return False

    def multi_filter(self, filter: Callable[[Any], bool]) -> None:  # noqa: A002
        """Keep only the points for which ``filter(config)`` is true, a condition over several
        knobs (``cfg["tile_x"].size[1] * cfg["tile_y"].size[1] < 1024``). Indices keep their
        meaning: ``range_length`` stays the size of the whole grid and ``len`` counts the
        points that pass; knobs defined later are filtered too."""
        if self._collect:
            self._shared_filter = filter
            self._valid = None

    # -- the space
    @property
    def range_length(self) -> int:
        """The number of indices, valid or not: the product of the knobs' sizes."""
        if self._length is None:
            self._length = math.prod(len(s) for s in self.space_map.values())
        return self._length

    def _valid_indices(self) -> Optional[List[int]]:
        if self._valid is None and self._shared_filter is not None:
            self._valid = [i for i in range(self.range_length)
                           if self._shared_filter(self._entity_at(i))]
        return self._valid

    def __getstate__(self) -> Dict[str, Any]:
        # a filter is often a lambda, which pickle cannot send to the build workers: send the
        # indices it keeps instead
        state = dict(self.__dict__)
        state["_valid"] = self._valid_indices()
        state["_shared_filter"] = None
        return state

    def __len__(self) -> int:
        valid = self._valid_indices()
        return self.range_length if valid is None else len(valid)

    @property
    def dims(self) -> List[int]:
        return [len(s) for s in self.space_map.values()]

    def is_index_valid(self, index: int) -> bool:
        """Whether ``index`` is inside the space and passes the ``multi_filter``."""
        if not 0 <= index < self.range_length:
            return False
        valid = self._valid_indices()
        return valid is None or _in_sorted(valid, index)

    def subrange_length(self, start: int, end: int) -> int:
        """The number of valid indices in ``[start, end)``."""
        if not 0 <= start <= end <= self.range_length:
            raise SpaceError(f"subrange [{start}, {end}) is not inside the space's index range "
                             f"[0, {self.range_length}]")
        valid = self._valid_indices()
        if valid is None:
            return end - start
        return bisect.bisect_left(valid, end) - bisect.bisect_left(valid, start)

    def get_next_index(self, index: int, n: int = 1, start: Optional[int] = None,
                       end: Optional[int] = None) -> Optional[int]:
        """The ``n``-th valid index after ``index`` (before it for negative ``n``) within
        ``[start, end)``, or None when there is none."""
        start = 0 if start is None else start
        end = self.range_length if end is None else end
        valid = self._valid_indices()
        if valid is None:
            nxt = index + n
            return nxt if start <= nxt < end else None
        if n >= 0:
            pos = bisect.bisect_right(valid, index) + n - 1
        else:
            pos = bisect.bisect_left(valid, index) + n
        if not 0 <= pos < len(valid) or not start <= valid[pos] < end:
            return None
        return valid[pos]

    def get_rand_index(self, start: Optional[int] = None, end: Optional[int] = None,
                       to_exclude: Optional[Sequence[int]] = None) -> int:
        """A uniformly random valid index in ``[start, end)`` not in ``to_exclude``."""
        start = 0 if start is None else start
        end = self.range_length if end is None else end
        excluded = set(to_exclude or ())
        valid = self._valid_indices()
        lo, hi = ((start, end) if valid is None else
                  (bisect.bisect_left(valid, start), bisect.bisect_left(valid, end)))
        pick = (lambda k: k) if valid is None else valid.__getitem__
        if hi - lo - len(excluded) > 64 or hi - lo > 4096:
            for _ in range(1000):  # rejection sampling while most of the range is free
                cand = pick(random.randrange(lo, hi)) if hi > lo else None
                if cand is not None and cand not in excluded:
                    return cand
        free = [pick(k) for k in range(lo, hi) if pick(k) not in excluded]
        if not free:
            raise SpaceError(f"no valid config index left in [{start}, {end})")
        return random.choice(free)

    def sample_ints(self, m: int) -> List[int]:
        """``m`` distinct random valid indices (all of them if there are fewer)."""
        m = min(m, len(self))
        valid = self._valid_indices()
        if valid is not None:
            return random.sample(valid, m)
        return random.sample(range(self.range_length), m)

    def random_walk(self, point: int) -> int:
        """A random valid neighbour of ``point``: another index differing in one knob."""
        knobs = self.point2knob(point)
        movable = [d for d, n in enumerate(self.dims) if n > 1]
        if not movable or len(self) <= 1:
            raise SpaceError(f"random_walk: config {point} has no valid neighbour")
        for _ in range(1000):
            new = list(knobs)
            d = random.choice(movable)
            new[d] = random.randrange(self.dims[d] - 1)
            new[d] += new[d] >= knobs[d]
            cand = self.knob2point(new)
            if self.is_index_valid(cand):
                return cand
        return self.get_rand_index(to_exclude=[point])

    def _entity_at(self, index: int) -> "ConfigEntity":
        entities = {}
        t = index
        for name, space in self.space_map.items():
            entities[name] = space[t % len(space)]
            t //= len(space)
        return ConfigEntity(index, self.code_hash, entities, self)

    def get(self, index: int) -> "ConfigEntity":
        """The config at ``index`` (a valid index, 0 ≤ index < range_length)."""
        if not 0 <= index < self.range_length:
            raise SpaceError(f"config index {index} is out of the space's range "
                             f"[0, {self.range_length})")
        if not self.is_index_valid(index):
            raise SpaceError(f"config index {index} is excluded by the space's multi_filter")
        return self._entity_at(index)

    def knob_indices(self, index: int) -> List[int]:
        """The candidate index of every knob at point ``index``."""
        out = []
        for space in self.space_map.values():
            out.append(index % len(space))
            index //= len(space)
        return out

    def index_of(self, knob_indices: Sequence[int]) -> int:
        idx, mul = 0, 1
        for k, space in zip(knob_indices, self.space_map.values()):
            idx += k * mul
            mul *= len(space)
        return idx

    def point2knob(self, point: int) -> List[int]:
        """Classic name of :meth:`knob_indices`."""
        return self.knob_indices(point)

    def knob2point(self, knob: Sequence[int]) -> int:
        """Classic name of :meth:`index_of`."""
        return self.index_of(knob)

    def __iter__(self) -> Iterator[str]:
        return iter(self.space_map)

    def __getitem__(self, name: str):
        """The current entity of knob ``name`` (the first candidate while collecting)."""
        try:
            return self._entity_map[name]
        except KeyError:
            raise SpaceError(f"config has no knob named {name!r} (knobs: "
                             f"{list(self._entity_map)})") from None

    def __repr__(self) -> str:
        lines = [f"ConfigSpace (len={len(self)}, space_map="]
        for i, (name, space) in enumerate(self.space_map.items()):
            lines.append(f"  {i:2d} {name}: {space}")
        return "\n".join(lines) + "\n)"

    def _knobs_repr(self) -> str:
        """``[('tile_i', [-1, 41]), ('unroll', 8)]``: classic AutoTVM's printed knobs."""
        return "[" + ", ".join(f"({k!r}, {v!r})" for k, v in self._entity_map.items()) + "]"


class ConfigEntity(ConfigSpace):
    """One point of a space: ``cfg["knob"]`` gives its entity; definitions are ignored."""

    def __init__(self, index: int, code_hash, entity_map: Dict[str, Any],
                 space: Optional[ConfigSpace] = None):
        super().__init__()
        self.index = index
        self._collect = False
        self._entity_map = dict(entity_map)
        self._space_map = space.space_map if space is not None else None
        self.code_hash = code_hash

    def define_split(self, name, axis, policy="factors", **kwargs):
        self._check_defined(name)

    def define_reorder(self, name, axes, policy, **kwargs):
        self._check_defined(name)

    def define_annotate(self, name, axes, policy, **kwargs):
        self._check_defined(name)

    def define_knob(self, name, candidate):
        self._check_defined(name)

    def _check_defined(self, name: str) -> None:
        if name not in self._entity_map:
            raise SpaceError(f"the config does not set knob {name!r}: it was made for another "
                             f"template (knobs: {list(self._entity_map)})")

    def __len__(self) -> int:
        return 1

    def get_flatten_feature(self) -> List[float]:
        """The knob values as numbers (the ``knob`` feature type)."""
        out: List[float] = []
        for ent in self._entity_map.values():
            if isinstance(ent, SplitEntity):
                out.extend(float(x) for x in ent.size[1:])
            elif isinstance(ent, ReorderEntity):
                out.extend(float(x) for x in ent.perm)
            elif isinstance(ent, AnnotateEntity):
                out.extend(float(["none", "unroll", "vec", "parallel"].index(a))
                           if a in ("none", "unroll", "vec", "parallel") else 4.0
                           for a in ent.anns)
            else:
                v = ent.val
                out.append(float(v) if isinstance(v, (int, float, bool)) else
                           float(hash(repr(v)) % 997))
        return out

    def to_json_dict(self) -> Dict[str, Any]:
        """The ``config`` part of a record."""
        entity = []
        for name, ent in self._entity_map.items():
            if isinstance(ent, SplitEntity):
                entity.append([name, "sp", list(ent.size)])
            elif isinstance(ent, ReorderEntity):
                entity.append([name, "re", list(ent.perm)])
            elif isinstance(ent, AnnotateEntity):
                entity.append([name, "an", list(ent.anns)])
            else:
                entity.append([name, "ot", ent.val])
        return {"index": self.index, "code_hash": self.code_hash, "entity": entity}

    @staticmethod
    def from_json_dict(json_dict: Dict[str, Any]) -> "ConfigEntity":
        try:
            index = int(json_dict["index"])
            entities = {}
            for name, kind, val in json_dict["entity"]:
                if kind not in _ENTITY_OF_KIND:
                    raise SpaceError(f"unknown knob kind {kind!r} in a record")
                entities[name] = _ENTITY_OF_KIND[kind](val)
        except (KeyError, TypeError, ValueError, OverflowError) as e:
            raise SpaceError(f"malformed config in a record: {json_dict!r} ({e})") from None
        return ConfigEntity(index, json_dict.get("code_hash"), entities)

    def __repr__(self) -> str:
        return f"{self._knobs_repr()},{self.code_hash},{self.index}"

    def __str__(self) -> str:
        return repr(self)


class FallbackConfigEntity(ConfigSpace):
    """The config used when no record matches: as in classic AutoTVM, each knob takes the
    first candidate of its space (filters and candidate lists included); ``fallback_split``
    or ``cfg[name] = entity`` change one."""

    def __init__(self):
        super().__init__()
        self.index = -1

    @property
    def is_fallback(self) -> bool:
        return True

    def _add(self, name: str, space: TransformSpace) -> None:
        # one fallback config serves every call of its workload: the first definition stays,
        # and so does an entity set with fallback_split or cfg[name] = ...
        if name not in self.space_map:
            self.space_map[name] = space
            self._length = None
        self._entity_map.setdefault(name, space[0])

    def fallback_split(self, name: str, constraints: Sequence[int]) -> None:
        """Split knob ``name`` by the largest factors within ``constraints`` (the maximum
        size of each loop, innermost last; ``-1`` for no limit): for an axis of 49,
        ``[-1, 8, 4]`` gives ``[7, 7, 1]``."""
        space = self.space_map.get(name)
        if not isinstance(space, SplitSpace):
            raise SpaceError(f"fallback_split: {name!r} is not a split knob defined on this "
                             f"config")
        if len(constraints) != space.num_outputs:
            raise SpaceError(f"fallback_split: {name!r} has {space.num_outputs} outputs, got "
                             f"{len(constraints)} constraints")
        size = [0] * space.num_outputs
        rest = space.product
        for i in reversed(range(space.num_outputs)):
            limit = math.inf if constraints[i] == -1 else constraints[i]
            fits = [f for f in _factors(rest) if f <= limit]
            if not fits:
                raise SpaceError(f"Cannot find feasible fallback split entity for node: {name}")
            size[i] = fits[-1]
            rest //= fits[-1]
        self._entity_map[name] = SplitEntity(size)

    def __setitem__(self, name: str, entity) -> None:
        self._entity_map[name] = entity

    def __repr__(self) -> str:
        return f"{self._knobs_repr()},{self.code_hash}"
