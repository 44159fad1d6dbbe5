"""Drop exact duplicate <script> entries from every page.

Under Jupyter Book 1, sphinx-thebe's inline configuration script is added to
each page twice, and the second copy throws "Identifier 'THEBE_JS_URL' has
already been declared" in the browser console. Removing repeated entries
(same file, or same inline body, with the same attributes) fixes that without
touching either package.
"""

from __future__ import annotations

from sphinx.application import Sphinx


def _dedupe(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    scripts = context.get("script_files")
    if not scripts:
        return
    seen, unique = set(), []
    for script in scripts:
        attributes = getattr(script, "attributes", {}) or {}
        name = getattr(script, "filename", None) or ""  # None or "" when inline
        key = (str(name), tuple(sorted((k, str(v)) for k, v in attributes.items())))
        if key not in seen:
            seen.add(key)
            unique.append(script)
    context["script_files"] = unique


def setup(app: Sphinx) -> dict:
    app.connect("html-page-context", _dedupe, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
