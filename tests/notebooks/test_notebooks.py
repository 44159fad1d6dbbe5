"""Static checks of the committed chapters (nbval re-runs them separately).

Each notebook must be stored as a fresh top-to-bottom run (execution counts
1..n, no errors, no warnings on stderr, no paths of the machine that ran it),
be listed in the table of contents, give every figure alt text, pair every
exercise with a hidden solution, and justify every NBVAL_IGNORE_OUTPUT.
"""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))  # the chapters
ALL_NOTEBOOKS = NOTEBOOKS + sorted((ROOT / "guide").glob("*.ipynb"))  # and guide pages
MACHINE_PATH = re.compile(r"(/work/|/tmp/|/root/|/home/\w+/|site-packages|[A-Z]:\\\\Users)")


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def code_cells(nb: dict) -> list[dict]:
    return [c for c in nb["cells"] if c["cell_type"] == "code" and "".join(c["source"]).strip()]


def source(cell: dict) -> str:
    return "".join(cell["source"])


def test_there_are_chapters():
    assert NOTEBOOKS, "no notebooks found in notebooks/"


@pytest.mark.parametrize("path", ALL_NOTEBOOKS, ids=lambda p: p.name)
def test_executed_in_order_in_one_fresh_kernel(path):
    counts = [c.get("execution_count") for c in code_cells(load(path))]
    assert None not in counts, f"{counts.count(None)} code cells were not executed"
    assert counts == list(range(1, len(counts) + 1)), f"execution counts are {counts}, expected 1..n"


@pytest.mark.parametrize("path", ALL_NOTEBOOKS, ids=lambda p: p.name)
def test_outputs_clean(path):
    problems = []
    for i, cell in enumerate(code_cells(load(path))):
        for out in cell.get("outputs", []):
            kind = out.get("output_type")
            if kind == "error":
                problems.append(f"cell {i}: error output {out.get('ename')}")
            if kind == "stream" and out.get("name") == "stderr":
                problems.append(f"cell {i}: writes to stderr: {''.join(out['text'])[:100]!r}")
            text = json.dumps(out.get("text", "")) + json.dumps(out.get("data", {}).get("text/plain", ""))
            if MACHINE_PATH.search(text):
                problems.append(f"cell {i}: output shows a path of this machine")
    assert not problems, "\n".join(problems)
    assert any(c.get("outputs") for c in code_cells(load(path))), "no outputs stored"


@pytest.mark.parametrize("path", ALL_NOTEBOOKS, ids=lambda p: p.name)
def test_every_figure_has_alt_text(path):
    missing = []
    for i, cell in enumerate(code_cells(load(path))):
        has_image = any("image/png" in o.get("data", {}) for o in cell.get("outputs", []))
        alt = cell.get("metadata", {}).get("mystnb", {}).get("image", {}).get("alt", "")
        if has_image and len(alt) < 40:
            missing.append(i)
    assert not missing, f"cells {missing} draw a figure without alt text (mystnb.image.alt, a full sentence)"


@pytest.mark.parametrize("path", ALL_NOTEBOOKS, ids=lambda p: p.name)
def test_nbval_ignores_are_justified(path):
    """Every NBVAL_IGNORE_OUTPUT is followed by a comment that says why the output varies."""
    for cell in code_cells(load(path)):
        lines = source(cell).splitlines()
        for j, line in enumerate(lines):
            if line.strip() == "# NBVAL_IGNORE_OUTPUT":
                reason = lines[j + 1].strip() if j + 1 < len(lines) else ""
                assert reason.startswith("# (") and len(reason) > 20, (
                    f"NBVAL_IGNORE_OUTPUT without a reason in: {lines[:3]}"
                )


BACK_MATTER = {
    "intro.md": "**In this book you will:**",
    "references.md": "**On this page you will:**",
    "guide/teachers.ipynb": "**On this page you will:**",
}


@pytest.mark.parametrize("name", sorted(BACK_MATTER))
def test_other_pages_have_goals_and_a_summary(name):
    """The pages that are not chapters also open with what the reader will get
    and end with a short summary."""
    path = ROOT / name
    if path.suffix == ".ipynb":
        text = "\n".join(source(c) for c in load(path)["cells"] if c["cell_type"] == "markdown")
    else:
        text = path.read_text(encoding="utf-8")
    goals, summary = text.find(BACK_MATTER[name]), text.find("## Summary")
    assert 0 <= goals < len(text) // 2, "goals must come near the top"
    assert summary > goals and "\n## " not in text[summary + 1 :], "the summary must be the last section"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_chapter_shape(path):
    """Learning goals at the top, then summary, exercises with hidden solutions and references."""
    nb = load(path)
    md = "\n".join(source(c) for c in nb["cells"] if c["cell_type"] == "markdown")
    assert "**In this chapter you will:**" in md
    for heading in ("## Summary", "## Exercises", "## References"):
        assert heading in md, f"missing section {heading!r}"
    exercises = re.findall(r"```\{exercise\}[^\n]*\n:label: (\S+)", md)
    solutions = re.findall(r"````\{solution-start\} (\S+)\n:class: dropdown", md)
    assert exercises, "a chapter needs exercises"
    assert sorted(exercises) == sorted(solutions), "every exercise needs exactly one hidden (dropdown) solution"
    # Cells of a solution are tagged, so that student copies can drop them.
    inside = False
    for cell in nb["cells"]:
        text = source(cell)
        if text.startswith("````{solution-start}"):
            inside = True
        if inside:
            assert "solution" in cell.get("metadata", {}).get("tags", []), f"untagged solution cell: {text[:60]!r}"
        if text.startswith("````{solution-end}"):
            inside = False


def test_every_notebook_is_in_the_table_of_contents():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = {ch["file"] for part in toc["parts"] for ch in part["chapters"]}
    for path in ALL_NOTEBOOKS:
        page = f"{path.parent.name}/{path.stem}"
        assert page in files, f"{page} is not in _toc.yml"


def display_width(line: str) -> int:
    """Columns a line takes in a monospace font (CJK characters take two)."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in line)


@pytest.mark.parametrize("path", ALL_NOTEBOOKS, ids=lambda p: p.name)
def test_code_fits_the_text_column(path):
    """The website's code blocks show about 80 columns; longer lines are cut off."""
    wide = [line for cell in code_cells(load(path)) for line in source(cell).splitlines() if display_width(line) > 79]
    assert not wide, "code lines wider than 79 columns:\n" + "\n".join(wide)


def test_each_chapter_starts_with_the_same_install_cell():
    """Opened alone (Colab), a chapter installs `book` with its notebook extras first."""
    first = {source(code_cells(load(path))[0]) for path in NOTEBOOKS}
    assert len(first) == 1, "chapters disagree on their first (install) cell"
    cell = first.pop()
    assert 'find_spec("book") is None' in cell and "book[notebooks]" in cell
    assert "%pip install" in cell


def test_the_install_cell_installs_this_edition():
    """The install cell pins the git tag of this edition, the tag of book.__version__."""
    import book

    cell = source(code_cells(load(NOTEBOOKS[0]))[0])
    tags = re.findall(r'^EDITION = "([^"]+)"', cell, flags=re.M)
    assert tags == [f"v{book.__version__}"], f"install cell pins {tags}, book is {book.__version__}"
    assert "git+{REPO}@{EDITION}" in cell


def test_chapter_imports_come_with_the_notebooks_extra():
    """Every module a chapter imports is stdlib, `book`, or installed by book[notebooks]."""
    import ast
    import sys
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    installed = {re.split(r"[<>=\[ ]", r)[0].lower() for r in project["dependencies"]}
    installed |= {re.split(r"[<>=\[ ]", r)[0].lower() for r in project["optional-dependencies"]["notebooks"]}
    provides = {
        "myst_nb": "myst-nb",
        "ipywidgets": "ipywidgets",
        "IPython": "ipywidgets",
        "transformers": "transformers",
        "matplotlib": "matplotlib",
        "numpy": "numpy",
        "torch": "torch",
    }
    missing = set()
    for path in NOTEBOOKS:
        for cell in code_cells(load(path)):
            code = "\n".join(  # IPython magics become `pass`, keeping the indentation
                re.sub(r"^(\s*)[%!].*", r"\1pass", line) for line in source(cell).splitlines()
            )
            for node in ast.walk(ast.parse(code)):
                names = (
                    [a.name for a in node.names]
                    if isinstance(node, ast.Import)
                    else ([node.module] if isinstance(node, ast.ImportFrom) and node.module else [])
                )
                for name in names:
                    top = name.split(".")[0]
                    if top in sys.stdlib_module_names or top == "book":
                        continue
                    if provides.get(top) not in installed:
                        missing.add(f"{path.name}: {top}")
    assert not missing, f"imports not installed by book[notebooks]: {sorted(missing)}"


def test_install_cell_installs_book_only_when_missing(monkeypatch, request):
    """Run the install cell in IPython with a recording %pip: it asks for
    book[notebooks] from the repository when `book` is missing, and does
    nothing when it is installed."""
    import importlib.util

    from IPython.core.interactiveshell import InteractiveShell

    cell = source(code_cells(load(NOTEBOOKS[0]))[0])
    shell = InteractiveShell.instance()
    # An IPython instance left in this process would change how other tests'
    # widgets behave (ipywidgets' Output then swallows exceptions): remove it.
    request.addfinalizer(InteractiveShell.clear_instance)
    calls = []
    shell.register_magic_function(lambda line: calls.append(line), "line", "pip")
    real_find_spec = importlib.util.find_spec

    assert shell.run_cell(cell).success and calls == []  # book installed
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "book" else real_find_spec(name, *a)
    )
    assert shell.run_cell(cell).success
    repo = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]["url"]
    import book

    assert calls == [f'install --quiet "book[notebooks] @ git+{repo}@v{book.__version__}"']
