/**
 * Branches on active values, ternaries, logical operators, early returns,
 * passive throws and the special values Infinity / NaN / Number.EPSILON.
 */

export function huber(r: number, delta: number): number {
  const a = Math.abs(r);
  if (a <= delta) {
    return 0.5 * r * r;
  } else {
    return delta * (a - 0.5 * delta);
  }
}

export function piecewiseTax(income: number): number {
  let tax = 0;
  if (income > 50) {
    tax += 0.4 * (income - 50);
    income = 50;
  }
  if (income > 20) {
    tax += 0.25 * (income - 20);
    income = 20;
  }
  if (income > 10) {
    tax += 0.1 * (income - 10);
  }
  return tax;
}

export function softClip(x: number, useTanh: boolean): number {
  if (useTanh) {
    return 2 * Math.tanh(x / 2);
  }
  return x / Math.sqrt(1 + x * x);
}

export const ternaryChain = (x: number, y: number): number =>
  x > y ? x * x - y : x < -y ? Math.exp(x) + y : x * y;

export function logicalGate(x: number, y: number): number {
  if ((x > 0 && y > 0) || x < -1) {
    return x * y + 1;
  }
  if (!(y < 0.5)) {
    return y * y - x;
  }
  return x + y;
}

/** Zero-padded log: -Infinity is filtered out by a passive isFinite test. */
export function safeLogSum(xs: number[]): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) {
    const l = xs[i] > 0 ? Math.log(xs[i]) : -Infinity;
    if (!isFinite(l)) continue;
    s += l;
  }
  return s;
}

export function guardedRatio(a: number, b: number): number {
  if (b === 0) {
    throw new Error("guardedRatio: zero denominator");
  }
  const r = a / (b + Number.EPSILON);
  if (isNaN(r)) {
    throw new Error("guardedRatio: NaN");
  }
  return r;
}

export function runningMinInf(xs: number[]): number {
  let best = Infinity;
  for (let i = 0; i < xs.length; i++) {
    const v = (xs[i] - 0.3) * (xs[i] - 0.3) + 0.1 * i;
    if (v < best) best = v;
  }
  return best;
}

export function nanInitMax(xs: number[]): number {
  let m = NaN;
  for (const x of xs) {
    if (isNaN(m) || x * x > m) {
      m = x * x;
    }
  }
  return m;
}

export function reluLayer(x: number, w1: number, b1: number, w2: number, b2: number): number {
  const h1 = w1 * x + b1;
  const h2 = w2 * x + b2;
  const a1 = h1 > 0 ? h1 : 0;
  const a2 = h2 > 0 ? h2 : 0.01 * h2;
  return a1 - 2 * a2;
}

export function bouncingBall(h0: number, e: number): number {
  let h = h0;
  let travelled = 0;
  let bounces = 0;
  while (h > 0.05 && bounces < 20) {
    travelled += 2 * h;
    h = h * e * e;
    bounces++;
  }
  return travelled - h0;
}

export function clampEarly(x: number, lo: number, hi: number): number {
  if (lo > hi) throw new Error("clampEarly: empty interval");
  if (x < lo) return lo;
  if (x > hi) return hi;
  return x;
}
