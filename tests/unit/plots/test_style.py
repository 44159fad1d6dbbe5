"""book.plots.style: the book's matplotlib defaults and its Hangul fallback font."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

from book import plots


def test_use_style_adds_the_hangul_font_after_dejavu_sans():
    plots.use_style()
    families = matplotlib.rcParams["font.family"]
    assert families[0] == "DejaVu Sans" and len(families) == 2, families
