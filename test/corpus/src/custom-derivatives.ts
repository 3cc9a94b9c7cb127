// Hand-written derivatives and passive helpers (issue 17, item 5): companions `f_jvp`/`f_vjp`, the
// `$ad custom-derivative` directive and `$ad passive`, in the shapes people write them: an implicit
// solve whose derivative comes from the implicit function theorem, a stable log-sum-exp, array rules
// called in loops, an argmax and a hashed noise that carry no derivative.

/** The eccentric anomaly E of mean anomaly M (Newton on E − e·sin E = M). */
export function eccentricAnomaly(M: number, e: number): number {
  let E = M + e * Math.sin(M);
  for (let k = 0; k < 30; k++) {
    const step = (E - e * Math.sin(E) - M) / (1 - e * Math.cos(E));
    E -= step;
    if (Math.abs(step) < 1e-15) break;
  }
  return E;
}

// Differentiating the Newton steps would follow every iteration; at the solution,
// dE·(1 − e·cos E) = dM + sin E·de.
export function eccentricAnomaly_jvp(M: number, Md: number, e: number, ed: number): [number, number] {
  const E = eccentricAnomaly(M, e);
  return [E, (Md + Math.sin(E) * ed) / (1 - e * Math.cos(E))];
}

export function eccentricAnomaly_vjp(M: number, e: number, Eb: number): [number, number] {
  const E = eccentricAnomaly(M, e);
  const g = Eb / (1 - e * Math.cos(E));
  return [g, Math.sin(E) * g];
}

/** Mean orbital radius over sample times (Kepler's equation solved at each one). */
export function meanOrbitRadius(times: number[], period: number, e: number, a: number): number {
  let s = 0;
  for (let i = 0; i < times.length; i++) {
    const M = (2 * Math.PI * times[i]) / period;
    const E = eccentricAnomaly(M, e);
    s += a * (1 - e * Math.cos(E));
  }
  return s / times.length;
}

// $ad custom-derivative tangent=logSumExpTangent adjoint=logSumExpAdjoint
export function logSumExp(z: number[]): number {
  let m = -Infinity;
  for (const v of z) if (v > m) m = v;
  let s = 0;
  for (const v of z) s += Math.exp(v - m);
  return m + Math.log(s);
}

/** the softmax weights exp(z − lse) times the direction: no max shift to differentiate */
export function logSumExpTangent(z: number[], zd: number[]): [number, number] {
  const y = logSumExp(z);
  let yd = 0;
  for (let i = 0; i < z.length; i++) yd += Math.exp(z[i] - y) * zd[i];
  return [y, yd];
}

export function logSumExpAdjoint(z: number[], zb: number[], yb: number): void {
  const y = logSumExp(z);
  for (let i = 0; i < z.length; i++) zb[i] += Math.exp(z[i] - y) * yb;
}

/** Cross-entropy of a linear softmax classifier. */
export function softmaxClassifierLoss(W: number[][], x: number[], label: number): number {
  const logits: number[] = [];
  for (const row of W) {
    let s = 0;
    for (let j = 0; j < x.length; j++) s += row[j] * x[j];
    logits.push(s);
  }
  return logSumExp(logits) - logits[label];
}

// $ad passive
export function argmax(xs: number[]): number {
  let best = 0;
  for (let i = 1; i < xs.length; i++) if (xs[i] > xs[best]) best = i;
  return best;
}

/** Hard attention: the value at the best score, gated by that score. */
export function hardAttention(scores: number[], values: number[], temperature: number): number {
  const k = argmax(scores);
  return values[k] * Math.tanh(scores[k] / temperature) + 0.1 * values[0];
}

/** A deterministic pseudo-random number in [−0.5, 0.5) from a step and a salt: data, not a model. */
// $ad passive
export function hashNoise(step: number, salt: number): number {
  const h = Math.sin(step * 12.9898 + salt * 78.233) * 43758.5453;
  return h - Math.floor(h) - 0.5;
}

/** A weight-decay loss with jittered weights (the jitter is held fixed: a stop-gradient). */
export function jitteredDecay(w: number[], lambda: number, salt: number): number {
  let loss = 0;
  for (let i = 0; i < w.length; i++) {
    const wi = w[i] + 0.01 * hashNoise(i, salt);
    loss += lambda * wi * wi;
  }
  return loss;
}

/** A dot product, say one a WebAssembly kernel computes, with its rules written by hand. */
export function dot(a: number[], b: number[]): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

export function dot_jvp(a: number[], ad: number[], b: number[], bd: number[]): [number, number] {
  let s = 0;
  let sd = 0;
  for (let i = 0; i < a.length; i++) {
    s += a[i] * b[i];
    sd += ad[i] * b[i] + a[i] * bd[i];
  }
  return [s, sd];
}

export function dot_vjp(a: number[], ab: number[], b: number[], bb: number[], yb: number): void {
  for (let i = 0; i < a.length; i++) {
    ab[i] += b[i] * yb;
    bb[i] += a[i] * yb;
  }
}

/** Kernel ridge objective αᵀKα/2 − Σα + λ‖α‖² with a linear kernel K = XXᵀ, one dot per pair. */
export function kernelRidgeObjective(X: number[][], alpha: number[], lambda: number): number {
  let quad = 0;
  for (let i = 0; i < X.length; i++) {
    for (let j = 0; j < X.length; j++) quad += alpha[i] * alpha[j] * dot(X[i], X[j]);
  }
  let lin = 0;
  for (const a of alpha) lin += a - lambda * a * a;
  return 0.5 * quad - lin;
}

/** z = L⁻¹b for L lower-triangular, stored row by row (n × n, n = b.length) */
export function lowerSolve(L: number[], b: number[]): number[] {
  const n = b.length;
  const z: number[] = new Array(n).fill(0);
  for (let i = 0; i < n; i++) {
    let s = b[i];
    for (let j = 0; j < i; j++) s -= L[i * n + j] * z[j];
    z[i] = s / L[i * n + i];
  }
  return z;
}

/** w = L⁻ᵀc (back substitution with the transpose) */
export function lowerSolveTransposed(L: number[], c: number[]): number[] {
  const n = c.length;
  const w: number[] = new Array(n).fill(0);
  for (let i = n - 1; i >= 0; i--) {
    let s = c[i];
    for (let j = i + 1; j < n; j++) s -= L[j * n + i] * w[j];
    w[i] = s / L[i * n + i];
  }
  return w;
}

/** ‖L⁻¹b‖²: a triangular solve, whose adjoint is another triangular solve. */
export function whitenedNorm(L: number[], b: number[]): number {
  const z = lowerSolve(L, b);
  let q = 0;
  for (const v of z) q += v * v;
  return q;
}

// dz = L⁻¹(db − dL·z), dq = 2 zᵀdz (only the lower triangle of L is read)
export function whitenedNorm_jvp(L: number[], Ld: number[], b: number[], bd: number[]): [number, number] {
  const n = b.length;
  const z = lowerSolve(L, b);
  const r: number[] = new Array(n).fill(0);
  for (let i = 0; i < n; i++) {
    let s = bd[i];
    for (let j = 0; j <= i; j++) s -= Ld[i * n + j] * z[j];
    r[i] = s;
  }
  const dz = lowerSolve(L, r);
  let q = 0;
  let qd = 0;
  for (let i = 0; i < n; i++) {
    q += z[i] * z[i];
    qd += 2 * z[i] * dz[i];
  }
  return [q, qd];
}

// w = L⁻ᵀ(2z·q̄): b̄ += w, L̄ᵢⱼ −= wᵢzⱼ on the lower triangle
export function whitenedNorm_vjp(L: number[], Lb: number[], b: number[], bb: number[], qb: number): void {
  const n = b.length;
  const z = lowerSolve(L, b);
  const c: number[] = new Array(n).fill(0);
  for (let i = 0; i < n; i++) c[i] = 2 * z[i] * qb;
  const w = lowerSolveTransposed(L, c);
  for (let i = 0; i < n; i++) {
    bb[i] += w[i];
    for (let j = 0; j <= i; j++) Lb[i * n + j] -= w[i] * z[j];
  }
}

/** Sum of squared Mahalanobis distances of points to a mean, with the Cholesky factor L of the covariance. */
export function mahalanobisTotal(L: number[], points: number[][], mu: number[]): number {
  let total = 0;
  for (const p of points) {
    const diff: number[] = [];
    for (let j = 0; j < mu.length; j++) diff.push(p[j] - mu[j]);
    total += whitenedNorm(L, diff);
  }
  return total;
}

/** A few damped power-iteration sweeps updating v in place (each dot reads v before later rows change it). */
export function dampedPowerSweeps(A: number[][], v: number[], steps: number): number {
  for (let s = 0; s < steps; s++) {
    const norm = Math.sqrt(dot(v, v));
    for (let i = 0; i < v.length; i++) v[i] = (v[i] + 0.25 * dot(A[i], v)) / norm;
  }
  return dot(v, v);
}
