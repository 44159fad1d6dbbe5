"""The built website, opened in a real browser with no network beyond this machine.

Playwright drives Debian's Chromium (no browser download). Every page of the
table of contents is served from 127.0.0.1; any request elsewhere is blocked
and recorded. Each page must load without console errors or failed requests
to the site's own files, show every image (each with alt text), typeset its
math, keep its headings in order, link only to pages and anchors that exist,
stay under 3 MB (its own HTML and images; and all it transfers on a first
visit, text gzip-compressed as a server sends it), and (for chapters with an
explorer) carry its static twin. The pages include the library reference.
Every chapter's explorer has a live twin or a computed explorer that runs
in the page: each control of a twin, moved with no kernel and no network,
changes the figure to that state's and shows the values chosen, and one
state's image is the one the explorer's draw function produces; each slider
and drop-down list of a computed explorer, moved from the keyboard, redraws
its figure and its text alternative.
The animation player must play; a link to a function in the reference must
lead to its entry; search must work, served and opened from file:// (the
folder of files), with no console errors.

Without Chromium the test is skipped, unless REQUIRE_BROWSER=1 (set by CI),
in which case it fails.
"""

from __future__ import annotations

import functools
import gzip
import http.server
import json
import math
import re
import threading
from pathlib import Path
from urllib.parse import urljoin, urlparse

import pytest
import yaml

from tests.conftest import PAGE_WEIGHTS

ROOT = Path(__file__).resolve().parents[2]
TOC = yaml.safe_load((ROOT / "_toc.yml").read_text())
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text())


def _files(entries) -> list[str]:
    """Files of the table of contents in reading order: each chapter, then its sections."""
    return [f for e in entries for f in [e["file"], *_files(e.get("sections", []))]]


PAGES = [TOC["root"]] + _files(ch for part in TOC["parts"] for ch in part["chapters"])
REFERENCE_PAGES = [p for p in PAGES if p.startswith("reference/")]
MAX_PAGE_BYTES = 3 * 1024 * 1024


@pytest.fixture(scope="module")
def server(built_site):
    html, result = built_site
    assert result.returncode == 0, "the site did not build"

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):  # keep the test output readable
            pass

    handler = functools.partial(Quiet, directory=str(html))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/", html
    httpd.shutdown()


class PageVisit:
    """Open one page with all outside requests blocked, and record what happened."""

    def __init__(self, browser, base: str, page_name: str):
        self.errors: list[str] = []
        self.failed: list[str] = []
        self.blocked: list[str] = []
        self.context = browser.new_context()
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("requestfailed", self._failed)
        self.url = urljoin(base, f"{page_name}.html")
        self.page.goto(self.url, wait_until="commit")  # loads while other pages load too

    def wait_loaded(self) -> PageVisit:
        """Wait until the page has loaded, and 300 ms more for its scripts."""
        self.page.wait_for_load_state("load")
        self.page.wait_for_timeout(300)
        return self

    def _route(self, route):
        host = urlparse(route.request.url).hostname
        if route.request.url.startswith("data:") or host in ("127.0.0.1", "localhost"):
            route.continue_()
        else:
            self.blocked.append(route.request.url)
            route.abort()

    def _failed(self, request):
        if urlparse(request.url).hostname == "127.0.0.1":
            self.failed.append(request.url)

    def close(self):
        self.context.close()


@pytest.fixture(scope="module")
def visits(server, browser):
    base, _ = server
    visited = {name: PageVisit(browser, base, name) for name in PAGES}  # all start loading
    for visit in visited.values():
        visit.wait_loaded()
    yield visited
    for visit in visited.values():
        visit.close()


def page_weight(html_dir: Path, name: str) -> tuple[int, int]:
    """Bytes of a page on first visit: ``(own, transfer)``.

    ``own`` is the page's HTML plus its images, uncompressed. ``transfer`` adds
    every local script and stylesheet it references (each once) and counts
    text (HTML, JS, CSS) gzip-compressed, as a web server sends it; images
    count as stored. Fonts that stylesheets load are not counted.
    """
    page = html_dir / f"{name}.html"
    text = page.read_text(encoding="utf-8")
    own = page.stat().st_size
    transfer = len(gzip.compress(page.read_bytes()))
    images = set(re.findall(r'<img[^>]*\ssrc="([^"]+)"', text))
    assets = set(re.findall(r'<script[^>]*\ssrc="([^"]+)"', text))
    assets |= set(re.findall(r'<link[^>]*rel="stylesheet"[^>]*href="([^"]+)"', text))
    for ref in images | assets:
        if ref.startswith(("http:", "https:", "data:", "//")):
            continue
        target = (page.parent / ref.split("?")[0].split("#")[0]).resolve()
        if not target.is_file():
            continue
        if ref in images:
            own += target.stat().st_size
            transfer += target.stat().st_size
        else:
            transfer += len(gzip.compress(target.read_bytes()))
    return own, transfer


@pytest.mark.parametrize("name", PAGES)
def test_page_loads_cleanly_offline(visits, name):
    visit = visits[name]
    assert not visit.errors, f"console errors on {name}: {visit.errors}"
    assert not visit.failed, f"failed requests for the site's own files on {name}: {visit.failed}"
    assert not visit.blocked, f"{name} tried to reach outside the site: {visit.blocked}"


@pytest.mark.parametrize("name", PAGES)
def test_page_weight(server, name):
    _, html_dir = server
    own, transfer = page_weight(html_dir, name)
    PAGE_WEIGHTS.append((name, own, transfer))  # reported at the end of the run
    assert own < MAX_PAGE_BYTES, f"{name}: HTML and images weigh {own:,} bytes (limit {MAX_PAGE_BYTES:,})"
    assert transfer < MAX_PAGE_BYTES, f"{name}: a first visit transfers {transfer:,} bytes (limit {MAX_PAGE_BYTES:,})"


@pytest.mark.parametrize("name", PAGES)
def test_images_load_and_have_alt_text(visits, name):
    images = visits[name].page.eval_on_selector_all(
        "article img",
        "els => els.map(e => ({src: e.getAttribute('src'), ok: e.complete && e.naturalWidth > 0,"
        " alt: (e.getAttribute('alt') || '').trim()}))",
    )
    broken = [i["src"][:80] for i in images if not i["ok"]]
    no_alt = [i["src"][:80] for i in images if len(i["alt"]) < 20]
    assert not broken, f"images that did not load on {name}: {broken}"
    assert not no_alt, f"images without alt text on {name}: {no_alt}"


@pytest.mark.parametrize("name", PAGES)
def test_math_is_typeset(visits, name):
    page = visits[name].page
    counts = page.evaluate(  # pages without math do not load MathJax at all
        "() => { const count = () => ({"
        " typeset: document.querySelectorAll('mjx-container').length,"
        " raw: document.querySelectorAll('.math:not(:has(mjx-container))').length,"
        " errors: document.querySelectorAll('mjx-merror').length});"
        " return window.MathJax ? MathJax.startup.promise.then(count) : count(); }"
    )
    source = ROOT / f"{name}.md"
    has_math = name.startswith("notebooks/") or ("$" in source.read_text() if source.exists() else False)
    if has_math:
        assert counts["typeset"] > 0, f"no typeset math on {name}"
    assert counts["raw"] == 0, f"{counts['raw']} math elements left untypeset on {name}"
    assert counts["errors"] == 0, f"{counts['errors']} MathJax errors on {name}"


@pytest.mark.parametrize("name", PAGES)
def test_headings_in_order(visits, name):
    levels = visits[name].page.eval_on_selector_all(
        "article h1, article h2, article h3, article h4, article h5, article h6",
        "els => els.map(e => Number(e.tagName[1]))",
    )
    assert levels and levels[0] == 1 and levels.count(1) == 1, f"{name}: one h1 first, got {levels}"
    jumps = [(a, b) for a, b in zip(levels, levels[1:]) if b > a + 1]
    assert not jumps, f"{name}: heading levels skip: {jumps}"


@pytest.mark.parametrize("name", PAGES)
def test_internal_links_resolve(server, visits, name):
    base, html_dir = server
    links = visits[name].page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)")
    bad = []
    for link in links:
        parsed = urlparse(link)
        if parsed.hostname != "127.0.0.1":
            continue
        target = html_dir / parsed.path.lstrip("/")
        if target.is_dir():
            target = target / "index.html"
        if not target.is_file():
            bad.append(link)
        elif parsed.fragment and target.suffix == ".html":
            ids = set(re.findall(r'id="([^"]+)"', target.read_text(encoding="utf-8")))
            if parsed.fragment not in ids:
                bad.append(link)
    assert not bad, f"broken internal links on {name}: {sorted(set(bad))}"


@pytest.mark.parametrize("name", PAGES)
def test_previous_next_and_launch_menu(server, visits, name):
    """Previous/next links follow the table of contents; every page made from a
    notebook has a launch menu that opens that same notebook on Binder and Colab."""
    base, _ = server
    page, i = visits[name].page, PAGES.index(name)
    for selector, j in (("a.left-prev", i - 1), ("a.right-next", i + 1)):
        hrefs = page.eval_on_selector_all(selector, "els => els.map(e => e.href)")
        if 0 <= j < len(PAGES):
            assert hrefs == [urljoin(base, f"{PAGES[j]}.html")], f"{name}: {selector} is {hrefs}"
        else:
            assert hrefs == [], f"{name}: {selector} should not exist"
    if not (ROOT / f"{name}.ipynb").is_file():
        return
    import book

    repo = CONFIG["repository"]["url"].removeprefix("https://github.com/")
    tag, edition = f"v{book.__version__}", f"reader/{Path(name).name}.ipynb"  # the reader edition, pinned
    launch = page.eval_on_selector_all(
        "button[aria-label='Launch interactive content'] + ul a", "els => els.map(e => e.href)"
    )
    alone = (
        not json.loads((ROOT / edition).read_text(encoding="utf-8"))["metadata"].get("book", {}).get("needs_repository")
    )  # Colab opens a notebook alone, Binder a clone
    assert sorted(launch) == sorted(
        [
            f"https://mybinder.org/v2/gh/{repo}/{tag}?urlpath=lab/tree/{edition}",
        ]
        + [f"https://colab.research.google.com/github/{repo}/blob/{tag}/{edition}"] * alone
    ), launch
    assert (ROOT / edition).is_file()
    thebe = page.eval_on_selector_all("script[type='text/x-thebe-config']", "els => els.map(e => e.textContent)")
    assert all(f'repo: "{repo}"' in t for t in thebe), "live code would launch another repository"


@pytest.mark.parametrize("name", [p for p in PAGES if p.startswith("notebooks/")])
def test_explorers_have_static_twins(visits, name):
    """A chapter whose code imports an explorer also shows a figure for the website."""
    source = (ROOT / f"{name}.ipynb").read_text(encoding="utf-8")
    if "from book.widgets import" not in source:
        pytest.skip("no explorer in this chapter")
    twins = visits[name].page.eval_on_selector_all(
        "figure[id*='twin'] img, figure[id*='circles'] img", "els => els.length"
    )
    assert twins >= 1, f"{name} has an explorer but no static twin figure"


def test_animation_player_plays(visits):
    pages = [
        n
        for n in PAGES
        if n.startswith("notebooks/") and "_anim_img" in (ROOT / f"{n}.ipynb").read_text(encoding="utf-8")
    ]
    assert pages, "no chapter with an animation player"
    for name in pages:
        page = visits[name].page
        img = page.locator("img[id^='_anim_img']").first
        before = img.get_attribute("src")
        page.locator("button[onclick*='play_animation']").first.click()
        page.wait_for_timeout(1500)
        assert img.get_attribute("src") != before, f"the animation on {name} did not change frame"
        icons = page.eval_on_selector_all(
            "button[onclick*='play_animation'] svg, button[onclick*='play_animation'] i", "els => els.length"
        )
        assert icons >= 1, f"the player's buttons on {name} have no icons"


def test_reference_pages_document_the_library(visits):
    assert len(REFERENCE_PAGES) >= 10, "the library reference is missing from the table of contents"
    for name in REFERENCE_PAGES[1:]:
        page = visits[name].page
        module = "book." + name.removeprefix("reference/")
        entries = page.eval_on_selector_all("dl.py dt[id]", "els => els.map(e => e.id)")
        assert f"module-{module}" in page.content(), f"{name} does not document {module}"
        assert entries and all(e.startswith(module + ".") for e in entries), f"{name}: entries {entries[:5]}"
        chapters = page.eval_on_selector_all(
            "article p:first-of-type a.reference.internal", "els => els.map(e => e.getAttribute('href'))"
        )
        assert name.endswith("classroom") or chapters, f"{name} names no chapter that uses it"
        # Types link to the vendored inventories' sites, never to a missing local page.
        outside = page.eval_on_selector_all("dl.py a.reference.external", "els => els.map(e => e.href)")
        assert all(
            h.startswith(
                (
                    "https://docs.python.org/3.11/",
                    "https://docs.pytorch.org/docs/2.13/",
                    "https://numpy.org/doc/",
                    "https://matplotlib.org/",
                    "https://nbformat.readthedocs.io/",
                )
            )
            for h in outside
        ), outside
    encodings = visits["reference/encodings"].page
    torch_links = encodings.eval_on_selector_all(
        "dl.py a[href='https://docs.pytorch.org/docs/2.13/tensors.html#torch.Tensor']", "els => els.length"
    )
    raises = encodings.eval_on_selector_all(
        "dl.py a[href='https://docs.python.org/3.11/library/exceptions.html#ValueError']", "els => els.length"
    )
    assert torch_links > 0 and raises > 0, "torch.Tensor and ValueError do not link to their docs"


@pytest.mark.parametrize("page", [TOC["root"], "notebooks/06_rope"])
def test_link_to_a_function_leads_to_its_entry(server, browser, page):
    """A role like {py:obj}`book.encodings.apply_rope` in prose (the landing page's, and a
    chapter's) links to the entry, which the browser shows."""
    base, _ = server
    visit = PageVisit(browser, base, page).wait_loaded()
    try:
        link = visit.page.locator("article a[href$='reference/encodings.html#book.encodings.apply_rope']").first
        assert link.count() == 1, f"{page} has no link to book.encodings.apply_rope"
        link.click()
        visit.page.wait_for_url("**/reference/encodings.html#book.encodings.apply_rope")
        entry = visit.page.locator("[id='book.encodings.apply_rope']")
        assert entry.evaluate("e => e.tagName") == "DT"
        assert "apply_rope(" in entry.inner_text()
        assert entry.is_visible() and entry.evaluate("e => e.getBoundingClientRect().top") < 400
        assert not visit.errors and not visit.failed and not visit.blocked
    finally:
        visit.close()


def _search(browser, url: str):
    context = browser.new_context()
    blocked, errors = [], []
    context.route(
        "**/*",
        lambda r: (
            r.continue_()
            if urlparse(r.request.url).scheme in ("file", "data") or urlparse(r.request.url).hostname == "127.0.0.1"
            else (blocked.append(r.request.url), r.abort())
        ),
    )
    page = context.new_page()
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url, wait_until="load")
    page.wait_for_selector("#search-results li", timeout=20_000)
    page.wait_for_timeout(1500)  # summaries, if any, are fetched after the results are listed
    results = page.eval_on_selector_all("#search-results li a", "els => els.map(e => e.href)")
    summaries = page.eval_on_selector_all("#search-results p.context", "els => els.length")
    context.close()
    return results, summaries, errors, blocked


def test_search_from_file_url_has_no_console_errors(server, browser):
    """The folder of files, opened from disk: results, no summaries (they cannot load), no errors."""
    _, html_dir = server
    results, summaries, errors, blocked = _search(browser, f"{html_dir.resolve().as_uri()}/search.html?q=ALiBi")
    assert any("07_relative.html" in r for r in results), f"no ALiBi result: {results[:5]}"
    assert not errors, f"console errors on search from file://: {errors[:3]}"
    assert not blocked, blocked
    assert summaries == 0


def test_search_on_a_served_site_keeps_summaries(server, browser):
    base, _ = server
    results, summaries, errors, blocked = _search(browser, urljoin(base, "search.html?q=ALiBi"))
    assert any("07_relative.html" in r for r in results), f"no ALiBi result: {results[:5]}"
    assert summaries > 0, "a served site should show page summaries under the results"
    assert not errors and not blocked, (errors[:3], blocked)


# ------------------------------------------------------------------ live twins
def _order_model():
    from book.demos import TinySelfAttention

    sentence = ["나", "는", "너", "를", "사랑해"]
    return {"model": TinySelfAttention(sorted(set(sentence)), d_model=16, seed=0), "tokens": sentence}


def _untrained_table():
    from book.models import TinyTransformer

    model = TinyTransformer(10, position="learned", max_len=32, d_model=32, n_heads=2, seed=0)
    return {"snapshots": {0: model.pos.weight.detach().clone()}}  # chapter 5's snapshot at step 0


def _chapter8_results():
    import json

    return {
        "results": {
            task: json.loads((ROOT / "book" / "results" / f"{name}.json").read_text())
            for task, name in (
                ("local_sum", "benchmark_local_sum"),
                ("recall", "benchmark_recall"),
                ("copy", "benchmark_copy"),
                ("fibonacci", "fibonacci"),
            )
        }
    }


def _chapter10_plans():
    import transformers
    from transformers import (
        Cohere2Config,
        DeepseekV3Config,
        Gemma3TextConfig,
        Gemma4TextConfig,
        GptOssConfig,
        Llama4TextConfig,
        LlamaConfig,
        ModernBertConfig,
        Phi3Config,
        Qwen2VLTextConfig,
        SmolLM3Config,
    )

    from book.models import layer_positions

    assert transformers.__version__  # the chapter's configs: class defaults only
    configs = {
        "Llama": LlamaConfig(),
        "Llama 4": Llama4TextConfig(),
        "Gemma 3": Gemma3TextConfig(),
        "Gemma 4": Gemma4TextConfig(),
        "Qwen2-VL": Qwen2VLTextConfig(),
        "DeepSeek-V3": DeepseekV3Config(),
        "Phi-3": Phi3Config(),
        "GPT-OSS": GptOssConfig(),
        "SmolLM3": SmolLM3Config(),
        "ModernBERT": ModernBertConfig(),
        "Cohere 2": Cohere2Config(),
    }
    return {"plans": {name: layer_positions(cfg) for name, cfg in configs.items()}}


def _twin(name: str) -> tuple[str, str]:
    """A LIVE_TWINS key as (page, CSS selector of its twin): ``page#id`` for a
    page with several twins, else the page's only one."""
    page, _, uid = name.partition("#")
    return page, (f"article #{uid}" if uid else "article .live-twin")


#: Every chapter's live twin: its draw function, the chapter's fixed arguments
#: (rebuilt as the chapter builds them), and one state to compare pixel for
#: pixel: {parameter: (label shown, value)}.
LIVE_TWINS = {
    "notebooks/01_order_blind": (
        "draw_order_explorer",
        _order_model,
        {"order": ("4 3 2 1 0", (4, 3, 2, 1, 0)), "positional": ("on", True), "causal": ("off", False)},
    ),
    "notebooks/05_learned": ("draw_learned_table_explorer", _untrained_table, {"step": ("0", 0)}),
    "notebooks/08_extrapolation": (
        "draw_results_explorer",
        _chapter8_results,
        {"task": ("copy", "copy"), "schemes": ("rope alibi t5", ("rope", "alibi", "t5")), "seeds": ("lines", "lines")},
    ),
    "notebooks/10_todays_models#live-ch10-two-bases": (
        "draw_two_bases_explorer",
        dict,
        {"global_base": ("10000000", 1e7), "window": ("1024", 1024)},
    ),
    "notebooks/10_todays_models#live-ch10-layers": (
        "draw_layer_pattern_explorer",
        _chapter10_plans,
        {"model": ("GPT-OSS", "GPT-OSS")},
    ),
    "notebooks/12_serving_stack": (
        "draw_sink_cache_explorer",
        lambda: {"window": 8, "trained_len": 32},
        {"length": ("128", 128), "sinks": ("0", 0), "reassign": ("on", True)},
    ),
}


#: The chapters whose explorers the page computes (book.plots.computed), by view, in page order.
COMPUTED = {
    "notebooks/02_sinusoidal": ("pe",),
    "notebooks/03_rotation": ("rotation",),
    "notebooks/04_fingerprints": ("fingerprint",),
    "notebooks/06_rope": ("rope",),
    "notebooks/07_relative": ("t5", "alibi"),
    "notebooks/09_long_context": ("scaling",),
    "notebooks/11_numerics": ("precision",),
}


def test_every_explorer_chapter_has_a_live_twin_or_a_computed_explorer():
    with_explorer = {
        p
        for p in PAGES
        if p.startswith("notebooks/")
        and "from book.widgets import" in (ROOT / f"{p}.ipynb").read_text(encoding="utf-8")
    }
    pages = {_twin(name)[0] for name in LIVE_TWINS}
    assert not pages & set(COMPUTED)
    assert pages | set(COMPUTED) == with_explorer
    for name, views in COMPUTED.items():
        cells = json.loads((ROOT / f"{name}.ipynb").read_text(encoding="utf-8"))["cells"]
        source = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
        found = re.findall(r'computed_explorer\(\s*"(\w+)"', source)
        assert found == list(views), f"{name} computes the explorers {found}, not {views}"
        assert "live_twin(" not in source, f"{name} still has a live twin"


def _pixels(uri: str):
    import base64
    import io

    import numpy as np
    from PIL import Image

    image = Image.open(io.BytesIO(base64.b64decode(uri.split(",", 1)[1]))).convert("RGB")
    return np.asarray(image, dtype=np.int16)


def _twin_state(page, selector: str = "article .live-twin") -> dict:
    return page.evaluate(
        "s => { const r = document.querySelector(s);"
        " const img = r.querySelector('img.live-figure');"
        " return {src: img.getAttribute('src'), key: img.getAttribute('data-state'),"
        " shown: r.querySelector('.live-state').textContent,"
        " outputs: Object.fromEntries([...r.querySelectorAll('output[data-for]')]"
        ".map(o => [o.dataset.for, o.textContent])),"
        " spec: JSON.parse(r.querySelector('script.live-spec').textContent),"
        " frames: JSON.parse(r.querySelector('script.live-frames').textContent)}; }",
        selector,
    )


def _set_control(page, param: str, index: int, selector: str = "article .live-twin") -> None:
    control = page.locator(f"{selector} [data-param='{param}']")
    if control.evaluate("e => e.tagName") == "SELECT":
        control.select_option(index=index)
    else:
        control.fill(str(index))


@pytest.mark.parametrize("name", list(LIVE_TWINS))
def test_live_twin_controls_change_the_figure_offline(visits, name):
    """Each control of the chapter's live twin, moved in the page (no kernel, no
    network): the figure changes to that state's frame, and the values shown
    follow the control."""
    page_name, sel = _twin(name)
    visit = visits[page_name]
    page = visit.page
    twins_here = sum(_twin(n)[0] == page_name for n in LIVE_TWINS)
    assert page.locator("article .live-twin").count() == twins_here, f"{page_name}: not {twins_here} live twin(s)"
    assert page.locator(sel).count() == 1, f"{name} has no live twin"
    state = _twin_state(page, sel)
    names = state["spec"]["names"]
    assert len(state["frames"]) == math.prod(len(state["spec"]["labels"][n]) for n in names)
    assert page.locator(f"{sel} input[type=range], {sel} select").count() == len(names)
    for j, param in enumerate(names):
        labels = state["spec"]["labels"][param]
        assert len(labels) >= 2, f"{name}: control {param} has one value only"
        new = (int(state["key"].split(",")[j]) + 1) % len(labels)
        _set_control(page, param, new, sel)
        after = _twin_state(page, sel)
        assert after["src"] != state["src"], f"{name}: moving {param} did not change the figure"
        assert int(after["key"].split(",")[j]) == new
        assert after["src"] == after["frames"][after["key"]]
        assert after["outputs"][param] == labels[new]
        assert f"{param} = {labels[new]}" in after["shown"]
        state = after
    assert page.locator(f"{sel} img.live-figure").evaluate("e => e.complete && e.naturalWidth > 0")
    assert not visit.errors, f"console errors on {name} after moving the controls: {visit.errors}"


@pytest.mark.parametrize("name", list(LIVE_TWINS))
def test_live_twin_shows_the_draw_functions_figure(visits, name):
    """For one state, the page's image is the one book.plots.draw_<explorer>
    draws for it (rendered with book.plots.figure_data_uri, compared pixel by pixel)."""
    from book import plots

    draw, fixed, chosen = LIVE_TWINS[name]
    page_name, sel = _twin(name)
    page = visits[page_name].page
    spec = _twin_state(page, sel)["spec"]
    for param, (label, _) in chosen.items():
        _set_control(page, param, spec["labels"][param].index(label), sel)
    state = _twin_state(page, sel)
    assert state["shown"] == ", ".join(f"{p} = {label}" for p, (label, _) in chosen.items())
    plots.use_style()  # as book.setup() in every chapter
    expected = plots.figure_data_uri(getattr(plots, draw)(**fixed(), **{p: v for p, (_, v) in chosen.items()}))
    got, want = _pixels(state["src"]), _pixels(expected)
    assert got.shape == want.shape, f"{name}: image {got.shape} is not the draw function's {want.shape}"
    differing = float((abs(got - want).max(axis=-1) > 8).mean())
    assert differing < 0.002, f"{name}: {differing:.2%} of the pixels differ from the draw function's figure"


@pytest.mark.parametrize("name", list(COMPUTED))
def test_computed_explorer_runs_in_the_built_page(visits, name):
    """The chapter's computed explorers in the built page (no kernel, no network):
    each one's figure drawn, and moving each slider and each drop-down list
    from the keyboard changes the figure and the text alternative (and a
    slider's value shown). Their numbers
    are compared with book's in tests/site/test_computed_explorers.py."""
    visit = visits[name]
    page = visit.page
    roots = page.locator("article .computed-explorer")
    assert roots.count() == len(COMPUTED[name]), (
        f"{name} has {roots.count()} computed explorers, not {len(COMPUTED[name])}"
    )
    assert page.locator("article .live-twin").count() == 0
    shown = "e => [e.querySelector('svg').innerHTML, e.querySelector('.cx-alt').textContent]"
    from book.plots import COMPUTED_VIEWS

    for k, view in enumerate(COMPUTED[name]):
        root = roots.nth(k)
        assert root.evaluate("e => JSON.parse(e.querySelector('script.cx-spec').textContent).view") == view
        before = root.evaluate(shown)
        assert "<path" in before[0] and "book's web page" not in before[1], f"{name}: the {view} explorer did not draw"
        for slider in root.locator("input[type=range]").all():
            value = slider.input_value()
            slider.focus()
            page.keyboard.press("ArrowRight" if value != slider.get_attribute("max") else "ArrowLeft")
            after = root.evaluate(shown)
            assert slider.input_value() != value and after != before, f"{name}: {slider.get_attribute('data-param')}"
            before = after
        choices = [c for c in COMPUTED_VIEWS[view]["controls"] if c["kind"] == "choice"]
        assert root.locator("select").count() == len(choices), f"{name}: not one drop-down list per choice"
        for choice in root.locator("select").all():  # a drop-down list, moved with the arrow keys
            value = choice.input_value()
            last = choice.evaluate("e => e.selectedIndex === e.options.length - 1")
            choice.focus()
            page.keyboard.press("ArrowUp" if last else "ArrowDown")
            after = root.evaluate(shown)
            assert choice.input_value() != value, f"{name}: {choice.get_attribute('data-param')} did not move"
            assert after[0] != before[0] and after[1] != before[1], f"{name}: {choice.get_attribute('data-param')}"
            before = after
    assert not visit.errors, f"console errors on {name} after moving the controls: {visit.errors}"
