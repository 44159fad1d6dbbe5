"""Chapters 2 and 3 (#17): the new self-checks accept the right answer and
return False (with a specific hint) on the usual wrong ones."""

from __future__ import annotations

import math

import pytest
import torch

from book import encodings, exercises
from book.encodings.sinusoidal import shift_fit_residual


def test_sine_only_residual(capsys):
    right = shift_fit_residual(3, 32, n_positions=256, sines_only=True)
    assert exercises.check_sine_only_residual(right, k=3, d_model=32)
    assert "Correct" in capsys.readouterr().out
    assert not exercises.check_sine_only_residual(0.0, k=3, d_model=32)
    assert "full (sin, cos)" in capsys.readouterr().out
    p = torch.arange(256)
    x = encodings.sinusoidal_at(p, 32, dtype=torch.float64)[:, 0::2]
    y = encodings.sinusoidal_at(p + 3, 32, dtype=torch.float64)[:, 0::2]
    assert not exercises.check_sine_only_residual(float((x - y).norm() / y.norm()), k=3, d_model=32)
    assert "B = I" in capsys.readouterr().out
    # the fit in the wrong direction and the wrong denominator are each within 1% of the right value
    back = torch.linalg.lstsq(y, x, driver="gelsd").solution
    backward = float((y @ back - x).norm() / x.norm())
    assert 0 < abs(backward / right - 1) < 0.01
    assert not exercises.check_sine_only_residual(backward, k=3, d_model=32)
    assert "back to PE(p)" in capsys.readouterr().out
    b = torch.linalg.lstsq(x, y, driver="gelsd").solution
    over_x = float((x @ b - y).norm() / x.norm())
    assert 0 < abs(over_x / right - 1) < 0.01
    assert not exercises.check_sine_only_residual(over_x, k=3, d_model=32)
    assert "||X||" in capsys.readouterr().out
    # a float32 computation is off by about 0.5%: not accepted, told why
    x32, y32 = x.float(), y.float()
    b32 = torch.linalg.lstsq(x32, y32, driver="gelsd").solution
    res32 = float((x32 @ b32 - y32).norm() / y32.norm())
    assert not exercises.check_sine_only_residual(res32, k=3, d_model=32)
    assert "float64" in capsys.readouterr().out
    assert exercises.check_sine_only_residual(right * (1 + 1e-4), k=3, d_model=32)
    capsys.readouterr()
    assert not exercises.check_sine_only_residual(right * 2, k=3, d_model=32)
    assert not exercises.check_sine_only_residual(None, k=3, d_model=32)
    assert "one number" in capsys.readouterr().out
    with pytest.raises(TypeError, match="k"):
        exercises.check_sine_only_residual(0.3, k=1.5, d_model=32)


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
    assert "M_j" not in capsys.readouterr().out          # the hint does not give the answer away
    # the concatenated layout: M_j with rows and columns reordered by the layout permutation
    perm = encodings.layout_permutation(d)
    concat_answer = encodings.rotation_matrix(j, d)[perm][:, perm]
    assert exercises.check_attend_back_matrix(concat_answer, j=j, d_model=d, layout="concat")
    assert "Correct" in capsys.readouterr().out
    assert not exercises.check_attend_back_matrix(encodings.rotation_matrix(j, d), j=j, d_model=d,
                                                  layout="concat")
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
    right = 32 * math.log(10) / math.log(10000)           # = 8 for d = 64, b = 10^4
    assert math.isclose(right, 8.0)
    assert exercises.check_log_decay_drop(8.0, d_model=64)
    assert "Correct" in capsys.readouterr().out
    for wrong, hint in ((-8.0, "positive"), (16.0, "d/2"), (32 / math.log(10000), "factor e"),
                        (32 * math.log(10000) / math.log(10), "upside down"), (3.0, "subtract"),
                        ("8", "one number")):
        assert not exercises.check_log_decay_drop(wrong, d_model=64)
        assert hint in capsys.readouterr().out
    assert exercises.check_log_decay_drop(64 * math.log(10) / math.log(500.0), d_model=128, base=500.0)
    with pytest.raises(ValueError, match="d_model"):
        exercises.check_log_decay_drop(8.0, d_model=63)
    with pytest.raises(ValueError, match="base"):
        exercises.check_log_decay_drop(8.0, d_model=64, base=0.5)


@pytest.mark.parametrize("starter,call", [
    (None, lambda a: exercises.check_wavelength(a, i=3, d_model=64)),
    ([[0.0, 0.0], [0.0, 0.0]], lambda a: exercises.check_rotation_block(a, k=7, i=2, d_model=16)),
    (None, lambda a: exercises.check_sine_only_residual(a, k=3, d_model=32)),
    (torch.zeros(32, 32), lambda a: exercises.check_attend_back_matrix(a, j=4, d_model=32, layout="concat")),
    (None, lambda a: exercises.check_log_decay_drop(a, d_model=64)),
])
def test_neutral_starters_are_wrong(starter, call):
    """The chapters' starters hold no part of the answer, and the checks say so."""
    assert call(starter) is False
