// RoPE's scaling rules, as book.scaling computes them: Position
// Interpolation, NTK-aware scaling, YaRN's code ramp, and the pairs that
// turn within the training length. Needs sinusoidal.js (frequencies).
(function (B) {
  "use strict";
  if (B.scaling) { return; }
  var frequencies = B.sinusoidal.frequencies;

  // book.scaling.pi_frequencies: theta_i / s.
  function pi(d, s, base) {
    return frequencies(d, base).map(function (t) { return t / s; });
  }

  // book.scaling.ntk_frequencies: base' = base * s^(d / (d - 2)).
  function ntk(d, s, base) { return frequencies(d, base * Math.pow(s, d / (d - 2))); }

  // book.scaling._pair_with_turns (find_correction_dim).
  function pairWithTurns(turns, d, base, L) {
    return (d * Math.log(L / (turns * 2 * Math.PI))) / (2 * Math.log(base));
  }

  // book.scaling.yarn_ramp(ramp="code", alpha=1, beta=32).
  function yarnRamp(d, L, base) {
    var low = Math.max(Math.floor(pairWithTurns(32, d, base, L)), 0);
    var high = Math.min(Math.ceil(pairWithTurns(1, d, base, L)), d - 1);
    if (low === high) { high += 0.001; }
    var out = new Float64Array(d / 2);
    for (var i = 0; i < d / 2; i++) {
      out[i] = 1 - Math.min(1, Math.max(0, (i - low) / (high - low)));
    }
    return out;
  }

  // book.scaling.yarn_frequencies: (1 - gamma) theta / s + gamma theta.
  function yarn(d, s, L, base) {
    var gamma = yarnRamp(d, L, base), theta = frequencies(d, base);
    return theta.map(function (t, i) { return (1 - gamma[i]) * t / s + gamma[i] * t; });
  }

  // book.scaling.turned_pairs: pairs whose wavelength 2 pi / theta_i <= L.
  function turnedPairs(d, L, base) {
    var theta = frequencies(d, base), n = 0;
    for (var i = 0; i < theta.length; i++) { if (2 * Math.PI / theta[i] <= L) { n++; } }
    return n;
  }

  B.scaling = { pi: pi, ntk: ntk, yarnRamp: yarnRamp, yarn: yarn, turnedPairs: turnedPairs };
})(window.BookExplorers = window.BookExplorers || {});
