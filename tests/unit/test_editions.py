"""Reader editions: no MyST left, code and outputs unchanged, and every inlined
value, reference and citation equal to what the website shows."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import nbformat
import pytest

from book import classroom, editions

ROOT = Path(__file__).resolve().parents[2]
INDEX = editions.BookIndex.from_repository(ROOT)
SOURCES = [ROOT / "notebooks" / name for name in INDEX.chapters] + [ROOT / "guide" / "teachers.ipynb"]
LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]+)\)")
MATH = re.compile(r"\$\$.*?\$\$|\$[^$\n]*\$", re.S)


def links(md: str) -> list[tuple[str, str]]:
    """(text, target) of every Markdown link; math is left out first (``$[1/2, 1)$`` is no link text)."""
    return LINK.findall(MATH.sub("", md))


def page_of(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}.html"


@pytest.fixture(scope="module")
def readers(tmp_path_factory):
    """(reader edition, glue values inlined) of every chapter and the teachers' page."""
    out = {}
    for path in SOURCES:
        pasted: list[str] = []
        out[path] = (editions.reader_edition(nbformat.read(path, as_version=4), path.name, INDEX, pasted), pasted)
    return out


def markdown_of(nb) -> str:
    return "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")


def test_the_index_knows_the_book():
    assert list(INDEX.chapters.values()) == list(range(1, 13))
    assert INDEX.targets["ex-serve-sinks"].text == "Exercise 12.3"
    assert INDEX.targets["ex-ch10-cache"].text == "Exercise 11.3"  # numerics keeps its labels
    assert INDEX.targets["fig-ch8-ranges"].text == "Fig. 8.4"
    assert INDEX.targets["ex-ch3-sines"].text == "Exercise 3.4"
    assert INDEX.targets["thm-ch3-rotation"].text == "Theorem 3.1"
    assert INDEX.citations["vaswani2017attention"] == ("Vaswani et al.", "2017")
    assert INDEX.site.startswith("https://") and INDEX.site.endswith("/")


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_reader_edition_has_no_myst_and_keeps_code_and_outputs(readers, path):
    nb, _ = readers[path]
    nbformat.validate(nb)
    original = nbformat.read(path, as_version=4)
    left = [(p, m.group(0)) for p in editions.MYST_PATTERNS for m in re.finditer(p, markdown_of(nb), flags=re.M)]
    assert not left, f"MyST left in the reader edition: {left[:5]}"
    # nor in cell metadata: a figure's caption stays there for whoever reads it
    captions = "\n".join(c.metadata.get("mystnb", {}).get("figure", {}).get("caption", "") for c in nb.cells)
    left = [(p, m.group(0)) for p in editions.MYST_PATTERNS for m in re.finditer(p, captions, flags=re.M)]
    assert not left, f"MyST left in a figure caption's metadata: {left[:5]}"
    code = [(c.source, c.outputs) for c in nb.cells if c.cell_type == "code"]
    assert code == [
        (c.source, c.outputs)
        for c in original.cells
        if c.cell_type == "code" and editions.WEBSITE_ONLY not in c.metadata.get("tags", [])
    ]
    # every glue role became a value (more: captions and glued tables hold some too),
    # every figure got its caption cell
    assert len(readers[path][1]) >= sum(
        c.source.count("{glue:text}") for c in original.cells if c.cell_type == "markdown"
    )
    n_figures = sum(bool(c.metadata.get("mystnb", {}).get("figure", {}).get("name")) for c in original.cells)
    assert sum(c.source.lstrip().startswith('<a id="fig-') for c in nb.cells) == n_figures


WEBSITE_WORDS = ("no Python kernel", "rocket", "runs in this page", "work in this page")


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_live_twins_and_their_sentences_stay_on_the_website(readers, path):
    """A live twin or computed explorer is HTML with scripts: dead sliders in a notebook, whose own explorer runs instead.
    Its cell and the sentences about it are tagged website-only, and the reader edition drops them."""
    original = nbformat.read(path, as_version=4)
    for cell in original.cells:
        tags = cell.metadata.get("tags", [])
        website_words = cell.cell_type == "markdown" and any(w in cell.source for w in WEBSITE_WORDS)
        if "live_twin(" in cell.source or "computed_explorer(" in cell.source or website_words:
            assert editions.WEBSITE_ONLY in tags, f"{path.name}: tag this cell website-only: {cell.source[:80]!r}"
    nb, _ = readers[path]
    assert not [c for c in nb.cells if editions.WEBSITE_ONLY in c.metadata.get("tags", [])]
    outputs = str([c.outputs for c in nb.cells if c.cell_type == "code"])
    assert 'class="live-twin"' not in outputs and 'class="computed-explorer"' not in outputs
    assert not [w for w in WEBSITE_WORDS if w in markdown_of(nb)]
    if "from book.widgets import" in str([c.source for c in original.cells]):
        # ... and the reader edition says instead how its own explorer runs
        assert "Run the cell above to open the explorer" in markdown_of(nb)


def test_website_only_cells_are_dropped_and_reader_only_cells_kept():
    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell("kept on both"),
            nbformat.v4.new_markdown_cell("only on the website", metadata={"tags": ["website-only"]}),
            nbformat.v4.new_code_cell("x = 1", metadata={"tags": ["website-only", "remove-input"]}),
            nbformat.v4.new_markdown_cell("only in notebooks", metadata={"tags": ["remove-cell"]}),
        ]
    )
    out = editions.reader_edition(nb, "01_order_blind.ipynb", INDEX)
    assert [c.source for c in out.cells] == ["kept on both", "only in notebooks"]
    assert len(nb.cells) == 4  # the source is left as it was


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_every_local_link_has_its_anchor(readers, path):
    anchors = {p.name: set(re.findall(r'<a id="([\w-]+)"></a>', markdown_of(readers[p][0]))) for p in SOURCES}
    for text, href in links(markdown_of(readers[path][0])):
        if href.startswith("http"):
            continue
        doc, _, label = href.partition("#")
        assert (doc or path.name) in anchors, f"{text!r} links to {href}, which is no reader edition"
        assert not label or label in anchors[doc or path.name], f"{text!r} links to {href}, which has no anchor"


def test_solutions_collapse_and_student_copies_drop_them(readers, tmp_path):
    nb, _ = readers[ROOT / "notebooks" / "03_rotation.ipynb"]
    solutions = [c for c in nb.cells if "solution" in c.metadata.get("tags", [])]
    original = nbformat.read(ROOT / "notebooks" / "03_rotation.ipynb", as_version=4)
    starts = [
        c.source for c in solutions if "<summary>Solution to Exercise 3." in c.source and "(continued)" not in c.source
    ]
    assert len(starts) == sum("{solution-start}" in c.source for c in original.cells) > 0
    for cell in nb.cells:  # every Markdown cell of every solution is collapsed
        if cell.cell_type == "markdown" and "solution" in cell.metadata.get("tags", []):
            assert cell.source.startswith("<details>\n<summary>Solution to Exercise 3."), cell.source[:80]
            assert cell.source.endswith("</details>") and cell.source.count("<details>") == 1
    assert all(c.metadata["jupyter"]["source_hidden"] for c in solutions if c.cell_type == "code")
    written = classroom.main(["student", str(tmp_path), "--notebooks", str(ROOT / "notebooks")])
    assert written == 0
    for path in tmp_path.glob("*.ipynb"):
        student = nbformat.read(path, as_version=4)
        assert not re.search("|".join(editions.MYST_PATTERNS), markdown_of(student), flags=re.M)
        assert "<details>" not in markdown_of(student)


def test_bad_input_is_refused_clearly(tmp_path):
    nb = nbformat.read(SOURCES[0], as_version=4)
    with pytest.raises(TypeError, match="nb must be a notebook"):
        editions.reader_edition(str(SOURCES[0]), SOURCES[0].name, INDEX)
    with pytest.raises(ValueError, match="doc must be"):
        editions.reader_edition(nb, None, INDEX)
    with pytest.raises(TypeError, match="index must be a BookIndex"):
        editions.reader_edition(nb, SOURCES[0].name, None)
    with pytest.raises(TypeError, match="pasted must be a list"):
        editions.reader_edition(nb, SOURCES[0].name, INDEX, pasted=())
    with pytest.raises(TypeError, match="out_dir must be a path"):
        editions.write_reader_notebooks(ROOT, None)
    (tmp_path / "file").write_text("")
    with pytest.raises(ValueError, match="out_dir must be a folder"):
        editions.write_reader_notebooks(ROOT, tmp_path / "file")
    with pytest.raises(ValueError, match="must differ"):
        editions.write_reader_notebooks(ROOT, ROOT)


def test_reader_command_writes_every_chapter_and_the_teachers_page(tmp_path, capsys):
    assert classroom.main(["reader", str(tmp_path), "--root", str(ROOT)]) == 0
    assert sorted(p.name for p in tmp_path.glob("*.ipynb")) == sorted(p.name for p in SOURCES)
    with pytest.raises(SystemExit):
        classroom.main(["reader", str(ROOT / "notebooks"), "--root", str(ROOT)])
    assert "must differ" in capsys.readouterr().err


@pytest.mark.parametrize(
    "source, message",
    [
        ("```{figure} a.png\n```", "the directive {figure}"),
        ("Text {eq}`x`.", "the role {eq}"),
        ("See {numref}`fig-nowhere`.", "unknown reference target"),
        ("As {cite:p}`nobody2099`.", "unknown citation keys"),
        ("It is {glue:text}`missing_key`.", "no glued value"),
        (":::{note}\nHi\n:::", "colon-fence"),
        ("```{exercise} No label\nText\n```", "needs a :label:"),
        ("````{solution-start} ex-nowhere\n````", "unknown reference target"),
        ("> ```{note}\n> Hi\n> ```", "has no plain-Markdown form"),
        ("Hello {{ name }}.", "has no plain-Markdown form"),
        ("+++", "has no plain-Markdown form"),
    ],
)
def test_unknown_markup_raises_instead_of_leaking(source, message):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(source)])
    with pytest.raises(ValueError, match=re.escape(message)):
        editions.reader_edition(nb, "x.ipynb", INDEX)


def test_glue_values_are_formatted_as_myst_nb_formats_them():
    glued = nbformat.v4.new_code_cell(
        "",
        outputs=[
            nbformat.v4.new_output(
                "display_data", data={"text/plain": "1234567"}, metadata={"scrapbook": {"name": "n", "mime_prefix": ""}}
            ),
            nbformat.v4.new_output(
                "display_data", data={"text/plain": "'a b'"}, metadata={"scrapbook": {"name": "s", "mime_prefix": ""}}
            ),
        ],
    )
    nb = nbformat.v4.new_notebook(
        cells=[glued, nbformat.v4.new_markdown_cell("{glue:text}`n:,` and {glue:text}`s` and `{glue:text}` in code")]
    )
    assert editions.reader_edition(nb, "x.ipynb", INDEX).cells[1].source == (
        "1,234,567 and a b and `{glue:text}` in code"
    )


# ---------------------------------------------------------------------------
# Against the website: the same values, references and citations.
def test_committed_reader_editions_are_current(tmp_path):
    """reader/ (what Binder, Colab and the download button open) is what `make reader` writes now."""
    classroom.write_reader_notebooks(ROOT, tmp_path)
    committed = sorted(p.name for p in (ROOT / "reader").glob("*.ipynb"))
    assert committed == sorted(p.name for p in tmp_path.glob("*.ipynb")), "run make reader"
    stale = [
        name
        for name in committed
        if nbformat.read(ROOT / "reader" / name, as_version=4) != nbformat.read(tmp_path / name, as_version=4)
    ]
    assert not stale, f"reader editions out of date (run make reader): {stale}"


def test_library_links_name_the_reference_page_and_anchor():
    """Modules link to autodoc's ``module-`` anchor on their page; other names to their own id."""
    page = f"{INDEX.site}reference/"
    assert INDEX.reference_url("book") == f"{page}index.html#module-book"
    assert INDEX.reference_url("book.setup") == f"{page}index.html#book.setup"
    assert INDEX.reference_url("book.tasks") == f"{page}tasks.html#module-book.tasks"
    assert INDEX.reference_url("book.tasks.local_sum") == f"{page}tasks.html#book.tasks.local_sum"
    with pytest.raises(ValueError, match="a name in book"):
        INDEX.reference_url("torch.nn")


def test_teachers_edition_runs_in_the_repository_and_says_why_not_alone(tmp_path):
    """The teachers' page reads the chapters' sources: beside ``reader/`` in a clone it runs, alone
    it stops at once with a message that says where to run it (and the edition says so in words)."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    nb = nbformat.read(ROOT / "reader" / "teachers.ipynb", as_version=4)
    assert "runs in a clone of the book's repository" in markdown_of(nb)
    (tmp_path / "alone").mkdir()
    with pytest.raises(CellExecutionError, match="run it from guide/ or reader/ in a clone"):
        NotebookClient(
            copy.deepcopy(nb), timeout=120, resources={"metadata": {"path": str(tmp_path / "alone")}}
        ).execute()
    (tmp_path / "clone" / "reader").mkdir(parents=True)
    # what the page reads: the chapters, the table of contents and the files the assignments are built
    # from, with the sources of the book's wheel that every assignment ships
    from book._assignments import WHEEL_SOURCES

    for name in ("notebooks", "_toc.yml", "_config.yml", "references.bib", "requirements.txt", *WHEEL_SOURCES):
        (tmp_path / "clone" / name).symlink_to(ROOT / name)
    NotebookClient(nb, timeout=300, resources={"metadata": {"path": str(tmp_path / "clone" / "reader")}}).execute()


def test_an_entry_with_no_author_is_cited_by_its_title_and_no_date(tmp_path):
    """As the website's author-year style: the title stands in for the authors, "n.d." for the year."""
    bib = tmp_path / "refs.bib"
    bib.write_text(
        "@misc{post, title = {{A} post}, howpublished = {Blog post}}\n"
        "@misc{paper, author = {Ada Lovelace and Alan Turing}, title = {T}, year = {1950}}\n",
        encoding="utf-8",
    )
    found = editions._bibliography(bib)
    assert found["post"] == ("A post", "n.d.")
    assert found["paper"] == ("Lovelace and Turing", "1950")
