"""The answer key of ``python -m book.classroom key`` (a background job, ``answer_key_run`` in
``tests/plugins/background_jobs.py``): every exercise of every chapter, each with its solution, the
self-checked ones with the values their check accepts; and it is no part of the website."""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


def _labels() -> list[str]:
    """Every exercise label of the chapters, in the book's order (the order of ``_toc.yml``)."""
    from book import _assignments

    paths = [p for part in _assignments.parts(ROOT) for p in part.chapters]
    assert len(paths) == len(list((ROOT / "notebooks").glob("*.ipynb")))
    text = ["".join(c.source for c in nbformat.read(p, as_version=4).cells) for p in paths]
    return [label for t in text for label in re.findall(r":label: (ex-[\w-]+)", t)]


def _checked() -> set[str]:
    """The labels whose exercise has a starter cell calling a self-check."""
    found = set()
    for path in (ROOT / "notebooks").glob("*.ipynb"):
        label = None
        for cell in nbformat.read(path, as_version=4).cells:
            match = re.search(r":label: (ex-[\w-]+)", cell.source)
            label = match.group(1) if match else label
            if "exercise" in cell.metadata.get("tags", []) and cell.cell_type == "code":
                assert "exercises.check_" in cell.source
                found.add(label)
    return found


@pytest.fixture(scope="module")
def key(answer_key_run) -> dict[str, str]:
    folder, done = answer_key_run
    assert done.returncode == 0, done.stdout[-3000:]
    assert sorted(p.name for p in folder.iterdir()) == ["answer-key.html", "answer-key.ipynb", "answer-key.md"]
    return {p.suffix: p.read_text(encoding="utf-8") for p in folder.iterdir()}


def _sections(markdown: str) -> dict[str, str]:
    """Label -> the key's text for that exercise (up to the next exercise or part)."""
    parts = re.split(r"^#### `(ex-[\w-]+)`", markdown, flags=re.M)
    return {label: re.split(r"^##+ ", body, flags=re.M)[0] for label, body in zip(parts[1::2], parts[2::2])}


def test_the_key_holds_every_exercise_once_in_the_book_s_order_with_its_solution(key):
    sections = _sections(key[".md"])
    labels = _labels()
    assert len(labels) == 40
    assert list(sections) == labels
    for label, text in sections.items():
        solution = text.split("**Solution** (the chapter's)", 1)[1].split("**Expected**")[0].split("**Rubric")[0]
        prose = solution.replace("(code only)", "").split("```")[0].strip()
        assert prose or "```python" in solution, f"{label}: an empty solution"
        assert f"`{label}`" in key[".html"] or label in key[".html"], label
    nb = json.loads(key[".ipynb"])
    assert sum(f"`{label}`" in "".join(c["source"]) for c in nb["cells"] for label in labels) == 40


def test_every_self_checked_exercise_shows_what_its_check_accepts(key):
    sections = _sections(key[".md"])
    checked = _checked()
    assert len(checked) == 30
    for label, text in sections.items():
        assert ("**Expected**" in text) == (label in checked), label
        if label in checked:
            assert "> Correct!" in text, label
        else:
            assert "**Rubric** (one point a line)" in text, label
    assert "`answer_ex_ch2_jumps` = `[15, 31, 47]`" in sections["ex-ch2-jumps"]
    assert "`answer_ex_ch10_gap` = `(0.0625, 8388608, 16777216)`" in sections["ex-ch10-gap"]
    assert "`answer_ex_ch7_bucket` = `[10, 26]`" in sections["ex-ch7-bucket"]
    assert "`answer_ex_ch4_float32` = `16777216`" in sections["ex-ch4-float32"]


def test_the_key_is_no_part_of_the_website(key, student_site, built_site):
    """The key is written where it is asked for; neither site has a page or file of it."""
    assert "answer-key" not in (ROOT / "_toc.yml").read_text()
    assert not list(ROOT.glob("**/answer-key*"))
    heading = "Answer key: Positional Encoding, Interactively"
    for folder, _ in (student_site, built_site):
        assert not list(folder.rglob("answer-key*"))
        for page in folder.rglob("*.html"):
            assert heading not in re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8")), page
