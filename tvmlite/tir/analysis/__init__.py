"""Analyses of TensorIR (``tvm.tir.analysis``)."""
from .regions import block_access_regions, block_regions, read_modify_write_buffers

__all__ = ["block_access_regions", "block_regions", "read_modify_write_buffers"]
