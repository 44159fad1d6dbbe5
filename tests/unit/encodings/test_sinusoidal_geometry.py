"""Chapters 2 and 3: the step size, sine-only shifts, Ci and the decay's closed form."""

from __future__ import annotations

import math

import pytest
import torch

from book import encodings
from book.encodings.sinusoidal_geometry import cosine_integral, dot_by_offset, shift_fit_residual, step_norm_squared


@pytest.mark.parametrize("d_model,base", [(2, 10000.0), (16, 10000.0), (64, 10000.0), (128, 100.0)])
@pytest.mark.parametrize("k", [1, 3, -7, 2.5])
def test_step_norm_squared_is_the_distance_at_every_position(d_model, base, k):
    p = torch.tensor([0.0, 1.0, 17.0, 1234.0, 98765.0])
    a = encodings.sinusoidal_at(p, d_model, base=base, dtype=torch.float64)
    b = encodings.sinusoidal_at(p + k, d_model, base=base, dtype=torch.float64)
    expected = torch.full((5,), step_norm_squared(d_model, k=k, base=base), dtype=torch.float64)
    torch.testing.assert_close(((b - a) ** 2).sum(-1), expected, atol=1e-9, rtol=0)


def test_step_norm_squared_closed_form_and_layout():
    w = encodings.frequencies(64)
    assert math.isclose(step_norm_squared(64), 64 - 2 * float(torch.cos(w).sum()), rel_tol=1e-12)
    # each pair contributes the squared chord 2 - 2 cos(w_i) = (2 sin(w_i/2))^2
    assert math.isclose(step_norm_squared(64), float((2 * torch.sin(w / 2)).pow(2).sum()), rel_tol=1e-12)
    concat = encodings.sinusoidal(3, 64, layout="concat").double()
    assert math.isclose(float((concat[1] - concat[0]).pow(2).sum()), step_norm_squared(64), rel_tol=1e-5)
    assert step_norm_squared(64, k=0) == 0.0


def test_step_norm_squared_rejects_bad_input():
    with pytest.raises(ValueError, match="d_model"):
        step_norm_squared(7)
    with pytest.raises(ValueError, match="k"):
        step_norm_squared(8, k=float("nan"))
    with pytest.raises(ValueError, match="base"):
        step_norm_squared(8, base=1.0)


def test_full_encoding_has_an_exact_shift_matrix_and_sines_alone_do_not():
    for k in (1, 5, -3):
        assert shift_fit_residual(k, 32) < 1e-10
        assert shift_fit_residual(k, 32, sines_only=True) > 0.1
    assert shift_fit_residual(0, 32, sines_only=True) < 1e-10  # no shift: B = I


def test_shift_fit_residual_matches_the_rotation_matrix():
    # The exact matrix for the full table is M_k^T (rows are positions).
    p = torch.arange(64)
    x = encodings.sinusoidal_at(p, 16, dtype=torch.float64)
    y = encodings.sinusoidal_at(p + 4, 16, dtype=torch.float64)
    torch.testing.assert_close(x @ encodings.rotation_matrix(4, 16).T, y)


def test_sine_only_residual_is_solver_independent_on_the_default_window():
    # One turn of the slowest pair: a well-conditioned table, so every solver gives the same residual.
    p = torch.arange(math.ceil(2 * math.pi / float(encodings.frequencies(32)[-1])))
    x = encodings.sinusoidal_at(p, 32, dtype=torch.float64)[:, 0::2]
    y = encodings.sinusoidal_at(p + 3, 32, dtype=torch.float64)[:, 0::2]
    assert float(torch.linalg.cond(x)) < 10
    right = shift_fit_residual(3, 32, sines_only=True)
    for driver in ("gelsd", "gelsy", "gels"):
        b = torch.linalg.lstsq(x, y, driver=driver).solution
        assert math.isclose(float((x @ b - y).norm() / y.norm()), right, rel_tol=1e-10)
    b = torch.linalg.solve(x.T @ x, x.T @ y)  # normal equations
    assert math.isclose(float((x @ b - y).norm() / y.norm()), right, rel_tol=1e-10)


def test_sine_only_residual_is_at_least_what_position_zero_forces():
    # Row p = 0 of the sine table is all zeros, so any matrix misses the whole row sin(k w_i) there.
    for k, d_model in ((1, 16), (3, 32), (-2, 64)):
        p = torch.arange(math.ceil(2 * math.pi / float(encodings.frequencies(d_model)[-1])))
        y = encodings.sinusoidal_at(p + k, d_model, dtype=torch.float64)[:, 0::2]
        assert float(y[0].norm() / y.norm()) <= shift_fit_residual(k, d_model, sines_only=True)


def test_whole_positions_have_distinct_sines():
    # pi is irrational, so sin p = sin q has no whole-number solution p != q: a function of the
    # sine giving the next sine exists on whole positions; only its steepness is unbounded.
    s = torch.sort(torch.sin(torch.arange(100_000, dtype=torch.float64))).values
    assert float((s[1:] - s[:-1]).min()) > 1e-13


def test_sine_only_residual_refuses_an_ill_conditioned_window():
    # 256 positions at d = 32: condition number ~2e17, the "best" matrix is the solver's rounding.
    with pytest.raises(ValueError, match="n_positions=256 is too short a window"):
        shift_fit_residual(3, 32, n_positions=256, sines_only=True)
    assert shift_fit_residual(3, 32, n_positions=256) < 1e-10  # the full table is exact at any window


def test_shift_fit_residual_rejects_bad_input():
    with pytest.raises(TypeError, match="k"):
        shift_fit_residual(1.5, 8)
    with pytest.raises(ValueError, match="n_positions"):
        shift_fit_residual(1, 8, n_positions=0)
    with pytest.raises(TypeError, match="sines_only"):
        shift_fit_residual(1, 8, sines_only="yes")


def test_cosine_integral_against_mpmath():
    mpmath = pytest.importorskip("mpmath")
    xs = [1e-8, 1e-3, 0.3, 1.0, 2.5, 7.0, 15.0, 19.999, 20.0, 20.001, 35.0, 100.0, 1234.5, 1e6]
    got = cosine_integral(xs)
    for x, g in zip(xs, got.tolist()):
        assert abs(g - float(mpmath.ci(x))) < 1e-8, x


def test_cosine_integral_known_values_and_shape():
    # Ci(x) - gamma - ln x -> 0 as x -> 0; the first zero of Ci is at 0.6165...
    assert abs(float(cosine_integral(1e-6)) - (0.5772156649015329 + math.log(1e-6))) < 1e-10
    assert abs(float(cosine_integral(0.6165054856207162))) < 1e-10
    assert cosine_integral(torch.ones(2, 3)).shape == (2, 3)
    with pytest.raises(ValueError, match="> 0"):
        cosine_integral([1.0, 0.0])
    with pytest.raises(ValueError, match="finite"):
        cosine_integral(float("inf"))
    with pytest.raises(TypeError, match="x"):
        cosine_integral("one")


def test_dot_by_offset_exact_is_the_dot_product():
    k = torch.arange(-50, 51)
    pe = encodings.sinusoidal_at(torch.cat((torch.tensor([7]), 7 + k)), 64, dtype=torch.float64)
    torch.testing.assert_close(pe[1:] @ pe[0], dot_by_offset(k, 64))


def test_closed_form_approaches_the_sum_as_d_grows():
    k = torch.arange(1, 1001, dtype=torch.float64)
    gaps = []
    for d in (64, 256, 1024, 4096):
        exact, ci = dot_by_offset(k, d), dot_by_offset(k, d, form="ci")
        gaps.append(float((exact - ci).abs().max()) / (d / 2))
    assert all(b < a for a, b in zip(gaps, gaps[1:]))
    assert gaps[-1] < 1e-3


def test_log_form_is_the_ci_form_without_ci_k():
    k = torch.tensor([20.0, 50.0, 100.0], dtype=torch.float64)
    d, b = 128, 10000.0
    ci, log = dot_by_offset(k, d, base=b, form="ci"), dot_by_offset(k, d, base=b, form="log")
    # Ci(k/b) = gamma + ln(k/b) + O((k/b)^2), so ci - log = (d/2) Ci(k) / ln b + O((k/b)^2)
    approx_gap = (d / 2) * cosine_integral(k) / math.log(b)
    torch.testing.assert_close(ci - log, approx_gap, atol=1e-3, rtol=0)
    torch.testing.assert_close(dot_by_offset(-k, d, form="log"), dot_by_offset(k, d, form="log"))
    # Euler's gamma is kept: the line is (d/2)(1 - (ln k + gamma) / ln b)
    expected = (d / 2) * (1 - (torch.log(k) + 0.5772156649015329) / math.log(b))
    torch.testing.assert_close(log, expected)


def test_dot_by_offset_rejects_bad_input():
    with pytest.raises(ValueError, match="nonzero"):
        dot_by_offset([0.0, 1.0], 8, form="ci")
    with pytest.raises(ValueError, match="form"):
        dot_by_offset(1.0, 8, form="exp")
    with pytest.raises(ValueError, match="d_model"):
        dot_by_offset(1.0, 9)
