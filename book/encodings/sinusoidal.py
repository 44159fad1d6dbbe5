"""Sinusoidal positional encodings (Vaswani et al., 2017, section 3.5) and their shift matrices.

The frequencies ``w_i = base^(-2i/d)`` live here and are shared with RoPE
(``book.encodings.rope``). The conventions of the whole package are in
:mod:`book.encodings`.
"""

from __future__ import annotations

from typing import Literal, Sequence

import torch

from .._validate import (
    check_base,
    check_choice,
    check_even,
    check_float_dtype,
    check_positive_int,
    check_real,
)
from ._positions import _check_positions

__all__ = ["frequencies", "sinusoidal_at", "sinusoidal", "layout_permutation", "rotation_matrix"]

SinusoidalLayout = Literal["interleaved", "concat"]
Spacing = Literal["vaswani", "tensor2tensor"]
_LAYOUTS: tuple[SinusoidalLayout, ...] = ("interleaved", "concat")
_SPACINGS: tuple[Spacing, ...] = ("vaswani", "tensor2tensor")


def frequencies(d_model: int, *, base: float = 10000.0, spacing: Spacing = "vaswani") -> torch.Tensor:
    """Angular frequencies of the sinusoidal encoding and of RoPE.

    Equation, for ``i = 0 .. d/2 - 1``:

    * ``spacing="vaswani"`` (the default): ``w_i = base^(-2i/d)`` (Vaswani et
      al., 2017, section 3.5, where ``base = 10000``; Su et al., 2021, eq. 15,
      use the same ``theta_i``). The wavelengths ``2*pi / w_i`` form a
      geometric progression from ``2*pi`` up to ``2*pi * base^((d-2)/d)``,
      which is ``2*pi * base`` times ``base^(-2/d)`` (0.75 of it for
      ``d = 64``, ``base = 10000``). The paper's "from 2*pi to 10000 * 2*pi"
      is exactly the range of the tensor2tensor spacing below.
    * ``spacing="tensor2tensor"``: ``w_i = base^(-i / max(d/2 - 1, 1))``, the
      ``inv_timescales`` of tensor2tensor's ``get_timing_signal_1d``
      (``tensor2tensor/layers/common_attention.py``, with ``min_timescale=1``
      and ``max_timescale=base``), also used by fairseq's
      ``SinusoidalPositionalEmbedding.get_embedding`` (``math.log(10000) /
      (half_dim - 1)``). The progression runs from ``2*pi`` up to exactly
      ``2*pi * base`` (for ``d >= 4``; for ``d = 2`` the one pair has
      ``w_0 = 1``, as in tensor2tensor).

    Args:
        d_model: model width ``d``; must be a positive even integer.
        base: the constant 10000 of the paper; must be a finite number > 1.
        spacing: ``"vaswani"`` or ``"tensor2tensor"``.

    Returns:
        float64 tensor of shape ``(d_model // 2,)``, decreasing from ``w_0 = 1``.

    Raises:
        TypeError: if ``d_model`` is not an integer or ``base`` not a real number.
        ValueError: if ``d_model`` is not positive and even, ``base <= 1`` or
            ``spacing`` is unknown.
    """
    d_model = check_even("d_model", d_model)
    base = check_base(base)
    spacing = check_choice("spacing", spacing, _SPACINGS)
    i = torch.arange(d_model // 2, dtype=torch.float64)
    exponent = 2 * i / d_model if spacing == "vaswani" else i / max(d_model // 2 - 1, 1)
    return torch.pow(torch.tensor(base, dtype=torch.float64), -exponent)


def sinusoidal_at(
    positions: torch.Tensor | Sequence[float],
    d_model: int,
    *,
    base: float = 10000.0,
    layout: SinusoidalLayout = "interleaved",
    spacing: Spacing = "vaswani",
    dtype: torch.dtype = torch.float32,
) -> torch.Tensor:
    """Sinusoidal encoding of arbitrary (integer or real) positions.

    Equation (Vaswani et al., 2017, section 3.5), with ``w_i`` from
    ``frequencies(d_model, base=base, spacing=spacing)``::

        interleaved: PE[p, 2i] = sin(p * w_i),  PE[p, 2i+1] = cos(p * w_i)
        concat:      PE[p, i]  = sin(p * w_i),  PE[p, d/2 + i] = cos(p * w_i)

    ``layout="concat", spacing="tensor2tensor"`` is tensor2tensor's
    ``get_timing_signal_1d`` (``min_timescale=1``, ``max_timescale=base``) and
    the table of fairseq's ``SinusoidalPositionalEmbedding`` (which looks up
    row ``padding_idx + 1`` for the first token), up to float32 rounding
    (``get_embedding`` forms ``w_i`` with a float32 ``exp`` and the angles in
    float32) and except the row ``padding_idx``, which fairseq sets to zero.
    The angles ``p * w_i`` and
    their sines are computed in float64 and cast to ``dtype`` at the end, so
    that large positions stay accurate.

    Args:
        positions: tensor (or sequence) of finite positions, any shape,
            integer or float.
        d_model: model width ``d``; positive and even.
        base: frequency base (> 1), 10000 in the paper.
        layout: ``"interleaved"`` (paper) or ``"concat"`` (tensor2tensor, fairseq).
        spacing: ``"vaswani"`` (paper, ``base^(-2i/d)``) or ``"tensor2tensor"``
            (``base^(-i/(d/2 - 1))``; tensor2tensor, fairseq).
        dtype: floating dtype of the result.

    Returns:
        tensor of shape ``(*positions.shape, d_model)`` and dtype ``dtype``.

    Raises:
        TypeError: for non-numeric positions or a non-floating ``dtype``.
        ValueError: for a non-finite position (NaN or infinite), odd or
            non-positive ``d_model``, ``base <= 1``, or an unknown ``layout``
            or ``spacing``.
    """
    positions = _check_positions("positions", positions, allow_float=True)
    layout = check_choice("layout", layout, _LAYOUTS)
    dtype = check_float_dtype("dtype", dtype)
    w = frequencies(d_model, base=base, spacing=spacing).to(positions.device)
    angles = positions.to(torch.float64).unsqueeze(-1) * w  # (..., d/2)
    sin, cos = torch.sin(angles), torch.cos(angles)
    if layout == "interleaved":
        pe = torch.stack((sin, cos), dim=-1).flatten(-2)
    else:
        pe = torch.cat((sin, cos), dim=-1)
    return pe.to(dtype)


def sinusoidal(
    seq_len: int,
    d_model: int,
    *,
    base: float = 10000.0,
    layout: SinusoidalLayout = "interleaved",
    spacing: Spacing = "vaswani",
) -> torch.Tensor:
    """The sinusoidal positional-encoding table for positions ``0 .. seq_len - 1``.

    Equation (Vaswani et al., 2017, section 3.5)::

        PE[p, 2i]   = sin(p / base^(2i/d))
        PE[p, 2i+1] = cos(p / base^(2i/d))

    (``layout="interleaved"``, ``spacing="vaswani"``, the defaults).
    ``layout="concat"`` gives
    ``[sin(p w_0) .. sin(p w_{d/2-1}) | cos(p w_0) .. cos(p w_{d/2-1})]``, the
    same numbers with columns permuted by ``layout_permutation(d_model)``.
    ``spacing="tensor2tensor"`` uses ``w_i = base^(-i/(d/2 - 1))`` instead
    (``frequencies``): other numbers, not a permutation. With
    ``layout="concat", spacing="tensor2tensor"`` the table is tensor2tensor's
    ``get_timing_signal_1d(seq_len, d_model)`` (its defaults
    ``min_timescale=1``, ``max_timescale=1e4`` for ``base=10000``; file
    ``tensor2tensor/layers/common_attention.py``), here without its leading
    batch axis. Angles are formed in float64 and the table is cast to float32.

    Args:
        seq_len: number of positions; a positive integer.
        d_model: model width ``d``; a positive even integer.
        base: frequency base (> 1); 10000 in the paper.
        layout: ``"interleaved"`` or ``"concat"``.
        spacing: ``"vaswani"`` or ``"tensor2tensor"``.

    Returns:
        float32 tensor of shape ``(seq_len, d_model)`` with entries in [-1, 1].

    Raises:
        TypeError / ValueError: as ``sinusoidal_at``, and for ``seq_len < 1``.
    """
    seq_len = check_positive_int("seq_len", seq_len)
    return sinusoidal_at(torch.arange(seq_len), d_model, base=base, layout=layout, spacing=spacing)


def layout_permutation(d_model: int) -> torch.Tensor:
    """Column permutation that turns the interleaved sin/cos layout into ``concat``.

    ``sinusoidal(n, d, layout="concat") == sinusoidal(n, d)[:, layout_permutation(d)]``
    (for either ``spacing``, as long as both tables use the same one): the
    permutation lists the even columns (the sines) and then the odd ones
    (the cosines), ``[0, 2, 4, .., d-2, 1, 3, .., d-1]``. Its inverse,
    ``torch.argsort(layout_permutation(d))``, goes back.

    Args:
        d_model: model width; positive and even.

    Returns:
        int64 tensor of shape ``(d_model,)``.
    """
    d_model = check_even("d_model", d_model)
    return torch.cat((torch.arange(0, d_model, 2), torch.arange(1, d_model, 2)))


def rotation_matrix(
    k: float,
    d_model: int,
    *,
    base: float = 10000.0,
    dtype: torch.dtype = torch.float64,
) -> torch.Tensor:
    """The matrix ``M_k`` with ``PE(p + k) = M_k PE(p)`` for every position ``p``.

    Equation (the addition formulas behind Vaswani et al., 2017, section 3.5):
    for the interleaved layout, ``M_k`` is block-diagonal with one 2x2 block per
    frequency ``w_i = base^(-2i/d)``::

        [ sin(p w_i + k w_i) ]   [  cos(k w_i)  sin(k w_i) ] [ sin(p w_i) ]
        [ cos(p w_i + k w_i) ] = [ -sin(k w_i)  cos(k w_i) ] [ cos(p w_i) ]

    Each block is a rotation by ``-k w_i`` of the (sin, cos) pair; it depends on
    the offset ``k`` but not on ``p``. ``M_k`` is orthogonal, ``M_{-k} = M_k^T``
    and ``M_j M_k = M_{j+k}``.

    Args:
        k: the offset (any real number; negative offsets look backwards).
        d_model: model width; positive and even.
        base: frequency base (> 1).
        dtype: floating dtype of the result (float64 by default, for proofs
            checked to machine precision).

    Returns:
        tensor of shape ``(d_model, d_model)``.

    Raises:
        TypeError: if ``k`` is not a real number or ``dtype`` not floating.
        ValueError: for a non-finite ``k``, odd or non-positive ``d_model``,
            or ``base <= 1``.
    """
    k = check_real("k", k)
    dtype = check_float_dtype("dtype", dtype)
    angles = k * frequencies(d_model, base=base)
    c, s = torch.cos(angles), torch.sin(angles)
    blocks = torch.stack((torch.stack((c, s), -1), torch.stack((-s, c), -1)), -2)  # (d/2, 2, 2)
    return torch.block_diag(*blocks).to(dtype)
