"""``tvm.transform``: passes and the pass context (defined in :mod:`tvmlite.ir.transform`)."""
from .ir.transform import (
    ModulePass,
    Pass,
    PassContext,
    PassInfo,
    PrintIR,
    Sequential,
    module_pass,
    register_pass_config,
)

__all__ = ["ModulePass", "Pass", "PassContext", "PassInfo", "PrintIR", "Sequential", "module_pass",
           "register_pass_config"]
