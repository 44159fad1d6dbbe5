"""One look for every figure in the book, and the explorers' drawings.

The package has one module per chapter, each holding that chapter's figures
and its explorer's drawing (``draw_<explorer>``, a pure function of the
explorer's state that ``book.widgets`` wires to controls):
``ch01_order_blind``, ``ch02_sinusoidal``, ``ch03_rotation``,
``ch04_fingerprints``, ``ch05_learned``, ``ch06_rope``, ``ch07_relative``,
``ch08_extrapolation``, ``ch09_long_context``, ``ch10_todays_models``,
``ch11_numerics`` and ``ch12_serving_stack``. Besides
them, ``style`` holds the colours and matplotlib's defaults (``use_style``),
``live`` the live twins (an explorer precomputed at a grid of states, which
runs in a web page with no kernel), ``computed`` the computed explorers (an
explorer whose closed-form figure the web page computes at any state), and ``_common`` the helpers several
chapters share (``heatmap``, ``cosine_similarity``).

The style:

* Signed values (PE entries, scores, differences): diverging ``RdBu_r``,
  centred at zero with a symmetric range.
* Non-negative values (attention weights, distances): ``viridis``.
* Lines: the Okabe-Ito palette, which stays distinguishable with the common
  forms of colour blindness.
* Every axis gets a label with its unit; every panel a title.

Everything public is re-exported here, so ``from book import plots;
plots.heatmap(...)`` works whichever module defines the function.
"""

from __future__ import annotations

from . import computed, live, style
from ._common import cosine_similarity, heatmap
from .ch01_order_blind import draw_order_explorer, order_panels
from .ch02_sinusoidal import counter_and_sines, draw_pe_explorer, pe_overview, wavelengths_by_base
from .ch03_rotation import (
    animation_html,
    decay_with_closed_form,
    draw_rotation_explorer,
    rotation_animation,
    rotation_circles,
    rotation_spirals,
)
from .ch04_fingerprints import draw_fingerprint_explorer, similarity_panel
from .ch05_learned import draw_learned_table_explorer, pca_path, table_similarity_panel
from .ch06_rope import draw_rope_explorer, rope_expected_scores, rope_plane, rope_score_curve
from .ch07_relative import alibi_panel, draw_alibi_explorer, draw_t5_bucket_explorer, relative_bias_rows
from .ch08_extrapolation import draw_results_explorer, experiment_curves, loss_curves, range_bars
from .ch09_long_context import draw_scaling_explorer, scaling_ratios, wavelength_panel
from .ch10_todays_models import (
    draw_layer_pattern_explorer,
    draw_two_bases_explorer,
    layer_pattern_counts,
    mrope_axes_panel,
    prope_scores,
    prope_vs_partial,
    rope_2d_panel,
    two_bases_panel,
)
from .ch11_numerics import draw_precision_explorer, rope_angle_errors
from .ch12_serving_stack import batch_ids_panel, draw_sink_cache_explorer, packing_masks, sink_cache_panel
from .computed import computed_controls, computed_explorer, computed_html, explorer_values
from .live import figure_data_uri, live_html, live_state_grid, live_twin
from .style import use_style

# The constants again, with their descriptions, for the reference (autodoc reads
# a constant's ``#:`` comment where the package names it, not where it is defined).

#: Okabe & Ito (2008) colour-blind-safe palette, black omitted.
OKABE_ITO = style.OKABE_ITO
#: Diverging colormap for signed values (``heatmap(signed=True)``: ``[-vmax, vmax]``, white at 0).
SIGNED_CMAP = style.SIGNED_CMAP
#: Perceptually uniform colormap for non-negative values (``heatmap(signed=False)``;
#: the default ``image.cmap`` of ``use_style``).
POSITIVE_CMAP = style.POSITIVE_CMAP
#: Most states one live twin may hold (each is an image in the page).
LIVE_MAX_STATES = live.LIVE_MAX_STATES
#: The formula modules and the controls of each computed explorer's view.
COMPUTED_VIEWS = computed.COMPUTED_VIEWS

__all__ = [
    # style
    "OKABE_ITO",
    "SIGNED_CMAP",
    "POSITIVE_CMAP",
    "use_style",
    # shared by several chapters
    "heatmap",
    "cosine_similarity",
    # chapter 1
    "order_panels",
    "draw_order_explorer",
    # chapter 2
    "pe_overview",
    "wavelengths_by_base",
    "counter_and_sines",
    "draw_pe_explorer",
    # chapter 3
    "rotation_circles",
    "rotation_spirals",
    "rotation_animation",
    "animation_html",
    "decay_with_closed_form",
    "draw_rotation_explorer",
    # chapter 4
    "similarity_panel",
    "draw_fingerprint_explorer",
    # chapter 5
    "table_similarity_panel",
    "pca_path",
    "draw_learned_table_explorer",
    # chapter 6
    "rope_plane",
    "rope_score_curve",
    "rope_expected_scores",
    "draw_rope_explorer",
    # chapter 7
    "alibi_panel",
    "relative_bias_rows",
    "draw_alibi_explorer",
    "draw_t5_bucket_explorer",
    # chapter 8
    "experiment_curves",
    "range_bars",
    "loss_curves",
    "draw_results_explorer",
    # chapter 9
    "scaling_ratios",
    "wavelength_panel",
    "draw_scaling_explorer",
    # chapter 10
    "two_bases_panel",
    "prope_vs_partial",
    "prope_scores",
    "mrope_axes_panel",
    "draw_two_bases_explorer",
    "rope_2d_panel",
    "layer_pattern_counts",
    "draw_layer_pattern_explorer",
    # chapter 11
    "rope_angle_errors",
    "draw_precision_explorer",
    # chapter 12
    "batch_ids_panel",
    "packing_masks",
    "sink_cache_panel",
    "draw_sink_cache_explorer",
    # live twins
    "LIVE_MAX_STATES",
    "figure_data_uri",
    "live_state_grid",
    "live_html",
    "live_twin",
    # computed explorers
    "COMPUTED_VIEWS",
    "computed_controls",
    "computed_html",
    "computed_explorer",
    "explorer_values",
]
