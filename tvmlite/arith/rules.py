"""Named rewrite rules and the switch that counts which of them fired.

Every rewrite of the simplifier is registered here under a dotted name (``family.rule``) with a
one-line example, and calls :func:`fire` with that name when it changes an expression. Counting
is off unless a :func:`rewrite_stats` block is active or ``TVMLITE_ARITH_STATS=1`` is set in the
environment (then a table is printed on stderr at exit)::

    with tvmlite.arith.rewrite_stats() as st:
        ana.simplify((x * 8 + y) // 8)
    print(st)          # rule / count / example table

Results are memoized, so a rewrite is counted when it is computed, not when a cached result
is reused.
"""
from __future__ import annotations

import atexit
import os
import sys
from collections import Counter
from contextlib import contextmanager
from typing import Dict, Iterator, Optional, TypeVar

RULES: Dict[str, str] = {}   # name -> one-line example
_T = TypeVar("_T")
_active: Optional["RewriteStats"] = None


def rule(name: str, example: str) -> str:
    """Register the rewrite ``name`` with a one-line ``example``; returns ``name``."""
    if name in RULES:
        raise ValueError(f"rewrite rule {name!r} is registered twice")
    RULES[name] = example
    return name


def rules(families: Dict[str, Dict[str, str]]) -> None:
    """Register a table ``{family: {rule: example}}`` as ``family.rule`` names."""
    for fam, table in families.items():
        for name, example in table.items():
            rule(f"{fam}.{name}", example)


def fire(name: str, result: _T = None) -> _T:
    """Count one firing of the rule ``name`` (a no-op while counting is off) and return
    ``result``, so that a rewrite ends with ``return fire("family.rule", new_expr)``."""
    st = _active
    if st is not None:
        if name not in RULES:
            raise KeyError(f"unregistered rewrite rule {name!r}")
        st[name] += 1
    return result


class RewriteStats(Counter):
    """Firings per rule name; ``str()`` gives a table with each rule's example."""

    def table(self) -> str:
        """The fired rules, most frequent first, with their counts and examples."""
        if not self:
            return "no rewrite fired"
        width = max(len(n) for n in self)
        rows = [f"{'rule':<{width}}  {'count':>7}  example"]
        for name, n in self.most_common():
            rows.append(f"{name:<{width}}  {n:>7}  {RULES.get(name, '')}")
        return "\n".join(rows)

    def __str__(self) -> str:
        return self.table()


@contextmanager
def rewrite_stats() -> Iterator[RewriteStats]:
    """Count the rewrites that fire inside the ``with`` block (nested blocks also add their
    counts to the enclosing one)."""
    global _active
    outer = _active
    st = RewriteStats()
    _active = st
    try:
        yield st
    finally:
        _active = outer
        if outer is not None:
            outer.update(st)


def _print_at_exit(st: RewriteStats) -> None:
    print("tvmlite.arith rewrite statistics (TVMLITE_ARITH_STATS=1)", file=sys.stderr)
    print(st.table(), file=sys.stderr)


if os.environ.get("TVMLITE_ARITH_STATS", "") not in ("", "0"):
    _active = RewriteStats()
    atexit.register(_print_at_exit, _active)
