// Machine-learning losses and layers as small JS ML libraries write them.

/** @param {number} z */
const sigmoid = (z) => 1 / (1 + Math.exp(-z));

/**
 * @param {number[]} a
 * @param {number[]} b
 */
function dot(a, b) {
  return a.reduce((s, ai, i) => s + ai * b[i], 0);
}

/**
 * Logistic-regression loss over labelled samples.
 * @param {number[]} weights
 * @param {number} bias
 * @param {{x: number[], y: number}[]} data
 * @param {number} [lambda]
 * @returns {number}
 */
export function logisticLoss(weights, bias, data, lambda = 0.01) {
  let loss = 0;
  data.forEach(({ x, y }) => {
    const p = sigmoid(dot(weights, x) + bias);
    loss -= y * Math.log(p) + (1 - y) * Math.log(1 - p);
  });
  const reg = weights.reduce((s, w) => s + w * w, 0);
  return loss / data.length + (lambda / 2) * reg;
}

/**
 * @param {number[]} logits
 * @returns {number[]}
 */
function softmax(logits) {
  const max = Math.max(...logits);
  const exps = logits.map((l) => Math.exp(l - max));
  const total = exps.reduce((a, b) => a + b, 0);
  return exps.map((e) => e / total);
}

/**
 * @param {number[]} logits
 * @param {number} label
 * @returns {number}
 */
export function softmaxCrossEntropy(logits, label) {
  const probs = softmax(logits);
  return -Math.log(probs[label] + 1e-12);
}

/**
 * k-means: assign each point to its nearest centroid, return the inertia.
 * @param {number[][]} points
 * @param {number[][]} centroids
 * @returns {number}
 */
export function kmeansInertia(points, centroids) {
  const dist2 = (a, b) => a.reduce((s, v, i) => s + (v - b[i]) ** 2, 0);
  let inertia = 0;
  for (const p of points) {
    let best = Infinity;
    for (const c of centroids) {
      const d = dist2(p, c);
      if (d < best) best = d;
    }
    inertia += best;
  }
  return inertia;
}

/**
 * A small multilayer perceptron.
 * @param {{W: number[][], b: number[]}[]} layers
 * @param {number[]} input
 * @returns {number[]}
 */
export function mlpForward(layers, input) {
  let activation = input;
  layers.forEach((layer, li) => {
    const z = layer.W.map((row, j) => dot(row, activation) + layer.b[j]);
    activation = li === layers.length - 1 ? z : z.map(Math.tanh);
  });
  return activation;
}

/**
 * Batch normalisation of one feature column.
 * @param {number[]} x
 * @param {number} gamma
 * @param {number} beta
 * @param {number} [eps]
 * @returns {number[]}
 */
export function batchNorm(x, gamma, beta, eps = 1e-5) {
  const n = x.length;
  const mu = x.reduce((a, b) => a + b, 0) / n;
  const variance = x.reduce((a, b) => a + (b - mu) ** 2, 0) / n;
  return x.map((v) => gamma * (v - mu) / Math.sqrt(variance + eps) + beta);
}

/**
 * Mean squared error of a linear model.
 * @param {number[]} theta
 * @param {number[][]} X
 * @param {number[]} y
 * @returns {number}
 */
export function linearMSE(theta, X, y) {
  const preds = X.map((row) => row.reduce((acc, xj, j) => acc + xj * theta[j], 0));
  return preds.reduce((acc, p, i) => acc + (p - y[i]) ** 2, 0) / y.length;
}

/**
 * Huber loss with an options object.
 * @param {number[]} residuals
 * @param {{delta?: number}} [opts]
 * @returns {number}
 */
export function huberLoss(residuals, opts = {}) {
  const { delta = 1.0 } = opts;
  return residuals.reduce((acc, r) => {
    const a = Math.abs(r);
    return acc + (a <= delta ? 0.5 * r * r : delta * (a - 0.5 * delta));
  }, 0);
}

/**
 * Cosine similarity.
 * @param {number[]} a
 * @param {number[]} b
 */
export function cosineSimilarity(a, b) {
  const na = Math.hypot(...a), nb = Math.hypot(...b);
  return dot(a, b) / (na * nb);
}

/**
 * Network config with optional nested fields read by optional chaining.
 * @param {number[]} w
 * @param {{ reg?: { l2?: number } }} config
 * @returns {number}
 */
export function regularizedNorm(w, config) {
  const l2 = config.reg?.l2 ?? 0;
  return w.reduce((s, v) => s + v * v, 0) * (1 + l2);
}

/**
 * Cross-entropy with an object of class scores, via Object.values.
 * @param {{[k: string]: number}} scores
 * @returns {number}
 */
export function logSumExpObj(scores) {
  const vals = Object.values(scores);
  const m = Math.max(...vals);
  return m + Math.log(vals.reduce((s, v) => s + Math.exp(v - m), 0));
}
