"""Launch and download buttons open a chapter's reader edition.

The reader editions (``reader/*.ipynb``, written by ``python -m book.classroom
reader reader`` and committed; ``tests/unit/test_editions.py`` checks they are
current) read without MyST. On every page that has one, this extension points
the theme's Binder and Colab buttons at that file, at the git tag of this
edition (``v`` + ``book.__version__``), and the ``.ipynb`` download button at
its copy in the site (``reader/`` is copied into the build), so no reader is
handed the MyST source. On the student site (sphinx-exercise's
``hide_solutions`` on, ``_config_student.yml``) the launch buttons are
removed, since they open the full editions on GitHub, and the copies in the
site leave out every cell tagged ``solution``. A notebook whose metadata says
``"book": {"needs_repository": true}`` (the teachers' page, which reads the
chapters' sources) gets no Colab button: Colab opens the file alone, while
Binder opens a clone of the repository.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from urllib.parse import quote

from sphinx.application import Sphinx

FOLDER = "reader"


def _edition_tag() -> str:
    import book

    return f"v{book.__version__}"


def _repo(app: Sphinx) -> tuple[str, str]:
    url = app.config.html_theme_options.get("repository_url", "")
    org, repo = url.rstrip("/").split("github.com/")[-1].split("/")[:2]
    return org, repo


def _point_buttons(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    if app.config.hide_solutions:  # the student site: no button opens an edition with its solutions
        context["header_buttons"] = [g for g in context.get("header_buttons", []) if g.get("label") != "launch-buttons"]
    name = f"{Path(pagename).name}.ipynb"
    if not (Path(app.srcdir) / FOLDER / name).is_file() or context.get("page_source_suffix") != ".ipynb":
        return
    org, repo = _repo(app)
    tag, path = _edition_tag(), f"{FOLDER}/{name}"
    metadata = json.loads((Path(app.srcdir) / path).read_text(encoding="utf-8"))["metadata"]
    alone = not metadata.get("book", {}).get("needs_repository", False)
    for group in context.get("header_buttons", []):
        if group.get("label") == "launch-buttons" and not alone:
            group["buttons"] = [b for b in group.get("buttons", []) if b.get("text") != "Colab"]
        for button in group.get("buttons", []):
            if group.get("label") == "launch-buttons" and button.get("text") == "Binder":
                base = button["url"].split("/v2/")[0]
                button["url"] = f"{base}/v2/gh/{org}/{repo}/{tag}?urlpath={quote(f'lab/tree/{path}')}"
            elif group.get("label") == "launch-buttons" and button.get("text") == "Colab":
                base = button["url"].split("/github/")[0]
                button["url"] = f"{base}/github/{org}/{repo}/blob/{tag}/{path}"
            elif button.get("label") in ("download-source-button", "download-notebook-button"):
                button["url"] = context["pathto"](path, 1)
                button["tooltip"] = "Download the notebook (reader edition)"


def _copy_editions(app: Sphinx, exception) -> None:
    if exception is None and app.builder.format == "html":
        target = Path(app.outdir) / FOLDER
        target.mkdir(exist_ok=True)
        for path in sorted((Path(app.srcdir) / FOLDER).glob("*.ipynb")):
            if not app.config.hide_solutions:
                shutil.copy2(path, target / path.name)
                continue
            edition = json.loads(path.read_text(encoding="utf-8"))
            edition["cells"] = [c for c in edition["cells"] if "solution" not in c.get("metadata", {}).get("tags", [])]
            (target / path.name).write_text(json.dumps(edition, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def setup(app: Sphinx) -> dict:
    app.setup_extension("sphinx_exercise")  # its hide_solutions config value
    app.connect("html-page-context", _point_buttons, priority=900)  # after the theme builds the buttons
    app.connect("build-finished", _copy_editions)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
