"""Image operators (``relay.image.resize2d``)."""
from __future__ import annotations

from typing import Optional, Sequence

from ..expr import Expr
from ._rel import topi_rel
from .registry import OpPattern, make_call, register

register("image.resize2d", 1, topi_rel("image.resize2d"), OpPattern.INJECTIVE,
         {"size": (), "roi": (0.0, 0.0, 0.0, 0.0), "layout": "NCHW", "method": "linear",
          "coordinate_transformation_mode": "half_pixel", "rounding_method": "",
          "cubic_alpha": -0.5, "cubic_exclude": 0, "extrapolation_value": 0.0,
          "out_dtype": ""})


def resize2d(data: Expr, size: Sequence[int], roi=None, layout: str = "NCHW",
             method: str = "linear", coordinate_transformation_mode: str = "half_pixel",
             rounding_method: str = "", cubic_alpha: float = -0.5, cubic_exclude: int = 0,
             extrapolation_value: float = 0.0, out_dtype: Optional[str] = "") -> Expr:
    """Resize the spatial axes of ``data`` to ``size = (OH, OW)`` (``roi`` None: the whole
    image, ``(0, 0, 0, 0)``)."""
    if roi is None:
        roi = (0.0, 0.0, 0.0, 0.0)
    return make_call("image.resize2d", [data], size=tuple(int(s) for s in size),
                     roi=tuple(float(r) for r in roi), layout=layout, method=method,
                     coordinate_transformation_mode=coordinate_transformation_mode,
                     rounding_method=rounding_method, cubic_alpha=float(cubic_alpha),
                     cubic_exclude=int(cubic_exclude),
                     extrapolation_value=float(extrapolation_value), out_dtype=out_dtype or "")
