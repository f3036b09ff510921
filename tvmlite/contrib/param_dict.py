"""Parameter blobs for the graph executor: :mod:`tvmlite.runtime.params` (classic
``tvm.runtime.save_param_dict`` / ``load_param_dict``)."""
from ..runtime.params import load_param_dict, save_param_dict

__all__ = ["save_param_dict", "load_param_dict"]
