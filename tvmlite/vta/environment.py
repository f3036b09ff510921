"""The VTA hardware configuration (classic ``vta_config.json``) and its derived constants."""
from __future__ import annotations

import json
import os
from typing import Any, Dict, Optional

from ..error import TVMError

#: Classic ``3rdparty/vta-hw/config/vta_config.json`` (the default simulator configuration).
DEFAULT_CONFIG: Dict[str, Any] = {
    "TARGET": "sim",
    "HW_VER": "0.0.2",
    "LOG_INP_WIDTH": 3,
    "LOG_WGT_WIDTH": 3,
    "LOG_ACC_WIDTH": 5,
    "LOG_BATCH": 0,
    "LOG_BLOCK": 4,
    "LOG_UOP_BUFF_SIZE": 15,
    "LOG_INP_BUFF_SIZE": 15,
    "LOG_WGT_BUFF_SIZE": 18,
    "LOG_ACC_BUFF_SIZE": 17,
}

#: bytes of one micro-op (dst, src and wgt indices packed in 32 bits)
UOP_BYTES = 4


class DevContext:
    """Device-side names shared by the intrinsics and passes (classic ``env.dev``)."""

    QID_LOAD_INP = 1
    QID_LOAD_WGT = 1
    QID_LOAD_OUT = 2
    QID_STORE_OUT = 3
    QID_COMPUTE = 2

    def __init__(self, env: "Environment"):
        self.env = env
        self.vta_push_uop = "VTAPushGEMMOp"
        self.DEBUG_NO_SYNC = False

    def get_task_qid(self, qid: int) -> int:
        """The queue id of a task (1 for every task when ``DEBUG_NO_SYNC``)."""
        return 1 if self.DEBUG_NO_SYNC else qid


class Environment:
    """The VTA configuration: widths, block sizes, on-chip buffer sizes, scopes and the
    tensor intrinsics (``vta.get_env()``)."""

    current: Optional["Environment"] = None

    def __init__(self, cfg: Dict[str, Any]):
        cfg = dict(DEFAULT_CONFIG, **cfg)
        cfg.setdefault("LOG_BLOCK_IN", cfg["LOG_BLOCK"])
        cfg.setdefault("LOG_BLOCK_OUT", cfg["LOG_BLOCK"])
        cfg.setdefault("LOG_OUT_WIDTH", cfg["LOG_INP_WIDTH"])
        cfg.setdefault("LOG_OUT_BUFF_SIZE", cfg["LOG_ACC_BUFF_SIZE"] + cfg["LOG_OUT_WIDTH"]
                       - cfg["LOG_ACC_WIDTH"])
        if cfg["TARGET"] not in ("sim", "tsim", "pynq", "ultra96", "de10nano", "intelfocl"):
            raise TVMError(f"vta: unknown TARGET {cfg['TARGET']!r}")
        self.cfg = cfg
        self.__dict__.update(cfg)
        self.INP_WIDTH = 1 << self.LOG_INP_WIDTH
        self.WGT_WIDTH = 1 << self.LOG_WGT_WIDTH
        self.ACC_WIDTH = 1 << self.LOG_ACC_WIDTH
        self.OUT_WIDTH = 1 << self.LOG_OUT_WIDTH
        self.BATCH = 1 << self.LOG_BATCH
        self.BLOCK_IN = 1 << self.LOG_BLOCK_IN
        self.BLOCK_OUT = 1 << self.LOG_BLOCK_OUT
        self.UOP_BUFF_SIZE = 1 << self.LOG_UOP_BUFF_SIZE
        self.INP_BUFF_SIZE = 1 << self.LOG_INP_BUFF_SIZE
        self.WGT_BUFF_SIZE = 1 << self.LOG_WGT_BUFF_SIZE
        self.ACC_BUFF_SIZE = 1 << self.LOG_ACC_BUFF_SIZE
        self.OUT_BUFF_SIZE = 1 << self.LOG_OUT_BUFF_SIZE
        self.INP_ELEM_BITS = self.BATCH * self.BLOCK_IN * self.INP_WIDTH
        self.WGT_ELEM_BITS = self.BLOCK_OUT * self.BLOCK_IN * self.WGT_WIDTH
        self.ACC_ELEM_BITS = self.BATCH * self.BLOCK_OUT * self.ACC_WIDTH
        self.OUT_ELEM_BITS = self.BATCH * self.BLOCK_OUT * self.OUT_WIDTH
        self.INP_ELEM_BYTES = self.INP_ELEM_BITS // 8
        self.WGT_ELEM_BYTES = self.WGT_ELEM_BITS // 8
        self.ACC_ELEM_BYTES = self.ACC_ELEM_BITS // 8
        self.OUT_ELEM_BYTES = self.OUT_ELEM_BITS // 8
        self.acc_dtype = f"int{self.ACC_WIDTH}"
        self.inp_dtype = f"int{self.INP_WIDTH}"
        self.wgt_dtype = f"int{self.WGT_WIDTH}"
        self.out_dtype = f"int{self.OUT_WIDTH}"
        self.BITSTREAM = (f"{self.BATCH}x{self.BLOCK_IN}_i{self.INP_WIDTH}w{self.WGT_WIDTH}"
                          f"a{self.ACC_WIDTH}_{self.LOG_UOP_BUFF_SIZE}_{self.LOG_INP_BUFF_SIZE}_"
                          f"{self.LOG_WGT_BUFF_SIZE}_{self.LOG_ACC_BUFF_SIZE}")
        self.MODEL = f"{self.TARGET}_{self.BITSTREAM}"
        self.mock_mode = False
        self._dev = None
        self._gemm = None
        self._last_env: Optional[Environment] = None

    # scopes of the on-chip buffers
    inp_scope = "local.inp_buffer"
    wgt_scope = "local.wgt_buffer"
    acc_scope = "local.acc_buffer"

    def __enter__(self) -> "Environment":
        self._last_env = Environment.current
        Environment.current = self
        return self

    def __exit__(self, *args) -> None:
        Environment.current = self._last_env

    @property
    def cfg_dict(self) -> Dict[str, Any]:
        """The configuration fields."""
        return dict(self.cfg)

    @property
    def dev(self) -> DevContext:
        """Device names (``env.dev``)."""
        if self._dev is None:
            self._dev = DevContext(self)
        return self._dev

    @property
    def mock(self) -> "Environment":
        """The same configuration whose DMA/ALU pragmas and GEMM do nothing."""
        import copy

        m = copy.copy(self)
        m.mock_mode = True
        m._gemm = None
        return m

    @property
    def dma_copy(self) -> str:
        """Pragma name marking a copy loop nest as a DMA transfer."""
        return "skip_dma_copy" if self.mock_mode else "dma_copy"

    @property
    def alu(self) -> str:
        """Pragma name marking an elementwise loop nest as vector-ALU work."""
        return "skip_alu" if self.mock_mode else "alu"

    @property
    def gemm(self):
        """The GEMM tensor intrinsic (``BATCH x BLOCK_IN`` times ``BLOCK_OUT x BLOCK_IN``)."""
        if self._gemm is None:
            from .intrin import gemm

            self._gemm = gemm(self, self.mock_mode)
        return self._gemm

    @property
    def target(self):
        """The VTA target (``ext_dev`` with the model name)."""
        from ..target import Target

        return Target(f"ext_dev -keys=vta,cpu -device=vta -model={self.MODEL}")

    @property
    def target_host(self) -> str:
        """The host CPU target."""
        if self.TARGET in ("pynq", "de10nano"):
            return "llvm -mtriple=armv7-none-linux-gnueabihf"
        if self.TARGET == "ultra96":
            return "llvm -mtriple=aarch64-linux-gnu"
        return "llvm"

    @property
    def target_vta_cpu(self):
        """The host CPU target of the board."""
        from ..target import Target

        return Target(self.target_host)


def _load_config() -> Dict[str, Any]:
    path = os.environ.get("VTA_CONFIG")
    if path:
        try:
            with open(path) as fh:
                return json.load(fh)
        except (OSError, ValueError) as e:
            raise TVMError(f"vta: cannot read the configuration {path!r}: {e}") from e
    return {}


def get_env() -> Environment:
    """The current VTA environment (the classic default configuration unless ``VTA_CONFIG``
    names a ``vta_config.json``)."""
    if Environment.current is None:
        Environment.current = Environment(_load_config())
    return Environment.current
