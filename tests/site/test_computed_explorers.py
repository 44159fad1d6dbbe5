"""The computed explorers in a browser: the page's numbers are book's.

Each explorer of ``book.plots.computed`` is opened from file:// with every
other request blocked. At a few random states, set through its controls as a
reader would, the values the page computed (``BookExplorers.mounted``) must
equal ``book.plots.computed.explorer_values`` for the state the page reports,
to 1e-6 relative (chapter 11's cosine errors to one float32 ulp as well,
``atol``; T5's buckets, integers, exactly, except where the last bit of a
float32 logarithm decides: see ``t5_mismatches``). A deliberate change to one formula module of
``book/plots/js`` must make that comparison fail. The controls are labelled
and move from the keyboard, and the text alternative follows the state.
Skipped without Chromium, unless REQUIRE_BROWSER=1.
"""

from __future__ import annotations

import json
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
    "t5": {},
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
    "t5": "v => ({buckets: v.buckets, exact: v.exact, last: v.last})",
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
    "t5": ("t5", "Math.trunc(", "Math.round("),  # rounds the logarithmic buckets instead of truncating
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
    err = np.abs(g[finite] - w[finite])  # only where both are finite (inf - inf is NaN)
    bad = err > RTOL * np.maximum(np.abs(w[finite]), 1e-3 * scale) + tol.get(path, 0.0)
    return [f"{path}: {int(bad.sum())} of {bad.size} differ, worst {float(err.max()):.3g}"] if bad.any() else []


def t5_undecided(distances, num_buckets: int, max_distance: int, bidirectional: bool) -> np.ndarray:
    """Which ``distances`` fall where T5's logarithmic bucket,
    ``log(r / h) / log(max_distance / h) * (B - h)`` (``B`` buckets a
    direction, ``h = B // 2``), is an integer in exact arithmetic (to 1e-5
    relative). There torch's float32 logarithm (MKL's on x86, within an ulp)
    and the page's (correctly rounded) may put the floor on either side: at
    B = 10, max distance 686 and r = 14, ``log 7 / log 343 * 3`` is exactly 1
    and torch's bucket is one above the page's."""
    per_direction = num_buckets // 2 if bidirectional else num_buckets
    half, wide = per_direction // 2, per_direction - per_direction // 2
    r = np.asarray(distances, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):  # log(0) at r = 0, below the range anyway
        x = np.log(r / half) / math.log(max_distance / half) * wide
        return (r >= half) & (np.abs(x - np.round(x)) <= 1e-5 * np.maximum(x, 1.0))


def t5_mismatches(got: dict, want: dict, state: dict) -> tuple[list[str], int]:
    """Where the page's T5 buckets and landmarks differ from book's, and how
    many offsets differ by one bucket where ``t5_undecided`` allows it.
    Everywhere else the buckets must be equal."""
    nb, d, bidi = int(state["num_buckets"]), int(state["max_distance"]), bool(state["bidirectional"])
    g, w = np.asarray(got["buckets"]), np.asarray(want["buckets"])
    if g.shape != w.shape:
        return [f"buckets: shape {g.shape} != {w.shape}"], 0
    k = (len(w) - 1) // 2
    offsets = np.arange(-k, k + 1)
    undecided = t5_undecided(np.abs(offsets) if bidi else np.maximum(-offsets, 0), nb, d, bidi)
    differ = g != w
    out = []
    wrong = differ & ~(undecided & (np.abs(g - w) == 1))
    if wrong.any():
        i = np.nonzero(wrong)[0][:5]
        out.append(
            f"buckets: {int(wrong.sum())} of {w.size} differ, at offsets {offsets[i].tolist()}: {g[i]} != {w[i]}"
        )
    if got["exact"] != want["exact"]:
        out.append(f"exact: {got['exact']} != {want['exact']}")
    lo, hi = sorted((int(got["last"]), int(want["last"])))
    if not t5_undecided(np.arange(lo, hi), nb, d, bidi).all():
        out.append(f"last: {got['last']} != {want['last']}")
    return out, int(differ.sum()) - int(wrong.sum())


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
    found = t5_mismatches(got, want, state)[0] if view == "t5" else close(got, want, tol=atol(view, state))
    return [f"{view} at {state}: {m}" for m in found]


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


#: T5 settings for the exhaustive comparison: every bucket count the slider
#: allows, both directions, max distances that include T5's (128), small and
#: large ones and some where the float32 logarithm decides (686, 1029, 2744).
T5_DISTANCES = (3, 4, 5, 6, 8, 10, 13, 16, 20, 27, 32, 50, 64, 100, 128, 256)
T5_DISTANCES += (343, 512, 686, 1000, 1029, 2048, 2744, 4096)
T5_REACH = 8192  # offsets -8192 .. 8192, the slider's end

#: The page's buckets of every setting as runs ``[first offset, bucket]``, with
#: its landmarks, sent back as one JSON string: Playwright checks and converts
#: a returned object value by value in Python, which took longer than the
#: page's own computing (about 12 s of CPU for the 350,000 values here).
T5_RUNS = """([settings, K]) => JSON.stringify(settings.map(([nb, d, bidi]) => {
  const T = BookExplorers.t5, s = T.setting(nb, d, bidi), runs = [];
  let prev = null;
  for (let o = -K; o <= K; o++) { const b = T.bucket(s, o); if (b !== prev) { runs.push([o, b]); prev = b; } }
  return {runs: runs, ...T.landmarks(s, d)};
}))"""


def test_t5_page_buckets_are_books_at_every_offset_of_many_settings(browser, tmp_path):
    """t5.js against t5_relative_bucket at every offset -8192 .. 8192 of some
    2,000 settings: equal, but for a few offsets where the float32
    logarithm's last bit decides (``t5_undecided``), which may differ by one
    bucket."""
    settings = [
        (nb, d, bidi)
        for bidi in (True, False)
        for nb in range(4, 129, 2)
        for d in T5_DISTANCES
        if d > (nb // 2 if bidi else nb) // 2
    ]
    context, page, errors, _ = _open(browser, tmp_path, "t5")
    try:
        pages = json.loads(page.evaluate(T5_RUNS, [settings, T5_REACH]))
    finally:
        context.close()
    assert not errors, errors
    offsets = torch.arange(-T5_REACH, T5_REACH + 1)
    mismatches, tolerated = [], 0
    for (nb, d, bidi), got in zip(settings, pages):
        starts = [o for o, _ in got["runs"]] + [T5_REACH + 1]
        buckets = np.empty(offsets.numel(), dtype=np.int64)
        for (o, b), end in zip(got["runs"], starts[1:]):
            buckets[o + T5_REACH : end + T5_REACH] = b
        state = {"num_buckets": nb, "max_distance": d, "bidirectional": bidi, "max_offset": T5_REACH}
        want = computed.explorer_values("t5", state)
        found, n = t5_mismatches({**got, "buckets": buckets}, want, state)
        mismatches += [f"{state}: {m}" for m in found]
        tolerated += n
    assert len(settings) == 2010
    assert not mismatches, mismatches[:10]
    total = len(settings) * offsets.numel()
    assert tolerated < 1e-5 * total, f"{tolerated} of {total} offsets differ by one bucket where undecided"
    print(f"T5: {tolerated} of {total:,} offsets of {len(settings)} settings differ by one bucket, where undecided")


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
    assert all("float16 rounds positions from 65,520 on to inf" in t for t in texts[:2]), texts
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


def test_t5_comparison_allows_one_bucket_only_where_the_logarithm_decides():
    """At B = 10, max distance 686, offset -14 the exact bucket value is an
    integer: a one-bucket difference passes there and nowhere else; two
    buckets, or a wrong landmark, never pass."""
    state = {"num_buckets": 10, "max_distance": 686, "bidirectional": True, "max_offset": 20}
    want = computed.explorer_values("t5", state)
    assert t5_undecided([14, 98], 10, 686, True).all() and not t5_undecided([13, 15, 97, 99], 10, 686, True).any()
    at = 20 - 14
    for where, by, allowed in ((at, -1, True), (at, 2, False), (20 - 13, 1, False), (20 + 15, -1, False)):
        got = dict(want, buckets=want["buckets"].copy())
        got["buckets"][where] += by
        found, tolerated = t5_mismatches(got, want, state)
        assert (not found and tolerated == 1) if allowed else (found and tolerated == 0), (where, by, found)
    assert want["last"] == 98 and t5_undecided([98], 10, 686, True).all()  # 2 * 343 ** (2 / 3)
    assert not t5_mismatches(dict(want, last=99), want, state)[0]
    assert t5_mismatches(dict(want, last=97), want, state)[0] and t5_mismatches(dict(want, last=100), want, state)[0]
    assert t5_mismatches(dict(want, exact=want["exact"] + 1), want, state)[0]


@pytest.mark.parametrize("bidirectional", [True, False], ids=["encoder", "decoder"])
def test_t5_explorer_at_the_smallest_max_distance_and_most_buckets(browser, tmp_path, bidirectional):
    """The max-distance slider at its minimum (3) and the buckets slider
    pushed to its end: the page holds the buckets at the most that
    ``t5_relative_bucket`` allows there (10 in the encoder, 4 in the
    decoder), its numbers are book's, and book rejects one step more."""
    context, page, errors, _ = _open(browser, tmp_path, "t5")
    root = "#cx-t-t5"
    controls = {c["name"]: c for c in computed.COMPUTED_VIEWS["t5"]["controls"]}
    try:
        page.locator(f"{root} [data-param='bidirectional']").set_checked(bidirectional)
        page.locator(f"{root} [data-param='max_distance']").fill(f"{controls['max_distance']['min']:.10g}")
        page.locator(f"{root} [data-param='num_buckets']").fill(f"{controls['num_buckets']['max']:.10g}")
        state = page.evaluate("() => BookExplorers.mounted['cx-t-t5'].state")
        mismatches = _compare(page, "t5", random.Random(0))
        alt = page.evaluate(f"() => document.querySelector('{root} .cx-alt').textContent")
    finally:
        context.close()
    most = 10 if bidirectional else 4
    assert (state["max_distance"], state["num_buckets"], state["bidirectional"]) == (3, most, bidirectional), state
    assert not mismatches, mismatches
    if bidirectional:  # 5 buckets a side; distance 3 is the last bucket's (4 and 9); 3 and 8 are skipped
        assert "Bucket 5 (after the query, distance 0) is never used" in alt, alt
        assert "bucket 4 before the query, 9 after it" in alt, alt
    else:  # distance 0 shares bucket 0 with every key after the query
        assert "Each distance from 1 to 1 back has its own bucket" in alt, alt
        assert "Bucket 0 holds distance 0: the query's own position and every key after the query" in alt, alt
    step = controls["num_buckets"]["step"]
    with pytest.raises(ValueError, match="max_distance must exceed the exact range"):
        computed.explorer_values("t5", dict(state, num_buckets=most + step))
    assert not errors, errors


def test_t5_legend_lists_only_the_lines_it_draws(browser, tmp_path):
    """As ``draw_t5_bucket_explorer``: when the last bucket starts beyond the
    offsets shown, neither its dotted line nor its legend entry appears (the
    title still names the distance); within them, both do."""
    context, page, errors, _ = _open(browser, tmp_path, "t5")
    root = "#cx-t-t5"
    controls = {c["name"]: c for c in computed.COMPUTED_VIEWS["t5"]["controls"]}
    count = f"() => document.querySelector('{root} svg').innerHTML.split('last bucket from distance').length - 1"
    try:
        inside = page.evaluate(count)  # T5's setting: the last bucket starts within the offsets
        page.locator(f"{root} [data-param='max_distance']").fill(f"{controls['max_distance']['max']:.10g}")
        page.locator(f"{root} [data-param='max_offset']").fill(f"{controls['max_offset']['min']:.10g}")
        state = page.evaluate("() => BookExplorers.mounted['cx-t-t5'].state")
        values = page.evaluate("() => BookExplorers.mounted['cx-t-t5'].values")
        outside = page.evaluate(count)
    finally:
        context.close()
    assert values["last"] > state["max_offset"] >= values["exact"] + 1, (values["last"], state)
    assert (inside, outside) == (2, 1)
    assert not errors, errors
