"""The fixes of ``_ext/accessibility.py`` without a browser: what they change in
the HTML, that the overridden theme templates still equal the installed
theme's but for the label, and the contrast of the links in tinted boxes.

``tests/site/test_accessibility.py`` runs axe-core on the built pages; these
checks say why each fix holds, and fail early when a theme upgrade moves it.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "_ext"))
import accessibility  # noqa: E402  (the Sphinx extension, from _ext/)

sys.path.remove(str(ROOT / "_ext"))


def _package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.origin, f"{name} is not installed"
    return Path(spec.origin).parent


# --- WCAG 2 contrast (https://www.w3.org/TR/WCAG21/#dfn-contrast-ratio) --------------------------


def _channel(c: float) -> float:
    c /= 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def luminance(rgb: tuple[float, float, float]) -> float:
    """WCAG 2's relative luminance of an sRGB colour (channels 0-255)."""
    r, g, b = map(_channel, rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: tuple[float, float, float], b: tuple[float, float, float]) -> float:
    """WCAG 2's contrast ratio, (L1 + 0.05) / (L2 + 0.05), L1 the lighter."""
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def over(rgba: tuple[float, float, float, float], below: tuple[float, float, float]) -> tuple[float, ...]:
    """A translucent colour composited over an opaque one."""
    *rgb, alpha = rgba
    return tuple(alpha * x + (1 - alpha) * y for x, y in zip(rgb, below))


def hex_rgb(text: str) -> tuple[int, int, int]:
    return tuple(int(text.lstrip("#")[i : i + 2], 16) for i in (0, 2, 4))


WHITE = (255, 255, 255)


def box_tints() -> dict[str, tuple[float, ...]]:
    """Every tint the light theme paints behind a box's text, composited on the white
    page: sphinx-exercise's exercise (its body, and its title on top of it),
    sphinx-proof's title colours, and pydata-sphinx-theme's admonition-title tints."""
    css = next(_package_dir("sphinx_exercise").rglob("exercise.css")).read_text()
    note = tuple(float(x) for x in re.search(r"--note-title-color:\s*rgba\(([^)]*)\)", css).group(1).split(","))
    exercise = over(note, WHITE)
    tints = {"exercise": exercise, "exercise title": over(note, exercise)}
    proof = next(_package_dir("sphinx_proof").rglob("proof.css")).read_text()
    for name, values in re.findall(r"--(\w+)-title-color:\s*rgba?\(([^)]*)\)", proof):
        parts = [float(x) for x in values.split(",")]
        tints[f"proof {name}"] = over(tuple(parts), WHITE) if len(parts) == 4 else tuple(parts)
    pydata = (
        _package_dir("pydata_sphinx_theme") / "theme" / "pydata_sphinx_theme" / "static" / "styles"
    ) / "pydata-sphinx-theme.css"
    light = re.search(r"html\[data-theme=light\]\{([^}]*)\}", pydata.read_text()).group(1)
    for name, value in re.findall(r"--pst-color-(\w+)-bg:(#[0-9a-f]{6})", light):
        tints[f"admonition {name}"] = hex_rgb(value)
    return tints


def test_contrast_formula_gives_what_axe_measured_on_the_theme():
    """The theme's link colour on an exercise box: axe-core reported 4.29:1."""
    exercise = box_tints()["exercise"]
    assert round(contrast(hex_rgb("#176de8"), exercise), 2) == pytest.approx(4.29, abs=0.01)
    assert contrast((0, 0, 0), WHITE) == pytest.approx(21.0)


def test_links_in_boxes_have_a_contrast_of_4_5_on_every_tint():
    css = (accessibility.STATIC / accessibility.CSS).read_text()
    colour = re.search(r"--pst-color-link:\s*(#[0-9a-fA-F]{6})", css).group(1)
    tints = box_tints()
    assert len(tints) >= 20, sorted(tints)  # the three packages' tints were all found
    ratios = {name: contrast(hex_rgb(colour), bg) for name, bg in tints.items()}
    low = {name: round(r, 2) for name, r in ratios.items() if r < 4.5}
    assert not low, f"{colour} is below 4.5:1 on {low}"
    assert ratios["exercise"] > 6.5, ratios["exercise"]  # 6.64: room on the box where axe found 4.29
    theme = {name: round(contrast(hex_rgb("#176de8"), bg), 2) for name, bg in tints.items()}
    assert min(theme.values()) < 4.5, "the check cannot fail: the theme's own colour passes everywhere"


# --- the HTML fixes ------------------------------------------------------------------------------


def test_fix_body_labels_the_slider_and_makes_citations_list_items():
    body = (
        '<div role="list" class="citation-list">\n<div class="citation" id="id2" role="doc-biblioentry">\n'
        '<input id="_anim_slider0a1b" type="range" class="anim-slider"\n name="points">\n'
        '<summary aria-label="Toggle hidden content">\n<p class="collapsed admonition-title">Show code cell source</p>'
    )
    fixed = accessibility.fix_body(body)
    assert 'role="doc-biblioentry"' not in fixed and 'role="listitem"' in fixed
    assert 'class="anim-slider" aria-label="Animation frame"' in fixed
    assert "<summary>\n<p class" in fixed and "Toggle hidden content" not in fixed
    assert accessibility.fix_body(fixed) == fixed  # idempotent: one label, not two


def test_sidebar_toggles_get_the_name_of_their_page():
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(
        '<li class="toctree-l1 has-children"><a class="reference internal" href="r.html">Library\n reference</a>'
        '<details><summary><span class="toctree-toggle" role="presentation"><i></i></span></summary></details></li>'
        '<li><details><summary><p class="caption">Part</p></summary></details></li>',
        "html.parser",
    )
    accessibility.label_toggles(soup)
    summaries = soup.select("summary")
    assert summaries[0]["aria-label"] == "Pages under Library reference"
    assert not summaries[1].has_attr("aria-label")  # it has text: its name


@pytest.mark.parametrize(
    ("template", "original", "changed"),
    [
        (
            "search-button-field.html",
            """ title="{{ _('Search') }}" aria-label="{{ _('Search') }}" data-bs""",
            """ title="{{ _('Search') }}" data-bs""",
        ),
        (
            "theme-switcher.html",
            """aria-label="{{ _('Color mode') }}" data-bs-title""",
            """aria-label="{{ _('Color mode') }}: {{ _('Light') }}, {{ _('Dark') }} {{ _('or') }}"""
            """ {{ _('System Settings') }}" data-bs-title""",
        ),
    ],
)
def test_overridden_templates_are_the_themes_but_for_the_label(template, original, changed):
    """If pydata-sphinx-theme changes the component, this fails: re-copy it and
    reapply the one change (see _ext/accessibility.py)."""
    ours = (accessibility.TEMPLATES / template).read_text()
    header, _, body = ours.partition("\n")
    assert header.startswith("{# pydata-sphinx-theme") and "_ext/accessibility.py" in header
    theirs = (
        _package_dir("pydata_sphinx_theme") / "theme" / "pydata_sphinx_theme" / "components" / template
    ).read_text()
    assert original in theirs, f"the theme's {template} changed: re-copy it"
    assert body == theirs.replace(original, changed)
