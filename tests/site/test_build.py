"""The website builds with warnings as errors, offline, from the committed outputs."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def test_book_builds_with_warnings_as_errors(built_site):
    html, result = built_site
    log = result.stdout[-4000:] + result.stderr[-4000:]
    assert result.returncode == 0, f"jupyter-book build failed:\n{log}"
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())

    def files(entries):
        return [f for e in entries for f in [e["file"], *files(e.get("sections", []))]]

    pages = [toc["root"]] + files(ch for part in toc["parts"] for ch in part["chapters"])
    for page in pages:
        assert (html / f"{page}.html").is_file(), f"{page}.html was not built"
    # Notebooks are rendered from stored outputs, never executed by the build.
    assert not (html.parent / ".jupyter_cache").exists()
    # MathJax is served by the site itself (see _ext/offline_mathjax.py).
    assert (html / "_static" / "mathjax" / "tex-chtml.js").is_file()


def test_library_reference_is_built_with_links(built_site):
    """Every public name has an entry; types link to Python's and PyTorch's docs (vendored inventories);
    the landing page's role links to a function's entry; search from file:// skips the summaries."""
    import importlib
    import pkgutil

    import book

    html, result = built_site
    assert result.returncode == 0
    for mod in (m.name for m in pkgutil.iter_modules(book.__path__) if not m.name.startswith("_")):
        page = (html / "reference" / f"{mod}.html").read_text(encoding="utf-8")
        module = importlib.import_module(f"book.{mod}")
        missing = [n for n in module.__all__ if f'id="book.{mod}.{n}"' not in page]
        assert not missing, f"reference/{mod}.html has no entry for {missing}"
    encodings = (html / "reference" / "encodings.html").read_text(encoding="utf-8")
    assert 'href="https://docs.pytorch.org/docs/2.13/tensors.html#torch.Tensor"' in encodings
    assert 'href="https://docs.python.org/3.11/library/exceptions.html#ValueError"' in encodings
    assert 'href="https://docs.python.org/3.11/library/exceptions.html#TypeError"' in encodings
    tasks = (html / "reference" / "tasks.html").read_text(encoding="utf-8")
    assert 'href="https://docs.pytorch.org/docs/2.13/generated/torch.Generator.html#torch.Generator"' in tasks
    intro = (html / "intro.html").read_text(encoding="utf-8")
    assert 'href="reference/encodings.html#book.encodings.apply_rope"' in intro
    search = (html / "search.html").read_text(encoding="utf-8")
    assert "DOCUMENTATION_OPTIONS.SHOW_SEARCH_SUMMARY = false" in search
    assert "SHOW_SEARCH_SUMMARY = false" not in intro, "the file:// search shim belongs on the search page only"
