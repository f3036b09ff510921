"""autotvm.tuner.xgboost_cost_model: fit / fit_log / predict over itervar and knob features,
base models (transfer learning), and XGBTuner's classic load_history / update behaviour."""
import time

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import autotvm
from tvmlite.autotvm import MeasureInput, MeasureResult
from tvmlite.autotvm.tuner.xgboost_cost_model import XGBoostCostModel
from tvmlite.testing.autotvm import get_sample_task

pytest.importorskip("xgboost")


def _records(task, target, cost):
    space = task.config_space
    return [(MeasureInput(target, task, space.get(i)), MeasureResult((cost(i),), 0, 0.1,
                                                                      time.time()))
            for i in range(len(space))]


def _spearman(a, b):
    ra, rb = np.argsort(np.argsort(a)), np.argsort(np.argsort(b))
    return float(np.corrcoef(ra, rb)[0, 1])


@pytest.mark.parametrize("feature_type", ["knob", "itervar"])
def test_fit_log_learns_the_ranking(feature_type):
    task, target = get_sample_task()
    n = len(task.config_space)
    rng = np.random.default_rng(2)
    cost = rng.uniform(1.0, 9.0, n)
    model = XGBoostCostModel(task, feature_type=feature_type, loss_type="rank")
    assert model.fit_log(_records(task, target, lambda i: cost[i]), plan_size=8,
                         min_seed_records=n)
    pred = model.predict(np.arange(n))
    assert pred.shape == (n,) and np.isfinite(pred).all()
    # higher score = faster = lower cost
    assert _spearman(pred, -cost) > 0.6


def test_fit_log_needs_enough_records():
    task, target = get_sample_task()
    model = XGBoostCostModel(task, feature_type="knob")
    assert not model.fit_log(_records(task, target, lambda i: 1.0 + i)[:5], min_seed_records=6)
    assert model.bst is None
    assert np.all(model.predict([0, 1]) == 0.0)


def test_base_model_gives_the_upper_model_its_margins():
    task, target = get_sample_task()
    n = len(task.config_space)
    base = XGBoostCostModel(task, feature_type="itervar", loss_type="rank")
    assert base.fit_log(_records(task, target, lambda i: 1.0 + (i * 7) % n), plan_size=8,
                        min_seed_records=n)
    upper = XGBoostCostModel(task, feature_type="itervar", loss_type="rank")
    upper.load_basemodel(base)
    assert upper.base_model is base and base.upper_model is upper
    upper.fit(np.arange(10), np.arange(10) + 1.0, plan_size=8)
    margins = upper.predict(np.arange(n), output_margin=True)
    assert np.isfinite(margins).all() and np.ptp(margins) > 0
    spawned = upper.spawn_base_model()
    assert spawned.upper_model is upper and spawned.features is upper.features


def test_xgb_tuner_load_history_and_update():
    task, target = get_sample_task()
    records = _records(task, target, lambda i: 1.0 + i % 5)[:12]
    tuner = autotvm.tuner.XGBTuner(task, feature_type="knob")
    tuner.load_history(records, min_seed_records=12)
    assert tuner.cost_model.base_model is not None
    assert len(tuner.visited) == 12
    tuner = autotvm.tuner.XGBTuner(task, feature_type="knob")
    tuner.load_history(records, min_seed_records=13)
    assert tuner.cost_model.base_model is None
    tuner = autotvm.tuner.XGBTuner(task)
    tuner.update([inp for inp, _ in records[:5]], [res for _, res in records[:5]])
    assert tuner.xs == [0, 1, 2, 3, 4] and tuner.visited == {0, 1, 2, 3, 4}


def test_curve_features_are_named_unsupported():
    task, _ = get_sample_task()
    with pytest.raises(tvm.TVMError, match="tvmlite does not implement the 'curve' feature"):
        XGBoostCostModel(task, feature_type="curve")
    with pytest.raises(ValueError, match="unknown feature_type"):
        XGBoostCostModel(task, feature_type="bogus")
