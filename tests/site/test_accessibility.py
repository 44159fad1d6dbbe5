"""Every page of the built website passes axe-core's WCAG 2.1 A and AA audit.

axe-core (Deque's engine, the one behind Lighthouse's and most browsers'
accessibility audits) is vendored in ``tests/site/vendor/axe-core`` (version
and sha256 in its README); nothing downloads at test time. Each HTML page of
the built site is served from 127.0.0.1 and opened in Debian's Chromium, with
any outside request blocked; once MathJax has typeset it, axe runs with the
tags ``wcag2a``, ``wcag2aa``, ``wcag21a`` and ``wcag21aa``, and the page must
have no violations. WCAG 2.1 AA, not only 2.0: it is the level that EN 301 549
(the European standard for public bodies) and the 2024 ADA Title II rule in
the United States require, so a school that adopts the book is held to it; it
adds one rule that matters here (label in name, 2.5.3). Rules axe marks
experimental or deprecated are not run; best practices are not WCAG.

The pages are all of the site's HTML files: the table of contents (chapters,
teachers' page, references, library reference) and the pages Sphinx adds
(index, search, module index, list of proofs). ``index.html`` is only a
redirect to the first page, which the audit covers; it is checked to stay one.
``_static/`` holds templates, not pages.

The audit runs in light mode, the site's default. The fixes of what it first
found are in ``_ext/accessibility.py`` (checked in
``tests/tooling/test_accessibility_fixes.py``).
"""

from __future__ import annotations

import functools
import hashlib
import http.server
import re
import threading
import time
from pathlib import Path
from urllib.parse import urljoin, urlparse

import pytest
import yaml

from tests.conftest import AUDIT

ROOT = Path(__file__).resolve().parents[2]
VENDOR = Path(__file__).parent / "vendor" / "axe-core"
README = (VENDOR / "README.md").read_text(encoding="utf-8")
AXE_VERSION = re.search(r"axe-core \*\*(\d+\.\d+\.\d+)\*\*", README).group(1)
AXE_SHA256 = re.search(r"sha256 of `axe.min.js`: `([0-9a-f]{64})`", README).group(1)

#: WCAG 2.0 and 2.1, levels A and AA (axe's tags).
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]

#: Starts axe on the page; ``window.axeResult`` is a promise of its result (the
#: audit starts it on several pages, then reads each one's result).
START_AXE = """tags => { window.axeResult = axe.run(document, {runOnly: {type: 'tag', values: tags},
                                                  resultTypes: ['violations']})
  .then(r => ({version: axe.version, violations: r.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help, helpUrl: v.helpUrl,
    nodes: v.nodes.map(n => ({target: n.target.join(' '), summary: n.failureSummary}))}))})); }"""

#: Pages audited at once: each runs in its own renderer process, so both
#: cores work (the audit was the longest step of the browser tests).
AT_ONCE = 6


def site_pages(html_dir: Path) -> list[str]:
    """Every HTML page of the built site (relative paths), but the root redirect and ``_static``."""
    return sorted(
        p.relative_to(html_dir).as_posix()
        for p in html_dir.rglob("*.html")
        if p.relative_to(html_dir).parts[0] != "_static" and p != html_dir / "index.html"
    )


def toc_pages() -> list[str]:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())

    def files(entries):
        return [f for e in entries for f in [e["file"], *files(e.get("sections", []))]]

    return [toc["root"]] + files(ch for part in toc["parts"] for ch in part["chapters"])


@pytest.fixture(scope="module")
def audit(built_site, browser) -> dict[str, dict]:
    """axe's result for every page: ``{page: {"version", "violations"}}``."""
    html, result = built_site
    assert result.returncode == 0, "the site did not build"

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(html)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}/"
    source = (VENDOR / "axe.min.js").read_text(encoding="utf-8")
    context = browser.new_context()
    context.route(
        "**/*",
        lambda r: (
            r.continue_()
            if r.request.url.startswith("data:") or urlparse(r.request.url).hostname == "127.0.0.1"
            else r.abort()
        ),
    )
    results, start = {}, time.monotonic()
    try:
        names = site_pages(html)
        for at in range(0, len(names), AT_ONCE):  # pages in parallel, each in its own renderer
            pages = {name: context.new_page() for name in names[at : at + AT_ONCE]}
            for name, page in pages.items():
                page.goto(urljoin(base, name), wait_until="commit")
            for page in pages.values():
                page.wait_for_load_state("load")
                page.evaluate("() => window.MathJax ? MathJax.startup.promise : null")  # typeset first
                page.add_script_tag(content=source)
                page.evaluate(START_AXE, TAGS)
            for name, page in pages.items():
                results[name] = page.evaluate("() => window.axeResult")
                page.close()
    finally:
        context.close()
        httpd.shutdown()
    AUDIT.append((f"axe-core {AXE_VERSION}", len(results), time.monotonic() - start))
    return results


def test_axe_core_is_the_vendored_release():
    """The file the test injects is the release the README names, unchanged, with its licences."""
    source = (VENDOR / "axe.min.js").read_bytes()
    assert hashlib.sha256(source).hexdigest() == AXE_SHA256, "axe.min.js is not the file the README records"
    assert source.startswith(f"/*! axe v{AXE_VERSION}\n".encode())
    assert (VENDOR / "LICENSE").read_text().startswith("Mozilla Public License, version 2.0")
    assert "MIT License" in (VENDOR / "LICENSE-3RD-PARTY.txt").read_text()


def test_every_page_passes_wcag_21_aa(audit):
    assert {r["version"] for r in audit.values()} == {AXE_VERSION}
    found = [
        f"{page}: {v['id']} ({v['impact']}) at {node['target']}: {v['help']}"
        for page, r in audit.items()
        for v in r["violations"]
        for node in v["nodes"]
    ]
    assert not found, f"{len(found)} axe-core violations of {', '.join(TAGS)}:\n" + "\n".join(found)


def test_the_audit_covers_every_page(built_site, audit):
    """Every page of the table of contents and the pages Sphinx adds; index.html is only a redirect."""
    html, _ = built_site
    expected = {f"{p}.html" for p in toc_pages()} | {"genindex.html", "search.html", "py-modindex.html"}
    assert expected <= set(audit), f"pages not audited: {sorted(expected - set(audit))}"
    redirect = (html / "index.html").read_text(encoding="utf-8").strip()
    assert redirect == f'<meta http-equiv="Refresh" content="0; url={toc_pages()[0]}.html" />', redirect


def test_the_audit_reports_a_planted_violation(browser):
    """The audit's own plumbing (start axe, read ``window.axeResult``) on a page
    with an image that has no text alternative: axe must name it."""
    context = browser.new_context()
    try:
        page = context.new_page()
        page.set_content('<html lang="en"><title>t</title><main><img src="data:,"></main></html>')
        page.add_script_tag(content=(VENDOR / "axe.min.js").read_text(encoding="utf-8"))
        page.evaluate(START_AXE, TAGS)
        result = page.evaluate("() => window.axeResult")
    finally:
        context.close()
    assert result["version"] == AXE_VERSION
    assert "image-alt" in {v["id"] for v in result["violations"]}
