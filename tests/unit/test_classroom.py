"""book.classroom, the library: the static check that a student copy binds every
name, and the command line's errors."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import yaml

from book import _assignments, classroom, exercises

ROOT = Path(__file__).resolve().parents[2]


def _notebook(*cells):
    """A notebook of code cells, given as source or (source, tags)."""
    nb = nbformat.v4.new_notebook()
    for cell in cells:
        src, cell_tags = cell if isinstance(cell, tuple) else (cell, [])
        nb.cells.append(nbformat.v4.new_code_cell(src, metadata={"tags": cell_tags}))
    return nb


def test_unbound_names_finds_what_would_break_a_student_copy():
    ok = _notebook(
        "%pip install x\nimport math\nx = [math.pi * i for i in range(3)]",
        "def f():\n    return later\n",
        "later = x\nprint(f(), display, len(x))",
        ("answer = x[0]", ["solution"]),
        "x = 2\nx = x + 1",
    )
    assert classroom.unbound_names(ok) == []
    only_in_solution = _notebook("x = 1", ("y = x + 1", ["solution"]), "print(y)")
    assert classroom.unbound_names(only_in_solution) == [
        "code cell 1 ('y = x + 1'), a solution, binds 'y', which a later kept cell reads",
        "code cell 2 ('print(y)') reads 'y', which no earlier kept cell binds",
    ]
    in_comprehension = _notebook("z = [w for _ in range(2)]")
    assert "reads 'w'" in classroom.unbound_names(in_comprehension)[0]
    in_function = _notebook("def f():\n    return nowhere")
    assert "defines a function that reads 'nowhere'" in classroom.unbound_names(in_function)[0]
    rebinds = _notebook("x = 1", ("x = 5", ["solution"]), "print(x)")
    assert classroom.unbound_names(rebinds) == [
        "code cell 1 ('x = 5'), a solution, binds 'x', which a later kept cell reads"
    ]


def test_bad_arguments_get_clear_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="no notebooks"):
        classroom.write_student_notebooks(tmp_path, tmp_path / "out")
    with pytest.raises(ValueError, match="out_dir must differ"):
        classroom.write_student_notebooks(ROOT / "notebooks", ROOT / "notebooks")
    result = subprocess.run(
        [sys.executable, "-m", "book.classroom", "student", str(tmp_path / "x"), "--notebooks", str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2 and "no notebooks" in result.stderr


# --- the otter-grader assignments (built here without otter; tests/notebooks/test_assignments.py grades them) ---


@pytest.fixture(scope="module")
def masters():
    return classroom.assignment_notebooks(ROOT)


def _questions(nb) -> dict[str, dict]:
    """Question name -> its config (the YAML of its ``# BEGIN QUESTION`` raw cell)."""
    raws = [c.source for c in nb.cells if c.cell_type == "raw" and c.source.startswith("# BEGIN QUESTION")]
    return {q["name"]: q for q in map(yaml.safe_load, raws)}


def _labels(path: Path) -> list[str]:
    return re.findall(r":label: (ex-[\w-]+)", "".join(c.source for c in nbformat.read(path, as_version=4).cells))


def test_one_assignment_per_part_holds_every_exercise_of_its_chapters_once(masters):
    assert list(masters) == [
        "part1-why-position",
        "part2-the-sinusoidal-encoding",
        "part3-what-replaced-it",
        "part4-experiments",
        "part5-long-contexts-today-s-models-numerics-and-serving",
    ]
    every = [q for nb in masters.values() for q in _questions(nb)]
    labels = [label for path in sorted((ROOT / "notebooks").glob("*.ipynb")) for label in _labels(path)]
    assert len(labels) == 43
    written = _assignments.WRITTEN_PARTS
    assert every == [q for label in labels for q in [label] + [f"{label}-written"] * (label in written)]
    manual = [q for nb in masters.values() for q, config in _questions(nb).items() if config.get("manual")]
    assert len(manual) == 9 + 14
    assert sorted(manual) == sorted([*_assignments.RUBRICS, *(f"{label}-written" for label in written)])
    assert not set(written) & set(_assignments.RUBRICS), "a written part belongs to an autograded exercise"
    for nb in masters.values():
        assert all(config["points"] == 2 for config in _questions(nb).values())
        assert nb.cells[0].source.startswith("# ASSIGNMENT CONFIG\nname: ")


def test_autograded_questions_are_the_exercises_with_a_self_check(masters):
    graded = {q: names for nb in masters.values() for q, names in _assignments.names_read_by_tests(nb).items()}
    assert len(graded) == 34
    used = set()
    for text in masters.values():
        calls = re.findall(r"exercises\.check_\w+", "".join(c.source for c in text.cells if c.cell_type == "code"))
        used |= set(calls)
    assert {c.removeprefix("exercises.") for c in used} == set(exercises.__all__)
    answers = [n for names in graded.values() for n in names if "_ex_" in n]
    assert len(answers) == len(set(answers)) == 35, "every answer has its own name (ch5-local has two)"
    for question, names in graded.items():
        assert any(n.endswith("_" + question.replace("-", "_")) for n in names), question


def test_the_masters_need_no_repository_and_no_myst(masters):
    for name, nb in masters.items():
        setup = nb.cells[2].source
        assert "from book import" in setup and "book.setup(" in setup
        code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
        for repo_only in ("notebooks/", "Path(", "open(", "glue("):
            assert repo_only not in code, f"{name}: {repo_only!r}"
        text = "\n".join(c.source for c in nb.cells)
        for myst in ("{glue", "```{", "{py:obj}", "{cite", "{numref}", "](../", "](0", "](1"):
            assert myst not in text, f"{name}: {myst!r}"
        for not_a_solution in ("<details>", "</details>", "## References"):  # the reader edition's wrapping
            assert not_a_solution not in text, f"{name}: {not_a_solution!r}"


def test_a_question_cell_puts_the_solution_where_otter_removes_it(masters):
    nb = masters["part2-the-sinusoidal-encoding"]
    [cell] = [c for c in nb.cells if c.cell_type == "code" and "answer_ex_ch2_wavelength = 2 * math.pi" in c.source]
    assert cell.source.splitlines() == [
        "# BEGIN SOLUTION NO PROMPT",
        "answer_ex_ch2_wavelength = 2 * math.pi * 10000 ** (2 * 3 / 64)",
        "# END SOLUTION",
        '""" # BEGIN PROMPT',
        "answer_ex_ch2_wavelength = None  # your wavelength of pair 3, a float",
        '"""; # END PROMPT',
        "exercises.check_wavelength(answer_ex_ch2_wavelength, i=3, d_model=64)",
    ]
    tests = [c.source for c in nb.cells if "def test_" in c.source and "answer_ex_ch2_wavelength" in c.source]
    assert [t.splitlines()[0] for t in tests] == ['""" # BEGIN TEST CONFIG', "# HIDDEN"]
    assert "points: 0" in tests[0]
    assert tests[1].endswith("assert_check(exercises.check_wavelength, answer_ex_ch2_wavelength, i=3, d_model=64)")


def test_the_solution_is_the_chapter_s_without_its_asserts_and_glue():
    ex = _assignments.Exercise(
        "ex-ch9-demo",
        "x.ipynb",
        "prompt",
        starter="n = 3\nanswer = 0  # your count\nexercises.check_turned_pairs(answer, n, original_max_len=8)",
        solution_code=[
            "found = 2\nunused = found + 1\nassert unused > 1\nglue('x', found)",
            "assert exercises.check_turned_pairs(found, n, original_max_len=8)\nprint('after')",
        ],
    )
    graded = _assignments.graded_code(ex)
    assert graded.answers == {"answer": "answer_ex_ch9_demo"}
    assert graded.cell.splitlines() == [
        "n = 3",
        "# BEGIN SOLUTION NO PROMPT",
        "found = 2",
        "answer_ex_ch9_demo = found",
        "# END SOLUTION",
        '""" # BEGIN PROMPT',
        "answer_ex_ch9_demo = 0  # your count",
        '"""; # END PROMPT',
        "exercises.check_turned_pairs(answer_ex_ch9_demo, n, original_max_len=8)",
    ]
    assert graded.test.startswith("def test_NAME(answer_ex_ch9_demo, n):")
    ex.solution_code = ["found = 2"]
    with pytest.raises(ValueError, match="ex-ch9-demo: no solution cell asserts exercises.check_turned_pairs"):
        _assignments.graded_code(ex)
    ex.starter = "answer = 0"
    with pytest.raises(ValueError, match="must end with its exercises.check_"):
        _assignments.graded_code(ex)


def test_rename_changes_names_only():
    code = 'answer = f(answer, key=answer)\nx.answer = "answer"  # answer\ng(answer=1)\n'
    assert _assignments.rename(code, {"answer": "a_ex"}) == (
        'a_ex = f(a_ex, key=a_ex)\nx.answer = "answer"  # answer\ng(answer=1)\n'
    )
    fstring = 'print(f"p = {answer}: {x.answer} {answer!r:>4} {{answer}}", "answer")'
    assert _assignments.rename(fstring, {"answer": "a_ex"}) == (
        'print(f"p = {a_ex}: {x.answer} {a_ex!r:>4} {{answer}}", "answer")'
    )


def test_every_name_a_master_reads_is_bound_before(masters):
    for name, nb in masters.items():
        assert classroom.unbound_names(nb) == [], name


def test_a_name_the_tests_read_must_be_bound_once(masters):
    nb = nbformat.from_dict(masters["part1-why-position"])
    nb.cells.append(nbformat.v4.new_code_cell("perm = [0, 1, 2, 3]"))
    with pytest.raises(ValueError, match=r"bound by several cells: \['perm'\]"):
        classroom._refuse_rebound_names_read_by_tests(nb)


def _question_blocks(nb):
    """(question name, its prompt's Markdown, the code of its hidden solution) of every question."""
    blocks, current = [], None
    for cell in nb.cells:
        if cell.cell_type == "raw" and cell.source.startswith("# BEGIN QUESTION"):
            current = [yaml.safe_load(cell.source)["name"], [], [], True]
            blocks.append(current)
        elif current is None:
            continue
        elif cell.cell_type == "raw" and cell.source.startswith("# BEGIN SOLUTION"):
            current[3] = False
        elif cell.cell_type == "markdown":
            (current[1] if current[3] else current[2]).append(cell.source)
    return [
        (name, "\n".join(prompt), "\n".join(re.findall(r"```python\n(.*?)```", "\n".join(sol), re.S)))
        for name, prompt, sol, _ in blocks
    ]


#: Words a prompt writes in backticks that name no variable: notation (`X[perm]` for every X) and a
#: function's parameters (`factor` 2, `fraction` 0.25, "for `x` of shape ...").
NOT_VARIABLES = {"X", "x", "factor", "fraction"}


def test_every_name_a_prompt_or_a_hand_graded_solution_reads_is_defined_in_the_assignment_or_linked(masters):
    import builtins

    from book import attention, encodings, experiments, models, numerics, results, scaling, tasks

    modules = (attention, encodings, exercises, experiments, models, numerics, results, scaling, tasks)
    for name, nb in masters.items():
        code = [c.source for c in nb.cells if c.cell_type == "code" and "def test_" not in c.source]
        defined = set().union(*(classroom._cell_names(src)[0] for src in code)) | set(dir(builtins))
        defined |= classroom.IPYTHON_NAMES
        assert "](#" not in json.dumps(nb.cells), f"{name}: a link to an anchor the assignment lacks"
        for question, prompt, solution in _question_blocks(nb):
            words = {w for w in _assignments.prompt_names(prompt) if not any(hasattr(m, w) for m in modules)}
            words -= NOT_VARIABLES
            _, now, later = classroom._cell_names(solution) if solution.strip() else (set(), set(), set())
            note = re.search(r"This exercise uses (.*?) from the earlier cells of \[chapter \d+\]\((\S+)\)", prompt)
            noted = set(re.findall(r"`(\w+)`", note.group(1))) if note else set()
            if note:
                assert re.fullmatch(r"https://\S+/notebooks/\d\d_\w+\.html", note.group(2)), note.group(2)
            assert (words | now | later) - defined <= noted, f"{name} {question}: {(words | now | later) - defined}"
            assert not noted & defined, f"{name} {question}: names the assignment defines: {noted & defined}"


def test_a_prompt_name_the_assignment_lacks_is_named_with_the_chapter_s_link(monkeypatch):
    ex = _assignments.Exercise(
        "ex-ch6-new", "06_rope.ipynb", "### Exercise 6.9 (x)\n\nChange `layer` with `torch`.", solution_code=["y = w_q"]
    )
    monkeypatch.setitem(_assignments.RUBRICS, "ex-ch6-new", ("One.",))
    cells = _assignments.question_cells(ex, {"torch"}, "https://site/")
    assert (
        "This exercise uses `layer`, `w_q` from the earlier cells of [chapter 6](https://site/notebooks/06_rope.html)"
        in cells[1].source
    )
    assert "This exercise uses" not in _assignments.question_cells(ex, {"torch", "layer", "w_q"}, "s/")[1].source


def test_the_master_lists_the_wheel_and_the_requirement_installs_the_book_from_the_zip_s_copy(masters):
    nb = _assignments.with_files(masters["part1-why-position"], ["book-1.0-py3-none-any.whl"])
    config = yaml.safe_load(nb.cells[0].source)
    assert config["files"] == ["book-1.0-py3-none-any.whl"] and config["name"] == "part1-why-position"
    assert "files" not in yaml.safe_load(masters["part1-why-position"].cells[0].source)  # a copy
    assert _assignments.wheel_requirement("book-1.0-py3-none-any.whl") == (
        "book[notebooks] @ file:///autograder/source/files/book-1.0-py3-none-any.whl"
    )
    tests = ["from book.classroom import assert_check\nassert_check(exercises.check_wavelength, a)"]
    assert _assignments.names_tests_import(tests) == {
        "book.classroom.assert_check",
        "book.exercises.check_wavelength",
    }


def test_a_reasoning_exercise_without_a_rubric_is_refused():
    ex = _assignments.Exercise("ex-ch1-new", "x.ipynb", "Why?", solution_text=["Because."])
    with pytest.raises(ValueError, match="ex-ch1-new has no self-check and no rubric"):
        _assignments.question_cells(ex)


def test_assert_check_raises_with_the_check_s_hint(capsys):
    classroom.assert_check(exercises.check_rope_angle, 100 * 10000 ** (-2 * 8 / 64), m=100, i=8, d_model=64)
    with pytest.raises(AssertionError, match="That is the angle in degrees"):
        classroom.assert_check(exercises.check_rope_angle, 572.9577951308232, m=100, i=8, d_model=64)
    with pytest.raises(ValueError, match="i must"):  # a wrong call is not a wrong answer
        classroom.assert_check(exercises.check_rope_angle, 1.0, m=100, i=99, d_model=64)
    with pytest.raises(AssertionError, match="returned None"):
        classroom.assert_check(lambda: None)
    assert capsys.readouterr().out == ""


def test_the_assignments_command_is_in_the_help_and_needs_the_book():
    helped = subprocess.run([sys.executable, "-m", "book.classroom", "--help"], capture_output=True, text=True)
    assert "assignments OUT_DIR" in helped.stdout
    result = subprocess.run(
        [sys.executable, "-m", "book.classroom", "assignments", "out", "--root", str(ROOT / "reader")],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2 and "no _toc.yml" in result.stderr


def test_questions_read_otter_s_points_and_manual_flags(masters):
    """The points are otter's: POINTS for an autograded question, one a rubric line for one graded by hand."""
    for nb in masters.values():
        found = classroom.questions(nb)
        assert [q.name for q in found] == list(_questions(nb))
        for q in found:
            label = q.name.removesuffix("-written")
            if not q.manual:
                assert q.points == _assignments.POINTS
            elif q.name.endswith("-written"):
                assert q.points == len(_assignments.WRITTEN_PARTS[label])
            else:
                assert q.points == len(_assignments.RUBRICS[label])
    part1 = classroom.questions(masters["part1-why-position"])
    assert part1 == [
        classroom.Question("ex-ch1-permutation", 2, False),
        classroom.Question("ex-ch1-cross", 2, True),
        classroom.Question("ex-ch1-pool", 2, True),
    ]


@pytest.mark.parametrize(
    "config, message",
    [("points: 2", "needs a name"), ("name: q\npoints: -1", "0 or more"), ("name: q\npoints: true", "whole number")],
)
def test_a_malformed_question_is_refused_clearly(config, message):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_raw_cell(f"# BEGIN QUESTION\n{config}")])
    with pytest.raises(ValueError, match=message):
        classroom.questions(nb)
    with pytest.raises(TypeError, match="nb must be a notebook"):
        classroom.questions("part1.ipynb")


def test_assignment_questions_needs_the_book_s_repository(tmp_path):
    with pytest.raises(TypeError, match="root must be a path"):
        classroom.assignment_questions(None)
    with pytest.raises(FileNotFoundError, match="no _toc.yml"):
        classroom.assignment_questions(tmp_path)


# --- the answer key (written in full by a background job: tests/notebooks/test_answer_key.py) ---


def _wavelength(solution: str) -> _assignments.Exercise:
    """Chapter 2's wavelength exercise with ``solution`` as its solution code."""
    return _assignments.Exercise(
        "ex-ch2-wavelength",
        "02_sinusoidal.ipynb",
        "### A wavelength by hand",
        starter="answer = None\nexercises.check_wavelength(answer, i=3, d_model=64)",
        solution_code=[solution + "\nassert exercises.check_wavelength(answer, i=3, d_model=64)"],
    )


def test_the_key_s_expected_values_come_from_running_the_solution_through_its_check():
    from book import _answer_key

    right = _answer_key.expected_values(
        [_wavelength("answer = 2 * math.pi * 10000 ** (2 * 3 / 64)")], _assignments.SETUP
    )
    expected = right["ex-ch2-wavelength"]
    assert expected.values == {"answer_ex_ch2_wavelength": repr(2 * 3.141592653589793 * 10000 ** (6 / 64))}
    assert expected.verdict.startswith("Correct! Pair 3 repeats every")
    with pytest.raises(RuntimeError, match="its check does not accept its solution"):
        _answer_key.expected_values([_wavelength("answer = 10000 ** (2 * 3 / 64)")], _assignments.SETUP)
    with pytest.raises(RuntimeError, match="its solution failed: NameError"):
        _answer_key.expected_values([_wavelength("answer = nowhere")], _assignments.SETUP)


def test_the_key_command_refuses_a_folder_without_the_book(tmp_path):
    with pytest.raises(FileNotFoundError, match="no _toc.yml"):
        classroom.write_answer_key(tmp_path, tmp_path / "key")
    result = subprocess.run(
        [sys.executable, "-m", "book.classroom", "key", str(tmp_path / "key"), "--root", str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2 and "no _toc.yml" in result.stderr
    assert not (tmp_path / "key").exists()
