"""Stretching RoPE past its training length: rescaled frequencies.

Each function returns the float64 frequencies ``theta'_i`` (shape ``(d/2,)``)
to use in place of RoPE's ``theta_i = base^(-2i/d)``; pass them to
``book.encodings.apply_rope(..., freqs=...)``. ``scale`` is ``s = L' / L``,
the new context length over the trained one ``L`` (``original_max_len``).

``RULES`` maps a rule's name to a function of
``(d_model, *, scale, original_max_len, base)`` that returns
``(frequencies, attention_factor)``, in the shape of transformers'
``ROPE_INIT_FUNCTIONS`` (``transformers/modeling_rope_utils.py``). The
plots, chapter 9 and ``TinyTransformer.set_rope_scaling`` all read it.
Chapter 9 derives and compares the rules. The tests check each against its
formula and against transformers' own functions.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Sequence

import numpy as np
import torch

from ._validate import check_base, check_choice, check_even, check_positive_int, check_real
from .encodings import frequencies

__all__ = [
    "pi_frequencies",
    "ntk_frequencies",
    "dynamic_ntk_frequencies",
    "yarn_frequencies",
    "yarn_ramp",
    "llama3_frequencies",
    "longrope_frequencies",
    "turned_pairs",
    "RULES",
    "TRANSFORMERS_ROPE_TYPES",
]


def _check_scale(scale: float, name: str = "scale") -> float:
    scale = check_real(name, scale)
    if scale < 1:
        raise ValueError(f"{name} must be >= 1 (a context L' >= L), got {scale}")
    return scale


def pi_frequencies(d_model: int, *, scale: float, base: float = 10000.0) -> torch.Tensor:
    """Position Interpolation (Chen et al., 2023, section 2.3, "Proposed approach"): ``theta'_i = theta_i / s``.

    Rotating position ``m`` by ``m theta_i / s`` is the same as rotating the
    interpolated position ``m / s``: the ``L'`` positions of the long input are
    squeezed into the ``L`` the model was trained on. transformers calls it
    ``"linear"`` (``_compute_linear_scaling_rope_parameters``).

    Raises:
        ValueError: if ``scale < 1`` (or for a bad ``d_model``/``base``).
    """
    return frequencies(d_model, base=base) / _check_scale(scale)


def ntk_frequencies(d_model: int, *, scale: float, base: float = 10000.0) -> torch.Tensor:
    """ "NTK-aware" scaling (bloc97, 2023; Peng et al., 2024, section 3.1, eq. 16):
    change the base to ``base' = base * s^(d / (d - 2))``.

    The fastest pair (``i = 0``) is unchanged and the slowest is divided by
    exactly ``s``, as in Position Interpolation; the pairs in between are
    interpolated less the faster they turn.

    Raises:
        ValueError: if ``d_model < 4`` (the exponent needs ``d > 2``) or ``scale < 1``.
    """
    d_model = check_even("d_model", d_model)
    if d_model < 4:
        raise ValueError(f"d_model must be at least 4 for NTK-aware scaling, got {d_model}")
    scale = _check_scale(scale)
    base = check_base(base)
    return frequencies(d_model, base=base * scale ** (d_model / (d_model - 2)))


def dynamic_ntk_frequencies(
    d_model: int,
    seq_len: int,
    *,
    original_max_len: int,
    base: float = 10000.0,
    form: str = "paper",
    factor: float | None = None,
) -> torch.Tensor:
    """Dynamic NTK scaling: NTK-aware scaling with a scale chosen afresh for
    the current input length ``n = seq_len``. Inputs no longer than the
    training length ``L = original_max_len`` keep RoPE's frequencies exactly.

    Two forms, both ``ntk_frequencies`` at an effective scale ``s(n)``:

    - ``form="paper"`` (the book's default): ``s(n) = max(1, n / L)``, as
      Peng et al. (2024, section 3.3) describe Dynamic Scaling. ``factor``
      must be left out.
    - ``form="transformers"``: transformers' ``"dynamic"`` rope type
      (``_compute_dynamic_ntk_parameters`` in ``modeling_rope_utils.py``)
      computes ``base' = base * (factor * n / L - (factor - 1))^(d / (d - 2))``
      with ``n = max(seq_len, L)`` and ``L = config.max_position_embeddings``,
      that is ``s(n) = 1 + factor * (max(n, L) / L - 1)``. ``factor`` (>= 1)
      is required. With ``factor = 1`` the two forms agree; with
      ``factor > 1`` transformers' scale is larger for every ``n > L``.

    Raises:
        ValueError: for a non-positive ``seq_len``/``original_max_len``, an
            unknown ``form``, ``factor`` given with ``form="paper"`` or
            missing (or ``< 1``) with ``form="transformers"``.
    """
    seq_len = check_positive_int("seq_len", seq_len)
    original_max_len = check_positive_int("original_max_len", original_max_len)
    form = check_choice("form", form, ("paper", "transformers"))
    if form == "paper":
        if factor is not None:
            raise ValueError("factor is only used with form='transformers' (the paper's form has s = max(1, n / L))")
        scale = max(1.0, seq_len / original_max_len)
    else:
        if factor is None:
            raise ValueError("factor is required with form='transformers' (transformers' rope_parameters['factor'])")
        factor = _check_scale(factor, "factor")
        scale = factor * max(seq_len, original_max_len) / original_max_len - (factor - 1)
    if scale == 1.0:
        return frequencies(d_model, base=base)
    return ntk_frequencies(d_model, scale=scale, base=base)


def _pair_with_turns(turns: float, d_model: int, base: float, original_max_len: int) -> float:
    """The fractional pair index ``i`` whose ``theta_i = base^(-2i/d)`` makes
    ``turns`` turns over ``original_max_len`` positions (``find_correction_dim``
    of jquesnelle/yarn and transformers, written as they write it)."""
    return (d_model * math.log(original_max_len / (turns * 2 * math.pi))) / (2 * math.log(base))


def yarn_ramp(
    d_model: int,
    *,
    original_max_len: int,
    base: float = 10000.0,
    alpha: float = 1.0,
    beta: float = 32.0,
    ramp: str = "code",
) -> torch.Tensor:
    """YaRN's blend weight ``gamma_i`` per pair (float64, shape ``(d/2,)``):
    1 keeps ``theta_i``, 0 interpolates it like PI, between blends.

    ``alpha`` and ``beta`` are numbers of turns over ``L = original_max_len``
    (the paper's ``alpha = 1``, ``beta = 32``; transformers' and jquesnelle/yarn's
    ``beta_slow = 1`` and ``beta_fast = 32``). Pair ``i`` makes
    ``r_i = L theta_i / (2 pi)`` turns.

    - ``ramp="code"`` (default; what checkpoints run): jquesnelle/yarn
      (``scaled_rope/LlamaYaRNScaledRotaryEmbedding.py``: ``find_correction_range``,
      ``linear_ramp_mask``) and transformers (``_compute_yarn_parameters`` with
      its defaults, ``truncate=True``). With ``i(r)`` the fractional pair
      index making ``r`` turns, ``low = max(floor(i(beta)), 0)`` and
      ``high = min(ceil(i(alpha)), d - 1)`` (``high += 0.001`` if equal)::

          gamma_i = 1 - clamp((i - low) / (high - low), 0, 1)

      The ramp is linear in the **pair index**, and the clamp at 0 keeps
      pair 0 whatever ``L`` is.
    - ``ramp="paper"``: Peng et al. (2024), section 3.2, eq. 18, linear in
      the **number of turns**: ``gamma_i = clamp((r_i - alpha) / (beta - alpha), 0, 1)``.

    Because ``r_i`` falls geometrically with ``i``, the two ramps differ in
    every blended pair, not only by the rounding of the ends: for
    ``d = 64, L = 4096, s = 8``, pair 18 keeps new/old frequency 0.46 with the
    code's ramp and 0.20 with the paper's.

    Raises:
        ValueError: unless ``0 < alpha < beta``; for an unknown ``ramp`` or a
            bad ``d_model``/``base``/``original_max_len``.
    """
    d_model = check_even("d_model", d_model)
    base = check_base(base)
    original_max_len = check_positive_int("original_max_len", original_max_len)
    alpha, beta = check_real("alpha", alpha), check_real("beta", beta)
    if not 0 < alpha < beta:
        raise ValueError(f"alpha and beta must satisfy 0 < alpha < beta, got {alpha} and {beta}")
    ramp = check_choice("ramp", ramp, ("code", "paper"))
    if ramp == "paper":
        turns = original_max_len * frequencies(d_model, base=base) / (2 * math.pi)  # r_i = L / lambda_i
        return ((turns - alpha) / (beta - alpha)).clamp(0.0, 1.0)
    low = max(math.floor(_pair_with_turns(beta, d_model, base, original_max_len)), 0)
    high: float = min(math.ceil(_pair_with_turns(alpha, d_model, base, original_max_len)), d_model - 1)
    if low == high:
        high += 0.001  # as the reference code: no division by zero
    pair = torch.arange(d_model // 2, dtype=torch.float64)
    return 1 - ((pair - low) / (high - low)).clamp(0.0, 1.0)


def yarn_frequencies(
    d_model: int,
    *,
    scale: float,
    original_max_len: int,
    base: float = 10000.0,
    alpha: float = 1.0,
    beta: float = 32.0,
    ramp: str = "code",
) -> tuple[torch.Tensor, float]:
    """YaRN (Peng et al., 2024, sections 3.2-3.4): "NTK-by-parts" frequencies and
    an attention temperature.

    With the blend weight ``gamma_i`` of ``yarn_ramp`` (1 keep, 0 interpolate)::

        theta'_i = (1 - gamma_i) * theta_i / s + gamma_i * theta_i

    so pairs that turn many times within ``L`` keep their frequency, pairs that
    turn less than once are interpolated like PI, and the ones between are
    blended. The default ``ramp="code"`` is the reference code that YaRN
    checkpoints run (jquesnelle/yarn; transformers' ``_compute_yarn_parameters``
    with default settings), linear in the pair index; ``ramp="paper"`` is the
    paper's eq. 18, linear in the number of turns. They are different
    functions (see ``yarn_ramp``), and the book follows the code, which is what
    trained YaRN checkpoints were fine-tuned with.

    The temperature ``t`` with ``sqrt(1/t) = 0.1 ln(s) + 1`` (eq. 22) multiplies
    the scores by ``1/t``; returned is ``sqrt(1/t)``, the factor applied to both
    queries and keys (the code scales cos and sin by it; ``get_mscale``), which
    is 1 for ``s = 1``.

    Returns:
        ``(frequencies, attention_factor)``.

    Raises:
        ValueError: if ``scale < 1``, and as ``yarn_ramp``.
    """
    scale = _check_scale(scale)
    gamma = yarn_ramp(d_model, original_max_len=original_max_len, base=base, alpha=alpha, beta=beta, ramp=ramp)
    theta = frequencies(d_model, base=base)
    attention_factor = 1.0 if scale <= 1 else 0.1 * math.log(scale) + 1.0
    return (1 - gamma) * theta / scale + gamma * theta, attention_factor


def llama3_frequencies(
    d_model: int,
    *,
    base: float = 500000.0,
    factor: float = 8.0,
    low_freq_factor: float = 1.0,
    high_freq_factor: float = 4.0,
    original_max_len: int = 8192,
) -> torch.Tensor:
    """Llama **3.1**'s frequency rule, as Meta's reference code defines it:
    ``apply_scaling`` in meta-llama/llama-models ``models/llama3/model.py``
    (used when ``use_scaled_rope`` is set); transformers' rope type
    ``"llama3"`` (``_compute_llama3_parameters``) computes the same. The book
    follows that code (the Llama 3 models are described by Grattafiori et
    al., 2024).

    With wavelength ``lambda_i = 2 pi / theta_i``: pairs with
    ``lambda_i < L / high_freq_factor`` keep ``theta_i``; pairs with
    ``lambda_i > L / low_freq_factor`` get ``theta_i / factor``; between them::

        smooth = (L / lambda_i - low_freq_factor) / (high_freq_factor - low_freq_factor)
        theta'_i = (1 - smooth) * theta_i / factor + smooth * theta_i

    with ``L = original_max_len``. The defaults are Llama 3.1's (base 500000,
    factor 8, 1, 4, 8192).

    Raises:
        ValueError: if ``factor < 1``, unless ``0 < low_freq_factor < high_freq_factor``,
            or for a bad ``d_model``/``base``/``original_max_len``.
    """
    factor = _check_scale(factor, "factor")
    original_max_len = check_positive_int("original_max_len", original_max_len)
    low, high = check_real("low_freq_factor", low_freq_factor), check_real("high_freq_factor", high_freq_factor)
    if not 0 < low < high:
        raise ValueError(f"low_freq_factor and high_freq_factor must satisfy 0 < low < high, got {low} and {high}")
    theta = frequencies(d_model, base=base)
    wavelength = 2 * math.pi / theta
    smooth = ((original_max_len / wavelength - low) / (high - low)).clamp(0.0, 1.0)
    return (1 - smooth) * theta / factor + smooth * theta


def _check_factors(name: str, factors: object, theta: torch.Tensor) -> torch.Tensor:
    """LongRoPE's rescale factors as a float64 tensor of one finite number > 0
    per frequency of ``theta``, such that ``theta / factors`` stays finite.

    A sequence of Python or NumPy numbers, a 1-D real NumPy array (as
    microsoft/LongRoPE keeps its searched factors) or a 1-D real tensor."""
    if isinstance(factors, np.ndarray):
        if factors.dtype == np.bool_ or factors.dtype.kind not in "iuf" or factors.ndim != 1:
            raise TypeError(
                f"{name} must be a sequence, 1-D real array or 1-D real tensor of numbers, got an array "
                f"{factors.dtype} of shape {factors.shape}"
            )
        factors = torch.from_numpy(factors.astype(np.float64))
    if isinstance(factors, torch.Tensor):
        values = factors.detach().cpu()
        if values.dtype == torch.bool or values.is_complex() or values.dim() != 1:
            raise TypeError(
                f"{name} must be a sequence, 1-D real array or 1-D real tensor of numbers, got a tensor "
                f"{values.dtype} of shape {tuple(values.shape)}"
            )
        values = values.to(torch.float64)
    else:
        if isinstance(factors, (str, bytes)) or not isinstance(factors, Sequence):
            raise TypeError(f"{name} must be a sequence of numbers (one per pair), got {type(factors).__name__}")
        values = torch.tensor([check_real(f"{name}[{i}]", f) for i, f in enumerate(factors)], dtype=torch.float64)
    pairs = theta.numel()
    if values.shape != (pairs,):
        raise ValueError(f"{name} must have one factor per pair, d_model // 2 = {pairs}, got {values.numel()}")
    if not (torch.isfinite(values) & (values > 0)).all():
        raise ValueError(f"{name} must hold finite numbers > 0 (each divides a frequency), got {values.tolist()}")
    frequencies = theta / values
    if not torch.isfinite(frequencies).all():
        index = int(torch.nonzero(~torch.isfinite(frequencies))[0, 0])
        raise ValueError(
            f"{name} must give finite frequencies theta_i / {name}[i], but {name}[{index}] = {float(values[index])!r} "
            f"is so small that theta_{index} / it overflows"
        )
    return values


def _longrope_attention_factor(scale: float, original_max_len: int) -> float:
    """``sqrt(1 + ln s / ln L)`` for ``s > 1``, else 1 (LongRoPE's attention factor)."""
    if scale <= 1.0:
        return 1.0
    if original_max_len < 2:
        raise ValueError(
            f"original_max_len must be at least 2 for LongRoPE's attention factor (it divides by ln L), "
            f"got {original_max_len}"
        )
    return math.sqrt(1 + math.log(scale) / math.log(original_max_len))


def longrope_frequencies(
    d_model: int,
    *,
    base: float,
    short_factor: Sequence[float] | np.ndarray | torch.Tensor,
    long_factor: Sequence[float] | np.ndarray | torch.Tensor,
    original_max_len: int,
    max_len: int,
    seq_len: int | None = None,
) -> tuple[torch.Tensor, float]:
    """LongRoPE (Ding et al., 2024): one rescale factor per pair, a short set and
    a long set, switched at the original length, and an attention factor.

    Equation, with ``lambda_i`` the factors of the set in use and ``L = original_max_len``::

        theta'_i = theta_i / lambda_i            (theta_i = base^(-2i/d))
        lambda = long_factor   if seq_len > L,   else short_factor
        attention_factor = sqrt(1 + ln s / ln L) if s = max_len / L > 1,   else 1

    The factors are not a formula of ``s``: LongRoPE finds them by a search
    for each model, and a model's config lists them (``rope_parameters``'
    ``short_factor`` and ``long_factor`` in transformers). The abstract of Ding
    et al. (2024, "LongRoPE: Extending LLM Context Window Beyond 2 Million
    Tokens", arXiv 2402.13753) names an efficient search that exploits
    non-uniformities in positional interpolation, and a readjustment on 8k
    length to recover the short context window's performance; in
    transformers, inputs within ``L`` use the short set. The other
    non-uniformity of LongRoPE, leaving the first ``n-hat`` positions
    uninterpolated (microsoft/LongRoPE's ``MixedLongRoPEScaledRotaryEmbedding``
    in ``rope/longrope.py`` copies RoPE's own cos and sin into the first
    ``start_token_idx`` positions), is left out by transformers' ``longrope``
    and by this function: every position gets the same factors. The attention factor
    depends on ``max_len`` only, so short inputs get it too; it is the default
    ``"su"`` policy (``_calc_mscale_su``) of microsoft/LongRoPE's
    ``rope/longrope.py``.

    This is transformers' rope type ``"longrope"``
    (``_compute_longrope_parameters`` in ``modeling_rope_utils.py``,
    transformers 5.24.0) as ``Phi3Config`` sets it up (its old rope types
    ``"su"`` and ``"yarn"`` become ``"longrope"``): no ``factor`` or
    ``attention_factor`` in ``rope_parameters``, so that ``s`` is
    ``max_position_embeddings / original_max_position_embeddings``, the
    ratio that the function's own comment says Phi-3 uses. Its
    ``seq_len`` picks the long set only when given and larger than ``L``, as
    here. The model's forward does not pass it the input length: its
    ``longrope_frequency_update`` (in ``dynamic_rope_update``) computes
    ``seq_len = max(position_ids) + 1``, builds the long set once by calling
    the function with ``seq_len = L + 1``, and chooses per call with
    ``torch.where(seq_len > L, long_inv_freq, original_inv_freq)``, the
    short set being the one built without ``seq_len``. transformers computes in float32, the
    book in float64. With ``partial_rotary_factor < 1`` transformers forms the
    frequencies over the rotated width, which is ``d_model`` here.

    Args:
        d_model: the rotated width ``d`` (head width), positive and even.
        base: RoPE's base (> 1).
        short_factor, long_factor: ``d/2`` finite factors > 0 each (a
            sequence of numbers, a 1-D real NumPy array as microsoft/LongRoPE
            stores them, or a 1-D real tensor); ``lambda_i = 1`` keeps pair
            ``i``, ``lambda_i = s`` interpolates it like PI.
        original_max_len: the trained length ``L`` (>= 2 when ``max_len > L``).
        max_len: the extended length ``L'`` (>= ``L``); it sets ``s = L' / L``.
        seq_len: the current input length; ``None`` (or ``<= L``) uses the short set.

    Returns:
        ``(frequencies, attention_factor)``: float64 ``(d/2,)`` and a float
        that multiplies queries and keys (transformers scales cos and sin by it).

    Raises:
        TypeError: for non-integer lengths or non-numeric factors.
        ValueError: for a bad ``d_model`` or ``base``, factors of the wrong
            length or not finite and > 0, factors so small that a frequency
            ``theta_i / lambda_i`` overflows to infinity (in either set),
            non-positive lengths, ``max_len < original_max_len``, or
            ``original_max_len = 1`` with ``max_len > 1``.
    """
    d_model = check_even("d_model", d_model)
    theta = frequencies(d_model, base=base)
    short = _check_factors("short_factor", short_factor, theta)
    long = _check_factors("long_factor", long_factor, theta)
    original_max_len = check_positive_int("original_max_len", original_max_len)
    max_len = check_positive_int("max_len", max_len)
    if max_len < original_max_len:
        raise ValueError(
            f"max_len must be >= original_max_len = {original_max_len} (LongRoPE extends the context), got {max_len}"
        )
    if seq_len is not None:
        seq_len = check_positive_int("seq_len", seq_len)
    attention_factor = _longrope_attention_factor(max_len / original_max_len, original_max_len)
    factors = long if seq_len is not None and seq_len > original_max_len else short
    return theta / factors, attention_factor


# --- one registry, in the shape of transformers' ROPE_INIT_FUNCTIONS ---------

Rule = Callable[..., tuple[torch.Tensor, float]]


def turned_pairs(d_model: int, *, original_max_len: int, base: float = 10000.0) -> int:
    """How many RoPE pairs make at least one full turn within the training
    length ``L = original_max_len``: pair ``i`` does when its wavelength
    ``2 pi / theta_i`` (``theta_i = base^(-2i/d)``) is at most ``L``, that is
    when it makes ``r_i = L theta_i / 2 pi >= 1`` turns (the ``r`` of YaRN,
    Peng et al. 2024, section 3.2). Wavelengths grow with ``i``, so these are
    pairs ``0 .. c - 1`` and the returned ``c`` is the first pair that never
    completes a turn within ``L`` (``d/2`` if every pair does).

    Closed form: ``c = floor(d ln(L / 2 pi) / (2 ln base)) + 1``, clipped to
    ``[0, d/2]`` (the fractional pair with exactly one turn is
    ``_pair_with_turns(1, ...)``, YaRN's ``alpha = 1`` boundary); the count
    is taken from the wavelengths themselves, in float64, so that it also
    holds at the boundary.

    Raises:
        ValueError: for an odd ``d_model``, a non-positive ``original_max_len``
            or a bad ``base``.
    """
    original_max_len = check_positive_int("original_max_len", original_max_len)
    wavelengths = 2 * math.pi / frequencies(d_model, base=base)
    return int((wavelengths <= original_max_len).sum())


def _unchanged(d_model: int, *, scale: float, original_max_len: int, base: float = 10000.0):
    _check_scale(scale)
    check_positive_int("original_max_len", original_max_len)
    return frequencies(d_model, base=base), 1.0


def _pi(d_model: int, *, scale: float, original_max_len: int, base: float = 10000.0):
    check_positive_int("original_max_len", original_max_len)
    return pi_frequencies(d_model, scale=scale, base=base), 1.0


def _ntk(d_model: int, *, scale: float, original_max_len: int, base: float = 10000.0):
    check_positive_int("original_max_len", original_max_len)
    return ntk_frequencies(d_model, scale=scale, base=base), 1.0


def _yarn(d_model: int, *, scale: float, original_max_len: int, base: float = 10000.0):
    return yarn_frequencies(d_model, scale=scale, original_max_len=original_max_len, base=base)


def _llama31(d_model: int, *, scale: float, original_max_len: int, base: float = 10000.0):
    return llama3_frequencies(d_model, base=base, factor=scale, original_max_len=original_max_len), 1.0


def _longrope(d_model: int, *, scale: float, original_max_len: int, base: float = 10000.0):
    """LongRoPE at ``L' = s L`` with the factors its search starts from (see ``RULES``)."""
    scale = _check_scale(scale)
    gamma = yarn_ramp(d_model, original_max_len=original_max_len, base=base)  # alpha = 1, beta = 32, the code's ramp
    theta = frequencies(d_model, base=base)
    if scale == 1.0:  # L' = L: the short set, all 1
        return theta, 1.0
    factors = scale * (1 - gamma) + gamma
    return theta / factors, _longrope_attention_factor(scale, original_max_len)


RULES: dict[str, Rule] = {
    "unchanged": _unchanged,
    "PI": _pi,
    "NTK-aware": _ntk,
    "YaRN": _yarn,
    "Llama 3.1": _llama31,
    "LongRoPE": _longrope,
}
"""Rule name -> ``f(d_model, *, scale, original_max_len, base=10000.0)``
returning ``(frequencies, attention_factor)`` (float64 ``(d/2,)`` and a float
that multiplies queries and keys) for a context ``L' = s L``. Each rule runs
with its library defaults (YaRN: the code's ramp, alpha = 1, beta = 32; Llama
3.1: low 1, high 4 and ``factor = scale``). ``"unchanged"`` is RoPE itself
(transformers' ``"default"``). Dynamic NTK is not a fixed rule (its scale
follows the input length); at length ``n = s L`` its book form equals
``"NTK-aware"`` at ``s``.

``"LongRoPE"`` needs factors that a search finds for each model, which a rule
of ``s`` alone cannot know. Its entry uses the factors that
microsoft/LongRoPE's search starts from when given none
(``evolution/search.py``, with its Llama settings ``beta_fast = 32``,
``beta_slow = 1``): YaRN's blend weight ``gamma_i`` (``yarn_ramp``) applied to
the factor instead of the frequency, ``lambda_i = s (1 - gamma_i) +
gamma_i``, so pairs that YaRN keeps keep their frequency (``lambda_i = 1``)
and pairs that YaRN interpolates are divided by ``s``, but a blended pair gets
``theta_i / lambda_i``, not YaRN's ``(1 - gamma_i) theta_i / s + gamma_i
theta_i``. Then ``longrope_frequencies`` with these long factors, short
factors all 1, ``max_len = s L`` and ``seq_len = s L``: the long set for ``s >
1`` with the attention factor ``sqrt(1 + ln s / ln L)``, RoPE unchanged for
``s = 1``. The entry always uses the long set, at every input length, whereas
a transformers ``longrope`` model uses the short set for inputs whose
``max(position_ids) + 1 <= L``. A released model's searched factors differ;
pass them to ``longrope_frequencies``."""

TRANSFORMERS_ROPE_TYPES: dict[str, str] = {
    "unchanged": "default",
    "PI": "linear",
    "YaRN": "yarn",
    "Llama 3.1": "llama3",
    "LongRoPE": "longrope",
}
"""The ``rope_type`` of transformers' ``ROPE_INIT_FUNCTIONS`` that computes the
same as each rule of ``RULES`` (NTK-aware has none: it is ``"dynamic"`` at
``n = s L`` with factor 1, or a plain change of ``rope_theta``; ``"LongRoPE"``
is ``"longrope"`` given the rule's factors). transformers' other types are
``"dynamic"`` (``dynamic_ntk_frequencies``, ``form="transformers"``) and
``"proportional"`` (``book.encodings.proportional_frequencies``), which
changes which pairs turn rather than stretching the context."""
