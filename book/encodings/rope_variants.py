"""RoPE as recent models vary it: which pairs turn, and by which position.

* ``proportional_frequencies``: p-RoPE (Barbero et al., 2024),
  transformers' rope type ``"proportional"``, the frequencies of Gemma 4's
  full-attention layers in transformers: RoPE's full-width spectrum with its
  slowest pairs set to frequency 0.
* ``mrope_angles``: M-RoPE, the angle table of Qwen2-VL (contiguous sections)
  and Qwen3-VL (interleaved sections), in which each frequency is turned by
  the time, height or width coordinate of a token.

Both return per-pair quantities, indexed like ``frequencies``: entry ``i``
belongs to frequency ``w_i = base^(-2i/d)``, which turns the feature pair
``(2i, 2i+1)`` in the book's default layout and ``(i, i + d/2)`` in the
half-split layout of transformers (``apply_rope(..., layout="half")``).
Conventions: :mod:`book.encodings`.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import torch

from .._validate import check_even, check_nonneg_int, check_real
from ._positions import _check_positions
from .sinusoidal import frequencies

__all__ = ["proportional_frequencies", "mrope_angles"]

_AXES = ("time", "height", "width")


def proportional_frequencies(d_model: int, *, fraction: float, base: float = 10000.0) -> torch.Tensor:
    """p-RoPE's frequencies: RoPE's ``w_i = base^(-2i/d)`` for the ``k`` fastest
    pairs and 0 for the rest (they do not turn).

    Equation, for ``i = 0 .. d/2 - 1``::

        w_i = base^(-2i/d)  if i < k,    w_i = 0  otherwise,
        k = int(fraction * d // 2)

    The exponent keeps the full width ``d``: the kept pairs have exactly the
    frequencies ``frequencies(d)[:k]`` of unchanged RoPE, and only the slowest
    ``d/2 - k`` pairs are switched off (a pair with frequency 0 passes through
    ``apply_rope`` unrotated). GPT-NeoX's partial rotary
    (``apply_partial_rope``) is a different spectrum: it rotates the first
    ``r = fraction * d`` features with ``base^(-2i/r)``, spreading the whole
    range from 1 down to ``base^(-(r-2)/r)`` over its ``r/2`` pairs, whereas
    p-RoPE's slowest turning pair has ``base^(-2(k-1)/d)``, about
    ``base^(-fraction)``: for ``d = 64``, ``fraction = 0.25`` and base 10000,
    ``10000^(-0.875)`` against ``10000^(-0.22)``.

    This is transformers' rope type ``"proportional"``
    (``_compute_proportional_rope_parameters`` in ``modeling_rope_utils.py``,
    transformers 5.24.0) with ``partial_rotary_factor = fraction`` and
    ``factor = 1``, including its count ``int(fraction * head_dim // 2)``,
    computed in floating point: it is ``floor(fraction * d / 2)`` except where
    ``fraction * d`` rounds to just below an even integer
    (``fraction = 0.58, d = 100`` gives ``k = 28``, not 29), and the book keeps
    transformers' count. transformers' ``Gemma4TextConfig`` gives its
    full-attention layers this rope type with ``partial_rotary_factor = 0.25``
    and ``rope_theta = 1e6`` by default (its sliding layers keep plain RoPE at
    base 10000), and ``Gemma4TextRotaryEmbedding`` applies it in the half-split
    layout. The construction is p-RoPE of Barbero et al. (2024, "Round and
    round we go! What makes Rotary Positional Encodings useful?", ICLR 2025):
    their pseudocode ``apply_p_rope`` computes the same count
    (``rope_angles = int(rope_percentage * head_dim // 2)``), and their Table 2
    trains Gemma 2B models with the lowest frequencies truncated.

    Args:
        d_model: head width ``d``, positive and even.
        fraction: the share of the ``d/2`` pairs that turn, in ``[0, 1]``
            (transformers' ``partial_rotary_factor``; 1 is RoPE, 0 no position).
        base: RoPE's base (> 1).

    Returns:
        float64 tensor of shape ``(d_model // 2,)`` (as ``frequencies``):
        ``k`` positive frequencies, then ``d/2 - k`` zeros.

    Raises:
        TypeError: if ``d_model`` is not an integer or ``fraction``/``base`` not real numbers.
        ValueError: if ``d_model`` is not positive and even, ``fraction`` is
            outside ``[0, 1]`` (or not finite) or ``base <= 1``.
    """
    d_model = check_even("d_model", d_model)
    fraction = check_real("fraction", fraction)
    if not 0.0 <= fraction <= 1.0:
        raise ValueError(f"fraction must lie in [0, 1] (the share of the d/2 pairs that turn), got {fraction}")
    w = frequencies(d_model, base=base)
    kept = int(fraction * d_model // 2)  # transformers' and the paper's count, in floating point
    w[kept:] = 0.0
    return w


def _check_sections(sections: object, pairs: int, interleaved: bool) -> tuple[int, int, int]:
    """``sections`` as three non-negative integers (time, height, width) that
    share the ``pairs = d/2`` frequencies, and, interleaved, fit their slots.

    A sequence, a 1-D integer NumPy array or a 1-D integer tensor."""
    if isinstance(sections, np.ndarray):
        if sections.ndim != 1 or sections.dtype.kind not in "iu":
            raise TypeError(
                f"sections must be a sequence or 1-D integer array of three integers (time, height, width), "
                f"got an array {sections.dtype} of shape {sections.shape}"
            )
        sections = sections.tolist()
    elif isinstance(sections, torch.Tensor):
        if sections.dim() != 1 or sections.is_floating_point() or sections.is_complex() or sections.dtype == torch.bool:
            raise TypeError(
                f"sections must be a sequence or 1-D integer tensor of three integers (time, height, width), "
                f"got a tensor {sections.dtype} of shape {tuple(sections.shape)}"
            )
        sections = sections.tolist()
    if isinstance(sections, (str, bytes)) or not isinstance(sections, Sequence):
        raise TypeError(
            f"sections must be a sequence of three integers (time, height, width), got {type(sections).__name__}"
        )
    if len(sections) != 3:
        raise ValueError(f"sections must have three entries (time, height, width), got {len(sections)}: {sections!r}")
    t, h, w = (check_nonneg_int(f"sections[{k}] ({axis})", s) for k, (axis, s) in enumerate(zip(_AXES, sections)))
    if t + h + w != pairs:
        raise ValueError(
            f"sections must add up to d_model // 2 = {pairs} (one entry per frequency), got {t} + {h} + {w} = {t + h + w}"
        )
    if interleaved and ((h and 3 * h - 2 > pairs - 1) or (w and 3 * w - 1 > pairs - 1)):
        raise ValueError(
            f"sections ({t}, {h}, {w}) do not fit the interleaved layout of d_model // 2 = {pairs} frequencies: "
            f"height takes frequencies 1, 4, .., 3h - 2 and width 2, 5, .., 3w - 1, which must all be below {pairs}"
        )
    return t, h, w


def _mrope_axes(pairs: int, sections: tuple[int, int, int], interleaved: bool) -> torch.Tensor:
    """The axis (0 time, 1 height, 2 width) of each of the ``pairs`` frequencies."""
    t, h, w = sections
    if not interleaved:
        return torch.repeat_interleave(torch.arange(3), torch.tensor([t, h, w]))
    axes = torch.zeros(pairs, dtype=torch.int64)
    axes[1 : 3 * h : 3] = 1
    axes[2 : 3 * w : 3] = 2
    return axes


def mrope_angles(
    position_ids: torch.Tensor | Sequence[Sequence[float]],
    d_model: int,
    sections: Sequence[int] | np.ndarray | torch.Tensor,
    *,
    base: float = 10000.0,
    interleaved: bool = False,
) -> torch.Tensor:
    """M-RoPE's angle table: frequency ``i`` turns by the coordinate of its own axis.

    Every token has three position ids, time, height and width
    (``position_ids[0]``, ``[1]``, ``[2]``; a text token has the same id on
    all three). The ``d/2`` frequencies ``w_i = base^(-2i/d)`` are split
    among the three axes by ``sections = (t, h, w)``, ``t + h + w = d/2``,
    and::

        angles[..., s, i] = position_ids[axis(i), ..., s] * w_i

    - ``interleaved=False`` (Qwen2-VL): contiguous sections, frequencies
      ``0 .. t-1`` take time, the next ``h`` height and the last ``w`` width.
      The slowest frequencies therefore all see width.
    - ``interleaved=True`` (Qwen3-VL): frequency ``i`` takes height if
      ``i % 3 == 1`` and ``i < 3h``, width if ``i % 3 == 2`` and ``i < 3w``,
      and time otherwise, so each axis has fast and slow frequencies.

    Index ``i`` of the result is frequency ``w_i``, as in ``frequencies``:
    in the book's default layout it turns the feature pair ``(2i, 2i+1)``,
    in transformers' half-split layout ``(i, i + d/2)``
    (``apply_rope_cached(x, angles.cos(), angles.sin(), layout="half")`` is
    transformers' rotation).

    This is the table behind transformers' ``Qwen2VLRotaryEmbedding``
    (``models/qwen2_vl/modeling_qwen2_vl.py``, transformers 5.24.0: the
    angles ``position_ids[..., None] * inv_freq`` of the three axes, recomposed
    by ``recomposition_frequencies``, which splits the frequencies by
    ``mrope_section`` in units of frequencies (pairs) and takes section ``k``
    from axis ``k``) and, with ``interleaved=True``, behind
    ``Qwen3VLTextRotaryEmbedding`` (``models/qwen3_vl/modeling_qwen3_vl.py``),
    whose ``recomposition_frequencies`` starts from time and overwrites
    frequencies ``1, 4, ..`` with height and ``2, 5, ..`` with width. Both
    return ``cat(table, table)`` for the half-split layout, as cos and sin.
    Angles are formed here in float64 (transformers: float32). M-RoPE is
    introduced by Qwen2-VL (Wang et al., 2024, "Qwen2-VL: Enhancing
    Vision-Language Model's Perception of the World at Any Resolution",
    arXiv 2409.12191); the section layouts are transformers' code, which the
    book follows.

    transformers' Qwen3-VL code does not check the sections (height or width
    slots past ``d/2`` are silently dropped, and time takes the rest); here
    sections must add up to ``d/2`` in both layouts and, interleaved, fit
    their slots, so that each axis gets exactly its section's number of
    frequencies.

    Args:
        position_ids: tensor (or nested sequence) of finite positions, shape
            ``(3, ..., seq)``: time, height and width ids, e.g. ``(3, batch, seq)``
            as transformers passes them. Integer or float.
        d_model: head width ``d``, positive and even.
        sections: ``(t, h, w)``, non-negative integers with ``t + h + w = d/2``,
            as a sequence, a 1-D integer NumPy array or a 1-D integer tensor
            (transformers' ``rope_parameters["mrope_section"]``; its defaults
            are ``[16, 24, 24]`` in Qwen2-VL and ``[24, 20, 20]`` in Qwen3-VL,
            both for ``d = 128``).
        base: RoPE's base (> 1).
        interleaved: ``False`` for Qwen2-VL's contiguous sections, ``True`` for
            Qwen3-VL's interleaved ones.

    Returns:
        float64 tensor of shape ``(..., seq, d_model // 2)``.

    Raises:
        TypeError: for non-numeric or boolean positions, non-integer sections
            or a non-boolean ``interleaved``.
        ValueError: if ``position_ids`` does not have at least 2 dimensions with
            3 in the first, holds NaN or infinity; if ``d_model`` is not positive
            and even, ``base <= 1``, or the sections are not three non-negative
            integers adding up to ``d/2`` (and fitting the interleaved slots).
    """
    position_ids = _check_positions("position_ids", position_ids, allow_float=True)
    if position_ids.dim() < 2 or position_ids.shape[0] != 3:
        raise ValueError(
            f"position_ids must have shape (3, ..., seq): time, height and width ids; got {tuple(position_ids.shape)}"
        )
    d_model = check_even("d_model", d_model)
    if not isinstance(interleaved, bool):
        raise TypeError(f"interleaved must be True or False, got {type(interleaved).__name__} {interleaved!r}")
    pairs = d_model // 2
    axes = _mrope_axes(pairs, _check_sections(sections, pairs, interleaved), interleaved)
    w = frequencies(d_model, base=base).to(position_ids.device)
    angles = position_ids.to(torch.float64).unsqueeze(-1) * w  # (3, ..., seq, d/2)
    index = axes.to(position_ids.device).expand(1, *angles.shape[1:])
    return angles.gather(0, index).squeeze(0)
