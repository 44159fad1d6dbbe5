"""book.plots.live: the live twin as text (controls, labels, one frame per
state, each frame the draw function's own figure, images rendered or not
as ``render_images`` says). Opening a twin in a browser is tested in
tests/site/test_live_twin_browser.py."""

from __future__ import annotations

import base64
import io
import json
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest
from PIL import Image

from book import plots

ROOT = Path(__file__).resolve().parents[3]
ALT = "A test figure showing its state as a title and a line."


def draw_state(*, size: int, mode: str, flag: bool, offset: float = 0.0) -> plt.Figure:
    """A cheap figure that depends on every parameter."""
    fig, ax = plt.subplots(figsize=(2.0, 1.5))
    ax.plot(range(size), [offset + (i if mode == "up" else -i) for i in range(size)], lw=3 if flag else 1)
    ax.set_title(f"{size} {mode} {flag}")
    return fig


CONTROLS = {"size": [2, 5, 9], "mode": ["up", "down"], "flag": [False, True]}


def frames(text: str) -> dict[str, str]:
    return json.loads(
        re.search(r'<script type="application/json" class="live-frames">(.*?)</script>', text, re.S).group(1)
    )


def test_state_grid_is_the_product_last_control_fastest():
    grid = plots.live_state_grid(CONTROLS)
    assert len(grid) == 12
    assert grid[0] == {"size": 2, "mode": "up", "flag": False}
    assert grid[1] == {"size": 2, "mode": "up", "flag": True}
    assert grid[-1] == {"size": 9, "mode": "down", "flag": True}


@pytest.mark.parametrize(
    "controls, message",
    [
        ({}, "controls must name at least one parameter"),
        ({"a": []}, r"controls\['a'\] must hold at least one value"),
        ({"a": [1, 1]}, r"controls\['a'\] must not repeat a value"),
        ({"a": range(10), "b": range(10)}, "controls make 100 states; at most 64"),
    ],
)
def test_state_grid_rejects_bad_grids(controls, message):
    with pytest.raises(ValueError, match=message):
        plots.live_state_grid(controls)


def test_figure_data_uri_is_a_stable_palette_png():
    uri = plots.figure_data_uri(draw_state(size=5, mode="up", flag=True))
    again = plots.figure_data_uri(draw_state(size=5, mode="up", flag=True))
    assert uri == again  # no date or version in the bytes
    data = base64.b64decode(uri.removeprefix("data:image/png;base64,"))
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG" and image.mode == "P" and "Software" not in image.info
    assert 100 < image.size[0] < 170  # 2 inches at 72 dpi, tight box
    big = plots.figure_data_uri(draw_state(size=5, mode="up", flag=True), dpi=144)
    big_size = Image.open(io.BytesIO(base64.b64decode(big.split(",")[1]))).size
    assert big_size[0] == pytest.approx(2 * image.size[0], abs=4)
    other = plots.figure_data_uri(draw_state(size=5, mode="down", flag=True))
    assert other != uri
    full = plots.figure_data_uri(draw_state(size=5, mode="up", flag=True), colors=0)
    assert Image.open(io.BytesIO(base64.b64decode(full.split(",")[1]))).mode in ("RGB", "RGBA")


def test_live_html_has_labelled_controls_and_one_frame_per_state():
    text = plots.live_html(
        draw_state, CONTROLS, name="t-1", alt=ALT, labels={"size": "points"}, initial={"mode": "down"}, offset=1.0
    )
    assert text.count('id="live-t-1"') == 1
    assert re.search(
        r'<label[^>]*>points <input type="range" min="0" max="2" step="1" value="0" '
        r'data-param="size" aria-label="points">',
        text,
    )
    assert (
        '<select data-param="mode" aria-label="mode"><option value="0">up</option>'
        '<option value="1" selected>down</option></select>' in text
    )
    assert '<option value="0" selected>off</option><option value="1">on</option>' in text  # booleans
    assert '<output data-for="mode" style="font-weight:bold">down</output>' in text
    assert ">size = 2, mode = down, flag = off</div>" in text
    shown = frames(text)
    assert sorted(shown) == sorted(f"{i},{j},{k}" for i in range(3) for j in range(2) for k in range(2))
    # every frame is the draw function's figure for that state, with the fixed arguments
    assert shown["2,0,1"] == plots.figure_data_uri(draw_state(size=9, mode="up", flag=True, offset=1.0))
    assert shown["2,0,1"] != plots.figure_data_uri(draw_state(size=9, mode="up", flag=True))
    assert f'src="{shown["0,1,0"]}" data-state="0,1,0" alt="{ALT}"' in text
    assert "http" not in text.replace(ALT, "")  # nothing to fetch
    assert text == plots.live_html(
        draw_state, CONTROLS, name="t-1", alt=ALT, labels={"size": "points"}, initial={"mode": "down"}, offset=1.0
    )  # the same on every run


def test_without_images_a_twin_is_the_same_html_with_its_images_masked():
    """render_images=False (the other-CPU nbval passes) draws every state
    but renders none: what nbval compares, the HTML with the images masked by
    tests/nbval_sanitize.cfg, is unchanged, and a failing state still raises."""
    cfg = (ROOT / "tests" / "nbval_sanitize.cfg").read_text()
    pattern = re.search(r"\[live-twin images\].*?regex: (\S+)\nreplace: (\S+)", cfg, re.S)
    mask = lambda text: re.sub(pattern.group(1), pattern.group(2), text)  # noqa: E731
    kw = dict(name="t-2", alt=ALT, initial={"mode": "down"})
    rendered = plots.live_html(draw_state, CONTROLS, **kw)
    drawn = []
    fast = plots.live_html(lambda **st: drawn.append(st) or draw_state(**st), CONTROLS, render_images=False, **kw)
    assert mask(fast) == mask(rendered) and fast != rendered
    assert len(drawn) == 12 and len(set(frames(fast).values())) == 1  # every state drawn, none rendered
    assert Image.open(io.BytesIO(base64.b64decode(frames(fast)["0,0,0"].split(",")[1]))).size == (1, 1)
    assert plt.get_fignums() == []  # and closed

    def fails_at_nine(**st):
        if st["size"] == 9:
            raise RuntimeError("state 9 fails")
        return draw_state(**st)

    with pytest.raises(RuntimeError, match="state 9 fails"):
        plots.live_html(fails_at_nine, CONTROLS, render_images=False, **kw)


def test_live_html_renders_whatever_the_environment_says(monkeypatch):
    """The library reads no environment variable: ``render_images`` alone
    decides (the notebooks pass it from ``BOOK_LIVE_TWIN_IMAGES``)."""
    kw = dict(name="t-env", alt=ALT)
    rendered = plots.live_html(draw_state, {"size": [2, 3]}, mode="up", flag=False, **kw)
    monkeypatch.setenv("BOOK_LIVE_TWIN_IMAGES", "0")
    assert plots.live_html(draw_state, {"size": [2, 3]}, mode="up", flag=False, **kw) == rendered
    placeholder = plots.live_html(draw_state, {"size": [2, 3]}, mode="up", flag=False, render_images=False, **kw)
    monkeypatch.setenv("BOOK_LIVE_TWIN_IMAGES", "1")
    assert (
        plots.live_html(draw_state, {"size": [2, 3]}, mode="up", flag=False, render_images=False, **kw)
        == placeholder
        != rendered
    )
    twin = plots.live_twin(draw_state, {"size": [2, 3]}, mode="up", flag=False, render_images=False, **kw)
    assert twin.data == placeholder


def test_live_html_inlines_live_twin_js_on_one_line():
    """The page's script is ``live_twin.js`` without its comments, indentation
    and line breaks, with the twin's element id filled in."""
    from importlib.resources import files

    source = files("book.plots").joinpath("live_twin.js").read_text(encoding="utf-8")
    assert "LIVE_ID" in source and source.lstrip().startswith("//")
    text = plots.live_html(draw_state, {"size": [2, 3]}, name="js-1", alt=ALT, mode="up", flag=False)
    script = re.search(r"<script>(.*?)</script>", text, re.S).group(1)
    assert "\n" not in script and "//" not in script and "LIVE_ID" not in script
    assert script.startswith('(function(){var root=document.getElementById("live-js-1");')
    assert script.endswith("update();})();")


def test_live_html_escapes_labels_inside_scripts():
    text = plots.live_html(
        lambda *, mode: draw_state(size=3, mode="up", flag=mode == "</script>"),
        {"mode": ["a", "</script>"]},
        name="esc",
        alt=ALT,
    )
    spec = re.search(r'class="live-spec">(.*?)</script>', text).group(1)
    assert "</script>" not in spec and json.loads(spec)["labels"]["mode"] == ["a", "</script>"]
    assert '<option value="1">&lt;/script&gt;</option>' in text


@pytest.mark.parametrize(
    "kwargs, exc, message",
    [
        ({"name": "has space"}, ValueError, "name must be letters, digits and '-'"),
        ({"alt": "short"}, ValueError, "alt must describe the figure"),
        ({"initial": {"size": 4}}, ValueError, r"initial\['size'\] must be one of \[2, 5, 9\]"),
        ({"initial": {"colour": "red"}}, ValueError, "initial names parameters that are not controls"),
    ],
)
def test_live_html_rejects_bad_arguments(kwargs, exc, message):
    args = {"name": "ok", "alt": ALT, **kwargs}
    with pytest.raises(exc, match=message):
        plots.live_html(draw_state, CONTROLS, **args)


def test_live_html_needs_a_figure():
    with pytest.raises(TypeError, match="draw must return a matplotlib Figure, got NoneType"):
        plots.live_html(lambda *, a: None, {"a": [1, 2]}, name="none", alt=ALT)


def test_live_twin_is_an_html_display_object():
    from IPython.display import HTML

    twin = plots.live_twin(draw_state, {"size": [2, 3]}, name="obj", alt=ALT, mode="up", flag=False)
    assert isinstance(twin, HTML) and twin.data.startswith('<div class="live-twin" id="live-obj"')
