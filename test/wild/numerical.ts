// Numerical methods as small numeric packages write them.

type Deriv = (t: number, y: number[]) => number[];

/** Classic RK4, derivative given as a callback. */
export function rk4(f: Deriv, y0: number[], t0: number, t1: number, steps = 20): number[] {
  const h = (t1 - t0) / steps;
  let y = y0.slice();
  let t = t0;
  for (let s = 0; s < steps; s++) {
    const k1 = f(t, y);
    const k2 = f(t + h / 2, y.map((v, i) => v + (h / 2) * k1[i]));
    const k3 = f(t + h / 2, y.map((v, i) => v + (h / 2) * k2[i]));
    const k4 = f(t + h, y.map((v, i) => v + h * k3[i]));
    y = y.map((v, i) => v + (h / 6) * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]));
    t += h;
  }
  return y;
}

/** Damped oscillator integrated with rk4: the head passes an arrow. */
export function oscillatorEnergy(k: number, c: number, x0: number): number {
  const y = rk4((t, [x, v]) => [v, -k * x - c * v], [x0, 0], 0, 1);
  return 0.5 * y[1] * y[1] + 0.5 * k * y[0] * y[0];
}

/** Newton iteration for a root of x^3 - a, tolerance break. */
export function cubeRootNewton(a: number, tol = 1e-12, maxIter = 50): number {
  let x = a > 1 ? a / 3 : 1;
  for (let i = 0; i < maxIter; i++) {
    const fx = x * x * x - a;
    const dfx = 3 * x * x;
    const step = fx / dfx;
    x -= step;
    if (Math.abs(step) < tol) break;
  }
  return x;
}

/** Natural cubic spline through (xs, ys), evaluated at t by binary search. */
export function splineEval(xs: number[], ys: number[], t: number): number {
  const n = xs.length - 1;
  const h: number[] = [];
  for (let i = 0; i < n; i++) h.push(xs[i + 1] - xs[i]);
  const alpha = new Array(n + 1).fill(0);
  for (let i = 1; i < n; i++) alpha[i] = (3 / h[i]) * (ys[i + 1] - ys[i]) - (3 / h[i - 1]) * (ys[i] - ys[i - 1]);
  const l = new Array(n + 1).fill(1), mu = new Array(n + 1).fill(0), z = new Array(n + 1).fill(0);
  for (let i = 1; i < n; i++) {
    l[i] = 2 * (xs[i + 1] - xs[i - 1]) - h[i - 1] * mu[i - 1];
    mu[i] = h[i] / l[i];
    z[i] = (alpha[i] - h[i - 1] * z[i - 1]) / l[i];
  }
  const c = new Array(n + 1).fill(0), b = new Array(n).fill(0), d = new Array(n).fill(0);
  for (let j = n - 1; j >= 0; j--) {
    c[j] = z[j] - mu[j] * c[j + 1];
    b[j] = (ys[j + 1] - ys[j]) / h[j] - (h[j] * (c[j + 1] + 2 * c[j])) / 3;
    d[j] = (c[j + 1] - c[j]) / (3 * h[j]);
  }
  let lo = 0, hi = n - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (xs[mid] <= t) lo = mid; else hi = mid - 1;
  }
  const dx = t - xs[lo];
  return ys[lo] + b[lo] * dx + c[lo] * dx * dx + d[lo] * dx * dx * dx;
}

/** Composite trapezoid rule on a callback. */
export function trapezoid(f: (x: number) => number, a: number, b: number, n = 64): number {
  const h = (b - a) / n;
  let s = 0.5 * (f(a) + f(b));
  for (let i = 1; i < n; i++) s += f(a + i * h);
  return s * h;
}

/** Composite Simpson rule of a Gaussian with a parameter. */
export function gaussianMass(sigma: number, a: number, b: number): number {
  const f = (x: number) => Math.exp(-(x * x) / (2 * sigma * sigma));
  const n = 32;
  const h = (b - a) / n;
  let s = f(a) + f(b);
  for (let i = 1; i < n; i++) s += (i % 2 === 0 ? 2 : 4) * f(a + i * h);
  return (s * h) / 3;
}

/** LU decomposition with partial pivoting (in place, row swaps), then solve. */
export function luSolve(A: number[][], b: number[]): number[] {
  const n = A.length;
  const M = A.map((row) => row.slice());
  const x = b.slice();
  for (let k = 0; k < n; k++) {
    let p = k;
    for (let i = k + 1; i < n; i++) if (Math.abs(M[i][k]) > Math.abs(M[p][k])) p = i;
    if (p !== k) {
      [M[k], M[p]] = [M[p], M[k]];
      [x[k], x[p]] = [x[p], x[k]];
    }
    for (let i = k + 1; i < n; i++) {
      const f = M[i][k] / M[k][k];
      for (let j = k; j < n; j++) M[i][j] -= f * M[k][j];
      x[i] -= f * x[k];
    }
  }
  for (let i = n - 1; i >= 0; i--) {
    let s = x[i];
    for (let j = i + 1; j < n; j++) s -= M[i][j] * x[j];
    x[i] = s / M[i][i];
  }
  return x;
}

/** Cholesky factor, log-determinant. */
export function choleskyLogDet(A: number[][]): number {
  const n = A.length;
  const L: number[][] = Array.from({ length: n }, () => new Array(n).fill(0));
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let sum = A[i][j];
      for (let k = 0; k < j; k++) sum -= L[i][k] * L[j][k];
      if (i === j) {
        if (sum <= 0) throw new Error('matrix is not positive definite');
        L[i][i] = Math.sqrt(sum);
      } else {
        L[i][j] = sum / L[j][j];
      }
    }
  }
  return 2 * L.reduce((acc, row, i) => acc + Math.log(row[i]), 0);
}

/** Gauss-Seidel sweeps with a convergence test. */
export function gaussSeidel(A: number[][], b: number[], iters = 25, tol = 1e-10): number[] {
  const n = b.length;
  const x = new Array(n).fill(0);
  for (let it = 0; it < iters; it++) {
    let change = 0;
    for (let i = 0; i < n; i++) {
      let s = b[i];
      for (let j = 0; j < n; j++) if (j !== i) s -= A[i][j] * x[j];
      const xi = s / A[i][i];
      change = Math.max(change, Math.abs(xi - x[i]));
      x[i] = xi;
    }
    if (change < tol) break;
  }
  return x;
}

/** Power iteration, dominant eigenvalue (Rayleigh quotient). */
export function powerIteration(A: number[][], iters = 30): number {
  const n = A.length;
  let v = new Array(n).fill(1 / Math.sqrt(n));
  let lambda = 0;
  for (let k = 0; k < iters; k++) {
    const w = A.map((row) => row.reduce((s, a, j) => s + a * v[j], 0));
    const norm = Math.sqrt(w.reduce((s, x) => s + x * x, 0));
    v = w.map((x) => x / norm);
    lambda = v.reduce((s, vi, i) => s + vi * A[i].reduce((t, a, j) => t + a * v[j], 0), 0);
  }
  return lambda;
}

/** Horner polynomial evaluation with reduceRight. */
export function polyval(coeffs: number[], x: number): number {
  return coeffs.reduceRight((acc, c) => acc * x + c, 0);
}

/** Bisection to find where a smooth function of a parameter crosses zero. */
export function bisectRoot(a: number): number {
  const f = (x: number) => Math.cos(x) - a * x;
  let lo = 0, hi = 2;
  while (hi - lo > 1e-9) {
    const mid = (lo + hi) / 2;
    if (f(lo) * f(mid) <= 0) hi = mid;
    else lo = mid;
  }
  return (lo + hi) / 2;
}
