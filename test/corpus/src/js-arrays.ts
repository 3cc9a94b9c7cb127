// Arrays as JavaScript programs usually build them: untyped `[]` filled by push, `new Array(n).fill(0)`,
// `new Array(n)` filled by the loop after it, spread, slice/concat, in-place reverse/fill, indexOf/includes.

/** Trailing moving average of a signal; its output is built with push, then scored. */
export function movingAverageRoughness(xs: number[], width: number): number {
  const smooth = [];
  for (let i = width - 1; i < xs.length; i++) {
    let s = 0;
    for (let k = 0; k < width; k++) s += xs[i - k];
    smooth.push(s / width);
  }
  let rough = 0;
  for (let i = 1; i < smooth.length; i++) rough += (smooth[i] - smooth[i - 1]) ** 2;
  return rough;
}

/** Prefix sums in a zero-filled array, then a soft penalty on the running totals. */
/** A padded signal built with `push(...xs)` (its own values pushed again too), then smoothed. */
export function paddedSmoothing(xs: number[], pad: Float64Array): number {
  const buf: number[] = [];
  buf.push(...pad);
  buf.push(...xs);
  buf.push(...buf.slice(0, 2));
  // (older JavaScript's spread: the range the penalty is scaled by)
  let s = 0.01 * (Math.max.apply(null, buf) - Math.min.apply(Math, buf));
  for (let i = 1; i + 1 < buf.length; i++) {
    const d = buf[i + 1] - 2 * buf[i] + buf[i - 1];
    s += d * d;
  }
  return s;
}

export function prefixSumPenalty(xs: number[]): number {
  const prefix = new Array(xs.length + 1).fill(0);
  for (let i = 0; i < xs.length; i++) prefix[i + 1] = prefix[i] + xs[i];
  let total = 0;
  for (const p of prefix) total += Math.log(1 + p * p);
  return total;
}

/** Multiplies two polynomials (coefficients low to high), shifts by x with spread, evaluates by Horner. */
export function polyProductAt(a: number[], b: number[], x: number): number {
  const c = new Array(a.length + b.length - 1).fill(0);
  for (let i = 0; i < a.length; i++) {
    for (let j = 0; j < b.length; j++) c[i + j] += a[i] * b[j];
  }
  const shifted = [0, ...c]; // x · c(x)
  const both = shifted.concat(a); // x·c(x) followed by a's coefficients, read as one longer polynomial
  let v = 0;
  for (let i = both.length - 1; i >= 0; i--) v = v * x + both[i];
  return v;
}

/** Correlation by flipping the kernel and convolving over windows cut out with slice. */
export function flippedConvolution(signal: number[], kernel: number[]): number {
  const flipped = kernel.slice().reverse();
  const out: number[] = [];
  for (let i = 0; i + flipped.length <= signal.length; i++) {
    const win = signal.slice(i, i + flipped.length);
    let acc = 0;
    for (let k = 0; k < win.length; k++) acc += win[k] * flipped[k];
    out.push(Math.tanh(acc));
  }
  let s = 0;
  for (const v of out) s += v * v;
  return s;
}

/** A weighted mean over values binned by their rounded magnitude; the bin counts are passive. */
export function binnedWeightedMean(values: number[], weights: number[]): number {
  const bins = [];
  for (const v of values) bins.push(Math.min(Math.floor(Math.abs(v) * 2), 3));
  let num = 0;
  let den = 0;
  for (let i = 0; i < values.length; i++) {
    const w = weights[i] / (1 + bins[i]);
    num += w * values[i];
    den += w;
  }
  return num / den;
}

/** Finite differences into an array allocated with holes and filled by the loop right after it. */
export function smoothTotalVariation(xs: number[], eps: number): number {
  const n = xs.length - 1;
  const diffs = new Array(n);
  for (let i = 0; i < n; i++) diffs[i] = xs[i + 1] - xs[i];
  let tv = 0;
  for (const d of diffs) tv += Math.sqrt(d * d + eps * eps);
  return tv;
}

/** A trimmed mean: drop the first and last samples with slice, skip the spot where the peak sits. */
export function trimmedMeanWithoutPeak(xs: number[]): number {
  const inner = xs.slice(1, -1);
  let peak = inner[0];
  for (const v of inner) if (v > peak) peak = v;
  const at = inner.indexOf(peak);
  let s = 0;
  let n = 0;
  for (let i = 0; i < inner.length; i++) {
    if (i === at) continue;
    s += inner[i];
    n++;
  }
  return inner.includes(peak) && n > 0 ? s / n + 0.1 * peak : peak;
}

/** An explicit Euler step on a state assembled with spread, the next state copied with spread. */
export function springStateEnergy(pos: number[], vel: number[], k: number): number {
  let state = [...pos, ...vel];
  const half = pos.length;
  for (let step = 0; step < 4; step++) {
    const next = [...state];
    for (let i = 0; i < half; i++) {
      next[i] = state[i] + 0.1 * state[half + i];
      next[half + i] = state[half + i] - 0.1 * k * state[i];
    }
    state = next;
  }
  let e = 0;
  for (let i = 0; i < half; i++) e += 0.5 * k * state[i] ** 2 + 0.5 * state[half + i] ** 2;
  return e;
}

/** Rows of two matrices joined with concat, reversed in place, then a weighted Frobenius norm. */
export function stackedRowsNorm(A: number[][], B: number[][]): number {
  const rows = A.concat(B);
  const r = rows.reverse(); // the same array: r and rows are one object
  let s = 0;
  for (let i = 0; i < r.length; i++) {
    for (let j = 0; j < r[i].length; j++) s += (i + 1) * r[i][j] * rows[i][j];
  }
  const scaled = r[0].slice().fill(0.5 * r[0][0]);
  return s + scaled[0] * scaled[scaled.length - 1];
}

/** Evaluates a polynomial written in reverse Polish notation (coefficients interleaved with "multiply by x, add") on a stack of numbers. */
export function rpnPolynomial(coeffs: number[], x: number): number {
  const stack: number[] = [];
  for (let i = 0; i < coeffs.length; i++) {
    stack.push(coeffs[i]);
    if (stack.length === 2) {
      const c = stack.pop() ?? 0;
      const acc = stack.pop() ?? 0;
      stack.push(acc * x + c);
    }
  }
  return stack.pop() ?? 0;
}

/** Energy of a signal taken in blocks of four: a reusable buffer is emptied with `length = 0` after each block. */
export function blockEnergy(xs: number[]): number {
  const block: number[] = [];
  let energy = 0;
  for (const v of xs) {
    block.push(Math.tanh(v));
    if (block.length === 4) {
      let s = 0;
      for (let k = 0; k < block.length; k++) s += block[k] * block[(k + 1) % 4];
      energy += s * s;
      block.length = 0;
    }
  }
  // what is left of the last, partial block
  for (const b of block) energy += 0.5 * b * b;
  return energy;
}

/** Keeps the first `keep` samples of a caller's array in place (the caller sees it shortened), then fits their mean. */
export function truncatedMeanSquare(samples: number[], keep: number): number {
  if (samples.length > keep) samples.length = keep;
  let mean = 0;
  for (const v of samples) mean += v / samples.length;
  let ss = 0;
  for (const v of samples) ss += (v - mean) ** 2;
  return ss + mean * samples[samples.length - 1];
}

/** Undo history: each step pushes a state, a rejected step pops back to the previous one. */
export function acceptedWalk(steps: number[], start: number): number {
  const history = [start];
  for (const d of steps) {
    const prev = history[history.length - 1];
    const next = prev + Math.sin(d) * 0.5;
    history.push(next);
    if (next * next > 1.5) history.pop();
  }
  let total = 0;
  while (history.length > 1) total += (history.pop() ?? 0) * history.length;
  return total + history[0];
}

/** Squares pushed on a stack, the last one replaced by a new value (a pop followed by a push). */
export function replaceLastSquare(x: number[]): number {
  const st: number[] = [];
  for (let i = 0; i < x.length; i++) st.push(x[i] * x[i]);
  st.pop();
  st.push(3 * x[0]);
  return st[st.length - 1] + st[0];
}

/** Scales a vector to unit length in place and returns its old length. */
function normalizeInPlace(v: number[]): number {
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n);
  for (let i = 0; i < v.length; i++) v[i] /= n;
  return n;
}

/** The unit vector, twice, then its old length: `concat` evaluates its arguments (normalising `xs`) before it reads any array. */
export function unitTwiceWithNorm(xs: number[]): number {
  const all = xs.concat(xs, normalizeInPlace(xs));
  let s = 0;
  for (let i = 0; i < all.length; i++) s += all[i] * (i + 1);
  return s;
}

/** log Σ exp(t) over any number of terms, stabilised by the largest: a rest parameter. */
function logSumExp(...terms: number[]): number {
  const m = Math.max(...terms);
  let s = 0;
  for (const t of terms) s += Math.exp(t - m);
  return m + Math.log(s);
}

/** A soft maximum of three smooth scores and of the entries of a vector, spread into the rest parameter. */
export function softMaxScore(a: number, b: number, v: number[]): number {
  return logSumExp(a * a, a * b, Math.sin(b)) + 0.5 * logSumExp(...v, a);
}

/** Interleaved coordinates of a curve (`out.push(x, y)`), then its squared chord lengths. */
export function flattenedCurve(ts: number[], r: number): number {
  const out: number[] = [];
  for (const t of ts) out.push(r * Math.cos(t), r * Math.sin(t));
  let s = 0;
  for (let i = 2; i < out.length; i += 2) s += (out[i] - out[i - 2]) ** 2 + (out[i + 1] - out[i - 1]) ** 2;
  return s;
}

/** A history of [position, velocity] states, two steps undone with `pop`: the last one popped is still used, and written through. */
export function undoneSteps(x0: number[], h: number): number {
  const history = [[x0[0], x0[1]]];
  for (let k = 0; k < 5; k++) {
    const [p, v] = history[history.length - 1];
    history.push([p + h * v, v - h * Math.sin(p)]);
  }
  history.pop();
  const undone = history.pop()!;
  undone[1] *= 0.5;
  const last = history[history.length - 1];
  return last[0] * last[1] + undone[0] * undone[1] + history.length;
}

interface Body { m: number; x: number }

/** Bodies taken off a copied list one by one (`pop` of objects), each folded into a running centre of mass; the first stays in use. */
export function poppedCentreOfMass(bodies: Body[], g: number): number {
  const queue = bodies.slice();
  const first = queue[0];
  let mass = 0;
  let moment = 0;
  while (queue.length > 0) {
    const b = queue.pop()!;
    mass += b.m;
    moment += b.m * b.x * g;
  }
  return moment / mass + first.x * first.m;
}

/** The first rows of a copied matrix kept by a `length` assignment, then one of the original rows pushed back. */
export function trimmedRowsProduct(m: number[][], k: number): number {
  const rows = m.slice();
  const dropped = rows[rows.length - 1];
  rows.length = k;
  rows.push(m[0]);
  let s = 0;
  for (const r of rows) s += r[0] * r[1];
  return s + dropped[1] * rows.length;
}

/** Rank-weighted loss: the indices sorted by the residuals they point at (an argsort), heavier weights on the larger. */
export function rankWeightedLoss(pred: number[], target: number[]): number {
  const residual = pred.map((p, i) => (p - target[i]) ** 2);
  const order = Array.from(residual.keys()).sort((i, j) => residual[i] - residual[j]);
  let loss = 0;
  for (let r = 0; r < order.length; r++) loss += ((r + 1) / order.length) * residual[order[r]];
  return loss;
}

interface Bid {
  price: number;
  size: number;
}

/** Fills an order from the cheapest bids up: the bids' indices in a typed array, sorted by their prices. */
export function fillCost(bids: Bid[], want: number): number {
  const byPrice = Int32Array.from(bids.keys()).sort((a, b) => bids[a].price - bids[b].price);
  let left = want;
  let cost = 0;
  for (const i of byPrice) {
    const take = Math.min(left, bids[i].size);
    cost += take * bids[i].price;
    left -= take;
  }
  return cost + left * 10;
}

/** Spearman-style score: ranks by spread indices sorted descending, correlated with the values. */
export function rankCorrelation(xs: number[]): number {
  const idx = [...xs.keys()];
  idx.sort((a, b) => xs[b] - xs[a]);
  let s = 0;
  for (let r = 0; r < idx.length; r++) s += Math.tanh(xs[idx[r]]) * (idx.length - r);
  return s / idx.length;
}

/** Back substitution of a bidiagonal system into `new Array(n)`, filled from its last element down. */
export function bidiagonalSolveEnergy(diag: number[], upper: number[], rhs: number[]): number {
  const n = diag.length;
  const x = new Array<number>(n);
  x[n - 1] = rhs[n - 1] / diag[n - 1];
  for (let i = n - 2; i >= 0; i--) x[i] = (rhs[i] - upper[i] * x[i + 1]) / diag[i];
  let e = 0;
  for (let i = 0; i < n; i++) e += x[i] * x[i];
  return e;
}

/** A second-order recurrence (a damped oscillator in discrete time) into `new Array(n)`, its first two elements given. */
export function recurrenceTail(u: number[], a: number, b: number): number {
  const n = u.length;
  const y = new Array(n);
  y[0] = u[0];
  y[1] = u[1] + a * u[0];
  for (let k = 2; k < n; k++) y[k] = u[k] + a * y[k - 1] - b * y[k - 2];
  return y[n - 1] * y[n - 2];
}

/** A robust spread: the samples of a typed buffer copied into a plain array, sorted, the middle half's variance. */
export function interquartileSpread(samples: Float64Array): number {
  const v = Array.from(samples);
  v.sort((a, b) => a - b);
  const lo = Math.floor(v.length / 4), hi = v.length - lo;
  let mean = 0;
  for (let i = lo; i < hi; i++) mean += v[i];
  mean /= hi - lo;
  let s = 0;
  for (let i = lo; i < hi; i++) s += (v[i] - mean) ** 2;
  return s / (hi - lo);
}

/** Soft histogram energy: bins zeroed by storing past the end of an empty array, then filled by weights. */
export function binnedEnergy(xs: number[], width: number, nbins: number): number {
  var bins: number[] = [];
  for (var k = 0; k < nbins; k++) bins[k] = 0;
  for (var i = 0; i < xs.length; i++) {
    var pos = xs[i] / width;
    var b = Math.min(nbins - 1, Math.max(0, Math.floor(pos)));
    bins[b] += Math.exp(-(pos - b - 0.5) * (pos - b - 0.5));
  }
  var e = 0;
  for (var k = 0; k < nbins; k++) e += bins[k] * bins[k];
  return e;
}

/** Back substitution into an empty array from its last element down: the first store leaves holes the later ones fill. */
export function backSubstitute(U: number[][], b: number[]): number[] {
  const n = b.length;
  const x: number[] = [];
  for (let i = n - 1; i >= 0; i--) {
    let s = b[i];
    for (let j = i + 1; j < n; j++) s -= U[i][j] * x[j];
    x[i] = s / U[i][i];
  }
  return x;
}

/** Knots stored out of order into an empty array (ends first, then the middle), and a smoothness penalty over them. */
export function knotPenalty(y: number[]) {
  var k = [];
  k[y.length - 1] = y[y.length - 1];
  k[0] = y[0];
  for (var i = 1; i < y.length - 1; i++) k[i] = 0.5 * (y[i - 1] + y[i + 1]) + 0.25 * y[i];
  var p = 0;
  for (var i = 1; i < k.length; i++) p += (k[i] - k[i - 1]) * (k[i] - k[i - 1]);
  return p;
}

/** Top-down dynamic programming: a memo table `[]` filled out of order by a recursive helper, tested for holes. */
function cheapestTo(i: number, w: number[], memo: number[]): number {
  if (memo[i] !== undefined) return memo[i];
  let v: number;
  if (i <= 1) v = w[i] * w[i];
  else v = Math.min(cheapestTo(i - 1, w, memo), cheapestTo(i - 2, w, memo)) + Math.sin(w[i]);
  memo[i] = v;
  return v;
}
export function memoPathCost(w: number[]): number {
  const memo: number[] = [];
  return cheapestTo(w.length - 1, w, memo);
}

/** Every other sample stored first; the gaps, still holes, tested on the way (then filled). */
export function interleavedFill(x: number[]) {
  const y = [];
  for (let i = 0; i < x.length; i += 2) y[i] = x[i] * x[i];
  let s = 0;
  for (let i = 1; i < x.length; i += 2) {
    let gap = 0.5;
    if (y[i] !== undefined) gap = y[i];
    s += gap * x[i];
    let right = y[i - 1];
    if (y[i + 1] !== undefined) right = y[i + 1];
    y[i] = 0.5 * (y[i - 1] + right);
  }
  for (let i = 0; i < y.length; i++) s += Math.tanh(y[i]);
  return s;
}

/** The same with `??`: the backward sweep tests the gaps again on restored values, where a hole comes back as NaN. */
export function interleavedFallback(x: number[]) {
  const y = [];
  for (let i = 0; i < x.length; i += 2) y[i] = x[i] * x[i];
  let s = 0;
  for (let i = 1; i < x.length; i += 2) {
    s += (y[i] ?? 0.5) * x[i];
    y[i] = 0.5 * (y[i - 1] + (y[i + 1] ?? y[i - 1]));
  }
  for (let i = 0; i < y.length; i++) s += Math.tanh(y[i]);
  return s;
}

/** Values inserted one at a time into a sorted list where they belong (`splice(i, 0, v)`), then weighted by rank. */
export function sortedInsertion(x: number[], c: number): number {
  const sorted: number[] = [];
  for (const v of x) {
    const y = v * c + Math.sin(v);
    let at = sorted.findIndex((s) => s > y);
    if (at < 0) at = sorted.length;
    sorted.splice(at, 0, y);
  }
  let s = 0;
  for (let r = 0; r < sorted.length; r++) s += (r + 1) * sorted[r];
  return s;
}

/** A window of the last three smoothed values, newest first: `unshift` in, the oldest cut off by `splice`, its value used. */
export function newestFirstWindow(x: number[], alpha: number): number {
  const win: number[] = [];
  let level = x[0];
  let dropped = 0;
  for (let i = 1; i < x.length; i++) {
    level = alpha * x[i] + (1 - alpha) * level;
    const n = win.unshift(level * level);
    if (n > 3) dropped += win.splice(3, n - 3)[0] * 0.5;
  }
  return win[0] - 2 * win[win.length - 1] + dropped;
}

/** Rows replaced and removed in place (`splice` returning rows still written through), copies with one element replaced (`with`). */
export function splicedRows(m: number[][], x: number[]): number {
  const rows = m.slice();
  const removed = rows.splice(1, 2, [x[0] * x[1], x[2]], x);
  removed[0][1] *= x[0];
  rows.unshift(removed[1].with(-1, x[1] * x[1]));
  const scaled = x.with(0, x[0] * 3);
  let s = 0;
  for (const r of rows) s += r[0] * r[r.length - 1];
  return s + removed[0][1] * scaled[0] + m[1][1];
}

/** The argument shortened in place from the front (`splice(0, k)`) and grown again at the front (`unshift`). */
export function rotateInPlace(x: number[], k: number): number {
  const head = x.splice(0, k);
  x.unshift(x[x.length - 1] * head[0]);
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i] * (i + 1);
  return s + head[head.length - 1];
}

/** Typed arrays made by mapping (`Float64Array.from(xs, fn)`, `Float64Array.from({ length: n }, (_, i) => …)`). */
export function mappedTypedArrays(x: number[], c: number): number {
  const sq = Float64Array.from(x, (v, i) => v * v + i * c);
  const ramp = Float64Array.from({ length: x.length }, (_, i) => c * (i + 1));
  let s = 0;
  for (let i = 0; i < sq.length; i++) s += sq[i] * ramp[i];
  return s + Float64Array.from(x, Math.exp)[1];
}
