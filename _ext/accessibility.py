"""Fix what axe-core's WCAG 2.1 A and AA audit finds in the theme's and tools' HTML.

``tests/site/test_accessibility.py`` runs axe-core on every page of the built
site. What it found comes from packages the book does not edit, so this
extension corrects the HTML they write, at build time, without touching them:

* **The sidebar's toggles** (pydata-sphinx-theme's ``add_collapse_checkboxes``)
  are ``<summary>`` elements holding only a decorative chevron: no accessible
  name (WCAG 4.1.2). Each gets ``aria-label="Pages under <its link's text>"``.
* **Citations on the references page** (docutils' HTML writer) carry
  ``role="doc-biblioentry"`` inside ``role="list"``. DPUB-ARIA deprecated that
  role (changelog of 23 July 2020: it cannot be a child of a list; use
  ``listitem``), so the list has no valid items (WCAG 1.3.1, 4.1.2). The
  entries become ``role="listitem"``.
* **Hidden code cells' toggles** (myst-nb's ``visit_HideCellInput``, on the
  teachers' page) are ``<summary aria-label="Toggle hidden content">`` showing
  "Show code cell source": a name that leaves out the text shown (WCAG 2.5.3,
  label in name). The ``aria-label`` goes; the name is the text shown.
* **The animation player's slider** (matplotlib's ``Animation.to_jshtml``,
  chapter 3) is an ``<input type="range">`` without a label (WCAG 4.1.2). It
  gets ``aria-label="Animation frame"``, here, so that the chapter's stored
  output stays as the code wrote it.
* **The search button and the colour-mode button** (pydata-sphinx-theme's
  components ``search-button-field.html`` and ``theme-switcher.html``) have an
  ``aria-label`` that leaves out the text they show ("Ctrl+K"; the icon's
  title "Light", "Dark" or "System Settings"), which WCAG 2.5.3 (label in
  name) forbids. ``accessibility_templates/`` holds both templates (pydata-sphinx-theme puts
  its ``components`` folder on ``templates_path``; this folder comes first)
  with only that changed; ``tests/site/test_accessibility.py`` checks that they
  still equal the installed theme's but for that change.
* **Links in exercise, proof and admonition boxes**: the theme's link colour
  ``#176de8`` on the exercise box's tint (``rgba(68, 138, 255, 0.1)`` on
  white, ``#ecf3ff``) has a contrast of 4.29:1, below the 4.5:1 of WCAG 1.4.3.
  ``accessibility_static/accessibility.css`` sets the link colour inside such
  boxes, in the light theme, to ``#005a8c``, the palette's Okabe-Ito blue
  ``#0072B2`` darkened; its ratio on every box tint of the theme is in the
  same test.
"""

from __future__ import annotations

import re
from pathlib import Path

from sphinx.application import Sphinx

HERE = Path(__file__).parent
TEMPLATES = HERE / "accessibility_templates"
STATIC = HERE / "accessibility_static"
CSS = "accessibility.css"

#: matplotlib's JS player: ``<input id="_anim_slider<id>" type="range" class="anim-slider"``.
_SLIDER = re.compile(r'(<input id="_anim_slider\w*" type="range" class="anim-slider")(?![^>]*aria-label)')
SLIDER_LABEL = "Animation frame"


#: myst-nb's toggle of a hidden cell: its first child is the text it shows.
HIDDEN_CELL_TOGGLE = '<summary aria-label="Toggle hidden content">\n<p class="collapsed admonition-title">'


def fix_body(body: str) -> str:
    """The page body with the citation entries as list items, the hidden cells'
    toggles named by their text and the animation slider labelled (idempotent)."""
    body = body.replace('role="doc-biblioentry"', 'role="listitem"')
    body = body.replace(HIDDEN_CELL_TOGGLE, HIDDEN_CELL_TOGGLE.replace(' aria-label="Toggle hidden content"', ""))
    return _SLIDER.sub(rf'\1 aria-label="{SLIDER_LABEL}"', body)


def label_toggles(soup) -> None:
    """Give every ``<summary>`` of the sidebar without text a name: the text of the
    link to the page whose subpages it shows and hides."""
    for summary in soup.select("summary"):
        if summary.get_text(strip=True) or summary.get("aria-label"):
            continue
        item = summary.find_parent("li")
        link = item.find("a", recursive=False) if item is not None else None
        title = " ".join(link.get_text().split()) if link is not None else ""
        summary["aria-label"] = f"Pages under {title}" if title else "Subpages"


def _configure(app: Sphinx, config) -> None:
    config.templates_path = [str(TEMPLATES), *config.templates_path]
    config.html_static_path = [*config.html_static_path, str(STATIC)]


def _fix_page(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    if isinstance(context.get("body"), str):
        context["body"] = fix_body(context["body"])
    generate = context.get("generate_toctree_html")  # set by pydata-sphinx-theme (priority 500)
    if generate is None or getattr(generate, "labels_toggles", False):
        return

    def generate_toctree_html(kind: str, *args, **kwargs):
        out = generate(kind, *args, **kwargs)
        if hasattr(out, "select"):  # the sidebar's BeautifulSoup tree (cached per page)
            label_toggles(out)
        return out

    generate_toctree_html.labels_toggles = True  # type: ignore[attr-defined]
    context["generate_toctree_html"] = generate_toctree_html


def setup(app: Sphinx) -> dict:
    app.connect("config-inited", _configure)
    app.connect("html-page-context", _fix_page, priority=900)
    app.add_css_file(CSS, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
