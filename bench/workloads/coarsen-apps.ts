// The coarsening paper's applications (issue 19; notes/coarsening.md §4.3), written for tsad from the
// report's descriptions: the functions whose gradients the paper's programs take, as plain loops over
// arrays. bench/coarsen.ts times their gradients with coarsening, without it, and without φ-calculus.

/**
 * Brachistochrone: the time a bead takes to slide, from rest and without friction, down the curve
 * through the points (i·dx, y[i]) (y[0] the start height, y decreasing along the curve), each section
 * a straight segment run at the mean of the speeds at its ends (energy: v = √(2g(y₀ − y))).
 */
export function brachistochroneTime(y: number[], dx: number, g: number): number {
  let t = 0;
  for (let i = 0; i + 1 < y.length; i++) {
    const dy = y[i + 1] - y[i];
    const len = Math.sqrt(dx * dx + dy * dy);
    const v0 = Math.sqrt(2 * g * (y[0] - y[i]) + 1e-3);
    const v1 = Math.sqrt(2 * g * (y[0] - y[i + 1]) + 1e-3);
    t += (2 * len) / (v0 + v1);
  }
  return t;
}

/**
 * HookeanSpring: the elastic energy of a chain of masses in the plane (positions p = [x0, y0, x1, y1, …])
 * joined by springs to the next vertex and to the one after it, each with its rest length.
 */
export function springEnergy(p: number[], rest1: number[], rest2: number[], k: number): number {
  const n = p.length / 2;
  let e = 0;
  for (let i = 0; i + 1 < n; i++) {
    const dx = p[2 * i + 2] - p[2 * i];
    const dy = p[2 * i + 3] - p[2 * i + 1];
    const d = Math.sqrt(dx * dx + dy * dy) - rest1[i];
    e += 0.5 * k * d * d;
  }
  for (let i = 0; i + 2 < n; i++) {
    const dx = p[2 * i + 4] - p[2 * i];
    const dy = p[2 * i + 5] - p[2 * i + 1];
    const d = Math.sqrt(dx * dx + dy * dy) - rest2[i];
    e += 0.5 * k * d * d;
  }
  return e;
}

/**
 * HMC for logistic regression: the potential U(β) = −log posterior, X row-major (n rows of d features),
 * y in {0, 1}, prior β ~ N(0, σ²); log(1 + e^t) written stably (t > 40: t).
 */
export function logisticPotential(beta: number[], X: number[], y: number[], d: number, sigma2: number): number {
  const n = y.length;
  let u = 0;
  for (let i = 0; i < n; i++) {
    let z = 0;
    for (let j = 0; j < d; j++) z += X[i * d + j] * beta[j];
    const t = -z;
    const soft = t > 40 ? t : Math.log(1 + Math.exp(t));
    u += soft + (1 - y[i]) * z;
  }
  let b2 = 0;
  for (let j = 0; j < d; j++) b2 += beta[j] * beta[j];
  return u + b2 / (2 * sigma2);
}

/**
 * BGDHyperOpt (report §2.6(III), the paper's Fig. 6(a)): the error of a linear fit y ≈ x·w after up to
 * T steps of batch gradient descent at learning rate r, stopping early when the step gets small.
 */
export function bgdError(r: number, x: number[], y: number[], T: number): number {
  const M = x.length;
  let w = 0;
  let k = 0;
  while (k < T) {
    k++;
    let d = 0;
    for (let i = 0; i < M; i++) d += 2 * x[i] * (y[i] - x[i] * w);
    d = d / M;
    if (d < 0.001) break;
    w = w - r * d;
  }
  let e = 0;
  for (let j = 0; j < M; j++) e += (y[j] - x[j] * w) ** 2;
  return e ** 0.5 / M;
}
