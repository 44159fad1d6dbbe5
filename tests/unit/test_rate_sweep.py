"""Chapter 8's benchmark at every rate: the near-best rates and each seed's score past L."""

from __future__ import annotations

import copy
import math

import pytest

from book import benchmark, experiments, rate_sweep, results


def fake(losses, met=None, chosen=0.006):
    """An every-rate file of one scheme: rate -> the seeds' validation losses."""
    met = met or {}
    sweep = {
        str(lr): {
            "validation_loss": {str(k): v for k, v in enumerate(vs)},
            "met_stop_rule": {str(k): met.get(lr, [True] * len(vs))[k] for k in range(len(vs))},
            "excluded": {str(k): None for k in range(len(vs))},
            "curve": {str(k): [1.0, 1.0, 0.5 + 0.1 * k, None] for k in range(len(vs))},
        }
        for lr, vs in losses.items()
    }
    return {"config": {"train_len": 2}, "every_rate": True, "chosen_lr": {"rope": chosen}, "sweep": {"rope": sweep}}


def test_near_best_keeps_the_rates_within_the_factor_of_the_chosen_loss():
    res = fake({0.003: [0.105, 0.115], 0.006: [0.1, 0.1], 0.012: [0.111, 0.111]})
    assert rate_sweep.near_best_rates(res) == {"rope": [0.003, 0.006]}  # 0.110 <= 0.110 < 0.111
    assert rate_sweep.near_best_rates(res, 1.2) == {"rope": [0.003, 0.006, 0.012]}
    assert rate_sweep.near_best_rates(res, 1) == {"rope": [0.006]}
    assert "1.10 times the chosen rate's" in rate_sweep.NEAR_BEST_RULE and rate_sweep.NEAR_BEST_FACTOR == 1.10


def test_a_rate_with_a_seed_that_missed_the_stopping_rule_is_never_near_best():
    res = fake({0.003: [0.1, 0.1], 0.006: [0.1, 0.1]}, met={0.003: [True, False]})
    assert rate_sweep.near_best_rates(res, math.inf) == {"rope": [0.006]}
    # the chosen rate counts even when a seed missed the rule there
    res = fake({0.003: [0.1, 0.1], 0.006: [0.1, 0.1]}, met={0.006: [True, False]})
    assert rate_sweep.near_best_rates(res) == {"rope": [0.003, 0.006]}


def test_past_at_rate_is_the_mean_past_train_len_with_nones_and_excluded_seeds_skipped():
    res = fake({0.003: [0.1, 0.1, 0.1], 0.006: [0.1, 0.1, 0.1]})
    assert rate_sweep.past_at_rate(res, "rope", 0.003) == pytest.approx([0.5, 0.6, 0.7])
    res["sweep"]["rope"]["0.003"]["excluded"]["1"] = "did not meet the stopping rule"
    assert rate_sweep.past_at_rate(res, "rope", 0.003) == pytest.approx([0.5, 0.7])


@pytest.mark.parametrize("task", benchmark.TASKS)
def test_at_the_chosen_rate_past_at_rate_equals_within_and_past_of_the_committed_file(task):
    every, committed = results.load(f"benchmark_{task}_every_rate"), results.load(f"benchmark_{task}")
    past = experiments.within_and_past(committed)[1]
    assert every["chosen_lr"] == committed["chosen_lr"]
    for scheme, lr in committed["chosen_lr"].items():
        assert rate_sweep.past_at_rate(every, scheme, lr) == past[scheme]
        assert lr in rate_sweep.near_best_rates(every)[scheme]


def test_the_comparison_with_within_and_past_notices_a_sabotaged_curve():
    every, committed = results.load("benchmark_copy_every_rate"), results.load("benchmark_copy")
    broken = copy.deepcopy(every)
    lr = str(committed["chosen_lr"]["t5"])
    curve = broken["sweep"]["t5"][lr]["curve"]["3"]
    curve[-1] = curve[-1] - 0.5
    past = experiments.within_and_past(committed)[1]["t5"]
    assert rate_sweep.past_at_rate(broken, "t5", 0.012) != past
    assert rate_sweep.past_at_rate(every, "t5", 0.012) == past


def test_committed_near_best_rates():
    """The rates chapter 8 checks every statement at: 35 of the 63 (task, scheme, rate)."""
    near = {t: rate_sweep.near_best_rates(results.load(f"benchmark_{t}_every_rate")) for t in benchmark.TASKS}
    a, b, c = 0.003, 0.006, 0.012
    assert near == {
        "local_sum": {"none": [b, c], "sinusoidal": [c], "learned": [a, c], "rope": [b, c],
                      "alibi": [a, b, c], "t5": [c], "rope_nope": [b]},
        "recall": {"none": [a], "sinusoidal": [a, b], "learned": [a], "rope": [a],
                   "alibi": [a], "t5": [a, b, c], "rope_nope": [a, b]},
        "copy": {"none": [a], "sinusoidal": [a, c], "learned": [a, c], "rope": [a],
                 "alibi": [a, c], "t5": [c], "rope_nope": [a, b, c]},
    }  # fmt: skip
    assert sum(len(r) for n in near.values() for r in n.values()) == 35
    every = {t: rate_sweep.near_best_rates(results.load(f"benchmark_{t}_every_rate"), math.inf) for t in near}
    assert every["local_sum"]["none"] == [0.006, 0.012] and every["recall"]["sinusoidal"] == [0.003, 0.006]
    assert sum(len(r) for n in every.values() for r in n.values()) == 61


def test_bad_input_is_refused_clearly():
    res = fake({0.003: [0.1], 0.006: [0.1]})
    with pytest.raises(TypeError, match="results must be a benchmark results dict"):
        rate_sweep.near_best_rates([1, 2])
    with pytest.raises(ValueError, match="every_rate is true"):
        rate_sweep.near_best_rates(results.load("benchmark_copy"))
    with pytest.raises(TypeError, match="factor must be a real number"):
        rate_sweep.near_best_rates(res, "1.1")
    with pytest.raises(ValueError, match="factor must be at least 1"):
        rate_sweep.near_best_rates(res, 0.9)
    with pytest.raises(ValueError, match="factor must be at least 1"):
        rate_sweep.near_best_rates(res, math.nan)
    with pytest.raises(ValueError, match="scheme must be one of 'rope'"):
        rate_sweep.past_at_rate(res, "alibi", 0.003)
    with pytest.raises(ValueError, match=r"lr must be one of the rates swept for rope, \[0.003, 0.006\]"):
        rate_sweep.past_at_rate(res, "rope", 0.01)
    with pytest.raises(TypeError, match="lr must be a real number"):
        rate_sweep.past_at_rate(res, "rope", "0.003")
    res["chosen_lr"]["rope"] = 0.5
    with pytest.raises(ValueError, match="lr must be one of the rates swept for rope"):
        rate_sweep.near_best_rates(res)
    res = fake({0.003: [0.1]})
    res["sweep"]["rope"]["0.003"]["curve"]["0"] = [1.0, 1.0, None]
    with pytest.raises(ValueError, match="has no score past train_len 2"):
        rate_sweep.past_at_rate(res, "rope", 0.003)
