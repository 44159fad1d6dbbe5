"""Positional encodings: sinusoidal, rotary (RoPE), ALiBi and learned tables.

Conventions used throughout the book (and tested in ``tests/test_encodings.py``):

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
"""

from __future__ import annotations

import math
from typing import Literal, Sequence

import torch
from torch import nn

from ._validate import (
    check_base,
    check_choice,
    check_even,
    check_float_tensor,
    check_position_tensor,
    check_positive_int,
    check_real,
)

__all__ = [
    "frequencies",
    "sinusoidal",
    "sinusoidal_at",
    "layout_permutation",
    "rotation_matrix",
    "apply_rope",
    "alibi_slopes",
    "alibi_bias",
    "t5_relative_bucket",
    "rope_layout_permutation",
    "rope_cos_sin",
    "apply_rope_cached",
    "rope_cis",
    "apply_rope_complex",
    "rope_cos_error",
    "LearnedPositionalEmbedding",
]

SinusoidalLayout = Literal["interleaved", "concat"]
Spacing = Literal["vaswani", "tensor2tensor"]
RopeLayout = Literal["interleaved", "half"]


def frequencies(d_model: int, *, base: float = 10000.0, spacing: Spacing = "vaswani") -> torch.Tensor:
    """Angular frequencies of the sinusoidal encoding and of RoPE.

    Equation, for ``i = 0 .. d/2 - 1``:

    * ``spacing="vaswani"`` (the default): ``w_i = base^(-2i/d)`` (Vaswani et
      al., 2017, section 3.5, where ``base = 10000``; Su et al., 2021, eq. 15,
      use the same ``theta_i``). The wavelengths ``2*pi / w_i`` form a
      geometric progression from ``2*pi`` up to ``2*pi * base^((d-2)/d)``,
      just below ``2*pi * base``.
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
    spacing = check_choice("spacing", spacing, ("vaswani", "tensor2tensor"))
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
    row ``padding_idx + 1`` for the first token). The angles ``p * w_i`` and
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
    layout = check_choice("layout", layout, ("interleaved", "concat"))
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise TypeError(f"dtype must be a floating-point torch.dtype, got {dtype!r}")
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
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise TypeError(f"dtype must be a floating-point torch.dtype, got {dtype!r}")
    angles = k * frequencies(d_model, base=base)
    c, s = torch.cos(angles), torch.sin(angles)
    blocks = torch.stack((torch.stack((c, s), -1), torch.stack((-s, c), -1)), -2)  # (d/2, 2, 2)
    return torch.block_diag(*blocks).to(dtype)


def apply_rope(
    x: torch.Tensor,
    positions: torch.Tensor | Sequence[float] | None = None,
    *,
    base: float = 10000.0,
    layout: RopeLayout = "interleaved",
    freqs: torch.Tensor | None = None,
) -> torch.Tensor:
    """Rotary position embedding: rotate each pair of features by ``p * w_i``.

    Equation (Su et al., 2021, RoFormer, eq. 14-15): for every position ``p``
    and pair ``(a, b)`` with frequency ``w_i = base^(-2i/d)``::

        (a, b) -> (a cos(p w_i) - b sin(p w_i),  a sin(p w_i) + b cos(p w_i))

    Layout ``"interleaved"`` pairs features ``(2i, 2i+1)`` (RoFormer, Meta's
    Llama code, torchtune); ``"half"`` pairs ``(i, i + d/2)`` (GPT-NeoX, Llama
    in Hugging Face transformers). Applied to queries and keys, the score
    ``<rope(q, m), rope(k, n)>`` depends on the positions only through ``m - n``.
    Angles are formed in float64; the rotation runs in ``x``'s dtype.

    Args:
        x: floating tensor of shape ``(..., seq_len, d)`` with ``d`` even.
        positions: positions of the ``seq_len`` rows, default ``0 .. seq_len-1``.
            Shape ``(seq_len,)`` or any shape ending in ``seq_len`` that
            broadcasts to ``x.shape[:-1]`` (for per-sequence offsets). Integer
            positions, offsets and gaps all work; real-valued positions are
            accepted too (position interpolation, chapter 9).
        base: frequency base (> 1); 10000 in RoFormer, 500000 in Llama 3.
        layout: ``"interleaved"`` or ``"half"``.
        freqs: optional frequencies ``w_i`` to use instead of
            ``base^(-2i/d)`` (shape ``(d/2,)``): the rescaled frequencies of
            ``book.scaling`` (chapter 9). ``base`` is then ignored.

    Returns:
        tensor with the shape, dtype and device of ``x``.

    Raises:
        TypeError: if ``x`` is not a floating tensor or positions are not numeric.
        ValueError: if ``x`` has fewer than 2 dims, an odd last dimension,
            positions whose shape does not fit ``x``, or a non-finite
            (NaN or infinite) position.
    """
    x = check_float_tensor("x", x, min_dim=2)
    d, seq_len = x.shape[-1], x.shape[-2]
    if d % 2:
        raise ValueError(f"the last dimension of x must be even (features are rotated in pairs), got {d}")
    layout = check_choice("layout", layout, ("interleaved", "half"))
    if positions is None:
        positions = torch.arange(seq_len, device=x.device)
    positions = _check_positions("positions", positions, allow_float=True)
    _check_positions_fit(positions, x)
    angles = _rope_angles(positions.to(x.device), d, base=base, freqs=freqs)
    return _rotate(x, torch.cos(angles).to(x.dtype), torch.sin(angles).to(x.dtype), layout)


def _rope_angles(
    positions: torch.Tensor, d_model: int, *, base: float, freqs: torch.Tensor | None
) -> torch.Tensor:
    """The float64 angles ``p * w_i``, shape ``(*positions.shape, d/2)``, with
    RoPE's ``w_i = base^(-2i/d)`` or the given ``freqs`` (chapter 9), checked
    here once for ``apply_rope``, ``rope_cos_sin``, ``rope_cis`` and
    ``rope_cos_error``."""
    if freqs is None:
        w = frequencies(d_model, base=base)
    else:
        d_model = check_even("d_model", d_model)
        if not isinstance(freqs, torch.Tensor) or not freqs.is_floating_point():
            raise TypeError(f"freqs must be a floating tensor, got {getattr(freqs, 'dtype', type(freqs).__name__)}")
        if freqs.shape != (d_model // 2,):
            raise ValueError(f"freqs must have shape (d/2,) = ({d_model // 2},), got {tuple(freqs.shape)}")
        if not torch.isfinite(freqs).all():
            raise ValueError("freqs must be finite")
        w = freqs.to(torch.float64)
    return positions.to(torch.float64).unsqueeze(-1) * w.to(positions.device)


def _rotate(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, layout: str) -> torch.Tensor:
    """The rotation itself, shared by ``apply_rope`` and ``apply_rope_cached``."""
    if layout == "interleaved":
        a, b = x[..., 0::2], x[..., 1::2]
        out = torch.empty(torch.broadcast_shapes(x.shape[:-1], cos.shape[:-1]) + x.shape[-1:],
                          dtype=x.dtype, device=x.device)
        out[..., 0::2] = a * cos - b * sin  # strided writes: several times faster than
        out[..., 1::2] = a * sin + b * cos  # torch.stack(..., dim=-1) on the CPU
        return out
    half = x.shape[-1] // 2
    a, b = x[..., :half], x[..., half:]
    return torch.cat((a * cos - b * sin, a * sin + b * cos), dim=-1)


def rope_cos_sin(
    positions: torch.Tensor | Sequence[float],
    d_model: int,
    *,
    base: float = 10000.0,
    dtype: torch.dtype = torch.float32,
) -> tuple[torch.Tensor, torch.Tensor]:
    """A cos/sin cache for RoPE: ``cos(p w_i)`` and ``sin(p w_i)``, angles in float64.

    Compute it once for all positions up to the longest input, then pass
    rows of it to ``apply_rope_cached`` (as Hugging Face transformers and
    torchtune do). Returns two tensors of shape ``(*positions.shape, d/2)``.

    Raises:
        TypeError: for non-numeric positions or a non-floating ``dtype``.
        ValueError: for a non-finite position, or a bad ``d_model`` or ``base``.
    """
    positions = _check_positions("positions", positions, allow_float=True)
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise TypeError(f"dtype must be a floating-point torch.dtype, got {dtype!r}")
    angles = _rope_angles(positions, d_model, base=base, freqs=None)
    return torch.cos(angles).to(dtype), torch.sin(angles).to(dtype)


def apply_rope_cached(
    x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, *, layout: RopeLayout = "interleaved"
) -> torch.Tensor:
    """RoPE from a precomputed cos/sin cache (``rope_cos_sin``); the same
    rotation as ``apply_rope``, without recomputing angles on every call.

    For ``layout="half"`` this is the "rotate_half" form of GPT-NeoX and
    transformers: ``x * [cos, cos] + rotate_half(x) * [sin, sin]`` with
    ``rotate_half(x) = [-x2, x1]``.

    Args:
        x: floating tensor ``(..., seq_len, d)``, ``d`` even.
        cos, sin: tensors that broadcast to ``(..., seq_len, d/2)``.
        layout: ``"interleaved"`` (pairs ``(2i, 2i+1)``) or ``"half"``.
    """
    x = check_float_tensor("x", x, min_dim=2)
    if x.shape[-1] % 2:
        raise ValueError(f"the last dimension of x must be even, got {x.shape[-1]}")
    layout = check_choice("layout", layout, ("interleaved", "half"))
    for name, t in (("cos", cos), ("sin", sin)):
        if not isinstance(t, torch.Tensor) or t.shape[-1:] != (x.shape[-1] // 2,):
            raise ValueError(f"{name} must be a tensor ending in d/2 = {x.shape[-1] // 2}, got "
                             f"{getattr(t, 'shape', type(t).__name__)}")
    return _rotate(x, cos.to(x.dtype), sin.to(x.dtype), layout)


def rope_cis(
    positions: torch.Tensor | Sequence[float],
    d_model: int,
    *,
    base: float = 10000.0,
    freqs: torch.Tensor | None = None,
    dtype: torch.dtype = torch.complex64,
) -> torch.Tensor:
    """The unit complex numbers ``e^{i p w_i}`` that RoPE multiplies by: a cache.

    Equation (Su et al., 2021, eq. 16, the complex form): pair ``(2i, 2i+1)``
    read as ``a + ib`` is rotated to ``(a + ib) e^{i p w_i}``. The angles are
    formed in float64 and only the result is rounded to ``dtype``; compute the
    cache once per maximum length and pass rows of it to
    ``apply_rope_complex``.

    Returns:
        complex tensor of shape ``(*positions.shape, d_model // 2)``.

    Raises:
        TypeError: for non-numeric positions, bad ``freqs`` or a non-complex ``dtype``.
        ValueError: for a non-finite position, or a bad ``d_model``, ``base``
            or ``freqs`` shape.
    """
    positions = _check_positions("positions", positions, allow_float=True)
    d_model = check_even("d_model", d_model)
    if dtype not in (torch.complex64, torch.complex128):
        raise TypeError(f"dtype must be torch.complex64 or torch.complex128, got {dtype!r}")
    angles = _rope_angles(positions, d_model, base=base, freqs=freqs)
    return torch.polar(torch.ones_like(angles), angles).to(dtype)


def apply_rope_complex(x: torch.Tensor, cis: torch.Tensor, *, out: torch.Tensor | None = None) -> torch.Tensor:
    """Interleaved RoPE as one complex multiplication (fast; chapter 10).

    Each pair ``(2i, 2i+1)`` of ``x`` is read as one complex number without
    copying (``Tensor.view`` with a complex dtype), one elementwise product
    with ``cis`` (from ``rope_cis``) rotates every pair, and the result is
    read back as real numbers: the same numbers as ``apply_rope(x, positions)`` with
    ``layout="interleaved"``, in one pass over ``x``. In place
    (``out=x``) is the fastest form: chapter 10 and
    ``benchmarks/rope_speed.py`` time it against copying ``x``.

    Args:
        x: float32 or float64 tensor ``(..., seq_len, d)``, ``d`` even.
        cis: complex tensor that broadcasts to ``(..., seq_len, d/2)``, e.g.
            ``rope_cis(positions, d)`` of shape ``(seq_len, d/2)``.
        out: optional contiguous tensor like ``x`` to write the result into
            (no allocation; it may be ``x`` itself, to rotate in place).

    Returns:
        tensor with the shape and dtype of ``x``.

    Raises:
        TypeError: if ``x`` is not float32/float64 or ``cis`` not complex.
        ValueError: if ``x``'s last dimension is odd or ``cis`` does not fit.
    """
    x = check_float_tensor("x", x, min_dim=2)
    if x.dtype not in (torch.float32, torch.float64):
        raise TypeError(f"x must be float32 or float64 for the complex form, got {x.dtype}; use apply_rope")
    if x.shape[-1] % 2:
        raise ValueError(f"the last dimension of x must be even, got {x.shape[-1]}")
    if not isinstance(cis, torch.Tensor) or not cis.is_complex():
        raise TypeError(f"cis must be a complex tensor from rope_cis, got {getattr(cis, 'dtype', type(cis))}")
    pairs = _as_pairs(x)
    shape, cshape = pairs.shape, cis.shape  # a plain loop: torch.broadcast_shapes costs ~30 us
    if len(cshape) > len(shape) or any(c not in (1, p) for c, p in zip(reversed(cshape), reversed(shape))):
        raise ValueError(f"cis of shape {tuple(cshape)} must broadcast to (..., seq_len, d/2) = {tuple(shape)}")
    if cis.dtype != pairs.dtype:
        cis = cis.to(pairs.dtype)
    if out is None:
        return (pairs * cis).view(x.dtype)
    if not isinstance(out, torch.Tensor) or out.shape != x.shape or out.dtype != x.dtype or not out.is_contiguous():
        raise ValueError(f"out must be a contiguous tensor with the shape {tuple(x.shape)} and dtype {x.dtype} of x")
    torch.mul(pairs, cis, out=out.view(pairs.dtype))
    return out


def rope_cos_error(
    positions: torch.Tensor | Sequence[int],
    d_model: int,
    *,
    angle_dtype: torch.dtype,
    base: float = 10000.0,
) -> torch.Tensor:
    """How wrong RoPE's cosines get when its angles are formed in low precision.

    Equation: the angles ``m theta_i`` of Su et al. (2021, eq. 34), with
    ``theta_i = base^(-2i/d)`` (``frequencies``). The position ``m`` and
    ``theta_i`` are rounded to ``angle_dtype`` and multiplied in it, and the
    cosine of that angle is compared with ``cos(m theta_i)`` in float64. For
    ``angle_dtype=torch.float64`` this is ``book``'s own path instead:
    ``rope_cos_sin`` (float64 angles, the result rounded to float32).

    Args:
        positions: integer positions ``m``, shape ``(n,)``.
        d_model: head width ``d``, a positive even integer.
        angle_dtype: a floating dtype, e.g. ``torch.bfloat16``.
        base: RoPE's base.

    Returns:
        float64 tensor ``(n,)``: the largest ``|cos error|`` over the pairs at
        each position (chapter 10); ``inf`` where the angle overflows
        ``angle_dtype`` (float16 cannot hold positions past 65504).

    Raises:
        TypeError: for float positions (they must be integers) or a
            non-floating ``angle_dtype``.
        ValueError: for positions that are not one-dimensional, or NaN or
            infinite (reported before the dtype rule).
    """
    positions = _check_positions("positions", positions, allow_float=False)
    if positions.dim() != 1:
        raise ValueError(f"positions must be one-dimensional, got shape {tuple(positions.shape)}")
    if not isinstance(angle_dtype, torch.dtype) or not angle_dtype.is_floating_point:
        raise TypeError(f"angle_dtype must be a floating-point torch.dtype, got {angle_dtype!r}")
    theta = frequencies(d_model, base=base)
    exact = torch.cos(_rope_angles(positions, d_model, base=base, freqs=None))
    if angle_dtype == torch.float64:
        cos, _ = rope_cos_sin(positions, d_model, base=base)
    else:
        cos = torch.cos((positions[:, None].to(angle_dtype) * theta.to(angle_dtype)).float())
    return (cos.double() - exact).abs().amax(1).nan_to_num(nan=math.inf)


def _as_pairs(x: torch.Tensor) -> torch.Tensor:
    """``x`` (..., d) read as complex pairs (..., d/2), without a copy if possible.

    ``Tensor.view(complex dtype)`` reinterprets the last dimension in one
    call, about 10 us quicker than ``view_as_complex(x.reshape(..., -1, 2))``
    (which matters next to a 40 us multiplication); it needs a last dimension
    of stride 1, so other layouts take the reshape, which copies them.
    """
    try:
        return x.view(torch.complex64 if x.dtype == torch.float32 else torch.complex128)
    except RuntimeError:  # last dimension not of stride 1, or an odd offset or stride
        return torch.view_as_complex(x.reshape(*x.shape[:-1], -1, 2).contiguous())


def _check_positions(name: str, positions: object, *, allow_float: bool) -> torch.Tensor:
    """``check_position_tensor``, plus: every position must be finite.

    A NaN or infinite position would otherwise flow silently into NaN angles
    and NaN outputs. Only floating tensors can hold one, and they are checked
    before the dtype rule, so a NaN passed where integers are required also
    raises this ``ValueError`` (finite floats there still raise ``TypeError``).
    """
    positions = check_position_tensor(name, positions, allow_float=True)
    if positions.is_floating_point():
        finite = torch.isfinite(positions)
        if not bool(finite.all()):
            bad = float(positions[~finite].flatten()[0])
            raise ValueError(f"{name} must be finite (no NaN or infinity), got {bad}")
        if not allow_float:
            check_position_tensor(name, positions, allow_float=False)
    return positions


def _check_positions_fit(positions: torch.Tensor, x: torch.Tensor) -> None:
    lead = tuple(x.shape[:-1])
    if positions.dim() == 0 or positions.shape[-1] != lead[-1]:
        raise ValueError(
            f"positions must end in the sequence length {lead[-1]} of x, got shape "
            f"{tuple(positions.shape)}"
        )
    try:
        fits = torch.broadcast_shapes(positions.shape, lead) == lead
    except RuntimeError:
        fits = False
    if not fits:
        raise ValueError(
            f"positions of shape {tuple(positions.shape)} must broadcast to "
            f"x.shape[:-1] = {lead}"
        )


def alibi_slopes(n_heads: int) -> torch.Tensor:
    """The head-specific slopes ``m_h`` of ALiBi (Press et al., 2022, section 3).

    For ``n`` a power of two, the slopes are the geometric sequence
    ``m_h = 2^(-8h/n)`` for ``h = 1 .. n`` (8 heads: 1/2, 1/4, .., 1/256).
    For other ``n``, Press et al.'s reference code takes the ``2^floor(log2 n)``
    slopes of the nearest smaller power of two and fills the remaining heads
    with every other slope of the sequence for twice that power
    (12 heads: the 8-head slopes, then 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5).

    Args:
        n_heads: number of attention heads, >= 1.

    Returns:
        float32 tensor of shape ``(n_heads,)``, all in (0, 1).

    Raises:
        TypeError / ValueError: if ``n_heads`` is not an integer >= 1.
    """
    n_heads = check_positive_int("n_heads", n_heads)
    return torch.tensor(_alibi_slope_list(n_heads), dtype=torch.float64).to(torch.float32)


def _alibi_slope_list(n: int) -> list[float]:
    def power_of_two(m: int) -> list[float]:
        return [2.0 ** (-8.0 * h / m) for h in range(1, m + 1)]

    if n & (n - 1) == 0:
        return power_of_two(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_two(closest) + _alibi_slope_list(2 * closest)[0::2][: n - closest]


def alibi_bias(n_heads: int, seq_len: int) -> torch.Tensor:
    """The ALiBi attention bias ``B[h, i, j] = -m_h * |i - j|`` (Press et al., 2022).

    The bias is added to the attention scores ``q_i . k_j / sqrt(d)`` before the
    softmax; no vector is added to the token embeddings. This is the symmetric
    form; with a causal mask only ``j <= i`` is used, where it equals Press et
    al.'s ``-m_h * (i - j)``.

    Args:
        n_heads: number of heads (>= 1); slopes from ``alibi_slopes``.
        seq_len: sequence length (>= 1).

    Returns:
        float32 tensor of shape ``(n_heads, seq_len, seq_len)``, zero on the
        diagonal and negative elsewhere.
    """
    slopes = alibi_slopes(n_heads)
    seq_len = check_positive_int("seq_len", seq_len)
    pos = torch.arange(seq_len)
    distance = (pos[:, None] - pos[None, :]).abs().to(torch.float32)
    return -slopes[:, None, None] * distance


def rope_layout_permutation(d_model: int, n_heads: int = 1) -> torch.Tensor:
    """Row permutation of ``W_q`` / ``W_k`` that turns interleaved RoPE into half-split RoPE.

    RoFormer (Su et al., 2021) and Meta's Llama code rotate the feature pairs
    ``(2i, 2i+1)`` of each head; GPT-NeoX and Llama in Hugging Face
    transformers rotate ``(i, i + h/2)`` (``h`` the head width). For one head,
    with ``perm = [0, 2, .., h-2, 1, 3, .., h-1]``::

        apply_rope(q[..., perm], layout="half") == apply_rope(q)[..., perm]

    and because the same permutation of ``q`` and ``k`` leaves every dot product
    unchanged, a model whose ``W_q`` and ``W_k`` rows (output features) are
    permuted by ``perm`` within each head gives, with ``layout="half"``,
    exactly the attention scores of the original model with
    ``layout="interleaved"``. This is the permutation applied when Meta's
    Llama checkpoints are converted to the transformers format. Its inverse,
    ``torch.argsort(perm)``, goes back.

    Args:
        d_model: total width of the projection (``n_heads * h``).
        n_heads: number of heads; ``d_model / n_heads`` must be even.

    Returns:
        int64 tensor of shape ``(d_model,)``: new row ``r`` takes old row
        ``perm[r]`` (use ``W[perm]`` for an ``nn.Linear`` weight).

    Raises:
        TypeError / ValueError: if the sizes are not positive integers, or the
            head width is not a whole even number.
    """
    d_model = check_positive_int("d_model", d_model)
    n_heads = check_positive_int("n_heads", n_heads)
    if d_model % n_heads or (d_model // n_heads) % 2:
        raise ValueError(
            f"d_model / n_heads must be a whole even head width (RoPE rotates pairs), "
            f"got d_model={d_model}, n_heads={n_heads}"
        )
    head = d_model // n_heads
    offsets = torch.arange(n_heads).repeat_interleave(head) * head
    return layout_permutation(head).repeat(n_heads) + offsets


def t5_relative_bucket(
    relative_position: torch.Tensor | Sequence[int],
    *,
    bidirectional: bool = True,
    num_buckets: int = 32,
    max_distance: int = 128,
) -> torch.Tensor:
    """T5's bucket of each relative position (Raffel et al., 2020, section 2.1).

    ``relative_position`` is the key position minus the query position
    (``j - i``), as in the T5 code; negative values look back. With
    ``bidirectional=True`` half of the buckets hold keys at or before the query
    and half hold keys after it (``j > i`` adds ``num_buckets / 2``); with
    ``bidirectional=False`` (a decoder) keys after the query share bucket 0.
    Within a half of ``B`` buckets and distance ``r = |j - i|``::

        bucket = r                                            if r < B/2
        bucket = min(B - 1, B/2 + floor(log(r / (B/2))
                          / log(max_distance / (B/2)) * (B - B/2)))  otherwise

    so small distances each get a bucket and larger ones share logarithmically
    wider buckets. Every distance from ``max_distance`` on lands in the last
    bucket, but because of the floor the last bucket *starts* earlier: with
    T5's 32 buckets and ``max_distance=128`` at distance 91 in the encoder
    (bidirectional) and 113 in the decoder. The logarithm is taken in
    float32, as in the reference code (Mesh TensorFlow's
    ``_relative_position_bucket``, ported as
    ``T5Attention._relative_position_bucket`` in transformers'
    ``models/t5/modeling_t5.py``; ``tests/test_transformers_encodings.py``
    compares the two).

    Args:
        relative_position: integer tensor (or sequence) ``j - i``, any shape.
        bidirectional: encoder (True) or decoder (False) bucketing.
        num_buckets: number of buckets (>= 2; even if bidirectional). T5 uses 32.
        max_distance: distance from which all positions are sure to share the
            last bucket (it may start earlier, see above); must exceed the
            exact range (``num_buckets / 2``, or a quarter of it if
            bidirectional). T5 uses 128.

    Returns:
        int64 tensor of the shape of ``relative_position``, in
        ``[0, num_buckets)``.

    Raises:
        TypeError: for non-integer (finite) positions or sizes.
        ValueError: for NaN or infinite positions, or sizes that break the
            rules above.
    """
    rel = _check_positions("relative_position", relative_position, allow_float=False)
    if not isinstance(bidirectional, bool):
        raise TypeError(f"bidirectional must be True or False, got {bidirectional!r}")
    num_buckets = check_positive_int("num_buckets", num_buckets)
    max_distance = check_positive_int("max_distance", max_distance)
    if bidirectional:
        num_buckets = check_even("num_buckets", num_buckets) // 2
    if num_buckets < 2:
        raise ValueError("num_buckets must leave at least 2 buckets per direction (>= 2, or >= 4 if bidirectional)")
    max_exact = num_buckets // 2
    if max_distance <= max_exact:
        raise ValueError(f"max_distance must exceed the exact range {max_exact}, got {max_distance}")
    rel = rel.long()
    if bidirectional:
        offset = (rel > 0).long() * num_buckets
        distance = rel.abs()
    else:
        offset = torch.zeros_like(rel)
        distance = (-rel).clamp(min=0)
    ratio = distance.to(torch.float32).clamp(min=1) / max_exact  # clamp: log(0) is unused
    wide = max_exact + (torch.log(ratio) / math.log(max_distance / max_exact) * (num_buckets - max_exact)).long()
    wide = wide.clamp(max=num_buckets - 1)
    return offset + torch.where(distance < max_exact, distance, wide)


class LearnedPositionalEmbedding(nn.Module):
    """A learned table of position vectors, as in BERT (Devlin et al., 2019) and GPT-2.

    Equation: ``P[p] = W[p]`` for a trainable ``W`` of shape ``(max_len, d_model)``,
    added to the token embeddings. The table is initialised from a plain
    normal ``N(0, 0.02^2)``. The two models this follows initialise it
    differently:

    * BERT (google-research/bert, ``modeling.py``, ``embedding_postprocessor``
      with ``create_initializer(initializer_range)``) draws the
      ``position_embeddings`` table from
      ``tf.truncated_normal_initializer(stddev=0.02)``, a normal with
      parameter 0.02 cut at two standard deviations;
    * OpenAI's GPT-2 code (openai/gpt-2, ``src/model.py``, ``model``) draws
      ``wpe`` from ``tf.random_normal_initializer(stddev=0.01)`` and the
      token table ``wte`` from ``stddev=0.02``.

    The book keeps BERT's figure 0.02, untruncated. Positions outside ``[0, max_len)`` have no vector: the
    policy here is to raise a ``ValueError`` that says so, rather than index out
    of range (real models truncate the input or interpolate the table).

    Args:
        max_len: number of positions with a vector (>= 1).
        d_model: width of each vector (>= 1).

    Raises:
        TypeError / ValueError: for non-integer or non-positive sizes.
    """

    def __init__(self, max_len: int, d_model: int) -> None:
        super().__init__()
        self.max_len = check_positive_int("max_len", max_len)
        self.d_model = check_positive_int("d_model", d_model)
        self.weight = nn.Parameter(torch.empty(self.max_len, self.d_model))
        nn.init.normal_(self.weight, mean=0.0, std=0.02)

    def forward(self, positions: torch.Tensor) -> torch.Tensor:
        """Look up the vectors of ``positions`` (integer tensor, any shape).

        Returns a tensor of shape ``(*positions.shape, d_model)``.

        Raises:
            TypeError: if ``positions`` is not an integer tensor.
            ValueError: if a position is negative, ``>= max_len``, or NaN or
                infinite (reported before the dtype rule).
        """
        if not isinstance(positions, torch.Tensor):
            raise TypeError(f"positions must be a torch.Tensor of integers, got {type(positions).__name__}")
        positions = _check_positions("positions", positions, allow_float=False)
        if positions.numel():
            lo, hi = int(positions.min()), int(positions.max())
            if lo < 0 or hi >= self.max_len:
                bad = lo if lo < 0 else hi
                raise ValueError(
                    f"positions must lie in [0, max_len) = [0, {self.max_len}), got {bad}: "
                    f"a learned table has no vector for a position it was not built with "
                    f"(truncate the input, or interpolate the table to a larger max_len)"
                )
        return nn.functional.embedding(positions, self.weight)

    def extra_repr(self) -> str:
        return f"max_len={self.max_len}, d_model={self.d_model}"
