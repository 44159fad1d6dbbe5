"""The student site (``make book-student``: ``_config_student.yml``) holds every exercise and no solution.

A chapter writes each solution gated: a Markdown cell opening ``solution-start``, Markdown and code
cells tagged ``solution``, a cell closing ``solution-end``. From those cells this file picks
distinctive fragments of each solution (a run of plain words of its text that the rest of the chapter
does not hold, and a line of its code), then looks for them in every file of a built site. The
student site (a background job, ``student_site`` in ``tests/plugins/background_jobs.py``) must hold
none of them; the normal site (``built_site``) must hold all of them, which shows that the search
finds a solution where there is one. The first two tests need no build.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = sorted((ROOT / "notebooks").glob("*.ipynb"))

_LABEL = re.compile(r":label: (ex-[\w-]+)")
_START = re.compile(r"\{solution-start\} (ex-[\w-]+)")
_WORDS = re.compile(r"[A-Za-z][A-Za-z'-]*(?:,? [A-Za-z][A-Za-z'-]*)*")  # plain words, commas allowed


@dataclass
class Exercise:
    label: str
    page: str  # e.g. notebooks/02_sinusoidal
    prompt: list[str] = field(default_factory=list)  # fragments of the exercise's text
    solution: list[str] = field(default_factory=list)  # fragments of its solution, text and code
    cells: list[nbformat.NotebookNode] = field(default_factory=list)  # its solution's cells


def _plain(markdown: str) -> str:
    """``markdown`` without MyST roles and directives, math, inline code and link targets."""
    text = re.sub(r"^\s*`{3,}.*$", " | ", markdown, flags=re.M)  # fence lines (exercise, solution-start)
    text = re.sub(r"\{[\w:-]+\}`[^`]*`", " | ", text)  # roles
    text = re.sub(r"\$\$.*?\$\$|\$[^$]*\$|`[^`]*`", " | ", text, flags=re.S)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    return re.sub(r"^:\w+:.*$", " | ", text, flags=re.M)


def _runs(markdown: str, words: int = 6) -> list[str]:
    """Runs of at least ``words`` plain words in ``markdown``, longest first."""
    found = [m.group(0) for m in _WORDS.finditer(_plain(markdown).replace("\n", " "))]
    return sorted((r for r in found if len(r.split()) >= words), key=len, reverse=True)


def _code_lines(code: str) -> list[str]:
    """Lines of ``code`` long enough to be distinctive, longest first (comments and strings as they are)."""
    lines = {line.strip() for line in code.splitlines() if len(line.strip()) >= 25 and "NBVAL" not in line}
    return sorted(lines, key=len, reverse=True)


def exercises() -> list[Exercise]:
    """Every exercise of every chapter, with fragments of its prompt and of its solution."""
    found = []
    for path in CHAPTERS:
        cells = nbformat.read(path, as_version=4).cells
        inside, rest, current = False, [], None
        chapter: list[Exercise] = []
        for cell in cells:
            label = _LABEL.search(cell.source) if cell.cell_type == "markdown" else None
            start = _START.search(cell.source)
            if label and "{exercise}" in cell.source:
                current = Exercise(label.group(1), f"notebooks/{path.stem}", _runs(cell.source, 4)[:2])
                chapter.append(current)
            if start:
                assert current is not None and start.group(1) == current.label, (path.name, start.group(1))
                inside = True
                current.cells.append(cell)
            elif inside:
                current.cells.append(cell) if "{solution-end}" not in cell.source else None
            else:
                rest.append(cell.source)
            if "{solution-end}" in cell.source:
                inside = False
                rest.append(cell.source.split("{solution-end}", 1)[1])
        outside = _normal("\n".join(rest))
        for ex in chapter:
            markdown = "\n".join(c.source for c in ex.cells if c.cell_type == "markdown")
            code = "\n".join(c.source for c in ex.cells if c.cell_type == "code")
            text_runs = [r for r in _runs(markdown) if _normal(r) not in outside][:2]
            lines = [ln for ln in _code_lines(code) if _normal(ln) not in outside][:2]
            ex.solution = text_runs + lines
        found += chapter
    return found


def _normal(text: str) -> str:
    """Text as it is compared: one space for any whitespace, straight quotes and dashes."""
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
    return re.sub(r"\s+", " ", text.replace("\u2013", "-").replace("\u2014", "-")).strip()


def site_text(folder: Path) -> dict[str, str]:
    """Every text file of a built site, as it reads: HTML without tags, notebooks as their cells' sources,
    any other file as it is."""
    texts = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        if path.suffix in (".png", ".svg", ".jpg", ".gif", ".woff", ".woff2", ".ttf", ".eot", ".ico", ".inv"):
            continue
        raw = path.read_text(encoding="utf-8", errors="replace")
        if path.suffix == ".ipynb":
            raw = "\n".join("".join(c["source"]) for c in json.loads(raw)["cells"])
        elif path.suffix == ".html":
            raw = html.unescape(re.sub(r"<[^>]+>", "", raw))
        texts[str(path.relative_to(folder))] = _normal(raw)
    return texts


def leaks(texts: dict[str, str], exercise: Exercise) -> list[tuple[str, str]]:
    """(file, fragment) for every fragment of ``exercise``'s solution found in the site."""
    return [(name, frag) for frag in exercise.solution for name, text in texts.items() if _normal(frag) in text]


EXERCISES = exercises()


def test_every_exercise_has_fragments_to_look_for():
    assert len(EXERCISES) == 40
    assert len({ex.label for ex in EXERCISES}) == 40
    for ex in EXERCISES:
        assert ex.prompt, f"{ex.label}: no plain text in its prompt"
        assert len(ex.solution) >= 2, f"{ex.label}: fewer than two distinctive fragments of its solution"


def test_every_solution_cell_is_inside_a_gated_solution():
    """The student site removes gated solutions; a cell tagged ``solution`` outside one (or a gated
    solution whose cells are not tagged) would be a form it was not built for."""
    for path in CHAPTERS + [ROOT / "guide" / "teachers.ipynb"]:
        inside = False
        for cell in nbformat.read(path, as_version=4).cells:
            tagged = "solution" in cell.metadata.get("tags", [])
            inside = inside or "{solution-start}" in cell.source
            assert tagged == inside, f"{path.name}: {cell.source[:80]!r}"
            for form in ("```{solution}", "{dropdown}", "<details"):
                assert form not in cell.source, f"{path.name}: a solution written as {form}"
            if "{solution-end}" in cell.source:
                inside = False
    pages = re.findall(r"file: ([\w/]+)", (ROOT / "_toc.yml").read_text())
    markdown = [ROOT / f"{page}.md" for page in pages if (ROOT / f"{page}.md").is_file()]
    assert markdown and not any("{solution" in p.read_text() for p in markdown)


def test_the_student_config_is_the_site_s_config_with_the_student_changes_only():
    site = yaml.safe_load((ROOT / "_config.yml").read_text())
    student = yaml.safe_load((ROOT / "_config_student.yml").read_text())
    assert student["sphinx"]["config"].pop("hide_solutions") is True
    assert student["sphinx"]["config"].pop("html_copy_source") is False
    assert student["sphinx"]["local_extensions"].pop("student_site") == "_ext/"
    assert student["html"].pop("use_repository_button") is False
    assert site["html"].pop("use_repository_button") is True
    assert student.pop("title") == site.pop("title") + " (student edition)"
    assert student == site


@pytest.fixture(scope="module")
def student(student_site):
    folder, result = student_site
    log = result.stdout[-4000:]
    assert result.returncode == 0, f"the student site did not build:\n{log}"
    return site_text(folder)


@pytest.fixture(scope="module")
def normal(built_site):
    folder, result = built_site
    assert result.returncode == 0
    return site_text(folder)


@pytest.mark.parametrize("exercise", EXERCISES, ids=[ex.label for ex in EXERCISES])
def test_the_student_site_holds_the_exercise_and_not_its_solution(student, student_site, exercise):
    folder, _ = student_site
    page = (folder / f"{exercise.page}.html").read_text(encoding="utf-8")
    assert f'id="{exercise.label}"' in page
    text = student[f"{exercise.page}.html"]
    assert all(_normal(frag) in text for frag in exercise.prompt), exercise.prompt
    assert leaks(student, exercise) == []


def test_the_search_finds_every_solution_on_the_normal_site(normal):
    """The same search on the site with solutions finds each one on its page: it can fail."""
    for ex in EXERCISES:
        found = {name for name, _ in leaks(normal, ex)}
        assert f"{ex.page}.html" in found, ex.label
        assert len({frag for _, frag in leaks(normal, ex)}) == len(ex.solution), ex.label


def test_the_student_site_has_no_solution_element_no_sources_and_no_launch_button(student_site):
    folder, result = student_site
    assert result.returncode == 0
    assert not (folder / "_sources").exists()
    for page in folder.rglob("*.html"):
        source = page.read_text(encoding="utf-8")
        for mark in (
            'class="solution',
            "tag_solution",
            "solution-content",
            'href="https://mybinder.org/v2/',
            'href="https://colab.research',
        ):
            assert mark not in source, f"{page.relative_to(folder)}: {mark}"
    chapter = (folder / "notebooks" / "02_sinusoidal.html").read_text(encoding="utf-8")
    assert 'class="exercise' in chapter and "reader/02_sinusoidal.ipynb" in chapter  # the download stays
    edition = json.loads((folder / "reader" / "02_sinusoidal.ipynb").read_text(encoding="utf-8"))
    assert edition["cells"] and not any("solution" in c["metadata"].get("tags", []) for c in edition["cells"])


def test_the_student_reference_keeps_each_check_s_question_only(student_site, built_site):
    folder, _ = student_site
    page = (folder / "reference" / "exercises.html").read_text(encoding="utf-8")
    full = (built_site[0] / "reference" / "exercises.html").read_text(encoding="utf-8")
    assert 'id="book.exercises.check_t5_buckets"' in page
    text, full_text = (_normal(html.unescape(re.sub(r"<[^>]+>", "", p))) for p in (page, full))
    question = "Chapter 7: T5's encoder buckets of a key distance positions before the query"
    assert question in text and question in full_text
    answer = "(10, 26) for the chapter's 20"  # what the full docstring says the check accepts
    assert answer in full_text and answer not in text
