"""Search without console errors when the site is opened from ``file://``.

Sphinx's search page fetches each result page to show a summary under its
link. Opened from the folder of files (``file://``), the browser blocks those
requests (CORS) and logs one console error per result; the results themselves
work, since the index is a script. This extension adds a few lines to the
search page only, which turn the summaries off when the page's protocol is
``file:``. On a served site (``http``/``https``) nothing changes.
"""

from __future__ import annotations

from sphinx.application import Sphinx

#: Runs after documentation_options.js has defined DOCUMENTATION_OPTIONS and
#: before the search runs (searchtools.js reads the option for each result).
SHIM = (
    'if (window.location.protocol === "file:" && typeof DOCUMENTATION_OPTIONS !== "undefined") '
    "{ DOCUMENTATION_OPTIONS.SHOW_SEARCH_SUMMARY = false; }"
)


def _add_shim(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    if pagename == "search":
        app.add_js_file(None, body=SHIM, priority=900)


def setup(app: Sphinx) -> dict:
    app.connect("html-page-context", _add_shim)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
