"""The committed results ship with the package and name the command that makes them."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
import torch

from book import _experiments_cli as experiments_cli
from book import experiments, results

ROOT = Path(__file__).resolve().parents[2]


def test_every_committed_file_is_known_and_loads():
    on_disk = sorted(p.stem for p in (ROOT / "book" / "results").glob("*.json"))
    assert results.names() == on_disk == sorted(results.COMMANDS)
    for name in on_disk:
        assert isinstance(results.load(name), dict)


@pytest.mark.parametrize("name", ["local_sum", "local_sum_full", "fibonacci", "copy"])
def test_each_experiments_command_makes_the_config_its_file_records(name):
    words = shlex.split(results.COMMANDS[name])
    assert words[:3] == ["python", "-m", "book.experiments"]
    args = experiments_cli.parser().parse_args(words[3:])
    assert str(args.output) == f"book/results/{name}.json"
    assert experiments_cli.config_from_args(args) == experiments.Config.from_results(results.load(name))


def test_the_timing_command_writes_its_file():
    words = shlex.split(results.COMMANDS["rope_compile"])
    assert words[:2] == ["python", "benchmarks/rope_speed.py"] and (ROOT / words[1]).is_file()
    assert words[words.index("--compile") + 1] == "book/results/rope_compile.json"
    assert results.load("rope_compile")["shape"][2] == int(words[words.index("--lengths") + 1])


def test_bad_names_are_refused_clearly():
    with pytest.raises(TypeError, match="name must be a str"):
        results.load(3)
    with pytest.raises(ValueError, match="name must be one of"):
        results.load("local_sum.json")


def test_a_missing_file_says_how_to_make_it(monkeypatch, tmp_path):
    (tmp_path / "local_sum.json").write_text("{}")
    monkeypatch.setattr(results.resources, "files", lambda _: tmp_path)
    assert results.load("local_sum") == {}
    with pytest.raises(FileNotFoundError) as err:
        results.load("copy")
    assert results.COMMANDS["copy"] in str(err.value) and "book/results/copy.json" in str(err.value)


@pytest.mark.parametrize("task", ["local_sum", "recall", "copy"])
def test_each_benchmark_file_comes_from_its_suite_command_and_config(task):
    """The command runs one task of --suite, whose config (book.benchmark.benchmark_config)
    the committed file records; every scheme and seed is there, with its lr from the sweep."""
    from book import benchmark

    words = shlex.split(results.COMMANDS[f"benchmark_{task}"])
    args = experiments_cli.parser().parse_args(words[3:])
    assert args.suite and args.task == task and args.output is None
    assert benchmark.results_path(task) == ROOT / "book" / "results" / f"benchmark_{task}.json"
    stored = results.load(f"benchmark_{task}")
    config = benchmark.benchmark_config(task)
    assert experiments.Config.from_results(stored) == config
    assert set(stored["runs"]) == set(config.schemes) == set(stored["chosen_lr"])
    for scheme, per_seed in stored["runs"].items():
        assert sorted(per_seed) == [str(s) for s in config.seeds]
        assert all(r["lr"] == stored["chosen_lr"][scheme] for r in per_seed.values())
        assert all((r["excluded"] is None) == r["met_stop_rule"] for r in per_seed.values())


def test_a_state_dict_goes_to_json_and_back_bit_for_bit():
    import json

    import torch

    state = {"w": torch.randn(3, 4, generator=torch.Generator().manual_seed(0)), "b": torch.tensor([1e-30, -0.0, 7.5])}
    back = results.state_from_json(json.loads(json.dumps(results.state_to_json(state))))
    assert list(back) == ["w", "b"]
    for name, tensor in state.items():
        assert back[name].dtype == torch.float32 and back[name].shape == tensor.shape
        assert torch.equal(back[name].view(torch.int32), tensor.view(torch.int32))  # the same bits
    with pytest.raises(TypeError, match=r"state\['i'\] must be a float32 tensor"):
        results.state_to_json({"i": torch.arange(3)})
    bad = results.state_to_json({"w": torch.zeros(2, 2)})
    bad["w"]["shape"] = [2, 3]
    with pytest.raises(ValueError, match=r"4 values do not fill the shape \(2, 3\)"):
        results.state_from_json(bad)


@pytest.mark.parametrize("task", ["local_sum", "recall", "copy"])
def test_the_annealed_models_come_from_their_command_and_config(monkeypatch, task):
    """Chapter 9's models: the benchmark's RoPE config of the task at the rate its
    sweep chose, trained for every step of the cap; the stored weights give the
    stored validation scores, and retraining seed 0 repeats its stored loss curve."""
    from book import annealed, benchmark, models

    words = shlex.split(results.COMMANDS[f"annealed_{task}_rope"])
    args = experiments_cli.parser().parse_args(words[3:])
    assert args.suite and args.task == task and args.anneal == "rope" and args.output is None
    stored = results.load(f"annealed_{task}_rope")
    lr = results.load(f"benchmark_{task}")["chosen_lr"]["rope"]
    config = annealed.annealed_config(task, "rope", lr)
    assert experiments.Config.from_results(stored) == config and config.stop_loss is None
    assert sorted(stored["runs"]) == [str(s) for s in config.seeds]
    assert models.lr_schedule(config.steps, lr)(config.steps) == 0.0  # the rate ends at 0
    for seed, model in annealed.annealed_models(stored).items():
        record = stored["runs"][str(seed)]
        assert record["steps"] == config.steps  # every step of the cap
        assert record["validation"] == round(benchmark.validation_score(model, config, seed), 4)
    # the first 200 steps of seed 0 again: the loss of each step, as train sees it
    seen: list[float] = []
    real = models.F.cross_entropy

    def recorded(*a, **k):
        loss = real(*a, **k)
        seen.append(loss.item())  # what train records: the step's loss as a Python float
        return loss

    def stop(step, _model):
        if step == 200:
            raise KeyboardInterrupt  # leaves train; nothing else raises it here

    monkeypatch.setattr(models.F, "cross_entropy", recorded)
    model = experiments._new_model(config, "rope", 0)
    with pytest.raises(KeyboardInterrupt):
        models.train(model, lambda g: experiments._training_batch(config, g), steps=config.steps, lr=lr, callback=stop)
    assert len(seen) == 200
    again, kept = experiments._loss_curve(seen), stored["runs"]["0"]["loss_curve"][:20]
    assert max(abs(a - b) for a, b in zip(again, kept)) < 2e-3


@pytest.mark.parametrize("task", ["local_sum", "recall", "copy"])
def test_the_annealed_rerun_trains_the_same_config_under_the_plain_kernels(task):
    """annealed_<task>_rope_rerun.json: the command with --rerun, the same
    config, every seed to the cap, run under ATEN_CPU_CAPABILITY=default."""
    from book import annealed, benchmark

    words = shlex.split(results.COMMANDS[f"annealed_{task}_rope_rerun"])
    args = experiments_cli.parser().parse_args(words[3:])
    assert args.suite and args.rerun and args.task == task and args.anneal == "rope"
    first, again = results.load(f"annealed_{task}_rope"), results.load(f"annealed_{task}_rope_rerun")
    assert again["rerun"] is True and again["cpu_capability"] == "DEFAULT"
    assert "rerun" not in first and "cpu_capability" not in first
    config = experiments.Config.from_results(again)
    assert config == experiments.Config.from_results(first)
    assert sorted(again["runs"]) == sorted(first["runs"])
    for seed, model in annealed.annealed_models(again).items():
        record = again["runs"][str(seed)]
        assert record["steps"] == config.steps
        assert record["validation"] == round(benchmark.validation_score(model, config, seed), 4)


def test_run_annealed_with_rerun_records_the_cpu_capability():
    from book import annealed

    kwargs = dict(workers=1, progress=False, seeds=(0,), steps=3, eval_seqs=8, test_len=40)
    plain = annealed.run_annealed("local_sum", "rope", **kwargs)
    again = annealed.run_annealed("local_sum", "rope", rerun=True, **kwargs)
    assert "rerun" not in plain and "cpu_capability" not in plain
    assert again["rerun"] is True and again["cpu_capability"] == torch.backends.cpu.get_cpu_capability()
    assert again["runs"]["0"]["state"] == plain["runs"]["0"]["state"]  # the same training, on one machine
    with pytest.raises(TypeError, match="rerun must be True or False"):
        annealed.run_annealed("local_sum", "rope", rerun="yes", **kwargs)


# how far a stored score may move on another CPU: recomputed under
# ATEN_CPU_CAPABILITY=default and avx2 (YaRN and PI, seeds 0 and 1, both runs,
# both tasks), none moved by more than 2e-5, one answer in a scored length
STRETCH_ROOM = 1e-3


def _same_cell(stored: dict[str, float], computed: dict[str, float]) -> bool:
    return stored.keys() == computed.keys() and all(abs(stored[k] - computed[k]) <= STRETCH_ROOM for k in stored)


@pytest.mark.parametrize("task", ["recall", "copy"])
def test_the_stretch_scores_are_what_stretch_scores_computes_from_the_annealed_models(task):
    """stretch_<task>_rope.json: its command, its sources, its setting, every
    (rule, seed) of both runs, and one recomputed cell per run (YaRN, seed 1)
    equal to the stored one, while a sabotaged value and another rule differ."""
    from book import annealed

    words = shlex.split(results.COMMANDS[f"stretch_{task}_rope"])
    args = experiments_cli.parser().parse_args(words[3:])
    assert args.suite and args.task == task and args.stretch == "rope" and not args.rerun and args.output is None
    stored = results.load(f"stretch_{task}_rope")
    sources = {"committed": f"annealed_{task}_rope", "rerun": f"annealed_{task}_rope_rerun"}
    assert stored["sources"] == sources and stored["task"] == task and stored["scheme"] == "rope"
    models = {run: results.load(name) for run, name in sources.items()}
    assert stored["config"] == models["committed"]["config"]
    assert (stored["scale"], stored["original_max_len"]) == annealed.stretch_setting(models["committed"])
    assert stored["rules"] == list(annealed.STRETCH_RULES) == list(stored["scores"]["committed"])
    for run, source in models.items():
        for rule in stored["rules"]:
            assert sorted(stored["scores"][run][rule]) == sorted(source["runs"])
            assert all(0 <= v <= 1 for cell in stored["scores"][run][rule].values() for v in cell.values())
        computed = annealed.stretch_scores(source, ["YaRN"], seeds=[1])["YaRN"]["1"]
        kept = stored["scores"][run]["YaRN"]["1"]
        assert _same_cell(kept, computed), (run, kept, computed)
        assert not _same_cell({**kept, "past": kept["past"] + 10 * STRETCH_ROOM}, computed)  # sabotaged
        assert not _same_cell(stored["scores"][run]["PI"]["1"], computed)  # another rule's cell


def test_stretch_scores_averages_the_curve_within_and_past_the_training_length(monkeypatch):
    """With a made-up result curve, within and past are its means over the
    scored lengths up to train_len and beyond it, per rule and seed, and the
    model gets the rule's frequencies at stretch_setting's scale."""
    from book import annealed, scaling

    stored = results.load("annealed_copy_rope")
    config = experiments.Config.from_results(stored)
    seen = []

    def fake(model, cfg, seed):
        seen.append(model.rope_freqs.clone())
        skip = [None] * (cfg.min_train_len - 1)
        return skip + [seed / 10 + n / 1000 for n in range(cfg.min_train_len, cfg.test_len + 1)]

    monkeypatch.setattr(annealed, "evaluate", fake)
    out = annealed.stretch_scores(stored, ["PI", "YaRN"], seeds=[2, 0])
    assert list(out) == ["PI", "YaRN"] and list(out["PI"]) == ["0", "2"]
    inside = range(config.min_train_len, config.train_len + 1)
    beyond = range(config.train_len + 1, config.test_len + 1)
    for seed in (0, 2):
        assert out["PI"][str(seed)]["within"] == round(seed / 10 + sum(inside) / len(inside) / 1000, 6)
        assert out["YaRN"][str(seed)]["past"] == round(seed / 10 + sum(beyond) / len(beyond) / 1000, 6)
    assert annealed.stretch_setting(stored) == (43 / 21, 21)  # copy: 2n + 1 tokens at n = 21 and 10
    head = config.d_model // config.n_heads
    expected = [scaling.RULES[rule](head, scale=43 / 21, original_max_len=21)[0] for rule in ("PI", "YaRN")]
    assert len(seen) == 4 and all(torch.equal(f, e) for f, e in zip(seen, expected * 2))


def test_run_stretch_scores_both_runs_of_every_seed(monkeypatch):
    from book import annealed

    calls = []

    def fake(results_dict, rules, *, seeds=None):
        calls.append((results_dict.get("rerun", False), tuple(rules), seeds))
        return {rule: {str(s): {"within": 0.5, "past": float(s)} for s in seeds} for rule in rules}

    monkeypatch.setattr(annealed, "stretch_scores", fake)
    out = annealed.run_stretch("copy", rules=["PI"], workers=1, progress=False)
    assert out["stretch"] is True and out["rules"] == ["PI"] and out["task"] == "copy"
    assert (
        out["scores"]["committed"]
        == out["scores"]["rerun"]
        == {"PI": {str(s): {"within": 0.5, "past": float(s)} for s in range(5)}}
    )
    assert sorted(c[0] for c in calls if c[2]) == [False] * 5 + [True] * 5


def test_the_stretch_functions_refuse_bad_input_clearly():
    from book import annealed

    stored = results.load("annealed_copy_rope")
    with pytest.raises(TypeError, match="results must be the dict"):
        annealed.stretch_scores({"runs": {}}, ["PI"])
    with pytest.raises(TypeError, match="results must be the dict"):
        annealed.stretch_setting([1])
    with pytest.raises(TypeError, match="rules must be a sequence"):
        annealed.stretch_scores(stored, "PI")
    with pytest.raises(ValueError, match="rules must be one of"):
        annealed.stretch_scores(stored, ["PI", "pi"])
    with pytest.raises(ValueError, match="rules must name at least one rule, each once"):
        annealed.stretch_scores(stored, ["PI", "PI"])
    with pytest.raises(ValueError, match="rules must name at least one rule"):
        annealed.stretch_scores(stored, [])
    with pytest.raises(TypeError, match="seeds must be a sequence"):
        annealed.stretch_scores(stored, ["PI"], seeds=3)
    with pytest.raises(ValueError, match="seeds must be one of"):
        annealed.stretch_scores(stored, ["PI"], seeds=[7])
    with pytest.raises(ValueError, match="RoPE models"):
        annealed.stretch_scores({**stored, "scheme": "alibi"}, ["PI"])
    with pytest.raises(ValueError, match="task must be one of"):
        annealed.run_stretch("fibonacci")
    with pytest.raises(ValueError, match="scheme must be one of"):
        annealed.run_stretch("copy", "alibi")
    with pytest.raises(ValueError, match="workers"):
        annealed.run_stretch("copy", workers=0)
    for argv in (["--suite", "--stretch", "rope"], ["--suite", "--task", "copy", "--stretch", "rope", "--rerun"]):
        with pytest.raises(SystemExit):
            experiments_cli.run_suite_from_args(experiments_cli.parser().parse_args(argv))


# how far a stored fine-tune score may move on another CPU: recomputed under
# ATEN_CPU_CAPABILITY=default and avx2 (every rule, seeds 0 and 1, both runs),
# none moved at all; 1e-3 is about 8 of the 7,936 scored answers within 32
# tokens and 25 of the 24,576 past them
FINE_TUNE_ROOM = 1e-3


def test_the_fine_tune_scores_are_what_fine_tune_scores_computes_from_the_annealed_models():
    """finetune_local_sum_rope.json: its command, its sources, its setting,
    every (rule, seed) of both runs, and recomputed cells equal to the stored
    ones: the rerun's seed 0 under every rule (the one model the rerun moved
    far, which the chapter does not recompute; the committed seed 0 differs)
    and the committed seeds 1 to 4 under PI (a swap of seeds differs), while
    a sabotaged value and another rule's cell differ."""
    from book import annealed

    words = shlex.split(results.COMMANDS["finetune_local_sum_rope"])
    args = experiments_cli.parser().parse_args(words[3:])
    assert args.suite and args.task == "local_sum" and args.fine_tune == "rope" and args.output is None
    stored = results.load("finetune_local_sum_rope")
    sources = {"committed": "annealed_local_sum_rope", "rerun": "annealed_local_sum_rope_rerun"}
    assert stored["sources"] == sources and stored["task"] == "local_sum" and stored["scheme"] == "rope"
    assert stored["fine_tune"] == annealed.FINE_TUNE == {"length": 128, "steps": 30, "lr": 1e-3}
    models = {run: results.load(name) for run, name in sources.items()}
    assert stored["config"] == models["committed"]["config"]
    assert stored["rules"] == list(annealed.STRETCH_RULES) == list(stored["scores"]["committed"])
    for run, source in models.items():
        for rule in stored["rules"]:
            assert sorted(stored["scores"][run][rule]) == sorted(source["runs"])
            assert all(0 <= v <= 1 for cell in stored["scores"][run][rule].values() for v in cell.values())

    def same(a: dict[str, float], b: dict[str, float]) -> bool:
        return a.keys() == b.keys() and all(abs(a[k] - b[k]) <= FINE_TUNE_ROOM for k in a)

    rerun0 = annealed.fine_tune_scores(models["rerun"], seeds=[0])
    for rule, cells in rerun0.items():
        assert same(stored["scores"]["rerun"][rule]["0"], cells["0"]), (rule, cells)
    assert not all(same(stored["scores"]["committed"][rule]["0"], rerun0[rule]["0"]) for rule in rerun0)  # a swap
    pi = annealed.fine_tune_scores(models["committed"], ["PI"], seeds=[1, 2, 3, 4])["PI"]
    for seed, computed in pi.items():
        kept = stored["scores"]["committed"]["PI"][seed]
        assert same(kept, computed), (seed, kept, computed)
        assert not same({**kept, "within": kept["within"] + 10 * FINE_TUNE_ROOM}, computed)  # sabotaged
        assert not same(stored["scores"]["committed"]["YaRN"][seed], computed)  # another rule's cell
    assert len({(c["within"], c["past"]) for c in pi.values()}) == 4  # a swap of seeds would differ


def _rope_state(model) -> tuple:
    freqs = None if model.rope_freqs is None else tuple(model.rope_freqs.tolist())
    return freqs, model.rope_factor


def test_fine_tune_scores_trains_a_copy_under_the_rule_and_scores_it_at_the_length(monkeypatch):
    """With training and scoring recorded: each rule's copy is trained on
    local_sum batches of FINE_TUNE's length, for its steps at its rate and
    the model's seed, and scored with the rule still on; the original model is
    left as it was; within and past split the curve at train_len."""
    from book import annealed

    stored = results.load("annealed_local_sum_rope")
    L = experiments.Config.from_results(stored).train_len
    trained, scored = [], []

    def fake_train(model, make_batch, *, steps, lr, seed):
        batch = make_batch(torch.Generator().manual_seed(0))
        trained.append((id(model), batch.inputs.shape[1], steps, lr, seed, _rope_state(model)))
        return [0.0] * steps

    def fake_accuracy(model, batch):
        scored.append((id(model), batch.inputs.shape[1], _rope_state(model)))
        return torch.cat([torch.full((L,), 0.75), torch.full((batch.inputs.shape[1] - L,), 0.25)])

    monkeypatch.setattr(annealed, "train", fake_train)
    monkeypatch.setattr(annealed, "accuracy_by_position", fake_accuracy)
    untouched = annealed.annealed_models(stored)[0]
    out = annealed.fine_tune_scores(stored, ["PI", "YaRN"], seeds=[2, 0])
    assert out == {r: {s: {"within": 0.75, "past": 0.25} for s in ("0", "2")} for r in ("PI", "YaRN")}
    assert [t[1:5] for t in trained] == [(128, 30, 1e-3, s) for s in (0, 2)] * 2
    assert [(t[0], t[5]) for t in trained] == [(s[0], s[2]) for s in scored]  # the trained copy, rule on
    assert len({t[5] for t in trained}) == 2 and all(s[1] == 128 for s in scored)
    assert _rope_state(untouched) == (None, 1.0)  # the copies were rescaled


def test_a_job_in_this_process_gives_back_the_callers_threads(monkeypatch):
    """With one worker the jobs run here; each sets one torch thread and then
    restores the caller's count."""
    from book import annealed

    seen = []

    def fake(results_dict, rules, *, seeds=None):
        seen.append(torch.get_num_threads())
        return {rule: {str(s): {"within": 0.5, "past": 0.5} for s in seeds} for rule in rules}

    monkeypatch.setattr(annealed, "fine_tune_scores", fake)
    monkeypatch.setattr(annealed, "stretch_scores", fake)
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        annealed._fine_tune_job("annealed_local_sum_rope", 0, ("PI",))
        annealed._stretch_job("annealed_copy_rope", 0, ("PI",))
        assert seen == [1, 1] and torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


def test_run_fine_tune_tunes_both_runs_of_every_seed(monkeypatch):
    from book import annealed

    calls = []

    def fake(results_dict, rules, *, seeds=None):
        calls.append((results_dict.get("rerun", False), tuple(rules), seeds))
        return {rule: {str(s): {"within": 0.5, "past": float(s)} for s in seeds} for rule in rules}

    monkeypatch.setattr(annealed, "fine_tune_scores", fake)
    out = annealed.run_fine_tune(rules=["PI"], workers=1, progress=False)
    assert out["fine_tune"] == annealed.FINE_TUNE and out["rules"] == ["PI"] and out["task"] == "local_sum"
    assert (
        out["scores"]["committed"]
        == out["scores"]["rerun"]
        == {"PI": {str(s): {"within": 0.5, "past": float(s)} for s in range(5)}}
    )
    assert sorted(c[0] for c in calls if c[2]) == [False] * 5 + [True] * 5


def test_the_fine_tune_functions_refuse_bad_input_clearly():
    from book import annealed

    stored = results.load("annealed_local_sum_rope")
    with pytest.raises(TypeError, match="results must be the dict"):
        annealed.fine_tune_scores({"runs": {}}, ["PI"])
    with pytest.raises(ValueError, match="local_sum run"):
        annealed.fine_tune_scores(results.load("annealed_copy_rope"), ["PI"])
    with pytest.raises(ValueError, match="RoPE models to fine-tune"):
        annealed.fine_tune_scores({**stored, "scheme": "alibi"}, ["PI"])
    with pytest.raises(TypeError, match="it has no config"):
        annealed.fine_tune_scores({k: v for k, v in stored.items() if k != "config"}, ["PI"])
    with pytest.raises(TypeError, match="progress must be True or False"):
        annealed.run_fine_tune(progress="yes")
    with pytest.raises(TypeError, match="rules must be a sequence"):
        annealed.fine_tune_scores(stored, "PI")
    with pytest.raises(ValueError, match="rules must name at least one rule, each once"):
        annealed.fine_tune_scores(stored, ["PI", "PI"])
    with pytest.raises(TypeError, match="seeds must be a sequence"):
        annealed.fine_tune_scores(stored, ["PI"], seeds=3)
    with pytest.raises(ValueError, match="seeds must be one of"):
        annealed.fine_tune_scores(stored, ["PI"], seeds=[7])
    with pytest.raises(ValueError, match="task must be one of"):
        annealed.run_fine_tune("copy")
    with pytest.raises(ValueError, match="scheme must be one of"):
        annealed.run_fine_tune("local_sum", "alibi")
    with pytest.raises(ValueError, match="workers"):
        annealed.run_fine_tune(workers=0)
    for argv in (
        ["--suite", "--task", "copy", "--fine-tune", "rope"],
        ["--suite", "--task", "local_sum", "--fine-tune", "rope", "--rerun"],
        ["--suite", "--task", "local_sum", "--fine-tune", "rope", "--stretch", "rope"],
    ):
        with pytest.raises(SystemExit):
            experiments_cli.run_suite_from_args(experiments_cli.parser().parse_args(argv))
    with pytest.raises(SystemExit):
        experiments.main(["--fine-tune", "rope"])


@pytest.mark.parametrize("task", ["local_sum", "recall", "copy"])
def test_each_every_rate_file_comes_from_its_suite_command_and_matches_the_committed_sweep(task):
    """benchmark_<task>_every_rate.json: --suite --every-rate, the committed config, chosen rates
    and validation of every rate, and every rate's test curves for every seed."""
    from book import benchmark

    words = shlex.split(results.COMMANDS[f"benchmark_{task}_every_rate"])
    args = experiments_cli.parser().parse_args(words[3:])
    assert args.suite and args.every_rate and args.task == task and args.output is None
    assert benchmark.results_path(task, every_rate=True).name == f"benchmark_{task}_every_rate.json"
    every, committed = results.load(f"benchmark_{task}_every_rate"), results.load(f"benchmark_{task}")
    assert every["every_rate"] is True and every["chosen_lr"] == committed["chosen_lr"]
    assert experiments.Config.from_results(every) == experiments.Config.from_results(committed)
    for scheme, per_rate in every["sweep"].items():
        assert set(per_rate) == set(committed["sweep"][scheme])
        for lr, record in per_rate.items():
            for key in ("validation_loss", "met_stop_rule", "steps"):
                assert record[key] == committed["sweep"][scheme][lr][key]
            assert sorted(record["curve"]) == sorted(committed["runs"][scheme])
        chosen = per_rate[str(committed["chosen_lr"][scheme])]
        assert all(chosen["curve"][k] == r["curve"] for k, r in committed["runs"][scheme].items())
