"""Student copies of the chapters: solutions removed, outputs cleared, every name still bound.

That each copy runs from top to bottom, in an empty folder with the book installed
from a wheel, is tested by tests/notebooks/test_wheel.py."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from book import classroom, editions

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def tags(cell):
    return cell.get("metadata", {}).get("tags", [])


@pytest.fixture(scope="module")
def student_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("students")
    result = subprocess.run(
        [sys.executable, "-m", "book.classroom", "student", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("wrote ") == len(NOTEBOOKS)
    return out


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_student_copy_drops_solutions_and_outputs(student_dir, path):
    original = nbformat.read(path, as_version=4)
    student = nbformat.read(student_dir / path.name, as_version=4)
    nbformat.validate(student)
    reader = editions.reader_edition(original, path.name, editions.BookIndex.from_repository(ROOT))
    kept = [c for c in reader.cells if "solution" not in tags(c)]
    assert [c.source for c in student.cells] == [c.source for c in kept]
    assert not any("solution" in tags(c) for c in student.cells)
    assert "solution-start" not in json.dumps([c.source for c in student.cells])
    n_exercises = sum("exercise" in tags(c) for c in original.cells)
    assert n_exercises and sum("exercise" in tags(c) for c in student.cells) == n_exercises
    for cell in student.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_student_copy_binds_every_name(path):
    """No cell a student keeps reads a name that only a removed solution binds
    (checked statically: nbval already runs every cell once, in order)."""
    nb = nbformat.read(path, as_version=4)
    assert classroom.unbound_names(nb) == []
    assert classroom.unbound_names(classroom.student_copy(nb)) == []
    reader = editions.reader_edition(nb, path.name, editions.BookIndex.from_repository(ROOT))
    assert classroom.unbound_names(classroom.student_copy(reader)) == []
    # The check reads real names: without its setup cell, the chapter breaks.
    setup = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code" and "import book" in c.source)
    del nb.cells[setup]
    assert any("which no earlier kept cell binds" in p for p in classroom.unbound_names(nb))


def test_chapters_are_left_untouched(student_dir):
    for path in NOTEBOOKS:
        assert any(c.get("outputs") for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code")
