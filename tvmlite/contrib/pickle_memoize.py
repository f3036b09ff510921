"""``tvm.contrib.pickle_memoize``: cache a function's results per argument tuple, optionally
kept across runs in a pickle file (classic tests cache their NumPy reference data this way).

``@memoize("topi.tests.x")`` on ``f`` keys each call by the values ``f`` closes over followed
by its positional arguments; these must be strings, numbers or tuples of them. The cache of
``f`` is the file ``.pkl_memoize_py3/<key>.<f.__name__>.pkl`` under the working directory: it is
read when the decorator is applied, if it exists, and written when the program exits if
``save_at_exit`` is set and a new result was computed.
"""
from __future__ import annotations

import atexit
import functools
import os
import pickle
import sys
from typing import Callable, Dict

_ALLOWED = (str, int, float, tuple)


class Cache:
    """The results of one memoized function, by argument tuple.

    Parameters
    ----------
    key : str
        The file name of the cache (under ``.pkl_memoize_py<major>``).
    save_at_exit : bool
        Whether :func:`_save_all` (run at exit) writes the cache back.
    """

    cache_by_key: Dict[str, "Cache"] = {}

    def __init__(self, key: str, save_at_exit: bool):
        self.path = os.path.join(f".pkl_memoize_py{sys.version_info[0]}", key)
        self.cache: dict = {}
        if os.path.exists(self.path):
            try:
                with open(self.path, "rb") as f:
                    self.cache = pickle.load(f)
            except Exception:  # a damaged or foreign file: start afresh
                self.cache = {}
        self.dirty = False
        self.save_at_exit = save_at_exit

    def save(self) -> None:
        """Write the cache to its file if it gained entries since it was read."""
        if not self.dirty:
            return
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        print(f"Save memoize result to {self.path}")
        with open(self.path, "wb") as f:
            pickle.dump(self.cache, f, pickle.HIGHEST_PROTOCOL)
        self.dirty = False


@atexit.register
def _save_all() -> None:
    for cache in Cache.cache_by_key.values():
        if cache.save_at_exit:
            cache.save()


def _check_key_part(value, what: str) -> None:
    parts = value if isinstance(value, tuple) else (value,)
    for x in parts:
        if not isinstance(x, _ALLOWED):
            raise TypeError(f"memoize: {what} {x!r} of type {type(x).__name__} cannot be a "
                            "cache key (use str, int, float or tuples of them)")


def memoize(key: str, save_at_exit: bool = False) -> Callable[[Callable], Callable]:
    """A decorator caching the results of a function by its arguments.

    Parameters
    ----------
    key : str
        The unique name of the cache file (the function's name is appended).
    save_at_exit : bool
        Whether to write the cache to file when the program exits.

    Returns
    -------
    fmemoize : Callable
        The decorator; the decorated function takes positional arguments only.
    """
    def _register(f: Callable) -> Callable:
        fkey = f"{key}.{f.__name__}.pkl"
        if fkey not in Cache.cache_by_key:
            Cache.cache_by_key[fkey] = Cache(fkey, save_at_exit)
        cache = Cache.cache_by_key[fkey]
        closed = tuple(c.cell_contents for c in f.__closure__ or ())
        prefix = (len(closed),) + closed

        @functools.wraps(f)
        def memoized(*args, **kwargs):
            if kwargs:
                raise TypeError(f"memoized {f.__name__} takes positional arguments only")
            call_key = prefix + args
            for i, part in enumerate(call_key):
                _check_key_part(part, "captured value" if i <= len(closed) else "argument")
            if call_key not in cache.cache:
                cache.cache[call_key] = f(*args)
                cache.dirty = True
            return cache.cache[call_key]

        return memoized

    return _register
