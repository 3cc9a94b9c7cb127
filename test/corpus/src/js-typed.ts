// Typed arrays as numeric JavaScript uses them: Int32Array permutations in pivoting code, Int8Array
// sign vectors, Uint32Array counters, float32 weight tables. Integer typed arrays are passive (their
// elements are integers, usable as indices); a Float32Array's values are rounded to float32 on store.

/** Determinant by LU with partial pivoting; rows are permuted through an Int32Array, never moved. */
export function pivotedDeterminant(A: number[][], n: number): number {
  const lu: number[][] = [];
  for (let i = 0; i < n; i++) lu.push(A[i].slice());
  const perm = new Int32Array(n);
  for (let i = 0; i < n; i++) perm[i] = i;
  let det = 1;
  for (let k = 0; k < n; k++) {
    let best = k;
    for (let i = k + 1; i < n; i++) {
      if (Math.abs(lu[perm[i]][k]) > Math.abs(lu[perm[best]][k])) best = i;
    }
    if (best !== k) {
      const tmp = perm[k];
      perm[k] = perm[best];
      perm[best] = tmp;
      det = -det;
    }
    const pivotRow = lu[perm[k]];
    const pivot = pivotRow[k];
    det *= pivot;
    for (let i = k + 1; i < n; i++) {
      const row = lu[perm[i]];
      const factor = row[k] / pivot;
      for (let j = k + 1; j < n; j++) row[j] -= factor * pivotRow[j];
    }
  }
  return det;
}

/** Solves A x = b by LU with an Int32Array pivot vector, then returns a weighted norm of x. */
export function pivotedSolveNorm(A: number[][], b: number[]): number {
  const n = b.length;
  const a: number[][] = [];
  for (const row of A) a.push(row.slice());
  const piv = new Int32Array(n);
  for (let i = 0; i < n; i++) piv[i] = i;
  for (let k = 0; k < n; k++) {
    let p = k;
    for (let i = k + 1; i < n; i++) if (Math.abs(a[piv[i]][k]) > Math.abs(a[piv[p]][k])) p = i;
    const t = piv[k];
    piv[k] = piv[p];
    piv[p] = t;
    for (let i = k + 1; i < n; i++) {
      const f = a[piv[i]][k] / a[piv[k]][k];
      a[piv[i]][k] = f;
      for (let j = k + 1; j < n; j++) a[piv[i]][j] -= f * a[piv[k]][j];
    }
  }
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = b[piv[i]];
    for (let j = 0; j < i; j++) s -= a[piv[i]][j] * y[j];
    y[i] = s;
  }
  const x = new Float64Array(n);
  for (let i = n - 1; i >= 0; i--) {
    let s = y[i];
    for (let j = i + 1; j < n; j++) s -= a[piv[i]][j] * x[j];
    x[i] = s / a[piv[i]][i];
  }
  let norm = 0;
  for (let i = 0; i < n; i++) norm += (i + 1) * x[i] * x[i];
  return norm;
}

/** Soft-thresholding penalty with the signs kept in an Int8Array (filled with 1, then flipped). */
export function signedShrinkage(x: number[], lambda: number): number {
  const sign = new Int8Array(x.length).fill(1);
  for (let i = 0; i < x.length; i++) if (x[i] < 0) sign[i] = -1;
  let loss = 0;
  for (let i = 0; i < x.length; i++) {
    const mag = sign[i] * x[i] - lambda;
    const shrunk = mag > 0 ? sign[i] * mag : 0;
    loss += (x[i] - shrunk) ** 2 + lambda * Math.abs(shrunk);
  }
  return loss;
}

/** A loss reweighted by class frequency: counts per bin in a Uint32Array, each sample weighted 1/count. */
export function balancedLoss(pred: number[], target: number[], bins: number): number {
  const counts = new Uint32Array(bins);
  const bin = new Uint8Array(target.length);
  for (let i = 0; i < target.length; i++) {
    // the target's bin over [0, 1): a passive label
    const b = Math.min(bins - 1, Math.floor(target[i] * bins));
    bin[i] = b;
    counts[b]++;
  }
  let loss = 0;
  for (let i = 0; i < pred.length; i++) {
    const r = pred[i] - target[i];
    loss += (r * r) / counts[bin[i]];
  }
  return loss / bins;
}

/** A linear model whose weights are stored in float32 (a quantised table); the input stays float64. */
export function float32Model(weights: number[], x: number[], bias: number): number {
  const w32 = Float32Array.from(weights);
  let s = bias;
  for (let i = 0; i < x.length; i++) s += w32[i] * x[i];
  return Math.tanh(s);
}

/** A float32 lookup table of a kernel at grid points (exact in float32), interpolated at x. */
export function float32Kernel(x: number[]): number {
  const table = new Float32Array(9);
  for (let k = 0; k < table.length; k++) table[k] = (k - 4) * 0.25;
  let acc = 0;
  for (let i = 0; i < x.length; i++) {
    const t = Math.min(7.999, Math.max(0, (x[i] + 1) * 4));
    const k = Math.floor(t);
    const frac = t - k;
    acc += (1 - frac) * table[k] + frac * table[k + 1];
  }
  return acc * acc;
}

/** Head/rest split without recursion: the first sample is the reference, the rest are its deviations. */
export function deviationFromFirst(samples: number[]): number {
  const [reference, ...others] = samples;
  let sum = 0;
  for (const s of others) sum += (s - reference) ** 2;
  // the rest is a fresh array: scaling it leaves the samples as they were
  for (let i = 0; i < others.length; i++) others[i] *= 0.5;
  return sum / others.length + others[others.length - 1] * samples[samples.length - 1];
}

/** Rows after the first through a rest element (shared with the matrix), a tuple's tail as a tuple. */
function weightedTail([scale, ...weights]: number[], v: number[]): number {
  let s = 0;
  for (let i = 0; i < weights.length; i++) s += weights[i] * v[i];
  return scale * s;
}
export function restRows(M: number[][], coeffs: [number, number, number]): number {
  const [top, ...below] = M;
  const [c0, ...cRest] = coeffs;
  let acc = 0;
  for (const row of below) acc += weightedTail([c0, ...cRest], row) * top[0];
  below[0][1] += acc;
  return M[1][1] * cRest[1] + acc;
}

/** A sliding window of the last four samples: each step shifts it left with `set` of an overlapping view. */
export function slidingEnergy(samples: number[], alpha: number): number {
  const window = new Float64Array(4);
  let energy = 0;
  for (let t = 0; t < samples.length; t++) {
    window.set(window.subarray(1), 0);
    window[3] = samples[t];
    let avg = 0;
    for (let k = 0; k < window.length; k++) avg += (window[k] * (k + 1)) / 10;
    energy += alpha * avg * avg;
  }
  return energy;
}

/** Two parameter blocks packed into one flat buffer with `set`, then a weighted sum of squares. */
export function packedQuadratic(w: number[], b: Float64Array, scale: number): number {
  const flat = new Float64Array(w.length + b.length);
  flat.set(w);
  flat.set(b, w.length);
  let s = 0;
  for (let i = 0; i < flat.length; i++) s += flat[i] * flat[i] * (i + 1);
  flat.set([scale * flat[0]], flat.length - 1);
  return s + flat[flat.length - 1];
}
