"""``python -m tvmlite script.py [args]`` (or ``-m module``, ``-c code``): run a classic TVM
program unmodified, with ``import tvm`` / ``topi`` / ``vta`` resolving to tvmlite.

``python -m tvmlite -m pytest tests/`` runs classic TVM test files, with the classic pytest
plugin (``tvm.testing.plugin``) loaded."""
from __future__ import annotations

import runpy
import sys

from .alias import install

USAGE = "usage: python -m tvmlite (script.py | -m module | -c code) [args...]"


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0 if argv else 2
    install()
    if argv[0] == "-m" and len(argv) > 1:
        sys.argv = argv[1:]
        if argv[1] == "pytest":  # classic tests expect TVM's pytest plugin (target/dev fixtures)
            sys.argv[1:1] = ["-p", "tvm.testing.plugin"]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    elif argv[0] == "-c" and len(argv) > 1:
        sys.argv = ["-c"] + argv[2:]
        exec(compile(argv[1], "<string>", "exec"), {"__name__": "__main__"})
    else:
        sys.argv = argv
        runpy.run_path(argv[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
