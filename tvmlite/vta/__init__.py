"""VTA, the versatile tensor accelerator: its configuration, compiler path and a functional
simulator (``import vta`` through the alias)."""
from .environment import Environment, get_env

__all__ = ["Environment", "get_env"]
