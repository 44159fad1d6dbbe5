"""Chapter 5: the learned-or-sinusoidal self-check (True for two trained models, False with a hint otherwise),
and the chapter's claim that transformers starts BERT's and GPT-2's token and position tables alike."""

from __future__ import annotations

import pytest
import torch

from book import models, tasks
from book.exercises import check_learned_vs_sinusoidal

LENGTH = 12


def _model(position, *, steps=0, max_len=LENGTH):
    m = models.TinyTransformer(10, position=position, d_model=32, n_heads=2, n_layers=1, max_len=max_len, seed=0)
    if steps:
        models.train(m, lambda g: tasks.local_sum(32, LENGTH, generator=g), steps=steps, lr=1e-2, seed=0)
    return m


def _wrong_vocab():
    """A learned model whose vocabulary is too small for the task's tokens 0 .. 9."""
    return models.TinyTransformer(5, position="learned", d_model=32, n_heads=2, n_layers=1, max_len=LENGTH, seed=0)


class _Impostor(torch.nn.Module):
    """A module that claims to be a learned model but cannot run."""

    position = "learned"

    def forward(self, tokens):
        raise RuntimeError("not a model")


@pytest.fixture(scope="module")
def trained():
    return _model("learned", steps=250), _model("sinusoidal", steps=250)


def test_right_answer(trained, capsys):
    assert check_learned_vs_sinusoidal(*trained, length=LENGTH) is True
    assert capsys.readouterr().out.startswith("Correct!")


def test_wrong_answers(trained, capsys):
    learned, sinusoidal = trained
    cases = [
        ((None, None), "Give two trained models"),
        ((sinusoidal, learned), "swapped"),
        ((learned, _model("rope")), "position='rope'"),
        ((_model("learned"), sinusoidal), "does not apply the rule"),           # untrained
        ((learned, _model("sinusoidal", steps=20)), "does not apply the rule"),  # under-trained
        ((_model("learned", max_len=8), sinusoidal), "too few"),
        (("learned", "sinusoidal"), "Give two trained models"),
        ((float("nan"), sinusoidal), "Give two trained models"),
        ((_wrong_vocab(), sinusoidal), "could not score tokens"),
        ((_Impostor(), sinusoidal), "could not score tokens"),
    ]
    for args, hint in cases:
        assert check_learned_vs_sinusoidal(*args, length=LENGTH) is False
        out = capsys.readouterr().out
        assert out.startswith("Not yet.") and hint in out.replace("\n", " "), out


@pytest.mark.parametrize("kwargs", [{"length": 1}, {"threshold": 1.5}, {"length": 2.5}])
def test_bad_teacher_calls_raise(trained, kwargs):
    with pytest.raises((TypeError, ValueError)):
        check_learned_vs_sinusoidal(*trained, **kwargs)


def test_transformers_draws_token_and_position_tables_at_one_scale():
    """Chapter 5 cites ``initializer_range`` and ``PreTrainedModel._init_weights``; build tiny
    models (no download) and measure both tables."""
    from transformers import BertConfig, BertModel, GPT2Config, GPT2Model

    torch.manual_seed(0)
    bert = BertModel(BertConfig(vocab_size=2000, hidden_size=64, num_hidden_layers=1, num_attention_heads=2,
                                intermediate_size=64, max_position_embeddings=512)).embeddings
    gpt2 = GPT2Model(GPT2Config(vocab_size=2000, n_embd=64, n_layer=1, n_head=2, n_positions=512,
                                bos_token_id=0, eos_token_id=0))
    for table in (bert.word_embeddings, bert.position_embeddings, gpt2.wte, gpt2.wpe):
        assert abs(float(table.weight.detach().std()) - 0.02) < 0.001
