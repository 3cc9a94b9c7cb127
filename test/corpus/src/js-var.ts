/**
 * `var`-style numeric code, as written before `let` existed and as bundlers down-level it: one binding
 * per function, loop counters declared with `var` in each loop, temporaries declared in loop bodies,
 * variables declared up front and assigned on every branch.
 */

var TWO_PI = 2 * Math.PI;

/** gl-matrix style: a 4×4 inverse by cofactors, column-major in a flat array */
export function invert4(a: Float64Array): Float64Array {
  var a00 = a[0], a01 = a[1], a02 = a[2], a03 = a[3];
  var a10 = a[4], a11 = a[5], a12 = a[6], a13 = a[7];
  var a20 = a[8], a21 = a[9], a22 = a[10], a23 = a[11];
  var a30 = a[12], a31 = a[13], a32 = a[14], a33 = a[15];

  var b00 = a00 * a11 - a01 * a10;
  var b01 = a00 * a12 - a02 * a10;
  var b02 = a00 * a13 - a03 * a10;
  var b03 = a01 * a12 - a02 * a11;
  var b04 = a01 * a13 - a03 * a11;
  var b05 = a02 * a13 - a03 * a12;
  var b06 = a20 * a31 - a21 * a30;
  var b07 = a20 * a32 - a22 * a30;
  var b08 = a20 * a33 - a23 * a30;
  var b09 = a21 * a32 - a22 * a31;
  var b10 = a21 * a33 - a23 * a31;
  var b11 = a22 * a33 - a23 * a32;

  var det = b00 * b11 - b01 * b10 + b02 * b09 + b03 * b08 - b04 * b07 + b05 * b06;
  det = 1.0 / det;

  var out = new Float64Array(16);
  out[0] = (a11 * b11 - a12 * b10 + a13 * b09) * det;
  out[1] = (a02 * b10 - a01 * b11 - a03 * b09) * det;
  out[2] = (a31 * b05 - a32 * b04 + a33 * b03) * det;
  out[3] = (a22 * b04 - a21 * b05 - a23 * b03) * det;
  out[4] = (a12 * b08 - a10 * b11 - a13 * b07) * det;
  out[5] = (a00 * b11 - a02 * b08 + a03 * b07) * det;
  out[6] = (a32 * b02 - a30 * b05 - a33 * b01) * det;
  out[7] = (a20 * b05 - a22 * b02 + a23 * b01) * det;
  out[8] = (a10 * b10 - a11 * b08 + a13 * b06) * det;
  out[9] = (a01 * b08 - a00 * b10 - a03 * b06) * det;
  out[10] = (a30 * b04 - a31 * b02 + a33 * b00) * det;
  out[11] = (a21 * b02 - a20 * b04 - a23 * b00) * det;
  out[12] = (a11 * b07 - a10 * b09 - a12 * b06) * det;
  out[13] = (a00 * b09 - a01 * b07 + a02 * b06) * det;
  out[14] = (a31 * b01 - a30 * b03 - a32 * b00) * det;
  out[15] = (a20 * b03 - a21 * b01 + a22 * b00) * det;
  return out;
}

/** Horner's rule, counter declared in the loop head */
/** Pre-ES2015 style: helpers held by `var`s as function expressions, one writing the running total. */
export function logisticLossVar(w: number[], xs: number[][], ys: number[]): number {
  var total = 0;
  var sigmoid = function (t: number): number {
    return 1 / (1 + Math.exp(-t));
  };
  var dot = function (a: number[], b: number[]): number {
    var s = 0;
    for (var i = 0; i < a.length; i++) s += a[i] * b[i];
    return s;
  };
  var addLoss = function (p: number, y: number): void {
    total -= y * Math.log(p) + (1 - y) * Math.log(1 - p);
  };
  for (var k = 0; k < xs.length; k++) addLoss(sigmoid(dot(w, xs[k])), ys[k]);
  return total / xs.length + 0.01 * w.map(sigmoid).reduce(function (a, b) { return a + b; }, 0);
}

export function polyvalVar(c: number[], x: number): number {
  var r = 0;
  for (var i = c.length - 1; i >= 0; i--) r = r * x + c[i];
  return r;
}

/** Kepler's equation M = E − e·sin E by Newton's method; the step's temporaries live in the loop body */
export function keplerNewton(M: number, e: number): number {
  var E = M;
  for (var k = 0; k < 8; k++) {
    var f = E - e * Math.sin(E) - M;
    var fp = 1 - e * Math.cos(E);
    E = E - f / fp;
  }
  return E;
}

/** down-levelled statistics: everything declared up front, one counter shared by three loops */
export function skewnessVar(xs: number[]): number {
  var i, n = xs.length, sum = 0, mean, m2 = 0, m3 = 0;
  for (i = 0; i < n; i++) sum += xs[i];
  mean = sum / n;
  for (i = 0; i < n; i++) {
    var d = xs[i] - mean;
    m2 += d * d;
    m3 += d * d * d;
  }
  m2 /= n;
  m3 /= n;
  return m3 / Math.pow(m2, 1.5);
}

function damped(x: number, k: number): number {
  return Math.exp(-k * x) * Math.cos(TWO_PI * x);
}

/** composite Simpson's rule over [a, b] */
export function simpsonVar(a: number, b: number, k: number): number {
  var n = 16, h = (b - a) / n, s = damped(a, k) + damped(b, k);
  for (var i = 1; i < n; i++) {
    var x = a + i * h;
    s += (i % 2 === 1 ? 4 : 2) * damped(x, k);
  }
  return (s * h) / 3;
}

/** log-sum-exp cross-entropy: `var i` declared again in each of three loops (one variable) */
export function softmaxXentVar(z: number[], target: number): number {
  var mx = z[0];
  for (var i = 1; i < z.length; i++) if (z[i] > mx) mx = z[i];
  var s = 0;
  for (var i = 0; i < z.length; i++) s += Math.exp(z[i] - mx);
  var lse = mx + Math.log(s);
  var loss = 0;
  for (var i = 0; i < z.length; i++) if (i === target) loss = lse - z[i];
  return loss;
}

/** total variation: `var prev` declared again in the loop body carries the last element to the next pass */
export function totalVariationVar(xs: number[]): number {
  var tv = 0;
  var prev = xs[0];
  for (var i = 1; i < xs.length; i++) {
    var d = xs[i] - prev;
    tv += Math.sqrt(d * d + 1e-3);
    var prev = xs[i];
  }
  return tv;
}

/** Huber loss: `loss` declared without a value and assigned on both branches */
export function huberVar(r: number[], delta: number): number {
  var total = 0, i, a, loss;
  for (i = 0; i < r.length; i++) {
    a = Math.abs(r[i]);
    if (a <= delta) loss = 0.5 * a * a;
    else loss = delta * (a - 0.5 * delta);
    total += loss;
  }
  return total;
}

/**
 * a `var` declared in a loop body with no value keeps the previous pass's value (an exponential filter);
 * being hoisted, it can be given its first value above its declaration
 */
export function emaVar(xs: number[], alpha: number): number {
  var out = 0;
  y = xs[0];
  for (var i = 0; i < xs.length; i++) {
    var y;
    y = alpha * xs[i] + (1 - alpha) * y;
    out += y * y;
  }
  return out;
}

/** `for…in` over arrays, as older code writes it: the key as an index, and converted with `Number` */
export function weightedLagForIn(xs: number[], w: number[]): number {
  var s = 0;
  for (var i in xs) s += w[i] * xs[i] * xs[i];
  for (const k in xs) {
    const j = Number(k);
    if (j > 0) s += Math.sin(xs[j - 1]) * xs[k];
  }
  return s;
}

/** a `for…of` whose body rebinds the array it walks: the loop walks the array it began with */
export function rebindInForOf(xs: number[], a: number): number {
  let s = 0;
  for (const x of xs) {
    s += x * x * a;
    xs = [a * x, x, 0.5 * x, x, a];
  }
  return s + xs[0];
}

/** an old-style local helper whose `var`s each stand where they are given a value (bundler output) */
export function smoothedEnergy(xs: number[], w: number): number {
  function movingAverage(v: number[]): number[] {
    var out: number[] = [];
    for (var i = 0; i + 2 < v.length; i++) {
      var s = v[i] + v[i + 1] + v[i + 2];
      out.push(s / 3);
    }
    return out;
  }
  var m = movingAverage(xs);
  var t = 0;
  for (var k = 0; k < m.length; k++) t += w * m[k] * m[k];
  return t;
}

/** A `var` given its values only in a loop body, read after the loop: the loop's first test holds, so the loop has run (TypeScript cannot tell). */
export function lastOfFixedSweep(x: number[], c: number): number {
  for (var k = 0; k < 3; k++) {
    var t = Math.tanh(x[k] * c + k);
    var u = t * x[k + 1];
  }
  return t * u + k;
}
