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


def test_the_library_core_imports_no_plotting_or_notebook_packages():
    """`book.encodings` and friends stay light: no matplotlib, IPython or ipywidgets."""
    import subprocess
    import sys

    code = ("import sys, book.encodings, book.scaling, book.attention, book.tasks, book.models, book.ensemble; "
            "print(sorted(m for m in ('matplotlib', 'IPython', 'ipywidgets', 'nbformat') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_every_import_of_the_library_is_declared():
    """Modules `book` imports outside the standard library are dependencies or in the notebooks extra."""
    import ast
    import sys
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = {re.split(r"[<>=\[ ]", r)[0].lower() for r in project["dependencies"]}
    declared |= {re.split(r"[<>=\[ ]", r)[0].lower() for r in project["optional-dependencies"]["notebooks"]}
    provided_by = {"IPython": "ipython", "ipywidgets": "ipywidgets", "myst_nb": "myst-nb", "PIL": "pillow"}
    missing = set()
    for path in (ROOT / "book").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else [])
            for name in names:
                top = name.split(".")[0]
                if top in sys.stdlib_module_names or top == "book":
                    continue
                if provided_by.get(top, top).lower() not in declared:
                    missing.add(f"{path.name}: {top}")
    assert not missing, f"imported but not declared in pyproject.toml: {sorted(missing)}"
