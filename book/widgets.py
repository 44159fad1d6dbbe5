"""Interactive explorers for running notebooks (Jupyter, Binder, Colab).

A static web page has no kernel, so each explorer here has a static twin in
``book.plots`` that the chapter shows right below it: both draw with the same
plotting function.
"""

from __future__ import annotations

import random
from typing import Any, Callable, Sequence

import matplotlib.pyplot as plt

from .demos import TinySelfAttention
from .plots import order_panels, pe_overview, rotation_circles, similarity_panel

__all__ = ["order_explorer", "pe_explorer", "rotation_explorer", "fingerprint_explorer"]


def _explorer(rows: Sequence[Sequence[Any]], draw: Callable[[], plt.Figure | None]):
    """Lay out ``rows`` of controls above an output area that ``draw()`` fills.

    ``draw`` is called once now and again whenever a control's value changes;
    it may print, and returns the figure to show (or None).
    """
    import ipywidgets as w  # imported here: the rest of `book` does not need it
    from IPython.display import display

    out = w.Output()

    def redraw(*_: Any) -> None:
        with out:
            out.clear_output(wait=True)
            fig = draw()
            if fig is not None:
                display(fig)
                plt.close(fig)

    for row in rows:
        for control in row:
            if hasattr(control, "value"):
                control.observe(redraw, names="value")
    redraw()
    return w.VBox([w.HBox(list(row)) for row in rows] + [out])


def order_explorer(model: TinySelfAttention, tokens: Sequence[str]):
    """Shuffle ``tokens`` and watch each token's self-attention output (chapter 1).

    Controls: the new order (indices into ``tokens``, e.g. ``2 1 0 3 4``), a
    Shuffle button, and switches for the sinusoidal PE and the causal mask.
    The figure shows each token's output in the original order (A), in the new
    order (B, rows brought back to token order) and B - A: without PE and
    without a mask the difference is exactly zero. Static twin:
    ``book.plots.order_panels``.

    Returns:
        an ``ipywidgets.VBox`` (display it, or leave it as a cell's last value).
    """
    import ipywidgets as w

    tokens = list(tokens)
    n = len(tokens)
    order = w.Text(value=" ".join(map(str, range(n))), description="order B:")
    shuffle = w.Button(description="Shuffle", icon="random")
    positional = w.Checkbox(value=False, description="add sinusoidal PE")
    causal = w.Checkbox(value=False, description="causal mask")
    rng = random.Random(0)

    def draw() -> plt.Figure | None:
        try:
            idx = [int(s) for s in order.value.replace(",", " ").split()]
            a, b = model.aligned_outputs(tokens, idx, positional=positional.value, causal=causal.value)
        except ValueError as err:
            print(f"Cannot use that order: {err}")
            return None
        label = ("PE" if positional.value else "no PE") + (", causal" if causal.value else "")
        print("order B:", " ".join(tokens[i] for i in idx))
        print(f"largest change of any token's output, |B - A|: {float((b - a).abs().max()):.2e}")
        return order_panels([(label, a, b)], tokens)

    def on_shuffle(_: Any) -> None:
        idx = list(range(n))
        rng.shuffle(idx)
        order.value = " ".join(map(str, idx))

    shuffle.on_click(on_shuffle)
    return _explorer([[order, shuffle], [positional, causal]], draw)


def pe_explorer(d_model: int = 64, base: float = 10000.0, max_position: int = 200):
    """Explore the sinusoidal table (chapter 2): ``d_model``, ``base``, the
    position range and one dimension whose sin/cos pair is drawn as curves.
    Static twin: ``book.plots.pe_overview`` for a few settings."""
    import ipywidgets as w

    d = w.IntSlider(value=d_model, min=8, max=256, step=8, description="d_model")
    b = w.FloatLogSlider(value=base, base=10, min=1, max=6, step=0.25, description="base")
    span = w.IntRangeSlider(value=(0, max_position), min=0, max=2000, step=10, description="positions")
    dim = w.IntSlider(value=0, min=0, max=d_model - 1, description="dimension")

    def draw() -> plt.Figure:
        dim.max = d.value - 1
        lo, hi = span.value
        fig, (ax_heat, ax_lines) = plt.subplots(1, 2, figsize=(8.0, 3.2))
        pe_overview(ax_heat, ax_lines, d.value, base=b.value, positions=range(lo, max(hi, lo + 2)), dim=dim.value)
        return fig

    return _explorer([[d, b], [span, dim]], draw)


def rotation_explorer(d_model: int = 16, pairs: Sequence[int] = (0, 1, 2, 3), base: float = 10000.0):
    """Pick a position ``p`` and an offset ``k`` and watch ``M_k`` rotate each
    (sin, cos) pair of PE(p) to PE(p + k) (chapter 3). Static twin: the
    chapter's animation over ``k``, drawn with ``book.plots.rotation_circles``."""
    import ipywidgets as w

    pos = w.IntSlider(value=0, min=0, max=100, description="position p")
    k = w.IntSlider(value=1, min=-20, max=20, description="offset k")

    def draw() -> plt.Figure:
        fig, axes = plt.subplots(1, len(pairs), figsize=(2.2 * len(pairs), 2.6))
        rotation_circles(list(axes), d_model, pos=pos.value, k=k.value, pairs=pairs, base=base)
        return fig

    return _explorer([[pos, k]], draw)


def fingerprint_explorer(d_model: int = 64, base: float = 10000.0, seq_len: int = 128):
    """Explore the similarity of positions' fingerprints (chapter 4):
    ``PE PE^T`` (or cosine similarity) for a chosen ``d_model``, ``base`` and
    length. Static twin: ``book.plots.similarity_panel`` small multiples."""
    import ipywidgets as w

    d = w.IntSlider(value=d_model, min=8, max=256, step=8, description="d_model")
    b = w.FloatLogSlider(value=base, base=10, min=1, max=6, step=0.25, description="base")
    n = w.IntSlider(value=seq_len, min=16, max=512, step=16, description="positions")
    cosine = w.Checkbox(value=True, description="cosine similarity")

    def draw() -> plt.Figure:
        fig, ax = plt.subplots(figsize=(4.6, 3.8))
        similarity_panel(ax, d.value, seq_len=n.value, base=b.value, cosine=cosine.value)
        return fig

    return _explorer([[d, b], [n, cosine]], draw)
