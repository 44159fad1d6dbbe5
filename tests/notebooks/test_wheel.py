"""The chapters run outside the repository, with the book installed from a wheel.

A background job (``wheel_run`` in ``tests/plugins/background_jobs.py``, this
file run as a script) builds a wheel from a copy of the sources, installs it with
``--no-deps`` into a fresh virtual environment (the dependencies come from
``.venv``'s site-packages through a plain path line in a ``.pth`` file, so
no network and no editable ``book``), writes the student copies with that
environment's ``python -m book.classroom student`` and executes every one of
them (``CHAPTERS``), each alone in an empty folder, in a kernel of that environment. A second
wheel, built without ``book/results/*.json``, shows that the test can fail:
chapter 11 must stop there with a ``FileNotFoundError`` naming
``book/results``. The job writes ``report.json``; the tests read it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: Chapters 8 to 12 and one chapter of each other part: their student copies
#: (solutions removed) must run from top to bottom. Every chapter's copy is also
#: checked statically (tests/notebooks/test_student_copies.py: every name it reads is bound).
CHAPTERS = [
    "01_order_blind",
    "03_rotation",
    "07_relative",
    "08_extrapolation",
    "09_long_context",
    "10_todays_models",
    "11_numerics",
    "12_serving_stack",
]
SABOTAGED_CHAPTER = "11_numerics"
CELL_TIMEOUT = 600
#: Notebooks executed at once by the job (each kernel has OMP_NUM_THREADS=1).
WORKERS = int(os.environ.get("BOOK_WHEEL_WORKERS", "2"))

# ---------------------------------------------------------------------------
# The job: ``python tests/notebooks/test_wheel.py FOLDER`` (and, per notebook,
# ``python tests/notebooks/test_wheel.py --execute NOTEBOOK KERNEL_NAME``).
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


def _execute(notebook: Path, kernel: str, venv: Path, folder: Path) -> dict:
    """Execute ``notebook`` (alone in its folder) in a subprocess; what happened."""
    start = time.monotonic()
    env = _clean_env() | {"JUPYTER_PATH": str(folder / "jupyter")}
    done = subprocess.run(
        [sys.executable, __file__, "--execute", notebook, kernel, venv.resolve()],
        cwd=notebook.parent,
        env=env,
        capture_output=True,
        text=True,
    )
    try:
        result = json.loads((notebook.parent / "result.json").read_text())
    except FileNotFoundError:
        result = {"ok": False, "ename": "JobError", "evalue": f"no result ({done.returncode})", "traceback": ""}
    result.update(seconds=round(time.monotonic() - start, 1), log=(done.stdout + done.stderr)[-4000:])
    return result


def execute_one(notebook: Path, kernel: str, venv: str) -> None:
    """Run one notebook with nbclient in the kernel ``kernel``, cwd its folder; write result.json."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError

    nb = nbformat.read(notebook, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(_CHECK_CELL.format(root=os.path.realpath(ROOT), venv=venv)))
    result = {"ok": True}

    def run(nb):
        NotebookClient(
            nb, timeout=CELL_TIMEOUT, kernel_name=kernel, resources={"metadata": {"path": str(notebook.parent)}}
        ).execute()

    try:
        try:
            run(nbformat.from_dict(nb))
        except CellTimeoutError:
            # On a loaded machine the client has, rarely, waited forever for the
            # reply of an idle kernel (seen with ipykernel 6 and 7; no cell of the
            # book takes a minute). Run once more; a cell that really hangs, or
            # any error, still fails.
            run(nb)
    except CellExecutionError as err:
        result = {"ok": False, "ename": err.ename, "evalue": err.evalue, "traceback": str(err)[-4000:]}
    except Exception as err:
        result = {"ok": False, "ename": type(err).__name__, "evalue": str(err), "traceback": traceback.format_exc()}
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
        # The longest (training) chapters first, so that two workers finish together.
        for chapter in sorted(CHAPTERS, key=lambda c: c not in ("08_extrapolation", "09_long_context")):
            tasks[("chapters", chapter)] = (place(chapter, "wheel"), "wheel", venv)
        with ThreadPoolExecutor(max_workers=WORKERS) as pool:
            futures = {key: pool.submit(_execute, nb, kernel, v, folder) for key, (nb, kernel, v) in tasks.items()}
            for (part, chapter), future in futures.items():
                report[part][chapter] = future.result()
    except Exception:
        report["setup_error"] = traceback.format_exc()
    report["seconds"] = round(time.monotonic() - start, 1)
    (folder / "report.json").write_text(json.dumps(report, indent=1))
    for chapter, result in report["chapters"].items():
        print(f"{chapter}: {'ok' if result['ok'] else result['ename']} in {result['seconds']} s")
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
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_student_copy_runs_from_the_wheel(report, chapter):
    result = report["chapters"][chapter]
    assert result["ok"], (
        f"{chapter} failed ({result['seconds']} s) with {result['ename']}: {result['evalue']}\n"
        f"{result['traceback']}\n{result['log']}"
    )
    assert result["seconds"] < 1800


@pytest.mark.slow
def test_a_wheel_without_the_results_fails_the_numerics_chapter(report):
    facts = report["sabotage"]["install"]
    assert facts["file"].startswith(facts["venv"] + os.sep) and facts["names"] == []
    result = report["sabotage"][SABOTAGED_CHAPTER]
    assert not result["ok"], "chapter 11 ran without book/results/*.json: the wheel test could not fail"
    assert result["ename"] == "FileNotFoundError", (result["ename"], result["evalue"], result["log"])
    assert "book/results" in result["evalue"], result["evalue"]


if __name__ == "__main__":
    if sys.argv[1] == "--execute":
        execute_one(Path(sys.argv[2]), sys.argv[3], sys.argv[4])
    else:
        sys.exit(job(Path(sys.argv[1])))
