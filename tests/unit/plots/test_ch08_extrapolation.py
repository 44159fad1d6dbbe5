"""book.plots.ch08_extrapolation: chapter 8's accuracy curves (mean and band
over seeds, chance line), accuracy by range, training loss curves, and the
explorer across tasks with different schemes."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest

from book import plots, tasks

FAKE = {
    "config": {"task": "fibonacci", "train_len": 3},
    "runs": {
        "rope": {"0": {"curve": [None, 1.0, 1.0, 0.5, 0.25]}, "1": {"curve": [None, 1.0, 0.5, 0.5, 0.5]}},
        "alibi": {"0": {"curve": [None, 1.0, 1.0, 1.0, 0.75]}},
    },
}


# train_len 4, curves of 16 positions: within 0-3, 1-1.25x = 4, 1.25-1.5x = 5, 1.5-2x = 6-7, 2-4x = 8-15
LOCAL = {
    "config": {"task": "local_sum", "train_len": 4},
    "runs": {
        "alibi": {
            "0": {"curve": [None] + [1.0] * 15, "loss_curve": [2.3, 0.5, 0.1]},
            "1": {"curve": [None] + [0.5] * 15, "loss_curve": [2.3, 0.6, 0.2]},
        },
        "learned": {"0": {"curve": [None, 1.0, 1.0, 1.0] + [0.1] * 12, "loss_curve": [2.3, 0.01, 0.001]}},
    },
}
COPY = {"config": {"task": "copy", "train_len": 2}, "runs": {"rope": {"0": {"curve": [1.0, 1.0, 0.5]}}}}


def test_experiment_curves_mean_with_a_band_or_one_line_per_seed():
    fig, ax = plt.subplots()
    plots.experiment_curves(ax, FAKE)
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert list(lines["rope"].get_xdata()) == [1, 2, 3, 4]  # position 0 is never scored
    assert list(lines["rope"].get_ydata()) == [1.0, 0.75, 0.5, 0.375]  # mean over seeds
    assert lines["training length"].get_xdata()[0] == 2.5
    fig, ax = plt.subplots()
    plots.experiment_curves(ax, FAKE, schemes=["rope"], seeds="lines")
    assert len([line for line in ax.get_lines() if line.get_label() != "training length"]) == 2
    with pytest.raises(ValueError, match="seeds must be 'band' or 'lines'"):
        plots.experiment_curves(ax, FAKE, seeds="all")
    with pytest.raises(ValueError, match="schemes must be among"):
        plots.experiment_curves(ax, FAKE, schemes=["t5"])
    plt.close("all")


def test_experiment_curves_local_sum_by_position_with_chance():
    fig, ax = plt.subplots()
    plots.experiment_curves(ax, LOCAL, chance=True)
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert list(lines["learned"].get_xdata())[:2] == [1, 2]  # positions, from 0; 0 not scored
    assert lines["training length"].get_xdata()[0] == 3.5
    assert lines["chance (1/10)"].get_ydata()[0] == 0.1
    fig, ax = plt.subplots()
    plots.experiment_curves(ax, COPY, chance=True)  # copy: by n, no chance line
    labels = [line.get_label() for line in ax.get_lines()]
    assert "chance (1/10)" not in labels and list(ax.get_lines()[0].get_xdata()) == [1, 2, 3]
    plt.close("all")


def test_experiment_curves_of_the_benchmark_tasks_name_their_unit_and_chance():
    """recall is read by pairs n, chance 1/4 (its values); copy scored by symbols
    has chance 1/10 and says what it counts."""
    recall = {"config": {"task": "recall", "train_len": 2, "n_values": 4}, "runs": COPY["runs"]}
    symbols = {"config": {"task": "copy", "train_len": 2, "copy_score": "symbols"}, "runs": COPY["runs"]}
    for results, xlabel, ylabel, chance in (
        (recall, "key-value pairs, n", "queries answered right", "chance (1/4)"),
        (symbols, "symbols to copy, n", "copied symbols right", "chance (1/10)"),
        (COPY, "symbols to copy, n", "whole copies right", None),
    ):
        fig, ax = plt.subplots()
        plots.experiment_curves(ax, results, chance=True)
        lines = {line.get_label(): line for line in ax.get_lines()}
        assert (ax.get_xlabel(), ax.get_ylabel()) == (xlabel, ylabel)
        assert list(lines["rope"].get_xdata()) == [1, 2, 3] and lines["training length"].get_xdata()[0] == 2.5
        assert [k for k in lines if k.startswith("chance")] == ([chance] if chance else [])
        if chance:
            assert lines[chance].get_ydata()[0] == (0.25 if results is recall else 0.1)
        guess = [k for k in lines if k == "order-free guess"]
        assert guess == (["order-free guess"] if results is symbols else [])
    plt.close("all")


def test_experiment_curves_draw_copys_order_free_guess_at_every_n():
    """The guess that ignores order: 1 at n = 1, then the exact score, above chance."""
    symbols = {"config": {"task": "copy", "train_len": 2, "copy_score": "symbols"}, "runs": COPY["runs"]}
    fig, ax = plt.subplots()
    plots.experiment_curves(ax, symbols, chance=True)
    (line,) = [k for k in ax.get_lines() if k.get_label() == "order-free guess"]
    assert list(line.get_xdata()) == [1, 2, 3]
    assert list(line.get_ydata()) == pytest.approx([1.0, (1 + 0.55) / 2, tasks.copy_order_free_accuracy(3)])
    assert all(y > 0.1 for y in line.get_ydata())
    fig, ax = plt.subplots()
    plots.experiment_curves(ax, symbols)  # no chance, no guess either
    assert "order-free guess" not in [k.get_label() for k in ax.get_lines()]
    plt.close("all")


def test_range_bars_show_the_worst_seed_the_best_and_chance():
    fig, ax = plt.subplots()
    table = plots.range_bars(ax, LOCAL)
    assert list(table["alibi"]) == ["0-1x", "1-1.25x", "1.25-1.5x", "1.5-2x", "2-4x"]
    heights = [bar.get_height() for bar in ax.patches]
    assert heights[:5] == [0.5] * 5  # alibi: the worst seed
    assert heights[5:] == pytest.approx([1.0, 0.1, 0.1, 0.1, 0.1])  # learned
    ticks = ax.collections[0].get_segments()  # alibi's best seed
    assert [seg[0][1] for seg in ticks] == [1.0] * 5
    chance = [line for line in ax.get_lines() if line.get_label() == "chance (1/10)"]
    assert chance and chance[0].get_ydata()[0] == 0.1
    assert [t.get_text() for t in ax.get_xticklabels()][0] == "within"
    with pytest.raises(ValueError, match="copy task"):
        plots.range_bars(ax, COPY)
    plt.close("all")


def test_loss_curves_one_line_per_seed_on_a_log_axis():
    fig, ax = plt.subplots()
    plots.loss_curves(ax, LOCAL)
    lines = ax.get_lines()
    assert len(lines) == 3 and ax.get_yscale() == "log"
    assert list(lines[0].get_xdata()) == [10, 20, 30]  # one point per 10 steps
    assert list(lines[2].get_ydata()) == [2.3, 0.01, 0.001]
    assert [line.get_label() for line in lines][::2] == ["alibi", "learned"]
    with pytest.raises(ValueError, match="schemes must be among"):
        plots.loss_curves(ax, LOCAL, schemes=["t5"])
    with pytest.raises(ValueError, match="loss_curve"):
        plots.loss_curves(ax, COPY)
    plt.close("all")


def test_loss_curves_end_where_each_model_stopped_with_the_threshold():
    stopped = {
        "config": {"task": "local_sum", "train_len": 4, "stop_loss": 0.05, "stop_window": 30},
        "runs": {
            "rope": {"0": {"steps": 23, "loss_curve": [2.3, 0.1, 0.04]}},  # stopped at 23
            "none": {"0": {"steps": 40, "loss_curve": [2.3, 1.0, 0.5, 0.2]}},
        },  # hit a cap of 40
    }
    fig, ax = plt.subplots()
    plots.loss_curves(ax, stopped)
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert list(lines["rope"].get_xdata()) == [10, 20, 23]  # the last block ends at step 23
    assert list(lines["none"].get_xdata()) == [10, 20, 30, 40]
    stop = lines["stop: 30-step mean < 0.05"]
    assert list(stop.get_ydata()) == [0.05, 0.05] and stop.get_linestyle() == "--"
    fig, ax = plt.subplots()
    plots.loss_curves(ax, stopped, threshold=False)
    assert not [line for line in ax.get_lines() if line.get_label().startswith("stop")]
    fig, ax = plt.subplots()
    plots.loss_curves(ax, LOCAL)  # no stop_loss: no line
    assert len(ax.get_lines()) == 3
    assert not ax.collections  # no met_stop_rule: no end markers
    plt.close("all")


def test_loss_curves_mark_each_end_met_or_capped():
    stopped = {
        "config": {"task": "local_sum", "stop_loss": 0.05, "stop_window": 30},
        "runs": {
            "rope": {
                "0": {"steps": 23, "met_stop_rule": True, "loss_curve": [2.3, 0.1, 0.06]},
                "1": {"steps": 18, "met_stop_rule": True, "loss_curve": [2.3, 0.03]},
            },
            "none": {"0": {"steps": 40, "met_stop_rule": False, "loss_curve": [2.3, 1.0, 0.5, 0.2]}},
        },
    }
    fig, ax = plt.subplots()
    plots.loss_curves(ax, stopped)
    marks = {c.get_gid(): c for c in ax.collections if c.get_gid()}
    assert set(marks) == {"met the rule", "reached the cap"}
    legend = [c.get_label() for c in ax.collections if not c.get_gid()]  # grey, empty entries
    assert legend == ["met the rule", "reached the cap"]
    assert marks["met the rule"].get_offsets().tolist() == [[23, 0.06], [18, 0.03]]  # each curve's end
    assert marks["reached the cap"].get_offsets().tolist() == [[40, 0.2]]
    assert ax.get_ylabel() == "training loss, 10-step means"
    fig, ax = plt.subplots()
    plots.loss_curves(ax, stopped, schemes=["rope"])  # no capped run: no cross entry
    assert [c.get_gid() for c in ax.collections if c.get_gid()] == ["met the rule"]
    plt.close("all")


def test_results_explorer_tasks_with_different_schemes():
    pytest.importorskip("ipywidgets")
    from book import widgets

    box = widgets.results_explorer({"local_sum": LOCAL, "copy": COPY})
    (task, style), picks = box.children[0].children, box.children[1].children
    assert [p.description for p in picks] == ["alibi", "learned", "rope"]
    task.value = "copy"  # alibi and learned are not in copy: skipped, no error
    style.value = "lines"
    for pick in picks:
        pick.value = False
    plt.close("all")


def test_draw_results_explorer_follows_its_state():
    results = {"local_sum": LOCAL, "copy": COPY}
    fig = plots.draw_results_explorer(results, task="local_sum")
    (ax,) = fig.axes
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert ax.get_title() == "local_sum: trained at 4"
    assert list(lines["alibi"].get_ydata()) == pytest.approx([0.75] * 15)  # mean of the two seeds
    assert "chance (1/10)" in lines and len(ax.collections) == 2  # one band per scheme
    plt.close(fig)
    fig = plots.draw_results_explorer(results, task="local_sum", schemes=["learned"], seeds="lines")
    (ax,) = fig.axes
    assert [line.get_label() for line in ax.get_lines()][0] == "learned" and not ax.collections
    assert list(ax.get_lines()[0].get_ydata())[-1] == pytest.approx(0.1)
    plt.close(fig)
    fig = plots.draw_results_explorer(results, task="copy", schemes=["alibi", "rope"])
    (ax,) = fig.axes
    assert ax.get_title() == "copy: trained at 2 (alibi: not run on this task)"
    assert [line.get_label() for line in ax.get_lines()][0] == "rope"
    plt.close(fig)
    with pytest.raises(ValueError, match="task must be one of"):
        plots.draw_results_explorer(results, task="fibonacci")
    with pytest.raises(ValueError, match="at least one of the task's schemes"):
        plots.draw_results_explorer(results, task="copy", schemes=["alibi"])
    with pytest.raises(ValueError, match="seeds must be"):
        plots.draw_results_explorer(results, task="copy", seeds="dots")


def test_results_explorer_calls_its_drawing(monkeypatch):
    pytest.importorskip("ipywidgets")
    from book import widgets

    calls = []
    real = plots.draw_results_explorer
    monkeypatch.setattr(widgets, "draw_results_explorer", lambda *a, **kw: calls.append(kw) or real(*a, **kw))
    box = widgets.results_explorer({"local_sum": LOCAL, "copy": COPY})
    (task, style), picks = box.children[0].children, box.children[1].children
    assert calls[-1] == {"task": "local_sum", "schemes": ["alibi", "learned"], "seeds": "band"}
    picks[0].value = False
    style.value = "lines"
    assert calls[-1] == {"task": "local_sum", "schemes": ["learned"], "seeds": "lines"}
    task.value = "copy"
    assert calls[-1] == {"task": "copy", "schemes": ["rope"], "seeds": "lines"}
    plt.close("all")
