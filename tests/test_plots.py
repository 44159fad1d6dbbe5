"""book.plots: the figures and the explorers' drawings of chapters 1 to 7 and 10."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from book import encodings, plots  # noqa: E402
from book.demos import TinySelfAttention  # noqa: E402

TOKENS = ["나", "는", "너", "를", "사랑해"]



@pytest.fixture
def model():
    return TinySelfAttention(sorted(TOKENS), d_model=8, seed=0)



# ------------------------------------------------- chapters 1-4
def test_heatmap_signed_is_centred_and_rejects_vectors():
    plots.use_style()
    fig, ax = plt.subplots()
    image = plots.heatmap(ax, torch.tensor([[-1.0, 3.0], [0.0, 2.0]]), xlabel="x", ylabel="y", title="t")
    assert image.get_clim() == (-3.0, 3.0) and image.get_cmap().name == plots.SIGNED_CMAP
    image = plots.heatmap(ax, [[0.0, 0.5]], signed=False, colorbar=False)
    assert image.get_clim() == (0.0, 0.5) and image.get_cmap().name == plots.POSITIVE_CMAP
    with pytest.raises(ValueError, match="values must be a 2-D matrix"):
        plots.heatmap(ax, [1.0, 2.0])
    plt.close("all")


def test_hangul_font_is_registered():
    plots.use_style()
    families = matplotlib.rcParams["font.family"]
    assert families[0] == "DejaVu Sans" and len(families) == 2, families



def test_order_panels(model):
    rows = [("no PE", *model.aligned_outputs(TOKENS, [2, 1, 0, 3, 4]))]
    fig = plots.order_panels(rows, TOKENS)
    assert len(fig.axes) == 4  # three panels and a colorbar
    with pytest.raises(ValueError, match="rows must hold"):
        plots.order_panels([], TOKENS)
    plt.close("all")


def test_chapter_2_to_4_pictures():
    plots.use_style()
    fig, (a, b) = plt.subplots(1, 2)
    plots.pe_overview(a, b, 16, positions=range(50), dim=5)
    assert "pair i = 2" in b.get_title() and a.get_xlabel() == "dimension j"
    with pytest.raises(ValueError, match="dim must be in 0 .. 15"):
        plots.pe_overview(a, b, 16, dim=16)
    with pytest.raises(ValueError, match="at least two positions"):
        plots.pe_overview(a, b, 16, positions=[3])
    fig, axes = plt.subplots(1, 2)
    plots.rotation_circles(list(axes), 16, pos=3, k=2, pairs=[0, 1])
    assert axes[0].get_title() == "pair 0: turns 2 rad"
    with pytest.raises(ValueError, match="same length"):
        plots.rotation_circles(list(axes), 16, pos=3, k=2, pairs=[0])
    fig, ax = plt.subplots()
    image = plots.similarity_panel(ax, 16, seq_len=20, cosine=True)
    assert image.get_array().shape == (20, 20) and image.get_clim()[1] == pytest.approx(1.0)
    plt.close("all")


def test_rotation_animation_has_one_frame_per_offset():
    plots.use_style()
    anim = plots.rotation_animation(16, offsets=[0, 1, 2], pairs=[0, 1])
    html = anim.to_jshtml()
    assert html.count("data:image/png;base64") == 3
    with pytest.raises(ValueError, match="offsets must hold"):
        plots.rotation_animation(16, offsets=[], pairs=[0])


def test_animation_html_is_offline():
    anim = plots.rotation_animation(16, offsets=[0, 1], pairs=[0])
    assert "font-awesome" in anim.to_jshtml()       # matplotlib links a CDN ...
    html = plots.animation_html(anim, alt="Two unit circles with a point turning")
    assert "http" not in html.split("<script")[0]   # ... which we drop
    assert "font-awesome" not in html and html.count("data:image/png;base64") == 2
    assert 'alt="Two unit circles with a point turning"' in html
    with pytest.raises(ValueError, match="alt must describe"):
        plots.animation_html(anim, alt="anim")



BAD_CALLS = [
    (lambda ax: plots.rotation_circles([ax], 16, pos=0, k=1, pairs=[9]), ValueError, r"pairs\[\] must be a pair index"),
    (lambda ax: plots.similarity_panel(ax, 16, seq_len=0), ValueError, "seq_len must be a positive integer"),
    (lambda ax: plots.pe_overview(ax, ax, 15), ValueError, "dim must be in|d_model must be even"),
    (lambda ax: plots.cosine_similarity(torch.ones(3)), ValueError, "table must be a 2-D floating tensor"),
    (lambda ax: plots.pca_path(ax, torch.ones(2, 4)), ValueError, "at least 3 rows"),
    (lambda ax: plots.rope_angle_errors(ax, torch.arange(1, 5), 8, dtypes=["float8"]), ValueError,
     "dtypes must name torch dtypes"),
]


@pytest.mark.parametrize("call,exc,message", BAD_CALLS, ids=[m for _, _, m in BAD_CALLS])
def test_helpers_reject_bad_input_clearly(call, exc, message):
    fig, ax = plt.subplots()
    with pytest.raises(exc, match=message):
        call(ax)
    plt.close("all")


# ------------------------------------------------- chapters 5-7 and 10
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



def test_scaling_ratios():
    fig, ax = plt.subplots()
    ratios = plots.scaling_ratios(ax, 128, scale=4.0, original_max_len=2048)
    assert set(ratios) == {"PI", "NTK-aware", "YaRN"}
    assert float(ratios["PI"][0]) == pytest.approx(0.25) and float(ratios["YaRN"][0]) == 1.0
    turns = 2048 * encodings.frequencies(128) / (2 * math.pi)   # YaRN keeps r_i > beta = 32
    assert f"{int((turns > 32).sum())} pairs kept by YaRN" in ax.get_title()
    plt.close("all")


def test_rope_angle_errors_plot():
    fig, ax = plt.subplots()
    positions = torch.tensor([1, 10, 100, 1000, 70000])
    errors = plots.rope_angle_errors(ax, positions, 128, dtypes=["bfloat16", "float16"])
    assert list(errors) == ["bfloat16", "float16", "book (float64 angles)"]
    assert [line.get_label() for line in ax.get_lines()] == list(errors)
    assert math.isnan(ax.get_lines()[1].get_ydata()[-1])     # float16 overflow: no point drawn
    assert ax.get_xlabel() == "position m"
    plt.close(fig)


# ------------------------------------------------- the explorers' drawings (chapters 1-4)
def test_draw_order_explorer(model):
    fig = plots.draw_order_explorer(model, TOKENS, order=[4, 3, 2, 1, 0])
    title = fig._suptitle.get_text()
    assert title.startswith("order B: 사랑해 를 너 는 나")
    change = float(title.rsplit("= ", 1)[1])
    assert change < 1e-6                       # no PE, no mask: blind to the order (up to rounding)
    panels = [ax for ax in fig.axes if ax.images]
    assert [ax.get_title() for ax in panels] == ["no PE: order A", "no PE: order B", "no PE: B - A"]
    assert abs(panels[2].images[0].get_array()).max() == pytest.approx(change, rel=0.05)
    plt.close(fig)
    fig = plots.draw_order_explorer(model, TOKENS, order=[4, 3, 2, 1, 0], positional=True, causal=True)
    panels = [ax for ax in fig.axes if ax.images]
    a, b = model.aligned_outputs(TOKENS, [4, 3, 2, 1, 0], positional=True, causal=True)
    assert panels[0].get_title() == "PE, causal: order A"
    assert (panels[2].images[0].get_array() == (b - a).numpy()).all()
    assert f"largest |B - A| = {float((b - a).abs().max()):.1e}" in fig._suptitle.get_text()
    assert float((b - a).abs().max()) > 0.01
    plt.close(fig)
    with pytest.raises(ValueError, match="order must be a permutation"):
        plots.draw_order_explorer(model, TOKENS, order=[0, 0, 1, 2, 3])


def test_draw_pe_explorer_follows_its_state():
    fig = plots.draw_pe_explorer(d_model=32, base=100.0, positions=(10, 60), dim=5)
    heat, lines = fig.axes[0], fig.axes[1]
    assert heat.get_title() == "PE, d = 32, base = 100"
    table = heat.images[0].get_array()
    assert table.shape == (50, 32)
    torch.testing.assert_close(torch.as_tensor(table.data),
                               encodings.sinusoidal_at(torch.arange(10, 60), 32, base=100.0), check_dtype=False)
    sin, cos = lines.get_lines()[:2]
    assert list(sin.get_xdata()) == list(range(10, 60))
    assert sin.get_label() == "dim 4 (sin)" and cos.get_label() == "dim 5 (cos)"
    assert lines.get_title().startswith("pair i = 2: wavelength")
    assert list(heat.get_lines()[0].get_xdata()) == [5, 5]        # the chosen dimension, dotted
    plt.close(fig)
    other = plots.draw_pe_explorer(d_model=32, base=100.0, positions=(10, 60), dim=20)
    assert other.axes[1].get_title().startswith("pair i = 10:")
    plt.close(other)
    with pytest.raises(ValueError, match="dim must be in 0 .. 31"):
        plots.draw_pe_explorer(d_model=32, dim=32)
    plt.close("all")


def test_draw_rotation_explorer_moves_each_pair_by_k_omega():
    fig = plots.draw_rotation_explorer(pos=3, k=5, d_model=16, pairs=(0, 2))
    assert len(fig.axes) == 2 and fig._suptitle.get_text() == "PE(p) to PE(p + k): p = 3, k = 5"
    w = encodings.frequencies(16)
    for ax, i in zip(fig.axes, (0, 2)):
        dot, square = ax.get_lines()[2], ax.get_lines()[3]
        assert dot.get_xydata()[0] == pytest.approx([math.sin(3 * w[i]), math.cos(3 * w[i])])
        assert square.get_xydata()[0] == pytest.approx([math.sin(8 * w[i]), math.cos(8 * w[i])])
        assert ax.get_title() == f"pair {i}: turns {5 * float(w[i]):.3g} rad"
    plt.close(fig)
    fig = plots.draw_rotation_explorer(pos=3, k=-1, d_model=16, pairs=(0, 2))
    assert fig.axes[0].get_lines()[3].get_xydata()[0] == pytest.approx([math.sin(2.0), math.cos(2.0)])
    plt.close(fig)


def test_draw_fingerprint_explorer_cosine_and_dot_product():
    fig = plots.draw_fingerprint_explorer(d_model=16, base=100.0, seq_len=24, cosine=True)
    (ax,) = [a for a in fig.axes if a.images]
    sim = ax.images[0].get_array()
    assert sim.shape == (24, 24) and ax.get_title() == "d = 16, base = 100"
    assert list(sim.diagonal()) == pytest.approx([1.0] * 24)
    plt.close(fig)
    fig = plots.draw_fingerprint_explorer(d_model=16, base=100.0, seq_len=40, cosine=False)
    sim = [a for a in fig.axes if a.images][0].images[0].get_array()
    assert sim.shape == (40, 40) and list(sim.diagonal()) == pytest.approx([8.0] * 40)   # |PE(p)|^2 = d/2
    plt.close(fig)



# ------------------------------------------------- the explorers' drawings (chapters 5-7, 10)
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

