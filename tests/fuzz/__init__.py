"""The differential schedule fuzzer (issue 12).

Random programs (``programs.py``: elementwise chains with broadcasts and random expressions
from ``exprs.py``, padding via ``if_then_else``, sum/max/min reductions with ``init=`` and
``where=``, matmul and conv index patterns, symbolic extents bound at call time, several
dtypes) x random sequences of 1-8 primitives (``schedules.py``) through both
``te.create_schedule`` and ``tir.Schedule``. Each case (``case.py``) builds the program
unscheduled and scheduled, runs both on fenced outputs (sentinel bytes around, NaN or random
bits inside) and compares with numpy and with each other. ``driver.py`` runs each case in its
own child process (crash isolation), shrinks each failure and classifies it.

Run thousands of cases::

    PYTHONPATH=$PWD python -m tests.fuzz --cases 10000 --seed 1 --jobs 2

It prints counts (cases, built, refused, wrong, baseline_wrong, crashed, internal; overall
and per API) and each distinct failure's minimal repro; the exit status is 1 when anything
failed. ``tests/test_fuzz_schedules.py`` runs a fixed-seed slice in CI.
"""
