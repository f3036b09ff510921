"""Networks with random weights (``relay.testing``), as classic TVM ships them, so the tuning
tutorials run without downloads: ``resnet``, ``mobilenet``, ``mlp``, ``dcgan``, each with
``get_workload(batch_size=..., dtype=...) -> (mod, params)``."""
from . import dcgan, layers, mlp, mobilenet, resnet
from .init import Xavier, create_workload

__all__ = ["create_workload", "Xavier", "layers", "resnet", "mobilenet", "mlp", "dcgan"]
