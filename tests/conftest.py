"""Shared fixtures, and the jobs that run beside the session: the website's
strict build, chapter 8's reduced run, the benchmark scripts, and the nbval
passes under other CPU kernels."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
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


# ---------------------------------------------------------------------------
# Jobs that run beside the session. Each is a command whose output some tests
# read; it starts when collection finishes (only if a selected test uses its
# fixture), the tests that use it run late (pytest_collection_modifyitems),
# and its fixture waits for it. Output goes to a file, not a pipe, so a long
# log cannot block a job.
# ---------------------------------------------------------------------------


def _site_command(folder: Path) -> list[str]:
    jb = shutil.which("jupyter-book", path=str(Path(sys.executable).parent)) or "jupyter-book"
    return [jb, "build", str(ROOT), "--path-output", str(folder), "-W", "-n", "--keep-going"]


def _test_module(name: str):
    """A test module, as pytest imported it (``tests/`` has no ``__init__.py``,
    so pytest's default import mode puts ``tests/`` on ``sys.path``)."""
    if str(ROOT / "tests") not in sys.path:
        sys.path.insert(0, str(ROOT / "tests"))
    return __import__(name)


#: Chapter 8's experiment reduced to seed 0 and 64 test tokens, two workers.
REDUCED_RUN = ["--seeds", "0", "--test-len", "64", "--workers", "2", "--quiet", "--benchmark"]

#: fixture name -> the command of its job, given the job's own folder (the
#: reduced run writes its JSON into a folder it must create; the benchmark
#: scripts run at tiny sizes).
JOBS = {
    "built_site": _site_command,
    "reduced_run": lambda folder: [sys.executable, "-m", "book.experiments", *REDUCED_RUN,
                                   "--output", str(folder / "results" / "reduced.json")],
    "rope_speed_run": lambda folder: [
        sys.executable, str(ROOT / "benchmarks" / "rope_speed.py"), "--lengths", "32", "--heads", "2",
        "--head-dim", "8", "--min-run-time", "0.01"],
    "experiment_speed_run": lambda folder: [
        sys.executable, str(ROOT / "benchmarks" / "experiment_speed.py"), "--rounds", "1",
        "--baseline", "--schemes none rope --seeds 0 1 --steps 2 --train-len 4 --test-len 5 --separate --workers 1",
        "--", "--schemes", "none", "--seeds", "0", "--steps", "3", "--train-len", "4", "--test-len", "5",
        "--workers", "1"],
    # tests/test_wheel.py: the chapters run from a wheel installed in a fresh venv, outside the repository.
    "wheel_run": lambda folder: [sys.executable, str(ROOT / "tests" / "test_wheel.py"), str(folder)],
}
_jobs: dict[str, dict] = {}


#: Seconds a job may take from its start (it shares the cores with the session).
JOB_TIMEOUT = 1800


def _start_job(name: str) -> None:
    folder = Path(tempfile.mkdtemp(prefix=f"book-{name}-"))
    log = folder / "output.log"
    with log.open("w") as sink:
        proc = subprocess.Popen(JOBS[name](folder), cwd=ROOT, stdout=sink, stderr=subprocess.STDOUT, text=True,
                                start_new_session=True)   # its own process group: stopped with its children
    _jobs[name] = {"proc": proc, "folder": folder, "log": log, "start": time.monotonic()}


def _stop(proc: subprocess.Popen) -> None:
    """Kill a background process and everything it started (its process group)."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()


def _finish_job(name: str) -> tuple[subprocess.CompletedProcess, Path]:
    """Wait for a job (starting it first if collection did not); its finished
    process (output in ``stdout``) and its folder. The caller checks the
    return code."""
    if name not in _jobs:
        _start_job(name)
    job = _jobs[name]
    try:
        job["proc"].wait(timeout=max(1.0, JOB_TIMEOUT - (time.monotonic() - job["start"])))
    except subprocess.TimeoutExpired:
        _stop(job["proc"])
        pytest.fail(f"{name} took over {JOB_TIMEOUT} s:\n{job['log'].read_text()[-3000:]}")
    done = subprocess.CompletedProcess(job["proc"].args, job["proc"].returncode, job["log"].read_text(), "")
    return done, job["folder"]


@pytest.fixture(scope="session")
def built_site() -> tuple[Path, subprocess.CompletedProcess]:
    """The book built with warnings as errors into a temporary folder: its
    ``_build/html`` folder and the finished build (its log as ``stdout``;
    the tests check its return code)."""
    done, folder = _finish_job("built_site")
    return folder / "_build" / "html", done


@pytest.fixture(scope="session")
def reduced_run() -> tuple[dict, str]:
    """The results and printed output of ``python -m book.experiments`` with
    ``REDUCED_RUN``."""
    done, folder = _finish_job("reduced_run")
    assert done.returncode == 0, f"the reduced run failed:\n{done.stdout[-3000:]}"
    return json.loads((folder / "results" / "reduced.json").read_text()), done.stdout


@pytest.fixture(scope="session")
def rope_speed_run() -> subprocess.CompletedProcess:
    """``benchmarks/rope_speed.py`` at a tiny size."""
    return _finish_job("rope_speed_run")[0]


@pytest.fixture(scope="session")
def experiment_speed_run() -> subprocess.CompletedProcess:
    """``benchmarks/experiment_speed.py`` at a tiny size (one worker)."""
    return _finish_job("experiment_speed_run")[0]


@pytest.fixture(scope="session")
def wheel_run() -> tuple[dict, str]:
    """The report (``report.json``) and log of ``tests/test_wheel.py``'s job: a wheel
    installed into fresh venvs, student copies executed from empty folders."""
    done, folder = _finish_job("wheel_run")
    report = folder / "report.json"
    assert report.is_file(), f"the wheel job wrote no report ({done.returncode}):\n{done.stdout[-3000:]}"
    return json.loads(report.read_text()), done.stdout


CPU_PASS_TEST = "test_notebooks_give_their_stored_outputs_with_other_cpu_kernels"
_cpu_passes: dict = {}


def _uses_a_job(item) -> bool:
    return any(name in getattr(item, "fixturenames", ()) for name in JOBS)


def pytest_collection_modifyitems(session, config, items) -> None:
    """Run the tests that read a background job late (the jobs run meanwhile)
    and the test that waits for the other-CPU nbval passes last."""
    items.sort(key=lambda item: (item.name == CPU_PASS_TEST, _uses_a_job(item)))


def pytest_collection_finish(session) -> None:
    """Start the jobs the session's tests will wait for, so that they run beside
    the rest of the tests: the other-CPU nbval passes
    (``tests/test_cpu_independence.py``) and the ``JOBS`` (the site build,
    chapter 8's reduced run, the benchmark scripts), each only if a selected
    test uses it."""
    if session.config.option.collectonly or _cpu_passes or _jobs:
        return
    if any(item.name == CPU_PASS_TEST for item in session.items):
        _cpu_passes.update(_test_module("test_cpu_independence").start_passes())
    for name in JOBS:
        if any(name in getattr(item, "fixturenames", ()) for item in session.items):
            _start_job(name)


class _TwinRendering:
    """While the other-CPU passes run, one of them renders the live twins'
    images (``test_cpu_independence.rendering_pass``: ``avx2`` on an AVX-512
    machine, else ``default``), so this session's own nbval kernels skip
    rendering (``BOOK_LIVE_TWIN_IMAGES=0``); rendering does not touch
    PyTorch, so the kernels' CPU setting does not matter to it. Every pass
    still draws every state. Other tests see the environment unchanged; with
    no passes running (``-k``, one file, ``make test-fast``) this session
    renders. A plugin, not a hook of this file: this file's item hooks would
    reach only the items under ``tests/``."""

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
    ``-x``) and remove the folders of those that succeeded."""
    for proc in [p for p, _ in _cpu_passes.values()] + [job["proc"] for job in _jobs.values()]:
        _stop(proc)
    for job in _jobs.values():
        if job["proc"].returncode == 0:      # a failed job's folder stays, with its log
            shutil.rmtree(job["folder"], ignore_errors=True)


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
