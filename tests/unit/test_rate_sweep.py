"""Chapter 8's benchmark at every rate: the admitted rates and each seed's scores at one rate."""

from __future__ import annotations

import copy
from statistics import mean

import pytest

from book import benchmark, experiments, rate_sweep, results


def fake(losses, met=None, chosen=0.006):
    """An every-rate file of one scheme: rate -> the seeds' validation losses.

    Each rate's curves are its own: the smallest rate's past scores are 0.5 + 0.1 * seed, and each larger rate
    adds 0.01 per step up the grid, so reading another rate's curves shows.
    """
    met = met or {}
    bump = {lr: 0.01 * i for i, lr in enumerate(sorted(losses))}
    sweep = {
        str(lr): {
            "validation_loss": {str(k): v for k, v in enumerate(vs)},
            "met_stop_rule": {str(k): met.get(lr, [True] * len(vs))[k] for k in range(len(vs))},
            "excluded": {str(k): None for k in range(len(vs))},
            "curve": {str(k): [1.0, 0.8, 0.5 + 0.1 * k + bump[lr], None] for k in range(len(vs))},
            "whole_curve": {str(k): [1.0, 1.0, 0.25 * k + bump[lr], 0.5] for k in range(len(vs))},
        }
        for lr, vs in losses.items()
    }
    return {"config": {"train_len": 2}, "every_rate": True, "chosen_lr": {"rope": chosen}, "sweep": {"rope": sweep}}


def test_admitted_rates_keep_every_rate_whose_seeds_all_met_the_stopping_rule_whatever_its_loss():
    res = fake({0.003: [1.0, 1.0], 0.006: [0.1, 0.1], 0.012: [5.0, 7.0]})
    assert rate_sweep.admitted_rates(res) == {"rope": [0.003, 0.006, 0.012]}
    assert "every seed met the stopping rule" in rate_sweep.ADMISSION_RULE


def test_a_rate_with_a_seed_that_missed_the_stopping_rule_is_not_admitted_unless_chosen():
    res = fake({0.003: [0.1, 0.1], 0.006: [0.1, 0.1]}, met={0.003: [True, False]})
    assert rate_sweep.admitted_rates(res) == {"rope": [0.006]}
    # the chosen rate counts even when a seed missed the rule there
    res = fake({0.003: [0.1, 0.1], 0.006: [0.1, 0.1]}, met={0.006: [True, False]})
    assert rate_sweep.admitted_rates(res) == {"rope": [0.003, 0.006]}


def test_validation_losses_are_each_seeds_in_file_order():
    res = fake({0.003: [0.3, 0.1, 0.2], 0.006: [0.1, 0.1, 0.1]})
    assert rate_sweep.validation_losses(res, "rope", 0.003) == [0.3, 0.1, 0.2]


def test_scores_at_a_rate_are_means_within_and_past_with_nones_and_excluded_seeds_skipped():
    res = fake({0.003: [0.1, 0.1, 0.1], 0.006: [0.1, 0.1, 0.1]})
    assert rate_sweep.past_at_rate(res, "rope", 0.003) == pytest.approx([0.5, 0.6, 0.7])
    assert rate_sweep.within_at_rate(res, "rope", 0.003) == pytest.approx([0.9, 0.9, 0.9])
    assert rate_sweep.whole_past_at_rate(res, "rope", 0.003) == pytest.approx([0.25, 0.375, 0.5])
    # each rate reads its own curves, not the chosen rate's (0.006 here)
    assert rate_sweep.past_at_rate(res, "rope", 0.003) != rate_sweep.past_at_rate(res, "rope", 0.006)
    assert rate_sweep.past_at_rate(res, "rope", 0.006) == pytest.approx([0.51, 0.61, 0.71])
    assert rate_sweep.whole_past_at_rate(res, "rope", 0.006) == pytest.approx([0.255, 0.38, 0.505])
    res["sweep"]["rope"]["0.003"]["excluded"]["1"] = "did not meet the stopping rule"
    assert rate_sweep.past_at_rate(res, "rope", 0.003) == pytest.approx([0.5, 0.7])
    assert rate_sweep.whole_past_at_rate(res, "rope", 0.003) == pytest.approx([0.25, 0.5])


@pytest.mark.parametrize("task", benchmark.TASKS)
def test_at_the_chosen_rate_the_scores_equal_within_and_past_of_the_committed_file(task):
    every, committed = results.load(f"benchmark_{task}_every_rate"), results.load(f"benchmark_{task}")
    within, past = experiments.within_and_past(committed)
    assert every["chosen_lr"] == committed["chosen_lr"]
    for scheme, lr in committed["chosen_lr"].items():
        assert rate_sweep.past_at_rate(every, scheme, lr) == past[scheme]
        assert rate_sweep.within_at_rate(every, scheme, lr) == within[scheme]
        runs = committed["runs"][scheme].values()
        assert rate_sweep.validation_losses(every, scheme, lr) == [r["validation_loss"] for r in runs]
        if task == "copy":
            cut = committed["config"]["train_len"]
            assert rate_sweep.whole_past_at_rate(every, scheme, lr) == [mean(r["whole_curve"][cut:]) for r in runs]
        assert lr in rate_sweep.admitted_rates(every)[scheme]


def test_the_comparison_with_within_and_past_notices_a_sabotaged_curve():
    every, committed = results.load("benchmark_copy_every_rate"), results.load("benchmark_copy")
    broken = copy.deepcopy(every)
    lr = str(committed["chosen_lr"]["t5"])
    for key in ("curve", "whole_curve"):
        curve = broken["sweep"]["t5"][lr][key]["3"]
        curve[-1] = curve[-1] - 0.5
        first = next(i for i, x in enumerate(curve) if x is not None)
        curve[first] = curve[first] - 0.5
    within, past = experiments.within_and_past(committed)
    cut = committed["config"]["train_len"]
    whole = [mean(r["whole_curve"][cut:]) for r in committed["runs"]["t5"].values()]
    assert rate_sweep.past_at_rate(broken, "t5", 0.012) != past["t5"]
    assert rate_sweep.within_at_rate(broken, "t5", 0.012) != within["t5"]
    assert rate_sweep.whole_past_at_rate(broken, "t5", 0.012) != whole
    assert rate_sweep.whole_past_at_rate(every, "t5", 0.012) == whole


def test_scores_at_a_rate_that_was_not_chosen_are_that_rates_curves():
    every = results.load("benchmark_local_sum_every_rate")
    assert every["chosen_lr"]["t5"] != 0.003
    cut = every["config"]["train_len"]
    curves = every["sweep"]["t5"]["0.003"]["curve"]
    by_hand = [mean(x for x in c[cut:] if x is not None) for c in curves.values()]
    got = rate_sweep.past_at_rate(every, "t5", 0.003)
    assert got == pytest.approx(by_hand)
    assert mean(got) == pytest.approx(0.652, abs=0.0005)
    chosen = rate_sweep.past_at_rate(every, "t5", every["chosen_lr"]["t5"])
    assert mean(chosen) - mean(got) > 0.1  # a different rate, a different score


def test_committed_admitted_rates():
    """The rates chapter 8 checks every statement at: 61 of the 63 (task, scheme, rate)."""
    got = {t: rate_sweep.admitted_rates(results.load(f"benchmark_{t}_every_rate")) for t in benchmark.TASKS}
    every = [0.003, 0.006, 0.012]
    assert got["local_sum"]["none"] == [0.006, 0.012]  # a seed missed the rule at 0.003
    assert got["recall"]["sinusoidal"] == [0.003, 0.006]  # and at 0.012
    assert sum(r == every for n in got.values() for r in n.values()) == 19
    assert sum(len(r) for n in got.values() for r in n.values()) == 61


def test_bad_input_is_refused_clearly():
    res = fake({0.003: [0.1], 0.006: [0.1]})
    with pytest.raises(TypeError, match="results must be a benchmark results dict"):
        rate_sweep.admitted_rates([1, 2])
    with pytest.raises(ValueError, match="every_rate is true"):
        rate_sweep.admitted_rates(results.load("benchmark_copy"))
    with pytest.raises(ValueError, match="scheme must be one of 'rope'"):
        rate_sweep.past_at_rate(res, "alibi", 0.003)
    with pytest.raises(ValueError, match=r"lr must be one of the rates swept for rope, \[0.003, 0.006\]"):
        rate_sweep.past_at_rate(res, "rope", 0.01)
    with pytest.raises(TypeError, match="lr must be a real number"):
        rate_sweep.validation_losses(res, "rope", "0.003")
    with pytest.raises(ValueError, match=r"results\['chosen_lr'\]\['rope'\] must be one of the rates swept"):
        rate_sweep.admitted_rates(res | {"chosen_lr": {"rope": 0.5}})
    with pytest.raises(ValueError, match=r"results\['chosen_lr'\] must name a rate for every scheme; rope"):
        rate_sweep.admitted_rates(res | {"chosen_lr": {}})
    bare = copy.deepcopy(res)
    del bare["sweep"]["rope"]["0.003"]["whole_curve"]
    with pytest.raises(ValueError, match="must hold each seed's whole_curve"):
        rate_sweep.whole_past_at_rate(bare, "rope", 0.003)
    with pytest.raises(ValueError, match="must hold each seed's whole_curve"):  # recall stores None
        rate_sweep.whole_past_at_rate(results.load("benchmark_recall_every_rate"), "t5", 0.003)
    res = fake({0.003: [0.1]})
    res["sweep"]["rope"]["0.003"]["curve"]["0"] = [1.0, 1.0, None]
    with pytest.raises(ValueError, match="has no score past train_len 2"):
        rate_sweep.past_at_rate(res, "rope", 0.003)
    res["sweep"]["rope"]["0.003"]["curve"]["0"] = [None, None, 1.0]
    with pytest.raises(ValueError, match="has no score within train_len 2"):
        rate_sweep.within_at_rate(res, "rope", 0.003)
