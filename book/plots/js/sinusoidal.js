// The sinusoidal family (Vaswani et al., 2017, section 3.5), as
// book.encodings.sinusoidal computes it: frequencies, the table, and the
// dot product of two positions' encodings.
(function (B) {
  "use strict";
  if (B.sinusoidal) { return; }

  // w_i = base^(-2i/d), i = 0 .. d/2 - 1 (book.encodings.frequencies).
  function frequencies(d, base) {
    var w = new Float64Array(d / 2);
    for (var i = 0; i < d / 2; i++) { w[i] = Math.pow(base, -(2 * i / d)); }
    return w;
  }

  // PE[p, 2i] = sin(p w_i), PE[p, 2i + 1] = cos(p w_i) for each position of
  // positions, row after row (book.encodings.sinusoidal_at, interleaved).
  function table(positions, d, base) {
    var w = frequencies(d, base), out = new Float64Array(positions.length * d);
    for (var r = 0; r < positions.length; r++) {
      for (var i = 0; i < d / 2; i++) {
        var a = positions[r] * w[i];
        out[r * d + 2 * i] = Math.sin(a);
        out[r * d + 2 * i + 1] = Math.cos(a);
      }
    }
    return out;
  }

  // PE(p) . PE(q) = sum_i cos((p - q) w_i): a function of t = p - q alone,
  // returned for t = 0 .. n - 1 (chapter 4's similarity matrix).
  function dotByOffset(n, d, base) {
    var w = frequencies(d, base), out = new Float64Array(n);
    for (var t = 0; t < n; t++) {
      var s = 0;
      for (var i = 0; i < d / 2; i++) { s += Math.cos(t * w[i]); }
      out[t] = s;
    }
    return out;
  }

  B.sinusoidal = { frequencies: frequencies, table: table, dotByOffset: dotByOffset };
})(window.BookExplorers = window.BookExplorers || {});
