"""TOPI, the tensor operator inventory (``tvm.topi``): NumPy-style operators built with
``te.compute``."""
import sys as _sys

from ..te import tensor as _te_tensor
from . import arm_cpu, cuda, generic, image, nn, tag, testing, utils, vision, x86  # noqa: F401
from .argwhere import argwhere  # noqa: F401
from .broadcast import *  # noqa: F401,F403
from .einsum import einsum  # noqa: F401
from .math import *  # noqa: F401,F403
from .reduction import *  # noqa: F401,F403
from .scan import cumprod, cumsum, scanop  # noqa: F401
from .scatter import scatter_elements, scatter_nd  # noqa: F401
from .searchsorted import searchsorted  # noqa: F401
from .signal import dft, stft  # noqa: F401
from .sort import argsort, sort, topk  # noqa: F401  (the functions shadow the module)
from .sparse_reshape import sparse_reshape  # noqa: F401
from .transform import *  # noqa: F401,F403
from .unique import unique  # noqa: F401

util = utils  # classic spelling (``topi.util.get_const_tuple``)

_te_tensor.register_tensor_ops(_sys.modules[__name__])  # ``A + B`` on tensors is topi.add


from .._classic import backendless_package as _backendless  # noqa: E402
from .._classic import expose_submodules as _expose  # noqa: E402
from .._classic import fallback as _fallback  # noqa: E402
from .._classic_topi import BACKENDLESS as _BACKENDLESS  # noqa: E402

# the packages of targets without a backend here (``topi.arm_cpu``, ``topi.hls``…)
_expose(_sys.modules[__name__], **{_n: _backendless(_n) for _n in _BACKENDLESS})

__getattr__ = _fallback(__name__)
