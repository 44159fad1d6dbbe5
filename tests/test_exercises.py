"""book.exercises: each self-check passes a right answer and gives a wrong one its hint."""

from __future__ import annotations

import math

import numpy as np
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
        (np.array(2 * math.pi / W3), True, "Correct!"),
        (np.array([2 * math.pi / W3]), True, "Correct!"),
        (np.float64(2 * math.pi / W3), True, "Correct!"),
        (np.array([1.0, 2.0]), False, "one number"),
        (np.array(True), False, "one number"),
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


# Chapters 1-4: a student's answer never makes a check raise; it gets a hint and False.
CH1_4_CHECKS = {
    "permutation": lambda a: exercises.check_permutation_matrix(a, [2, 0, 3, 1]),
    "wavelength": lambda a: exercises.check_wavelength(a, i=3, d_model=64),
    "rotation_block": lambda a: exercises.check_rotation_block(a, k=7, i=2, d_model=16),
    "sine_residual": lambda a: exercises.check_sine_only_residual(a, k=3, d_model=32, n_positions=40_000),
    "attend_back": lambda a: exercises.check_attend_back_matrix(a, j=4, d_model=32, layout="concat"),
    "log_decay": lambda a: exercises.check_log_decay_drop(a, d_model=64),
    "closest": lambda a: exercises.check_closest_position(a, d_model=8, max_position=1000),
}
BAD_ANSWERS = [float("nan"), float("inf"), -float("inf"), "abc", "63", None, [1, 2], [[1, [2]], [3]],
               torch.tensor(float("nan")), torch.full((4, 4), float("nan")), torch.full((2, 2), float("inf")),
               torch.full((32, 32), float("nan")), torch.zeros(3, 3, 3), 1 + 2j, object(),
               np.array(float("nan")), np.array("63"), np.array(None), np.array(1 + 2j)]


@pytest.mark.parametrize("make", [np.asarray, torch.as_tensor], ids=["numpy", "torch"])
def test_matrix_checks_refuse_complex_entries(capsys, make):
    p = make(torch.eye(4, dtype=torch.float64)[[2, 0, 3, 1]].numpy() + 0.5j)
    assert not exercises.check_permutation_matrix(p, [2, 0, 3, 1])
    w2 = 10000 ** (-2 * 2 / 16)
    assert not exercises.check_rotation_block(make(np.array(_block(7 * w2)) + 0.5j), k=7, i=2, d_model=16)
    assert not exercises.check_attend_back_matrix(make(np.zeros((32, 32)) + 1j), j=4, d_model=32)
    assert capsys.readouterr().out.count("complex entries") == 3


@pytest.mark.parametrize("name", list(CH1_4_CHECKS))
@pytest.mark.parametrize("answer", BAD_ANSWERS, ids=[repr(a)[:20] for a in BAD_ANSWERS])
def test_chapter_1_to_4_checks_never_raise_on_an_answer(capsys, name, answer):
    assert CH1_4_CHECKS[name](answer) is False
    assert "Not yet." in capsys.readouterr().out


@pytest.mark.parametrize("answer", [63, 63.0, torch.tensor(63), torch.tensor([63.0]), 63 + 1e-12,
                                    np.array(63), np.array([63.0]), np.int64(63)])
def test_closest_position_accepts_every_form_of_the_number(capsys, answer):
    assert exercises.check_closest_position(answer, 8, 1000)
    out = capsys.readouterr().out
    assert "pair 0 10.027" in out and "pair 1 1.003" in out    # 63 is close to 20 pi: two pairs come round


def test_closest_position_names_the_off_by_one(capsys):
    assert not exercises.check_closest_position(62, 8, 1000)
    assert "Add 1 back" in capsys.readouterr().out


def test_close_slips_get_their_own_hint(capsys):
    assert not exercises.check_wavelength(2 * 3 / W3, 3, 64)                    # pi rounded to 3
    assert "math.pi" in capsys.readouterr().out
    assert not exercises.check_wavelength(2 * math.pi * 10000 ** (4 / 64), 3, 64)
    assert "pair 2" in capsys.readouterr().out
    assert not exercises.check_rotation_block([[round(v, 3) for v in row] for row in _block(7 * W2)], 7, 2, 16)
    assert "rounded digits" in capsys.readouterr().out
    assert not exercises.check_log_decay_drop(8.3, d_model=64)                  # a measured drop
    assert "exact sum" in capsys.readouterr().out


def test_equivalent_answers_are_accepted(capsys):
    perm = torch.eye(4, dtype=torch.float32)[[2, 0, 3, 1]] * (1 - 1e-8)       # float rounding of 1
    assert exercises.check_permutation_matrix(perm, [2, 0, 3, 1])
    assert exercises.check_permutation_matrix(torch.eye(4, dtype=torch.bool)[[2, 0, 3, 1]], [2, 0, 3, 1])
    assert exercises.check_rotation_block(_block(7 * W2 + 2 * math.pi), 7, 2, 16)   # the same angle
    assert exercises.check_rotation_block(torch.tensor(_block(7 * W2), dtype=torch.float32), 7, 2, 16)
    capsys.readouterr()


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
        (1023 * 1600, False, "One row off"),
        (1025 * 1600, False, "One row off"),
        (4 * 1024 * 1600, False, "bytes"),
        (1024 * 1600 + 0.5, False, "whole number"),
        (1.6384e6, True, "Correct!"),
        (torch.tensor(1024 * 1600), True, "Correct!"),
        (np.array([1024 * 1600]), True, "Correct!"),
        (torch.tensor([1024 * 1600]), True, "Correct!"),
        ([1024 * 1600], True, "Correct!"),
        ((1024 * 1600,), True, "Correct!"),
        ([1024 * 1600, 1], False, "several numbers"),
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
        (math.fmod(100 * THETA8, 2 * math.pi), True, "same rotation"),         # 10 mod 2 pi
        (100 * THETA8 - 4 * math.pi, True, "same rotation"),
        (100 * THETA8 + 2 * math.pi * 1000, True, "Correct!"),
        (torch.tensor(100 * THETA8), True, "Correct!"),
        (-100 * THETA8, False, "wrong sign"),
        (math.degrees(100 * THETA8) - 360, False, "degrees"),
        (10.003, False, "more digits"),
        (float("nan"), False, "not a finite angle"),
        (float("inf"), False, "not a finite angle"),
    ],
)
def test_rope_angle_hints(capsys, answer, ok, hint):
    assert exercises.check_rope_angle(answer, 100, 8, 64) is ok
    assert hint in capsys.readouterr().out


@pytest.mark.parametrize(
    "answer,m,i,ok,hint",
    [
        (3.3e6, 10, 0, False, "Start from theta_i"),                  # large answers are not every angle
        (12345678.9, 10, 0, False, "Start from theta_i"),
        (1e7 + 0.5, 10, 0, False, "Start from theta_i"),
        (1e300, 10, 0, False, "too large to name an angle"),
        (1e12, 10, 0, False, "too large to name an angle"),
        (10 + 2 * math.pi * 10**5, 10, 0, True, "same rotation"),      # 10 rad plus 100,000 turns
        (1000 / 10000 ** (-62 / 64), 1000, 31, False, "don't divide"),  # m / theta_i = 7.50e6
        (1000 * 10000 ** (-62 / 64), 1000, 31, True, "Correct!"),
    ],
)
def test_rope_angle_large_answers(capsys, answer, m, i, ok, hint):
    assert exercises.check_rope_angle(answer, m, i, 64) is ok
    assert hint in capsys.readouterr().out.replace("\n", " ")


SIX = [2**-2, 2**-4, 2**-6, 2**-8, 2**-1, 2**-3]


@pytest.mark.parametrize(
    "answer,ok,hint",
    [
        (SIX, True, "Correct!"),
        (sorted(SIX), False, "wrong order"),
        ([2 ** (-8 * h / 6) for h in range(1, 7)], False, "is the rule when n"),
        ([2.0**-h for h in range(1, 7)], False, "first 6 slopes for 8 heads"),
        ([2**-2, 2**-4, 2**-6, 2**-8, 2**-1, 2**-2], False, "every other slope"),
        ([2**-2, 2**-4, 2**-6, 2**-8, 1.0, 1.0], False, "The first 4 are right"),
        ([0.5] * 5, False, "one slope per head"),
        ([0.1] * 6, False, "Start from the 4-head slopes"),
        ("x", False, "list or tensor"),
        (torch.tensor([SIX]), True, "Correct!"),                  # nested, a tensor
        ([float("nan")] * 6, False, "NaN or infinite"),
        ([float("inf")] * 6, False, "NaN or infinite"),
    ],
)
def test_alibi_slopes_hints(capsys, answer, ok, hint):
    assert exercises.check_alibi_slopes(answer, 6) is ok
    assert hint in capsys.readouterr().out.replace("\n", " ")


def test_alibi_slopes_hints_do_not_contradict_each_other(capsys):
    """Each rule the hints name is the one the check accepts: following a hint never meets the opposite hint."""
    for n in (4, 8, 16):                                   # powers of two: 2^(-8h/n) is right
        h = torch.arange(1, n + 1, dtype=torch.float64)
        assert exercises.check_alibi_slopes(2.0 ** (-8 * h / n), n)
        if n != 8:
            assert not exercises.check_alibi_slopes(2.0**-h, n)
            assert f"2^(-8h/{n})" in capsys.readouterr().out.replace("\n", " ")
    for n in (3, 6, 12):                                   # not powers of two: 2^(-8h/n) is wrong
        h = torch.arange(1, n + 1, dtype=torch.float64)
        assert not exercises.check_alibi_slopes(2.0 ** (-8 * h / n), n)
        out = capsys.readouterr().out.replace("\n", " ")
        assert "is not" in out and "spread over" not in out
    capsys.readouterr()


CH5_7_CHECKS = {
    "table_size": lambda a: exercises.check_position_table_size(a, 1024, 1600, n_layers=48),
    "rope_angle": lambda a: exercises.check_rope_angle(a, 100, 8, 64),
    "alibi_slopes": lambda a: exercises.check_alibi_slopes(a, 6),
}


@pytest.mark.parametrize("name", list(CH5_7_CHECKS))
@pytest.mark.parametrize("answer", BAD_ANSWERS, ids=[repr(a)[:20] for a in BAD_ANSWERS])
def test_chapter_5_to_7_checks_never_raise_on_an_answer(capsys, name, answer):
    assert CH5_7_CHECKS[name](answer) is False
    assert "Not yet." in capsys.readouterr().out


def test_alibi_slopes_check_accepts_library_values_for_many_head_counts(capsys):
    for n in (1, 2, 3, 8, 12, 16, 20):
        assert exercises.check_alibi_slopes(encodings.alibi_slopes(n), n)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_alibi_slopes_accepts_half_precision_tensors(capsys, dtype):
    assert exercises.check_alibi_slopes(encodings.alibi_slopes(12).to(dtype), 12)
    assert f"right to {str(dtype)[6:]} precision" in capsys.readouterr().out.replace("\n", " ")


def test_alibi_slopes_hints_for_rounding_one_head_and_order(capsys):
    three_digits = [float(f"{v:.3g}") for v in encodings.alibi_slopes(12).tolist()]
    assert not exercises.check_alibi_slopes(three_digits, 12)
    assert "about three digits" in capsys.readouterr().out.replace("\n", " ")
    assert not exercises.check_alibi_slopes([0.5], 1)
    out = capsys.readouterr().out.replace("\n", " ")
    assert "one head" in out and "1 heads" not in out and "2^-8 = 1/256" in out
    assert not exercises.check_alibi_slopes(encodings.alibi_slopes(4).flip(0), 4)
    out = capsys.readouterr().out.replace("\n", " ")
    assert "wrong order" in out and "extra heads" not in out and "2^(-8h/4)" in out



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
