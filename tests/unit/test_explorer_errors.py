"""An explorer whose drawing fails must fail its test, not print and carry on.

ipywidgets' ``Output`` swallows an exception raised inside it (and shows the
traceback instead) whenever an IPython shell exists in the process. The
explorer smoke tests run in pytest's own process, so they only mean
something while no test has left an IPython shell behind.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import pytest

from book import widgets


def test_no_ipython_shell_is_left_in_the_test_process():
    from IPython.core.interactiveshell import InteractiveShell

    assert not InteractiveShell.initialized()


def test_a_failing_explorer_raises():
    import ipywidgets as w

    slider = w.IntSlider(value=1, min=0, max=2)

    def draw():
        if slider.value == 2:
            raise RuntimeError("the drawing failed")
        return plt.figure()

    widgets._explorer([[slider]], draw)  # draws once, fine
    with pytest.raises(RuntimeError, match="the drawing failed"):
        slider.value = 2  # the callback's error reaches the test
