"""The computed explorers in a browser: the page's numbers are book's.

Each explorer of ``book.plots.computed`` is opened from file:// with every
other request blocked. At a few random states, set through its controls as a
reader would, the values the page computed (``BookExplorers.mounted``) must
equal ``book.plots.computed.explorer_values`` for the state the page reports,
to 1e-6 relative. A deliberate change to one formula module of
``book/plots/js`` must make that comparison fail. The controls are labelled
and move from the keyboard, and the text alternative follows the state.
Skipped without Chromium, unless REQUIRE_BROWSER=1.
"""

from __future__ import annotations

import math
import random
from urllib.parse import urlparse

import numpy as np
import pytest
import torch

from book.plots import computed

RTOL = 1e-6
STATES = 4  # random states per explorer

#: The chapters' fixed inputs (chapter 6's query and key, as the chapter draws them).
_Q, _K = torch.randn(2, 16, dtype=torch.float64, generator=torch.Generator().manual_seed(10))
DATA = {"pe": {}, "rotation": {}, "fingerprint": {}, "rope": {"q": _Q, "k": _K}, "alibi": {}, "scaling": {}}

#: What the test reads from the page, per view: JSON-ready values (a heatmap's
#: entries are read at the points ``pts``, which the test picks).
READ = {
    "pe": "v => ({table: Array.from(v.table), wavelength: v.wavelength})",
    "rotation": "v => ({pe_p: v.pe_p, pe_pk: v.pe_pk, rad: v.rad, turns: v.turns})",
    "fingerprint": "(v, pts) => ({sim: pts.map(([p, q]) => v.at(p, q))})",
    "rope": "v => ({q_rot: v.q_rot, k_rot: v.k_rot, part: v.part, scores: v.scores, score: v.score})",
    "alibi": (
        "(v, pts) => ({slopes: v.slopes, slope: v.slope, halving: v.halving, top: v.top, weights: v.weights,"
        " bias: pts.map(([i, j]) => { const b = v.at(i, j); return Number.isNaN(b) ? 'nan' : b; })})"
    ),
    "scaling": (
        "v => ({wavelengths: v.wavelengths, first: v.first, ratios: v.ratios, kept: v.kept, yarn_kept: v.yarn_kept})"
    ),
}

#: One deliberate change per formula module (old text, new text) and a view that uses it.
SABOTAGE = {
    "sinusoidal": ("pe", "Math.pow(base, -(2 * i / d))", "Math.pow(base, -(2 * i / d) * (1 + 1e-5))"),
    "rope": ("rope", "s * x0 + c * x1]", "s * x0 + c * x1 * (1 + 1e-5)]"),
    "alibi": ("alibi", "Math.pow(2, -8 * h / n)", "Math.pow(2, -8 * h / n) * (1 + 1e-5)"),
    "scaling": ("scaling", "Math.pow(s, d / (d - 2))", "Math.pow(s, (d + 1e-3) / (d - 2))"),
}


def close(got, want, path: str = "") -> list[str]:
    """Where ``got`` (the page's) differs from ``want`` (book's) by more than
    ``RTOL`` relative; values near zero are compared against ``RTOL`` times
    the largest magnitude of their array."""
    if isinstance(want, dict):
        return [m for key in want for m in close(got[key], want[key], f"{path}.{key}")]
    if isinstance(want, (int, np.integer)) and not isinstance(want, bool):
        return [] if got == want else [f"{path}: {got} != {want}"]
    w = np.asarray(want, dtype=np.float64)
    g = np.asarray([math.nan if x == "nan" else x for x in np.ravel(got)], dtype=np.float64).reshape(np.shape(got))
    if g.shape != w.shape:
        return [f"{path}: shape {g.shape} != {w.shape}"]
    if not np.array_equal(np.isnan(g), np.isnan(w)):
        return [f"{path}: NaN in different places"]
    finite = ~np.isnan(w)
    scale = float(np.abs(w[finite]).max()) if finite.any() else 0.0
    err = np.abs(g - w)[finite]
    bad = err > RTOL * np.maximum(np.abs(w[finite]), 1e-3 * scale)
    return [f"{path}: {int(bad.sum())} of {bad.size} differ, worst {float(err.max()):.3g}"] if bad.any() else []


def _open(browser, tmp_path, view: str, replace: tuple[str, str] | None = None):
    text = computed.computed_html(
        view, name=f"t-{view}", alt="A test explorer's figure, computed in the page.", **DATA[view]
    )
    if replace is not None:
        assert text.count(replace[0]) == 1, f"the sabotage target {replace[0]!r} is not in the page once"
        text = text.replace(*replace)
    page_file = tmp_path / f"{view}.html"
    page_file.write_text(f'<!doctype html><html lang="en"><body>{text}</body></html>', encoding="utf-8")
    context = browser.new_context()
    blocked, errors = [], []
    context.route(
        "**/*",
        lambda r: (
            r.continue_() if urlparse(r.request.url).scheme == "file" else (blocked.append(r.request.url), r.abort())
        ),
    )
    page = context.new_page()
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(page_file.as_uri())
    return context, page, errors, blocked


def _random_state(page, view: str, rng: random.Random) -> None:
    """Move every control to a random position, in order, as a reader would."""
    for c in computed.COMPUTED_VIEWS[view]["controls"]:
        control = page.locator(f"#cx-t-{view} [data-param='{c['name']}']")
        if c["kind"] == "check":
            control.set_checked(rng.random() < 0.5)
        else:
            steps = round((c["max"] - c["min"]) / c["step"])
            control.fill(f"{c['min'] + c['step'] * rng.randint(0, steps):.10g}")


def _compare(page, view: str, rng: random.Random) -> list[str]:
    state = page.evaluate(f"() => BookExplorers.mounted['cx-t-{view}'].state")
    want = computed.explorer_values(view, state, **DATA[view])
    pts = []
    if view in ("fingerprint", "alibi"):
        n = state["seq_len"]
        pts = [[rng.randrange(n), rng.randrange(n)] for _ in range(200)] + [[n - 1, 0], [0, n - 1], [n - 1, n - 1]]
        want = dict(want)
        key = "sim" if view == "fingerprint" else "bias"
        want[key] = np.array([want[key][p, q] for p, q in pts])
    got = page.evaluate(
        f"([read, pts]) => eval(read)(BookExplorers.mounted['cx-t-{view}'].values, pts)", [READ[view], pts]
    )
    return [f"{view} at {state}: {m}" for m in close(got, want)]


@pytest.mark.parametrize("view", list(computed.COMPUTED_VIEWS))
def test_page_computes_books_values_at_random_states(browser, tmp_path, view):
    """At random states set through the controls, the page's numbers are book's to 1e-6."""
    context, page, errors, blocked = _open(browser, tmp_path, view)
    rng = random.Random(f"computed-{view}")
    try:
        mismatches = _compare(page, view, rng)  # the initial state
        for _ in range(STATES):
            _random_state(page, view, rng)
            mismatches += _compare(page, view, rng)
    finally:
        context.close()
    assert not mismatches, mismatches
    assert not errors and not blocked, (errors, blocked)


@pytest.mark.parametrize("module", list(SABOTAGE))
def test_a_changed_formula_fails_the_comparison(browser, tmp_path, module):
    """One formula module changed by 1e-5 relative: the page no longer matches book."""
    view, old, new = SABOTAGE[module]
    assert old in computed._module(module), f"{old!r} is not in {module}.js"
    context, page, errors, _ = _open(browser, tmp_path, view, replace=(old, new))
    rng = random.Random(f"sabotage-{module}")
    try:
        _random_state(page, view, rng)
        mismatches = _compare(page, view, rng)
    finally:
        context.close()
    assert not errors, errors
    assert mismatches, f"changing {module}.js went unnoticed"


@pytest.mark.parametrize("view", list(computed.COMPUTED_VIEWS))
def test_controls_are_labelled_and_move_from_the_keyboard(browser, tmp_path, view):
    """Every control has a label; an arrow key moves a slider, and the shown
    value, the figure and its text alternative follow."""
    context, page, errors, _ = _open(browser, tmp_path, view)
    root = f"#cx-t-{view}"
    try:
        for c in computed.COMPUTED_VIEWS[view]["controls"]:
            control = page.locator(f"{root} [data-param='{c['name']}']")
            assert page.locator(f"{root} label[for='{control.get_attribute('id')}']").inner_text() == c["label"]
        assert page.locator(f"{root} .cx-figure").get_attribute("role") == "img"
        first = computed.COMPUTED_VIEWS[view]["controls"][0]
        before = page.evaluate(
            f"() => [document.querySelector('{root} .cx-alt').textContent, document.querySelector('{root} svg').innerHTML,"
            f" document.querySelector('{root} output[data-for={first['name']}]').textContent]"
        )
        page.locator(f"{root} [data-param='{first['name']}']").focus()
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        after = page.evaluate(
            f"() => [document.querySelector('{root} .cx-alt').textContent, document.querySelector('{root} svg').innerHTML,"
            f" document.querySelector('{root} output[data-for={first['name']}]').textContent]"
        )
    finally:
        context.close()
    assert all(a != b for a, b in zip(after, before)), (before[0], after[0], before[2], after[2])
    assert not errors, errors
