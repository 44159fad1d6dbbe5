"""The otter-grader assignments of ``python -m book.classroom assignments``, built and graded.

A background job (``assignments_run`` in ``tests/plugins/background_jobs.py``, this
file run as a script) runs ``classroom.write_assignments`` (otter assign on every
part of the book), then grades with otter run (``otter.run.main``, what the
``otter run`` command calls: no Docker, no Gradescope, each notebook executed in
a temporary folder outside the repository, in otter's debug mode so that an error
in any cell fails it), for every assignment: its solutions notebook, its untouched
student notebook, and one notebook carrying every mistake of ``MISTAKES`` for
that assignment (each in its own question, named by a self-check), so that each
mistaken question must lose its points and every other question none. All
gradings of an assignment share one Python process, and two assignments are
graded at once. The job writes ``report.json``; the tests read it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]

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
        "ex-ch2-jumps",
        "answer_ex_ch2_jumps",
        "[16, 32, 48]",  # p + 1, the position after each jump
        "These are the positions p + 1",
    ),
    (
        "part2-the-sinusoidal-encoding",
        "ex-ch2-base",
        "answer_ex_ch2_base",
        "10000.0",
        "With base 10000 the slowest pair",
    ),
    (
        "part2-the-sinusoidal-encoding",
        "ex-ch3-block",
        "block_ex_ch3_block",  # the textbook rotation: the transpose of M_k's block
        "[[math.cos(7 * 0.1), -math.sin(7 * 0.1)], [math.sin(7 * 0.1), math.cos(7 * 0.1)]]",
        "This is the transpose",
    ),
    (
        "part2-the-sinusoidal-encoding",
        "ex-ch3-period",
        "answer_ex_ch3_period",
        "0",  # M_0 = I: no shift at all
        "but k = 0 is no shift",
    ),
    (
        "part2-the-sinusoidal-encoding",
        "ex-ch4-toeplitz",
        "answer_ex_ch4_toeplitz",
        "100 * 100",  # the entries
        "That counts the entries",
    ),
    (
        "part2-the-sinusoidal-encoding",
        "ex-ch4-float32",
        "answer_ex_ch4_float32",
        "2**23",  # 23 stored bits, the implicit one forgotten
        "That is 2^23",
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
        "part3-what-replaced-it",
        "ex-ch7-bucket",
        "answer_ex_ch7_bucket",
        "[26, 10]",  # the key after taken for the one before
        "The two are swapped",
    ),
    (
        "part3-what-replaced-it",
        "ex-ch7-read",
        "answer_ex_ch7_read",
        "lambda first: 1 / first",  # i + 1: the 1 not subtracted
        "These are i + 1",
    ),
    (
        "part5-long-contexts-today-s-models-numerics-and-serving",
        "ex-ch10-gap",
        "answer_ex_ch10_gap",
        "(1 / 16, 2**24, 2**23)",
        "2^23 and 2^24 are swapped",
    ),
    (
        "part5-long-contexts-today-s-models-numerics-and-serving",
        "ex-ch10-cache",
        "answer_ex_ch10_cache",
        "torch.finfo(torch.float16).eps",
        "the gap just above 1",
    ),
]

# ---------------------------------------------------------------------------
# The job: ``python tests/notebooks/test_assignments.py FOLDER``.
# ---------------------------------------------------------------------------

#: Grades [(autograder zip, notebook), ...] (argv[1], JSON) in this one process with otter run's
#: own function, in debug mode (an error in any cell fails the grading, which otter would ignore); prints
#: {notebook: {question: {score, possible, output}}} as JSON on its last line.
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


def with_mistakes(solutions: Path, mistakes: list[tuple[str, str]], target: Path) -> Path:
    """The solutions notebook with each ``variable`` of ``mistakes`` rebound to its ``wrong``
    answer just before its cell's check call (one cell per variable)."""
    nb = nbformat.read(solutions, as_version=4)
    for variable, wrong in mistakes:
        cells = [c for c in nb.cells if c.cell_type == "code" and f"{variable} = " in c.source]
        assert len(cells) == 1, f"{variable}: {len(cells)} cells bind it"
        lines = cells[0].source.splitlines()
        at = max(i for i, line in enumerate(lines) if line.startswith("exercises.check_"))
        cells[0].source = "\n".join([*lines[:at], f"{variable} = {wrong}  # a student's mistake", *lines[at:]])
    nbformat.write(nb, target)
    return target


def _student_problems(student: Path) -> list[str]:
    """What would stop the student notebook from running, or give a solution away."""
    from book import classroom

    nb = nbformat.read(student, as_version=4)
    problems = classroom.unbound_names(nb)
    everything = json.dumps(nb)  # cells and metadata (otter keeps the public tests there)
    for leak in ("BEGIN SOLUTION", "**SOLUTION**", "test_grade"):
        if leak in everything:
            problems.append(f"the student notebook holds {leak!r}")
    if "test_hint" not in everything:
        problems.append("the student notebook has no public test")
    return problems


def _shipped_wheel(assignment: Path, scratch: Path, sabotage: bool) -> dict:
    """What the autograder zip of ``assignment`` ships of the book, and what its wheel lacks."""
    import zipfile

    from book import _assignments

    [ag_zip] = (assignment / "autograder").glob("*.zip")
    with zipfile.ZipFile(ag_zip) as zf:
        wheels = [f for f in zf.namelist() if f.startswith("files/book-") and f.endswith(".whl")]
        env = zf.read("environment.yml").decode()
        tests = [zf.read(f).decode() for f in zf.namelist() if f.startswith("tests/") and f.endswith(".py")]
        scratch.mkdir(parents=True)
        zf.extractall(scratch, members=wheels)
    names = _assignments.names_tests_import(tests)
    facts = {
        "wheels": wheels,
        "book_lines": [line.strip(" -") for line in env.splitlines() if "book" in line],
        "git": "git+" in env,
        "student_wheels": sorted(p.name for p in (assignment / "student").glob("book-*.whl")),
        "tested": sorted(names),
    }
    if len(wheels) == 1:
        wheel = scratch / wheels[0]
        facts["missing"] = _assignments.missing_from_wheel(wheel, names)
    if len(wheels) == 1 and sabotage:
        # The same probe on a copy of the wheel whose classroom module lacks assert_check must fail.
        broken = scratch / "broken" / wheel.name
        broken.parent.mkdir()
        with zipfile.ZipFile(wheel) as src, zipfile.ZipFile(broken, "w") as dst:
            for item in src.infolist():
                data = src.read(item)
                if item.filename == "book/classroom.py":
                    data = data.replace(b"def assert_check(", b"def assert_check_removed(")
                dst.writestr(item, data)
        facts["missing_when_broken"] = _assignments.missing_from_wheel(broken, names)
    return facts


def job(folder: Path) -> int:
    """Write every assignment into ``folder/out`` and grade it; write ``folder/report.json``."""
    from book import classroom

    start, report = time.monotonic(), {}
    try:
        out = folder / "out"
        written = classroom.write_assignments(ROOT, out, run_tests=False)  # otter run grades the solutions
        report["written"] = [str(p.relative_to(out)) for p in written]
        report["assign_seconds"] = round(time.monotonic() - start, 1)
        jobs: dict[str, dict[str, Path]] = {}
        for name in classroom.assignment_notebooks(ROOT):
            solutions = out / name / "autograder" / f"{name}.ipynb"
            jobs[name] = {"solutions": solutions, "student": out / name / "student" / f"{name}.ipynb"}
            mistakes = [(variable, wrong) for part, _, variable, wrong, _ in MISTAKES if part == name]
            if mistakes:  # every mistake of the assignment in one notebook, each in its own question
                target = out / name / "mistakes" / f"{name}.ipynb"  # the name the export cell reads
                target.parent.mkdir(parents=True)
                jobs[name]["mistakes"] = with_mistakes(solutions, mistakes, target)
        report["student_problems"] = {name: _student_problems(kinds["student"]) for name, kinds in jobs.items()}
        report["wheels"] = {
            name: _shipped_wheel(out / name, folder / "wheels" / name, sabotage=i == 0) for i, name in enumerate(jobs)
        }
        wording = json.dumps(nbformat.read(jobs["part2-the-sinusoidal-encoding"]["student"], as_version=4))
        report["part2_student_has_prompt_not_solution"] = (
            "answer_ex_ch2_wavelength = None  # your wavelength" in wording
            and "2 * math.pi * 10000 ** (2 * 3 / 64)" not in wording
        )

        def grade(name: str) -> dict:
            [ag_zip] = (out / name / "autograder").glob("*.zip")
            pairs = [(str(ag_zip), str(nb)) for nb in jobs[name].values()]
            done = subprocess.run(
                [sys.executable, "-c", GRADER, json.dumps(pairs)], capture_output=True, text=True, timeout=900
            )
            if done.returncode != 0:
                raise RuntimeError(f"grading {name} failed:\n{done.stderr[-3000:]}")
            scores = json.loads(done.stdout.strip().splitlines()[-1])
            return {kind: scores[str(nb)] for kind, nb in jobs[name].items()}

        with ThreadPoolExecutor(max_workers=2) as pool:
            report["graded"] = dict(zip(jobs, pool.map(grade, jobs)))
    except Exception:  # the tests report it
        report["setup_error"] = traceback.format_exc()
    report["seconds"] = round(time.monotonic() - start, 1)
    (folder / "report.json").write_text(json.dumps(report, indent=1))
    print(f"assignments job: {report['seconds']} s")
    return 1 if "setup_error" in report else 0


# ---------------------------------------------------------------------------
# The tests.
# ---------------------------------------------------------------------------

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def report(assignments_run) -> dict:
    report, log = assignments_run
    assert "setup_error" not in report, f"{report['setup_error']}\n{log[-3000:]}"
    return report


def autograded(results: dict) -> dict:
    """The questions otter scores (manual ones are graded by hand and are not in the results)."""
    return {q: r for q, r in results.items() if r["possible"]}


def test_every_part_of_the_book_is_an_assignment_with_a_student_notebook_and_an_autograder(report):
    from book import classroom

    names = list(classroom.assignment_notebooks(ROOT))
    assert list(report["graded"]) == names and len(names) == 5
    assert [p.split("/")[0] for p in report["written"]] == [n for n in names for _ in range(2)]
    assert [Path(p).suffix for p in report["written"]] == [".ipynb", ".zip"] * 5


def test_every_student_notebook_runs_and_holds_no_solution(report):
    assert report["student_problems"] == dict.fromkeys(report["graded"], [])
    assert report["part2_student_has_prompt_not_solution"]


def test_every_autograder_zip_ships_the_book_s_wheel_and_installs_it_from_there_not_from_git(report):
    from book import _assignments

    for name, facts in report["wheels"].items():
        assert len(facts["wheels"]) == 1, f"{name}: {facts['wheels']}"
        wheel = Path(facts["wheels"][0]).name
        assert facts["book_lines"] == [_assignments.wheel_requirement(wheel)], name
        assert facts["book_lines"][0].endswith(f"@ file:///autograder/source/files/{wheel}")
        assert not facts["git"], name
        assert facts["student_wheels"] == [wheel], name  # beside the student notebook, to install


def test_the_shipped_wheel_holds_assert_check_and_every_check_the_tests_call(report):
    for name, facts in report["wheels"].items():
        assert "book.classroom.assert_check" in facts["tested"], name
        assert [n for n in facts["tested"] if n.startswith("book.exercises.check_")], name
        assert facts["missing"] == [], name
    broken = [facts["missing_when_broken"] for facts in report["wheels"].values() if "missing_when_broken" in facts]
    assert broken == [["book.classroom.assert_check"]]  # the probe fails on a wheel without it


def test_the_solutions_get_full_marks_on_every_autograded_question(report):
    for name, kinds in report["graded"].items():
        questions = autograded(kinds["solutions"])
        assert questions, f"{name}: no autograded question"
        for question, result in questions.items():
            assert result["score"] == result["possible"] == 2, f"{name} {question}: {result['output']}"


def test_the_untouched_student_notebook_gets_zero(report):
    for name, kinds in report["graded"].items():
        questions = autograded(kinds["student"])
        assert questions.keys() == autograded(kinds["solutions"]).keys()
        assert {q: r["score"] for q, r in questions.items()} == dict.fromkeys(questions, 0), name


def test_the_mistakes_lose_exactly_their_questions_points(report):
    """Each assignment's notebook of mistakes loses the points of the mistaken questions
    and of no other question (MISTAKES holds one mistake per question)."""
    mistaken_in = {part: {question for p, question, *_ in MISTAKES if p == part} for part, *_ in MISTAKES}
    assert sum(map(len, mistaken_in.values())) == len(MISTAKES)  # one mistake per question
    for part, questions in mistaken_in.items():
        solutions, mistaken = report["graded"][part]["solutions"], report["graded"][part]["mistakes"]
        lost = {q: solutions[q]["score"] - mistaken[q]["score"] for q in autograded(solutions)}
        assert lost == {q: (2 if q in questions else 0) for q in lost}, part


@pytest.mark.parametrize(("part", "question", "variable", "wrong", "hint"), MISTAKES, ids=[m[1] for m in MISTAKES])
def test_a_named_mistake_loses_its_question_s_points_and_shows_the_hint(report, part, question, variable, wrong, hint):
    mistaken = report["graded"][part]["mistakes"][question]
    assert mistaken["score"] == 0 < mistaken["possible"], mistaken["output"]
    assert hint in mistaken["output"], mistaken["output"]


if __name__ == "__main__":
    sys.exit(job(Path(sys.argv[1])))
