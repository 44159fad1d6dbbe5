"""The reader editions beside the built website: the same values, references and
citations, and launch and download links that open the committed reader edition."""

from __future__ import annotations

import collections
import re
from pathlib import Path

import nbformat
import pytest
from bs4 import BeautifulSoup

from book import editions
from tests.unit.test_editions import INDEX, ROOT, SOURCES, links, markdown_of, page_of


@pytest.fixture(scope="module")
def readers():
    """(reader edition, glue values inlined) of every chapter and the teachers' page."""
    out = {}
    for path in SOURCES:
        pasted: list[str] = []
        out[path] = (editions.reader_edition(nbformat.read(path, as_version=4), path.name, INDEX, pasted), pasted)
    return out


def _site_texts(html: Path, page: str):
    soup = BeautifulSoup((html / page).read_text(encoding="utf-8"), "html.parser")
    pasted = [s.get_text() for s in soup.select("span.pasted-text")]
    refs = collections.defaultdict(set)
    cites = set()
    for a in soup.select("article a.reference.internal"):
        href, text = a.get("href", ""), " ".join(a.get_text(" ", strip=True).split())
        if "references.html#" in href:
            cites.add(text.replace(" ,", ","))
        elif "#" in href:
            refs[href.split("#", 1)[1]].add(text)
    return pasted, refs, cites


@pytest.mark.slow
def test_reader_editions_show_what_the_website_shows(built_site, readers):
    html, result = built_site
    assert result.returncode == 0, result.stdout[-3000:]
    for path in SOURCES:
        nb, pasted = readers[path]
        site_pasted, site_refs, site_cites = _site_texts(html, page_of(path))
        assert pasted == site_pasted, f"{path.name}: inlined values differ from the website's, or their order"
        md = markdown_of(nb)
        at = 0  # ... and each is in the written text, in that order
        for value in pasted:
            found = md.find(value, at)
            assert found >= 0, f"{path.name}: {value!r} is not in the reader edition after offset {at}"
            at = found + len(value)
        for text, href in links(md):
            if not href.startswith("http"):
                doc, _, label = href.partition("#")
                assert not doc or doc in {p.name for p in SOURCES}, href
                if label:
                    assert text in site_refs.get(label, ()), (path.name, label, text, site_refs.get(label))
            elif href.startswith(INDEX.site):
                page, _, target = href.removeprefix(INDEX.site).partition("#")
                assert (html / page).is_file(), href
                if page == "references.html" and re.search(r"\d{4}\)?$", text):  # a citation
                    assert text.strip("()") in site_cites or any(
                        text.endswith(f"({c.split(', ')[-1]})") for c in site_cites
                    ), (path.name, text)
                if target:
                    assert f'id="{target}"' in (html / page).read_text(encoding="utf-8"), href


@pytest.mark.slow
def test_launch_and_download_links_open_the_reader_edition(built_site):
    import book

    html, result = built_site
    assert result.returncode == 0, result.stdout[-3000:]
    tag = f"v{book.__version__}"
    for path in SOURCES:
        soup = BeautifulSoup((html / page_of(path)).read_text(encoding="utf-8"), "html.parser")
        links = [a["href"] for a in soup.select(".header-article a[href], .dropdown-menu a[href]")]
        binder = [h for h in links if "mybinder.org" in h]
        colab = [h for h in links if "colab.research.google.com" in h]
        download = [h for h in links if h.endswith(".ipynb") and not h.startswith("http")]
        assert binder == [
            f"https://mybinder.org/v2/gh/positional-encoding-interactively/book/{tag}"
            f"?urlpath=lab/tree/reader/{path.name}"
        ], binder
        # Colab opens the file alone: not offered for a page that reads the repository (the teachers')
        alone = not nbformat.read(path, as_version=4).metadata.get("book", {}).get("needs_repository")
        assert alone == (path.name != "teachers.ipynb")
        assert (
            colab
            == [
                f"https://colab.research.google.com/github/positional-encoding-interactively/book/blob/"
                f"{tag}/reader/{path.name}"
            ]
            * alone
        ), colab
        assert (
            len(download) == 1
            and (html / page_of(path)).parent.joinpath(download[0]).resolve() == (html / "reader" / path.name).resolve()
        ), download
        # each launch link opens a file that is committed at that path, and the download is the same file
        assert (ROOT / "reader" / path.name).is_file()
        assert (html / "reader" / path.name).read_bytes() == (ROOT / "reader" / path.name).read_bytes()
