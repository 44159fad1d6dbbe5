"""2-D RoPE for image patches: axial, and mixed frequencies.

A patch of an image at row ``r`` and column ``c`` of a ``rows x cols`` grid
has two coordinates instead of one position. 2-D RoPE turns each feature
pair ``i`` by an angle that is linear in both::

    angle_i(r, c) = r * f_row_i + c * f_col_i

with one frequency per axis and pair, ``frequencies = (f_row, f_col)``, of
shape ``(2, ..., d/2)``. The score of a rotated query at ``(r1, c1)`` and a
rotated key at ``(r2, c2)`` then depends on ``(r1 - r2, c1 - c2)`` only, as
1-D RoPE's depends on ``m - n``.

* ``axial_rope_frequencies``: RoPE-Axial. Each pair turns with one axis
  only (``f_row_i = 0`` or ``f_col_i = 0``): half of the pairs see the rows,
  the other half the columns, so a score is a sum of a term in the row
  offset and a term in the column offset.
* ``mixed_rope_frequencies``: RoPE-Mixed at its initialisation. Each pair
  turns along a direction ``(sin a, cos a)`` of the grid, so a pair can see a
  diagonal; in RoPE-Mixed the frequencies are then learned, per head.
* ``mixed_rope_angles`` gives the angle table of any ``(f_row, f_col)``;
  ``axial_rope_angles`` is it for the axial frequencies.

Both schemes are from Heo et al. (2024, "Rotary Position Embedding for Vision
Transformer", ECCV 2024, arXiv 2403.13298), whose code is
``naver-ai/rope-vit`` (``self-attn/rope_self_attn.py`` and
``models/vit_rope.py``: ``compute_axial_cis``, ``init_2d_freqs`` /
``init_random_2d_freqs``, ``init_t_xy``, ``compute_mixed_cis``).
Patches are numbered row by row (patch ``p`` is row ``p // cols``, column
``p % cols``), as rope-vit's ``init_t_xy`` (``t_x = t % end_x``,
``t_y = t // end_x``) and transformers' Pixtral (``torch.meshgrid(...,
indexing="ij")``, flattened) number them. Index ``i`` of every table is a
feature pair: ``(2i, 2i+1)`` in the book's interleaved layout (rope-vit's and
Llama 4's complex pairs), ``(i, i + d/2)`` in the half-split layout of
transformers' Pixtral (``apply_rope_cached(..., layout="half")``).
Conventions: :mod:`book.encodings`.
"""

from __future__ import annotations

import math
import numbers
from typing import Literal, Sequence

import torch

from .._validate import check_base, check_choice, check_positive_int

__all__ = ["axial_rope_frequencies", "mixed_rope_frequencies", "mixed_rope_angles", "axial_rope_angles"]

AxialConvention = Literal["rope-vit", "pixtral"]
_CONVENTIONS: tuple[AxialConvention, ...] = ("rope-vit", "pixtral")


def _check_width(d_model: object) -> int:
    """``d_model`` as an int divisible by 4: two axes, each with ``d/4`` pairs."""
    d = check_positive_int("d_model", d_model)
    if d % 4:
        raise ValueError(f"d_model must be a multiple of 4 (two axes, each with d/4 feature pairs), got {d}")
    return d


def axial_rope_frequencies(
    d_model: int, *, base: float = 10000.0, convention: AxialConvention = "rope-vit"
) -> torch.Tensor:
    """RoPE-Axial's frequencies ``(f_row, f_col)``: each pair turns with one axis.

    ``convention="rope-vit"`` (Heo et al., 2024, RoPE-Axial;
    rope-vit's ``compute_axial_cis``, and transformers'
    ``Llama4VisionRotaryEmbedding._compute_freqs_ci`` in
    ``models/llama4/modeling_llama4.py``, transformers 5.24.0)::

        pairs j = 0 .. d/4 - 1:     f_col_j = base^(-4j/d),  f_row_j = 0
        pairs d/4 + j:              f_row   = base^(-4j/d),  f_col   = 0

    the columns (rope-vit's ``x``) first, then the rows (``y``), each axis
    with the same ``d/4`` frequencies: 1-D RoPE's spectrum of a head of
    width ``d/2``. rope-vit's DeiT models use ``base`` 100 for RoPE-Axial
    (``rope_theta=100.0``); Llama 4's vision encoder its config's
    ``rope_theta`` (10000 by default) and positions counted from 1.

    ``convention="pixtral"`` (transformers' ``PixtralVisionRotaryEmbedding``,
    ``models/pixtral/modeling_pixtral.py``, transformers 5.24.0: ``inv_freq``
    of the whole width, then ``cat([inv_freq[0::2], inv_freq[1::2]])``, the
    first half turned by the row (height) id and the second by the column
    (width) id)::

        pairs j = 0 .. d/4 - 1:     f_row_j = base^(-4j/d),        f_col_j = 0
        pairs d/4 + j:              f_col   = base^(-(4j + 2)/d),   f_row   = 0

    RoPE's ``d/2`` frequencies of the full width, dealt alternately to the
    two axes, rows first. transformers applies it in the half-split layout.

    Args:
        d_model: head width ``d``, a positive multiple of 4.
        base: RoPE's base (> 1).
        convention: ``"rope-vit"`` or ``"pixtral"``.

    Returns:
        float64 tensor of shape ``(2, d_model // 2)``: row 0 the row
        frequencies ``f_row``, row 1 the column frequencies ``f_col``.

    Raises:
        TypeError: if ``d_model`` is not an integer or ``base`` not a real number.
        ValueError: if ``d_model`` is not a positive multiple of 4, ``base <= 1``
            or ``convention`` is not one of the two.
    """
    d = _check_width(d_model)
    base = check_base(base)
    convention = check_choice("convention", convention, _CONVENTIONS)
    quarter = d // 4
    j = torch.arange(quarter, dtype=torch.float64)
    out = torch.zeros(2, d // 2, dtype=torch.float64)
    if convention == "rope-vit":
        w = base ** (-4.0 * j / d)
        out[1, :quarter] = w  # columns (x) first
        out[0, quarter:] = w  # then rows (y)
    else:
        out[0, :quarter] = base ** (-4.0 * j / d)  # rows (height): even i of base^(-2i/d)
        out[1, quarter:] = base ** (-(4.0 * j + 2.0) / d)  # columns (width): odd i
    return out


def mixed_rope_frequencies(
    d_model: int, directions: torch.Tensor | Sequence[float], *, base: float = 10000.0
) -> torch.Tensor:
    """RoPE-Mixed's frequencies as initialised: pairs along a direction per head.

    For a head with direction angle ``a`` (rope-vit's ``init_2d_freqs``, with
    ``mag_j = base^(-4j/d)``, ``j = 0 .. d/4 - 1``)::

        pairs j:         f_col_j = mag_j cos(a),          f_row_j = mag_j sin(a)
        pairs d/4 + j:   f_col   = mag_j cos(a + pi/2),   f_row   = mag_j sin(a + pi/2)

    so the first ``d/4`` pairs turn along the direction ``a`` of the grid (a
    pair's angle is ``mag_j (c cos a + r sin a)``) and the others along the
    perpendicular direction. With ``a = 0`` this is RoPE-Axial (rope-vit's
    convention, ``axial_rope_frequencies``) up to rounding of ``cos(pi/2)``;
    any other ``a`` gives pairs that turn with both axes, so they can see
    diagonal offsets. rope-vit draws ``a`` uniformly in ``[0, 2 pi)`` for each
    head (``torch.rand(1) * 2 * torch.pi``) and then learns all the
    frequencies with the network (``nn.Parameter``); its DeiT models use
    ``base`` 10 (``rope_theta=10.0``). Heo et al. (2024) propose RoPE-Mixed
    as learnable frequencies that mix both axes (their abstract and code). Only
    the initialisation can be written as a formula; the learned values are a
    trained model's.

    Args:
        d_model: head width ``d``, a positive multiple of 4.
        directions: one finite angle ``a`` (radians) per head, a 1-D tensor or
            a sequence of real numbers.
        base: the base of the magnitudes (> 1).

    Returns:
        float64 tensor of shape ``(2, heads, d_model // 2)``: ``[0]`` the row
        frequencies, ``[1]`` the column frequencies of each head (rope-vit's
        ``freqs`` holds ``(f_x, f_y) = (f_col, f_row)``, the other order).

    Raises:
        TypeError: if ``d_model`` is not an integer, ``base`` not a real
            number, or ``directions`` not real numbers.
        ValueError: if ``d_model`` is not a positive multiple of 4, ``base <= 1``,
            or ``directions`` is not a non-empty 1-D list of finite angles.
    """
    d = _check_width(d_model)
    base = check_base(base)
    a = _check_directions(directions)
    j = torch.arange(d // 4, dtype=torch.float64)
    mag = base ** (-4.0 * j / d)
    a = a[:, None]
    f_col = torch.cat([mag * torch.cos(a), mag * torch.cos(a + math.pi / 2)], dim=-1)
    f_row = torch.cat([mag * torch.sin(a), mag * torch.sin(a + math.pi / 2)], dim=-1)
    return torch.stack([f_row, f_col])


def _check_directions(directions: object) -> torch.Tensor:
    if isinstance(directions, torch.Tensor):
        if directions.is_complex() or directions.dtype == torch.bool:
            raise TypeError(f"directions must hold real angles, got dtype {directions.dtype}")
        a = directions.to(torch.float64)
    else:
        if isinstance(directions, (str, bytes)) or not isinstance(directions, Sequence):
            raise TypeError(f"directions must be a 1-D tensor or a sequence of angles, got {type(directions).__name__}")
        for k, v in enumerate(directions):
            if isinstance(v, bool) or not isinstance(v, numbers.Real):
                raise TypeError(f"directions[{k}] must be a real number (an angle in radians), got {v!r}")
        a = torch.tensor([float(v) for v in directions], dtype=torch.float64)
    if a.dim() != 1 or a.numel() == 0:
        raise ValueError(f"directions must be a non-empty 1-D list of angles, one per head, got shape {tuple(a.shape)}")
    if not bool(torch.isfinite(a).all()):
        raise ValueError(f"directions must be finite angles (no NaN or infinity), got {a.tolist()}")
    return a


def _grid(rows: object, cols: object) -> tuple[torch.Tensor, torch.Tensor]:
    """Row and column ids of the ``rows x cols`` patches, numbered row by row."""
    r = check_positive_int("rows", rows)
    c = check_positive_int("cols", cols)
    t = torch.arange(r * c)
    return (t // c).to(torch.float64), (t % c).to(torch.float64)


def mixed_rope_angles(rows: int, cols: int, frequencies: torch.Tensor) -> torch.Tensor:
    """The 2-D RoPE angle table of a ``rows x cols`` grid, for any frequencies.

    Equation, for patch ``p`` at row ``r = p // cols``, column ``c = p % cols``::

        angles[..., p, i] = r * frequencies[0, ..., i] + c * frequencies[1, ..., i]

    This is rope-vit's ``compute_mixed_cis`` (the phase ``freqs_x + freqs_y``
    of ``torch.polar``, with ``t_x`` the column and ``t_y`` the row of
    ``init_t_xy``) for frequencies of shape ``(2, heads, d/2)``, and
    ``compute_axial_cis`` for ``axial_rope_frequencies(d)``. Any frequencies
    give a score that depends on the offset ``(r1 - r2, c1 - c2)`` only; the
    axial ones split it into a row term plus a column term.

    Args:
        rows, cols: the grid's size, positive integers.
        frequencies: real floating tensor of shape ``(2, ..., d/2)``, finite:
            ``[0]`` the row frequencies, ``[1]`` the column frequencies (from
            ``axial_rope_frequencies`` or ``mixed_rope_frequencies``).

    Returns:
        float64 tensor of shape ``(..., rows * cols, d/2)``.

    Raises:
        TypeError: if ``rows``/``cols`` are not integers or ``frequencies`` is
            not a floating tensor.
        ValueError: if ``rows``/``cols`` are not positive, or ``frequencies``
            does not have 2 in its first dimension, has fewer than 2
            dimensions, or holds NaN or infinity.
    """
    r, c = _grid(rows, cols)
    if not isinstance(frequencies, torch.Tensor):
        raise TypeError(f"frequencies must be a torch.Tensor of shape (2, ..., d/2), got {type(frequencies).__name__}")
    if not frequencies.is_floating_point():
        raise TypeError(f"frequencies must have a floating-point dtype, got {frequencies.dtype}")
    if frequencies.dim() < 2 or frequencies.shape[0] != 2:
        raise ValueError(
            f"frequencies must have shape (2, ..., d/2): row frequencies, then column frequencies; "
            f"got {tuple(frequencies.shape)}"
        )
    if not bool(torch.isfinite(frequencies).all()):
        raise ValueError("frequencies must be finite (no NaN or infinity)")
    f = frequencies.to(torch.float64)
    return r[:, None] * f[0].unsqueeze(-2) + c[:, None] * f[1].unsqueeze(-2)


def axial_rope_angles(
    rows: int, cols: int, d_model: int, *, base: float = 10000.0, convention: AxialConvention = "rope-vit"
) -> torch.Tensor:
    """RoPE-Axial's angle table of a ``rows x cols`` grid of patches.

    ``mixed_rope_angles(rows, cols, axial_rope_frequencies(d_model, base=base,
    convention=convention))``: pair ``i`` turns by ``r * f_row_i`` or by
    ``c * f_col_i``, never by both. With ``convention="rope-vit"`` this is
    rope-vit's ``compute_axial_cis(d, end_x=cols, end_y=rows, theta=base)``
    (Heo et al., 2024); with ``"pixtral"`` it is the table of
    transformers' ``PixtralVisionRotaryEmbedding`` (whose cos and sin are
    ``cat([table, table])`` for the half-split layout). Llama 4's vision
    encoder (``Llama4VisionRotaryEmbedding``) uses the rope-vit convention with
    the ids counted from 1, ``axial_rope_angles(...)`` plus
    ``f_row + f_col``, and a class token with angle 0.

    Args:
        rows, cols: the grid's size, positive integers.
        d_model: head width ``d``, a positive multiple of 4.
        base: RoPE's base (> 1).
        convention: ``"rope-vit"`` or ``"pixtral"`` (see ``axial_rope_frequencies``).

    Returns:
        float64 tensor of shape ``(rows * cols, d_model // 2)``.

    Raises:
        TypeError: for non-integer sizes or a non-real ``base``.
        ValueError: for sizes below 1, a ``d_model`` that is not a positive
            multiple of 4, ``base <= 1`` or an unknown ``convention``.
    """
    freqs = axial_rope_frequencies(d_model, base=base, convention=convention)
    return mixed_rope_angles(rows, cols, freqs)
