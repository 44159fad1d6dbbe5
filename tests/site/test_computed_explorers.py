"""The computed explorers in a browser: the page's numbers are book's.

Each explorer of ``book.plots.computed`` is opened from file:// with every
other request blocked. At a few random states, set through its controls as a
reader would, the values the page computed (``BookExplorers.mounted``) must
equal ``book.plots.computed.explorer_values`` for the state the page reports,
to 1e-6 relative (chapter 11's cosine errors to one float32 ulp as well,
``atol``). A deliberate change to one formula module of
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
DATA = {
    "pe": {},
    "rotation": {},
    "fingerprint": {},
    "rope": {"q": _Q, "k": _K},
    "alibi": {},
    "scaling": {},
    "precision": {},
}

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
    "precision": (
        "v => ({positions: v.positions, errors: Array.from(v.errors, e => e === Infinity ? 'inf' : e),"
        " book: Array.from(v.book), off: v.off, overflow: v.overflow, unheld: v.unheld})"
    ),
}


def atol(view: str, state: dict) -> dict[str, float]:
    """Absolute tolerances beside RTOL, by entry, each derived from a rounding
    the page cannot repeat bit for bit.

    Chapter 11: the page's ``theta_i = base^(-2i/d)`` (``Math.pow``) may be
    one float64 ulp (at most ``2^-52 theta_i``) off torch's, which moves the
    float64 angle ``m theta_i`` by at most ``longest 2^-52`` and so its cosine;
    and torch's float32 cosine of a low-precision angle (its CPU kernel's,
    within one float32 step) may be one float32 ulp (``2^-24`` for ``|cos| <= 1``) off
    the page's correctly rounded one (``Math.fround(Math.cos(a))``).
    """
    if view != "precision":
        return {}
    angle = state["longest"] * 2.0**-52 + 2.0**-50
    return {".book": angle, ".errors": angle + 2.0**-24}


#: One deliberate change per formula module (old text, new text) and a view that uses it.
SABOTAGE = {
    "sinusoidal": ("pe", "Math.pow(base, -(2 * i / d))", "Math.pow(base, -(2 * i / d) * (1 + 1e-5))"),
    "rope": ("rope", "s * x0 + c * x1]", "s * x0 + c * x1 * (1 + 1e-5)]"),
    "alibi": ("alibi", "Math.pow(2, -8 * h / n)", "Math.pow(2, -8 * h / n) * (1 + 1e-5)"),
    "scaling": ("scaling", "Math.pow(s, d / (d - 2))", "Math.pow(s, (d + 1e-3) / (d - 2))"),
    "precision": (
        "precision",
        "Math.cos(mul(pd, low[i], dtype))",
        "Math.cos(mul(pd, low[i], dtype) * (1 + 1e-5))",
    ),
}


def close(got, want, path: str = "", tol: dict[str, float] | None = None) -> list[str]:
    """Where ``got`` (the page's) differs from ``want`` (book's) by more than
    ``RTOL`` relative plus ``tol[path]`` absolute (default 0); values near
    zero are compared against ``RTOL`` times the largest magnitude of their
    array. Integers, and lists of them, must be equal; NaN and inf (the page
    may send ``"nan"``, ``"inf"``) in the same places."""
    tol = tol or {}
    if isinstance(want, dict):
        return [m for key in want for m in close(got[key], want[key], f"{path}.{key}", tol)]
    if isinstance(want, (int, np.integer)) and not isinstance(want, bool):
        return [] if got == want else [f"{path}: {got} != {want}"]
    if isinstance(want, list) and want and all(isinstance(x, int) for x in want):
        return [] if list(got) == want else [f"{path}: the integers differ"]
    w = np.asarray(want, dtype=np.float64)
    words = {"nan": math.nan, "inf": math.inf}
    g = np.asarray([words.get(x, x) if isinstance(x, str) else x for x in np.ravel(got)], dtype=np.float64).reshape(
        np.shape(got)
    )
    if g.shape != w.shape:
        return [f"{path}: shape {g.shape} != {w.shape}"]
    if not np.array_equal(np.isnan(g), np.isnan(w)):
        return [f"{path}: NaN in different places"]
    if not np.array_equal(np.isinf(g), np.isinf(w)) or not np.array_equal(g[np.isinf(w)], w[np.isinf(w)]):
        return [f"{path}: inf in different places"]
    finite = np.isfinite(w)
    scale = float(np.abs(w[finite]).max()) if finite.any() else 0.0
    err = np.abs(g - w)[finite]
    bad = err > RTOL * np.maximum(np.abs(w[finite]), 1e-3 * scale) + tol.get(path, 0.0)
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
        elif c["kind"] == "choice":
            control.select_option(rng.choice(c["options"]))
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
    return [f"{view} at {state}: {m}" for m in close(got, want, tol=atol(view, state))]


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


#: Chapter 11's explorer at the ends of its ranges: float16's overflow, float32
#: at the longest positions, the smallest width and base (slider positions).
PRECISION_STATES = [
    {"dtype": "float16", "d_model": "64", "base": f"{math.log10(5e5):.10g}", "longest": "20"},
    {"dtype": "float16", "d_model": "256", "base": "7", "longest": "24"},
    {"dtype": "float32", "d_model": "256", "base": "7", "longest": "24"},
    {"dtype": "bfloat16", "d_model": "8", "base": "2", "longest": "4"},
]


def test_precision_explorer_at_the_ends_of_its_ranges(browser, tmp_path):
    """float16 overflowing (and its smallest thetas subnormal, not zero),
    float32 at 2^24, the smallest head width and base: the page's numbers are
    book's, and its text names 65,520 as the first position float16 cannot hold."""
    context, page, errors, _ = _open(browser, tmp_path, "precision")
    mismatches, overflows, texts = [], [], []
    try:
        for state in PRECISION_STATES:
            for name, value in state.items():
                control = page.locator(f"#cx-t-precision [data-param='{name}']")
                control.select_option(value) if name == "dtype" else control.fill(value)
            mismatches += _compare(page, "precision", random.Random(0))
            overflows.append(
                page.evaluate(
                    "() => { const v = BookExplorers.mounted['cx-t-precision'].values;"
                    " return [v.overflow, v.positions.find(p => p >= 65520) ?? -1]; }"
                )
            )
            texts.append(page.locator("#cx-t-precision .cx-alt").text_content())
    finally:
        context.close()
    assert not mismatches, mismatches
    # float16 (largest 65504) overflows from the first position past 65519; the others do not
    assert [o for o, _ in overflows] == [overflows[0][1], overflows[1][1], -1, -1] and overflows[0][1] > 0, overflows
    assert all("float16 cannot hold positions from 65,520 on" in t for t in texts[:2]), texts
    assert not any("cannot hold" in t for t in texts[2:]), texts
    assert not errors, errors


#: Rounding cases: ties (to even), float16's subnormals and overflow, and
#: float64 values whose rounding through float32 (as torch does) differs from
#: a direct rounding.
_TIES = [
    1 + 2**-8,
    1 + 3 * 2**-8,
    -(1 + 2**-8),
    3 * 2**-134,
    2**-134,
    1 + 2**-8 + 2**-40,  # bfloat16
    1 + 2**-11,
    1 + 3 * 2**-11,
    1 + 2**-11 + 2**-40,
    2**-25,
    3 * 2**-25,
    2**-25 + 2**-30,
    5 * 2**-26,  # float16
    65504.0,
    65519.0,
    65519.99,
    65520.0,
    65536.0,
    -65520.0,
    2.0**-14 - 2**-25,
    2.0**-14 - 2**-26,
    1e-30,
    0.0,
]


def _rounding_cases(dtype: torch.dtype) -> tuple[list[float], list[int], list[list[float]]]:
    g = torch.Generator().manual_seed(11)
    spread = torch.exp(torch.empty(3000, dtype=torch.float64).uniform_(math.log(1e-9), math.log(1e8), generator=g))
    signs = torch.where(torch.rand(3000, generator=g) < 0.5, -1.0, 1.0).to(torch.float64)
    values = _TIES + (spread * signs).tolist()
    ints = [1, 2, 255, 257, 65504, 65519, 65520, 2**24] + torch.randint(1, 2**24, (1000,), generator=g).tolist()
    a = torch.tensor(ints[:1000]).to(dtype)
    b = torch.exp(torch.empty(1000, dtype=torch.float64).uniform_(math.log(1e-9), 0, generator=g)).to(dtype)
    pairs = [[x, y] for x, y in zip(a.double().tolist(), b.double().tolist())]
    return values, ints, pairs


def _as_words(values: list[float]) -> list:
    return ["nan" if math.isnan(x) else "inf" if x == math.inf else "-inf" if x == -math.inf else x for x in values]


@pytest.mark.parametrize("sabotage", [False, True], ids=["as-written", "ties-away-from-zero"])
@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float32"])
def test_low_precision_rounding_is_torchs_to_the_bit(browser, tmp_path, dtype, sabotage):
    """precision.js rounds a float64 and an int64 to the dtype, and a product
    of two values of the dtype, exactly as torch does (ties, subnormals,
    overflow, rounding through float32); rounding ties away from zero fails."""
    replace = ("(frac === 0.5 && n % 2 === 1)", "(frac === 0.5)") if sabotage else None
    context, page, errors, _ = _open(browser, tmp_path, "precision", replace=replace)
    t = getattr(torch, dtype)
    values, ints, pairs = _rounding_cases(t)
    want = {
        "values": _as_words(torch.tensor(values, dtype=torch.float64).to(t).double().tolist()),
        "ints": _as_words(torch.tensor(ints).to(t).double().tolist()),
        "products": _as_words((torch.tensor(pairs).to(t)[:, 0] * torch.tensor(pairs).to(t)[:, 1]).double().tolist()),
    }
    try:
        got = page.evaluate(
            """([dtype, values, ints, pairs]) => {
              const P = BookExplorers.precision;
              const word = x => Number.isNaN(x) ? 'nan' : x === Infinity ? 'inf' : x === -Infinity ? '-inf' : x;
              return {values: values.map(x => word(P.toDtype(x, dtype))), ints: ints.map(x => word(P.toDtype(x, dtype))),
                      products: pairs.map(([a, b]) => word(P.mul(a, b, dtype)))};
            }""",
            [dtype, values, ints, pairs],
        )
    finally:
        context.close()
    wrong = {
        k: [
            (x, g, w)
            for x, g, w in zip(values if k == "values" else ints if k == "ints" else pairs, got[k], want[k])
            if g != w
        ]
        for k in want
    }
    assert not errors, errors
    if sabotage and dtype != "float32":
        assert any(wrong.values()), "rounding ties away from zero went unnoticed"
    else:
        assert not any(wrong.values()), {k: v[:5] for k, v in wrong.items()}
