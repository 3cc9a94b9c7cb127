// Descriptive statistics written the way small npm statistics packages write them.

/**
 * @param {number[]} x
 * @returns {number}
 */
function sum(x) {
  var s = 0;
  for (var i = 0; i < x.length; i++) s += x[i];
  return s;
}

/**
 * @param {number[]} x
 * @returns {number}
 */
function mean(x) {
  if (x.length === 0) throw new Error('mean requires at least one data point');
  return sum(x) / x.length;
}

/**
 * Welford's online algorithm.
 * @param {number[]} data
 * @returns {number}
 */
export function welfordVariance(data) {
  let n = 0, m = 0, m2 = 0;
  for (const x of data) {
    n++;
    const delta = x - m;
    m += delta / n;
    m2 += delta * (x - m);
  }
  return n > 1 ? m2 / (n - 1) : 0;
}

/**
 * Quantile with linear interpolation between closest ranks.
 * @param {number[]} data
 * @param {number} p
 * @returns {number}
 */
export function quantile(data, p) {
  const sorted = data.slice().sort((a, b) => a - b);
  const idx = (sorted.length - 1) * p;
  const lo = Math.floor(idx), hi = Math.ceil(idx);
  if (lo === hi) return sorted[lo];
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (idx - lo);
}

/**
 * Gaussian kernel density estimate at x, Silverman bandwidth by default.
 * @param {number[]} samples
 * @param {number} x
 * @param {number} [bandwidth]
 * @returns {number}
 */
export function kernelDensity(samples, x, bandwidth) {
  const n = samples.length;
  const mu = mean(samples);
  const sd = Math.sqrt(samples.reduce((acc, v) => acc + (v - mu) ** 2, 0) / (n - 1));
  const h = bandwidth ?? 1.06 * sd * Math.pow(n, -1 / 5);
  const norm = 1 / (n * h * Math.sqrt(2 * Math.PI));
  return norm * samples.reduce((acc, xi) => acc + Math.exp(-0.5 * ((x - xi) / h) ** 2), 0);
}

/**
 * Pearson correlation.
 * @param {number[]} x
 * @param {number[]} y
 * @returns {number}
 */
export function sampleCorrelation(x, y) {
  const mx = mean(x), my = mean(y);
  let sxy = 0, sxx = 0, syy = 0;
  x.forEach((xi, i) => {
    const dx = xi - mx, dy = y[i] - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  });
  return sxy / Math.sqrt(sxx * syy);
}

/**
 * z-scores.
 * @param {number[]} xs
 * @returns {number[]}
 */
export function standardize(xs) {
  const m = mean(xs);
  const sd = Math.sqrt(xs.map((v) => (v - m) * (v - m)).reduce((a, b) => a + b) / xs.length);
  return xs.map((v) => (v - m) / sd);
}

/**
 * Median absolute deviation.
 * @param {number[]} xs
 * @returns {number}
 */
export function medianAbsoluteDeviation(xs) {
  const med = quantile(xs, 0.5);
  const dev = xs.map((v) => Math.abs(v - med));
  return quantile(dev, 0.5);
}

/**
 * Exponential moving average, last value.
 * @param {number[]} series
 * @param {number} [alpha]
 * @returns {number}
 */
export function ema(series, alpha = 0.3) {
  let prev;
  for (const v of series) {
    prev = prev === undefined ? v : alpha * v + (1 - alpha) * prev;
  }
  return prev;
}

/**
 * Weighted mean, weights optional.
 * @param {number[]} xs
 * @param {number[]} [weights]
 * @returns {number}
 */
export function weightedMean(xs, weights) {
  const w = weights || xs.map(() => 1);
  let num = 0, den = 0;
  for (let i = 0; i < xs.length; i++) {
    num += xs[i] * w[i];
    den += w[i];
  }
  return num / den;
}

/**
 * Skewness, one pass for the moments.
 * @param {number[]} xs
 * @returns {number}
 */
export function skewness(xs) {
  const n = xs.length;
  const m = mean(xs);
  let m2 = 0, m3 = 0;
  for (const x of xs) {
    const d = x - m;
    m2 += d * d;
    m3 += d * d * d;
  }
  m2 /= n;
  m3 /= n;
  return m3 / Math.pow(m2, 1.5);
}
