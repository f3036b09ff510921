"""Data types as strings, TVM style: ``"float32"``, ``"int8"``, ``"float32x8"``, ``"bool"``.

A dtype is kept as a plain ``str`` on every node; these helpers decode it.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

# DLPack type codes
INT, UINT, FLOAT, HANDLE, BFLOAT = 0, 1, 2, 3, 4
TYPE_CODE_NAMES = {INT: "int", UINT: "uint", FLOAT: "float", HANDLE: "handle", BFLOAT: "bfloat"}

# Argument type codes of the packed calling convention (TVM's TVMArgTypeCode), shared by the
# code generator (the checks in the generated C) and the runtime (packing, call_packed); the
# codes below 3 are the DLPack codes above.
ARG_INT, ARG_FLOAT, ARG_HANDLE, ARG_NULL, ARG_DLTENSOR, ARG_STR = INT, FLOAT, HANDLE, 4, 7, 11
ARG_TYPE_NAMES = {ARG_INT: "int", ARG_FLOAT: "float", ARG_HANDLE: "handle", ARG_NULL: "null",
                  ARG_DLTENSOR: "DLTensor*", ARG_STR: "str"}

_RE = re.compile(r"^(int|uint|float|bfloat|bool|handle)(\d*)(?:x(\d+))?$")


class DType(NamedTuple):
    code: int
    bits: int
    lanes: int


@lru_cache(maxsize=None)
def parse(dtype: str) -> DType:
    """Decode a dtype string into ``(type code, bits, lanes)``."""
    m = _RE.match(dtype)
    if m is None:
        raise ValueError(f"unknown dtype {dtype!r}")
    kind, bits, lanes = m.group(1), m.group(2), m.group(3)
    lanes = int(lanes) if lanes else 1
    if kind == "bool" or (kind == "uint" and bits == "1"):
        return DType(UINT, 1, lanes)
    if kind == "handle":
        return DType(HANDLE, 64, lanes)
    code = {"int": INT, "uint": UINT, "float": FLOAT, "bfloat": BFLOAT}[kind]
    bits = int(bits) if bits else (32 if kind != "bfloat" else 16)
    if bits not in (8, 16, 32, 64) and not (kind == "int" and bits in (1, 4)):
        raise ValueError(f"unsupported dtype {dtype!r}")
    return DType(code, bits, lanes)


def canonical(dtype) -> str:
    """Normalise a dtype given as str, numpy dtype or Python type to TVM's spelling."""
    if isinstance(dtype, str):
        if dtype in _ALIASES:
            return _ALIASES[dtype]
        d = parse(dtype)
        if d.code == UINT and d.bits == 1:   # "boolx4" and "uint1" name the classic spellings
            return with_lanes("bool", d.lanes)
        return dtype
    import numpy as np

    return canonical(str(np.dtype(dtype)))


_ALIASES = {"float": "float32", "int": "int32", "double": "float64"}


@lru_cache(maxsize=None)
def is_float(dtype: str) -> bool:
    return parse(dtype).code in (FLOAT, BFLOAT)


@lru_cache(maxsize=None)
def is_int(dtype: str) -> bool:
    return parse(dtype).code == INT


@lru_cache(maxsize=None)
def is_uint(dtype: str) -> bool:
    d = parse(dtype)
    return d.code == UINT and d.bits != 1


@lru_cache(maxsize=None)
def is_bool(dtype: str) -> bool:
    d = parse(dtype)
    return d.code == UINT and d.bits == 1


@lru_cache(maxsize=None)
def is_integral(dtype: str) -> bool:
    """int, uint or bool."""
    return parse(dtype).code in (INT, UINT)


def is_handle(dtype: str) -> bool:
    return dtype.startswith("handle")


@lru_cache(maxsize=None)
def lanes(dtype: str) -> int:
    return parse(dtype).lanes


@lru_cache(maxsize=None)
def bits(dtype: str) -> int:
    return parse(dtype).bits


@lru_cache(maxsize=None)
def element(dtype: str) -> str:
    """The scalar type of a (possibly vector) dtype (``"uint1x4"`` -> ``"bool"``)."""
    e = dtype.split("x")[0] if "x" in dtype else dtype
    return "bool" if e == "uint1" else e


@lru_cache(maxsize=None)
def with_lanes(dtype: str, n: int) -> str:
    """``dtype``'s element with ``n`` lanes; boolean vectors are spelt ``"uint1xN"`` as
    classic TVM prints them (a scalar stays ``"bool"``)."""
    e = element(dtype)
    if n == 1:
        return e
    return f"uint1x{n}" if e == "bool" else f"{e}x{n}"


def nbytes(dtype: str) -> int:
    d = parse(dtype)
    return max(d.bits, 8) // 8 * d.lanes


def min_value(dtype: str):
    """Smallest value of a scalar dtype, as a Python number."""
    d = parse(dtype)
    if d.code == FLOAT:
        return {16: -65504.0, 32: -3.4028234663852886e38, 64: -1.7976931348623157e308}[d.bits]
    if d.code == BFLOAT:
        return -3.3895313892515355e38
    if d.code == INT:
        return -(1 << (d.bits - 1))
    return 0


def max_value(dtype: str):
    """Largest value of a scalar dtype, as a Python number."""
    d = parse(dtype)
    if d.code == FLOAT:
        return {16: 65504.0, 32: 3.4028234663852886e38, 64: 1.7976931348623157e308}[d.bits]
    if d.code == BFLOAT:
        return 3.3895313892515355e38
    if d.code == INT:
        return (1 << (d.bits - 1)) - 1
    return (1 << d.bits) - 1


class DataType(str):
    """Classic ``tvm.DataType``: a dtype string (canonical spelling) that also exposes its
    ``type_code``, ``bits`` and ``lanes``."""

    def __new__(cls, dtype) -> "DataType":
        return super().__new__(cls, canonical(dtype))

    @property
    def type_code(self) -> int:
        return parse(self).code

    @property
    def bits(self) -> int:
        return parse(self).bits

    @property
    def lanes(self) -> int:
        return parse(self).lanes
