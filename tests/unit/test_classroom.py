"""book.classroom, the library: the static check that a student copy binds every
name, and the command line's errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from book import classroom

ROOT = Path(__file__).resolve().parents[2]


def _notebook(*cells):
    """A notebook of code cells, given as source or (source, tags)."""
    nb = nbformat.v4.new_notebook()
    for cell in cells:
        src, cell_tags = cell if isinstance(cell, tuple) else (cell, [])
        nb.cells.append(nbformat.v4.new_code_cell(src, metadata={"tags": cell_tags}))
    return nb


def test_unbound_names_finds_what_would_break_a_student_copy():
    ok = _notebook(
        "%pip install x\nimport math\nx = [math.pi * i for i in range(3)]",
        "def f():\n    return later\n",
        "later = x\nprint(f(), display, len(x))",
        ("answer = x[0]", ["solution"]),
        "x = 2\nx = x + 1",
    )
    assert classroom.unbound_names(ok) == []
    only_in_solution = _notebook("x = 1", ("y = x + 1", ["solution"]), "print(y)")
    assert classroom.unbound_names(only_in_solution) == [
        "code cell 1 ('y = x + 1'), a solution, binds 'y', which a later kept cell reads",
        "code cell 2 ('print(y)') reads 'y', which no earlier kept cell binds",
    ]
    in_comprehension = _notebook("z = [w for _ in range(2)]")
    assert "reads 'w'" in classroom.unbound_names(in_comprehension)[0]
    in_function = _notebook("def f():\n    return nowhere")
    assert "defines a function that reads 'nowhere'" in classroom.unbound_names(in_function)[0]
    rebinds = _notebook("x = 1", ("x = 5", ["solution"]), "print(x)")
    assert classroom.unbound_names(rebinds) == [
        "code cell 1 ('x = 5'), a solution, binds 'x', which a later kept cell reads"
    ]


def test_bad_arguments_get_clear_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="no notebooks"):
        classroom.write_student_notebooks(tmp_path, tmp_path / "out")
    with pytest.raises(ValueError, match="out_dir must differ"):
        classroom.write_student_notebooks(ROOT / "notebooks", ROOT / "notebooks")
    result = subprocess.run(
        [sys.executable, "-m", "book.classroom", "student", str(tmp_path / "x"), "--notebooks", str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2 and "no notebooks" in result.stderr
