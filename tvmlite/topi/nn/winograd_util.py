"""Winograd minimal-filtering transforms ``F(m, r)`` (Cook-Toom / Lagrange interpolation).

A 1-D ``F(m, r)`` computes ``m`` outputs of an ``r``-tap correlation from ``alpha = m + r - 1``
inputs with ``alpha`` multiplications::

    y = A^T [ (G g) * (B^T d) ]

The matrices come from evaluating polynomials at ``alpha - 1`` finite points and at infinity
(the leading coefficient): with ``E_k`` the ``alpha x k`` evaluation matrix of polynomials of
degree ``< k`` (row ``j``: the powers of point ``a_j``; the last row picks the coefficient of
degree ``k - 1``), the linear convolution of ``g`` and ``u`` is
``E_alpha^{-1} [(E_r g) * (E_m u)]``, and the correlation is its transpose in ``u``: so
``A = E_m``, ``G = E_r``, ``B = E_alpha^{-1}``. Row ``j`` of ``G`` and column ``j`` of ``B`` are
then rescaled by ``1 / f_j`` and ``f_j`` (``f_j = prod_{l != j} (a_j - a_l)``), which keeps
the product and makes ``B`` hold small integers and halves. Everything is computed exactly
in fractions, then rounded once to the requested dtype.

2-D: ``Y = A^T [ (G g G^T) * (B^T d B) ] A`` over ``alpha x alpha`` input tiles.
"""
from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import List, Sequence, Tuple

import numpy as np

from ..utils import TopiError, const_matrix

Matrix = Tuple[Tuple[Fraction, ...], ...]

#: the finite interpolation points, in the order they are taken: small magnitudes first, and
#: a point with its negation (their errors partly cancel)
_POINTS = (Fraction(0), Fraction(1), Fraction(-1), Fraction(2), Fraction(-2), Fraction(1, 2),
           Fraction(-1, 2), Fraction(3), Fraction(-3), Fraction(1, 3), Fraction(-1, 3),
           Fraction(4), Fraction(-4))


def interpolation_points(alpha: int) -> Tuple[Fraction, ...]:
    """The ``alpha - 1`` finite interpolation points of a transform over ``alpha`` inputs
    (the last point is infinity)."""
    if not 2 <= alpha <= len(_POINTS) + 1:
        raise TopiError(f"winograd: no interpolation points for alpha = {alpha} "
                        f"(supported: 2..{len(_POINTS) + 1})")
    return _POINTS[:alpha - 1]


def _evaluation(points: Sequence[Fraction], k: int) -> List[List[Fraction]]:
    """``(len(points) + 1) x k``: row ``j`` the powers ``a_j^0..a_j^{k-1}``, last row the
    point at infinity (the coefficient of degree ``k - 1``)."""
    rows = [[p ** i for i in range(k)] for p in points]
    rows.append([Fraction(int(i == k - 1)) for i in range(k)])
    return rows


def _inverse(m: List[List[Fraction]]) -> List[List[Fraction]]:
    """The exact inverse of a square matrix of fractions (Gauss-Jordan)."""
    n = len(m)
    a = [row[:] + [Fraction(int(i == j)) for j in range(n)] for i, row in enumerate(m)]
    for col in range(n):
        piv = next(r for r in range(col, n) if a[r][col] != 0)
        a[col], a[piv] = a[piv], a[col]
        inv = 1 / a[col][col]
        a[col] = [x * inv for x in a[col]]
        for r in range(n):
            if r != col and a[r][col] != 0:
                f = a[r][col]
                a[r] = [x - f * y for x, y in zip(a[r], a[col])]
    return [row[n:] for row in a]


@lru_cache(maxsize=None)
def winograd_fractions(tile_size: int, kernel_size: int) -> Tuple[Matrix, Matrix, Matrix]:
    """The exact ``(A, B, G)`` of ``F(tile_size, kernel_size)``: ``A`` is ``alpha x m``,
    ``B`` ``alpha x alpha``, ``G`` ``alpha x r`` (``alpha = m + r - 1``), such that
    ``y = A^T [(G g) * (B^T d)]``."""
    m, r = tile_size, kernel_size
    if not 2 <= m <= 8:
        raise TopiError(f"winograd: unsupported tile size {m} (supported: 2..8)")
    if not 2 <= r <= 7:
        raise TopiError(f"winograd: unsupported kernel size {r} (supported: 2..7)")
    alpha = m + r - 1
    pts = interpolation_points(alpha)
    a = _evaluation(pts, m)
    g = _evaluation(pts, r)
    b = _inverse(_evaluation(pts, alpha))
    scale = [Fraction(1)] * alpha
    for j, pj in enumerate(pts):
        for k, pk in enumerate(pts):
            if k != j:
                scale[j] *= pj - pk
    g = [[x / scale[j] for x in row] for j, row in enumerate(g)]
    b = [[x * scale[j] for j, x in enumerate(row)] for row in b]
    return (tuple(map(tuple, a)), tuple(map(tuple, b)), tuple(map(tuple, g)))


def winograd_numpy(tile_size: int, kernel_size: int,
                   dtype: str = "float64") -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(A, B, G)`` of :func:`winograd_fractions` as numpy arrays of ``dtype``."""
    return tuple(np.array([[float(x) for x in row] for row in mat]).astype(dtype)
                 for mat in winograd_fractions(tile_size, kernel_size))


def winograd_transform_matrices(tile_size: int, kernel_size: int, out_dtype: str):
    """The ``A``, ``B`` and ``G`` matrices of ``F(tile_size, kernel_size)`` as constant
    tensors (``topi.utils.const_matrix``) of ``out_dtype`` (classic signature).

    Parameters
    ----------
    tile_size : int
        ``m``, the output tile of one transform (2..8).
    kernel_size : int
        ``r``, the kernel size (2..7).
    out_dtype : str
        The tensors' dtype.

    Returns
    -------
    (A, B, G) : tuple of te.Tensor
        ``alpha x m``, ``alpha x alpha`` and ``alpha x r``.
    """
    a, b, g = winograd_numpy(tile_size, kernel_size, "float64")
    out_dtype = "uint16" if out_dtype == "bfloat16" else out_dtype
    return (const_matrix(a.astype(out_dtype), "A"), const_matrix(b.astype(out_dtype), "B"),
            const_matrix(g.astype(out_dtype), "G"))


__all__ = ["winograd_transform_matrices", "winograd_fractions", "winograd_numpy",
           "interpolation_points"]


def _linear(terms, dtype: str):
    """``sum(c * e)`` over ``(c, e)`` pairs with a fraction ``c``: zero coefficients dropped,
    ``+-1`` as an add or a subtract."""
    from ...tir import op as _op
    out = None
    for c, e in terms:
        if c == 0:
            continue
        if abs(c) != 1:
            e = e * _op.const(float(abs(c)), dtype)
        if out is None:
            out = e if c > 0 else _op.const(0.0, dtype) - e
        else:
            out = out + e if c > 0 else out - e
    return _op.const(0.0, dtype) if out is None else out


def _select_by(index, values):
    """``values[index]``: the element itself for a constant index, else a chain of selects
    (which folds once the loop of ``index`` is unrolled)."""
    from ...tir import expr as _expr
    from ...tir import op as _op
    from ..utils import get_const_int
    try:
        return values[get_const_int(index)]
    except (ValueError, TypeError):
        pass
    out = values[-1]
    for k in range(len(values) - 2, -1, -1):
        out = _expr.Select(index == k, values[k], out)
    return out if len(values) > 1 else _op.convert(out)


def tile_transform(mat: Matrix, load, i, j, dtype: str):
    """Element ``(i, j)`` of ``mat^T X mat`` for the tile ``X[a][b] = load(a, b)``, as an
    explicit expression: ``sum_b mat[b][j] * (sum_a mat[a][i] * X[a][b])``, the zero
    coefficients left out; the inner sums are the same expressions for every ``j`` (the C
    compiler computes them once per tile when ``i`` and ``j`` are unrolled)."""
    rows, cols = len(mat), len(mat[0])

    def inner(ii, b):
        return _linear([(mat[a][ii], load(a, b)) for a in range(rows)], dtype)

    def element(ii, jj):
        return _linear([(mat[b][jj], inner(ii, b)) for b in range(rows)], dtype)

    return _select_by(i, [_select_by(j, [element(ii, jj) for jj in range(cols)])
                          for ii in range(cols)])


__all__ += ["tile_transform"]


def row_transform(mat: Matrix, load, i, dtype: str):
    """Element ``i`` of ``mat^T x`` for ``x[a] = load(a)``, as an explicit expression (zero
    coefficients left out; a chain of selects on ``i`` unless it is constant)."""
    return _select_by(i, [_linear([(mat[a][ii], load(a)) for a in range(len(mat))], dtype)
                          for ii in range(len(mat[0]))])


__all__ += ["row_transform"]
