"""scripts/execute_notebooks.py stores a chapter's outputs, and a cell that gives no
result in time stops it with a clear message, after one retry, writing nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "execute_notebooks.py"


def _notebook(path: Path, code: str) -> Path:
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)]), path)
    return path


def test_outputs_are_stored(tmp_path):
    path = _notebook(tmp_path / "ok.ipynb", "print(6 * 7)")
    done = subprocess.run([sys.executable, str(SCRIPT), str(path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    cell = nbformat.read(path, as_version=4).cells[0]
    assert cell.outputs[0]["text"] == "42\n" and "execution" not in cell.metadata


def test_a_cell_that_never_finishes_is_retried_once_then_stops_clearly(tmp_path):
    path = _notebook(tmp_path / "slow.ipynb", "import time\ntime.sleep(60)")
    before = path.read_bytes()
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--timeout", "1", str(path)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode != 0
    assert "running the notebook again in a new kernel" in done.stderr
    assert "gave no result for 1 s in 2 fresh kernels" in done.stderr and "nothing was written" in done.stderr
    assert path.read_bytes() == before
