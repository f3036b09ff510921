"""Lowering is a function of the program: the same schedule lowers to the same IR (and the
build-time checks give the same verdict) whatever the process built before.

The book's avg pool once got a false out-of-bounds finding from the check on the lowered
loops, only in a process that had built the max pools first: the reference interpreter that
evaluates witnesses cached compiled expressions by ``id()`` without holding them, so a freed
condition's recycled id returned another expression's code."""
import gc
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from tvmlite import tir
from tvmlite.tir.interpreter import Interpreter

_TESTS = Path(__file__).resolve().parent
_ROOT = _TESTS.parent

# builds the programs named on the command line in that order, each in this one process, and
# prints the lowered TVMScript of each with its largest error against numpy
_SCRIPT = r"""
import json, sys
import numpy as np
import tvmlite as tvm
import book_ch4 as b
import d2ltvm

out = {}
for name in sys.argv[1:]:
    f, size = name.split("@")
    size = tuple(int(x) for x in size.split(","))
    sch, args = getattr(b, f)(size)
    text = tvm.lower(sch, list(args), _for_build=True).script()
    mod = tvm.build(sch, list(args))
    c, n, k = size
    data = d2ltvm.get_conv_data(c, c, n, k, 1, 1)[0]
    y = tvm.nd.array(np.full((c, n, n), np.nan, "float32"))
    mod(tvm.nd.array(data), y)
    kind = "max" if "max" in f else "avg"
    err = float(np.max(np.abs(y.numpy() - b.pool_ref(kind, data, k, 1, 1))))
    out[name] = {"ir": text, "err": err}
print(json.dumps(out))
"""


def _lower_in_fresh_process(tmp_path: Path, names, tag: str) -> dict:
    cache = tmp_path / f"cache_{tag}"   # an empty library cache: every build lowers
    cache.mkdir()
    env = dict(os.environ, TVMLITE_CACHE_DIR=str(cache),
               PYTHONPATH=os.pathsep.join([str(_ROOT), str(_TESTS)]))
    r = subprocess.run([sys.executable, "-c", _SCRIPT, *names], capture_output=True,
                       text=True, timeout=300, env=env, cwd=str(_ROOT))
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.splitlines()[-1])


def test_avg_pool_lowers_the_same_whether_or_not_the_max_pools_came_first(tmp_path):
    avg = ["schedule_avg@3,17,3", "default_avg@3,17,3", "schedule_avg@4,12,3"]
    maxes = ["default_max@3,17,3", "optimized_max@3,17,3", "optimized_max@4,12,3"]
    alone = _lower_in_fresh_process(tmp_path, avg, "alone")
    after = _lower_in_fresh_process(tmp_path, maxes + avg, "after")
    reverse = _lower_in_fresh_process(tmp_path, avg[::-1] + maxes[::-1], "reverse")
    for name in avg:
        assert alone[name]["ir"] == after[name]["ir"] == reverse[name]["ir"], name
    assert "if_then_else" in alone[avg[0]]["ir"]   # the vector padding guard is still there
    for res in (alone, after, reverse):
        for name, got in res.items():
            assert got["err"] < 1e-5, (name, got["err"])


def test_interpreter_cache_is_not_fooled_by_a_recycled_id():
    """A compiled expression is found again only for the very object it was compiled from."""
    x = tir.Var("x", "int32")
    interp = Interpreter()
    interp.env[x] = 5
    for k in range(2000):
        e = tir.Add(x, tir.IntImm("int32", k))
        assert interp.expr(e)() == 5 + k
        del e            # its id is free for the next expression
        gc.collect() if k % 500 == 0 else None


def test_interpreter_cache_reuses_the_compiled_expression():
    x = tir.Var("x", "int32")
    e = tir.Mul(x, tir.IntImm("int32", 3))
    interp = Interpreter()
    assert interp.expr(e) is interp.expr(e)
    interp.env[x] = np.int32(7)
    assert interp.expr(e)() == 21


class _Opaque:
    """An unhashable config value whose repr is the same for every instance."""

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return "<opaque>"


def test_build_cache_key_holds_an_unhashable_config_value_by_identity():
    """The front cache key of an unhashable config value keeps the value alive and matches
    only that object: a bare ``id()`` of a freed value would be recycled by the next one."""
    from tvmlite.driver.build_module import _config_key

    a, b = _Opaque(), _Opaque()
    key_a = _config_key({"user.option": a})
    assert key_a == _config_key({"user.option": a})
    assert key_a != _config_key({"user.option": b})
    del a                   # the key holds it: its address is not given to the next object
    for _ in range(200):
        c = _Opaque()
        assert _config_key({"user.option": c}) != key_a
        del c
