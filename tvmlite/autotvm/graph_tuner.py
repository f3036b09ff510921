"""Classic ``tvm.autotvm.graph_tuner`` (``DPTuner``, ``PBQPTuner``): it chooses layouts over a
relay graph, so it lives in :mod:`tvmlite.relay.graph_tuner` (relay sits above autotvm) and
is loaded from there on first use."""

_NAMES = ("BaseGraphTuner", "DPTuner", "PBQPTuner")


def __getattr__(name: str):
    if name in _NAMES:
        from ..relay import graph_tuner

        return getattr(graph_tuner, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
