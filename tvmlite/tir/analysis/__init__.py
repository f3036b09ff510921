"""Analyses of TensorIR (``tvm.tir.analysis``)."""
from .regions import block_access_regions, block_regions, read_modify_write_buffers
from .verify_gpu_code import gpu_code_errors, verify_gpu_code

__all__ = ["block_access_regions", "block_regions", "read_modify_write_buffers",
           "gpu_code_errors", "verify_gpu_code"]
