"""VTA, the versatile tensor accelerator: its configuration, compiler path and a functional
simulator (``import vta`` through the alias)."""
from . import testing
from .build_module import build, build_config, lower
from .environment import Environment, get_env


def reconfig_runtime(remote) -> None:
    """Nothing to do for the simulator (classic rebuilds the board's runtime)."""


def program_fpga(remote, bitstream=None) -> None:
    """Nothing to do for the simulator (classic programs the board's FPGA)."""


__all__ = ["Environment", "build", "build_config", "get_env", "lower", "program_fpga",
           "reconfig_runtime", "testing"]
