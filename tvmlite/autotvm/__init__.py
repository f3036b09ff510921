"""AutoTVM: template-based schedule tuning (``from tvm import autotvm``).

A template (``@autotvm.template``) defines knobs on ``autotvm.get_config()`` and applies them
to a TE schedule; ``autotvm.task.create`` builds its config space; a tuner
(``autotvm.tuner.XGBTuner`` …) measures configs through ``measure_option``'s builder and
runner; ``autotvm.callback.log_to_file`` records them and ``apply_history_best`` applies the
best one when the template is called again.
"""
from .. import _classic
from .._classic import fallback as _fallback
from . import callback, dispatch, env, executor, measure, record, space, task, tophub, tuner
from .apply_history_best import (
    ApplyGraphBest,
    ApplyHistoryBest,
    apply_graph_best,
    apply_history_best,
)
from .dispatch import ApplyConfig, DispatchContext, FallbackContext
from .env import GLOBAL_SCOPE
from .measure import (
    LocalBuilder,
    LocalRunner,
    MeasureErrorNo,
    MeasureInput,
    MeasureResult,
    create_measure_batch,
    measure_option,
)
from .space import ConfigEntity, ConfigSpace, FallbackConfigEntity
from .task import get_config, template

__all__ = ["template", "get_config", "task", "tuner", "callback", "record", "space",
           "measure_option", "LocalBuilder", "LocalRunner", "MeasureInput", "MeasureResult",
           "MeasureErrorNo", "apply_history_best", "ApplyHistoryBest", "ApplyConfig",
           "apply_graph_best", "ApplyGraphBest",
           "DispatchContext", "FallbackContext", "ConfigSpace", "ConfigEntity",
           "FallbackConfigEntity", "create_measure_batch", "GLOBAL_SCOPE"]


_classic_getattr = _fallback(__name__)


def __getattr__(name: str):
    if name == "RPCRunner":  # tvmlite.rpc sits above autotvm: re-exported on first use
        from ..rpc.runner import RPCRunner

        return RPCRunner
    return _classic_getattr(name)


def _classic_module_paths() -> None:
    """Classic AutoTVM's module layout (``autotvm.task.space``, ``autotvm.measure.measure``…)
    over tvmlite's flatter one."""
    _classic.expose_submodules(task, space=space, task=task, dispatcher=dispatch)
    _classic.expose_submodules(measure, measure=measure, measure_methods=measure,
                               executor=executor)


_classic_module_paths()
