"""book.exercises: each self-check passes a right answer and gives a wrong one its hint."""

from __future__ import annotations

import math

import pytest
import torch

from book import encodings, exercises


@pytest.mark.parametrize(
    "answer,ok,hint",
    [
        ([[0, 0, 1, 0], [1, 0, 0, 0], [0, 0, 0, 1], [0, 1, 0, 0]], True, "Correct!"),
        (torch.eye(4)[[2, 0, 3, 1]].T, False, "transpose"),
        (torch.eye(4), False, "of another order"),
        ([[1, 0], [0, 1]], False, "must be 4 x 4"),
        ([[0.5, 0.5, 0, 0]] * 4, False, "0 or 1"),
        ([[1, 0, 0, 0]] * 4, False, "exactly one 1"),
        ("not a matrix", False, "Give P as"),
    ],
)
def test_permutation_matrix_check_hints(capsys, answer, ok, hint):
    assert exercises.check_permutation_matrix(answer, [2, 0, 3, 1]) is ok
    assert hint in capsys.readouterr().out



W3 = 10000 ** (-2 * 3 / 64)


@pytest.mark.parametrize(
    "answer,ok,hint",
    [
        (2 * math.pi / W3, True, "Correct!"),
        (torch.tensor(2 * math.pi / W3), True, "Correct!"),
        (1 / W3, False, "length of one radian"),
        (W3, False, "is a frequency"),
        (2 * math.pi * 10000 ** (3 / 64), False, "exponent is 2i/d"),
        (123.0, False, "Start from w_i"),
        ("14.9", False, "one number"),
    ],
)
def test_wavelength_check_hints(capsys, answer, ok, hint):
    assert exercises.check_wavelength(answer, 3, 64) is ok
    assert hint in capsys.readouterr().out



def _block(angle):
    return [[math.cos(angle), math.sin(angle)], [-math.sin(angle), math.cos(angle)]]


W2 = 10000 ** (-2 * 2 / 16)


@pytest.mark.parametrize(
    "answer,ok,hint",
    [
        (_block(7 * W2), True, "Correct!"),
        (_block(-7 * W2), False, "transpose"),
        (_block(math.radians(7 * W2)), False, "degrees"),
        (_block(7.0), False, "wrong frequency"),
        ([[1, 0], [0, 1]], False, "addition formulas"),
        ([[1, 0, 0]], False, "2 x 2"),
        (None, False, "2 x 2 tensor"),
    ],
)
def test_rotation_block_check_hints(capsys, answer, ok, hint):
    assert exercises.check_rotation_block(answer, 7, 2, 16) is ok
    assert hint in capsys.readouterr().out


@pytest.mark.parametrize(
    "answer,ok,hint",
    [(63, True, "Correct!"), (0, False, "PE(0) itself"), (1, False, "next to 0"),
     (5000, False, "1 .. 1000"), (10, False, "some position is closer"), (2.5, False, "whole position")],
)
def test_closest_position_check_hints(capsys, answer, ok, hint):
    assert exercises.check_closest_position(answer, 8, 1000) is ok
    assert hint in capsys.readouterr().out


def test_closest_position_check_knows_the_farthest(capsys):
    pe = encodings.sinusoidal_at(torch.arange(1001), 8, dtype=torch.float64)
    worst = int(torch.argmax((pe[1:] - pe[0]).norm(dim=-1))) + 1
    assert not exercises.check_closest_position(worst, 8, 1000)
    assert "farthest" in capsys.readouterr().out


@pytest.mark.parametrize(
    "answer,ok,hint",
    [
        (1024 * 1600, True, "1,638,400 parameters"),
        (1024, False, "counts the positions"),
        (1600, False, "one position's vector"),
        (1024 + 1600, False, "multiply the number of rows"),
        (1024 * 1600 * 48, False, "added once"),
        (0, False, "sinusoidal table's count"),
        (12345, False, "rows x columns"),
        ("lots", False, "whole number"),
    ],
)
def test_position_table_size_hints(capsys, answer, ok, hint):
    assert exercises.check_position_table_size(answer, 1024, 1600, n_layers=48) is ok
    assert hint in capsys.readouterr().out


THETA8 = 10000 ** (-16 / 64)


@pytest.mark.parametrize(
    "answer,ok,hint",
    [
        (100 * THETA8, True, "Correct!"),
        (math.degrees(100 * THETA8), False, "degrees"),
        (100 * 10000 ** (-8 / 64), False, "-2i/d, not -i/d"),
        (THETA8, False, "Multiply by the position"),
        (100 / THETA8, False, "don't divide"),
        (3.0, False, "Start from theta_i"),
        (None, False, "one number"),
    ],
)
def test_rope_angle_hints(capsys, answer, ok, hint):
    assert exercises.check_rope_angle(answer, 100, 8, 64) is ok
    assert hint in capsys.readouterr().out


SIX = [2**-2, 2**-4, 2**-6, 2**-8, 2**-1, 2**-3]


@pytest.mark.parametrize(
    "answer,ok,hint",
    [
        (SIX, True, "Correct!"),
        (sorted(SIX), False, "wrong order"),
        ([2 ** (-8 * h / 6) for h in range(1, 7)], False, "is the rule when n"),
        ([2.0**-h for h in range(1, 7)], False, "not 2^-h"),
        ([0.5] * 5, False, "one slope per head"),
        ([0.1] * 6, False, "Start from the 8-head slopes"),
        ("x", False, "list or tensor"),
    ],
)
def test_alibi_slopes_hints(capsys, answer, ok, hint):
    assert exercises.check_alibi_slopes(answer, 6) is ok
    assert hint in capsys.readouterr().out


def test_alibi_slopes_check_accepts_library_values_for_many_head_counts(capsys):
    for n in (1, 2, 3, 8, 12, 16, 20):
        assert exercises.check_alibi_slopes(encodings.alibi_slopes(n), n)



BAD_CALLS = [
    (lambda: exercises.check_position_table_size(1, 0, 8), ValueError, "max_len must be a positive integer"),
    (lambda: exercises.check_rope_angle(1.0, 1, 40, 64), ValueError, "i must be a pair index in 0 .. 31"),
    (lambda: exercises.check_rope_angle(1.0, float("nan"), 1, 64), ValueError, "m must be finite"),
    (lambda: exercises.check_alibi_slopes([1.0], 0), ValueError, "n_heads must be a positive integer"),
    (lambda: exercises.check_wavelength(1.0, 40, 64), ValueError, "i must be a pair index in 0 .. 31"),
    (lambda: exercises.check_wavelength(1.0, 1.5, 64), TypeError, "i must be an integer pair index"),
    (lambda: exercises.check_rotation_block([[1, 0], [0, 1]], 1, 99, 16), ValueError,
     "i must be a pair index in 0 .. 7"),
    (lambda: exercises.check_rotation_block([[1, 0], [0, 1]], float("inf"), 1, 16), ValueError, "k must be finite"),
    (lambda: exercises.check_closest_position(1, 8, 0), ValueError, "max_position must be a positive integer"),
]


@pytest.mark.parametrize("call,exc,message", BAD_CALLS, ids=[m for _, _, m in BAD_CALLS])
def test_a_wrong_call_of_a_check_raises_clearly(call, exc, message):
    """A bad argument from the teacher's side (not the student's answer) raises, naming it."""
    with pytest.raises(exc, match=message):
        call()
