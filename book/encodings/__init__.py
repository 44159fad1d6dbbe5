"""Positional encodings: sinusoidal, rotary (RoPE), ALiBi and learned tables.

Conventions used throughout the book (each is tested):

* ``d`` (``d_model``) is the model width, ``p`` a position, ``k`` an offset,
  and ``w_i = base^(-2i/d)`` for ``i = 0 .. d/2 - 1`` the angular frequencies
  (``spacing="vaswani"``, the default).
* Sinusoidal layout ``"interleaved"`` (the default) is the one written in
  Vaswani et al. (2017), section 3.5: ``PE[p, 2i] = sin(p w_i)`` and
  ``PE[p, 2i+1] = cos(p w_i)``. Layout ``"concat"`` puts all sines first,
  ``[sin(p w_0) .. sin(p w_{d/2-1}) | cos(p w_0) .. cos(p w_{d/2-1})]``; with
  the same frequencies it is a fixed column permutation of the interleaved
  table (``layout_permutation``).
* tensor2tensor (``get_timing_signal_1d`` in
  ``tensor2tensor/layers/common_attention.py``) and fairseq
  (``SinusoidalPositionalEmbedding.get_embedding`` in
  ``fairseq/modules/sinusoidal_positional_embedding.py``) use the concat
  layout *and* other frequencies, ``w_i = base^(-i/(d/2 - 1))``
  (``spacing="tensor2tensor"``), whose slowest wavelength is exactly
  ``2*pi*base``: their tables are not a permutation of the paper's.
  fairseq also numbers positions from ``padding_idx + 1``
  (``fairseq.utils.make_positions``), not from 0.
* RoPE layout ``"interleaved"`` (the default) rotates the pairs
  ``(2i, 2i+1)``, as in RoFormer (Su et al., 2021) and Meta's Llama code;
  layout ``"half"`` rotates the pairs ``(i, i + d/2)``, as in GPT-NeoX and
  Llama in Hugging Face transformers ("rotate_half").

The package has one module per scheme: ``sinusoidal``, ``learned``, ``rope``,
``alibi`` and ``t5``; ``rope_variants`` holds RoPE as recent models vary it
(p-RoPE's frequencies, M-RoPE's angles), ``rope_2d`` RoPE for the
row and column of an image patch (axial and mixed frequencies); ``relative`` holds the family of relative biases that T5's
buckets and ALiBi belong to (Shaw et al., 2018), and ``sinusoidal_geometry`` the
properties of the sinusoidal encoding that chapters 2 and 3 derive, and
``position_ids`` the position ids of padded and packed batches. Everything
public is re-exported here: ``from book import encodings; encodings.apply_rope(...)``.
"""

from __future__ import annotations

from .alibi import alibi_bias, alibi_bias_values, alibi_slopes
from .learned import LearnedPositionalEmbedding
from .position_ids import packed_position_ids, position_ids_from_mask
from .relative import relative_bias, shaw_scores
from .rope import (
    apply_partial_rope,
    apply_rope,
    apply_rope_cached,
    apply_rope_complex,
    rope_cis,
    rope_cos_sin,
    rope_expected_score,
    rope_layout_permutation,
    shift_rope,
)
from .rope_2d import axial_rope_angles, axial_rope_frequencies, mixed_rope_angles, mixed_rope_frequencies
from .rope_variants import mrope_angles, proportional_frequencies
from .sinusoidal import frequencies, layout_permutation, rotation_matrix, sinusoidal, sinusoidal_at
from .sinusoidal_geometry import cosine_integral, dot_by_offset, shift_fit_residual, step_norm_squared
from .t5 import t5_bias_values, t5_relative_bucket

__all__ = [
    "frequencies",
    "sinusoidal",
    "sinusoidal_at",
    "layout_permutation",
    "rotation_matrix",
    "step_norm_squared",
    "shift_fit_residual",
    "cosine_integral",
    "dot_by_offset",
    "apply_rope",
    "apply_partial_rope",
    "rope_expected_score",
    "proportional_frequencies",
    "mrope_angles",
    "axial_rope_frequencies",
    "axial_rope_angles",
    "mixed_rope_frequencies",
    "mixed_rope_angles",
    "alibi_slopes",
    "alibi_bias",
    "alibi_bias_values",
    "t5_relative_bucket",
    "relative_bias",
    "t5_bias_values",
    "shaw_scores",
    "rope_layout_permutation",
    "rope_cos_sin",
    "apply_rope_cached",
    "rope_cis",
    "apply_rope_complex",
    "shift_rope",
    "position_ids_from_mask",
    "packed_position_ids",
    "LearnedPositionalEmbedding",
]
