"""``tvm.ir.save_json`` / ``load_json``: any IR object (expressions, tensors, schedules,
modules) to a JSON text and back. The JSON holds a versioned envelope around a pickle of the
object graph, so variables keep their identity within one saved object."""
from __future__ import annotations

import base64
import json
import pickle

from ..error import TVMError

_FORMAT = "tvmlite-pickle-v1"


def save_json(node) -> str:
    """Serialize ``node`` to a JSON string (read back by :func:`load_json`)."""
    try:
        blob = pickle.dumps(node, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError) as e:
        raise TVMError(f"save_json: cannot serialize {type(node).__name__}: {e}") from None
    return json.dumps({"format": _FORMAT, "root": base64.b64encode(blob).decode("ascii")})


def load_json(json_str: str):
    """The object :func:`save_json` wrote. Only load text you trust (it holds a pickle)."""
    try:
        data = json.loads(json_str)
    except json.JSONDecodeError as e:
        raise TVMError(f"load_json: not JSON: {e}") from None
    if not isinstance(data, dict) or data.get("format") != _FORMAT:
        raise TVMError("load_json: not a tvmlite save_json document (classic TVM JSON graphs "
                       "are not readable by tvmlite)")
    return pickle.loads(base64.b64decode(data["root"]))
