"""Exact permutation tests: hand cases, an independent brute force, bad input."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from book import significance
from book.significance import permutation_p, smallest_p


def brute_unpaired(a, b):
    """Every permutation of the pooled labels (not just the combinations), in Fractions."""
    pool = [Fraction(x) for x in a + b]
    n = len(a)
    observed = sum(pool[:n]) / n - sum(pool[n:]) / len(b)
    hits = total = 0
    for order in itertools.permutations(range(len(pool))):
        x = [pool[i] for i in order[:n]]
        y = [pool[i] for i in order[n:]]
        total += 1
        hits += sum(x) / n - sum(y) / len(b) >= observed
    return hits / total


def brute_paired(a, b):
    diffs = [Fraction(x) - Fraction(y) for x, y in zip(a, b)]
    observed = sum(diffs)
    signs = list(itertools.product((1, -1), repeat=len(diffs)))
    return Fraction(sum(sum(s * d for s, d in zip(sg, diffs)) >= observed for sg in signs), len(signs))


def test_complete_separation_gives_the_smallest_p():
    ahead, behind = [0.9, 0.8, 0.85, 0.95, 0.7], [0.1, 0.2, 0.3, 0.15, 0.25]
    assert permutation_p(ahead, behind) == pytest.approx(1 / 252)
    assert permutation_p(ahead, behind, paired=True) == pytest.approx(1 / 32)
    assert smallest_p(5, 5) == pytest.approx(1 / math.comb(10, 5))
    assert smallest_p(5, 5, paired=True) == pytest.approx(1 / 32)
    assert permutation_p(behind, ahead) == 1.0  # the other way round: every split is at least as large


def test_hand_case_with_a_tie_counts_the_tie():
    # pooled {1, 2, 3, 4}, first = {3, 4}: splits {3,4} and... only it reaches a lead of 2
    assert permutation_p([3, 4], [1, 2]) == pytest.approx(1 / 6)
    # first = {1, 4} against {2, 3}: lead 0; splits with lead >= 0: {1,4},{2,3},{2,4},{3,4} -> 4 of 6
    assert permutation_p([1, 4], [2, 3]) == pytest.approx(4 / 6)


def test_identical_samples_give_p_one():
    assert permutation_p([0.5] * 4, [0.5] * 4) == 1.0
    assert permutation_p([0.5] * 4, [0.5] * 4, paired=True) == 1.0


def test_float_noise_does_not_break_a_tie():
    # 0.1 + 0.2 differs from 0.3 in the last bit: the two arrangements still tie
    assert permutation_p([0.1 + 0.2, 0.0], [0.3, 0.0]) == permutation_p([0.3, 0.0], [0.1 + 0.2, 0.0])


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(0, 20), min_size=1, max_size=3),
    st.lists(st.integers(0, 20), min_size=1, max_size=3),
)
def test_unpaired_equals_brute_force_over_all_permutations(a, b):
    scaled_a, scaled_b = [x / 20 for x in a], [x / 20 for x in b]
    expected = brute_unpaired([Fraction(x, 20) for x in a], [Fraction(x, 20) for x in b])
    assert permutation_p(scaled_a, scaled_b) == pytest.approx(float(expected), abs=1e-15)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 20), st.integers(0, 20)), min_size=1, max_size=6))
def test_paired_equals_brute_force_over_all_sign_flips(pairs):
    a = [x / 20 for x, _ in pairs]
    b = [y / 20 for _, y in pairs]
    expected = brute_paired([Fraction(x, 20) for x, _ in pairs], [Fraction(y, 20) for _, y in pairs])
    assert permutation_p(a, b, paired=True) == pytest.approx(float(expected), abs=1e-15)


def test_a_wrong_count_of_arrangements_fails_the_brute_force(monkeypatch):
    # counting strictly larger leads only (dropping the observed arrangement) must disagree
    a, b = [0.9, 0.8, 0.7], [0.1, 0.2, 0.3]
    honest = permutation_p(a, b)
    monkeypatch.setattr(significance, "_arrangements", lambda n, m, paired: 2 * math.comb(n + m, n))
    assert permutation_p(a, b) != pytest.approx(float(brute_unpaired(a, b)))
    assert honest == pytest.approx(float(brute_unpaired(a, b)))


def test_the_benchmark_sizes_stay_cheap():
    # 10 seeds against 10: 184,756 splits, under the cap
    assert math.comb(20, 10) <= significance.MAX_ARRANGEMENTS
    assert permutation_p(list(range(10, 20)), list(range(10))) == pytest.approx(1 / math.comb(20, 10))


@pytest.mark.parametrize(
    ("first", "second", "kwargs", "error", "match"),
    [
        ("0.5", [0.1], {}, TypeError, "first must be a sequence"),
        ([0.5], 3, {}, TypeError, "second must be a sequence"),
        ([0.5, None], [0.1], {}, TypeError, r"first\[1\] must be a real number"),
        ([True], [0.1], {}, TypeError, r"first\[0\] must be a real number"),
        ([0.5], [float("nan")], {}, ValueError, r"second\[0\] must be finite"),
        ([0.5], [float("inf")], {}, ValueError, r"second\[0\] must be finite"),
        ([], [0.1], {}, ValueError, "first must hold at least one score"),
        ([0.5, 0.6], [0.1], {"paired": True}, ValueError, "paired=True needs one score per seed"),
        ([0.5], [0.1], {"paired": 1}, TypeError, "paired must be True or False"),
        (list(range(13)), list(range(13)), {}, ValueError, "more than MAX_ARRANGEMENTS"),
        (list(range(21)), list(range(21)), {"paired": True}, ValueError, "more than MAX_ARRANGEMENTS"),
    ],
)
def test_bad_input_names_the_parameter(first, second, kwargs, error, match):
    with pytest.raises(error, match=match):
        permutation_p(first, second, **kwargs)


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        ((0, 5), {}, ValueError, "n_first must be a positive integer"),
        ((5, 2.5), {}, TypeError, "n_second must be an integer"),
        ((5, 4), {"paired": True}, ValueError, "paired=True needs n_first == n_second"),
        ((5, 5), {"paired": "yes"}, TypeError, "paired must be True or False"),
    ],
)
def test_smallest_p_bad_input(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        smallest_p(*args, **kwargs)


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.integers(0, 20), min_size=1, max_size=3),
    st.lists(st.integers(0, 20), min_size=1, max_size=3),
)
def test_two_sided_counts_absolute_leads_over_all_permutations(a, b):
    pool = [Fraction(x, 20) for x in a + b]
    n = len(a)
    observed = abs(sum(pool[:n]) / n - sum(pool[n:]) / len(b))
    leads = [
        abs(sum(pool[i] for i in order[:n]) / n - sum(pool[i] for i in order[n:]) / len(b))
        for order in itertools.permutations(range(len(pool)))
    ]
    expected = sum(lead >= observed for lead in leads) / len(leads)
    got = permutation_p([x / 20 for x in a], [x / 20 for x in b], alternative="two-sided")
    assert got == pytest.approx(float(expected), abs=1e-15)


def test_two_sided_is_twice_one_sided_for_equal_sizes_and_separated_samples():
    ahead, behind = [0.9, 0.8, 0.85, 0.95, 0.7], [0.1, 0.2, 0.3, 0.15, 0.25]
    assert permutation_p(ahead, behind, alternative="two-sided") == pytest.approx(2 / 252)
    assert permutation_p(behind, ahead, alternative="two-sided") == pytest.approx(2 / 252)
    assert permutation_p(ahead, behind, paired=True, alternative="two-sided") == pytest.approx(2 / 32)
    with pytest.raises(ValueError, match="alternative must be one of"):
        permutation_p(ahead, behind, alternative="less")


def test_benjamini_hochberg_rejects_up_to_the_largest_rank_under_its_line():
    # p sorted: 0.001 0.0025 0.01 0.02 0.05 0.5 0.69; lines i * 0.05 / 7: 0.0071 0.0143 0.0214 0.0286 0.0357 ...
    ps = [0.50, 0.01, 0.001, 0.69, 0.02, 0.05, 0.0025]
    assert benjamini_hochberg_list(ps) == [False, True, True, False, True, False, True]
    # step-up: a p-value above its own line is rejected when a larger rank is under its line
    assert benjamini_hochberg_list([0.04, 0.04]) == [True, True]
    assert benjamini_hochberg_list([0.03, 0.9]) == [False, False]
    assert benjamini_hochberg_list([0.01] * 63) == [True] * 63


def benjamini_hochberg_list(ps):
    return significance.benjamini_hochberg(ps, q=0.05)


@pytest.mark.parametrize(
    ("ps", "q", "error", "match"),
    [
        ([], 0.05, ValueError, "p_values must hold at least one score"),
        ([0.5, 1.5], 0.05, ValueError, r"p_values must lie in \[0, 1\]"),
        ([0.5, -0.1], 0.05, ValueError, r"p_values must lie in \[0, 1\]"),
        ("0.5", 0.05, TypeError, "p_values must be a sequence"),
        ([0.5], 0.0, ValueError, "q must lie strictly between 0 and 1"),
        ([0.5], 1.0, ValueError, "q must lie strictly between 0 and 1"),
        ([0.5], "0.05", TypeError, "q must be a real number"),
        ([0.5], True, TypeError, "q must be a real number"),
    ],
)
def test_benjamini_hochberg_bad_input(ps, q, error, match):
    with pytest.raises(error, match=match):
        significance.benjamini_hochberg(ps, q=q)
