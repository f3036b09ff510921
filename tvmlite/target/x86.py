"""x86 CPU features by ``-mcpu`` name (classic ``tvm.target.x86``)."""
from __future__ import annotations

#: classic ``target_has_sse42``: the -mcpu values with SSE4.2 (AVX, AVX2, AVX-512 and VNNI
#: ones included)
SSE42_CPUS = frozenset("""
    silvermont slm goldmont goldmont-plus tremont nehalem corei7 westmere bdver1 bdver2 bdver3
    x86-64-v2 sandybridge corei7-avx ivybridge core-avx-i haswell core-avx2 broadwell skylake
    bdver4 znver1 znver2 znver3 x86-64-v3 skylake-avx512 skx knl knm x86-64-v4 cannonlake
    cascadelake icelake-client icelake-server rocketlake tigerlake cooperlake sapphirerapids
    alderlake
""".split())

#: classic ``target_has_vnni``: the -mcpu values with AVX-512 VNNI
VNNI_CPUS = frozenset("""
    cascadelake icelake-client icelake-server rocketlake tigerlake cooperlake sapphirerapids
    alderlake
""".split())


def target_has_sse42(mcpu: str) -> bool:
    """Whether the CPU ``mcpu`` has SSE4.2 (and so SSSE3's ``pmaddubsw``) or newer."""
    return str(mcpu) in SSE42_CPUS


def target_has_vnni(mcpu: str) -> bool:
    """Whether the CPU ``mcpu`` has the AVX-512 VNNI ``vpdpbusd`` instruction."""
    return str(mcpu) in VNNI_CPUS


__all__ = ["target_has_sse42", "target_has_vnni"]
