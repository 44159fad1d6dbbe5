"""Shared fixtures: the website, built once per test session."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
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
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"],
        )
        yield b
        b.close()


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    """Build the book with warnings as errors into a temporary folder.

    Returns the ``_build/html`` folder and the finished build process.
    """
    out = tmp_path_factory.mktemp("site")
    jb = shutil.which("jupyter-book", path=str(Path(sys.executable).parent)) or "jupyter-book"
    result = subprocess.run(
        [jb, "build", str(ROOT), "--path-output", str(out), "-W", "-n", "--keep-going"],
        capture_output=True, text=True, timeout=900,
    )
    return out / "_build" / "html", result


CPU_PASS_TEST = "test_notebooks_give_their_stored_outputs_with_other_cpu_kernels"
_cpu_passes: dict = {}


def pytest_collection_modifyitems(session, config, items) -> None:
    """Run the test that waits for the other-CPU nbval passes last."""
    items.sort(key=lambda item: item.name == CPU_PASS_TEST)


def pytest_collection_finish(session) -> None:
    """Start the other-CPU nbval passes now, if the session will check them, so
    that they run beside the rest of the tests (``tests/test_cpu_independence.py``)."""
    if session.config.option.collectonly or _cpu_passes:
        return
    if any(item.name == CPU_PASS_TEST for item in session.items):
        sys.path.insert(0, str(ROOT / "tests"))
        from test_cpu_independence import start_passes

        _cpu_passes.update(start_passes())


@pytest.fixture(scope="session")
def cpu_passes() -> dict:
    """The background passes ``pytest_collection_finish`` started."""
    return _cpu_passes


def pytest_sessionfinish(session) -> None:
    """Stop passes still running (the session ended early, e.g. with ``-x``)."""
    for proc, _ in _cpu_passes.values():
        if proc.poll() is None:
            proc.kill()


#: (page, own bytes, first-visit transfer bytes), filled by the browser test.
PAGE_WEIGHTS: list[tuple[str, int, int]] = []


def pytest_terminal_summary(terminalreporter) -> None:
    """Report every page's weight at the end of the run (the browser test measures it)."""
    if not PAGE_WEIGHTS:
        return
    terminalreporter.section("page weights (limit 3 MB each)")
    for page, own, transfer in sorted(PAGE_WEIGHTS):
        terminalreporter.write_line(
            f"{page:<32} HTML and images {own:>11,} B   first visit, gzip text {transfer:>11,} B"
        )
