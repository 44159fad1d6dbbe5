"""The code passes ruff (lint and format; settings in pyproject.toml), over the
Python files and the notebooks' code cells, and mypy over book/."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _ruff() -> str:
    found = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    assert found, "ruff is pinned in requirements.txt; install it with pip install -r requirements.txt"
    return found


def test_ruff_passes():
    result = subprocess.run(
        [_ruff(), "check", "--no-cache", "."], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_leaves_the_code_as_it_is():
    result = subprocess.run(
        [_ruff(), "format", "--check", "--no-cache", "."], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, "run ruff format:\n" + result.stdout + result.stderr


def test_ruff_reads_the_notebooks_and_flags_dead_noqa(tmp_path):
    """Notebooks are linted too (an unused import in a code cell fails), and a ``noqa``
    that suppresses nothing is an error (RUF100)."""
    import nbformat

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("import os\n")])
    nbformat.write(nb, tmp_path / "bad.ipynb")
    (tmp_path / "dead.py").write_text("x = 1  # noqa: E501\n")
    result = subprocess.run(
        [
            _ruff(),
            "check",
            "--no-cache",
            "--config",
            str(ROOT / "pyproject.toml"),
            str(tmp_path / "bad.ipynb"),
            str(tmp_path / "dead.py"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 1 and "F401" in result.stdout and "RUF100" in result.stdout, result.stdout


def _mypy() -> str:
    found = shutil.which("mypy", path=str(Path(sys.executable).parent)) or shutil.which("mypy")
    assert found, "mypy is pinned in requirements.txt; install it with pip install -r requirements.txt"
    return found


def test_mypy_passes_on_the_library(mypy_run):
    """mypy runs beside the session (the ``mypy_run`` job of ``tests/plugins/background_jobs.py``)."""
    done, _ = mypy_run
    assert done.returncode == 0, done.stdout


def test_mypy_would_catch_a_literal_bound_to_a_wrong_string(tmp_path, mypy_run):
    """``check_choice`` returns the ``Literal`` it was given, so passing its result where
    another ``Literal`` is expected is an error mypy reports (reusing the cache of the
    library's run)."""
    _, mypy_cache = mypy_run
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from typing import Literal\n"
        "from book._validate import check_choice\n"
        "def f(x: Literal['a', 'b']) -> None: ...\n"
        "CHOICES: tuple[Literal['a', 'c'], ...] = ('a', 'c')\n"
        "f(check_choice('x', 'a', CHOICES))\n"
    )
    result = subprocess.run(
        [_mypy(), "--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(mypy_cache), str(bad)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "MYPYPATH": str(ROOT)},
    )
    assert result.returncode == 1 and "arg-type" in result.stdout, result.stdout + result.stderr


def test_ruff_would_catch_an_unused_import(tmp_path):
    """The configuration really checks: a file with an unused import fails."""
    bad = tmp_path / "bad.py"
    bad.write_text("import os\n")
    result = subprocess.run(
        [_ruff(), "check", "--no-cache", "--config", str(ROOT / "pyproject.toml"), str(bad)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 1 and "F401" in result.stdout


def test_no_module_of_the_library_is_over_700_lines():
    """A module a reader can hold in mind: the chapters' code is split by chapter instead."""
    long = {
        str(p.relative_to(ROOT)): n
        for p in (ROOT / "book").rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 700
    }
    assert not long, long
