"""Chapter 3's self-checks (``book.exercises.ch03_rotation``): each accepts the right answer and
returns False, with a specific hint, on the usual wrong ones."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from book import encodings, exercises
from book.encodings.sinusoidal_geometry import shift_fit_residual

from .answers import BAD_ANSWERS, hints_without_raising, raises_clearly


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


def test_rotation_block_close_slip_gets_its_own_hint(capsys):
    assert not exercises.check_rotation_block([[round(v, 3) for v in row] for row in _block(7 * W2)], 7, 2, 16)
    assert "rounded digits" in capsys.readouterr().out


def test_rotation_block_check_accepts_equivalent_answers(capsys):
    assert exercises.check_rotation_block(_block(7 * W2 + 2 * math.pi), 7, 2, 16)  # the same angle
    assert exercises.check_rotation_block(torch.tensor(_block(7 * W2), dtype=torch.float32), 7, 2, 16)
    capsys.readouterr()


@pytest.mark.parametrize("make", [np.asarray, torch.as_tensor], ids=["numpy", "torch"])
def test_matrix_checks_refuse_complex_entries(capsys, make):
    w2 = 10000 ** (-2 * 2 / 16)
    assert not exercises.check_rotation_block(make(np.array(_block(7 * w2)) + 0.5j), k=7, i=2, d_model=16)
    assert not exercises.check_attend_back_matrix(make(np.zeros((32, 32)) + 1j), j=4, d_model=32)
    assert capsys.readouterr().out.count("complex entries") == 2


def _sine_tables(n, k, dtype=torch.float64):
    p = torch.arange(n)
    x = encodings.sinusoidal_at(p, 32, dtype=dtype)[:, 0::2]
    y = encodings.sinusoidal_at(p + k, 32, dtype=dtype)[:, 0::2]
    return x, y


def _rel(x, y, b):
    return float((x @ b - y).norm() / y.norm())


def test_sine_only_residual_accepts_every_correct_method(capsys):
    n = 40_000
    right = shift_fit_residual(3, 32, n_positions=n, sines_only=True)
    x, y = _sine_tables(n, 3)
    methods = [torch.linalg.lstsq(x, y, driver=drv).solution for drv in ("gelsd", "gelsy", "gelss", "gels")]
    methods.append(torch.linalg.solve(x.T @ x, x.T @ y))  # normal equations
    methods.append(torch.linalg.pinv(x) @ y)  # pseudo-inverse
    for b in methods:
        assert exercises.check_sine_only_residual(_rel(x, y, b), k=3, d_model=32, n_positions=n)
        assert "Correct" in capsys.readouterr().out
    x1 = torch.cat((x, torch.ones(n, 1, dtype=x.dtype)), 1)  # a fit with an intercept
    assert exercises.check_sine_only_residual(
        _rel(x1, y, torch.linalg.lstsq(x1, y).solution), k=3, d_model=32, n_positions=n
    )
    xs, ys = _sine_tables(n + 1, 3)  # one position too many
    assert exercises.check_sine_only_residual(
        _rel(xs, ys, torch.linalg.lstsq(xs, ys).solution), k=3, d_model=32, n_positions=n
    )
    assert exercises.check_sine_only_residual(torch.tensor(right), k=3, d_model=32, n_positions=n)
    capsys.readouterr()


def test_sine_only_residual_names_the_slip(capsys):
    n = 40_000
    right = shift_fit_residual(3, 32, n_positions=n, sines_only=True)
    x, y = _sine_tables(n, 3)
    check = lambda a: exercises.check_sine_only_residual(a, k=3, d_model=32, n_positions=n)  # noqa: E731
    x32, y32 = _sine_tables(n, 3, torch.float32)
    x2, y2 = _sine_tables(n, 2)
    slips = [
        (0.0, "full (sin, cos)"),
        (float((x - y).norm() / y.norm()), "B = I"),
        (_rel(y, x, torch.linalg.lstsq(y, x).solution), "back to PE(p)"),
        (float((x @ torch.linalg.lstsq(x, y).solution - y).norm() / x.norm()), "||X||"),
        (_rel(x32, y32, torch.linalg.lstsq(x32, y32).solution), "float"),
        (right**2, "square root"),
        (100 * right, "percentage"),
        (_rel(x2, y2, torch.linalg.lstsq(x2, y2).solution), "offset 2"),
        (right * (1 + 5e-4), "Close"),
        (right * 2, "Build X"),
    ]
    for answer, hint in slips:
        assert exercises.check_sine_only_residual(answer, k=3, d_model=32, n_positions=n) is False, hint
        assert hint in capsys.readouterr().out
    for bad in (None, "0.36", [0.3, 0.4], float("nan"), float("inf"), -float("inf"), torch.zeros(3)):
        assert check(bad) is False
        assert "Not yet" in capsys.readouterr().out
    with pytest.raises(TypeError, match="k"):
        exercises.check_sine_only_residual(0.3, k=1.5, d_model=32)
    with pytest.raises(ValueError, match="too short a window"):  # an ill-posed exercise
        exercises.check_sine_only_residual(0.3, k=3, d_model=32, n_positions=256)


def test_attend_back_matrix(capsys):
    j, d = 4, 32
    assert exercises.check_attend_back_matrix(encodings.rotation_matrix(j, d), j=j, d_model=d)
    assert "Correct" in capsys.readouterr().out
    assert not exercises.check_attend_back_matrix(encodings.rotation_matrix(-j, d), j=j, d_model=d)
    assert "ahead" in capsys.readouterr().out
    assert not exercises.check_attend_back_matrix(encodings.rotation_matrix(j, d).T, j=j, d_model=d)
    assert not exercises.check_attend_back_matrix(torch.eye(d), j=j, d_model=d)
    assert "itself" in capsys.readouterr().out
    assert not exercises.check_attend_back_matrix(torch.zeros(d, d), j=j, d_model=d)
    assert "same score" in capsys.readouterr().out
    assert not exercises.check_attend_back_matrix(torch.eye(8), j=j, d_model=d)
    assert "shape" in capsys.readouterr().out
    assert not exercises.check_attend_back_matrix(None, j=j, d_model=d)
    assert not exercises.check_attend_back_matrix(encodings.rotation_matrix(j + 1, d), j=j, d_model=d)
    assert "M_j" not in capsys.readouterr().out  # the hint does not give the answer away
    # the concatenated layout: M_j with rows and columns reordered by the layout permutation
    perm = encodings.layout_permutation(d)
    concat_answer = encodings.rotation_matrix(j, d)[perm][:, perm]
    assert exercises.check_attend_back_matrix(concat_answer, j=j, d_model=d, layout="concat")
    assert "Correct" in capsys.readouterr().out
    assert not exercises.check_attend_back_matrix(encodings.rotation_matrix(j, d), j=j, d_model=d, layout="concat")
    assert "interleaved layout" in capsys.readouterr().out
    assert not exercises.check_attend_back_matrix(concat_answer, j=j, d_model=d)
    assert "concat layout" in capsys.readouterr().out
    assert not exercises.check_attend_back_matrix(encodings.rotation_matrix(-j, d), j=j, d_model=d)
    out = capsys.readouterr().out
    assert "ahead" in out and "M_" not in out
    with pytest.raises(ValueError, match="layout"):
        exercises.check_attend_back_matrix(torch.eye(d), j=1, d_model=d, layout="halves")
    with pytest.raises(ValueError, match="j must be"):
        exercises.check_attend_back_matrix(torch.eye(d), j=64, d_model=d)
    with pytest.raises(ValueError, match="d_model"):
        exercises.check_attend_back_matrix(torch.eye(d), j=1, d_model=7)


def test_log_decay_drop(capsys):
    right = 32 * math.log(10) / math.log(10000)  # = 8 for d = 64, b = 10^4
    assert math.isclose(right, 8.0)
    assert exercises.check_log_decay_drop(8.0, d_model=64)
    assert "Correct" in capsys.readouterr().out
    for wrong, hint in (
        (-8.0, "positive"),
        (16.0, "d/2"),
        (32 / math.log(10000), "factor e"),
        (32 * math.log(10000) / math.log(10), "upside down"),
        (3.0, "subtract"),
        ("8", "one number"),
    ):
        assert not exercises.check_log_decay_drop(wrong, d_model=64)
        assert hint in capsys.readouterr().out
    assert exercises.check_log_decay_drop(64 * math.log(10) / math.log(500.0), d_model=128, base=500.0)
    with pytest.raises(ValueError, match="d_model"):
        exercises.check_log_decay_drop(8.0, d_model=63)
    with pytest.raises(ValueError, match="base"):
        exercises.check_log_decay_drop(8.0, d_model=64, base=0.5)


def test_log_decay_drop_measured_on_the_exact_sum_gets_its_own_hint(capsys):
    assert not exercises.check_log_decay_drop(8.3, d_model=64)  # a measured drop
    assert "exact sum" in capsys.readouterr().out


@pytest.mark.parametrize(
    "starter,call",
    [
        ([[0.0, 0.0], [0.0, 0.0]], lambda a: exercises.check_rotation_block(a, k=7, i=2, d_model=16)),
        (None, lambda a: exercises.check_sine_only_residual(a, k=3, d_model=32)),
        (torch.zeros(32, 32), lambda a: exercises.check_attend_back_matrix(a, j=4, d_model=32, layout="concat")),
        (None, lambda a: exercises.check_log_decay_drop(a, d_model=64)),
    ],
)
def test_neutral_starters_are_wrong(starter, call):
    """The chapters' starters hold no part of the answer, and the checks say so."""
    assert call(starter) is False


@pytest.mark.parametrize(
    "answer,ok,hint",
    [
        (1, True, "no offset up to 100,000 comes"),
        (1.0, True, "pi is irrational"),
        (torch.tensor([1]), True, "Correct!"),
        (np.int64(1), True, "Correct!"),
        (0, False, "k = 0 is no shift"),
        (100_001, False, "Search the offsets 1 .. 100,000"),
        (12345, False, "some offset comes closer"),
        (1.5, False, "one whole offset"),
    ],
)
def test_closest_shift_check_hints(capsys, answer, ok, hint):
    assert exercises.check_closest_shift(answer, d_model=16, max_offset=100_000) is ok
    assert hint in capsys.readouterr().out


def test_closest_shift_names_pair_0_alone_the_argmax_and_the_slowest_wavelength(capsys):
    k = torch.arange(1, 100_001, dtype=torch.float64)
    w = encodings.frequencies(16).double()
    gaps = 1 - torch.cos(k[:, None] * w)
    pair0 = int(torch.argmin(gaps[:, 0])) + 1  # 710 is close to 113 turns, for one
    assert pair0 != 1
    assert not exercises.check_closest_shift(pair0)
    assert "pair 0 alone" in capsys.readouterr().out
    assert not exercises.check_closest_shift(int(torch.argmax(gaps.sum(-1))) + 1)
    assert "farthest" in capsys.readouterr().out
    assert not exercises.check_closest_shift(round(2 * math.pi / float(w[-1])))
    assert "slowest pair's wavelength" in capsys.readouterr().out


def test_closest_shift_is_the_argmin_of_the_frobenius_distance(capsys):
    """Beyond k = 1: for d = 2 (one pair, w = 1) the closest offset is the one nearest a multiple of 2 pi."""
    best = min(range(1, 1001), key=lambda k: (encodings.rotation_matrix(k, 2).double() - torch.eye(2)).norm())
    assert best == 710
    assert exercises.check_closest_shift(best, d_model=2, max_offset=1000)
    assert not exercises.check_closest_shift(1, d_model=2, max_offset=1000)
    capsys.readouterr()


CHECKS = {
    "closest_shift": lambda a: exercises.check_closest_shift(a, d_model=16, max_offset=1000),
    "rotation_block": lambda a: exercises.check_rotation_block(a, k=7, i=2, d_model=16),
    "sine_residual": lambda a: exercises.check_sine_only_residual(a, k=3, d_model=32, n_positions=40_000),
    "attend_back": lambda a: exercises.check_attend_back_matrix(a, j=4, d_model=32, layout="concat"),
    "log_decay": lambda a: exercises.check_log_decay_drop(a, d_model=64),
}


@pytest.mark.parametrize("name", list(CHECKS))
@pytest.mark.parametrize("answer", BAD_ANSWERS, ids=[repr(a)[:20] for a in BAD_ANSWERS])
def test_checks_never_raise_on_an_answer(capsys, name, answer):
    hints_without_raising(capsys, CHECKS[name], answer)


BAD_CALLS = [
    (lambda: exercises.check_closest_shift(1, d_model=15), ValueError, "d_model must be"),
    (lambda: exercises.check_closest_shift(1, max_offset=0), ValueError, "max_offset must be a positive integer"),
    (
        lambda: exercises.check_rotation_block([[1, 0], [0, 1]], 1, 99, 16),
        ValueError,
        "i must be a pair index in 0 .. 7",
    ),
    (lambda: exercises.check_rotation_block([[1, 0], [0, 1]], float("inf"), 1, 16), ValueError, "k must be finite"),
]


@pytest.mark.parametrize("call,exc,message", BAD_CALLS, ids=[m for _, _, m in BAD_CALLS])
def test_a_wrong_call_of_a_check_raises_clearly(call, exc, message):
    raises_clearly(call, exc, message)
