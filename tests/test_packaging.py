"""The install files install what the library imports, with exact pins."""

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
    for path in (ROOT / "book").rglob("*.py"):            # book/encodings/ too
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
