/**
 * Small realistic kernels: physics steps, ODE integrators, statistics,
 * likelihoods, root finding and optimisation loops.
 */

const CURVE = [0, 0.8, 1.1, 0.7, 1.5];

export function harmonicEuler(x0: number, v0: number, k: number): number {
  let x = x0;
  let v = v0;
  const dt = 0.05;
  for (let i = 0; i < 40; i++) {
    const a = -k * x;
    x += dt * v;
    v += dt * a;
  }
  return 0.5 * v * v + 0.5 * k * x * x;
}

export function rk4Decay(y0: number, k: number): number {
  let y = y0;
  let t = 0;
  const h = 0.1;
  for (let i = 0; i < 10; i++) {
    const k1 = -k * y + Math.sin(t);
    const k2 = -k * (y + 0.5 * h * k1) + Math.sin(t + 0.5 * h);
    const k3 = -k * (y + 0.5 * h * k2) + Math.sin(t + 0.5 * h);
    const k4 = -k * (y + h * k3) + Math.sin(t + h);
    y += (h / 6) * (k1 + 2 * k2 + 2 * k3 + k4);
    t += h;
  }
  return y;
}

export function projectileRange(v: number, angle: number, drag: number): number {
  let x = 0;
  let y = 0;
  let vx = v * Math.cos(angle);
  let vy = v * Math.sin(angle);
  const dt = 0.01;
  let steps = 0;
  while (y >= 0 && steps < 10000) {
    vx -= dt * drag * vx;
    vy -= dt * (9.81 + drag * vy);
    x += dt * vx;
    y += dt * vy;
    steps++;
  }
  return x;
}

export function variance(xs: number[]): number {
  let m = 0;
  for (let i = 0; i < xs.length; i++) m += xs[i];
  m /= xs.length;
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += (xs[i] - m) * (xs[i] - m);
  return s / (xs.length - 1);
}

export function pearson(xs: number[], ys: number[]): number {
  const n = xs.length;
  let mx = 0, my = 0;
  for (let i = 0; i < n; i++) {
    mx += xs[i] / n;
    my += ys[i] / n;
  }
  let sxy = 0, sxx = 0, syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (xs[i] - mx) * (ys[i] - my);
    sxx += (xs[i] - mx) ** 2;
    syy += (ys[i] - my) ** 2;
  }
  return sxy / Math.sqrt(sxx * syy);
}

export function gaussianLogLik(xs: number[], mu: number, sigma: number): number {
  let ll = -xs.length * (Math.log(sigma) + 0.5 * Math.log(2 * Math.PI));
  for (const x of xs) {
    const z = (x - mu) / sigma;
    ll -= 0.5 * z * z;
  }
  return ll;
}

export function crossEntropy(logits: number[], target: number): number {
  let m = logits[0];
  for (let i = 1; i < logits.length; i++) m = Math.max(m, logits[i]);
  let z = 0;
  for (let i = 0; i < logits.length; i++) z += Math.exp(logits[i] - m);
  return m + Math.log(z) - logits[target];
}

export function springChain(pos: number[], k: number, rest: number): number {
  let e = 0;
  for (let i = 0; i + 1 < pos.length; i++) {
    const stretch = pos[i + 1] - pos[i] - rest;
    e += 0.5 * k * stretch * stretch;
  }
  return e;
}

export function heatStep(u: number[], alpha: number): number[] {
  const n = u.length;
  const next: number[] = new Array(n).fill(0);
  next[0] = u[0];
  next[n - 1] = u[n - 1];
  for (let i = 1; i < n - 1; i++) {
    next[i] = u[i] + alpha * (u[i - 1] - 2 * u[i] + u[i + 1]);
  }
  return next;
}

export function keplerSolve(meanAnomaly: number, ecc: number): number {
  let e = meanAnomaly;
  for (let i = 0; i < 12; i++) {
    e = e - (e - ecc * Math.sin(e) - meanAnomaly) / (1 - ecc * Math.cos(e));
  }
  return e;
}

export function gradientDescent(x0: number, y0: number, lr: number): number {
  let x = x0;
  let y = y0;
  for (let it = 0; it < 25; it++) {
    const gx = 2 * (x - 1) + 0.5 * y;
    const gy = 4 * (y + 0.5) + 0.5 * x;
    x -= lr * gx;
    y -= lr * gy;
  }
  return (x - 1) * (x - 1) + 2 * (y + 0.5) * (y + 0.5) + 0.5 * x * y;
}

export function lotkaVolterra(x0: number, y0: number, a: number, b: number): number[] {
  let x = x0;
  let y = y0;
  const dt = 0.02;
  for (let i = 0; i < 50; i++) {
    const dx = a * x - b * x * y;
    const dy = b * x * y - 0.8 * y;
    x += dt * dx;
    y += dt * dy;
  }
  return [x, y];
}

export function trapezoidIntegral(ys: number[], h: number): number {
  let s = 0.5 * (ys[0] + ys[ys.length - 1]);
  for (let i = 1; i < ys.length - 1; i++) s += ys[i];
  return s * h;
}

export function bisectionWithNewton(a: number): number {
  // bracket the cube root of a (a > 1) with a passive-shaped bisection, then polish with Newton
  let lo = 0;
  let hi = a;
  while (hi - lo > 0.25) {
    const mid = 0.5 * (lo + hi);
    if (mid * mid * mid > a) hi = mid;
    else lo = mid;
  }
  let x = 0.5 * (lo + hi);
  for (let i = 0; i < 6; i++) {
    x -= (x * x * x - a) / (3 * x * x);
  }
  return x;
}

export function logisticRegressionLoss(w: number[], xs: number[][], ys: number[]): number {
  let loss = 0;
  for (let i = 0; i < xs.length; i++) {
    let z = 0;
    for (let j = 0; j < w.length; j++) z += w[j] * xs[i][j];
    const p = 1 / (1 + Math.exp(-z));
    loss -= ys[i] * Math.log(p) + (1 - ys[i]) * Math.log(1 - p);
  }
  return loss / xs.length;
}

export function pendulumPeriodEnergy(theta0: number, length: number): number {
  let theta = theta0;
  let omega = 0;
  const dt = 0.01;
  const g = 9.81;
  for (let i = 0; i < 100; i++) {
    omega -= (dt * g * Math.sin(theta)) / length;
    theta += dt * omega;
  }
  return 0.5 * length * length * omega * omega + g * length * (1 - Math.cos(theta));
}

export function expSmoothing(xs: number[], alpha: number): number {
  let level = xs[0];
  let sse = 0;
  for (let i = 1; i < xs.length; i++) {
    const err = xs[i] - level;
    sse += err * err;
    level += alpha * err;
  }
  return sse;
}

/** Piecewise-linear lookup in a module-level table; the cell index is passive. */
export function tableInterp(x: number, scale: number): number {
  const i = Math.min(Math.floor(x), CURVE.length - 2);
  const t = x - i;
  return scale * (CURVE[i] * (1 - t) + CURVE[i + 1] * t);
}
