"""``relay.frontend.from_pytorch``: a traced (or scripted) PyTorch module, through ONNX.

tvmlite keeps one importer, ONNX's: the module is exported in memory with torch's own
TorchScript-based ONNX exporter and handed to :func:`from_onnx`, so every operator has one
conversion and PyTorch's export rules (opset, constant folding) come from PyTorch itself.
"""
from __future__ import annotations

import io
import warnings
from typing import Any, Dict, Sequence, Tuple

from ...error import TVMError
from ...ir.module import IRModule
from .onnx import from_onnx

OPSET = 17


def _input_specs(input_infos, default_dtype: str):
    specs = []
    for i, info in enumerate(input_infos):
        try:
            name, spec = info
        except (TypeError, ValueError):
            raise TVMError(f"from_pytorch: input_infos[{i}] must be (name, shape) or "
                           f"(name, (shape, dtype)), got {info!r}") from None
        if (isinstance(spec, (tuple, list)) and len(spec) == 2
                and isinstance(spec[1], str) and isinstance(spec[0], (tuple, list))):
            shape, dtype = spec
        else:
            shape, dtype = spec, default_dtype
        try:
            shape = tuple(int(d) for d in shape)
        except (TypeError, ValueError):
            raise TVMError(f"from_pytorch: input {name!r} needs a static shape of integers, "
                           f"got {spec!r}") from None
        specs.append((str(name), shape, str(dtype)))
    return specs


def from_pytorch(script_module, input_infos: Sequence[Tuple[str, Any]],
                 custom_convert_map=None, default_dtype: str = "float32",
                 use_parser_friendly_name: bool = False, keep_quantized_weight: bool = False,
                 export_renamed_c_api_path=None) -> Tuple[IRModule, Dict[str, Any]]:
    """Import a TorchScript module (``torch.jit.trace``/``script``) as a relay module.

    Parameters
    ----------
    script_module : torch.jit.ScriptModule (a plain ``torch.nn.Module`` is traced too)
    input_infos : ``[(name, shape), ...]`` or ``[(name, (shape, dtype)), ...]``, in the
        order of the module's ``forward`` arguments
    default_dtype : the dtype of inputs given without one

    Returns
    -------
    (IRModule, dict of str to NDArray)
        ``main`` (its inputs named as in ``input_infos``) and the weights.
    """
    if custom_convert_map:
        raise TVMError("from_pytorch: custom_convert_map is not supported by tvmlite (every "
                       "operator goes through the ONNX importer)")
    if keep_quantized_weight or export_renamed_c_api_path:
        raise TVMError("from_pytorch: quantized models are not supported by tvmlite")
    try:
        import torch
    except ImportError:
        raise TVMError("from_pytorch needs PyTorch (pip install torch)") from None
    specs = _input_specs(input_infos, default_dtype)
    examples = []
    for name, shape, dtype in specs:
        try:
            examples.append(torch.zeros(shape, dtype=getattr(torch, dtype)))
        except (AttributeError, TypeError):
            raise TVMError(f"from_pytorch: input {name!r} has an unknown dtype {dtype!r}") \
                from None
    buf = io.BytesIO()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(script_module, tuple(examples), buf,
                              input_names=[n for n, _, _ in specs], opset_version=OPSET,
                              do_constant_folding=True, dynamo=False)
    except Exception as e:  # torch's exporter raises many kinds; name the step that failed
        raise TVMError(f"from_pytorch: PyTorch could not export the module to ONNX: "
                       f"{type(e).__name__}: {e}") from e
    return from_onnx(buf.getvalue(), shape={n: s for n, s, _ in specs},
                     dtype={n: d for n, _, d in specs})
