"""A pytest plugin that runs the slow parts of the suite beside the session.

Some tests read the output of a long command: the website's strict build,
chapter 8's experiment at a reduced size, the benchmark scripts at tiny
sizes, the wheel job (``tests/notebooks/test_wheel.py`` run as a script), the
otter assignments job (``tests/notebooks/test_assignments.py`` run as a script), mypy
over ``book/``, and nbval over every notebook again under other CPU kernels
(``ATEN_CPU_CAPABILITY``, ``tests/notebooks/test_cpu_independence.py``). Run
one after another, after the rest of the tests, these would double the time
of ``make test``; so this plugin starts each of them as a background process
as soon as collection ends, and only if a selected test needs it:

* a job in ``JOBS`` starts if a selected test uses its fixture (``built_site``, ``student_site``,
  ``reduced_run``, ``rope_speed_run``, ``experiment_speed_run``,
  ``wheel_run``, ``mypy_run``, ``assignments_run``, ``answer_key_run``); the fixture waits for the job and gives its output;
  for development, ``BOOK_EXISTING_SITE`` points ``built_site`` at an earlier build instead;
* the other-CPU nbval passes (``start_passes``) start if the test
  ``CPU_PASS_TEST`` is selected; the ``cpu_passes`` fixture gives them to it.

``pytest_collection_modifyitems`` puts the tests that wait for a job after
every other test, and the test that waits for the nbval passes last, so the
jobs run while the rest of the session does. Each job has its own folder and
process group, writes to a log file (not a pipe, which a long log could
fill), and is stopped with everything it started when the session ends.

The twin-rendering switch: a chapter's live twins draw every state in every
nbval run, but rendering their images is most of their time and does not
touch PyTorch, so only one process renders them. While the other-CPU passes
run, one of them renders (``rendering_pass``: ``avx2`` on an AVX-512 machine,
else ``default``; it gets ``BOOK_LIVE_TWIN_IMAGES=1``, the others ``0``), and
this session's own nbval kernels skip rendering (``pytest_runtest_setup``
sets ``BOOK_LIVE_TWIN_IMAGES=0`` for a notebook item). With no passes running
(``-k``, one file, ``make test-fast``) the environment is left as it was and
this session renders. nbval masks a twin's images in every run
(``book.plots.live_html``), so the stored outputs are the same either way.

``tests/conftest.py`` loads this module with ``pytest_plugins``; its hooks
reach every item, the notebooks' included.
"""

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

ROOT = Path(__file__).resolve().parents[2]
_ORIGINAL_ENV = {k: v for k, v in os.environ.items() if k == "BOOK_LIVE_TWIN_IMAGES"}


# ---------------------------------------------------------------------------
# The jobs and their fixtures.
# ---------------------------------------------------------------------------


def _mypy() -> str:
    """The venv's mypy (pinned in requirements.txt)."""
    return shutil.which("mypy", path=str(Path(sys.executable).parent)) or shutil.which("mypy") or "mypy"


def _site_command(folder: Path, *config: str) -> list[str]:
    jb = shutil.which("jupyter-book", path=str(Path(sys.executable).parent)) or "jupyter-book"
    return [jb, "build", str(ROOT), *config, "--path-output", str(folder), "-W", "-n", "--keep-going"]


def _student_site_command(folder: Path) -> list[str]:
    """``make book-student``: the site built from ``_config_student.yml`` (no solutions)."""
    return _site_command(folder, "--config", str(ROOT / "_config_student.yml"))


#: Chapter 8's experiment reduced to seed 0 and 64 test tokens, two workers.
REDUCED_RUN = ["--seeds", "0", "--test-len", "64", "--workers", "2", "--quiet", "--benchmark"]

#: fixture name -> the command of its job, given the job's own folder (the
#: reduced run writes its JSON into a folder it must create; the benchmark
#: scripts run at tiny sizes).
JOBS = {
    "built_site": _site_command,
    "student_site": _student_site_command,
    "reduced_run": lambda folder: [
        sys.executable,
        "-m",
        "book.experiments",
        *REDUCED_RUN,
        "--output",
        str(folder / "results" / "reduced.json"),
    ],
    "rope_speed_run": lambda folder: [
        sys.executable,
        str(ROOT / "benchmarks" / "rope_speed.py"),
        "--lengths",
        "32",
        "--heads",
        "2",
        "--head-dim",
        "8",
        "--min-run-time",
        "0.01",
    ],
    "experiment_speed_run": lambda folder: [
        sys.executable,
        str(ROOT / "benchmarks" / "experiment_speed.py"),
        "--rounds",
        "1",
        "--baseline",
        "--schemes none rope --seeds 0 1 --steps 2 --train-len 4 --test-len 5 --workers 1",
        "--",
        "--schemes",
        "none",
        "--seeds",
        "0",
        "--steps",
        "3",
        "--train-len",
        "4",
        "--test-len",
        "5",
        "--workers",
        "1",
    ],
    # The chapters run from a wheel installed in a fresh venv, outside the repository.
    "wheel_run": lambda folder: [sys.executable, str(ROOT / "tests" / "notebooks" / "test_wheel.py"), str(folder)],
    # mypy over book/ (settings in pyproject.toml), with a cache in the job's folder.
    "mypy_run": lambda folder: [_mypy(), "--cache-dir", str(folder / "cache")],
    # The otter-grader assignments written with otter assign and graded with otter run.
    "answer_key_run": lambda folder: [sys.executable, "-m", "book.classroom", "key", str(folder / "key")],
    "assignments_run": lambda folder: [
        sys.executable,
        str(ROOT / "tests" / "notebooks" / "test_assignments.py"),
        str(folder),
    ],
}
_jobs: dict[str, dict] = {}


#: Seconds a job may take from its start (it shares the cores with the session).
JOB_TIMEOUT = 1800


def _start_job(name: str) -> None:
    folder = Path(tempfile.mkdtemp(prefix=f"book-{name}-"))
    log = folder / "output.log"
    with log.open("w") as sink:
        proc = subprocess.Popen(
            JOBS[name](folder), cwd=ROOT, stdout=sink, stderr=subprocess.STDOUT, text=True, start_new_session=True
        )  # its own process group: stopped with its children
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


#: For development only: the ``--path-output`` folder of an earlier
#: ``jupyter-book build``, which ``built_site`` then gives instead of building
#: (see CONTRIBUTING.md; the terminal summary says so).
EXISTING_SITE = "BOOK_EXISTING_SITE"


def existing_site() -> Path | None:
    """The folder ``BOOK_EXISTING_SITE`` names, or None when it is not set."""
    folder = os.environ.get(EXISTING_SITE)
    return Path(folder).resolve() if folder else None


@pytest.fixture(scope="session")
def built_site() -> tuple[Path, subprocess.CompletedProcess]:
    """The book built with warnings as errors into a temporary folder: its
    ``_build/html`` folder and the finished build (its log as ``stdout``;
    the tests check its return code). With ``BOOK_EXISTING_SITE`` set, that
    folder's earlier build, not rebuilt, with an empty log."""
    folder = existing_site()
    if folder is not None:
        html = folder / "_build" / "html"
        if not (html / "intro.html").is_file():
            pytest.fail(f"{EXISTING_SITE}={folder} holds no built site ({html / 'intro.html'} is missing)")
        return html, subprocess.CompletedProcess(["(existing build)", str(folder)], 0, "", "")
    done, folder = _finish_job("built_site")
    return folder / "_build" / "html", done


@pytest.fixture(scope="session")
def student_site() -> tuple[Path, subprocess.CompletedProcess]:
    """The student site (``_config_student.yml``) built with warnings as errors into a temporary
    folder: its ``_build/html`` folder and the finished build (log as ``stdout``; the tests check
    its return code)."""
    done, folder = _finish_job("student_site")
    return folder / "_build" / "html", done


@pytest.fixture(scope="session")
def answer_key_run() -> tuple[Path, subprocess.CompletedProcess]:
    """``python -m book.classroom key``: the folder it wrote the answer key into, and the finished
    command (its output as ``stdout``; the tests check its return code)."""
    done, folder = _finish_job("answer_key_run")
    return folder / "key", done


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
def mypy_run() -> tuple[subprocess.CompletedProcess, Path]:
    """mypy over ``book/``, finished (its report as ``stdout``; the tests check
    its return code), and the cache folder it filled, for later runs."""
    done, folder = _finish_job("mypy_run")
    return done, folder / "cache"


@pytest.fixture(scope="session")
def assignments_run() -> tuple[dict, str]:
    """The report (``report.json``) and log of ``tests/notebooks/test_assignments.py``'s job:
    every otter assignment written, then its notebooks graded with otter run."""
    done, folder = _finish_job("assignments_run")
    report = folder / "report.json"
    assert report.is_file(), f"the assignments job wrote no report ({done.returncode}):\n{done.stdout[-3000:]}"
    return json.loads(report.read_text()), done.stdout


@pytest.fixture(scope="session")
def wheel_run() -> tuple[dict, str]:
    """The report (``report.json``) and log of ``tests/notebooks/test_wheel.py``'s job:
    a wheel installed into fresh venvs, student copies executed from empty folders."""
    done, folder = _finish_job("wheel_run")
    report = folder / "report.json"
    assert report.is_file(), f"the wheel job wrote no report ({done.returncode}):\n{done.stdout[-3000:]}"
    return json.loads(report.read_text()), done.stdout


# ---------------------------------------------------------------------------
# The nbval passes under other CPU kernels.
# ---------------------------------------------------------------------------


def _cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    return {flag for line in text.splitlines() if line.startswith("flags") for flag in line.split(":")[1].split()}


def other_capabilities() -> list[str]:
    """The kernel sets to try besides the native one: ``default`` (no vector
    extensions) always, and ``avx2`` as well when this CPU has AVX-512 (so
    that the native pass used AVX-512)."""
    return ["default", "avx2"] if "avx512f" in _cpu_flags() else ["default"]


def rendering_pass() -> str:
    """The one pass that renders the live twins' images: ``avx2`` on an AVX-512
    machine (the lighter of the two passes), else ``default`` (the only one)."""
    return other_capabilities()[-1]


def pass_env(capability: str) -> dict[str, str]:
    """The environment of the nbval pass under ``capability``: PyTorch told to use
    that kernel set, and ``BOOK_LIVE_TWIN_IMAGES`` ``1`` for the rendering pass,
    ``0`` for the others."""
    render = "1" if capability == rendering_pass() else "0"
    return {**os.environ, "ATEN_CPU_CAPABILITY": capability, "BOOK_LIVE_TWIN_IMAGES": render}


def start_passes() -> dict[str, tuple[subprocess.Popen, Path]]:
    """Start nbval over every notebook, once per other kernel set, in the
    background; each pass's process and log file. Each kernel uses one thread;
    output goes to a file, not a pipe, so a long report cannot block a pass."""
    passes = {}
    for cap in other_capabilities():
        log = Path(tempfile.mkstemp(prefix=f"nbval-{cap}-", suffix=".log")[1])
        with log.open("w") as out:
            proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "pytest",
                    "-q",
                    "-p",
                    "no:cacheprovider",
                    # the installed plugins that notebooks never use (hypothesis: a second of import)
                    "-p",
                    "no:hypothesispytest",
                    "-p",
                    "no:anyio",
                    "--tb=short",
                    "--durations=25",
                    "notebooks",
                    "guide",
                ],
                cwd=ROOT,
                env=pass_env(cap),
                stdout=out,
                stderr=subprocess.STDOUT,
                text=True,
                start_new_session=True,
            )  # its own process group: stopped with its kernels
        passes[cap] = (proc, log)
    return passes


#: The test that waits for the other-CPU passes (it runs last).
CPU_PASS_TEST = "test_notebooks_give_their_stored_outputs_with_other_cpu_kernels"
_cpu_passes: dict = {}


@pytest.fixture(scope="session")
def cpu_passes() -> dict:
    """The background passes ``pytest_collection_finish`` started."""
    return _cpu_passes


# ---------------------------------------------------------------------------
# The hooks.
# ---------------------------------------------------------------------------


def _uses_a_job(item) -> bool:
    return any(name in getattr(item, "fixturenames", ()) for name in JOBS)


def pytest_collection_modifyitems(session, config, items) -> None:
    """Run the tests that read a background job late (the jobs run meanwhile)
    and the test that waits for the other-CPU nbval passes last."""
    items.sort(key=lambda item: (item.name == CPU_PASS_TEST, _uses_a_job(item)))


def pytest_collection_finish(session) -> None:
    """Start the jobs the session's tests will wait for, so that they run beside
    the rest of the tests: the other-CPU nbval passes and the ``JOBS``, each
    only if a selected test uses it."""
    if session.config.option.collectonly or _cpu_passes or _jobs:
        return
    if any(item.name == CPU_PASS_TEST for item in session.items):
        _cpu_passes.update(start_passes())
    for name in JOBS:
        if name == "built_site" and existing_site() is not None:
            continue  # the fixture gives the existing build
        if any(name in getattr(item, "fixturenames", ()) for item in session.items):
            _start_job(name)


def pytest_terminal_summary(terminalreporter) -> None:
    """Say when the site tests read an earlier build (``BOOK_EXISTING_SITE``)."""
    folder = existing_site()
    if folder is not None:
        terminalreporter.section("existing site build")
        terminalreporter.write_line(f"{EXISTING_SITE}={folder}: the site tests read this build, not a fresh one")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item) -> None:
    """The twin-rendering switch: ``BOOK_LIVE_TWIN_IMAGES=0`` for a notebook
    item while the other-CPU passes run (one of them renders); for any other
    item, and for a notebook when no pass runs, the environment as it was."""
    if _cpu_passes and item.path.suffix == ".ipynb":
        os.environ["BOOK_LIVE_TWIN_IMAGES"] = "0"
    elif "BOOK_LIVE_TWIN_IMAGES" in _ORIGINAL_ENV:
        os.environ["BOOK_LIVE_TWIN_IMAGES"] = _ORIGINAL_ENV["BOOK_LIVE_TWIN_IMAGES"]
    else:
        os.environ.pop("BOOK_LIVE_TWIN_IMAGES", None)


def pytest_sessionfinish(session) -> None:
    """Stop background jobs still running (the session ended early, e.g. with
    ``-x``) and remove the folders of those that succeeded."""
    for proc in [p for p, _ in _cpu_passes.values()] + [job["proc"] for job in _jobs.values()]:
        _stop(proc)
    for job in _jobs.values():
        if job["proc"].returncode == 0:  # a failed job's folder stays, with its log
            shutil.rmtree(job["folder"], ignore_errors=True)
