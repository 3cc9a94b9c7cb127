// Array methods with callbacks, as JavaScript programs usually write statistics and models: map, reduce,
// forEach, filter, some/every, find/findIndex, flatMap, Array.from with a mapping function, chains of
// them, callbacks that are local arrow functions or top-level functions.

/** Sample variance: the mean by a reduce, then the squared deviations mapped and summed. */
export function sampleVariance(xs: number[]): number {
  const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
  const dev2 = xs.map((x) => (x - mean) ** 2);
  return dev2.reduce((s, d) => s + d, 0) / (xs.length - 1);
}

/** Cross-entropy of a softmax: exponentials shifted by the max, normalized by a map. */
export function softmaxCrossEntropy(logits: number[], target: number): number {
  const top = logits.reduce((m, z) => Math.max(m, z));
  const exps = logits.map((z) => Math.exp(z - top));
  const total = exps.reduce((a, b) => a + b);
  const probs = exps.map((e) => e / total);
  return -Math.log(probs[target]);
}

/** log Σ exp(x_i), stable, as one chain after the max. */
export function logSumExp(xs: number[]): number {
  const m = Math.max(...xs);
  return m + Math.log(xs.map((x) => Math.exp(x - m)).reduce((s, e) => s + e, 0));
}

/** Energy of a chain of springs, accumulated by forEach into variables of the function. */
export function springChainEnergy(pos: number[], k: number): number {
  let energy = 0;
  let stretchMax = 0;
  pos.forEach((p, i) => {
    if (i === 0) return;
    const stretch = p - pos[i - 1] - 1;
    energy += 0.5 * k * stretch * stretch;
    if (Math.abs(stretch) > stretchMax) stretchMax = Math.abs(stretch);
  });
  return energy + 0.1 * stretchMax;
}

/** One-sided loss: only the positive residuals count, squared and summed. */
export function hingeResidualLoss(pred: number[], obs: number[]): number {
  const residuals = pred.map((p, i) => p - obs[i]);
  const positive = residuals.filter((r) => r > 0);
  return positive.reduce((s, r) => s + r * r, 0);
}

/** Powers of x by Array.from over the coefficients, then a polynomial value. */
export function polyFromCoefficients(coef: number[], x: number): number {
  const terms = Array.from(coef, (c, i) => c * x ** i);
  return terms.reduce((s, t) => s + t, 0);
}

/** A dot product by a reduce that reads the index, and a weight function passed by name. */
function soften(v: number): number {
  return v / (1 + Math.abs(v));
}
export function softDot(a: number[], b: number[]): number {
  const sa = a.map(soften);
  return sa.reduce((s, x, i) => s + x * b[i], 0);
}

/** Guards by some/every before a log-likelihood; a local arrow function used as a predicate. */
export function guardedLogLikelihood(xs: number[], mu: number, sigma: number): number {
  const outside = (x: number) => Math.abs(x - mu) > 5 * sigma;
  if (xs.some(outside)) return -1e3;
  const scale = xs.every((x) => x > mu) ? 2 : 1;
  let ll = 0;
  xs.forEach((x) => {
    const z = (x - mu) / sigma;
    ll -= 0.5 * z * z + Math.log(sigma);
  });
  return scale * ll;
}

/** The first element above a threshold (find with a default), and where it is (findIndex). */
export function firstAbove(xs: number[], t: number): number {
  const hit = xs.find((x) => x > t);
  const at = xs.findIndex((x) => x > t);
  return (hit ?? t) * (at + 1);
}

/** Pairwise features of a signal by flatMap, folded from the right. */
export function pairFeatures(xs: number[], w: number): number {
  const feats = xs.flatMap((x) => [x, w * x * x]);
  return feats.reduceRight((acc, f) => acc * 0.9 + Math.sin(f), 0);
}

/** Row sums of a matrix by nested maps (a callback inside a callback), then a smooth maximum. */
export function rowSoftMax(m: number[][], beta: number): number {
  const sums = m.map((row) => row.reduce((s, x) => s + x, 0));
  return Math.log(sums.map((s) => Math.exp(beta * s)).reduce((a, b) => a + b)) / beta;
}

/** A callback with several returns (a piecewise Huber loss), mapped over residuals. */
export function huberTotal(r: number[], delta: number): number {
  const losses = r.map((x) => {
    const a = Math.abs(x);
    if (a <= delta) return 0.5 * x * x;
    return delta * (a - 0.5 * delta);
  });
  return losses.reduce((s, l) => s + l, 0);
}

/** A Float64Array mapped and reduced (typed results stay typed). */
export function typedScaledNorm(v: Float64Array, s: number): number {
  const scaled = v.map((x) => s * x);
  return Math.sqrt(scaled.reduce((a, x) => a + x * x, 0));
}

/** A weighted sum over a ragged matrix, with the inner `forEach` as the outer callback's expression body. */
export function raggedWeightedSum(rows: number[][], w: number[]): number {
  let s = 0;
  rows.forEach((row, i) => row.forEach((v, j) => { s += v * w[j] * (i + 1); }));
  return s;
}

/** gradient clipping: the map runs only in the branch that returns it */
export function clippedStep(g: number[], maxNorm: number): number {
  const n = Math.hypot(...g);
  const step = n > maxNorm ? g.map((v) => (v * maxNorm) / n) : g;
  return step.reduce((s, v) => s + v * v, 0) + (n > 2 * maxNorm ? g.reduce((s, v) => s + Math.abs(v), 0) : n);
}

/** a guard before a domain check (`||` and `&&` around `some`/`every`) */
export function guardedLogSum(xs: number[], w: number): number {
  if (xs.length === 0 || xs.some((v) => v <= 0)) return 0;
  const small = w < 1 && xs.every((v) => v < 10);
  return (small ? w : 1) * xs.reduce((s, v) => s + Math.log(v), 0);
}

const norm2 = (v: number[]): number => Math.hypot(v[0], v[1]);

/** `find` whose predicate passes an array to a helper that only reads it (a `const` arrow) */
export function firstAboveNorm(xs: number[], q: number[]): number {
  const hit = xs.find((x) => norm2(q) * x > 1);
  return (hit ?? 0.5) * q[0];
}

/** a helper that returns one of its rows or a fresh one, called from `Array.from`'s callback */
function rowOrScaled(rows: number[][], t: number): number[] {
  if (rows.length === 1) return rows[0];
  return rows[1].map((v) => v * t);
}

export function pickedRowsProduct(ctrl: number[][]): number {
  const pts = Array.from({ length: 2 }, (_, k) => rowOrScaled(ctrl, k + 0.5));
  return pts[0][0] * pts[1][1] + pts[1][0];
}

function rgbOf(h: number): [number, number, number] {
  return [h, h * h, 1 - h];
}

/** array methods on a tuple of numbers (a colour): map, reduce, forEach, some */
export function tupleMethods(h: number, p: [number, number]): number {
  const [r, g, b] = rgbOf(h).map((c) => c * c);
  let s = 0;
  p.forEach((v, i) => {
    s += v * (i + 1);
  });
  const any = p.some((v) => v > 10) ? 1 : 0;
  return r + 2 * g + 3 * b + s + p.reduce((a, v) => a + Math.sin(v), 0) + any;
}

/** the turning of a path: `map` over the inner points, or an empty list where there are none */
export function turning(track: number[][]): number {
  const turns = track.length > 2
    ? track.slice(1, -1).map((p, k) => {
        const ax = p[0] - track[k][0], ay = p[1] - track[k][1];
        const bx = track[k + 2][0] - p[0], by = track[k + 2][1] - p[1];
        return 1 - (ax * bx + ay * by) / (Math.hypot(ax, ay) * Math.hypot(bx, by) + 1e-9);
      })
    : [];
  return turns.reduce((s, t) => s + t, 0) + track[0][0];
}
