"""The book's figure style: colours, colormaps and matplotlib's defaults.

* Signed values (PE entries, scores, differences): diverging ``RdBu_r``,
  centred at zero with a symmetric range.
* Non-negative values (attention weights, distances): ``viridis``.
* Lines: the Okabe-Ito palette, which stays distinguishable with the common
  forms of colour blindness.
* Every axis gets a label with its unit; every panel a title.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import matplotlib as mpl
from matplotlib import font_manager
from matplotlib.rcsetup import cycler

__all__ = [
    "OKABE_ITO",
    "SIGNED_CMAP",
    "POSITIVE_CMAP",
    "use_style",
]


#: Okabe & Ito (2008) colour-blind-safe palette, black omitted.
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442")


#: Diverging colormap for signed values (``heatmap(signed=True)``: ``[-vmax, vmax]``, white at 0).
SIGNED_CMAP = "RdBu_r"


#: Perceptually uniform colormap for non-negative values (``heatmap(signed=False)``;
#: the default ``image.cmap`` of ``use_style``).
POSITIVE_CMAP = "viridis"


def _hangul_font() -> str | None:
    """Register NanumGothic (shipped by the koreanize-matplotlib package) and
    return its family name, or None if that package is not installed.

    The font file is added directly; the package itself is not imported,
    because importing it replaces the whole font family.
    """
    spec = importlib.util.find_spec("koreanize_matplotlib")
    if spec is None or spec.origin is None:
        return None
    path = Path(spec.origin).parent / "fonts" / "NanumGothic.ttf"
    if not path.is_file():
        return None
    font_manager.fontManager.addfont(str(path))
    return font_manager.FontProperties(fname=str(path)).get_name()


def use_style() -> None:
    """Set matplotlib's defaults for the book: sizes that read in the text column
    at 100 dpi, the Okabe-Ito colour cycle, no top/right spines, and a Hangul
    fallback font (the book's first example is Korean) after DejaVu Sans."""
    hangul = _hangul_font()
    mpl.rcParams["font.family"] = ["DejaVu Sans"] + ([hangul] if hangul else [])
    mpl.rcParams.update(
        {
            "figure.dpi": 100,
            "savefig.dpi": 100,
            "figure.figsize": (7.0, 3.2),
            "figure.constrained_layout.use": True,
            "font.size": 10,
            "axes.titlesize": 10,
            "axes.labelsize": 10,
            "axes.spines.top": False,
            "axes.spines.right": False,
            "axes.prop_cycle": cycler(color=list(OKABE_ITO)),
            "image.cmap": POSITIVE_CMAP,
            # Keep PNG bytes stable across runs (no timestamps in metadata).
            "savefig.bbox": "standard",
        }
    )
