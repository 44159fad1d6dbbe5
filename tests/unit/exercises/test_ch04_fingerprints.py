"""Chapter 4's self-check (``book.exercises.ch04_fingerprints``): the position closest to PE(0)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from book import encodings, exercises

from .answers import BAD_ANSWERS, hints_without_raising, raises_clearly


@pytest.mark.parametrize(
    "answer,ok,hint",
    [
        (63, True, "Correct!"),
        (0, False, "PE(0) itself"),
        (1, False, "next to 0"),
        (5000, False, "1 .. 1000"),
        (10, False, "some position is closer"),
        (2.5, False, "whole position"),
    ],
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
    "answer",
    [63, 63.0, torch.tensor(63), torch.tensor([63.0]), 63 + 1e-12, np.array(63), np.array([63.0]), np.int64(63)],
)
def test_closest_position_accepts_every_form_of_the_number(capsys, answer):
    assert exercises.check_closest_position(answer, 8, 1000)
    out = capsys.readouterr().out
    assert "pair 0 10.027" in out and "pair 1 1.003" in out  # 63 is close to 20 pi: two pairs come round


def test_closest_position_names_the_off_by_one(capsys):
    assert not exercises.check_closest_position(62, 8, 1000)
    assert "Add 1 back" in capsys.readouterr().out


@pytest.mark.parametrize(
    "answer,ok,hint",
    [
        (100, True, "10000 entries, 100 different values"),
        (100.0, True, "Correct!"),
        (torch.tensor(100), True, "Correct!"),
        (10_000, False, "counts the entries"),
        (5050, False, "symmetry"),
        (199, False, "signed offsets"),
        (99, False, "diagonal"),
        (32, False, "width of the encoding"),
        (50, False, "product-to-sum"),
        ("100", False, "one whole number"),
    ],
)
def test_distinct_similarities_check_hints(capsys, answer, ok, hint):
    assert exercises.check_distinct_similarities(answer, 100, 32) is ok
    assert hint in capsys.readouterr().out


def test_distinct_similarities_counts_the_matrix(capsys):
    """The count is the matrix's, not N typed in: for other sizes too."""
    for n, d in ((10, 8), (37, 16)):
        t = encodings.sinusoidal_at(torch.arange(n), d, dtype=torch.float64)
        count = len({round(v, 9) for v in (t @ t.T).flatten().tolist()})
        assert count == n
        assert exercises.check_distinct_similarities(count, n, d)
    capsys.readouterr()


@pytest.mark.parametrize(
    "answer,dtype,ok,hint",
    [
        (2**24, torch.float32, True, "16,777,216 is exact"),
        (16_777_216.0, torch.float32, True, "24 significant bits"),
        (torch.tensor(2.0**24), torch.float32, True, "Correct!"),
        (np.array([2**24]), torch.float32, True, "Correct!"),
        (2**23, torch.float32, False, "That is 2^23"),
        (2**24 + 1, torch.float32, False, "first whole number lost"),
        (2**24 - 1, torch.float32, False, "still apart"),
        (2**53, torch.float32, False, "limit of float64"),
        (2**11, torch.float32, False, "limit of float16"),
        (2**31 - 1, torch.float32, False, "int32"),
        (2**32, torch.float32, False, "uint32"),
        (10**7, torch.float32, False, "Count the significant bits"),
        (2**11, torch.float16, True, "11 significant bits"),
        (2**8, torch.bfloat16, True, "8 significant bits"),
        (2**53, torch.float64, True, "53 significant bits"),
        (2**24, torch.float64, False, "limit of float32"),
    ],
)
def test_float_position_limit_check_hints(capsys, answer, dtype, ok, hint):
    assert exercises.check_float_position_limit(answer, dtype) is ok
    assert hint in capsys.readouterr().out


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
def test_float_position_limit_is_where_torch_merges_p_and_p_plus_1(capsys, dtype):
    p = torch.arange(1, 2**25, dtype=torch.float64)
    merged = (p.to(dtype) == (p + 1).to(dtype)).nonzero()
    first = int(p[merged[0]])
    assert exercises.check_float_position_limit(first, dtype)
    capsys.readouterr()


CHECKS = {
    "distinct": lambda a: exercises.check_distinct_similarities(a, 100, 32),
    "float_limit": lambda a: exercises.check_float_position_limit(a, torch.float32),
    "closest": lambda a: exercises.check_closest_position(a, d_model=8, max_position=1000),
}


@pytest.mark.parametrize("name", list(CHECKS))
@pytest.mark.parametrize("answer", BAD_ANSWERS, ids=[repr(a)[:20] for a in BAD_ANSWERS])
def test_checks_never_raise_on_an_answer(capsys, name, answer):
    hints_without_raising(capsys, CHECKS[name], answer)


BAD_CALLS = [
    (lambda: exercises.check_distinct_similarities(100, 0), ValueError, "n_positions must be a positive integer"),
    (lambda: exercises.check_float_position_limit(2**24, torch.int32), TypeError, "dtype must be"),
    (lambda: exercises.check_closest_position(1, 8, 0), ValueError, "max_position must be a positive integer"),
]


@pytest.mark.parametrize("call,exc,message", BAD_CALLS, ids=[m for _, _, m in BAD_CALLS])
def test_a_wrong_call_of_a_check_raises_clearly(call, exc, message):
    raises_clearly(call, exc, message)
