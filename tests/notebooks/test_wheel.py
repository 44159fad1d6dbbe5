"""The chapters run outside the repository, with the book installed from a wheel.

A background job (``wheel_run`` in ``tests/plugins/background_jobs.py``, this
file run as a script) builds a wheel from a copy of the sources, installs it with
``--no-deps`` into a fresh virtual environment (the dependencies come from
``.venv``'s site-packages through a plain path line in a ``.pth`` file, so
no network and no editable ``book``), writes the student copies with that
environment's ``python -m book.classroom student`` and executes every one of
them (``CHAPTERS``: every chapter in ``notebooks/``), each alone in an empty folder, in a kernel
of that environment. A second
wheel, built without ``book/results/*.json``, shows that the test can fail:
chapter 11 must stop there with a ``FileNotFoundError`` naming
``book/results``. The job writes ``report.json``; the tests read it.
"""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
import subprocess
import sys
import sysconfig
import time
import traceback
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: Every chapter in notebooks/ (a new chapter is covered as soon as it is there): its student
#: copy (solutions removed) must run from top to bottom. Every copy is also checked statically
#: (tests/notebooks/test_student_copies.py: every name it reads is bound).
CHAPTERS = sorted(path.stem for path in (ROOT / "notebooks").glob("*.ipynb"))
#: The chapters that train models, started first so that the workers finish together.
LONGEST = ("08_extrapolation", "09_long_context", "05_learned")
SABOTAGED_CHAPTER = "11_numerics"
#: Seconds a cell may give no reply before its chapter runs again in a new kernel. The slowest
#: cell (chapter 8's live rerun) takes 15 s on a quiet 2-core machine; a kernel that stalls
#: (no reply though the kernel sits idle; seen only under load, cause not known) costs this long, once.
CELL_TIMEOUT = 240
#: Notebooks executed at once by the job (each kernel has OMP_NUM_THREADS=1).
WORKERS = int(os.environ.get("BOOK_WHEEL_WORKERS", "2"))

# ---------------------------------------------------------------------------
# The job: ``python tests/notebooks/test_wheel.py FOLDER`` (and, per worker, a
# ``python tests/notebooks/test_wheel.py --serve`` that executes the notebooks it is given).
# ---------------------------------------------------------------------------

_CHECK_CELL = """\
import os as _os, sys as _sys
import book as _book
_root = {root!r}
_on_path = [p for p in _sys.path if _os.path.realpath(p or _os.getcwd()) == _root]
assert not _on_path, f"the repository is on sys.path: {{_on_path}}"
assert _os.path.realpath(_book.__file__).startswith({venv!r} + _os.sep), _book.__file__
assert not _os.path.realpath(_os.getcwd()).startswith(_root + _os.sep), _os.getcwd()
print("BOOK_WHEEL_CHECK", _book.__file__)
"""


def _clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env.update(OMP_NUM_THREADS="1", MPLBACKEND="Agg", PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INDEX="1")
    return env


def _run(cmd: list, cwd: Path, env: dict | None = None) -> str:
    done = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env or _clean_env(), capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done.stdout


def _copy_sources(target: Path, keep=lambda rel: True) -> Path:
    """Copy the files git tracks or would track (``git ls-files -co --exclude-standard``)."""
    listed = (
        subprocess.run(
            ["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, check=True, capture_output=True
        )
        .stdout.decode()
        .split("\0")
    )
    for rel in filter(None, listed):
        src = ROOT / rel
        if src.is_file() and keep(rel):
            (target / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, target / rel)
    return target


def _wheel_venv(folder: Path, name: str, keep=lambda rel: True) -> tuple[Path, dict]:
    """Build a wheel from a copy of the sources and install it into a fresh venv; (venv, facts)."""
    copy, wheels, venv, empty = (folder / f"{name}-{part}" for part in ("src", "wheel", "venv", "empty"))
    empty.mkdir()
    _copy_sources(copy, keep)
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", wheels, copy], folder)
    (wheel,) = wheels.glob("book-*.whl")
    _run([sys.executable, "-m", "venv", "--without-pip", venv], folder)
    python = venv / "bin" / "python"
    _run([sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index", wheel], folder)
    site = Path(_run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], empty).strip())
    deps = sorted({sysconfig.get_path("purelib"), sysconfig.get_path("platlib")})
    (site / "_book_wheel_deps.pth").write_text("".join(f"{p}\n" for p in deps))  # plain path lines
    facts = json.loads(
        _run(
            [
                python,
                "-c",
                "import book, book.results, json, os, sys; print(json.dumps("
                "{'file': os.path.realpath(book.__file__), 'names': book.results.names(), "
                "'path': [os.path.realpath(p or os.getcwd()) for p in sys.path]}))",
            ],
            empty,
        )
    )
    facts.update(wheel=wheel.name, venv=str(venv.resolve()), site=str(site))
    kernels = folder / "jupyter" / "kernels" / name
    kernels.mkdir(parents=True)
    (kernels / "kernel.json").write_text(
        json.dumps(
            {
                "argv": [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": f"book from a wheel ({name})",
                "language": "python",
                "env": {"PATH": f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}", "VIRTUAL_ENV": str(venv)},
            }
        )
    )
    return venv, facts


class _Executor:
    """A process (this file with ``--serve``) that executes notebooks one after another, each in a
    fresh kernel: nbclient is imported once per worker, not once per chapter (about 2 CPU seconds
    each). Its stderr, the kernels' included, goes to ``executor-N.log`` in the job's folder."""

    def __init__(self, folder: Path, number: int) -> None:
        self.folder, self.log, self.proc = folder, folder / f"executor-{number}.log", None

    def run(self, notebook: Path, kernel: str, venv: Path) -> dict:
        """Execute ``notebook`` (alone in its folder); what happened."""
        start = time.monotonic()
        if self.proc is None or self.proc.poll() is not None:  # not started, or it died
            with self.log.open("a") as sink:
                self.proc = subprocess.Popen(
                    [sys.executable, __file__, "--serve"],
                    cwd=self.folder,
                    env=_clean_env() | {"JUPYTER_PATH": str(self.folder / "jupyter")},
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=sink,
                    text=True,
                )
        offset = self.log.stat().st_size
        try:
            self.proc.stdin.write(json.dumps([str(notebook), kernel, str(venv.resolve())]) + "\n")
            self.proc.stdin.flush()
            self.proc.stdout.readline()  # "done", or nothing if the process died
        except BrokenPipeError:
            pass
        try:
            result = json.loads((notebook.parent / "result.json").read_text())
        except FileNotFoundError:
            result = {"ok": False, "ename": "JobError", "evalue": f"no result ({self.proc.poll()})", "traceback": ""}
        with self.log.open(errors="replace") as text:
            text.seek(offset)
            result.update(seconds=round(time.monotonic() - start, 1), log=text.read()[-4000:])
        return result

    def close(self) -> None:
        if self.proc is not None:
            self.proc.stdin.close()
            self.proc.wait()


def serve() -> None:
    """The ``--serve`` loop: for each line ``[notebook, kernel, venv]`` on stdin, ``execute_one``
    with the notebook's folder as the current one, then ``done`` on stdout."""
    protocol = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # what nbclient and the kernels print goes to the log, not into the protocol
    for line in sys.stdin:
        notebook, kernel, venv = json.loads(line)
        os.chdir(Path(notebook).parent)
        execute_one(Path(notebook), kernel, venv)
        print("done", file=protocol, flush=True)


def _slowest_cells(nb, count: int = 3) -> list[list]:
    """The ``count`` slowest code cells of an executed notebook, as [index, seconds], slowest first
    (from the timing nbclient records in each cell's metadata)."""
    from datetime import datetime

    took = []
    for index, cell in enumerate(nb.cells):
        timing = cell.get("metadata", {}).get("execution", {})
        if "iopub.execute_input" in timing and "shell.execute_reply" in timing:
            begin, end = (datetime.fromisoformat(timing[k]) for k in ("iopub.execute_input", "shell.execute_reply"))
            took.append([index, round((end - begin).total_seconds(), 1)])
    return sorted(took, key=lambda t: -t[1])[:count]


def execute_one(notebook: Path, kernel: str, venv: str) -> None:
    """Run one notebook with nbclient in the kernel ``kernel`` (its folder the kernel's current
    one); write result.json, with the CPU seconds it took (this process's and the kernel's), its
    slowest cells and when each phase of each run ended."""
    import resource

    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    def cpu() -> float:
        used = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
        return sum(u.ru_utime + u.ru_stime for u in used)

    cpu_before = cpu()
    nb = nbformat.read(notebook, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(_CHECK_CELL.format(root=os.path.realpath(ROOT), venv=venv)))
    result: dict = {"ok": True}
    runs, timed_out = [], []

    def run(nb):
        # When each phase ended, in seconds from the start: the kernel ready, the first cell
        # started, the last cell done, the kernel shut down (where a stall happened, if any).
        start, phases = time.monotonic(), {}
        runs.append(phases)

        def mark(name):
            return lambda **_: phases.setdefault(name, round(time.monotonic() - start, 1))

        try:
            NotebookClient(
                nb,
                timeout=CELL_TIMEOUT,
                kernel_name=kernel,
                resources={"metadata": {"path": str(notebook.parent)}},
                on_notebook_start=mark("kernel_ready"),
                on_cell_start=mark("first_cell"),
                on_notebook_complete=mark("last_cell_done"),
            ).execute()
        finally:
            mark("kernel_shut_down")()
            result["slowest_cells"] = _slowest_cells(nb)

    try:
        try:
            run(nbformat.from_dict(nb))
        except (CellTimeoutError, DeadKernelError) as err:
            # On a loaded machine the client has, rarely, waited forever for the
            # reply of an idle kernel (seen with ipykernel 6 and 7; no cell of the
            # book takes a minute), or lost its kernel. Run once more in a new
            # kernel, as scripts/execute_notebooks.py does; a cell that really
            # hangs, or any error, still fails. The report keeps which cell it
            # was, and the chapter's test warns about it.
            timed_out.append(f"{type(err).__name__}: {str(err)[-2000:]}")
            run(nb)
    except CellExecutionError as err:
        result.update(ok=False, ename=err.ename, evalue=err.evalue, traceback=str(err)[-4000:])
    except Exception as err:
        result.update(ok=False, ename=type(err).__name__, evalue=str(err), traceback=traceback.format_exc())
    result.update(cpu_seconds=round(cpu() - cpu_before, 1), phases=runs, timed_out_once=timed_out)
    (notebook.parent / "result.json").write_text(json.dumps(result))


def job(folder: Path) -> int:
    """Build, install, execute; write ``folder/report.json``. Non-zero if anything failed."""
    start = time.monotonic()
    report: dict = {"chapters": {}, "sabotage": {}}
    try:
        venv, report["install"] = _wheel_venv(folder, "wheel")
        bad_venv, report["sabotage"]["install"] = _wheel_venv(
            folder, "sabotaged", keep=lambda rel: not (rel.startswith("book/results/") and rel.endswith(".json"))
        )
        students = folder / "students"
        _run(
            [
                venv / "bin" / "python",
                "-m",
                "book.classroom",
                "student",
                students.resolve(),
                "--notebooks",
                ROOT / "notebooks",
            ],
            folder / "wheel-empty",
        )
        report["setup_seconds"] = round(time.monotonic() - start, 1)

        def place(chapter: str, run: str) -> Path:
            alone = folder / "runs" / run / chapter
            alone.mkdir(parents=True)
            return Path(shutil.copy2(students / f"{chapter}.ipynb", alone))

        tasks = {("sabotage", SABOTAGED_CHAPTER): (place(SABOTAGED_CHAPTER, "sabotaged"), "sabotaged", bad_venv)}
        # The longest (training) chapters first, so that the workers finish together.
        for chapter in sorted(CHAPTERS, key=lambda c: LONGEST.index(c) if c in LONGEST else len(LONGEST)):
            tasks[("chapters", chapter)] = (place(chapter, "wheel"), "wheel", venv)
        executors: queue.Queue[_Executor] = queue.Queue()
        for number in range(WORKERS):
            executors.put(_Executor(folder, number))

        def execute(notebook: Path, kernel: str, venv: Path) -> dict:
            executor = executors.get()
            try:
                return executor.run(notebook, kernel, venv)
            finally:
                executors.put(executor)

        try:
            with ThreadPoolExecutor(max_workers=WORKERS) as pool:
                futures = {key: pool.submit(execute, *task) for key, task in tasks.items()}
                for (part, chapter), future in futures.items():
                    report[part][chapter] = future.result()
        finally:
            while not executors.empty():
                executors.get().close()
    except Exception:
        report["setup_error"] = traceback.format_exc()
    report["seconds"] = round(time.monotonic() - start, 1)
    (folder / "report.json").write_text(json.dumps(report, indent=1))
    for chapter, result in report["chapters"].items():
        print(
            f"{chapter}: {'ok' if result['ok'] else result['ename']} in {result['seconds']} s "
            f"({result.get('cpu_seconds', '?')} CPU s; slowest cells {result.get('slowest_cells', [])}; "
            f"phases {result.get('phases', [])})"
        )
        for message in result.get("timed_out_once", []):
            print(f"{chapter} timed out once, then ran again: {message}")
    print(f"wheel job: {report['seconds']} s with {WORKERS} workers")
    bad = report["sabotage"].get(SABOTAGED_CHAPTER, {})
    failed = "setup_error" in report or not all(r["ok"] for r in report["chapters"].values()) or bad.get("ok", True)
    return int(failed)


# ---------------------------------------------------------------------------
# The tests.
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def report(wheel_run) -> dict:
    report, log = wheel_run
    assert "setup_error" not in report, f"{report['setup_error']}\n{log[-3000:]}"
    return report


@pytest.mark.slow
def test_book_is_imported_from_the_wheel(report):
    facts = report["install"]
    assert facts["file"].startswith(facts["venv"] + os.sep), facts["file"]
    assert not facts["file"].startswith(str(ROOT.resolve()) + os.sep), facts["file"]
    assert str(ROOT.resolve()) not in facts["path"]
    assert facts["names"] == sorted(p.stem for p in (ROOT / "book" / "results").glob("*.json"))


@pytest.mark.slow
def test_every_chapter_in_the_notebooks_folder_ran_from_the_wheel(report):
    """The job ran every chapter the book's table of contents lists (read apart from
    ``CHAPTERS``, which globs the folder), each with a result."""
    in_toc = re.findall(r"file: notebooks/(\w+)", (ROOT / "_toc.yml").read_text())
    assert len(in_toc) >= 12 and sorted(in_toc) == sorted(CHAPTERS), (in_toc, CHAPTERS)
    assert sorted(report["chapters"]) == sorted(in_toc)
    assert all("ok" in result for result in report["chapters"].values())


@pytest.mark.slow
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_student_copy_runs_from_the_wheel(report, chapter):
    result = report["chapters"][chapter]
    assert result["ok"], (
        f"{chapter} failed ({result['seconds']} s) with {result['ename']}: {result['evalue']}\n"
        f"{result['traceback']}\n{result['log']}"
    )
    assert result["seconds"] < 1800
    for message in result.get("timed_out_once", []):  # passed on the second run: say so in the summary
        warnings.warn(
            f"{chapter} ran twice: its first run stopped ({message[-500:]}); phases of each run "
            f"(seconds from its start): {result.get('phases')}",
            stacklevel=1,
        )


@pytest.mark.slow
def test_a_wheel_without_the_results_fails_the_numerics_chapter(report):
    facts = report["sabotage"]["install"]
    assert facts["file"].startswith(facts["venv"] + os.sep) and facts["names"] == []
    result = report["sabotage"][SABOTAGED_CHAPTER]
    assert not result["ok"], "chapter 11 ran without book/results/*.json: the wheel test could not fail"
    assert result["ename"] == "FileNotFoundError", (result["ename"], result["evalue"], result["log"])
    assert "book/results" in result["evalue"], result["evalue"]


if __name__ == "__main__":
    if sys.argv[1] == "--serve":
        serve()
    else:
        sys.exit(job(Path(sys.argv[1])))
