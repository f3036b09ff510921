"""TOPI, the tensor operator inventory (``tvm.topi``): NumPy-style operators built with
``te.compute``."""
from . import tag, utils
from .broadcast import *  # noqa: F401,F403
from .math import *  # noqa: F401,F403
from .transform import *  # noqa: F401,F403
from .reduction import *  # noqa: F401,F403
from . import nn, testing  # noqa: F401

util = utils  # classic spelling (``topi.util.get_const_tuple``)
