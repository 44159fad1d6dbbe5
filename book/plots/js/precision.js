// RoPE's angles formed in a low-precision float, as book.numerics.rope_cos_error
// computes them with torch (CPU): the position m and theta_i are rounded to the
// dtype, multiplied in it, and the cosine of that angle, in float32, is compared
// with cos(m theta_i) in float64. Needs sinusoidal.js (frequencies).
//
// Rounding is emulated bit for bit. torch rounds a float64 to bfloat16 or
// float16 through float32 (two roundings, each to nearest, ties to even), and
// an int64 position below 2^24 is exact in float32. It multiplies two
// bfloat16s (or float16s) in float32, where the product is exact (8 + 8 or
// 11 + 11 significant bits), and rounds it once to the dtype: so here the
// exact product, in float64, is rounded once. float16 keeps subnormals
// (down to 2^-24: the smallest theta at the controls' ends, about 1.1e-7,
// becomes one, never 0) and overflows to inf from 65520 on; a position that
// is inf gives an inf angle (times a nonzero theta), whose cosine is NaN, and
// its error is inf, as rope_cos_error's nan_to_num(nan=inf). The one value
// not reproduced to the bit is torch's float32 cosine (its CPU kernel's,
// within one float32 step): here the float64 cosine rounded to float32
// (Math.fround).
(function (B) {
  "use strict";
  if (B.precision) { return; }
  var frequencies = B.sinusoidal.frequencies;

  // Significant bits, the smallest normal exponent and the largest finite
  // value of each format.
  var FORMATS = {
    bfloat16: { bits: 8, emin: -126, max: (2 - Math.pow(2, -7)) * Math.pow(2, 127) },
    float16: { bits: 11, emin: -14, max: 65504 },
    float32: { bits: 24, emin: -126, max: (2 - Math.pow(2, -23)) * Math.pow(2, 127) }
  };

  // x (a float64) rounded to the format: to nearest, ties to even, with
  // subnormals below 2^emin and overflow to +-inf past the largest finite
  // value (the tie there rounds up, to inf, since its last bit is odd).
  function roundTo(x, f) {
    var a = Math.abs(x);
    if (a === 0 || !isFinite(a)) { return x; }
    var e = Math.floor(Math.log2(a));
    if (Math.pow(2, e) > a) { e--; } else if (Math.pow(2, e + 1) <= a) { e++; }
    var q = Math.pow(2, Math.max(e, f.emin) - (f.bits - 1));  // the gap between neighbours at a
    var r = a / q, n = Math.floor(r), frac = r - n;          // exact: q is a power of two
    if (frac > 0.5 || (frac === 0.5 && n % 2 === 1)) { n += 1; }
    var y = n * q;
    if (y > f.max) { y = Infinity; }
    return x < 0 ? -y : y;
  }

  // torch's tensor.to(dtype) of a float64 (or an int64 below 2^24): through float32.
  function toDtype(x, dtype) {
    var x32 = Math.fround(x);
    return dtype === "float32" ? x32 : roundTo(x32, FORMATS[dtype]);
  }

  // torch's product of two values of the dtype, rounded to the dtype.
  function mul(a, b, dtype) {
    return dtype === "float32" ? Math.fround(a * b) : roundTo(a * b, FORMATS[dtype]);
  }

  // book.plots.ch11_numerics._explorer_positions: torch.unique(torch.logspace(
  // 0, log2(longest), 80, base=2).long()). torch's CPU logspace takes the
  // ends in float32, the step in float64, 2^(step i) from the start for the
  // first half and 2^(end - step (79 - i)) from the end for the second,
  // each rounded to float32; .long() truncates.
  function positions(longest) {
    var n = 80, end = Math.fround(Math.log2(longest)), step = end / (n - 1), out = [];
    for (var i = 0; i < n; i++) {
      var v = i < n / 2 ? Math.pow(2, step * i) : Math.pow(2, end - step * (n - 1 - i));
      var p = Math.trunc(Math.fround(v));
      if (!out.length || p !== out[out.length - 1]) { out.push(p); }
    }
    return out;
  }

  // book.numerics.rope_cos_error at each position: the largest |cos error|
  // over the pairs with the angles formed in dtype, or (dtype "float64")
  // book's float64 angles with the cosine rounded to float32 (rope_cos_sin).
  function cosError(pos, d, base, dtype) {
    var theta = frequencies(d, base), out = new Float64Array(pos.length);
    var low = dtype === "float64" ? null : Array.from(theta, function (t) { return toDtype(t, dtype); });
    for (var r = 0; r < pos.length; r++) {
      var p = pos[r], pd = low ? toDtype(p, dtype) : 0, worst = 0;
      for (var i = 0; i < theta.length; i++) {
        var exact = Math.cos(p * theta[i]);
        var c = low ? Math.fround(Math.cos(mul(pd, low[i], dtype))) : Math.fround(exact);
        var err = Math.abs(c - exact);
        if (err !== err) { worst = NaN; break; }
        if (err > worst) { worst = err; }
      }
      out[r] = worst !== worst ? Infinity : worst;
    }
    return out;
  }

  // book.plots.ch11_numerics._first_unheld_position: the smallest whole
  // number float16 rounds to inf (65,520), half a step past its largest
  // finite value; float16 is the one format whose positions overflow here.
  function firstUnheld(dtype) {
    var f = FORMATS[dtype];
    return Math.ceil(f.max + Math.pow(2, Math.floor(Math.log2(f.max)) - f.bits));
  }

  B.precision = { FORMATS: FORMATS, firstUnheld: firstUnheld, roundTo: roundTo, toDtype: toDtype, mul: mul, positions: positions, cosError: cosError };
})(window.BookExplorers = window.BookExplorers || {});
