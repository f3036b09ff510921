"""Code generation: lowered TIR to source and a loaded module.

``codegen_c`` is the one C printer (``codegen_c_vector`` its SIMD mixin); dialects such as CUDA
C and accelerator intrinsics sit beside it. ``build_c`` compiles the C with ``contrib.cc`` into a
``runtime.Module``. What to generate for is described by ``tvmlite.target`` (Target, tags, ISA),
which sits below this package and knows nothing of code generation.
"""
