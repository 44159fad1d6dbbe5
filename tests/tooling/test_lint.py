"""The code passes ruff (pyflakes, import order, bugbear; settings in pyproject.toml)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _ruff() -> str:
    found = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    assert found, "ruff is pinned in requirements.txt; install it with pip install -r requirements.txt"
    return found


def test_ruff_passes():
    result = subprocess.run([_ruff(), "check", "--no-cache", "."], cwd=ROOT, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_would_catch_an_unused_import(tmp_path):
    """The configuration really checks: a file with an unused import fails."""
    bad = tmp_path / "bad.py"
    bad.write_text("import os\n")
    result = subprocess.run([_ruff(), "check", "--no-cache", "--config", str(ROOT / "pyproject.toml"), str(bad)],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 1 and "F401" in result.stdout
