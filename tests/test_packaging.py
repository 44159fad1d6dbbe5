"""The install files say what the README promises."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def requirement_lines(path: Path) -> list[str]:
    return [l.strip() for l in path.read_text().splitlines() if l.strip() and not l.startswith("#")]


def test_requirements_are_exact_pins():
    lines = requirement_lines(ROOT / "requirements.txt")
    assert "-e ." in lines, "requirements.txt must install the companion library (-e .)"
    pins = [l for l in lines if l != "-e ."]
    loose = [l for l in pins if not re.fullmatch(r"[A-Za-z0-9_.\-\[\]]+==[A-Za-z0-9_.+\-]+", l)]
    assert not loose, f"not exact pins: {loose}"
    names = [l.split("==")[0].lower().replace("_", "-") for l in pins]
    assert len(names) == len(set(names)), "a package is pinned twice"
    assert "torch==2.13.0" in pins
    jb = next(l for l in pins if l.lower().startswith("jupyter-book=="))
    assert jb.split("==")[1].startswith("1."), "the book is built with Jupyter Book 1"


def test_binder_uses_cpu_torch_and_the_same_pins():
    lines = requirement_lines(ROOT / "binder" / "requirements.txt")
    assert "--extra-index-url https://download.pytorch.org/whl/cpu" in lines
    assert "-r ../requirements.txt" in lines, "Binder must install the very same pins"
    assert [l for l in lines if not l.startswith(("-r", "--"))] == []
    assert (ROOT / "binder" / "runtime.txt").read_text().strip() == "python-3.11"


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert "make test" in readme and "make book" in readme
    assert "make test" in ci
