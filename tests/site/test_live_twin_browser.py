"""The live twin in a browser: opened from file:// with the network blocked,
moving each control shows the matching frame and state, with no console
error. The twin's HTML as text is tested in tests/unit/plots/test_live.py,
whose test figure and controls this test shares."""

from __future__ import annotations

from urllib.parse import urlparse

from book import plots
from tests.unit.plots.test_live import ALT, CONTROLS, draw_state, frames


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
