"""Tests of the plots, explorers and self-checks that chapters 5 to 8 use."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from book import encodings, exercises, plots# noqa: E402


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
        (lambda: exercises.check_position_table_size(1, 0, 8), ValueError, "max_len must be a positive integer"),
        (lambda: exercises.check_rope_angle(1.0, 1, 40, 64), ValueError, "i must be a pair index in 0 .. 31"),
        (lambda: exercises.check_rope_angle(1.0, float("nan"), 1, 64), ValueError, "m must be finite"),
        (lambda: exercises.check_alibi_slopes([1.0], 0), ValueError, "n_heads must be a positive integer"),
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


def test_rope_angle_errors_plot_and_precision_explorer():
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
    dtype.value = "float16"                  # every control redraws (the drawing is tested below)
    dtype.value = "float32"
    longest.value = 2**10
    width.value, base.value = 32, 500000.0
    plt.close("all")


# ------------------------------------------ the explorers' drawings (chapters 5-7, 10)
def test_draw_learned_table_explorer_shows_the_chosen_step():
    snaps = {0: torch.randn(12, 8, generator=torch.Generator().manual_seed(0)),
             10: torch.cumsum(torch.randn(12, 8, generator=torch.Generator().manual_seed(1)), 0)}
    fig = plots.draw_learned_table_explorer(snaps, step=10)
    left = fig.axes[0]
    assert left.get_title() == "similarity after 10 steps"
    torch.testing.assert_close(torch.as_tensor(left.images[0].get_array().data), plots.cosine_similarity(snaps[10]))
    _, ax = plt.subplots()
    share = plots.pca_path(ax, snaps[10])
    assert fig._suptitle.get_text() == f"step 10: the two components explain {share:.0%} of the variance"
    plt.close("all")
    fig = plots.draw_learned_table_explorer(snaps, step=0)
    torch.testing.assert_close(torch.as_tensor(fig.axes[0].images[0].get_array().data),
                               plots.cosine_similarity(snaps[0]))
    plt.close(fig)
    with pytest.raises(ValueError, match="step must be one of"):
        plots.draw_learned_table_explorer(snaps, step=5)


def test_draw_rope_explorer_depends_on_the_offset_only():
    q, k = torch.randn(2, 16, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    fig = plots.draw_rope_explorer(q, k, m=6, n=3, pair=2, max_position=10)
    plane, curve = fig.axes
    theta = float(encodings.frequencies(16)[2])

    def rotate(v, angle):                   # one pair turned by angle (Su et al., eq. 13)
        return torch.tensor([math.cos(angle) * v[0] - math.sin(angle) * v[1],
                             math.sin(angle) * v[0] + math.cos(angle) * v[1]], dtype=torch.float64)

    expected = float(rotate(q[4:6], 6 * theta) @ rotate(k[4:6], 3 * theta))
    assert fig._suptitle.get_text() == f"pair 2 adds {expected:+.3f} to the score; m - n = 3"
    assert plane.get_title().startswith("m = 6, n = 3")
    line, mark = curve.get_lines()
    assert list(line.get_xdata()) == list(range(-10, 11)) and list(mark.get_xdata()) == [3]
    shifted = plots.draw_rope_explorer(q, k, m=9, n=6, pair=2, max_position=10)
    assert shifted._suptitle.get_text() == fig._suptitle.get_text()        # same m - n, same score
    assert shifted.axes[1].get_lines()[1].get_ydata() == pytest.approx(mark.get_ydata())
    assert shifted.axes[0].get_title() != plane.get_title()
    plt.close("all")
    with pytest.raises(ValueError, match="pair must be a pair index in 0 .. 7"):
        plots.draw_rope_explorer(q, k, pair=8)
    with pytest.raises(ValueError, match="same even number"):
        plots.draw_rope_explorer(torch.ones(7), torch.ones(7))


def test_draw_alibi_explorer_weights_follow_the_slope():
    fig = plots.draw_alibi_explorer(n_heads=4, head=2, seq_len=10)
    bias_ax, weights_ax = fig.axes[0], fig.axes[1]
    slope = float(encodings.alibi_slopes(4)[1])
    assert slope == pytest.approx(1 / 16)
    assert bias_ax.get_title() == "head 2: m = 1/16"
    weights = weights_ax.get_lines()[0].get_ydata()
    assert weights.sum() == pytest.approx(1.0)
    assert weights[:-1] / weights[1:] == pytest.approx(math.exp(-slope))   # exp(-m) per step back
    assert fig._suptitle.get_text() == (f"4 heads, slope m = {slope:.4g}: the weight halves every "
                                        f"ln 2 / m = {math.log(2) / slope:.3g} positions")
    plt.close(fig)
    fig = plots.draw_alibi_explorer(n_heads=4, head=1, seq_len=10)
    assert fig.axes[1].get_lines()[0].get_ydata()[-1] > weights[-1]     # the steeper head looks closer
    plt.close(fig)
    with pytest.raises(ValueError, match="head must be an integer in 1 .. 4"):
        plots.draw_alibi_explorer(n_heads=4, head=5)


def test_draw_precision_explorer_says_where_the_error_passes_001():
    fig = plots.draw_precision_explorer(dtype="float16", d_model=128, longest=2**17)
    (ax,) = fig.axes
    title = fig._suptitle.get_text()
    assert title.startswith("float16 angles: cosines off by more than 0.01 from about position ")
    assert "float16 cannot hold positions from" in title
    assert [line.get_label() for line in ax.get_lines()] == ["float16", "book (float64 angles)"]
    assert ax.get_lines()[0].get_xdata()[-1] == 2**17
    plt.close(fig)
    fig = plots.draw_precision_explorer(dtype="float32", d_model=32, base=500000.0, longest=2**10)
    assert fig._suptitle.get_text() == "float32 angles: cosines off by more than 0.01 nowhere up to 1,024"
    assert fig.axes[0].get_title() == "RoPE angles in low precision, d = 32"
    plt.close(fig)
    with pytest.raises(ValueError, match="dtypes must name torch dtypes"):
        plots.draw_precision_explorer(dtype="float8")


@pytest.mark.parametrize("explorer, args, moves, draw, expected", [
    ("learned_table_explorer", lambda: ({0: torch.randn(12, 8), 10: torch.randn(12, 8)},), [(0, 0, 0)],
     "draw_learned_table_explorer", {"step": 0}),
    ("rope_explorer", lambda: tuple(torch.randn(2, 16)), [(0, 0, 9), (0, 1, 4), (0, 2, 7)],
     "draw_rope_explorer", {"m": 9, "n": 4, "pair": 7}),
    ("alibi_explorer", lambda: (), [(0, 0, 12), (0, 1, 12), (0, 2, 8)],
     "draw_alibi_explorer", {"n_heads": 12, "head": 12, "seq_len": 8}),
    ("precision_explorer", lambda: (), [(0, 0, "float16"), (1, 0, 32), (1, 2, 2**10)],
     "draw_precision_explorer", {"dtype": "float16", "d_model": 32, "longest": 2**10}),
])
def test_explorers_5_10_call_their_drawing(monkeypatch, explorer, args, moves, draw, expected):
    """Each control passes its value to the explorer's draw function (and nothing else draws)."""
    pytest.importorskip("ipywidgets")
    from book import widgets

    calls = []
    real = getattr(plots, draw)
    monkeypatch.setattr(widgets, draw, lambda *a, **kw: calls.append(kw) or real(*a, **kw))
    box = getattr(widgets, explorer)(*args())
    assert len(calls) == 1                               # drawn once on display
    for row, col, value in moves:
        box.children[row].children[col].value = value
    assert {k: calls[-1][k] for k in expected} == expected
    plt.close("all")
