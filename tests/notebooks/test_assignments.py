"""The otter-grader assignments of ``python -m book.classroom assignments``, built and graded.

``write_assignments`` runs otter assign on every part of the book; then otter run
(``otter.run.main``, what the ``otter run`` command calls: no Docker, no
Gradescope, each notebook executed in a temporary folder outside the repository)
grades, for every assignment, its solutions notebook, its untouched student
notebook, and notebooks that carry one mistake a self-check names. All gradings of
an assignment share one Python process, and two assignments are graded at once.
"""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest

from book import classroom

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow

#: One mistake a self-check names, per question: (assignment, question, the answer's
#: variable, the mistaken answer, a phrase of the hint it must get).
MISTAKES = [
    (
        "part1-why-position",
        "ex-ch1-permutation",
        "P_answer_ex_ch1_permutation",
        "torch.eye(4)[[2, 0, 3, 1]].T",
        "This is the transpose of the answer",
    ),
    (
        "part2-the-sinusoidal-encoding",
        "ex-ch2-wavelength",
        "answer_ex_ch2_wavelength",
        "10000 ** (2 * 3 / 64)",  # 2 pi forgotten
        "That is 1/w_i",
    ),
    (
        "part2-the-sinusoidal-encoding",
        "ex-ch3-block",
        "block_ex_ch3_block",  # the textbook rotation: the transpose of M_k's block
        "[[math.cos(7 * 0.1), -math.sin(7 * 0.1)], [math.sin(7 * 0.1), math.cos(7 * 0.1)]]",
        "This is the transpose",
    ),
    (
        "part3-what-replaced-it",
        "ex-ch6-angle",
        "answer_ex_ch6_angle",
        "math.degrees(100 * 10000 ** (-2 * 8 / 64))",
        "That is the angle in degrees",
    ),
    (
        "part3-what-replaced-it",
        "ex-ch7-slopes",
        "answer_ex_ch7_slopes",
        "[2.0**-h for h in range(1, 7)]",  # 2^-h, the rule for 8 heads
        "These are the first 6 slopes for 8 heads",
    ),
    (
        "part5-long-contexts-and-numerics",
        "ex-ch10-cache",
        "answer_ex_ch10_cache",
        "torch.finfo(torch.float16).eps",
        "the gap just above 1",
    ),
]

#: Grades [(autograder zip, notebook), ...] (argv[1], JSON) in this one process with otter run's
#: own function, in debug mode (an error in any cell fails the grading, which otter would ignore); prints {notebook: {question: {score, possible, output}}} as JSON on its last line.
GRADER = """
import contextlib, io, json, sys
from otter.run import main
out = {}
for zip_path, notebook in json.loads(sys.argv[1]):
    with contextlib.redirect_stdout(io.StringIO()):
        results = main(notebook, autograder=zip_path, output_dir=None, no_logo=True, debug=True)
    out[notebook] = {name: {"score": tf.score, "possible": tf.possible, "output": tf.summary()}
                     for name, tf in results.results.items()}
print(json.dumps(out))
"""


def with_mistake(solutions: Path, variable: str, wrong: str, target: Path) -> Path:
    """The solutions notebook with ``variable`` rebound to ``wrong`` just before its cell's check call."""
    nb = nbformat.read(solutions, as_version=4)
    cells = [c for c in nb.cells if c.cell_type == "code" and f"{variable} = " in c.source]
    assert len(cells) == 1, f"{variable}: {len(cells)} cells bind it"
    lines = cells[0].source.splitlines()
    at = max(i for i, line in enumerate(lines) if line.startswith("exercises.check_"))
    cells[0].source = "\n".join([*lines[:at], f"{variable} = {wrong}  # a student's mistake", *lines[at:]])
    nbformat.write(nb, target)
    return target


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Every assignment written by otter assign (without its test run: otter run grades the solutions below)."""
    out = tmp_path_factory.mktemp("assignments")
    written = classroom.write_assignments(ROOT, out, run_tests=False)
    assert len(written) == 10  # a student notebook and an autograder zip per assignment
    return out


@pytest.fixture(scope="module")
def graded(built):
    """Every assignment's notebooks graded: {assignment: {kind: {question: result}}}."""
    out = built
    jobs: dict[str, dict[str, Path]] = {}
    for folder in sorted(p for p in out.iterdir() if p.is_dir()):
        name = folder.name
        solutions = folder / "autograder" / f"{name}.ipynb"
        jobs[name] = {"solutions": solutions, "student": folder / "student" / f"{name}.ipynb"}
        for part, question, variable, wrong, _ in MISTAKES:
            if part == name:
                target = folder / "mistakes" / question / f"{name}.ipynb"  # the name the export cell reads
                target.parent.mkdir(parents=True)
                jobs[name][question] = with_mistake(solutions, variable, wrong, target)

    def grade(name: str) -> dict[str, dict]:
        [ag_zip] = (out / name / "autograder").glob("*.zip")
        pairs = [(str(ag_zip), str(nb)) for nb in jobs[name].values()]
        done = subprocess.run(
            [sys.executable, "-c", GRADER, json.dumps(pairs)], capture_output=True, text=True, timeout=600
        )
        assert done.returncode == 0, done.stderr[-3000:]
        scores = json.loads(done.stdout.strip().splitlines()[-1])
        return {kind: scores[str(nb)] for kind, nb in jobs[name].items()}

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(jobs, pool.map(grade, jobs)))


def test_every_student_notebook_binds_every_name_it_reads(built):
    for folder in sorted(p for p in built.iterdir() if p.is_dir()):
        student = nbformat.read(folder / "student" / f"{folder.name}.ipynb", as_version=4)
        assert classroom.unbound_names(student) == [], folder.name
        everything = json.dumps(student)  # cells and metadata (otter keeps the public tests there)
        assert "BEGIN SOLUTION" not in everything and "**SOLUTION**" not in everything, folder.name
        assert "test_hint" in everything and "test_grade" not in everything, folder.name
    part2 = json.dumps(
        nbformat.read(
            built / "part2-the-sinusoidal-encoding" / "student" / "part2-the-sinusoidal-encoding.ipynb", as_version=4
        )
    )
    assert (
        "2 * math.pi * 10000 ** (2 * 3 / 64)" not in part2
        and "answer_ex_ch2_wavelength = None  # your wavelength" in part2
    )


def autograded(results: dict) -> dict:
    """The questions otter scores (manual ones are graded by hand and are not in the results)."""
    return {q: r for q, r in results.items() if r["possible"]}


def test_every_part_of_the_book_is_an_assignment(graded):
    assert list(graded) == list(classroom.assignment_notebooks(ROOT))
    assert len(graded) == 5


def test_the_solutions_get_full_marks_on_every_autograded_question(graded):
    for name, kinds in graded.items():
        questions = autograded(kinds["solutions"])
        assert questions, f"{name}: no autograded question"
        for question, result in questions.items():
            assert result["score"] == result["possible"] == 2, f"{name} {question}: {result['output']}"


def test_the_untouched_student_notebook_gets_zero(graded):
    for name, kinds in graded.items():
        questions = autograded(kinds["student"])
        assert questions.keys() == autograded(kinds["solutions"]).keys()
        assert {q: r["score"] for q, r in questions.items()} == dict.fromkeys(questions, 0), name


@pytest.mark.parametrize(("part", "question", "variable", "wrong", "hint"), MISTAKES, ids=[m[1] for m in MISTAKES])
def test_a_named_mistake_loses_exactly_its_question_s_points_and_shows_the_hint(
    graded, part, question, variable, wrong, hint
):
    solutions, mistaken = graded[part]["solutions"], graded[part][question]
    lost = {q: solutions[q]["score"] - mistaken[q]["score"] for q in autograded(solutions)}
    assert lost == {q: (2 if q == question else 0) for q in lost}
    assert hint in mistaken[question]["output"], mistaken[question]["output"]
