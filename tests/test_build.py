"""The website builds with warnings as errors, offline, from the committed outputs."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def test_book_builds_with_warnings_as_errors(built_site):
    html, result = built_site
    log = result.stdout[-4000:] + result.stderr[-4000:]
    assert result.returncode == 0, f"jupyter-book build failed:\n{log}"
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    pages = [toc["root"]] + [ch["file"] for part in toc["parts"] for ch in part["chapters"]]
    for page in pages:
        assert (html / f"{page}.html").is_file(), f"{page}.html was not built"
    # Notebooks are rendered from stored outputs, never executed by the build.
    assert 'execute_notebooks: "off"' in (ROOT / "_config.yml").read_text()
    assert not (html.parent / ".jupyter_cache").exists()
    # MathJax is served by the site itself (see _ext/offline_mathjax.py).
    assert (html / "_static" / "mathjax" / "tex-chtml.js").is_file()
