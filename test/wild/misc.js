// Matrix classes, accessor-style helpers, regression fits, kernels returned by factories.

class Matrix {
  /**
   * @param {number} rows
   * @param {number} cols
   */
  constructor(rows, cols) {
    this.rows = rows;
    this.columns = cols;
    /** @type {number[][]} */
    this.data = [];
    for (let i = 0; i < rows; i++) this.data.push(new Array(cols).fill(0));
  }
  /** @param {number[][]} arr */
  static from2DArray(arr) {
    const m = new Matrix(arr.length, arr[0].length);
    for (let i = 0; i < m.rows; i++) for (let j = 0; j < m.columns; j++) m.set(i, j, arr[i][j]);
    return m;
  }
  /** @param {number} i @param {number} j */
  get(i, j) { return this.data[i][j]; }
  /** @param {number} i @param {number} j @param {number} v */
  set(i, j, v) { this.data[i][j] = v; return this; }
  /** @param {Matrix} other */
  mmul(other) {
    const out = new Matrix(this.rows, other.columns);
    for (let i = 0; i < this.rows; i++)
      for (let j = 0; j < other.columns; j++) {
        let s = 0;
        for (let k = 0; k < this.columns; k++) s += this.get(i, k) * other.get(k, j);
        out.set(i, j, s);
      }
    return out;
  }
  transpose() {
    const out = new Matrix(this.columns, this.rows);
    for (let i = 0; i < this.rows; i++) for (let j = 0; j < this.columns; j++) out.set(j, i, this.get(i, j));
    return out;
  }
  norm() {
    let s = 0;
    for (const row of this.data) for (const v of row) s += v * v;
    return Math.sqrt(s);
  }
}

/**
 * Frobenius norm of A Aᵀ with an ml-matrix style class.
 * @param {number[][]} a
 */
export function gramNorm(a) {
  const A = Matrix.from2DArray(a);
  return A.mmul(A.transpose()).norm();
}

/**
 * d3-style accessor sum.
 * @param {{value: number, weight: number}[]} data
 * @param {(d: {value: number, weight: number}) => number} accessor
 */
function sumBy(data, accessor) {
  let s = 0;
  for (const d of data) {
    const v = accessor(d);
    if (v != null && !isNaN(v)) s += v;
  }
  return s;
}

/**
 * @param {{value: number, weight: number}[]} data
 */
export function weightedTotal(data) {
  return sumBy(data, (d) => d.value * d.weight) / sumBy(data, (d) => d.weight);
}

/**
 * regression-js style least squares on [x, y] pairs: returns [gradient, intercept].
 * @param {[number, number][]} data
 * @returns {number[]}
 */
export function linearFit(data) {
  const sum = [0, 0, 0, 0];
  let len = 0;
  for (const [x, y] of data) {
    sum[0] += x;
    sum[1] += y;
    sum[2] += x * x;
    sum[3] += x * y;
    len++;
  }
  const run = len * sum[2] - sum[0] * sum[0];
  const rise = len * sum[3] - sum[0] * sum[1];
  const gradient = run === 0 ? 0 : rise / run;
  const intercept = sum[1] / len - (gradient * sum[0]) / len;
  return [gradient, intercept];
}

/**
 * Exponential fit y = a e^{bx}.
 * @param {[number, number][]} data
 * @returns {{a: number, b: number}}
 */
export function exponentialFit(data) {
  const sum = [0, 0, 0, 0, 0, 0];
  for (const [x, y] of data) {
    sum[0] += x;
    sum[1] += y;
    sum[2] += x * x * y;
    sum[3] += y * Math.log(y);
    sum[4] += x * y * Math.log(y);
    sum[5] += x * y;
  }
  const denominator = sum[1] * sum[2] - sum[5] * sum[5];
  const a = Math.exp((sum[2] * sum[3] - sum[5] * sum[4]) / denominator);
  const b = (sum[1] * sum[4] - sum[5] * sum[3]) / denominator;
  return { a, b };
}

/**
 * A kernel factory, d3-style.
 * @param {number} k
 */
function epanechnikov(k) {
  return (v) => Math.abs((v /= k)) <= 1 ? (0.75 * (1 - v * v)) / k : 0;
}

/**
 * @param {number[]} samples
 * @param {number} x
 * @param {number} bandwidth
 */
export function kdeEpanechnikov(samples, x, bandwidth) {
  const kernel = epanechnikov(bandwidth);
  return samples.reduce((s, xi) => s + kernel(x - xi), 0) / samples.length;
}

/**
 * A kernel chosen by name.
 * @param {number[]} r
 * @param {'gaussian' | 'laplace' | 'cauchy'} kind
 * @param {number} scale
 */
export function kernelSum(r, kind, scale) {
  let s = 0;
  for (const v of r) {
    switch (kind) {
      case 'gaussian': s += Math.exp(-(v * v) / (2 * scale * scale)); break;
      case 'laplace': s += Math.exp(-Math.abs(v) / scale); break;
      default: s += 1 / (1 + (v / scale) ** 2);
    }
  }
  return s;
}

/**
 * brain.js style: a network object with a per-layer weights array and sizes.
 * @param {{sizes: number[], weights: number[][][], biases: number[][]}} net
 * @param {number[]} input
 */
export function runNet(net, input) {
  let outputs = input;
  for (let layer = 1; layer < net.sizes.length; layer++) {
    const next = [];
    for (let node = 0; node < net.sizes[layer]; node++) {
      const w = net.weights[layer][node];
      let sum = net.biases[layer][node];
      for (let k = 0; k < w.length; k++) sum += w[k] * outputs[k];
      next[node] = 1 / (1 + Math.exp(-sum));
    }
    outputs = next;
  }
  return outputs[0];
}

/**
 * A tensor helper: elementwise on flat data with a shape.
 * @param {{data: Float64Array, shape: number[]}} t
 */
export function tensorMeanSquare(t) {
  const size = t.shape.reduce((a, b) => a * b, 1);
  let s = 0;
  for (let i = 0; i < size; i++) s += t.data[i] ** 2;
  return s / size;
}

/**
 * Soft-threshold (lasso prox) then sum.
 * @param {number[]} v
 * @param {number} lambda
 */
export function softThresholdSum(v, lambda) {
  return v
    .map((x) => Math.sign(x) * Math.max(Math.abs(x) - lambda, 0))
    .filter((x) => x !== 0)
    .reduce((a, b) => a + b * b, 0);
}

/**
 * Params held in a dictionary object, read via Object.entries.
 * @param {{[name: string]: number}} params
 * @returns {number}
 */
export function l2OfParams(params) {
  let s = 0;
  for (const [, v] of Object.entries(params)) s += v * v;
  return s;
}

/**
 * Loop-local function expression called after the loop (older code).
 * @param {number[]} xs
 */
export function lastScaled(xs) {
  for (var i = 0; i < xs.length; i++) {
    var scale = function (v) { return v * 2; };
  }
  return scale(xs[0]);
}
