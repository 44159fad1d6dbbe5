"""Tests of the plots, explorers and self-checks that chapters 5 to 8 use."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from book import checks, encodings, plots  # noqa: E402


# ---------------------------------------------------------------- self-checks
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
    assert checks.check_position_table_size(answer, 1024, 1600, n_layers=48) is ok
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
    assert checks.check_rope_angle(answer, 100, 8, 64) is ok
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
    assert checks.check_alibi_slopes(answer, 6) is ok
    assert hint in capsys.readouterr().out


def test_alibi_slopes_check_accepts_library_values_for_many_head_counts(capsys):
    for n in (1, 2, 3, 8, 12, 16, 20):
        assert checks.check_alibi_slopes(encodings.alibi_slopes(n), n)


# ---------------------------------------------------------------- plots
def test_table_similarity_and_pca_path():
    table = torch.cumsum(torch.randn(20, 8, generator=torch.Generator().manual_seed(0)), 0)
    sim = plots.cosine_similarity(table)
    torch.testing.assert_close(sim.diagonal(), torch.ones(20, dtype=torch.float64))
    fig, (a, b) = plt.subplots(1, 2)
    image = plots.table_similarity_panel(a, table, title="t")
    assert image.get_clim() == (-1.0, 1.0)
    share = plots.pca_path(b, table)
    assert 0 < share <= 1 and b.get_xlabel() == "principal component 1"
    line = torch.zeros(10, 4)
    line[:, 0] = torch.arange(10.0)                    # a straight line: one component
    assert plots.pca_path(b, line, colorbar=False) == pytest.approx(1.0)
    plt.close("all")


def test_rope_plane_returns_the_pair_score():
    fig, ax = plt.subplots()
    q, k = torch.tensor([1.0, 0.5]), torch.tensor([-0.3, 2.0])
    part = plots.rope_plane(ax, q, k, m=7, n=3, theta=0.4)
    # <R(m theta) q, R(n theta) k> = q^T R((n - m) theta) k
    c, s = math.cos((3 - 7) * 0.4), math.sin((3 - 7) * 0.4)
    expected = float(q.double() @ torch.tensor([[c, -s], [s, c]], dtype=torch.float64) @ k.double())
    assert part == pytest.approx(expected)
    with pytest.raises(ValueError, match="q_pair must hold the 2 features"):
        plots.rope_plane(ax, [1.0, 2.0, 3.0], k, m=0, n=0, theta=1.0)
    plt.close("all")


def test_rope_score_curve_depends_only_on_offset():
    fig, ax = plt.subplots()
    g = torch.Generator().manual_seed(1)
    q, k = torch.randn(16, generator=g), torch.randn(16, generator=g)
    scores = plots.rope_score_curve(ax, q, k, offsets=range(-5, 6), mark=2)
    direct = (encodings.apply_rope(q.double()[None], [12]) * encodings.apply_rope(k.double()[None], [10])).sum()
    assert float(scores[7]) == pytest.approx(float(direct))
    with pytest.raises(ValueError, match="same size"):
        plots.rope_score_curve(ax, q, k[:8], offsets=[0])
    plt.close("all")


def test_alibi_panel_blanks_the_future_and_rejects_bad_heads():
    fig, ax = plt.subplots()
    image = plots.alibi_panel(ax, 8, 0, seq_len=6)
    data = image.get_array()
    assert data.mask[0, 1] and not data.mask[1, 0]
    assert float(data[5, 0]) == pytest.approx(-2.5)
    assert ax.get_title() == "head 1: m = 1/2"
    with pytest.raises(ValueError, match="head must be an integer in 0 .. 7"):
        plots.alibi_panel(ax, 8, 8, seq_len=6)
    plt.close("all")


@pytest.mark.parametrize(
    "call,exc,message",
    [
        (lambda: plots.cosine_similarity(torch.ones(3)), ValueError, "table must be a 2-D floating tensor"),
        (lambda: plots.pca_path(plt.gca(), torch.ones(2, 4)), ValueError, "at least 3 rows"),
        (lambda: checks.check_position_table_size(1, 0, 8), ValueError, "max_len must be a positive integer"),
        (lambda: checks.check_rope_angle(1.0, 1, 40, 64), ValueError, "i must be a pair index in 0 .. 31"),
        (lambda: checks.check_rope_angle(1.0, float("nan"), 1, 64), ValueError, "m must be finite"),
        (lambda: checks.check_alibi_slopes([1.0], 0), ValueError, "n_heads must be a positive integer"),
    ],
)
def test_helpers_5_7_reject_bad_input(call, exc, message):
    with pytest.raises(exc, match=message):
        call()
    plt.close("all")


# ---------------------------------------------------------------- explorers
def test_explorers_5_7_redraw():
    pytest.importorskip("ipywidgets")
    from book import widgets

    snaps = {0: torch.randn(12, 8), 10: torch.cumsum(torch.randn(12, 8), 0)}
    box = widgets.learned_table_explorer(snaps)
    box.children[0].children[0].value = 0
    q, k = torch.randn(2, 16)
    box = widgets.rope_explorer(q, k)
    for control in box.children[0].children:
        control.value = control.max
    box = widgets.alibi_explorer()
    heads, head, length = box.children[0].children
    heads.value = 12
    head.value = 12
    length.value = 8
    with pytest.raises(ValueError, match="snapshots must hold"):
        widgets.learned_table_explorer({})
    plt.close("all")


FAKE = {
    "config": {"task": "fibonacci", "train_len": 3},
    "runs": {"rope": {"0": {"curve": [None, 1.0, 1.0, 0.5, 0.25]}, "1": {"curve": [None, 1.0, 0.5, 0.5, 0.5]}},
             "alibi": {"0": {"curve": [None, 1.0, 1.0, 1.0, 0.75]}}},
}


def test_experiment_curves_band_and_lines():
    fig, ax = plt.subplots()
    plots.experiment_curves(ax, FAKE)
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert list(lines["rope"].get_xdata()) == [1, 2, 3, 4]           # position 0 is never scored
    assert list(lines["rope"].get_ydata()) == [1.0, 0.75, 0.5, 0.375]  # mean over seeds
    assert lines["training length"].get_xdata()[0] == 2.5
    fig, ax = plt.subplots()
    plots.experiment_curves(ax, FAKE, schemes=["rope"], seeds="lines")
    assert len([line for line in ax.get_lines() if line.get_label() != "training length"]) == 2
    with pytest.raises(ValueError, match="seeds must be 'band' or 'lines'"):
        plots.experiment_curves(ax, FAKE, seeds="all")
    with pytest.raises(ValueError, match="schemes must be among"):
        plots.experiment_curves(ax, FAKE, schemes=["t5"])
    plt.close("all")


def test_results_explorer_redraws():
    pytest.importorskip("ipywidgets")
    from book import widgets

    box = widgets.results_explorer({"fibonacci": FAKE})
    (task, style), picks = box.children[0].children, box.children[1].children
    style.value = "lines"
    for pick in picks:
        pick.value = False                       # nothing picked: a message, no error
    with pytest.raises(ValueError, match="at least one task"):
        widgets.results_explorer({})
    plt.close("all")


def test_scaling_ratios_and_explorer():
    fig, ax = plt.subplots()
    ratios = plots.scaling_ratios(ax, 128, scale=4.0, original_max_len=2048)
    assert set(ratios) == {"PI", "NTK-aware", "YaRN"}
    assert float(ratios["PI"][0]) == pytest.approx(0.25) and float(ratios["YaRN"][0]) == 1.0
    turns = 2048 * encodings.frequencies(128) / (2 * math.pi)   # YaRN keeps r_i > beta = 32
    assert f"{int((turns > 32).sum())} pairs kept by YaRN" in ax.get_title()
    pytest.importorskip("ipywidgets")
    from book import widgets

    box = widgets.scaling_explorer()
    scale, length = box.children[0].children
    scale.value = 16.0
    length.value = 32
    plt.close("all")


def test_added_helpers_name_the_bad_parameter():
    from book import experiments

    with pytest.raises(ValueError, match="seeds must be non-negative integers"):
        experiments.Config(seeds=("0",))
    with pytest.raises(TypeError, match="freqs must be a floating tensor"):
        encodings.rope_cis(range(4), 8, freqs=[1.0, 0.1, 0.01, 0.001])
    pytest.importorskip("ipywidgets")
    from book import widgets

    with pytest.raises(ValueError, match="q and k must have the same even number of features"):
        widgets.rope_explorer(torch.ones(7), torch.ones(7))
    with pytest.raises(ValueError, match="d_model must be between 16 and 256"):
        widgets.precision_explorer(d_model=8)
    with pytest.raises(ValueError, match="d_model must be even"):
        widgets.precision_explorer(d_model=101)
    with pytest.raises(ValueError, match="d_model must be at least 4"):
        widgets.scaling_explorer(d_model=2)


def test_rope_cos_error_against_a_written_out_reference():
    pos = torch.tensor([1, 7, 300, 1024, 65536])
    theta = encodings.frequencies(64)
    exact = torch.cos(pos[:, None].double() * theta)
    # bfloat16: the position and theta rounded to bfloat16, multiplied in it
    by_hand = torch.cos((pos[:, None].to(torch.bfloat16) * theta.to(torch.bfloat16)).float())
    want = (by_hand.double() - exact).abs().amax(1)
    torch.testing.assert_close(encodings.rope_cos_error(pos, 64, angle_dtype=torch.bfloat16), want)
    # float64 means book's own path: float64 angles, the result in float32
    cos, _ = encodings.rope_cos_sin(pos, 64)
    book = encodings.rope_cos_error(pos, 64, angle_dtype=torch.float64)
    torch.testing.assert_close(book, (cos.double() - exact).abs().amax(1))
    assert float(book.max()) < 1e-7
    bf16 = encodings.rope_cos_error(pos, 64, angle_dtype=torch.bfloat16)
    fp32 = encodings.rope_cos_error(pos, 64, angle_dtype=torch.float32)
    assert float(bf16[4]) > 0.5 > 1e-3 > float(fp32[4]) > float(fp32[0])
    # float16 overflows past 65504: reported as infinitely wrong, not as nan
    fp16 = encodings.rope_cos_error(torch.tensor([65504, 65536]), 64, angle_dtype=torch.float16)
    assert math.isfinite(float(fp16[0])) and math.isinf(float(fp16[1]))


@pytest.mark.parametrize("call,exc,message", [
    (lambda: encodings.rope_cos_error([1, 2], 8, angle_dtype=torch.int32), TypeError, "angle_dtype must be"),
    (lambda: encodings.rope_cos_error([1.5], 8, angle_dtype=torch.float32), TypeError, "integer dtype"),
    (lambda: encodings.rope_cos_error([[1, 2]], 8, angle_dtype=torch.float32), ValueError, "one-dimensional"),
    (lambda: encodings.rope_cos_error([1], 7, angle_dtype=torch.float32), ValueError, "d_model"),
    (lambda: plots.rope_angle_errors(plt.subplots()[1], torch.arange(1, 5), 8, dtypes=["float8"]), ValueError,
     "dtypes must name torch dtypes"),
])
def test_rope_cos_error_bad_input(call, exc, message):
    with pytest.raises(exc, match=message):
        call()
    plt.close("all")


def test_rope_angle_errors_plot_and_precision_explorer(capsys):
    fig, ax = plt.subplots()
    positions = torch.tensor([1, 10, 100, 1000, 70000])
    errors = plots.rope_angle_errors(ax, positions, 128, dtypes=["bfloat16", "float16"])
    assert list(errors) == ["bfloat16", "float16", "book (float64 angles)"]
    assert [line.get_label() for line in ax.get_lines()] == list(errors)
    assert math.isnan(ax.get_lines()[1].get_ydata()[-1])     # float16 overflow: no point drawn
    assert ax.get_xlabel() == "position m"
    plt.close(fig)
    pytest.importorskip("ipywidgets")
    from book import widgets

    box = widgets.precision_explorer()
    (dtype,), (width, base, longest) = (row.children for row in box.children[:2])
    capsys.readouterr()                 # outside a kernel, the explorer prints to stdout
    dtype.value = "float16"
    text = capsys.readouterr().out
    assert "float16 angles: cosines off by more than 0.01 from about position" in text
    assert "float16 cannot hold positions from" in text
    dtype.value = "float32"
    longest.value = 2**10
    text = capsys.readouterr().out
    assert "float32 angles: cosines off by more than 0.01 nowhere up to 1,024" in text
    width.value, base.value = 32, 500000.0
    plt.close("all")
