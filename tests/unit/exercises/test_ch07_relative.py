"""Chapter 7's self-check (``book.exercises.ch07_relative``): ALiBi's slopes."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from book import encodings, exercises

from .answers import BAD_ANSWERS, hints_without_raising, raises_clearly

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
        (torch.tensor([SIX]), True, "Correct!"),  # nested, a tensor
        ([float("nan")] * 6, False, "NaN or infinite"),
        ([float("inf")] * 6, False, "NaN or infinite"),
    ],
)
def test_alibi_slopes_hints(capsys, answer, ok, hint):
    assert exercises.check_alibi_slopes(answer, 6) is ok
    assert hint in capsys.readouterr().out.replace("\n", " ")


def test_alibi_slopes_hints_do_not_contradict_each_other(capsys):
    """Each rule the hints name is the one the check accepts: following a hint never meets the opposite hint."""
    for n in (4, 8, 16):  # powers of two: 2^(-8h/n) is right
        h = torch.arange(1, n + 1, dtype=torch.float64)
        assert exercises.check_alibi_slopes(2.0 ** (-8 * h / n), n)
        if n != 8:
            assert not exercises.check_alibi_slopes(2.0**-h, n)
            assert f"2^(-8h/{n})" in capsys.readouterr().out.replace("\n", " ")
    for n in (3, 6, 12):  # not powers of two: 2^(-8h/n) is wrong
        h = torch.arange(1, n + 1, dtype=torch.float64)
        assert not exercises.check_alibi_slopes(2.0 ** (-8 * h / n), n)
        out = capsys.readouterr().out.replace("\n", " ")
        assert "is not" in out and "spread over" not in out
    capsys.readouterr()


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


@pytest.mark.parametrize(
    "answer,ok,hint",
    [
        ((10, 26), True, "Buckets 10 and 26"),
        ([10.0, 26.0], True, "Correct!"),
        (torch.tensor([10, 26]), True, "Correct!"),
        (np.array([[10], [26]]), True, "Correct!"),
        ([26, 10], False, "swapped"),
        ([10, 10], False, "add 16"),
        ([26, 26], False, "no 16 added"),
        ([17, 0], False, "decoder"),
        ([11, 27], False, "floor"),
        ([2, 18], False, "add 8"),
        ([12, 28], False, "exact below 8"),
        ([10], False, "two buckets"),
        ([10.5, 26], False, "whole numbers"),
    ],
)
def test_t5_buckets_check_hints(capsys, answer, ok, hint):
    assert exercises.check_t5_buckets(answer, 20) is ok
    assert hint in capsys.readouterr().out


def test_t5_buckets_follow_the_library_for_other_distances(capsys):
    for distance in (1, 7, 8, 50, 127, 500):
        right = encodings.t5_relative_bucket(torch.tensor([-distance, distance])).tolist()
        assert exercises.check_t5_buckets(right, distance), distance
    capsys.readouterr()


def _read(first):
    return (1 / first - 1).round().long()


@pytest.mark.parametrize(
    "answer,ok,hint",
    [
        (_read, True, "for 24 and for 512"),
        (lambda first: (1 / first - 1).round(), True, "Correct!"),  # whole floats
        (lambda first: (1 / first - 1).round().tolist(), True, "Correct!"),  # a list
        (lambda first: (1 / first - 1).round().numpy(), True, "Correct!"),
        (lambda first: 1 / first, False, "These are i + 1"),
        (lambda first: first, False, "column itself"),
        (lambda first: 1 / first - 1, False, "round the result"),
        (lambda first: torch.arange(24), False, "chapter's length only"),
        (lambda first: torch.arange(len(first)).flip(0), False, "does not give 0, 1"),
        (lambda first: 1 / 0, False, "raised ZeroDivisionError"),
        (lambda first: None, False, "must return 24 numbers"),
        (lambda first: "0, 1, 2", False, "must return 24 numbers"),
        (lambda: 0, False, "raised TypeError"),
        (torch.arange(24), False, "Give a function"),
        (None, False, "Give a function"),
    ],
)
def test_read_positions_check_hints(capsys, answer, ok, hint):
    assert exercises.check_read_positions(answer) is ok
    assert hint in capsys.readouterr().out


def test_read_positions_calls_the_function_on_the_chapter_s_column(capsys):
    """What the function gets is causal_out[:, 0] of the chapter: 1 / (i + 1), float32."""
    seen = []

    def spy(first):
        seen.append(first)
        return _read(first)

    assert exercises.check_read_positions(spy, n_positions=24)
    assert [len(f) for f in seen] == [24, 512]
    assert seen[0].dtype == torch.float32
    torch.testing.assert_close(seen[0], 1 / torch.arange(1.0, 25))
    capsys.readouterr()


CHECKS = {
    "t5_buckets": lambda a: exercises.check_t5_buckets(a, 20),
    "read_positions": lambda a: exercises.check_read_positions(a),
    "read_positions_returns": lambda a: exercises.check_read_positions(lambda first: a),
    "alibi_slopes": lambda a: exercises.check_alibi_slopes(a, 6),
}


@pytest.mark.parametrize("name", list(CHECKS))
@pytest.mark.parametrize("answer", BAD_ANSWERS, ids=[repr(a)[:20] for a in BAD_ANSWERS])
def test_checks_never_raise_on_an_answer(capsys, name, answer):
    hints_without_raising(capsys, CHECKS[name], answer)


BAD_CALLS = [
    (lambda: exercises.check_t5_buckets([10, 26], 0), ValueError, "distance must be a positive integer"),
    (lambda: exercises.check_t5_buckets([10, 26], 20, num_buckets=31), ValueError, "num_buckets must be even"),
    (lambda: exercises.check_read_positions(_read, 0), ValueError, "n_positions must be a positive integer"),
    (lambda: exercises.check_alibi_slopes([1.0], 0), ValueError, "n_heads must be a positive integer"),
]


@pytest.mark.parametrize("call,exc,message", BAD_CALLS, ids=[m for _, _, m in BAD_CALLS])
def test_a_wrong_call_of_a_check_raises_clearly(call, exc, message):
    raises_clearly(call, exc, message)
