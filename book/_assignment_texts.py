"""The words of the otter-grader assignments (``book._assignments``): what each
exercise reads from its chapter's earlier cells (``CONTEXT``), the one solution
computed inside a heavy loop (``SOLUTION_OVERRIDES``), and the rubrics of the
questions graded by hand (``RUBRICS``, ``WRITTEN_PARTS``), written from the
chapters' solutions."""

from __future__ import annotations

#: What a chapter's exercises read from earlier cells of the chapter, rebuilt without its heavy cells.
CONTEXT = {
    "02_sinusoidal.ipynb": """\
# Chapter 2's 8-bit counter (row p holds the bits of p, lowest first) and its steps |B(p+1) - B(p)|.
def binary_counter(n, bits):
    p = torch.arange(n)[:, None]
    return ((p >> torch.arange(bits)) & 1).float()


bits = binary_counter(64, 8)
step_bits = (bits[1:] - bits[:-1]).norm(dim=-1)""",
    "07_relative.ipynb": """\
# Chapter 7's no-encoding model: neutral queries and keys, a BOS token whose value is feature 0;
# with the causal mask, causal_out[:, 0] is the weight on the first token (the rest of values is noise).
n_pos, width = 24, 8
values = torch.randn(n_pos, width, generator=torch.Generator().manual_seed(0))
values[:, 0] = 0.0
values[0] = torch.zeros(width)
values[0, 0] = 1.0
zeros = torch.zeros(n_pos, width)
causal_out, causal_w = attention.attention(zeros, zeros, values, causal=True)
full_out, _ = attention.attention(zeros, zeros, values, causal=False)""",
    "08_extrapolation.ipynb": """\
# Chapter 8's experiment (its default Config) and seed 0's learned and RoPE models,
# retrained as the chapter's live rerun does (a few seconds each), with its held-out batch.
config = experiments.Config()
live = {s: experiments.train_model(config, s, 0)[0] for s in ("learned", "rope")}
full = experiments.held_out_batch(config, 0)
L = config.train_len""",
    "09_long_context.ipynb": """\
# Chapter 9's models: the benchmark's RoPE configuration (read from the installed package).
stored = results.load("annealed_local_sum_rope")
config = experiments.Config.from_results(stored)
head_width = config.d_model // config.n_heads
L = config.train_len""",
    "10_todays_models.ipynb": """\
# Chapter 10's helpers: the pairs that turn within a length, and the M-RoPE angles of a 2 x 3
# image whose patches have time id 4 (sections (2, 3, 3) of a head of width 16).
import torch


def turned(length, base, d=128):
    return scaling.turned_pairs(d, original_max_len=length, base=base)


small = (2, 3, 3)
rows, cols = torch.meshgrid(torch.arange(2), torch.arange(3), indexing="ij")
ids = torch.stack([torch.full((6,), 4), 4 + rows.flatten(), 4 + cols.flatten()]).double()
axis = torch.repeat_interleave(torch.arange(3), torch.tensor(small))
by_hand = ids[axis].T * encodings.frequencies(16)""",
}

#: Solutions the chapter computes inside a heavy cell (chapter 9 scores five trained models in the
#: same loop): the lines of that loop and of its self-check cell that give the graded answer.
SOLUTION_OVERRIDES = {
    "ex-ch9-yarn": """\
kw = dict(original_max_len=L, alpha=0.05, beta=0.5, ramp="code")
gamma = scaling.yarn_ramp(head_width, **kw)
blended = (0 < gamma) & (gamma < 1)
answer = {"kept": (gamma == 1).nonzero().flatten().tolist(),
          "blended": blended.nonzero().flatten().tolist(),
          "interpolated": (gamma == 0).nonzero().flatten().tolist()}""",
}

#: The rubric of every exercise graded by hand, written from the chapter's solution (1 point a line).
RUBRICS = {
    "ex-ch1-cross": (
        "Shows numerically that reordering the memory (keys and values together) leaves the output "
        "unchanged, and that reordering the queries reorders the output rows the same way.",
        "Explains it with the proof: the scores become S P^T and the values P V, so "
        "softmax(S) P^T P V = softmax(S) V; the softmax acts row by row, so the queries' order moves the rows.",
    ),
    "ex-ch1-pool": (
        "Computes the averaged vector of both sentences: equal without the positional encoding, different with it.",
        "Concludes that without position a classifier can learn what the sentence is about "
        '("is this about love?") but not who does what to whom ("who loves whom?").',
    ),
    "ex-ch3-trace": (
        "Shows that each 2 x 2 block R(k w_i) has trace 2 cos(k w_i) while the dot product is "
        "sum_i cos(k w_i): half the trace (d/2 at k = 0).",
        "Checks the identity numerically for d = 128 and several offsets k.",
    ),
    "ex-ch5-offsets": (
        "Measures that the stretched table's similarity at offset 2k matches the original's at offset k "
        "(within about 0.1 for k = 2 to 15), and that at offset k it does not.",
        "Concludes that the table's geometry is stretched by about two, and treats a model whose "
        '"one back" now points two back as a hypothesis that needs the attention weights.',
    ),
    "ex-ch5-unused": (
        "Shows that rows 16 to 31 keep their random start (near-zero neighbour similarity, the same "
        "direction as at initialisation) while rows 0 to 15 become similar to their neighbours.",
        "Explains that a row gets a gradient only when a token sits at its position, so only weight "
        "decay touches the unused rows, the rows a longer test input meets.",
    ),
    "ex-ch6-norm": (
        "Shows numerically, for both pairings and many positions, that apply_rope keeps every vector's length.",
        "Explains that a rotation keeps each pair's length, so RoPE changes only the angles between "
        "queries and keys: it cannot make one position's scores larger across the board.",
    ),
    "ex-ch6-values": (
        "Rotates the values too and shows that the eight equal tokens' outputs now differ.",
        "Explains that the outputs now carry absolute position (the positions of the values they mix), "
        "which RoPE keeps out of the scores.",
    ),
    "ex-ch8-sweep": (
        "Runs the two training lengths (16 tested at 64, 64 tested at 256) and prints their range tables.",
        "Compares them with the committed run at 32 and says, from the tables, whether the range where "
        "RoPE and T5's bias start to fall moves with the training length or stays at a fixed number of positions.",
    ),
    "ex-ch10-where": (
        "Times the angles (cos and sin), the rotation with a cache, and the whole reference against a copy.",
        "Says that a cache removes only the angles, and argues it from the count (the rotation touches "
        "16 times the numbers of the cos/sin table), not from one machine's timings.",
    ),
}

#: The rubrics of what an autograded exercise also asks in words (its check grades only the
#: answer): each becomes a manual question ``<label>-written``, written from the chapter's solution.
WRITTEN_PARTS = {
    "ex-ch2-jumps": (
        "Says what the positions have in common: p + 1 is a multiple of 16 (p ends in four 1 bits).",
        "Explains it: the step is the square root of the number of bits that flip, and going from p to p + 1 "
        "flips the trailing 1s of p and the 0 above them, so a step above 2 needs five flips.",
    ),
    "ex-ch2-base": (
        "Computes the longest wavelength 2 pi b^((d-2)/d) for the three bases (about 544, 47,000 and 2.1 million).",
        "Gives the reason for 500000: only there does the slowest pair turn less than once over 100000 tokens, "
        "so its angle alone orders every position (a wrap does not make far positions look alike: the other "
        "pairs still separate them).",
    ),
    "ex-ch3-period": (
        "Argues that M_k = I needs k w_0 = k to be a multiple of 2 pi, impossible for a whole k > 0 "
        "since pi is irrational.",
        "Explains how the search works: |M_k - I|^2 = 4 sum_i (1 - cos k w_i), computed for every offset at once.",
    ),
    "ex-ch4-toeplitz": (
        "Explains that S_pq depends only on p - q (Toeplitz), and only on |p - q| since the cosine is even.",
        "Concludes that the matrix holds at most N different values, one per offset 0 .. N-1.",
    ),
    "ex-ch4-float32": (
        "Explains 2^24: float32 keeps 24 significant bits, so 2^24 + 1 rounds back to 2^24.",
        "Says what it means: positions are exact in float32 up to there, but the angles p w_i are "
        "rounded long before, by about p 2^-24 of a step.",
    ),
    "ex-ch7-read": (
        "Explains the rule: causal averaging gives position i the weight 1/(i + 1) on the first token, "
        "so i = 1 / value - 1.",
        "Says that without the causal mask every position gets 1/n, so nothing can be read back.",
    ),
    "ex-ch3-sines": (
        "Reports the residual with all 32 columns: rounding (below 1e-9), against a large one for the sines alone.",
        "Explains why: sin((p+3) w) needs cos(p w), which no matrix of the sines gives; with the cosines a "
        "rotation maps the table exactly.",
    ),
    "ex-ch3-logdecay": (
        "Measures the exact sum's drop per factor 10 between k = 10 and k = 1000, each end averaged over its "
        "window (k = 8 to 12, 800 to 1200), per decade.",
        "Finds it close to the approximation's 8.0 per decade (within 0.5), the exact sum wiggling around the line.",
    ),
    "ex-ch5-local": (
        "Says that both models learn the rule: it needs only this token and the one before, and either kind "
        "of position lets attention find the one before.",
        "Says that only the sinusoidal model runs on 24 tokens: the learned table has no row past position 11.",
    ),
    "ex-ch8-window": (
        "Compares the neutral weight on offsets 0 and 1 (1 - e^(-2m), about 0.12 for the steep head) with the "
        "trained model's most focused head, which puts more than 0.7 there, within and past the training length.",
        "Concludes that the penalty alone does not make the focus, the content scores sharpen it (that the "
        "penalty then keeps the pattern the same at every length is a hypothesis, not measured).",
    ),
    "ex-ch8-rows": (
        "Shows that the rows from the training length on keep their start (cosine above 0.99 with the rows of "
        "the same model rebuilt with the same seed), while the trained rows moved (mean cosine below 0.9).",
        "Explains it: a row gets a gradient only when a token sits at its position during training.",
    ),
    "ex-ch8-stretch": (
        "Says that PI breaks the model inside its training range (below 50% right within 32 positions) and "
        "helps little past it.",
        "Says that YaRN trades part of the trained range (80% to 97% right, against above 97% unchanged) for "
        "much more past it (at least 35 points above unchanged RoPE).",
    ),
    "ex-ch9-yarn": (
        "Gives both ramps' groups: pairs 0 to 2 kept, 3 and 4 blended (with different gamma by the code and "
        "by the paper), 5 on interpolated.",
        "Reports the five seeds at 128 tokens: the trained range survives (above 99% within 32), but past 32 "
        "every seed scores close to unchanged RoPE: YaRN's gain there is lost.",
    ),
    "ex-ch9-turned": (
        "Applies Llama 3.1's rule (scaling.llama3_frequencies, factor 8, original length 8192) and finds that "
        "it divides by 8 exactly the pairs that never turn within 8192 positions.",
        "Notes that every turned pair is kept or blended, none divided by 8.",
    ),
}
