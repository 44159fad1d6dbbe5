"""The answer key: the machinery behind ``python -m book.classroom key`` (its public
function is :func:`book.classroom.write_answer_key`).

One document holds every exercise of every chapter, by its label, in the
book's order: the prompt, the chapter's solution (text and code) and, for an
exercise with a self-check, the values the check accepts. Those values are
not typed: the key runs each autograded question's solution exactly as the
assignments' autograder does (``book._assignments.graded_code``: the
chapter's solution code up to the statement that asserts its check, in a
namespace built by the assignment's setup cell, ``SETUP`` and ``CONTEXT``),
reads the answer it binds, and calls the check on it, which must accept it.
An exercise graded by hand (and the written part of a checked one) gets its
rubric instead (``RUBRICS``, ``WRITTEN_PARTS``).

The key is built as a notebook (Markdown cells and the solutions' code), then
written with nbconvert as Markdown (``answer-key.md``) and HTML
(``answer-key.html``). For a PDF, ``jupyter nbconvert --to pdf
OUT_DIR/answer-key.ipynb`` does it where a LaTeX toolchain (``xelatex``) is
installed; the book's machines have none, so no PDF is written or tested.
The key is written only where it is asked for, never into the repository or
the website (whose pages come from ``_toc.yml`` alone).
"""

from __future__ import annotations

import contextlib
import io
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat

#: The file names the key is written under, in OUT_DIR.
STEM = "answer-key"

#: Values longer than this (as ``repr``) are shortened in the key.
MAX_REPR = 400


@dataclass
class Expected:
    """What a self-check accepts for one exercise, computed from its solution."""

    values: dict[str, str]  # the assignment's answer name -> the value's text
    verdict: str  # what the check printed for the solution's answer ("Correct! ...")


def _shown(value: Any) -> str:
    """``value`` as the key shows it: its ``repr``, shortened; a function by its name, a model by its class."""
    import torch

    if callable(value) and not isinstance(value, torch.nn.Module):
        return f"a function, {getattr(value, '__name__', type(value).__name__)} (its code is the solution above)"
    if isinstance(value, torch.nn.Module):
        return f"a trained {type(value).__name__} (the solution above trains it)"
    text = repr(value)
    return text if len(text) <= MAX_REPR else text[: MAX_REPR - 5] + " ..."


def expected_values(part_exercises: list[Any], context: str) -> dict[str, Expected]:
    """Run the solutions of one part's autograded exercises (``_assignments.Exercise``), in order,
    in one namespace that ``context`` (the assignment's setup code) starts; the values each binds
    and its check's verdict, by label.

    Raises:
        RuntimeError: if a solution raises, or its check does not accept what it computes.
    """
    from . import _assignments as build

    namespace: dict[str, Any] = {"__name__": "__answer_key__"}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(context, "<setup>", "exec"), namespace)  # the book's own code
    found = {}
    for ex in part_exercises:
        if ex.starter is None:
            continue
        graded = build.graded_code(ex)
        printed = io.StringIO()
        try:
            with contextlib.redirect_stdout(printed):
                exec(compile(graded.cell, f"<{ex.label}>", "exec"), namespace)
                accepted = eval(compile(graded.check, f"<{ex.label} check>", "eval"), namespace)
        except Exception as err:
            raise RuntimeError(f"{ex.label}: its solution failed: {type(err).__name__}: {err}") from err
        if accepted is not True:
            raise RuntimeError(f"{ex.label}: its check does not accept its solution:\n{printed.getvalue()}")
        verdict = printed.getvalue().strip().split("Correct!")[-1].strip()
        values = {new: _shown(namespace[new]) for new in graded.answers.values()}
        found[ex.label] = Expected(values, "Correct! " + " ".join(verdict.split()))
    return found


def key_notebook(root: Path) -> nbformat.NotebookNode:
    """The answer key of the book in ``root`` as a notebook: a header, then per part and chapter
    each exercise's prompt, solution, and expected values or rubric.

    Raises:
        FileNotFoundError: if ``root`` has no ``_toc.yml``.
        RuntimeError: as :func:`expected_values`.
    """
    from . import _assignments as build
    from .editions import BookIndex, reader_edition

    root = Path(root)
    if not (root / "_toc.yml").is_file():
        raise FileNotFoundError(f"no _toc.yml in {root}: give the book's repository")
    index = BookIndex.from_repository(root)
    md = nbformat.v4.new_markdown_cell
    cells = [
        md(
            "# Answer key: *Positional Encoding, Interactively*\n\n"
            "For teachers; not for students. Every exercise of the book, by its label: the prompt, the "
            "chapter's solution (text and code) and, for an exercise with a self-check "
            "(`book.exercises`), the values the check accepts, computed by running the solution, and "
            "the check's confirmation. Exercises graded by hand carry the rubric of the assignments "
            "(`python -m book.classroom assignments`). Made by `python -m book.classroom key`."
        )
    ]
    for part in build.parts(root):
        chapters = {
            path.name: build.exercises_of(
                reader_edition(nbformat.read(path, as_version=4), path.name, index), path.name, index.site
            )
            for path in part.chapters
        }
        every = [ex for path in part.chapters for ex in chapters[path.name]]
        context = "\n\n".join([build.SETUP, *(build.CONTEXT[p.name] for p in part.chapters if p.name in build.CONTEXT)])
        expected = expected_values(every, context)
        cells.append(md(f"## Part {part.number}: {part.caption}"))
        for path in part.chapters:
            cells.append(md(f"### Chapter `{path.stem}`"))
            for ex in chapters[path.name]:
                cells += _exercise_cells(ex, expected.get(ex.label))
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    return nb


def _exercise_cells(ex: Any, expected: Expected | None) -> list[nbformat.NotebookNode]:
    """The key's cells for one exercise."""
    from . import _assignments as build

    md = nbformat.v4.new_markdown_cell
    prompt = ex.prompt.replace("\n#### ", "\n**").replace("\n### ", "\n**")
    title, _, body = prompt.partition("\n")
    cells = [md(f"#### `{ex.label}`: {title.lstrip('# ').strip()}\n\n{body.strip()}")]
    cells.append(md("**Solution** (the chapter's)\n\n" + "\n\n".join(ex.solution_text or ["(code only)"])))
    cells += [nbformat.v4.new_code_cell(build._without_glue(c)) for c in ex.solution_code if build._without_glue(c)]
    if expected is not None:
        rows = "\n".join(f"- `{name}` = `{value}`" for name, value in expected.values.items())
        cells.append(
            md(
                "**Expected** (computed from the solution; its self-check accepts it)\n\n"
                f"{rows}\n\n> {textwrap.shorten(expected.verdict, 600)}"
            )
        )
    rubric = build.RUBRICS.get(ex.label) or build.WRITTEN_PARTS.get(ex.label)
    if rubric:
        which = "Rubric" if ex.label in build.RUBRICS else "Rubric of the written part"
        cells.append(md(f"**{which}** (one point a line)\n\n" + "\n".join(f"- {line}" for line in rubric)))
    return cells


def write_answer_key(root: Path, out_dir: Path) -> list[Path]:
    """Write the answer key of the book in ``root`` into ``out_dir``: ``answer-key.ipynb``,
    ``answer-key.md`` and ``answer-key.html``; returns their paths."""
    from nbconvert import HTMLExporter, MarkdownExporter

    nb = key_notebook(root)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / f"{STEM}.ipynb", out_dir / f"{STEM}.md", out_dir / f"{STEM}.html"]
    nbformat.write(nb, paths[0])
    paths[1].write_text(MarkdownExporter().from_notebook_node(nb)[0], encoding="utf-8")
    paths[2].write_text(HTMLExporter().from_notebook_node(nb)[0], encoding="utf-8")
    return paths
