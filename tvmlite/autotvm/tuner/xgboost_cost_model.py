"""The xgboost cost model of AutoTVM (``autotvm.tuner.xgboost_cost_model``).

A gradient-boosted model (xgboost, ``rank:pairwise`` by default) over config features: the
lowered loop nest's (``itervar``; computed by the tuner's build workers during tuning, in this
process otherwise) or the knob values (``knob``). ``XGBTuner`` trains one as results arrive;
a base model trained on earlier records (``fit_log``, ``load_basemodel``) gives the upper
model its starting margins (transfer learning, as in classic AutoTVM).
"""
from __future__ import annotations

import time
from typing import Dict, List, Optional, Sequence

import numpy as np

from ..._classic import unsupported
from ...error import TVMError

XGBOOST_HINT = ("XGBTuner needs the xgboost package: pip install xgboost-cpu (the CPU-only "
                "wheel) or pip install 'tvmlite[xgboost]'")


def _import_xgboost():
    try:
        import xgboost  # type: ignore
    except ImportError:
        raise TVMError(XGBOOST_HINT) from None
    return xgboost


class FeatureCache:
    """Features per config index: ``knob`` computed here, ``itervar`` lowered in the build
    workers (or taken from the builds themselves), or here when there is no builder."""

    def __init__(self, task, feature_type: str):
        if feature_type == "curve":
            raise unsupported("the 'curve' feature type of XGBoostCostModel (use 'itervar' "
                              "or 'knob')")
        if feature_type not in ("itervar", "knob"):
            raise ValueError(f"unknown feature_type {feature_type!r} (use 'itervar' or 'knob')")
        self.task = task
        self.space = task.config_space
        self.feature_type = feature_type
        self.cache: Dict[int, Optional[np.ndarray]] = {}
        self.builder = None
        self.lowered = 0
        self.seconds = 0.0

    def add(self, index: int, feats) -> None:
        if feats is not None:
            self.cache[index] = np.asarray(feats, dtype="float32")

    def get(self, indices: Sequence[int]) -> List[Optional[np.ndarray]]:
        indices = [int(i) for i in indices]
        missing = [i for i in dict.fromkeys(indices) if i not in self.cache]
        if missing:
            t0 = time.perf_counter()
            if self.feature_type == "knob":
                for i in missing:
                    self.cache[i] = np.asarray(self.space.get(i).get_flatten_feature(),
                                               dtype="float32")
            else:
                feats = self.builder.features(missing) if self.builder is not None \
                    else [_lower_features(self.task, i) for i in missing]
                for i, f in zip(missing, feats):
                    self.cache[i] = None if f is None else np.asarray(f, dtype="float32")
                self.lowered += len(missing)
            self.seconds += time.perf_counter() - t0
        return [self.cache[i] for i in indices]


def _lower_features(task, index: int) -> Optional[List[float]]:
    """The loop-nest features of one config, lowered in this process (None when the config
    does not instantiate or lower), as the build workers compute them."""
    from ..feature import loop_nest_features
    from ..worker import WorkerError, _instantiate, _lower

    if not task.config_space.is_index_valid(index):
        return None
    try:
        sch, args = _instantiate(task, index)
        return loop_nest_features(_lower(task, sch, args))
    except WorkerError:
        return None


class XGBoostCostModel:
    """An xgboost model over config features predicting relative throughput.

    Parameters
    ----------
    task : Task
        The tuning task whose configs are scored.
    feature_type : str
        ``"itervar"`` (the lowered loop nest) or ``"knob"`` (the knob values).
    loss_type : str
        ``"rank"`` (pairwise ranking) or ``"reg"`` (regression).
    num_threads : int, optional
        xgboost's threads (default 1).
    log_interval : int
        Accepted for classic compatibility (tvmlite logs no training progress).
    upper_model : XGBoostCostModel, optional
        The model this one is the base model of.
    """

    def __init__(self, task, feature_type: str = "itervar", loss_type: str = "rank",
                 num_threads: Optional[int] = None, log_interval: int = 25,
                 upper_model: Optional["XGBoostCostModel"] = None, num_boost_round: int = 60,
                 seed=None, features: Optional[FeatureCache] = None):
        self.xgb = _import_xgboost()
        if loss_type not in ("rank", "reg"):
            raise ValueError(f"unknown loss_type {loss_type!r} (use 'rank' or 'reg')")
        self.task = task
        self.features = features if features is not None else FeatureCache(task, feature_type)
        self.feature_type = self.features.feature_type
        self.loss_type = loss_type
        self.num_threads = num_threads
        self.log_interval = log_interval
        self.upper_model = upper_model
        self.base_model: Optional[XGBoostCostModel] = None
        self.seed = seed
        self.params = {"max_depth": 3, "gamma": 1e-4, "min_child_weight": 1, "subsample": 1.0,
                       "eta": 0.3, "lambda": 1.0, "alpha": 0.0, "verbosity": 0,
                       "objective": "rank:pairwise" if loss_type == "rank"
                       else "reg:squarederror", "seed": 0 if seed is None else int(seed)}
        # one thread by default: the training sets are small, and threads only contend
        # with the build workers on a small machine
        self.params["nthread"] = int(num_threads) if num_threads else 1
        self.num_boost_round = num_boost_round
        self.bst = None
        self.train_seconds = 0.0

    def fit(self, xs: Sequence[int], ys: Sequence[float], plan_size: Optional[int] = None
            ) -> None:
        """Train on configs ``xs`` (indices into the space) measured at ``ys`` (throughput,
        higher is better; 0 for a failed config). ``plan_size`` is accepted for classic
        compatibility."""
        t0 = time.perf_counter()
        xs = [int(i) for i in xs]
        feats = self.features.get(xs)
        rows = [(i, f, y) for i, f, y in zip(xs, feats, ys) if f is not None]
        if len(rows) < 2:
            return
        x = _stack([f for _, f, _ in rows])
        y = np.array([y for _, _, y in rows], dtype="float64")
        y = y / max(y.max(), 1e-9)
        dtrain = self.xgb.DMatrix(x, label=y)
        if self.loss_type == "rank":
            dtrain.set_group([len(y)])
        if self.base_model is not None:
            dtrain.set_base_margin(self.base_model.predict([i for i, _, _ in rows],
                                                           output_margin=True))
        self.bst = self.xgb.train(self.params, dtrain, num_boost_round=self.num_boost_round)
        self.train_seconds += time.perf_counter() - t0

    def fit_log(self, records, plan_size: Optional[int] = None,
                min_seed_records: int = 500) -> bool:
        """Train on earlier ``(MeasureInput, MeasureResult)`` records of this task; False
        (and no training) when there are fewer than ``min_seed_records`` of them."""
        wl = getattr(self.task, "workload", None)
        xs, ys = [], []
        for inp, res in records:
            if wl is not None and getattr(inp.task, "workload", wl) != wl:
                continue
            idx = inp.config.index
            if not self.features.space.is_index_valid(idx):
                continue
            ok = res.error_no == 0
            xs.append(idx)
            ys.append(inp.task.flop / float(np.mean(res.costs)) if ok and inp.task.flop
                      else (1.0 / float(np.mean(res.costs)) if ok else 0.0))
        if len(xs) < max(min_seed_records, 1):
            return False
        self.fit(xs, ys, plan_size)
        return True

    def predict(self, xs: Sequence[int], output_margin: bool = False) -> np.ndarray:
        """Scores of configs ``xs`` (higher is better); configs without features score
        -inf (0 as margins)."""
        xs = [int(i) for i in xs]
        feats = self.features.get(xs)
        out = np.full(len(xs), 0.0 if output_margin else -np.inf)
        ok = [k for k, f in enumerate(feats) if f is not None]
        if ok and self.bst is not None:
            x = _stack([feats[k] for k in ok])
            if self.base_model is None and not output_margin and \
                    hasattr(self.bst, "inplace_predict"):
                out[ok] = self.bst.inplace_predict(x)
                return out
            dm = self.xgb.DMatrix(x)
            if self.base_model is not None:
                dm.set_base_margin(self.base_model.predict([xs[k] for k in ok],
                                                           output_margin=True))
            out[ok] = self.bst.predict(dm, output_margin=output_margin)
        elif ok:
            out[ok] = 0.0
        return out

    def load_basemodel(self, base_model: "XGBoostCostModel") -> None:
        """Start from ``base_model``'s predictions (trained on earlier records)."""
        self.base_model = base_model
        base_model.upper_model = self

    def spawn_base_model(self) -> "XGBoostCostModel":
        """A fresh model of the same kind over the same features, to train as this one's
        base model."""
        return XGBoostCostModel(self.task, self.feature_type, self.loss_type,
                                self.num_threads, self.log_interval, upper_model=self,
                                num_boost_round=self.num_boost_round, seed=self.seed,
                                features=self.features)


def _stack(rows: List[np.ndarray]) -> np.ndarray:
    """Rows of possibly different lengths (loop nests differ) padded with zeros."""
    n = max(len(r) for r in rows)
    out = np.zeros((len(rows), n), dtype="float32")
    for k, r in enumerate(rows):
        out[k, :len(r)] = r
    return out
