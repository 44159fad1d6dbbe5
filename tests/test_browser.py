"""The built website, opened in a real browser with no network beyond this machine.

Playwright drives Debian's Chromium (no browser download). Every page of the
table of contents is served from 127.0.0.1; any request elsewhere is blocked
and recorded. Each page must load without console errors or failed requests
to the site's own files, show every image (each with alt text), typeset its
math, keep its headings in order, link only to pages and anchors that exist,
stay under 3 MB (its own HTML and images; and all it transfers on a first
visit, text gzip-compressed as a server sends it), and (for chapters with an
explorer) carry its static twin.
The animation player must play.

Without Chromium the test is skipped, unless REQUIRE_BROWSER=1 (set by CI),
in which case it fails.
"""

from __future__ import annotations

import functools
import gzip
import http.server
import re
import threading
from pathlib import Path
from urllib.parse import urljoin, urlparse

import pytest
import yaml
from conftest import PAGE_WEIGHTS

ROOT = Path(__file__).resolve().parents[1]
TOC = yaml.safe_load((ROOT / "_toc.yml").read_text())
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text())
PAGES = [TOC["root"]] + [ch["file"] for part in TOC["parts"] for ch in part["chapters"]]
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
        self.page.goto(self.url, wait_until="load")
        self.page.wait_for_timeout(300)

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
    visited = {name: PageVisit(browser, base, name) for name in PAGES}
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
    PAGE_WEIGHTS.append((name, own, transfer))   # reported at the end of the run
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
    source = (ROOT / f"{name}.md")
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
    repo = CONFIG["repository"]["url"].removeprefix("https://github.com/")
    branch = CONFIG["repository"]["branch"]
    launch = page.eval_on_selector_all("button[aria-label='Launch interactive content'] + ul a",
                                       "els => els.map(e => e.href)")
    assert sorted(launch) == sorted([
        f"https://mybinder.org/v2/gh/{repo}/{branch}?urlpath=lab/tree/{name}.ipynb",
        f"https://colab.research.google.com/github/{repo}/blob/{branch}/{name}.ipynb",
    ]), launch
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
    pages = [n for n in PAGES if n.startswith("notebooks/")
             and "_anim_img" in (ROOT / f"{n}.ipynb").read_text(encoding="utf-8")]
    assert pages, "no chapter with an animation player"
    for name in pages:
        page = visits[name].page
        img = page.locator("img[id^='_anim_img']").first
        before = img.get_attribute("src")
        page.locator("button[onclick*='play_animation']").first.click()
        page.wait_for_timeout(1500)
        assert img.get_attribute("src") != before, f"the animation on {name} did not change frame"
        icons = page.eval_on_selector_all("button[onclick*='play_animation'] svg, "
                                          "button[onclick*='play_animation'] i", "els => els.length")
        assert icons >= 1, f"the player's buttons on {name} have no icons"
