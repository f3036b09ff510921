"""``vta.testing.run``: run a test body with the simulator as the remote."""
from __future__ import annotations

from typing import Callable


def run(run_func: Callable) -> None:
    """Call ``run_func(env, remote)`` with the VTA environment and an in-process session."""
    from ...rpc import LocalSession
    from ..environment import get_env

    run_func(get_env(), LocalSession())
