"""TOPI, the tensor operator inventory (``tvm.topi``): NumPy-style operators built with
``te.compute``."""
from . import nn, tag, testing, utils  # noqa: F401
from .broadcast import *  # noqa: F401,F403
from .math import *  # noqa: F401,F403
from .reduction import *  # noqa: F401,F403
from .transform import *  # noqa: F401,F403

util = utils  # classic spelling (``topi.util.get_const_tuple``)


from .._classic import fallback as _fallback  # noqa: E402

__getattr__ = _fallback(__name__)
