"""Classic ``tvm.parser``: the legacy names of the relay text parser (``tvm.parser.parse``,
``parse_expr``, ``fromtext``), which classic v0.12 keeps as deprecated forwards to
``tvm.relay``."""
from __future__ import annotations

import warnings


def _forward(name: str):
    def forward(*args, **kwargs):
        from . import relay
        warnings.warn(f"tvm.parser.{name} is deprecated, use tvm.relay.{name} instead",
                      DeprecationWarning, stacklevel=2)
        return getattr(relay, name)(*args, **kwargs)
    forward.__name__ = name
    forward.__doc__ = f"Deprecated: ``tvm.relay.{name}``."
    return forward


parse = _forward("parse")
parse_expr = _forward("parse_expr")
fromtext = _forward("fromtext")

__all__ = ["parse", "parse_expr", "fromtext"]
