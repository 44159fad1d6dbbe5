"""Shared fixtures, and the jobs that run beside the session: the website
(built once, in the background), chapter 8's reduced run, and the nbval
passes under other CPU kernels."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_ORIGINAL_ENV = {k: v for k, v in os.environ.items() if k == "BOOK_LIVE_TWIN_IMAGES"}
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


def _start_build(out: Path) -> tuple[subprocess.Popen, Path]:
    """Start the strict build of the book into ``out`` (output to a file, not a
    pipe, so that a long log cannot block it)."""
    jb = shutil.which("jupyter-book", path=str(Path(sys.executable).parent)) or "jupyter-book"
    log = out / "build.log"
    with log.open("w") as sink:
        proc = subprocess.Popen(
            [jb, "build", str(ROOT), "--path-output", str(out), "-W", "-n", "--keep-going"],
            stdout=sink, stderr=subprocess.STDOUT, text=True)
    return proc, log


#: The site build started when collection finished, if the session uses it.
_build: dict = {}


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    """Build the book with warnings as errors into a temporary folder.

    The build starts in the background when collection finishes
    (``pytest_collection_finish``), and the tests that use it run late, so
    the rest of the session runs beside it; this fixture waits for it.
    Returns the ``_build/html`` folder and the finished build (its log as
    ``stdout``).
    """
    if not _build:
        _build["out"] = tmp_path_factory.mktemp("site")
        _build["proc"], _build["log"] = _start_build(_build["out"])
    proc = _build["proc"]
    try:
        proc.wait(timeout=900)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    result = subprocess.CompletedProcess(proc.args, proc.returncode, _build["log"].read_text(), "")
    return _build["out"] / "_build" / "html", result


#: Chapter 8's reduced run, started when collection finished if a test uses it.
_reduced: dict = {}


def _start_reduced(folder: Path) -> None:
    sys.path.insert(0, str(ROOT / "tests"))
    from test_experiments import start_reduced_run

    _reduced["proc"], _reduced["json"], _reduced["log"] = start_reduced_run(folder)


@pytest.fixture(scope="session")
def reduced_run(tmp_path_factory) -> tuple[dict, str]:
    """The results and printed output of ``python -m book.experiments`` with
    ``test_experiments.REDUCED_RUN`` (started in the background when
    collection finished, so it runs beside the session; waited for here)."""
    if not _reduced:
        _start_reduced(tmp_path_factory.mktemp("reduced"))
    proc = _reduced["proc"]
    try:
        proc.wait(timeout=900)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    printed = _reduced["log"].read_text()
    assert proc.returncode == 0, f"the reduced run failed:\n{printed[-3000:]}"
    return json.loads(_reduced["json"].read_text()), printed


CPU_PASS_TEST = "test_notebooks_give_their_stored_outputs_with_other_cpu_kernels"
_cpu_passes: dict = {}


def _uses(item, fixture: str) -> bool:
    return fixture in getattr(item, "fixturenames", ())


def pytest_collection_modifyitems(session, config, items) -> None:
    """Run the tests of the built site and of the reduced run late (they run in
    the background meanwhile) and the test that waits for the other-CPU nbval
    passes last."""
    items.sort(key=lambda item: (item.name == CPU_PASS_TEST, _uses(item, "built_site") or _uses(item, "reduced_run")))


def pytest_collection_finish(session) -> None:
    """Start the jobs the session's tests will wait for, so that they run beside
    the rest of the tests: the other-CPU nbval passes
    (``tests/test_cpu_independence.py``), chapter 8's reduced run and the
    site build, each only if a selected test uses it."""
    if session.config.option.collectonly or _cpu_passes or _build or _reduced:
        return
    if any(item.name == CPU_PASS_TEST for item in session.items):
        sys.path.insert(0, str(ROOT / "tests"))
        from test_cpu_independence import start_passes

        _cpu_passes.update(start_passes())
    if any(_uses(item, "reduced_run") for item in session.items):
        _reduced["folder"] = Path(tempfile.mkdtemp(prefix="book-reduced-"))
        _start_reduced(_reduced["folder"])
    if any(_uses(item, "built_site") for item in session.items):
        _build["out"] = Path(tempfile.mkdtemp(prefix="book-site-"))
        _build["remove"] = True
        _build["proc"], _build["log"] = _start_build(_build["out"])


class _TwinRendering:
    """While the other-CPU passes run, one of them renders the live twins'
    images (``test_cpu_independence.rendering_pass``), so this session's own
    nbval kernels skip it (``BOOK_LIVE_TWIN_IMAGES=0``): the same check,
    done once, off this session's path. Other tests see the environment
    unchanged. A plugin, not a hook of this file: this file's item hooks
    would reach only the items under ``tests/``."""

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item) -> None:
        if _cpu_passes and item.path.suffix == ".ipynb":
            os.environ["BOOK_LIVE_TWIN_IMAGES"] = "0"
        elif "BOOK_LIVE_TWIN_IMAGES" in _ORIGINAL_ENV:
            os.environ["BOOK_LIVE_TWIN_IMAGES"] = _ORIGINAL_ENV["BOOK_LIVE_TWIN_IMAGES"]
        else:
            os.environ.pop("BOOK_LIVE_TWIN_IMAGES", None)


def pytest_configure(config) -> None:
    config.pluginmanager.register(_TwinRendering(), "book-twin-rendering")


@pytest.fixture(scope="session")
def cpu_passes() -> dict:
    """The background passes ``pytest_collection_finish`` started."""
    return _cpu_passes


def pytest_sessionfinish(session) -> None:
    """Stop background jobs still running (the session ended early, e.g. with
    ``-x``) and remove their folders."""
    for proc in [p for p, _ in _cpu_passes.values()] + [job["proc"] for job in (_build, _reduced) if job]:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    if _build.get("remove"):
        shutil.rmtree(_build["out"], ignore_errors=True)
    if "folder" in _reduced:
        shutil.rmtree(_reduced["folder"], ignore_errors=True)


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
