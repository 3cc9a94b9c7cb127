// Closures and functions as values, as numeric JavaScript writes them: local helpers reading the
// enclosing function's variables, accumulators written by a local function, integrators and solvers
// taking the right-hand side or the residual as a function.

/** One classical Runge–Kutta step for y' = f(t, y). */
function rk4Step(f: (t: number, y: number[]) => number[], t: number, y: number[], h: number): number[] {
  const k1 = f(t, y);
  const k2 = f(t + h / 2, y.map((v, i) => v + (h / 2) * k1[i]));
  const k3 = f(t + h / 2, y.map((v, i) => v + (h / 2) * k2[i]));
  const k4 = f(t + h, y.map((v, i) => v + h * k3[i]));
  return y.map((v, i) => v + (h / 6) * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]));
}

/** Integrates y' = rhs(t, y) from t = 0 with n steps of RK4. */
function integrate(rhs: (t: number, y: number[]) => number[], y0: number[], h: number, n: number): number[] {
  let y = y0.slice();
  for (let s = 0; s < n; s++) y = rk4Step(rhs, s * h, y, h);
  return y;
}

/** A damped oscillator integrated by RK4: the right-hand side is a closure over the stiffness and damping. */
export function dampedOscillatorEnd(y0: number[], stiffness: number, damping: number): number {
  const rhs = (t: number, y: number[]): number[] => [y[1], -stiffness * y[0] - damping * y[1]];
  const y = integrate(rhs, y0, 0.05, 20);
  return y[0] * y[0] + 0.5 * y[1] * y[1];
}

/** Newton's method on a scalar equation given as a function and its derivative. */
function newton(g: (x: number) => number, dg: (x: number) => number, x0: number, iters: number): number {
  let x = x0;
  for (let k = 0; k < iters; k++) x = x - g(x) / dg(x);
  return x;
}

/** The root of x³ + a·x − b near 1, found by Newton with arrows over a and b. */
export function cubicRoot(a: number, b: number): number {
  return newton((x) => x * x * x + a * x - b, (x) => 3 * x * x + a, 1, 8);
}

/** Bisection on [lo, hi] for a residual passed as a function (piecewise constant in the data). */
function bisect(r: (x: number) => number, lo: number, hi: number, iters: number): number {
  let a = lo;
  let b = hi;
  for (let k = 0; k < iters; k++) {
    const m = 0.5 * (a + b);
    if (r(a) * r(m) <= 0) b = m;
    else a = m;
  }
  return 0.5 * (a + b);
}

/** The interest rate of an annuity: bracketed by bisection, then one Newton step (smooth in the data). */
export function annuityRate(payment: number, principal: number): number {
  const n = 12;
  const residual = (rate: number) => (payment * (1 - Math.pow(1 + rate, -n))) / rate - principal;
  const slope = (rate: number) => (payment * (n * rate * Math.pow(1 + rate, -n - 1) - (1 - Math.pow(1 + rate, -n)))) / (rate * rate);
  const r0 = bisect(residual, 0.001, 0.5, 40);
  return r0 - residual(r0) / slope(r0);
}

/** A least-squares objective with a local `sq` helper. */
export function lineFitLoss(w: number[], xs: number[], ys: number[]): number {
  const sq = (x: number) => x * x;
  let loss = 0;
  for (let i = 0; i < xs.length; i++) loss += sq(w[0] + w[1] * xs[i] - ys[i]);
  return loss / xs.length + 0.01 * (sq(w[0]) + sq(w[1]));
}

/** A sum of squares accumulated by a local function writing the enclosing `total`. */
export function accumulatedEnergy(v: number[], scale: number): number {
  let total = 0;
  const add = (x: number) => {
    total += scale * x * x;
  };
  for (const x of v) add(x);
  add(total * 0.1); // reads the current total: the closure sees it at call time
  return Math.sqrt(total);
}

/** Histogram-like soft binning: a nested function writes into the captured array (the same object). */
export function softBins(xs: number[], width: number): number {
  const bins = [0, 0, 0];
  function deposit(x: number, weight: number): void {
    for (let b = 0; b < bins.length; b++) {
      const d = (x - (b - 1)) / width;
      bins[b] += weight * Math.exp(-d * d);
    }
  }
  xs.forEach((x) => deposit(x, 1));
  return bins[0] * 0.5 + bins[1] - bins[2] * 0.25;
}

/** Exponential decay with a nested right-hand side (hoisted: declared after its use) and explicit Euler. */
export function decayOde(y0: number, rate: number): number {
  let y = y0;
  const dt = 0.1;
  for (let s = 0; s < 10; s++) y += dt * rhs(y);
  return y;
  function rhs(v: number): number {
    return -rate * v + 0.1 * Math.sin(v);
  }
}

/** Closures over arrays: a weighted norm with an early exit, called on two vectors. */
export function weightedGap(a: number[], b: number[], weights: number[]): number {
  const norm = (v: number[]): number => {
    let s = 0;
    for (let i = 0; i < v.length; i++) {
      if (weights[i] === 0) continue;
      s += weights[i] * v[i] * v[i];
      if (s > 100) return Math.sqrt(s);
    }
    return Math.sqrt(s);
  };
  return norm(a) - 0.5 * norm(b);
}

/** A smooth penalty applied through a helper that takes it as a function (top-level or local). */
function sumOf(f: (x: number) => number, xs: number[]): number {
  let s = 0;
  for (const x of xs) s += f(x);
  return s;
}
function softplus(x: number): number {
  return Math.log1p(Math.exp(x));
}
export function penalisedMean(xs: number[], shift: number): number {
  const shifted = (x: number) => softplus(x - shift);
  return (sumOf(softplus, xs) + sumOf(shifted, xs)) / xs.length;
}

/** A running state updated by a closure that reads and writes two enclosing variables. */
export function smoothedTrack(obs: number[], alpha: number): number {
  let level = obs[0];
  let err = 0;
  const update = (z: number) => {
    const pred = level;
    level = alpha * z + (1 - alpha) * level;
    err += (z - pred) * (z - pred);
  };
  for (let i = 1; i < obs.length; i++) update(obs[i]);
  return level + 0.1 * err;
}

/** Closures inside closures: a local kernel used by a local sum, both over the enclosing bandwidth. */
export function kernelDensity(xs: number[], at: number, bandwidth: number): number {
  const kernel = (u: number) => Math.exp(-0.5 * u * u);
  function density(x0: number): number {
    let s = 0;
    for (const x of xs) s += kernel((x0 - x) / bandwidth);
    return s / (xs.length * bandwidth);
  }
  return Math.log(density(at) + density(at + bandwidth));
}

/** a pendulum whose right-hand side takes the state apart in its parameter list; its energy read by a local `({ th, om }) => …` */
export function pendulumEnergy(theta0: number, g: number, len: number): number {
  const rhs = (_t: number, [th, om]: number[]): number[] => [om, (-g / len) * Math.sin(th)];
  const y = integrate(rhs, [theta0, 0], 0.05, 6);
  const energy = ({ th, om }: { th: number; om: number }): number => 0.5 * len * len * om * om + g * len * (1 - Math.cos(th));
  const [dth, dom] = rhs(0, y);
  return energy({ th: y[0], om: y[1] }) + 0.1 * dth * dom;
}

// an integrator in a namespace object, given an arrow that takes the state apart (a copy per arrow passed)
const ode = {
  euler(f: (t: number, y: number[]) => number[], y: number[], h: number, n: number): number[] {
    let s = y.slice();
    for (let k = 0; k < n; k++) {
      const d = f(k * h, s);
      s = s.map((v, i) => v + h * d[i]);
    }
    return s;
  },
};

/** a damped oscillator stepped by `ode.euler` */
export function namespacedEuler(y0: number[], c: number): number {
  const r = ode.euler((_t, [a, b]) => [b, -c * a - 0.1 * b], y0, 0.1, 4);
  return r[0] * r[0] + r[1];
}

/** midpoint rule: a helper taking a function, its step count left to its default */
function midpoint(g: (x: number) => number, a: number, b: number, n = 8): number {
  const h = (b - a) / n;
  let s = 0;
  for (let i = 0; i < n; i++) s += g(a + (i + 0.5) * h) * h;
  return s;
}

export function decayIntegral(k: number): number {
  return midpoint((x) => Math.exp(-k * x), 0, 1) + midpoint((x) => x * k, 0, 2, 4);
}

function cubicEase(t: number): number {
  return t * t * (3 - 2 * t);
}

function quinticEase(t: number): number {
  return t * t * t * (t * (6 * t - 15) + 10);
}

/** Keyframe interpolation whose easing is chosen once, by a flag, between two top-level functions and an arrow. */
export function easedPath(keys: number[], t: number, smoothMode: number): number {
  const ease = smoothMode > 1 ? quinticEase : smoothMode > 0 ? cubicEase : (u: number) => u;
  let s = 0;
  for (let i = 0; i + 1 < keys.length; i++) {
    const local = Math.min(1, Math.max(0, t * (keys.length - 1) - i));
    const w = ease(local);
    s += (1 - w) * keys[i] + w * keys[i + 1] + 0.1 * ease(0.5 * local) * keys[i];
  }
  return s;
}

/** A piecewise-linear interpolant over fixed knots, built by a factory that precomputes the slopes. */
function makeInterpolant(knots: number[], values: number[]) {
  const n = knots.length;
  const slopes: number[] = [];
  for (let i = 0; i + 1 < n; i++) slopes.push((values[i + 1] - values[i]) / (knots[i + 1] - knots[i]));
  return (t: number): number => {
    let i = 0;
    while (i + 2 < n && t > knots[i + 1]) i++;
    return values[i] + slopes[i] * (t - knots[i]);
  };
}

/** Squared misfit of an interpolated profile against samples, and a Gaussian prior from a second factory. */
export function profileMisfit(values: number[], ts: number[], obs: number[], width: number): number {
  const profile = makeInterpolant([0, 1, 2, 3], values);
  const prior = makeGaussian(1.5, width);
  let s = 0;
  for (let i = 0; i < ts.length; i++) {
    const r = profile(ts[i]) - obs[i];
    s += r * r + 0.1 * prior(ts[i]) * profile(ts[i]);
  }
  return s;
}

const makeGaussian = (mu: number, sigma: number) => (x: number) => Math.exp(-0.5 * ((x - mu) / sigma) ** 2);
