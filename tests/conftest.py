"""Shared fixtures (the headless browser) and the page-weight summary.

The jobs that run beside the session (the site build, chapter 8's reduced run,
the benchmark scripts, the wheel job, the nbval passes under other CPU
kernels) are the plugin ``tests/plugins/background_jobs.py``. Every process
runs torch with one CPU thread (``OMP_NUM_THREADS``, below). Matplotlib
draws with Agg in the test process; the backend is chosen here, not through
``MPLBACKEND``, which nbval's kernels would inherit (ipykernel keeps an
``MPLBACKEND`` it finds, and the chapters' stored figures are inline).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")

# One CPU thread per process, for this process and every process it starts
# (the background jobs, nbval's kernels). The background jobs keep both cores
# busy beside the tests, and a process with two OpenMP threads then spins
# against them: its threads spend CPU time waiting for each other, time the
# jobs need. The chapters already compute with one thread (``book.setup``).
os.environ["OMP_NUM_THREADS"] = "1"

pytest_plugins = ["tests.plugins.background_jobs"]

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _browser_or_skip():
    if CHROMIUM is None:
        if os.environ.get("REQUIRE_BROWSER") == "1":
            pytest.fail("REQUIRE_BROWSER=1 but no chromium on PATH (apt-get install chromium)")
        pytest.skip("no chromium on PATH; apt-get install chromium to run the browser test")
    return pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium driven by Playwright (no browser download), headless."""
    sync_api = _browser_or_skip()
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        yield b
        b.close()


#: (page, own bytes, first-visit transfer bytes), filled by the browser test.
PAGE_WEIGHTS: list[tuple[str, int, int]] = []

#: Every page's first-visit transfer, measured on an earlier build (the file says which).
PAGE_WEIGHT_BASELINE = Path(__file__).parent / "site" / "page_weights.json"

#: (auditor, pages audited, seconds), filled by the accessibility test.
AUDIT: list[tuple[str, int, float]] = []


def weight_change(page: str, transfer: int, baseline: dict[str, int]) -> str:
    """The baseline's first visit beside today's and the change, or "new" for a
    page the baseline does not have."""
    if page not in baseline:
        return "baseline        new"
    before = baseline[page]
    change = f"{(transfer - before) / before:+.1%}" if before else "n/a"
    return f"baseline {before:>11,} B   change {transfer - before:>+10,} B ({change})"


def pytest_terminal_summary(terminalreporter) -> None:
    """Report every page's weight at the end of the run (the browser test measures
    it), beside the committed baseline, and how long the accessibility audit took."""
    if PAGE_WEIGHTS:
        data = json.loads(PAGE_WEIGHT_BASELINE.read_text(encoding="utf-8"))
        terminalreporter.section("page weights (limit 3 MB each)")
        terminalreporter.write_line(f"baseline: {data['measured']}")
        for page, own, transfer in sorted(PAGE_WEIGHTS):
            terminalreporter.write_line(
                f"{page:<32} HTML and images {own:>11,} B   first visit, gzip text {transfer:>11,} B   "
                + weight_change(page, transfer, data["pages"])
            )
    for auditor, pages, seconds in AUDIT:
        terminalreporter.section("accessibility audit")
        terminalreporter.write_line(f"{auditor}: {pages} pages in {seconds:.0f} s")
