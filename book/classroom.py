"""Reader editions, student copies, graded assignments and the answer key of the chapters.

Usage::

    python -m book.classroom reader OUT_DIR [--root DIR]
    python -m book.classroom student OUT_DIR [--notebooks DIR]
    python -m book.classroom assignments OUT_DIR [--root DIR] [--no-run-tests]
    python -m book.classroom key OUT_DIR [--root DIR]

``reader`` writes every chapter and the teachers' page as a notebook that
reads without MyST (``book.editions``: glued numbers inlined, citations,
references and directives in plain Markdown), with its stored outputs.

``student`` starts from the reader editions of the chapters: every cell
tagged ``solution`` (the hidden solution blocks after each exercise) is
dropped; every code cell loses its outputs and execution count, so students
run the chapter themselves. Exercise cells (tagged ``exercise``) and
everything else are kept. The chapters in ``notebooks/`` are not modified.

``assignments`` writes one otter-grader assignment per part of the book
(the parts of ``_toc.yml``, five in all) and runs ``otter assign`` on each:
``OUT_DIR/<name>/<name>.ipynb`` is the master notebook, ``OUT_DIR/<name>/student/``
the notebook to hand out with the book's wheel, ``OUT_DIR/<name>/autograder/`` the solutions and
the autograder zip that ``otter run`` and Gradescope grade with, whose environment
installs the book from the wheel it ships (no git tag, no network for the book). Every
exercise is one question: those with a self-check are autograded by it
(a public test that prints its hint, a hidden test that gives the points),
the others are graded by hand with a rubric, and so is what a checked
exercise also asks in words (a question ``<label>-written``). An autograded question's
solution is the chapter's solution code up to the statement that asserts
its check, without the ``assert`` statements and ``glue`` calls that check
the chapter's prose; a question graded by hand shows the chapter's
solution, text and code, then its rubric. Each answer gets its own name,
the chapter's name followed by the exercise's label (``answer`` in
``ex-ch2-wavelength`` is ``answer_ex_ch2_wavelength``); the chapters keep
their text.

``assignment_questions`` lists every assignment's questions with their
points and whether they are graded by hand, as otter reads them from the
master notebooks (the teachers' page reads each master with ``questions``).

``key`` writes the answer key (``book._answer_key``): one document with
every exercise by its label, its prompt, the chapter's solution (text and
code), and for a self-checked exercise the values its check accepts,
computed by running the solution, or the rubric of one graded by hand; as
``OUT_DIR/answer-key.ipynb``, ``.md`` and ``.html``. A PDF needs a LaTeX
toolchain: ``jupyter nbconvert --to pdf OUT_DIR/answer-key.ipynb`` (xelatex).
The key is for teachers: it is never part of the website.

``unbound_names`` checks, without running anything, that a student copy
still runs: every name a kept cell reads must be bound by an earlier kept
cell, an import or a builtin, never only by a removed solution.
"""

from __future__ import annotations

import argparse
import builtins
import contextlib
import io
import shutil
import symtable
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import nbformat

__all__ = [
    "student_copy",
    "write_student_notebooks",
    "write_reader_notebooks",
    "unbound_names",
    "assignment_notebooks",
    "Question",
    "questions",
    "assignment_questions",
    "write_assignments",
    "assert_check",
    "write_answer_key",
    "main",
]

SOLUTION_TAG = "solution"


def student_copy(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Return a copy of ``nb`` without solution cells and with code outputs cleared."""
    out = nbformat.from_dict(nb)  # a deep copy
    out.cells = [c for c in out.cells if SOLUTION_TAG not in c.get("metadata", {}).get("tags", [])]
    for cell in out.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    out.metadata.pop("widgets", None)
    return out


#: Names IPython binds in every kernel before the first cell runs.
IPYTHON_NAMES = frozenset({"get_ipython", "display", "In", "Out", "exit", "quit", "_", "__", "___"})
#: Scopes that run where they are written (their free names are read at once).
_IMMEDIATE = {"listcomp", "setcomp", "dictcomp", "genexpr"}


def _cell_names(code: str) -> tuple[set[str], set[str], set[str]]:
    """(names bound, names read at once, names read later by functions) of one cell.

    A cell's top level and its comprehensions read their names when the cell
    runs; a function or lambda defined in it reads its global names only when
    called. IPython magics (``%pip``) are turned into Python first.
    """
    from IPython.core.inputtransformer2 import TransformerManager

    table = symtable.symtable(TransformerManager().transform_cell(code), "<cell>", "exec")
    bound = {s.get_name() for s in table.get_symbols() if s.is_assigned() or s.is_imported()}
    now: set[str] = set()
    later: set[str] = set()

    def visit(t: symtable.SymbolTable, deferred: bool) -> None:
        for sym in t.get_symbols():
            if sym.is_referenced() and (t is table or sym.is_global()):
                (later if deferred else now).add(sym.get_name())
        for child in t.get_children():
            visit(child, deferred or child.get_name() not in _IMMEDIATE)

    visit(table, deferred=False)
    return bound, now - bound, later - bound


def unbound_names(nb: nbformat.NotebookNode) -> list[str]:
    """Problems that would stop ``nb``'s student copy from running top to bottom.

    Reads the code cells in order, without executing them, and reports:

    - a name that a kept cell reads but no earlier kept cell (or the cell
      itself, an import, a builtin or IPython) binds, for example a variable
      that only a removed solution defined;
    - a name that a solution cell binds while a later kept cell reads it,
      so that the later cell would see another value in the student copy.

    Functions defined in a kept cell may read names bound by any kept cell,
    since they run later. Returns one line per problem (empty if none).
    """
    known = set(dir(builtins)) | IPYTHON_NAMES
    cells = [
        (c.source, SOLUTION_TAG in c.get("metadata", {}).get("tags", [])) for c in nb.cells if c.cell_type == "code"
    ]
    names = [_cell_names(src) for src, _ in cells]
    kept_bound = set().union(*(b for (b, _, _), (_, sol) in zip(names, cells) if not sol))
    problems, bound = [], set(known)
    for i, ((src, solution), (binds, now, later)) in enumerate(zip(cells, names)):
        first = src.strip().splitlines()[0][:50] if src.strip() else ""
        if solution:
            read_later = set().union(
                *(n | later for (_, n, later), (_, sol) in zip(names[i + 1 :], cells[i + 1 :]) if not sol)
            )
            problems += [
                f"code cell {i} ({first!r}), a solution, binds {n!r}, which a later kept cell reads"
                for n in sorted(binds & read_later)
            ]
            continue
        problems += [
            f"code cell {i} ({first!r}) reads {n!r}, which no earlier kept cell binds" for n in sorted(now - bound)
        ]
        problems += [
            f"code cell {i} ({first!r}) defines a function that reads {n!r}, which no kept cell binds"
            for n in sorted(later - bound - kept_bound)
        ]
        bound |= binds
    return problems


def write_student_notebooks(source_dir: Path, out_dir: Path) -> list[Path]:
    """Write a student copy of every ``*.ipynb`` in ``source_dir`` into ``out_dir``.

    Each copy is made from the chapter's reader edition (``book.editions``),
    so it carries no MyST syntax; ``source_dir``'s parent must be the book's
    repository (its ``_toc.yml`` numbers the chapters).

    Raises:
        FileNotFoundError: if ``source_dir`` holds no notebooks, or its parent no ``_toc.yml``.
        ValueError: if ``out_dir`` is ``source_dir`` (the chapters would be overwritten).
    """
    from .editions import BookIndex, reader_edition

    source_dir, out_dir = Path(source_dir), Path(out_dir)
    paths = sorted(source_dir.glob("*.ipynb"))
    if not paths:
        raise FileNotFoundError(f"no notebooks (*.ipynb) in {source_dir}")
    if out_dir.resolve() == source_dir.resolve():
        raise ValueError("out_dir must differ from the notebooks folder, or the chapters would be overwritten")
    if not (source_dir.parent / "_toc.yml").is_file():
        raise FileNotFoundError(f"no _toc.yml in {source_dir.parent}: the notebooks must be the book's chapters")
    index = BookIndex.from_repository(source_dir.parent)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        target = out_dir / path.name
        nbformat.write(student_copy(reader_edition(nb, path.name, index)), target)
        written.append(target)
    return written


def write_reader_notebooks(root: Path, out_dir: Path) -> list[Path]:
    """Write the reader editions of the book in ``root`` into ``out_dir`` (see ``book.editions``)."""
    from .editions import write_reader_notebooks as write

    return write(root, out_dir)


def assert_check(check: Callable[..., bool], *args: Any, **kwargs: Any) -> None:
    """Run the self-check ``check(*args, **kwargs)`` quietly, and raise if it fails.

    This is how the assignments' otter tests call the checks of
    ``book.exercises``: a check prints its verdict and returns ``True`` or
    ``False``; here the verdict is captured, and a ``False`` becomes an
    ``AssertionError`` whose message is that verdict, so that otter shows the
    check's hint ("Not yet. This is the transpose ...") as the reason the test
    failed. An error the check raises (a wrong call, not a wrong answer)
    passes through.

    Raises:
        AssertionError: if the check returns anything but ``True``.
    """
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        verdict = check(*args, **kwargs)
    if verdict is not True:
        raise AssertionError(printed.getvalue().strip() or f"{getattr(check, '__name__', check)} returned {verdict!r}")


def assignment_notebooks(root: Path) -> dict[str, nbformat.NotebookNode]:
    """The otter master notebook of every part of the book in ``root``, by assignment name.

    Built from the chapters' reader editions (``book.editions``), in the
    format of otter-grader 7.0.0 (raw cells ``# ASSIGNMENT CONFIG``,
    ``# BEGIN QUESTION``, ``# BEGIN SOLUTION``, ``# BEGIN TESTS``; tests in its
    exception-based format). The names are ``part<N>-<caption>``, e.g.
    ``part3-what-replaced-it``. ``book._assignments`` describes how an
    exercise becomes a question.

    Raises:
        FileNotFoundError: if ``root`` has no ``_toc.yml``.
        ValueError: if an exercise cannot be turned into a question (a
            reasoning exercise without a rubric, a self-check the solution
            never asserts), or a test reads a name that two cells bind.
    """
    from . import _assignments as build
    from .editions import BookIndex, reader_edition

    root = Path(root)
    if not (root / "_toc.yml").is_file():
        raise FileNotFoundError(f"no _toc.yml in {root}: give the book's repository")
    index = BookIndex.from_repository(root)
    out = {}
    for part in build.parts(root):
        chapters = {
            path.name: build.exercises_of(
                reader_edition(nbformat.read(path, as_version=4), path.name, index), path.name, index.site
            )
            for path in part.chapters
        }
        nb = build.master_notebook(part, chapters, index.site)
        _refuse_rebound_names_read_by_tests(nb)
        out[part.name] = nb
    return out


@dataclass(frozen=True)
class Question:
    """One otter question of an assignment, as its ``# BEGIN QUESTION`` cell configures it.

    ``points`` is what otter gives for it (``book._assignments.POINTS`` for an
    autograded question, one a rubric line for one graded by hand);
    ``manual`` says whether a person grades it.
    """

    name: str
    points: int
    manual: bool


def questions(nb: nbformat.NotebookNode) -> list[Question]:
    """The questions of the otter master notebook ``nb``, in order.

    Reads otter-grader 7.0.0's question configuration: the YAML after
    ``# BEGIN QUESTION`` in a raw cell, with ``name``, ``points`` and
    ``manual`` (false when absent, as in otter).

    Raises:
        TypeError: if ``nb`` is not a notebook.
        ValueError: if a question has no name or its points are not a whole number of 0 or more.
    """
    import yaml

    if not isinstance(nb, dict) or "cells" not in nb:
        raise TypeError(f"nb must be a notebook (nbformat.NotebookNode), not {type(nb).__name__}")
    found = []
    for cell in nb.cells:
        if cell.cell_type != "raw" or not cell.source.startswith("# BEGIN QUESTION"):
            continue
        config = yaml.safe_load(cell.source) or {}
        name, points = config.get("name"), config.get("points")
        if not isinstance(name, str) or not name:
            raise ValueError(f"a question needs a name, got {config!r}")
        if isinstance(points, bool) or not isinstance(points, int) or points < 0:
            raise ValueError(f"points of {name} must be a whole number of 0 or more, got {points!r}")
        found.append(Question(name, points, bool(config.get("manual", False))))
    return found


def assignment_questions(root: Path) -> dict[str, list[Question]]:
    """The questions of every assignment of the book in ``root``, by assignment name.

    The same masters that ``python -m book.classroom assignments`` hands to
    ``otter assign`` (:func:`assignment_notebooks`), read by :func:`questions`.

    Raises:
        TypeError: if ``root`` is not a path.
        FileNotFoundError, ValueError: as :func:`assignment_notebooks`.
    """
    if not isinstance(root, (str, Path)):
        raise TypeError(f"root must be a path (str or pathlib.Path), not {type(root).__name__}")
    return {name: questions(nb) for name, nb in assignment_notebooks(Path(root)).items()}


def _refuse_rebound_names_read_by_tests(nb: nbformat.NotebookNode) -> None:
    """Otter runs the tests after the whole notebook, so a name a test reads must be bound only once."""
    from ._assignments import _TEST_DEF, names_read_by_tests

    read = set().union(*names_read_by_tests(nb).values())
    binders: dict[str, int] = {}
    for cell in nb.cells:
        if cell.cell_type == "code" and not _TEST_DEF.search(cell.source):
            for name in _cell_names(cell.source)[0] & read:
                binders[name] = binders.get(name, 0) + 1
    twice = sorted(n for n, count in binders.items() if count > 1)
    if twice:
        raise ValueError(f"names that the tests read are bound by several cells: {twice}")


def write_assignments(root: Path, out_dir: Path, *, run_tests: bool = True) -> list[Path]:
    """Write every assignment of :func:`assignment_notebooks` into ``out_dir`` and run ``otter assign``.

    The book's own wheel is built first (``book._assignments.build_wheel``,
    offline, from ``root``'s sources). For each assignment ``<name>``:
    ``out_dir/<name>/<name>.ipynb`` (the master notebook, whose ``files:``
    lists the wheel), the wheel beside it, and ``out_dir/<name>/requirements.txt``,
    which installs the book from that wheel as the autograder zip holds it
    (``/autograder/source/files/``, where Gradescope unpacks the zip before
    it runs ``setup.sh``), never from git. Then ``otter assign`` writes
    ``out_dir/<name>/autograder/`` (the solutions notebook, the wheel and
    ``<name>-autograder_<time>.zip``, with the wheel under ``files/``) and
    ``out_dir/<name>/student/`` (the student notebook and the wheel, which
    students install). With ``run_tests`` otter also runs the tests against
    the solutions and fails if one does not pass. Returns the student
    notebooks and autograder zips. Needs otter-grader (a development
    requirement, not the package's).

    Raises:
        RuntimeError: if ``otter assign`` fails (its output ends the message), or the wheel cannot be built.
        ModuleNotFoundError: if otter-grader is not installed.
        FileNotFoundError, ValueError: as :func:`assignment_notebooks`.
    """
    try:
        from otter.assign import main as otter_assign
    except ModuleNotFoundError as err:
        raise ModuleNotFoundError(
            "writing assignments needs otter-grader (pinned in requirements.txt: pip install otter-grader==7.0.0)"
        ) from err
    from . import _assignments as build
    from ._assignments import build_wheel, wheel_requirement

    out_dir = Path(out_dir)
    masters = assignment_notebooks(root)
    out_dir.mkdir(parents=True, exist_ok=True)
    wheel = build_wheel(Path(root), out_dir)
    written = []
    for name, nb in masters.items():
        folder = out_dir / name
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy(wheel, folder / wheel.name)  # otter assign's files: key copies it on
        nb = build.with_files(nb, [wheel.name])
        nbformat.write(nb, folder / f"{name}.ipynb")
        (folder / "requirements.txt").write_text(wheel_requirement(wheel.name) + "\n")
        printed = io.StringIO()
        try:
            with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
                otter_assign(str(folder / f"{name}.ipynb"), str(folder), no_run_tests=not run_tests)
        except Exception as err:  # otter's own errors: a failing test, a malformed notebook
            raise RuntimeError(f"otter assign failed for {name}: {err}\n{printed.getvalue()[-3000:]}") from err
        written += [folder / "student" / f"{name}.ipynb", *sorted((folder / "autograder").glob("*.zip"))]
    wheel.unlink()
    return written


def write_answer_key(root: Path, out_dir: Path) -> list[Path]:
    """Write the answer key of the book in ``root`` into ``out_dir``; returns the paths written.

    ``out_dir/answer-key.ipynb``, ``answer-key.md`` and ``answer-key.html``
    hold every exercise of every chapter by its label, in the book's order:
    its prompt, the chapter's solution (text and code), and, for an exercise
    with a self-check, the answer the solution computes (run as the
    assignments' autograder runs it, in the assignment's setup) with the
    check's confirmation; an exercise graded by hand, and the written part of
    a checked one, shows its rubric. Running the solutions takes a minute or
    two (chapter 5 and 8's exercises train small models). For a PDF, run
    ``jupyter nbconvert --to pdf`` on the notebook where xelatex is installed.

    Raises:
        FileNotFoundError: if ``root`` has no ``_toc.yml``.
        RuntimeError: if a solution fails or its check does not accept what it computes.
    """
    from ._answer_key import write_answer_key as write

    return write(root, out_dir)


def _book_config(root: Path) -> dict[str, Any]:
    """The book's ``_config.yml``."""
    import yaml

    return yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))


def _add_root(command: argparse.ArgumentParser) -> None:
    """The ``--root`` option of the commands that read ``_toc.yml``."""
    command.add_argument(
        "--root",
        type=Path,
        default=Path("."),
        help="the book's repository, with _toc.yml (default: the current folder)",
    )


def main(argv: list[str] | None = None) -> int:
    """Run ``python -m book.classroom`` with ``argv`` (default: ``sys.argv[1:]``).

    ``reader OUT_DIR [--root DIR]`` writes the reader editions with
    ``write_reader_notebooks``; ``student OUT_DIR [--notebooks DIR]`` writes
    the students' copies with ``write_student_notebooks``;
    ``assignments OUT_DIR [--root DIR] [--no-run-tests]`` writes the otter
    assignments with ``write_assignments``; ``key OUT_DIR [--root DIR]`` the
    answer key with ``write_answer_key``. Each prints every
    path written and returns 0. A
    missing folder or an invalid notebook exits through ``argparse`` with
    status 2 and the error message.
    """
    parser = argparse.ArgumentParser(
        prog="python -m book.classroom", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    reader = sub.add_parser("reader", help="write reader editions (no MyST syntax, outputs kept)")
    reader.add_argument("out_dir", type=Path, help="folder to write the reader editions into")
    _add_root(reader)
    student = sub.add_parser("student", help="write student notebooks (solutions removed, outputs cleared)")
    student.add_argument("out_dir", type=Path, help="folder to write the student notebooks into")
    student.add_argument(
        "--notebooks", type=Path, default=Path("notebooks"), help="folder with the chapters (default: notebooks)"
    )
    graded = sub.add_parser(
        "assignments", help="write otter-grader assignments, one per part of the book, and run otter assign"
    )
    graded.add_argument("out_dir", type=Path, help="folder to write the assignments into")
    _add_root(graded)
    graded.add_argument(
        "--no-run-tests", action="store_true", help="do not let otter assign run the tests against the solutions"
    )
    key = sub.add_parser("key", help="write the answer key (every exercise, its solution and expected values)")
    key.add_argument("out_dir", type=Path, help="folder to write answer-key.ipynb, .md and .html into")
    _add_root(key)
    args = parser.parse_args(argv)
    try:
        if args.command == "reader":
            written = write_reader_notebooks(args.root, args.out_dir)
        elif args.command == "key":
            written = write_answer_key(args.root, args.out_dir)
        elif args.command == "assignments":
            written = write_assignments(args.root, args.out_dir, run_tests=not args.no_run_tests)
        else:
            written = write_student_notebooks(args.notebooks, args.out_dir)
    except (OSError, ValueError, TypeError, RuntimeError) as err:  # a missing folder, an OUT_DIR that is a file, ...
        parser.error(str(err))
    for path in written:
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
