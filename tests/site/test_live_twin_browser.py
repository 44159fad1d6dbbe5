"""The live twin in a browser: opened from file:// with the network blocked,
moving each control shows the matching frame and state, with no console
error. The twin's HTML as text is tested in tests/unit/plots/test_live.py."""

from __future__ import annotations

import json
import re
from urllib.parse import urlparse

import matplotlib.pyplot as plt

from book import plots

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


def test_live_twin_runs_in_a_browser_from_file(tmp_path, browser):
    """From file://, offline: every control switches to its frame and shows its value."""
    text = plots.live_html(draw_state, CONTROLS, name="b-1", alt=ALT)
    page_file = tmp_path / "twin.html"
    page_file.write_text(f"<!doctype html><html><body>{text}</body></html>", encoding="utf-8")
    shown = frames(text)
    context = browser.new_context()
    blocked, errors = [], []
    context.route(
        "**/*",
        lambda r: (
            r.continue_()
            if urlparse(r.request.url).scheme in ("file", "data")
            else (blocked.append(r.request.url), r.abort())
        ),
    )
    page = context.new_page()
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(page_file.as_uri())
    img = page.locator("#live-b-1 img.live-figure")
    assert img.get_attribute("src") == shown["0,0,0"]
    page.locator("#live-b-1 [data-param=size]").fill("2")
    assert img.get_attribute("src") == shown["2,0,0"]
    assert page.locator("#live-b-1 output[data-for=size]").inner_text() == "9"
    page.locator("#live-b-1 [data-param=mode]").select_option(label="down")
    page.locator("#live-b-1 [data-param=flag]").select_option(label="on")
    assert img.get_attribute("src") == shown["2,1,1"]
    assert page.locator("#live-b-1 .live-state").inner_text() == "size = 9, mode = down, flag = on"
    assert img.evaluate("e => e.complete && e.naturalWidth > 0")
    context.close()
    assert not errors and not blocked, (errors, blocked)
