"""Interactive explorers for running notebooks (Jupyter, Binder, Colab).

A static web page has no kernel, so each explorer here has a static twin in
``book.plots`` that the chapter shows right below it.
"""

from __future__ import annotations

import random
from typing import Sequence

import matplotlib.pyplot as plt

from .demos import TinySelfAttention
from .plots import order_panels

__all__ = ["order_explorer"]


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
    import ipywidgets as w  # imported here: the rest of `book` does not need it
    from IPython.display import display

    tokens = list(tokens)
    n = len(tokens)
    order = w.Text(value=" ".join(map(str, range(n))), description="order B:")
    shuffle = w.Button(description="Shuffle", icon="random")
    positional = w.Checkbox(value=False, description="add sinusoidal PE")
    causal = w.Checkbox(value=False, description="causal mask")
    out = w.Output()
    rng = random.Random(0)

    def redraw(*_):
        with out:
            out.clear_output(wait=True)
            try:
                idx = [int(s) for s in order.value.replace(",", " ").split()]
                a, b = model.aligned_outputs(tokens, idx, positional=positional.value, causal=causal.value)
            except ValueError as err:
                print(f"Cannot use that order: {err}")
                return
            label = "PE" if positional.value else "no PE"
            label += ", causal" if causal.value else ""
            print("order B:", " ".join(tokens[i] for i in idx))
            print(f"largest change of any token's output, |B - A|: {float((b - a).abs().max()):.2e}")
            fig = order_panels([(label, a, b)], tokens)
            display(fig)
            plt.close(fig)

    def on_shuffle(_):
        idx = list(range(n))
        rng.shuffle(idx)
        order.value = " ".join(map(str, idx))

    shuffle.on_click(on_shuffle)
    for control in (order, positional, causal):
        control.observe(redraw, names="value")
    redraw()
    return w.VBox([w.HBox([order, shuffle]), w.HBox([positional, causal]), out])
