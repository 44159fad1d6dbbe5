// ALiBi (Press et al., 2022, section 3), as book.encodings.alibi computes
// it: the slopes (float32), and the bias -m_h |i - j| (float32).
(function (B) {
  "use strict";
  if (B.alibi) { return; }

  function slopeList(n) {
    var out = [], h;
    if ((n & (n - 1)) === 0) {
      for (h = 1; h <= n; h++) { out.push(Math.pow(2, -8 * h / n)); }
      return out;
    }
    var closest = Math.pow(2, Math.floor(Math.log2(n)));
    out = slopeList(closest);
    var twice = slopeList(2 * closest);
    for (h = 0; out.length < n; h += 2) { out.push(twice[h]); }
    return out;
  }

  // book.encodings.alibi_slopes: computed in float64, stored in float32.
  function slopes(n) { return slopeList(n).map(Math.fround); }

  // book.encodings.alibi_bias(n, L)[h][i][j]: float32 -m_h * |i - j|.
  function bias(slope, i, j) { return Math.fround(-slope * Math.abs(i - j)); }

  // Softmax over keys 0 .. i of query i's biases (equal content scores).
  function causalWeights(slope, i) {
    var w = new Float64Array(i + 1), top = -Infinity, sum = 0, j;
    for (j = 0; j <= i; j++) { w[j] = bias(slope, i, j); if (w[j] > top) { top = w[j]; } }
    for (j = 0; j <= i; j++) { w[j] = Math.exp(w[j] - top); sum += w[j]; }
    for (j = 0; j <= i; j++) { w[j] /= sum; }
    return w;
  }

  B.alibi = { slopes: slopes, bias: bias, causalWeights: causalWeights };
})(window.BookExplorers = window.BookExplorers || {});
