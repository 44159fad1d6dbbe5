"""Rotary position embeddings (RoPE; Su et al., 2021): every form the book uses, together.

The rotation with explicit positions (``apply_rope``), the cached cos/sin
form of the Llama code (``rope_cos_sin``, ``apply_rope_cached``), the
complex form (``rope_cis``, ``apply_rope_complex``), the
interleaved/half-split layout permutation (``rope_layout_permutation``) and
the shift of already-rotated vectors, as in a KV cache (``shift_rope``).
RoPE's precision probes are in :mod:`book.numerics`. Conventions: :mod:`book.encodings`.
"""

from __future__ import annotations

from typing import Literal, Sequence

import torch

from .._validate import (
    check_base,
    check_choice,
    check_even,
    check_float_dtype,
    check_float_tensor,
    check_position_tensor,
    check_positive_int,
    check_real,
)
from ._positions import _check_broadcasts, _check_positions, _check_positions_fit
from .sinusoidal import frequencies, layout_permutation

__all__ = [
    "apply_rope",
    "rope_cos_sin",
    "apply_rope_cached",
    "rope_cis",
    "apply_rope_complex",
    "rope_layout_permutation",
    "apply_partial_rope",
    "rope_expected_score",
    "shift_rope",
]

RopeLayout = Literal["interleaved", "half"]
_ROPE_LAYOUTS: tuple[RopeLayout, ...] = ("interleaved", "half")


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
        ValueError: if ``x`` has fewer than 2 dims, a last dimension that is odd or 0,
            positions whose shape does not fit ``x``, or a non-finite
            (NaN or infinite) position.
    """
    x = check_float_tensor("x", x, min_dim=2)
    d, seq_len = x.shape[-1], x.shape[-2]
    if d % 2 or d == 0:
        raise ValueError(f"the last dimension of x must be even and positive (features are rotated in pairs), got {d}")
    layout = check_choice("layout", layout, _ROPE_LAYOUTS)
    if positions is None:
        positions = torch.arange(seq_len, device=x.device)
    positions = _check_positions("positions", positions, allow_float=True)
    _check_positions_fit(positions, x)
    angles = _rope_angles(positions.to(x.device), d, base=base, freqs=freqs)
    return _rotate(x, torch.cos(angles).to(x.dtype), torch.sin(angles).to(x.dtype), layout)


def _rope_angles(positions: torch.Tensor, d_model: int, *, base: float, freqs: torch.Tensor | None) -> torch.Tensor:
    """The float64 angles ``p * w_i``, shape ``(*positions.shape, d/2)``, with
    RoPE's ``w_i = base^(-2i/d)`` or the given ``freqs`` (chapter 9), checked
    here once for ``apply_rope``, ``rope_cos_sin``, ``rope_cis`` and
    ``book.numerics``."""
    if freqs is None:
        w = frequencies(d_model, base=base)
    else:
        d_model = check_even("d_model", d_model)
        check_base(base)  # unused with freqs, but still a finite number > 1, as documented
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
        out = torch.empty(
            torch.broadcast_shapes(x.shape[:-1], cos.shape[:-1]) + x.shape[-1:], dtype=x.dtype, device=x.device
        )
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
    freqs: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """A cos/sin cache for RoPE: ``cos(p w_i)`` and ``sin(p w_i)``, angles in float64.

    Compute it once for all positions up to the longest input, then pass
    rows of it to ``apply_rope_cached`` (as Hugging Face transformers and
    torchtune do). Returns two tensors of shape ``(*positions.shape, d/2)``.
    ``freqs`` replaces the frequencies ``w_i``, as in ``apply_rope`` (a
    scaling rule's, chapter 9).

    Raises:
        TypeError: for non-numeric positions, a non-floating ``dtype`` or
            ``freqs``.
        ValueError: for a non-finite position, a bad ``d_model`` or ``base``,
            or ``freqs`` not finite or not of shape ``(d/2,)``.
    """
    positions = _check_positions("positions", positions, allow_float=True)
    dtype = check_float_dtype("dtype", dtype)
    angles = _rope_angles(positions, d_model, base=base, freqs=freqs)
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
    layout = check_choice("layout", layout, _ROPE_LAYOUTS)
    for name, t in (("cos", cos), ("sin", sin)):
        if not isinstance(t, torch.Tensor) or t.shape[-1:] != (x.shape[-1] // 2,):
            raise ValueError(
                f"{name} must be a tensor ending in d/2 = {x.shape[-1] // 2}, got "
                f"{getattr(t, 'shape', type(t).__name__)}"
            )
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

    Equation (Su et al., 2021, section 3.2.1, eq. 12, the 2D case in complex
    form): pair ``(2i, 2i+1)`` read as ``a + ib`` is rotated to
    ``(a + ib) e^{i p w_i}``. The angles are formed in float64 and only the
    result is rounded to ``dtype``; compute the cache once per maximum length
    and pass rows of it to ``apply_rope_complex``.

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
    """Interleaved RoPE as one complex multiplication (fast; chapter 11).

    Each pair ``(2i, 2i+1)`` of ``x`` is read as one complex number without
    copying (``Tensor.view`` with a complex dtype), one elementwise product
    with ``cis`` (from ``rope_cis``) rotates every pair, and the result is
    read back as real numbers: the same numbers as ``apply_rope(x, positions)`` with
    ``layout="interleaved"``, in one pass over ``x``. In place
    (``out=x``) is the fastest form: chapter 11 and
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


def apply_partial_rope(
    x: torch.Tensor,
    positions: torch.Tensor | Sequence[float] | None = None,
    *,
    rotary_dim: int,
    base: float = 10000.0,
    layout: RopeLayout = "interleaved",
) -> torch.Tensor:
    """Partial rotary: RoPE on the first ``rotary_dim`` features of each head only.

    GPT-NeoX (Black et al., 2022) rotates a fraction ``rotary_pct`` of each
    head and passes the other features through unchanged. In Hugging Face
    transformers this is ``partial_rotary_factor`` (``rotary_pct`` in
    ``GPTNeoXConfig``): ``models/gpt_neox/modeling_gpt_neox.py``,
    ``GPTNeoXRotaryEmbedding.compute_default_rope_parameters`` forms the
    frequencies over ``dim = int(head_dim * partial_rotary_factor)`` features,
    ``w_i = base^(-2i/dim)``, and ``apply_rotary_pos_emb`` rotates
    ``q[..., :dim]`` and concatenates ``q[..., dim:]`` unchanged. labml's
    annotated RoPE calls the same width ``d_rope``. So::

        out[..., :r] = apply_rope(x[..., :r], positions, base=base)   # w_i = base^(-2i/r)
        out[..., r:] = x[..., r:]

    with ``r = rotary_dim``. ``layout`` pairs the rotated features as in
    ``apply_rope`` (``"half"`` is GPT-NeoX's ``rotate_half`` within the first
    ``r`` features). The score of a rotated query and key is the RoPE score of
    the first ``r`` features (a function of ``m - n``) plus the plain dot
    product of the rest (no position at all).

    Args:
        x: floating tensor ``(..., seq_len, d)``.
        positions: as in ``apply_rope`` (default ``0 .. seq_len-1``).
        rotary_dim: how many leading features to rotate: even, ``2 <= r <= d``.
        base: RoPE's base.
        layout: ``"interleaved"`` (pairs ``(2i, 2i+1)``) or ``"half"``.

    Returns:
        tensor with the shape and dtype of ``x``; ``rotary_dim = d`` is ``apply_rope``.

    Raises:
        TypeError: if ``x`` is not a floating tensor or ``rotary_dim`` not an integer.
        ValueError: if ``rotary_dim`` is odd, below 2 or above ``d``, and as ``apply_rope``.
    """
    x = check_float_tensor("x", x, min_dim=2)
    rotary_dim = check_even("rotary_dim", check_positive_int("rotary_dim", rotary_dim))
    if rotary_dim > x.shape[-1]:
        raise ValueError(f"rotary_dim must be at most the last dimension of x ({x.shape[-1]}), got {rotary_dim}")
    turned = apply_rope(x[..., :rotary_dim], positions, base=base, layout=layout)
    return torch.cat((turned, x[..., rotary_dim:]), dim=-1)


def rope_expected_score(
    offsets: torch.Tensor | Sequence[float],
    d_model: int,
    *,
    correlation: float = 1.0,
    base: float = 10000.0,
) -> torch.Tensor:
    """The expected RoPE score of a random query and key, at each offset ``m - n``.

    For ``q, k`` with zero-mean, unit-variance entries and ``E[q_j k_j] = rho``
    (``correlation``; ``E[q_j k_l] = 0`` for ``j != l``), rotated to positions
    ``m`` and ``n`` (Su et al., 2021, section 3.2.2, eq. 16, the relative form
    ``q_m^T k_n = x_m^T W_q^T R_{n-m} W_k x_n``)::

        E[<rope(q, m), rope(k, n)>] = E[q^T R((n - m) theta) k]
                                    = rho * trace(R((n - m) theta))
                                    = 2 rho * sum_i cos((m - n) theta_i)

    with ``theta_i = base^(-2i/d)``. For independent ``q, k`` (``rho = 0``) it is
    0 at every offset; for ``q = k`` (``rho = 1``) it is ``2 sum_i cos((m - n)
    theta_i)``, the score of ``q = k = (1, 1, .., 1)`` and the curve that falls
    with the offset (RoFormer's long-term decay, section 3.4.3). It is even in
    ``m - n``.

    Args:
        offsets: the offsets ``m - n``, any shape.
        d_model: head width ``d``, positive and even.
        correlation: ``rho``, in ``[-1, 1]``.
        base: RoPE's base.

    Returns:
        float64 tensor of the shape of ``offsets``.

    Raises:
        TypeError / ValueError: for non-numeric or non-finite offsets, a bad
            ``d_model`` or ``base``, or ``correlation`` outside ``[-1, 1]``.
    """
    offsets = _check_positions("offsets", offsets, allow_float=True)
    correlation = check_real("correlation", correlation)
    if not -1.0 <= correlation <= 1.0:
        raise ValueError(f"correlation must lie in [-1, 1], got {correlation}")
    angles = _rope_angles(offsets, d_model, base=base, freqs=None)
    return 2.0 * correlation * torch.cos(angles).sum(-1)


def shift_rope(
    x: torch.Tensor,
    delta: int | torch.Tensor | Sequence[int],
    *,
    base: float = 10000.0,
    layout: RopeLayout = "interleaved",
    freqs: torch.Tensor | None = None,
) -> torch.Tensor:
    """Move vectors that RoPE has already rotated by ``delta`` positions: a context shift by re-rotation.

    Rotations by angles add, ``R(a) R(b) = R(a + b)``, so rotating every pair
    of a vector that ``apply_rope`` placed at position ``p`` by a further
    ``delta * w_i`` gives the vector ``apply_rope`` places at ``p + delta``::

        shift_rope(apply_rope(x, p), delta) == apply_rope(x, p + delta)   # up to rounding

    without knowing ``p`` or the unrotated ``x``. Keys are cached after RoPE,
    so this moves cached keys to new positions without recomputing them.
    llama.cpp shifts its context this way: ``llama_kv_cache::seq_add`` adds
    ``shift`` to the positions of a sequence's cells and each cell adds it to
    its own running shift (``llama_kv_cells::pos_add``, ``src/llama-kv-cells.h``);
    ``set_input_k_shift`` passes those per-cell shifts (0 for an empty cell),
    and ``llama_kv_cache::build_rope_shift`` (``src/llama-kv-cache.cpp``) applies
    ``ggml_rope_ext`` to the cached keys with the shifts as the positions (in
    place; a quantised cache is converted to float32, rotated and converted
    back). The cached values carry no position and stay as they are.
    ``build_rope_shift`` passes the model's own RoPE settings to
    ``ggml_rope_ext`` (``freq_base``, ``freq_scale``, the YaRN parameters,
    the per-pair ``rope_factors`` and ``n_rot``), so that keys rotated with
    scaled or truncated frequencies are shifted with the same ones. Here
    ``freqs`` does that: keys rotated by ``apply_rope(..., freqs=w)`` (the
    frequencies of ``book.scaling``, or p-RoPE's
    ``proportional_frequencies``, whose zero frequencies leave their pairs
    alone) are shifted by ``shift_rope(..., freqs=w)``. An attention factor
    that multiplies the keys commutes with the rotation and needs nothing. For
    GPT-NeoX's partial rotary (``apply_partial_rope``) shift the rotated
    features only, ``x[..., :rotary_dim]``, with the base they were rotated with.

    This is ``apply_rope`` with ``delta`` as the positions: the angles
    ``delta * w_i`` are formed in float64 and the rotation runs in ``x``'s
    dtype, so each shift costs about one to two roundings in that dtype
    (measured against rotating the float64 vectors once at the new
    position: a median of about twice the error of one rounding, at most
    about five times, in float32, bfloat16 and float16), and the error
    accumulates over repeated shifts (100 shifts by 1 in float32: about 100
    to 130 times one rounding): the cosines and sines are rounded to ``x``'s
    dtype, so repeated shifts apply the same rounded rotation again. To
    compute a shift in a wider format and round once per shift, as ggml's CPU
    rope does for F16 tensors (``rotate_pairs`` in
    ``ggml/src/ggml-cpu/ops.cpp`` of ggml-org/llama.cpp: float32 arithmetic,
    one conversion back), widen and cast back,
    ``shift_rope(x.double(), delta).to(x.dtype)``; chapter 12 measures both.
    Non-finite values in ``x`` are not checked:
    they propagate to the output, as in ``apply_rope``.

    Args:
        x: floating tensor ``(..., d)`` with ``d`` even, rotated by
            ``apply_rope`` with the same ``base`` and ``layout`` (for cached
            keys, ``(..., seq_len, d)``).
        delta: how many positions to move the vectors, negative to move them
            back. A Python or NumPy integer moves all of them alike; an
            integer tensor (or sequence) that broadcasts to ``x.shape[:-1]``
            moves each by its own amount, e.g. shape ``(seq_len,)`` for one
            shift per cached position as llama.cpp's per-cell shifts, or
            ``(batch, 1)`` for one per sequence of keys shaped
            ``(batch, seq_len, d)``. Whole positions only: a cache holds keys
            at integer positions (llama.cpp's ``llama_pos`` is an integer).
        base: RoPE's frequency base (> 1), the one ``x`` was rotated with.
        layout: ``"interleaved"`` (pairs ``(2i, 2i+1)``) or ``"half"``
            (pairs ``(i, i + d/2)``, transformers' Llama), as ``x`` was rotated.
        freqs: optional frequencies ``w_i`` (shape ``(d/2,)``, finite) that
            ``x`` was rotated with, as in ``apply_rope``; ``base`` is then ignored.

    Returns:
        tensor with the shape, dtype and device of ``x``.

    Raises:
        TypeError: if ``x`` is not a floating tensor, ``delta`` is not an
            integer or integer tensor (floats and booleans included), or
            ``freqs`` is not a floating tensor.
        ValueError: if ``x`` has no dimension or a last dimension that is odd
            or 0, ``delta`` does not broadcast to ``x.shape[:-1]``, ``base`` or
            ``layout`` is bad, or ``freqs`` has the wrong shape or a
            non-finite entry.
    """
    x = check_float_tensor("x", x, min_dim=1)
    d = x.shape[-1]
    if d % 2 or d == 0:
        raise ValueError(f"the last dimension of x must be even and positive (features are rotated in pairs), got {d}")
    layout = check_choice("layout", layout, _ROPE_LAYOUTS)
    if isinstance(delta, bool) or isinstance(delta, float):
        raise TypeError(f"delta must be an integer number of positions, got {type(delta).__name__} {delta!r}")
    delta = check_position_tensor("delta", delta, allow_float=False)
    _check_broadcasts("delta", delta, tuple(x.shape[:-1]))
    angles = _rope_angles(delta.to(x.device), d, base=base, freqs=freqs)
    return _rotate(x, torch.cos(angles).to(x.dtype), torch.sin(angles).to(x.dtype), layout)
