"""Seed-level significance for the benchmark's comparisons: exact permutation tests.

Chapter 8 sets each statement's margin from how far a rerun on other CPU
kernels moved the results. That measures the arithmetic, not the seeds: with
five seeds a scheme's mean can lead by chance alone. These tests ask how
often a lead at least as large as the one measured would arise if the two
schemes' per-seed scores were exchangeable, counting every rearrangement
exactly: a randomisation test, which assumes nothing about the scores'
distribution, only that under the null hypothesis the labels could be
swapped.
"""

from __future__ import annotations

import itertools
import math
import numbers
from fractions import Fraction
from typing import Any, Sequence

from ._validate import check_choice, check_positive_int

__all__ = ["permutation_p", "smallest_p", "benjamini_hochberg", "MAX_ARRANGEMENTS"]

#: The most rearrangements ``permutation_p`` enumerates (``C(n + m, n)``
#: unpaired, ``2**n`` paired); larger samples raise a ``ValueError``.
MAX_ARRANGEMENTS = 1_000_000


def _scores(name: str, values: Any) -> list[float]:
    """``values`` as a list of finite floats (one per seed), else a clear error."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise TypeError(f"{name} must be a sequence of numbers (one per seed), got {type(values).__name__}")
    out = []
    for i, v in enumerate(values):
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise TypeError(f"{name}[{i}] must be a real number, got {type(v).__name__} {v!r}")
        if not math.isfinite(float(v)):
            raise ValueError(f"{name}[{i}] must be finite, got {v!r}")
        out.append(float(v))
    if not out:
        raise ValueError(f"{name} must hold at least one score, got an empty sequence")
    return out


def _arrangements(n_first: int, n_second: int, paired: bool) -> int:
    return 2**n_first if paired else math.comb(n_first + n_second, n_first)


def permutation_p(
    first: Sequence[float], second: Sequence[float], *, paired: bool = False, alternative: str = "greater"
) -> float:
    """Exact p-value for ``mean(first) > mean(second)`` (``alternative="greater"``)
    or for the two means differing (``alternative="two-sided"``).

    Unpaired (the default): the scores of both samples are pooled, and every
    one of the ``C(n + m, n)`` ways to split them into groups of the two sizes
    is counted; the p-value is the fraction of splits whose difference of
    means is at least the observed one (the two-sample randomisation test
    on the difference of means). Exchangeability is the null hypothesis: the
    test treats each seed's score as an independent draw.

    Paired (``paired=True``): ``first[i]`` and ``second[i]`` share seed
    ``i`` (in the benchmark, one seed fixes the training batches and the test
    inputs for every scheme); each of the ``2**n`` ways to flip the signs of
    the differences is counted (the paired randomisation test).

    Two-sided, an arrangement counts when the absolute difference of its
    means is at least the observed one's: the test to use when the direction
    of a comparison was chosen after seeing the data (for two samples of one
    size it is twice the one-sided p-value, at most 1).

    The observed arrangement is one of those counted, so the p-value is never
    below ``smallest_p``: ``1/C(n + m, n)`` (1/252 for 5 seeds against 5), or
    ``1/2**n`` paired (1/32 for 5 seeds). Differences equal to the observed
    one up to ``1e-12`` of the scores' scale count as "at least as large".

    Args:
        first: one score per seed of the scheme claimed ahead.
        second: one score per seed of the other scheme (as many as
            ``first`` when ``paired``).
        paired: sign-flip test on per-seed differences instead.
        alternative: ``"greater"`` (one-sided) or ``"two-sided"``.

    Returns:
        The p-value, in ``(0, 1]``.

    Raises:
        TypeError: a sample that is not a sequence of real numbers.
        ValueError: ``alternative`` not one of the two, an empty sample, a score that is NaN or infinite, samples
            of different sizes with ``paired=True``, or more than
            ``MAX_ARRANGEMENTS`` arrangements to count.
    """
    a, b = _scores("first", first), _scores("second", second)
    if not isinstance(paired, bool):
        raise TypeError(f"paired must be True or False, got {type(paired).__name__} {paired!r}")
    alternative = check_choice("alternative", alternative, ("greater", "two-sided"))
    two = alternative == "two-sided"
    if paired and len(a) != len(b):
        raise ValueError(f"paired=True needs one score per seed in both: first has {len(a)}, second has {len(b)}")
    total = _arrangements(len(a), len(b), paired)
    if total > MAX_ARRANGEMENTS:
        raise ValueError(
            f"first and second give {total:,} arrangements, more than MAX_ARRANGEMENTS ({MAX_ARRANGEMENTS:,}) "
            "to count exactly"
        )
    scale = max(abs(v) for v in a + b) or 1.0
    tol = 1e-12 * scale
    if paired:
        diffs = [x - y for x, y in zip(a, b)]
        observed = abs(sum(diffs)) if two else sum(diffs)
        hits = sum(
            (abs(t) if two else t) >= observed - tol * len(diffs)
            for t in (
                sum(s * d for s, d in zip(signs, diffs)) for signs in itertools.product((1.0, -1.0), repeat=len(diffs))
            )
        )
    else:
        pool, n = a + b, len(a)
        whole = sum(pool)

        def lead(chosen: float) -> float:  # mean of the chosen minus mean of the rest
            return chosen / n - (whole - chosen) / len(b)

        observed = abs(lead(sum(a))) if two else lead(sum(a))
        hits = sum(
            (abs(t) if two else t) >= observed - tol
            for t in (lead(sum(pool[i] for i in idx)) for idx in itertools.combinations(range(len(pool)), n))
        )
    return float(Fraction(hits, total))


def smallest_p(n_first: int, n_second: int, *, paired: bool = False) -> float:
    """The smallest p-value ``permutation_p`` can return for samples of these
    sizes: ``1/C(n_first + n_second, n_first)``, or ``1/2**n_first`` paired.

    Raises:
        TypeError: a size that is not an integer, or ``paired`` not a bool.
        ValueError: a size below 1, or sizes that differ with ``paired=True``.
    """
    if not isinstance(paired, bool):
        raise TypeError(f"paired must be True or False, got {type(paired).__name__} {paired!r}")
    n, m = check_positive_int("n_first", n_first), check_positive_int("n_second", n_second)
    if paired and n != m:
        raise ValueError(f"paired=True needs n_first == n_second, got {n} and {m}")
    return 1.0 / _arrangements(n, m, paired)


def benjamini_hochberg(p_values: Sequence[float], *, q: float = 0.05) -> list[bool]:
    """Which of many p-values the Benjamini-Hochberg step-up procedure rejects
    at false discovery rate ``q``.

    With the ``m`` p-values sorted, ``p_(1) <= ... <= p_(m)``, let ``k`` be the
    largest ``i`` with ``p_(i) <= i q / m``; the hypotheses of ``p_(1)`` to
    ``p_(k)`` are rejected (none if there is no such ``i``). Benjamini and
    Hochberg (1995) show that this keeps the expected share of false
    rejections at most ``q`` for independent p-values; Benjamini and
    Yekutieli (2001) extend it to positively dependent ones. Unlike a
    family-wise correction (Bonferroni's ``q / m`` for every p-value), it does
    not ask every single rejection to be safe.

    Returns:
        One ``bool`` per p-value, in the order given: ``True`` where rejected.

    Raises:
        TypeError: ``p_values`` not a sequence of real numbers, or ``q`` not a number.
        ValueError: an empty sequence, a p-value outside ``[0, 1]``, or ``q``
            outside ``(0, 1)``.
    """
    ps = _scores("p_values", p_values)
    if any(not 0.0 <= p <= 1.0 for p in ps):
        raise ValueError(f"p_values must lie in [0, 1], got {min(ps)} to {max(ps)}")
    if isinstance(q, bool) or not isinstance(q, numbers.Real):
        raise TypeError(f"q must be a real number, got {type(q).__name__} {q!r}")
    if not 0.0 < float(q) < 1.0:
        raise ValueError(f"q must lie strictly between 0 and 1, got {q}")
    m = len(ps)
    order = sorted(range(m), key=lambda i: ps[i])
    k = max((rank for rank, i in enumerate(order, 1) if ps[i] <= rank * float(q) / m), default=0)
    rejected = set(order[:k])
    return [i in rejected for i in range(m)]
