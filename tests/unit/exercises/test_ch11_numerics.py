"""Chapter 11's self-checks (``book.exercises.ch11_numerics``): right answers pass, wrong ones get their hint and return False."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from book import exercises, numerics

from .answers import BAD_ANSWERS, hints_without_raising


@pytest.mark.parametrize(
    "answer,dtype,ok,hint",
    [
        (2.0**-9, torch.bfloat16, True, "8 significant bits"),
        (np.float32(2.0**-9), torch.bfloat16, True, "2^-9"),
        (torch.tensor(2.0**-12), torch.float16, True, "11 significant bits"),
        (2.0**-25, torch.float32, True, "24 significant bits"),
        (2.0**-8, torch.bfloat16, False, "whole gap"),
        (2.0**-7, torch.bfloat16, False, "finfo"),
        (2.0**-11, torch.float16, False, "whole gap"),
        (1e-3, torch.bfloat16, False, "significant bits"),
        ("2^-9", torch.bfloat16, False, "one number"),
    ],
)
def test_cache_rounding_error_hints(capsys, answer, dtype, ok, hint):
    assert exercises.check_cache_rounding_error(answer, dtype) is ok
    assert hint in capsys.readouterr().out


def test_cache_rounding_error_agrees_with_what_numerics_measures(capsys):
    worst = float(numerics.rope_cache_error(torch.arange(0, 4096, 7), 128, cache_dtype=torch.bfloat16).max())
    right = 2.0**-9
    assert right * 0.99 < worst <= right + 2.0**-25
    assert exercises.check_cache_rounding_error(right)


@pytest.mark.parametrize(
    "answer,layout,ok,hint",
    [
        (9.25, "half", True, "7 eager operations"),
        (9.25, "interleaved", True, "8 eager operations"),
        (2, "half", False, "fused kernel"),
        (2.125, "half", False, "fused kernel"),
        (9.0, "half", False, "also reads a cos or sin table"),
        (4.625, "half", False, "List the operations"),
        (None, "half", False, "one number"),
    ],
)
def test_rope_traffic_hints(capsys, answer, layout, ok, hint):
    assert exercises.check_rope_traffic(answer, layout=layout) is ok
    assert hint in capsys.readouterr().out


def test_rope_traffic_follows_the_shape(capsys):
    # one head, d = 8, n = 4: x is 128 bytes; each cos/sin table 4 * 4 * 4 = 64 bytes, half of x
    # four products, two sums, and the cat that reads both halves and writes x
    assert exercises.check_rope_traffic(4 * (0.5 + 0.5 + 0.5) + 2 * 1.5 + 2, (1, 1, 4, 8))
    assert not exercises.check_rope_traffic(9.25, (1, 1, 4, 8))


@pytest.mark.parametrize(
    "answer,ok,hint",
    [
        ((1 / 16, 2**23, 2**24), True, "reaches 1 at 2^23 = 8,388,608"),
        ([0.0625, 8388608.0, 16777216.0], True, "Correct!"),
        (torch.tensor([1 / 16, 2**23, 2**24], dtype=torch.float64), True, "Correct!"),
        (np.array([2.0**-4, 2.0**23, 2.0**24]), True, "Correct!"),
        ((1 / 16, 2**24, 2**23), False, "2^23 and 2^24 are swapped"),
        ((1 / 8, 2**23, 2**24), False, "one power of two higher"),
        ((2.0**-23, 2**23, 2**24), False, "eps"),
        ((1e6 * 2.0**-23, 2**23, 2**24), False, "scales eps by the position"),
        ((1 / 32, 2**23, 2**24), False, "half the gap"),
        ((1 / 16, 2**24, 2**24), False, "already 2"),
        ((1 / 16, 2**23, 2**24 + 1), False, "first whole number lost"),
        ((1 / 16, 2**23, 2**23), False, "own float"),
        ((1 / 16, 2**23), False, "three numbers"),
        ((1 / 16, 2**23, float("nan")), False, "finite"),
    ],
)
def test_float_gaps_hints(capsys, answer, ok, hint):
    assert exercises.check_float_gaps(answer) is ok
    assert hint in capsys.readouterr().out


def test_float_gaps_follow_the_dtype_and_the_position(capsys):
    assert exercises.check_float_gaps((2.0, 2**10, 2**11), near=3000.0, dtype=torch.float16)
    assert exercises.check_float_gaps((0.125, 2**23, 2**24), near=2**20 + 5)
    assert exercises.check_float_gaps((2.0**-33, 2**52, 2**53), near=1e6, dtype=torch.float64)
    capsys.readouterr()


@pytest.mark.parametrize("answer", BAD_ANSWERS, ids=[repr(a)[:20] for a in BAD_ANSWERS])
def test_float_gaps_never_raises_on_an_answer(capsys, answer):
    hints_without_raising(capsys, exercises.check_float_gaps, answer)


@pytest.mark.parametrize(
    "call,exc,message",
    [
        (lambda: exercises.check_float_gaps((1, 2, 3), dtype=torch.int64), TypeError, "dtype must be"),
        (lambda: exercises.check_float_gaps((1, 2, 3), near=-1.0), ValueError, "near must be"),
        (lambda: exercises.check_float_gaps((1, 2, 3), near=1e39), ValueError, "near must be below"),
        (lambda: exercises.check_cache_rounding_error(2.0**-9, torch.int8), TypeError, "dtype must be"),
        (lambda: exercises.check_rope_traffic(9.25, (1, 8, 64)), ValueError, "shape must be"),
        (lambda: exercises.check_rope_traffic(9.25, (1, 8, 64, 7)), ValueError, "d must be even"),
        (lambda: exercises.check_rope_traffic(9.25, (1, 8.0, 64, 8)), TypeError, "heads must be an integer"),
        (lambda: exercises.check_rope_traffic(9.25, layout="concat"), ValueError, "layout must be one of"),
    ],
)
def test_ch10_checks_reject_a_wrong_call(call, exc, message):
    with pytest.raises(exc, match=message):
        call()
