"""Tests of book.benchmark: held-out test and validation data for the three
tasks, T5 buckets all trained, the learning-rate tie rule, excluded runs left
out of every ranking, the results' shape and the --suite command line."""

from __future__ import annotations

import json

import pytest
import torch

from book import _experiments_cli as experiments_cli
from book import benchmark as bm
from book import experiments as ex
from book import models
from book.encodings import t5_relative_bucket


def _tiny_copy(**changes):
    """Copies of 2-4 symbols: 100 inputs of 2 symbols, so that random
    training and test inputs are sure to meet unless they are split."""
    return ex.Config(task="copy", train_len=3, test_len=4, min_len=2, eval_seqs=64, steps=50, **changes)


def test_split_inputs_hold_out_by_construction_where_chance_would_not():
    """In a space this small, unsplit test and validation inputs are training
    inputs; split ones never are, on any seed."""
    unsplit, split = _tiny_copy(), _tiny_copy(split_inputs=True)
    assert len(bm.leaked_inputs(unsplit, 0, 50)) > 0
    for seed in range(5):
        assert bm.leaked_inputs(split, seed, 50) == set()
        train = ex.training_batches(split, seed, 50)
        val = [b for _, b in bm.validation_batches(split, seed)]
        test = [b for _, b in ex.held_out_batches(split, seed)]
        assert bm.shared_inputs(val, train) == set() == bm.shared_inputs(test, val) == bm.shared_inputs(val, test)
    val_unsplit = [b for _, b in bm.validation_batches(unsplit, 0)]
    assert bm.shared_inputs(val_unsplit, ex.training_batches(unsplit, 0, 50))


def test_leak_check_fails_when_the_split_hashes_whole_rows_instead_of_their_prefix(monkeypatch):
    """local_sum at 3 tokens (1000 inputs), tested at 6: a test input counts as
    seen if its first 3 tokens were a training input, so the split must hash
    that prefix. Hashing the whole test row instead leaks."""
    config = ex.Config(task="local_sum", train_len=3, test_len=6, eval_seqs=64, split_inputs=True)
    assert bm.leaked_inputs(config, 0, 50) == set()
    from book import tasks

    def whole_rows(draw, n_seqs, split, *, prefix):
        return tasks.draw_split(draw, n_seqs, split, prefix=10**6)  # longer than every row: each is hashed whole

    monkeypatch.setattr(ex, "draw_split", whole_rows)
    assert len(bm.leaked_inputs(config, 0, 50)) > 0


def test_leak_check_fails_when_the_split_gives_the_test_data_a_training_class(monkeypatch):
    """The sabotage: test inputs drawn from a class the training also draws from."""
    from book import tasks

    monkeypatch.setitem(tasks.SPLIT_CLASSES, "test", (2,))
    assert len(bm.leaked_inputs(_tiny_copy(split_inputs=True), 0, 50)) > 0
    monkeypatch.setitem(tasks.SPLIT_CLASSES, "validation", (3,))
    split = _tiny_copy(split_inputs=True)
    val = [b for _, b in bm.validation_batches(split, 0)]
    assert bm.shared_inputs(val, ex.training_batches(split, 0, 50))


@pytest.mark.parametrize("task", bm.TASKS)
def test_leak_check_fails_on_a_sabotaged_generator(task, monkeypatch):
    """Test data drawn from each seed's own training stream (the generator seeded
    like the training's, the batches drawn like the training's) are found."""
    config = bm.benchmark_config(task)
    monkeypatch.setattr(ex, "held_out_batch", lambda c, s, length=None: ex._training_batch(c, ex_gen(s % 1000)))
    leaked = bm.leaked_inputs(config, 0, 5)
    assert len(leaked) > 0
    assert leaked <= {tuple(r) for r in ex.training_batches(config, 0, 1)[0].inputs.tolist()}


def ex_gen(seed):
    return torch.Generator().manual_seed(seed)


def test_leak_check_fails_when_the_test_stream_is_seeded_like_the_training_one(monkeypatch):
    """local_sum with EVAL_SEED = 0: the test inputs of seed s are drawn from s's training stream."""
    config = bm.benchmark_config("local_sum", split_inputs=False)  # a split would hold them out even then
    monkeypatch.setattr(ex, "EVAL_SEED", 0)
    assert len(bm.leaked_inputs(config, 1, 3)) > 0


@pytest.mark.parametrize("seed", (0, 1, 2, 3, 4))
@pytest.mark.parametrize("task", bm.TASKS)
def test_no_test_or_validation_input_is_a_training_input(task, seed):
    """On every seed, every training input train_model draws up to the step cap
    against every test and validation input (leaked_inputs compares the first
    two); validation inputs are within the training length and no test input."""
    config = bm.benchmark_config(task)
    assert config.split_inputs
    train = ex.training_batches(config, seed, config.steps)
    test = [b for _, b in ex.held_out_batches(config, seed)]
    val = bm.validation_batches(config, seed)
    val_batches = [b for _, b in val]
    assert bm.shared_inputs(test, train) == set()
    assert [n for n, _ in val] == list(range(config.min_train_len, config.train_len + 1))
    assert max(b.inputs.shape[1] for b in val_batches) == max(b.inputs.shape[1] for b in train)
    assert bm.shared_inputs(val_batches, train) == set()
    assert bm.shared_inputs(val_batches, test) == set() == bm.shared_inputs(test, val_batches)
    assert bm.shared_inputs(val_batches, val_batches)  # the comparison itself finds what is shared


def test_shared_inputs_compares_whole_rows_or_cuts_longer_ones():
    from book.tasks import Batch

    def b(rows):
        t = torch.tensor(rows)
        return Batch(t, t, torch.ones_like(t, dtype=torch.bool))

    short = [b([[1, 2], [3, 4]])]
    assert bm.shared_inputs([b([[1, 2, 9], [5, 6, 7]])], short) == {(1, 2)}  # cut to 2 tokens
    assert bm.shared_inputs([b([[3, 4]])], short + [b([[0, 0, 0]])]) == {(3, 4)}  # same length: whole
    assert bm.shared_inputs([b([[1, 2, 9]])], short + [b([[1, 2, 8]])]) == set()  # a length in training: whole


def test_untrained_buckets_of_chapter_8_and_of_the_benchmark():
    """Chapter 8's default (32 buckets, max_distance 128, trained at 32 tokens,
    tested at 128) never trains buckets 22-31, which start at distance 35;
    the benchmark's T5 settings leave none untrained on any task."""
    assert bm.untrained_buckets(ex.Config(), 3) == set(range(22, 32))
    bucket = lambda d: int(t5_relative_bucket(torch.tensor([-d]), bidirectional=False))  # noqa: E731
    assert bucket(34) == 21 and bucket(35) == 22 and bucket(31) == 21
    for task in bm.TASKS:
        config = bm.benchmark_config(task)
        assert bm.untrained_buckets(config, 100) == set(), task
    wide = bm.benchmark_config("local_sum", t5_max_distance=128, t5_buckets=32)
    assert bm.untrained_buckets(wide, 3) == set(range(22, 32))


def _rec(met, loss):
    return {"met_stop_rule": met, "validation_loss": loss}


def test_choose_lr_follows_its_tie_rule():
    # more seeds meeting the stopping rule beats a lower validation loss
    assert bm.choose_lr({0.01: [_rec(True, 0.01), _rec(False, 0.02)], 0.003: [_rec(True, 0.2)] * 2}) == 0.003
    # then the lower mean validation loss, however small the difference
    assert bm.choose_lr({0.01: [_rec(True, 0.0301)], 0.003: [_rec(True, 0.0302)]}) == 0.01
    assert bm.choose_lr({0.01: [_rec(True, 0.05), _rec(True, 0.01)], 0.003: [_rec(True, 0.029)] * 2}) == 0.003
    # a full tie: the smallest rate
    assert bm.choose_lr({0.02: [_rec(True, 0.5)], 0.01: [_rec(True, 0.5)]}) == 0.01
    with pytest.raises(ValueError, match="sweep must map each learning rate"):
        bm.choose_lr({0.01: []})


def test_validation_loss_is_the_masked_cross_entropy_of_the_validation_data():
    config = bm.benchmark_config("recall", schemes=("alibi",), eval_seqs=8)
    model = ex._new_model(config, "alibi", 0)
    want = []
    for _, b in bm.validation_batches(config, 2):
        with torch.no_grad():
            logp = model(b.inputs).log_softmax(-1)
        want.append(float(-logp.gather(-1, b.targets[..., None])[..., 0][b.loss_mask].mean()))
    assert bm.validation_loss(model, config, 2) == pytest.approx(sum(want) / len(want), rel=1e-5)


def test_bucket_counts_count_every_causal_pair_of_the_training_inputs():
    config = bm.benchmark_config("copy")
    counts = bm.bucket_counts(config, 20, seed=1)
    batches = ex.training_batches(config, 1, 20)
    assert sum(counts) == sum(b.inputs.shape[0] * L * (L + 1) // 2 for b in batches for L in [b.inputs.shape[1]])
    brute = [0] * config.t5_buckets
    kw = {"num_buckets": config.t5_buckets, "max_distance": config.t5_max_distance, "bidirectional": False}
    for b in batches:
        L = b.inputs.shape[1]
        for i in range(L):
            for j in range(i + 1):
                brute[int(t5_relative_bucket(torch.tensor([j - i]), **kw))] += b.inputs.shape[0]
    assert counts == brute
    for task in bm.TASKS:  # every bucket a test input uses is trained, on every task
        config = bm.benchmark_config(task)
        counts = bm.bucket_counts(config, 100)
        kw = {"num_buckets": config.t5_buckets, "max_distance": config.t5_max_distance, "bidirectional": False}
        used = set(t5_relative_bucket(-torch.arange(config.max_len), **kw).tolist())
        assert all(counts[k] > 0 for k in used), (task, counts)


def test_buckets_in_use_are_the_buckets_of_every_causal_distance():
    """Brute force over the (query, key) pairs; the stored zeros are exactly
    the buckets no distance of the test inputs maps to."""
    import json
    from pathlib import Path

    for task in bm.TASKS:
        config = bm.benchmark_config(task)
        kw = {"num_buckets": config.t5_buckets, "max_distance": config.t5_max_distance, "bidirectional": False}
        for length in (1, 5, config.max_len):
            brute = {int(t5_relative_bucket(torch.tensor([j - i]), **kw)) for i in range(length) for j in range(i + 1)}
            assert bm.buckets_in_use(config, length) == brute
        stored = json.loads((Path(bm.__file__).parent / "results" / f"benchmark_{task}.json").read_text())
        counts = stored["t5_bucket_counts"]["counts"]
        zeros = {k for k, c in enumerate(counts) if c == 0}
        assert zeros == set(range(config.t5_buckets)) - bm.buckets_in_use(config, config.max_len), task
    with pytest.raises(ValueError, match="length must be a positive integer"):
        bm.buckets_in_use(bm.benchmark_config("recall"), 0)
    with pytest.raises(TypeError, match="config must be a book.experiments.Config"):
        bm.buckets_in_use({"t5_buckets": 16}, 4)


def test_excluded_runs_are_left_out_of_every_ranking():
    """A run marked excluded counts in no mean, range or ranking; a scheme with
    every run excluded disappears from them."""
    curve = [1.0, 1.0, 0.0, 0.0]
    results = {
        "config": {"task": "local_sum", "train_len": 2, "steps": 10, "test_len": 4},
        "runs": {
            "rope": {
                "0": {"curve": curve, "steps": 5, "train_seconds": 1.0, "excluded": None},
                "1": {"curve": [0.0] * 4, "steps": 10, "train_seconds": 1.0, "excluded": "capped"},
            },
            "none": {"0": {"curve": [0.0] * 4, "steps": 10, "train_seconds": 1.0, "excluded": "capped"}},
        },
    }
    within, past = ex.within_and_past(results)
    assert within == {"rope": [1.0]} and past == {"rope": [0.0]}
    assert set(ex.by_range(results, ((0.0, 1.0),))) == {"rope"}
    assert ex.conclusions(results)["ranking_by_worst_seed"] == ["rope"]
    assert "none" not in ex.summary_table(results)


def test_a_run_that_cannot_meet_the_stopping_rule_is_excluded_with_its_reason(tmp_path):
    """Three steps cannot bring recall's loss below 0.05: every run is excluded,
    says why, and no scheme is ranked. The file records config, sweep, chosen
    rate, runs with curves, mechanism numbers and timing, as JSON."""
    out = bm.run_suite(
        ("recall",), folder=tmp_path, workers=1, progress=False,
        schemes=("rope", "rope_nope"), seeds=(0,), steps=3, eval_seqs=8, test_len=10,
    )["recall"]  # fmt: skip
    stored = json.loads(bm.results_path("recall", tmp_path).read_text())
    assert (
        ex.Config.from_results(stored)
        == ex.Config.from_results(out)
        == bm.benchmark_config("recall", schemes=("rope", "rope_nope"), seeds=(0,), steps=3, eval_seqs=8, test_len=10)
    )
    assert stored["learning_rates"] == list(bm.LEARNING_RATES["recall"]) and stored["tie_rule"] == bm.TIE_RULE
    for scheme in ("rope", "rope_nope"):
        assert stored["chosen_lr"][scheme] in stored["learning_rates"]
        assert set(stored["sweep"][scheme]) == {str(lr) for lr in stored["learning_rates"]}
        assert set(stored["sweep"][scheme]["0.003"]["validation"]) == {"0"}
        assert stored["sweep"][scheme]["0.003"]["validation_loss"]["0"] > 0.05
        assert stored["sweep"][scheme]["0.003"]["excluded"]["0"].startswith("did not meet")
        run = stored["runs"][scheme]["0"]
        assert run["steps"] == 3 and run["met_stop_rule"] is False
        assert run["excluded"].startswith("did not meet the stopping rule in 3 steps")
        assert stored["excluded"][scheme] == {"0": run["excluded"]}
        assert len(run["curve"]) == 10 and run["curve"][:3] == [None] * 3  # n = 1..3 < 4 pairs: not scored
        assert len(run["mechanism"]["within"]["needed"]) == 2 and len(run["mechanism"]["past"]["self"][0]) == 2
    assert ex.within_and_past(stored) == ({}, {})
    assert stored["t5_bucket_counts"] is None  # no T5 among the schemes
    assert stored["timing"]["jobs"] == 6 and stored["timing"]["suite_seconds"] > 0
    assert "excluded" in bm.suite_table(stored) and "0" in bm.suite_table(stored).splitlines()[-1]


def test_train_job_is_train_model_with_the_swept_rate_and_evaluate_job_tests_it():
    import dataclasses

    config = bm.benchmark_config("copy", schemes=("alibi",), seeds=(1,), steps=4, eval_seqs=8, test_len=11)
    record, state = bm.train_job(config, "alibi", 1, 0.006)
    model, losses = ex.train_model(dataclasses.replace(config, lr=0.006), "alibi", 1)
    assert record["steps"] == len(losses) == 4 and record["lr"] == 0.006
    assert record["validation"] == round(bm.validation_score(model, config, 1), 4)
    assert record["validation_loss"] == round(bm.validation_loss(model, config, 1), 5)
    tested = bm.evaluate_job(config, "alibi", 1, state)
    assert tested["curve"] == ex.evaluate(model, config, 1)
    assert tested["whole_curve"] == ex.evaluate(model, dataclasses.replace(config, copy_score="whole"), 1)
    assert all(w <= c for w, c in zip(tested["whole_curve"][7:], tested["curve"][7:]))


def test_benchmark_configs_and_chapter_8_default():
    """The benchmark trains all seven schemes; Config() keeps chapter 8's six."""
    assert ex.Config().schemes == ex.DEFAULT_SCHEMES == tuple(s for s in models.SCHEMES if s != "rope_nope")
    for task in bm.TASKS:
        config = bm.benchmark_config(task)
        assert config.schemes == models.SCHEMES and config.seeds == (0, 1, 2, 3, 4) and config.task == task
        assert (config.d_model, config.n_heads, config.n_layers, config.stop_loss) == (32, 2, 2, 0.05)
        assert config.input_len(config.test_len) >= 2 * config.input_len(config.train_len)
    with pytest.raises(ValueError, match="task must be one of"):
        bm.benchmark_config("fibonacci")


def test_suite_command_line():
    p = experiments_cli.parser()
    assert experiments_cli.config_from_args(p.parse_args([])) == ex.Config()  # no options: chapter 8's default
    recall = experiments_cli.config_from_args(
        p.parse_args(["--task", "recall", "--train-len", "8", "--test-len", "16"])
    )
    assert recall == ex.Config(task="recall", train_len=8, test_len=16)
    assert p.parse_args(["--suite", "--task", "copy"]).suite
    with pytest.raises(SystemExit):
        experiments_cli.run_suite_from_args(p.parse_args(["--suite", "--task", "fibonacci"]))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"task": "local_sum", "min_len": 2}, "min_len must be None or, for copy and recall"),
        ({"task": "copy", "train_len": 4, "test_len": 8, "min_len": 5}, "min_len must be None or"),
        ({"task": "recall", "train_len": 8, "test_len": 40}, r"n_pairs must be between n_queries \(4\) and n_keys"),
        ({"task": "recall", "train_len": 8, "test_len": 16, "min_len": 2}, "n_pairs must be between"),
        ({"t5_buckets": 16, "t5_max_distance": 8}, "t5_max_distance must exceed"),
        ({"t5_buckets": 0}, "t5_buckets must be a positive integer"),
    ],
)
def test_config_rejects_bad_benchmark_settings(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ex.Config(**kwargs)


def test_copy_scores_whole_copies_or_symbols():
    """copy_score="whole" (chapter 8's) counts a copy only if every symbol is right;
    "symbols" counts the symbols right; the benchmark stores both curves."""
    from book.tasks import copy_task

    b = copy_task(64, 3, n_symbols=10, generator=ex_gen(0))
    model = models.TinyTransformer(12, position="alibi", d_model=16, n_heads=2, max_len=7, seed=0)
    with torch.no_grad():
        hit = (model(b.inputs).argmax(-1) == b.targets)[:, 4:]
    whole, symbols = (ex.Config(task="copy", copy_score=c, train_len=3, test_len=4) for c in ("whole", "symbols"))
    assert ex.score(model, whole, b) == float(hit.all(1).double().mean())
    assert ex.score(model, symbols, b) == float(hit.double().mean())
    assert ex.Config(task="copy").copy_score == "whole"
    with pytest.raises(ValueError, match="copy_score must be one of"):
        ex.Config(copy_score="exact")


def test_bad_input_to_the_held_out_check_and_the_runner_names_the_parameter():
    with pytest.raises(ValueError, match="second must hold at least one batch"):
        bm.shared_inputs([], [])
    with pytest.raises(ValueError, match="start_method must be one of"):
        bm.run_task(bm.benchmark_config("local_sum", steps=1), learning_rates=(0.01,), start_method="bogus")


def test_config_refuses_a_split_setting_that_is_not_a_bool():
    with pytest.raises(TypeError, match="split_inputs must be True or False"):
        ex.Config(split_inputs="yes")


def test_run_task_takes_a_list_of_rates_per_scheme(tmp_path):
    """A mapping gives each scheme its own rates (say, its chosen one alone); every
    scheme's sweep, chosen rate and runs use its own rates only."""
    config = bm.benchmark_config("copy", schemes=("alibi", "rope"), seeds=(0,), steps=2, eval_seqs=8, test_len=11)
    out = bm.run_task(config, learning_rates={"alibi": [0.006], "rope": [0.003, 0.012]}, workers=1, progress=False)
    assert out["chosen_lr"]["alibi"] == 0.006 and out["chosen_lr"]["rope"] in (0.003, 0.012)
    assert set(out["sweep"]["alibi"]) == {"0.006"} and set(out["sweep"]["rope"]) == {"0.003", "0.012"}
    assert out["learning_rates"] == {"alibi": [0.006], "rope": [0.003, 0.012]}
    assert out["runs"]["alibi"]["0"]["lr"] == 0.006 and out["timing"]["jobs"] == 3
    with pytest.raises(ValueError, match=r"learning_rates must give rates for the schemes \['alibi', 'rope'\]"):
        bm.run_task(config, learning_rates={"alibi": [0.006]}, workers=1)
    with pytest.raises(ValueError, match="learning_rates of rope must be distinct positive numbers"):
        bm.run_task(config, learning_rates={"alibi": [0.006], "rope": [0.01, 0.01]}, workers=1)
    with pytest.raises(ValueError, match="learning_rates of alibi must be distinct positive numbers"):
        bm.run_task(config, learning_rates=(), workers=1)


@pytest.mark.parametrize("task", bm.TASKS)
def test_each_rerun_file_runs_the_suite_again_under_the_plain_kernels(task):
    """benchmark_<task>_rerun.json: the committed config and sweep grid, every
    scheme and seed, run again under ATEN_CPU_CAPABILITY=default (its sweep may
    choose other rates)."""
    import shlex

    from book import results

    words = shlex.split(results.COMMANDS[f"benchmark_{task}_rerun"])
    args = experiments_cli.parser().parse_args(words[3:])
    assert args.suite and args.rerun and args.task == task and args.output is None
    assert bm.results_path(task, rerun=True).name == f"benchmark_{task}_rerun.json"
    first, again = results.load(f"benchmark_{task}"), results.load(f"benchmark_{task}_rerun")
    assert again["rerun"] is True and again["cpu_capability"] == "DEFAULT"
    assert ex.Config.from_results(again) == ex.Config.from_results(first) == bm.benchmark_config(task)
    assert again["learning_rates"] == first["learning_rates"] == list(bm.LEARNING_RATES[task])
    assert set(again["chosen_lr"]) == set(first["chosen_lr"])
    assert all(again["chosen_lr"][s] in again["learning_rates"] for s in again["chosen_lr"])
    for scheme, per_seed in again["runs"].items():
        assert all(r["lr"] == again["chosen_lr"][scheme] for r in per_seed.values())
    for scheme, per_seed in again["runs"].items():
        assert sorted(per_seed) == sorted(first["runs"][scheme])
        assert all(len(r["curve"]) == len(first["runs"][scheme][k]["curve"]) for k, r in per_seed.items())


def test_regeneration_change_is_the_largest_move_of_a_seed_within_and_past():
    import dataclasses

    config = bm.benchmark_config("local_sum", schemes=("rope",), seeds=(0, 1), test_len=40)

    def fake(within, past):
        curve = lambda w, p: [w] * 32 + [p] * 8  # noqa: E731
        runs = {
            "rope": {str(k): {"curve": curve(w, p), "excluded": None} for k, (w, p) in enumerate(zip(within, past))}
        }
        return {"config": dataclasses.asdict(config), "runs": runs}

    change = bm.regeneration_change(fake([0.9, 0.8], [0.5, 0.4]), fake([0.9, 0.85], [0.2, 0.4]))
    assert change["rope"]["within"] == pytest.approx(0.05) and change["rope"]["past"] == pytest.approx(0.3)
    other = fake([0.9, 0.8], [0.5, 0.4]) | {"config": dataclasses.asdict(config) | {"lr": 0.5}}
    with pytest.raises(ValueError, match="must be results of the same config"):
        bm.regeneration_change(fake([0.9, 0.8], [0.5, 0.4]), other)
    dropped = fake([0.9, 0.8], [0.5, 0.4])
    dropped["runs"]["rope"]["1"]["excluded"] = "did not meet the stopping rule"
    with pytest.raises(ValueError, match="the runs of rope that count differ"):
        bm.regeneration_change(fake([0.9, 0.8], [0.5, 0.4]), dropped)


def test_a_rerun_of_the_suite_writes_its_own_files_with_the_cpu_capability(tmp_path):
    out = bm.run_suite(
        ("recall",), folder=tmp_path, workers=1, progress=False, rerun=True,
        schemes=("rope",), seeds=(0,), steps=3, eval_seqs=8, test_len=10,
    )["recall"]  # fmt: skip
    assert not bm.results_path("recall", tmp_path).exists()
    stored = json.loads(bm.results_path("recall", tmp_path, rerun=True).read_text())
    assert stored["rerun"] is True and stored["cpu_capability"] == torch.backends.cpu.get_cpu_capability()
    assert stored["cpu_capability"] == out["cpu_capability"] and stored["learning_rates"] == list(
        bm.LEARNING_RATES["recall"]
    )


def test_every_rate_tests_each_rate_s_models_and_the_chosen_rate_s_curve_is_the_run_s():
    """With every_rate, each (scheme, lr) of the sweep holds every seed's test
    curve; the chosen rate's curve is the one in runs, and a rate that was not
    chosen is a model of its own (its curve is its own evaluation)."""
    config = bm.benchmark_config("copy", schemes=("rope",), seeds=(0, 1), steps=3, eval_seqs=8, test_len=11)
    out = bm.run_task(config, learning_rates=(0.003, 0.012), workers=1, progress=False, every_rate=True)
    assert out["every_rate"] is True
    chosen = str(out["chosen_lr"]["rope"])
    for rec in out["sweep"]["rope"].values():
        assert set(rec["curve"]) == {"0", "1"} and set(rec["whole_curve"]) == {"0", "1"}
    for seed in ("0", "1"):
        assert out["sweep"]["rope"][chosen]["curve"][seed] == out["runs"]["rope"][seed]["curve"]
    plain = bm.run_task(config, learning_rates=(0.003, 0.012), workers=1, progress=False)
    assert plain["every_rate"] is False and "curve" not in plain["sweep"]["rope"][chosen]
    timeless = lambda runs: {  # noqa: E731
        seed: {k: v for k, v in r.items() if not k.endswith("_seconds")} for seed, r in runs["rope"].items()
    }
    assert timeless(plain["runs"]) == timeless(out["runs"])


def test_results_path_names_the_every_rate_file_and_refuses_it_with_rerun(tmp_path):
    assert bm.results_path("recall", tmp_path, every_rate=True) == tmp_path / "benchmark_recall_every_rate.json"
    with pytest.raises(ValueError, match="rerun and every_rate"):
        bm.results_path("recall", tmp_path, rerun=True, every_rate=True)
    with pytest.raises(ValueError, match="rerun and every_rate"):
        bm.run_suite(("recall",), folder=tmp_path, rerun=True, every_rate=True)


def test_every_rate_needs_the_suite_on_the_command_line(capsys):
    with pytest.raises(SystemExit) as err:
        ex.main(["--every-rate"])
    assert err.value.code == 2 and "--every-rate needs --suite" in capsys.readouterr().err
    with pytest.raises(SystemExit) as err:
        ex.main(["--suite", "--task", "recall", "--every-rate", "--rerun"])
    assert err.value.code == 2 and "--every-rate runs the sweep alone" in capsys.readouterr().err


@pytest.mark.parametrize("task", ["copy", "recall"])
def test_one_pass_validation_equals_a_pass_for_the_score_and_one_for_the_loss(task):
    """train_job's score and loss come from one forward pass per validation
    batch; they equal, to the bit, the mean of ``score`` over freshly drawn
    batches and the mean cross-entropy of a second forward pass."""
    config = bm.benchmark_config(task, schemes=("t5",), eval_seqs=16)
    model = ex._new_model(config, "t5", 0)
    scores, losses = 0.0, 0.0
    for _, b in bm.validation_batches(config, 3):
        scores += ex.score(model, config, b)
        with torch.no_grad():
            logits = model(b.inputs)
        losses += float(torch.nn.functional.cross_entropy(logits[b.loss_mask], b.targets[b.loss_mask]))
    n = len(bm.validation_batches(config, 3))
    assert bm.validation_score(model, config, 3) == scores / n
    assert bm.validation_loss(model, config, 3) == losses / n


def test_evaluate_job_scores_both_copy_curves_as_separate_passes_would():
    """Both copy curves of ``evaluate_job`` (symbols and whole copies) come from one pass over the
    test data; each equals, to the bit, ``score`` on every freshly drawn test batch."""
    import dataclasses

    config = bm.benchmark_config("copy", schemes=("rope",), eval_seqs=16, test_len=12)
    model = ex._new_model(config, "rope", 2)
    tested = bm.evaluate_job(config, "rope", 2, model.state_dict())
    whole = dataclasses.replace(config, copy_score="whole")
    batches = ex.held_out_batches(config, 2)
    head = [None] * (config.min_train_len - 1)
    assert tested["curve"] == head + [round(ex.score(model, config, b), 4) for _, b in batches]
    assert tested["whole_curve"] == head + [round(ex.score(model, whole, b), 4) for _, b in batches]
    assert tested["curve"] != tested["whole_curve"]
