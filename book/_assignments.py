"""otter-grader assignments built from the chapters: the machinery behind
``python -m book.classroom assignments`` (its public functions are in ``book.classroom``).

One assignment per part of the book, as ``_toc.yml`` groups the chapters.
Every exercise of those chapters becomes an otter question (otter-grader
7.0.0, notebook format v1: raw cells ``# BEGIN QUESTION``, ``# BEGIN SOLUTION``,
``# BEGIN TESTS`` ...). The chapter stays the single source: the prompt is the
exercise's text in the reader edition (``book.editions``), the solution is the
chapter's solution.

- An exercise with a self-check (a starter cell tagged ``exercise`` that calls
  ``exercises.check_*``) is autograded. Its answer variable gets its own name,
  the chapter's name plus the label (``answer`` of ``ex-ch2-wavelength``
  becomes ``answer_ex_ch2_wavelength``). The solution is the chapter's
  solution code up to the statement that asserts the check, without its
  ``assert`` statements and ``glue`` calls (they check the chapter's prose, not
  the answer) and the assignments only those read, then the answer bound to its
  new name (``SOLUTION_OVERRIDES`` for the one solution the chapter computes
  inside a heavy loop). Two tests call the same check through
  :func:`book.classroom.assert_check`: a public one worth 0 points, which
  prints the check's hint, and a hidden one that carries the points. What the
  exercise also asks in words is a second, manual question ``<label>-written``
  (``WRITTEN_PARTS``).
- An exercise without a check (a reasoning exercise) is graded by hand: a
  manual question with a code cell and a written-answer cell; its solution is
  the chapter's solution text and code, followed by a rubric written from it
  (``RUBRICS``).

What an exercise reads from the chapter's earlier cells is rebuilt, without the
chapter's heavy cells, in the assignment's setup cell (``SETUP``, ``CONTEXT``).
"""

from __future__ import annotations

import ast
import inspect
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import yaml

from ._assignment_texts import CONTEXT, RUBRICS, SOLUTION_OVERRIDES, WRITTEN_PARTS

#: otter-grader's version these notebooks are written for (pinned in requirements.txt).
OTTER_VERSION = "7.0.0"
#: Points of every question, autograded or manual.
POINTS = 2
#: The parameters of a check that hold the student's answer (``answer`` unless listed here).
ANSWER_PARAMETERS = {"check_learned_vs_sinusoidal": ("learned", "sinusoidal")}

#: The imports every assignment's setup cell makes: the installed ``book`` package, nothing from the repository.
SETUP = """\
# Setup: the book's library, installed as a package (pip install "book[notebooks]");
# nothing here reads a file of the book's repository.
import math

import torch

import book
from book import attention, encodings, exercises, experiments, models, numerics, results, scaling, tasks

book.setup(seed=0, num_threads=1)  # seeds, 1 CPU thread, as in the chapters"""

_TEST_DEF = re.compile(r"^def test_(?:hint|grade)\((.*?)\):", re.M)
_ANCHOR = re.compile(r'^<a id="(ex-[\w-]+)"></a>\s*', re.M)
_DETAILS = re.compile(r"^\s*<details>\s*<summary>.*?</summary>\s*", re.S)
_LOCAL_LINK = re.compile(r"\]\((?:\.\./)?(?:(notebooks|guide)/)?([\w-]+)\.(?:ipynb|md)(#[^)\s]*)?\)")


@dataclass
class Exercise:
    """One exercise of a chapter, read from its reader edition."""

    label: str
    chapter: str  # the notebook's file name
    prompt: str  # Markdown, without MyST
    starter: str | None = None  # the code cell tagged "exercise" (None: no self-check)
    solution_text: list[str] = field(default_factory=list)  # Markdown cells of the solution
    solution_code: list[str] = field(default_factory=list)  # code cells of the solution

    @property
    def slug(self) -> str:
        """The label as a Python identifier suffix: ``ex-ch3-block`` -> ``ex_ch3_block``."""
        return self.label.replace("-", "_")


@dataclass
class Part:
    """One part of the book: an assignment."""

    number: int
    caption: str
    chapters: list[Path]

    @property
    def name(self) -> str:
        """The assignment's name, e.g. ``part2-the-sinusoidal-encoding``."""
        return f"part{self.number}-" + "-".join(re.findall(r"[a-z0-9]+", self.caption.lower()))


def parts(root: Path) -> list[Part]:
    """The parts of ``_toc.yml`` that hold chapters (notebooks in ``notebooks/``), numbered from 1."""
    toc = yaml.safe_load((Path(root) / "_toc.yml").read_text(encoding="utf-8"))
    found: list[Part] = []
    for part in toc["parts"]:
        files = [Path(root) / f"{c['file']}.ipynb" for c in part["chapters"] if c["file"].startswith("notebooks/")]
        if files:
            found.append(Part(len(found) + 1, part["caption"], files))
    return found


def exercises_of(reader: nbformat.NotebookNode, chapter: str, site: str) -> list[Exercise]:
    """The exercises of one chapter's reader edition, in order."""
    found: list[Exercise] = []
    for cell in reader.cells:
        tags = cell.get("metadata", {}).get("tags", [])
        if "exercise" in tags and cell.cell_type == "markdown":
            label = _ANCHOR.search(cell.source)
            if label is None:
                raise ValueError(f"{chapter}: an exercise cell without its label: {cell.source[:60]!r}")
            prompt = _web_links(_ANCHOR.sub("", cell.source).strip(), site, chapter)
            found.append(Exercise(label.group(1), chapter, prompt))
        elif not found or not ({"exercise", "solution"} & set(tags)):
            continue
        elif "exercise" in tags:
            if found[-1].starter is not None:
                raise ValueError(f"{found[-1].label}: two starter cells")
            found[-1].starter = cell.source
        elif cell.cell_type == "markdown":
            # A solution ends at </details>, or where the chapter's next section starts: the cell that
            # closes the last solution also holds the chapter's "## References".
            text = re.split(r"^## ", _DETAILS.sub("", cell.source.split("</details>")[0]), flags=re.M)[0].strip()
            if text:
                found[-1].solution_text.append(_web_links(text, site, chapter))
        else:
            found[-1].solution_code.append(cell.source)
    return found


def _web_links(markdown: str, site: str, chapter: str = "") -> str:
    """Links to the book's other notebooks, and to anchors of ``chapter`` (``(#prop-ch1-x)``),
    pointed at their pages on the website (an assignment holds neither)."""
    markdown = _LOCAL_LINK.sub(
        lambda m: f"]({site}{m.group(1) or 'notebooks'}/{m.group(2)}.html{m.group(3) or ''})", markdown
    )
    if chapter:
        page = f"{site}notebooks/{Path(chapter).stem}.html"
        markdown = re.sub(r"\]\((#[\w-]+)\)", lambda m: f"]({page}{m.group(1)})", markdown)
    return markdown


# --- code transformations ------------------------------------------------------------------------


def _statements(code: str) -> list[tuple[ast.stmt, str]]:
    """Each top-level statement of ``code`` with its source lines."""
    lines = code.splitlines()
    return [(node, "\n".join(lines[node.lineno - 1 : node.end_lineno])) for node in ast.parse(code).body]


def rename(code: str, names: dict[str, str]) -> str:
    """``code`` with every name in ``names`` replaced where it is a variable: in the code and in
    the ``{...}`` fields of f-strings, not in attributes, keyword arguments, other strings or comments."""
    lines = code.splitlines(keepends=True)
    tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    for tok in reversed(tokens):  # right to left, so earlier columns stay valid
        (row, col), (end_row, end) = tok.start, tok.end
        if tok.type == tokenize.STRING and row == end_row and _FSTRING_PREFIX.match(tok.string):
            lines[row - 1] = lines[row - 1][:col] + _rename_fields(tok.string, names) + lines[row - 1][end:]
        if tok.type != tokenize.NAME or tok.string not in names:
            continue
        after = lines[row - 1][end:].lstrip()
        if lines[row - 1][:col].rstrip().endswith(".") or (
            after.startswith("=") and not after.startswith("==") and _inside_call(lines, row, col)
        ):
            continue  # an attribute (obj.answer) or a keyword argument (f(answer=1))
        lines[row - 1] = lines[row - 1][:col] + names[tok.string] + lines[row - 1][end:]
    return "".join(lines)


_FSTRING_PREFIX = re.compile(r"^(?:[rRbBuU]?[fF]|[fF][rR])['\"]")
_FIELD = re.compile(r"(?<!\{)\{([^{}]*)\}")


def _rename_fields(text: str, names: dict[str, str]) -> str:
    """The one-line f-string ``text`` with ``names`` replaced inside its ``{...}`` fields."""
    word = re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, names)) + r")\b")
    return _FIELD.sub(lambda m: "{" + word.sub(lambda w: names[w.group(1)], m.group(1)) + "}", text)


def _inside_call(lines: list[str], row: int, col: int) -> bool:
    """Whether position (row, col) of ``lines`` is inside an open parenthesis (a keyword argument)."""
    text = "".join(lines[: row - 1]) + lines[row - 1][:col]
    return text.count("(") > text.count(")")


def _check_call(node: ast.AST) -> ast.Call | None:
    """The ``exercises.check_*(...)`` call that ``node`` is or asserts, else None."""
    call = node.test if isinstance(node, ast.Assert) else node.value if isinstance(node, ast.Expr) else None
    if (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and isinstance(call.func.value, ast.Name)
        and call.func.value.id == "exercises"
        and call.func.attr.startswith("check_")
    ):
        return call
    return None


def _check_name(call: ast.Call) -> str:
    """``check_x`` of a call ``exercises.check_x(...)`` (see :func:`_check_call`)."""
    assert isinstance(call.func, ast.Attribute)
    return call.func.attr


def _answer_nodes(call: ast.Call) -> list[ast.expr]:
    """The argument nodes of ``call`` that hold the student's answer, in the check's parameter order."""
    from . import exercises

    check = getattr(exercises, _check_name(call))
    bound = inspect.signature(check).bind(*call.args, **{k.arg: k.value for k in call.keywords if k.arg})
    return [bound.arguments[p] for p in ANSWER_PARAMETERS.get(check.__name__, ("answer",))]


@dataclass
class GradedCode:
    """What an autograded question is made of."""

    cell: str  # the question's code cell in otter's format (solution and prompt)
    answers: dict[str, str]  # the chapter's answer name -> the assignment's
    check: str  # the check call, renamed, as the starter makes it
    test: str  # the test function, ``def test_NAME(...)``: NAME is filled in per test


def graded_code(ex: Exercise) -> GradedCode:
    """The question cell and the test of an exercise with a self-check.

    Raises:
        ValueError: if the starter cell does not end with the check call, or the
            chapter's solution never asserts that check (and no override exists).
    """
    if ex.starter is None:
        raise ValueError(f"{ex.label} has no starter cell")
    starter = _statements(ex.starter)
    call = _check_call(starter[-1][0]) if starter else None
    if call is None:
        raise ValueError(f"{ex.label}: the starter cell must end with its exercises.check_* call")
    old = []
    for node in _answer_nodes(call):
        if not isinstance(node, ast.Name):
            raise ValueError(f"{ex.label}: the starter passes its answer as a name, not {ast.unparse(node)!r}")
        old.append(node.id)
    names = {n: f"{n}_{ex.slug}" for n in old}
    binds = [src for node, src in starter[:-1] if _assigns(node) & set(old)]
    setup = [src for node, src in starter[:-1] if not _assigns(node) & set(old)]
    solution = SOLUTION_OVERRIDES.get(ex.label) or _solution_from_chapter(ex, _check_name(call), old)
    check = rename(starter[-1][1], names)
    cell = "\n".join(
        [*setup, "# BEGIN SOLUTION NO PROMPT", rename(solution, names), "# END SOLUTION", '""" # BEGIN PROMPT']
        + [rename(src, names) for src in binds]
        + ['"""; # END PROMPT', check]
    )
    return GradedCode(cell, names, check, _test_body(ast.parse(check).body[0]))


def _assigns(node: ast.stmt) -> set[str]:
    """The names a statement binds at top level."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _solution_from_chapter(ex: Exercise, check: str, old: list[str]) -> str:
    """The chapter's solution statements up to the one that asserts ``check``, without asserts and
    glue calls, then each answer bound to the chapter's starter name."""
    kept: list[str] = []
    for code in ex.solution_code:
        for node, src in _statements(code):
            call = _check_call(node)
            if call is not None and _check_name(call) == check and isinstance(node, ast.Assert):
                for name, value in zip(old, _answer_nodes(call)):
                    if not (isinstance(value, ast.Name) and value.id == name):
                        kept.append(f"{name} = {ast.get_source_segment(code, value)}")
                return "\n".join(_without_dead_assignments(kept, set(old)))
            is_glue = (
                isinstance(node, ast.Expr)
                and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Name)
                and node.value.func.id == "glue"
            )
            if not (isinstance(node, ast.Assert) or is_glue):
                kept.append(src)
    raise ValueError(f"{ex.label}: no solution cell asserts exercises.{check}; add an entry to SOLUTION_OVERRIDES")


def _without_dead_assignments(statements: list[str], needed: set[str]) -> list[str]:
    """``statements`` without the assignments whose names nothing after them reads (in the
    chapter, an ``assert`` that is left out read them) nor ``needed`` names."""
    kept: list[str] = []
    for src in reversed(statements):
        node = ast.parse(src).body[0]
        bound = _assigns(node)
        if isinstance(node, ast.Assign) and not bound & needed:
            continue
        kept.append(src)
        needed = (needed - bound if isinstance(node, ast.Assign) else needed) | {
            n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
        }
    return kept[::-1]


def _without_glue(code: str) -> str:
    """``code`` without its ``glue(...)`` statements and nbval markers (they serve the website)."""
    keep = []
    for node, src in _statements(code):
        call = node.value if isinstance(node, ast.Expr) else None
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "glue"):
            keep.append(src)
    return "\n".join(line for line in "\n".join(keep).splitlines() if "NBVAL" not in line).strip()


def _test_body(statement: ast.stmt) -> str:
    """``def test_NAME(<names the check reads>)`` calling the check through ``assert_check``."""
    call = _check_call(statement)
    assert call is not None
    free = sorted(
        {n.id for n in ast.walk(call) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} - {"exercises"}
    )
    wrapped = ast.Call(
        func=ast.Name("assert_check", ast.Load()), args=[call.func, *call.args], keywords=list(call.keywords)
    )
    return (
        f"def test_NAME({', '.join(free)}):\n"
        "    from book import exercises\n"
        "    from book.classroom import assert_check\n\n"
        f"    {ast.unparse(wrapped)}"
    )


# --- notebooks -----------------------------------------------------------------------------------


def _raw(text: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_raw_cell(text)


_PROMPT_NAME = re.compile(r"(?<![\w.])`([A-Za-z_]\w*)(?:\[[^`]*\])?`")


def prompt_names(markdown: str) -> set[str]:
    """The Python names a prompt writes in backticks, alone or indexed (`stretch`, `causal_out[:, 0]`)."""
    return set(_PROMPT_NAME.findall(markdown))


def names_from_chapter(ex: Exercise, defined: set[str]) -> list[str]:
    """The names ``ex``'s prompt or its chapter's solution code reads that the assignment does not
    define (``defined``, with builtins and the attributes of the modules the setup cell imports):
    the chapter binds them in earlier cells."""
    import builtins

    from . import attention, encodings, exercises, experiments, models, numerics, results, scaling, tasks
    from .classroom import IPYTHON_NAMES, _cell_names

    modules = (attention, encodings, exercises, experiments, models, numerics, results, scaling, tasks)
    code = "\n\n".join(_without_glue(c) for c in ex.solution_code)
    _, now, later = _cell_names(code) if code.strip() else (set(), set(), set())
    known = defined | set(dir(builtins)) | IPYTHON_NAMES
    words = {w for w in prompt_names(ex.prompt) if not any(hasattr(m, w) for m in modules)}
    return sorted((now | later | words) - known)


def chapter_note(ex: Exercise, names: list[str], site: str) -> str:
    """The sentence that sends a student to the chapter for ``names`` (empty if none)."""
    if not names:
        return ""
    stem = Path(ex.chapter).stem
    listed = ", ".join(f"`{n}`" for n in names)
    return (
        f"This exercise uses {listed} from the earlier cells of [chapter {int(stem[:2])}]"
        f"({site}notebooks/{stem}.html), not defined here: work in that chapter's notebook (its reader "
        "edition or your student copy), then write your answer here."
    )


def question_cells(ex: Exercise, defined: set[str] | None = None, site: str = "") -> list[nbformat.NotebookNode]:
    """The cells of the otter questions for ``ex``: one, autograded or manual, and for an autograded
    exercise that also asks for words (``WRITTEN_PARTS``) a manual question ``<label>-written``.
    A question graded by hand that reads names the assignment does not define (``defined``: what
    its setup cell binds) says so and links the chapter (:func:`chapter_note`)."""
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    note = chapter_note(ex, names_from_chapter(ex, defined or set()), site) if defined is not None else ""
    if ex.starter is None:
        if ex.label not in RUBRICS:
            raise ValueError(f"{ex.label} has no self-check and no rubric in RUBRICS")
        hand = "Graded by hand: compute in the code cell, write your answer in the text cell."
        return _manual_cells(ex.label, "\n\n".join(filter(None, [ex.prompt, note, hand])), ex, RUBRICS[ex.label])
    graded = graded_code(ex)
    tests = [
        '""" # BEGIN TEST CONFIG\npoints: 0\n""" # END TEST CONFIG\n' + graded.test.replace("NAME", "hint"),
        "# HIDDEN\n" + graded.test.replace("NAME", "grade"),
    ]
    cells = [
        _raw(f"# BEGIN QUESTION\nname: {ex.label}\npoints: {POINTS}"),
        md(ex.prompt + f"\n\nYour answer: `{'`, `'.join(graded.answers.values())}`."),
        _raw("# BEGIN SOLUTION"),
        code(graded.cell),
        _raw("# END SOLUTION"),
        _raw("# BEGIN TESTS"),
        *(code(t) for t in tests),
        _raw("# END TESTS"),
        _raw("# END QUESTION"),
    ]
    if ex.label in WRITTEN_PARTS:
        title = ex.prompt.splitlines()[0].lstrip("# ").strip()
        prompt = (
            f"### {title}: the written part\n\nAnswer in words what {title.split(' (')[0]} asks beyond the "
            "answer its check grades above (graded by hand; compute in the code cell if you need to)."
        ) + (f"\n\n{note}" if note else "")
        cells += _manual_cells(f"{ex.label}-written", prompt, ex, WRITTEN_PARTS[ex.label])
    return cells


def _answer_names(ex: Exercise) -> set[str]:
    """The assignment's names of ``ex``'s answers (none for a question graded by hand)."""
    return set(graded_code(ex).answers.values()) if ex.starter is not None else set()


def _manual_cells(name: str, prompt: str, ex: Exercise, rubric: tuple[str, ...]) -> list[nbformat.NotebookNode]:
    """A question graded by hand: prompt, a code cell, and (removed for students) the chapter's
    solution with ``rubric``, 1 point a line."""
    chapter_code = "\n\n".join(_without_glue(c) for c in ex.solution_code).strip()
    answer = "\n\n".join(
        ["**SOLUTION** (the chapter's)", *ex.solution_text]
        + ([f"```python\n{chapter_code}\n```"] if chapter_code else [])
        + [f"**Rubric** ({len(rubric)} points, one a line):\n\n" + "\n".join(f"- {line}" for line in rubric)]
    )
    return [
        _raw(f"# BEGIN QUESTION\nname: {name}\nmanual: true\npoints: {len(rubric)}"),
        nbformat.v4.new_markdown_cell(prompt),
        nbformat.v4.new_code_cell("# Your computation (the text cell below holds your written answer)."),
        _raw("# BEGIN SOLUTION"),
        nbformat.v4.new_markdown_cell(answer),
        _raw("# END SOLUTION"),
        _raw("# END QUESTION"),
    ]


def master_notebook(part: Part, chapters: dict[str, list[Exercise]], site: str) -> nbformat.NotebookNode:
    """The otter master notebook of ``part``: config, header, setup, then one question per exercise."""
    config = {
        "name": part.name,
        "requirements": "requirements.txt",
        "init_cell": True,
        "check_all_cell": True,
        "export_cell": {"pdf": False},
        "generate": True,
        "show_question_points": True,
        "tests": {"ok_format": False},
    }
    links = ", ".join(f"[{p.stem}]({site}notebooks/{p.stem}.html)" for p in part.chapters)
    header = (
        f"# {part.caption}: graded exercises\n\n"
        f"The exercises of {links}, from *Positional Encoding, Interactively*. Run the setup cell "
        "first. Each autograded question names the variable that holds your answer; its cell "
        "prints the self-check's verdict, and the `grader.check` cell after it runs the public "
        "test, which shows the same hint. Questions graded by hand have a rubric; some of them "
        "use a chapter's cells (a trained model, a figure's data): work in the chapter's notebook "
        "and write your answer here."
    )
    context = [CONTEXT[p.name] for p in part.chapters if p.name in CONTEXT]
    cells = [
        _raw("# ASSIGNMENT CONFIG\n" + yaml.safe_dump(config, sort_keys=False).strip()),
        nbformat.v4.new_markdown_cell(header),
        nbformat.v4.new_code_cell("\n\n".join([SETUP, *context])),
    ]
    from .classroom import _cell_names

    defined = _cell_names(cells[-1].source)[0]
    for path in part.chapters:
        for ex in chapters[path.name]:
            cells += question_cells(ex, defined | {n for q in chapters[path.name] for n in _answer_names(q)}, site)
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    return nb


def names_read_by_tests(nb: nbformat.NotebookNode) -> dict[str, set[str]]:
    """Question name -> the notebook names its tests read (the parameters of ``test``)."""
    found: dict[str, set[str]] = {}
    question = ""
    for cell in nb.cells:
        if cell.cell_type == "raw" and cell.source.startswith("# BEGIN QUESTION"):
            question = yaml.safe_load(cell.source)["name"]
        elif cell.cell_type == "code" and _TEST_DEF.search(cell.source):
            header = _TEST_DEF.search(cell.source)
            assert header is not None
            found.setdefault(question, set()).update(n.strip() for n in header.group(1).split(",") if n.strip())
    return found


# --- the book's wheel, shipped inside every assignment -------------------------------------------

#: Where the autograder zip's ``files/`` are when its environment is built on Gradescope: Gradescope
#: unpacks the zip into ``/autograder/source`` (its ``docs/specs.md``), and otter-grader 7.0.0's
#: ``setup.sh`` runs ``mamba env create -f /autograder/source/environment.yml`` there.
AUTOGRADER_FILES = "/autograder/source/files"
#: What a wheel of the book is built from (pyproject.toml's readme, licence files and packages).
WHEEL_SOURCES = ("pyproject.toml", "README.md", "LICENSE", "LICENSE-MIT", "book")


def build_wheel(root: Path, out_dir: Path) -> Path:
    """Build the book's wheel from the sources in ``root`` into ``out_dir``, offline; its path.

    The sources (``WHEEL_SOURCES``) are copied to a temporary folder first, so the build leaves
    nothing in ``root``; ``pip wheel --no-deps --no-build-isolation --no-index`` uses the
    setuptools of the running Python (as ``tests/notebooks/test_wheel.py`` builds one).

    Raises:
        RuntimeError: if pip fails (its output ends the message).
    """
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "src"
        for rel in WHEEL_SOURCES:
            path = Path(root) / rel
            if path.is_dir():
                shutil.copytree(path, src / rel, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
            else:
                src.mkdir(exist_ok=True)
                shutil.copy(path, src / rel)
        wheels = Path(tmp) / "wheels"
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "wheel",
                "--no-deps",
                "--no-build-isolation",
                "--no-index",
                "-w",
                wheels,
                src,
            ],
            capture_output=True,
            text=True,
            env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
        )
        found = sorted(wheels.glob("book-*.whl"))
        if done.returncode != 0 or len(found) != 1:
            raise RuntimeError(f"building the book's wheel failed:\n{(done.stdout + done.stderr)[-3000:]}")
        Path(out_dir).mkdir(parents=True, exist_ok=True)
        return Path(shutil.copy(found[0], Path(out_dir) / found[0].name))


def wheel_requirement(wheel_name: str) -> str:
    """The requirement line that installs the book, with the notebooks' extras, from the wheel the
    autograder zip ships (``files/<wheel_name>``, at ``AUTOGRADER_FILES`` on Gradescope)."""
    return f"book[notebooks] @ file://{AUTOGRADER_FILES}/{wheel_name}"


def with_files(nb: nbformat.NotebookNode, files: list[str]) -> nbformat.NotebookNode:
    """A copy of the master ``nb`` whose assignment config lists ``files`` (otter assign copies them
    into ``autograder/`` and ``student/``, and into the autograder zip under ``files/``)."""
    out = nbformat.from_dict(nb)
    [cell] = [c for c in out.cells if c.cell_type == "raw" and c.source.startswith("# ASSIGNMENT CONFIG")]
    config = yaml.safe_load(cell.source) or {}
    config["files"] = [*config.get("files", []), *files]
    cell.source = "# ASSIGNMENT CONFIG\n" + yaml.safe_dump(config, sort_keys=False).strip()
    return out


_TESTED_NAME = re.compile(r"\bexercises\.(check_\w+)|\bfrom book\.classroom import (assert_check)\b")


def names_tests_import(tests: list[str]) -> set[str]:
    """``book.classroom.assert_check`` and every ``book.exercises.check_*`` that the test sources call."""
    found = set()
    for source in tests:
        for check, helper in _TESTED_NAME.findall(source):
            found.add(f"book.exercises.{check}" if check else f"book.classroom.{helper}")
    return found


_PROBE = """
import importlib, json, sys
sys.path.insert(0, sys.argv[1])
import book
missing = []
for name in json.loads(sys.argv[2]):
    module, attr = name.rsplit(".", 1)
    if not hasattr(importlib.import_module(module), attr):
        missing.append(name)
print(json.dumps({"file": book.__file__, "missing": missing}))
"""


def missing_from_wheel(wheel: Path, names: set[str]) -> list[str]:
    """The dotted ``names`` (``book.classroom.assert_check``) that the wheel's own code lacks.

    Imports the wheel as a zip on ``sys.path`` in an isolated Python (``-I``: no ``PYTHONPATH``,
    not the current folder), from an empty folder, so that the names come from the wheel and not
    from the repository; the book's dependencies come from the running Python's site-packages.

    Raises:
        RuntimeError: if the wheel's ``book`` cannot be imported, or another ``book`` is.
    """
    import json

    wheel = Path(wheel).resolve()
    with tempfile.TemporaryDirectory() as empty:
        done = subprocess.run(
            [sys.executable, "-I", "-c", _PROBE, str(wheel), json.dumps(sorted(names))],
            capture_output=True,
            text=True,
            cwd=empty,
        )
    if done.returncode != 0:
        raise RuntimeError(f"importing the book from {wheel.name} failed:\n{done.stderr[-3000:]}")
    report = json.loads(done.stdout.strip().splitlines()[-1])
    if not report["file"].startswith(str(wheel) + os.sep):
        raise RuntimeError(f"the book imported from {report['file']}, not from {wheel}")
    return report["missing"]
