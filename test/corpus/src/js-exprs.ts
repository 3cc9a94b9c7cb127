// Expressions in JavaScript's evaluation order, destructuring and spread, written the way JavaScript
// programmers write them: assignments and increments inside expressions, the comma operator in loop
// headers, destructured parameters with defaults, swaps by destructuring, spread into Math calls.

/** Symmetric pairing by two pointers meeting in the middle: Σ x[i]·x[n-1-i] (the middle once). */
export function symmetricPairSum(x: number[]): number {
  let s = 0;
  for (let i = 0, j = x.length - 1; i <= j; i++, j--) s += i === j ? x[i] * x[i] : 2 * x[i] * x[j];
  // a second walk with its own pointers: a palindrome defect
  let d = 0;
  let lo = 0, hi = 0;
  for (lo = 0, hi = x.length - 1; lo < hi; lo++, hi--) d += (x[lo] - x[hi]) ** 2;
  return s + 0.5 * d;
}

/** Bubble sort by destructuring swaps, then a weighted sum of the sorted values (a sorting network). */
export function sortedWeightedSum(values: number[], weights: number[]): number {
  const v = values.slice();
  for (let pass = 0; pass < v.length - 1; pass++) {
    for (let k = 0; k < v.length - 1 - pass; k++) {
      if (v[k] > v[k + 1]) [v[k], v[k + 1]] = [v[k + 1], v[k]];
    }
  }
  let total = 0;
  let i = 0;
  while (i < v.length) total += weights[i] * v[i++];
  return total;
}

/** A strided reduction: the stride doubles in the loop test, as in a tree reduction's schedule. */
export function strideSum(x: number[], n: number): number {
  let s = x[0];
  let k = 1;
  while ((k *= 2) < n) s += x[k - 1] * Math.sqrt(k);
  let m = 0;
  do s *= 0.9; while (++m < 3);
  return s;
}

interface Pt {
  x: number;
  y: number;
}

interface Style {
  scale: number;
  offset: number;
}

/** Distance and angle of 2D points taken apart in the parameter list, with a default in the pattern. */
export function polarEnergy({ x, y }: Pt, [a, b]: number[], { scale = 1, offset }: Style): number {
  const r = Math.hypot(x - a, y - b);
  const [dx, dy = 0] = [x - a, y - b];
  return scale * r * r + offset * Math.atan2(dy, dx);
}

/** A numerically stable softmax cross-entropy: the maximum by spread, shifted exponentials. */
export function softmaxLoss(logits: number[], target: number): number {
  const m = Math.max(...logits);
  let z = 0;
  for (const l of logits) z += Math.exp(l - m);
  return Math.log(z) + m - logits[target] + 0.01 * Math.hypot(...logits);
}

/** Two steps of Gram–Schmidt on a pair of vectors; the pair is swapped by destructuring between them. */
export function gramSchmidtPair(a: number[], b: number[]): number {
  let u = a.slice();
  let v = b.slice();
  let out = 0;
  for (let step = 0; step < 2; step++) {
    let uu = 0, uv = 0;
    for (let i = 0; i < u.length; i++) {
      uu += u[i] * u[i];
      uv += u[i] * v[i];
    }
    const c = uv / uu;
    for (let i = 0; i < v.length; i++) v[i] -= c * u[i];
    out += Math.sqrt(uu) * (step + 1);
    [u, v] = [v, u];
  }
  return out + u[0] * v[1];
}

/** A dot product that keeps the last factor read, with the assignment inside the sum. */
export function compactDot(a: number[], b: number[]): number {
  let s = 0, t = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * (t = b[i]);
  return s + t * t;
}

/** A ring buffer filled by `buf[head++ % n] = …`, then read back from the oldest entry. */
export function ringSmoother(x: number[], alpha: number): number {
  const n = 3;
  const buf = [0, 0, 0];
  let head = 0;
  let y = 0;
  for (let i = 0; i < x.length; i++) buf[head++ % n] = y = alpha * x[i] + (1 - alpha) * y;
  let acc = 0, w = 1;
  for (let k = 0; k < n; k++) acc += buf[(head + k) % n] * (w *= 0.5);
  return acc + y;
}

/** Pivoting by hand: rows of a small matrix swapped by destructuring so the largest leads, then its determinant. */
export function pivotedDet3(m: number[][]): number {
  const a = [m[0].slice(), m[1].slice(), m[2].slice()];
  let sign = 1;
  for (let c = 0; c < 2; c++) {
    let p = c;
    for (let r = c + 1; r < 3; r++) if (Math.abs(a[r][c]) > Math.abs(a[p][c])) p = r;
    if (p !== c) {
      [a[c], a[p]] = [a[p], a[c]];
      sign = -sign;
    }
    for (let r = c + 1; r < 3; r++) {
      const f = a[r][c] / a[c][c];
      for (let k = c; k < 3; k++) a[r][k] -= f * a[c][k];
    }
  }
  return sign * a[0][0] * a[1][1] * a[2][2];
}

function lerp(a: number, b: number, t: number): number {
  return a + (b - a) * t;
}

/** A helper given a tuple by spread, and a running minimum by spread with a floor. */
export function spreadBlend(p: [number, number], t: number, xs: number[]): number {
  const args: [number, number, number] = [p[0], p[1], t];
  return lerp(...args) + Math.min(0.25, ...xs) + (t = 2 * t, t * t);
}

/** A piecewise feature chosen per element between two fresh arrays of different lengths. */
export function piecewiseFeatures(xs: number[]): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) {
    const v = xs[i];
    const part = v > 0 ? [v, v * v] : [-v];
    s += part[0] * (i + 1) + (part.length > 1 ? part[1] : 0.5 * v);
  }
  return s;
}

interface FitOptions {
  rate: number;
  decay: number;
  weights: number[];
}

/** Options split with an object rest: the rate is taken out, the rest (sharing the weights) sets the penalty. */
export function penalizedResidual(x: number[], opts: FitOptions): number {
  const { rate, ...penalty } = opts;
  let loss = 0;
  for (let i = 0; i < x.length; i++) {
    const r = x[i] - rate * penalty.weights[i];
    loss += r * r + penalty.decay * penalty.weights[i] * penalty.weights[i];
  }
  penalty.weights[0] *= 1 - penalty.decay;
  return loss + opts.weights[0];
}

/**
 * The shoelace formula as it is usually written: `j` trails `i` through the update `j = i++`. Vertices
 * with a negative x are skipped with `continue` (the update must still run).
 */
export function shoelaceArea(xs: number[], ys: number[]): number {
  let twice = 0;
  for (let i = 0, j = xs.length - 1; i < xs.length; j = i++) {
    if (xs[i] < -0.9) continue;
    twice += (xs[j] + xs[i]) * (ys[j] - ys[i]);
  }
  return Math.abs(twice) / 2;
}

/** A rest-of-the-matrix copy by `slice()`: the rows are shared, so scaling a row of the copy scales the original's. */
export function scaledFirstRow(m: number[][], s: number): number {
  const rows = m.slice();
  for (let k = 0; k < rows[0].length; k++) rows[0][k] *= s;
  let t = 0;
  for (let k = 0; k < m[0].length; k++) t += m[0][k] * m[1][k];
  return t;
}

/** A helper returning the rescaled vector and its norm together, as a tuple `[number[], number]`. */
function rescaled(v: number[], target: number): [number[], number] {
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n);
  const out = v.map((x) => (x * target) / n);
  return [out, n];
}

/** Reads both parts of a mixed tuple, and keeps one as its own result with a tuple of the same kind. */
export function normalisedSpread(v: number[], target: number): [number, number[]] {
  const [u, n] = rescaled(v, target);
  const pair = rescaled(u, n);
  pair[1] = pair[1] * u[0];
  pair[0][1] += pair[1];
  return [pair[1] + Math.log(n), pair[0]];
}

/** The scalar objective over the same tuple-returning helper. */
export function normalisedEnergy(v: number[], target: number): number {
  const r = rescaled(v, target);
  return r[1] * r[0][0] + r[0][r[0].length - 1];
}

/**
 * A float the loop's header sets and steps, from the array's extremes (each a loop before its
 * statement), with one iteration skipped by `continue`, which still runs the update.
 */
export function headerStepped(b: number[], x: number): number {
  let s = 0;
  for (let t = Math.max(...b) * x, k = 0; k < 4; t += Math.min(...b) * 0.5 + x * 0.1, k++) {
    if (k === 1) continue;
    s += Math.sin(t) * (x || 2);
  }
  return s;
}

/**
 * Reads of values made for the read: a component picked from a literal by the axis index, an object
 * literal's field, the last element of a copy and of a spread literal.
 */
export function pickedComponents(p: number[], q: number[], s: number): number {
  let total = 0;
  for (let axis = 0; axis < 3; axis++) {
    const d = [p[0] - q[0], p[1] - q[1], s * (p[2] - q[2])][axis];
    total += d * d * [1, 2, 0.5][axis];
  }
  const weight = ({ near: s * s, far: 1 / (1 + s) }).far;
  return weight * total + p.slice()[p.length - 1] * [...q, s][q.length];
}

/** A piecewise rate chosen by `switch (true)` over comparisons (a style some codebases use instead of if-chains). */
export function regimeRate(x: number[], k: number): number {
  let s = 0;
  for (const v of x) {
    switch (true) {
      case v < -0.5:
        s += k * v * v;
        break;
      case v < 0.5:
        s += Math.sin(k * v);
        break;
      default:
        s += Math.exp(-k * v);
    }
  }
  return s;
}

/** Kepler's equation by Newton's method: the iteration counter bumped in the right operand of `&&` */
export function keplerAnomaly(M: number, e: number): number {
  let E = M, delta: number, iter = 0;
  do {
    delta = (E - e * Math.sin(E) - M) / (1 - e * Math.cos(E));
    E -= delta;
  } while (Math.abs(delta) > 1e-14 && ++iter < 50);
  return E + 0.01 * iter;
}
