// Nullable results, optional parameters and fields, and JavaScript's `||`, `&&` and `??` on numbers,
// written the way people write them.

/** The larger root of a x² + b x + c, or null when there is no real root. */
export function quadraticRoot(a: number, b: number, c: number): number | null {
  const disc = b * b - 4 * a * c;
  if (disc < 0) return null;
  return (-b + Math.sqrt(disc)) / (2 * a);
}

/** Uses the root when there is one, a fallback penalty otherwise. */
export function rootOrPenalty(a: number, b: number): number {
  const r = quadraticRoot(a, b, -1);
  if (r === null) return a * a + b * b;
  return r * Math.exp(-0.1 * r);
}

function safeLog(x: number): number | undefined {
  if (x <= 0) return undefined;
  return Math.log(x);
}

/** log(x) where defined, with a default where not: `??` on a helper's nullable result. */
export function logWithDefault(x: number, y: number): number {
  const lx = safeLog(x);
  const ly = safeLog(y);
  return (lx ?? -1) * x + (ly ?? 0) + 1;
}

/** the excess over a threshold, none below it: a bare `return;` */
function excessOver(x: number, t: number): number | undefined {
  if (x <= t) return;
  return (x - t) * (x - t);
}

/** the log-ratio where both are positive, by falling off the end elsewhere */
function logRatio(a: number, b: number): number | undefined {
  if (a > 0 && b > 0) {
    return Math.log(a / b);
  }
}

/** A hinge-like penalty and a log-ratio, from helpers whose result is `undefined` where they give none. */
export function excessPenalty(xs: number[], t: number): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) {
    s += excessOver(xs[i], t) ?? 0;
    const r = logRatio(xs[i], t);
    if (r !== undefined) s += 0.1 * r * xs[i];
  }
  return s;
}

/** Newton's iteration for √s with an options object: `opts.tol ?? 1e-8`, `opts.scale ?? 1`. */
export function newtonSqrt(s: number, opts: { tol?: number; scale?: number; maxIter?: number }): number {
  const tol = opts.tol ?? 1e-10;
  const maxIter = opts.maxIter ?? 50;
  let x = s > 1 ? s : 1;
  for (let k = 0; k < maxIter; k++) {
    const next = 0.5 * (x + s / x);
    if (Math.abs(next - x) < tol) {
      x = next;
      break;
    }
    x = next;
  }
  const scale = opts.scale ?? 1;
  return scale * x;
}

/** Weighted mean with optional weights: uniform weights when none are given. */
export function weightedMean(xs: number[], w?: number[]): number {
  let num = 0;
  let den = 0;
  for (let i = 0; i < xs.length; i++) {
    const wi = w !== undefined ? w[i] : 1;
    num += wi * xs[i];
    den += wi;
  }
  return num / den;
}

/** Intersection abscissa of y = m1 x + c1 and y = m2 x + c2, null for parallel lines. */
function intersectX(m1: number, c1: number, m2: number, c2: number): number | null {
  const dm = m1 - m2;
  if (Math.abs(dm) < 1e-12) return null;
  return (c2 - c1) / dm;
}

export function lineIntersection(m1: number, c1: number, m2: number, c2: number): number {
  const x = intersectX(m1, c1, m2, c2);
  if (x == null) return 0;
  const y = m1 * x + c1;
  return Math.hypot(x, y);
}

/** An optional exponent and a defaulted shift. */
export function shiftedPower(x: number, p?: number, shift = 0.5): number {
  const base = x * x + shift;
  if (typeof p === 'number') return base ** p;
  return Math.sqrt(base);
}

/** `||` and `&&` on numbers: 0 (and NaN) fall back, as in JavaScript. */
export function truthyDefaults(x: number, y: number, flags: number): number {
  const rate = flags || 0.25; // 0 means "use the default"
  const gated = flags && y * y; // 0 when the gate is off
  return rate * Math.sin(x) + gated + (y || x);
}

/** A scalar-or-array argument tested with Array.isArray (here: an optional array of bounds). */
export function clampedSum(xs: number[], bounds?: number[] | null): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) {
    let v = xs[i] * xs[i];
    if (Array.isArray(bounds) && v > bounds[i]) v = bounds[i] + Math.log1p(v - bounds[i]);
    s += v;
  }
  return s;
}

/** Optional fields tested with `in` and with `!== undefined`. */
export function springEnergy(x: number, spring: { k: number; rest?: number; damping?: number }): number {
  const rest = 'rest' in spring && spring.rest !== undefined ? spring.rest : 1;
  const stretch = x - rest;
  const e = 0.5 * spring.k * stretch * stretch;
  return spring.damping !== undefined ? e * Math.exp(-spring.damping) : e;
}

export interface SmoothingOptions {
  window: number;
  decay?: number;
}

/**
 * Truthiness in tests: an options object that may be left out, an optional number whose 0 means "off",
 * and a count tested as a number (`if (n && …)`).
 */
export function smoothedPenalty(xs: number[], opts?: SmoothingOptions | null): number {
  let s = 0;
  let prev = 0;
  for (let i = 0; i < xs.length; i++) {
    const w = opts && opts.window > 1 ? 1 / opts.window : 1;
    prev = i && opts && opts.decay ? prev * opts.decay + w * xs[i] : w * xs[i];
    s += prev * prev;
  }
  return s;
}

export interface StepOptions {
  dt: number;
  friction?: number;
}

/** Kinetic energy after one step; the optional friction is read once, then tested where it is used. */
function stepEnergy(x: number[], opts: StepOptions): number {
  const friction = opts.friction;
  let e = 0;
  for (let i = 0; i < x.length; i++) {
    const v = x[i] * opts.dt;
    e += friction !== undefined ? v * v * (1 - friction) : v * v;
  }
  return e;
}

/** The caller's options, and a second set built here that leaves the friction out. */
export function twoStepEnergy(x: number[], opts: StepOptions): number {
  const coarse: StepOptions = { dt: 2 * opts.dt };
  return stepEnergy(x, opts) + 0.5 * stepEnergy(x, coarse);
}

/** Length of a polyline through 2-D points, closed back to its start when asked: an optional boolean flag. */
export function pathLength(pts: number[][], closed?: boolean): number {
  let len = 0;
  for (let i = 1; i < pts.length; i++) len += Math.hypot(pts[i][0] - pts[i - 1][0], pts[i][1] - pts[i - 1][1]);
  if (closed) {
    const last = pts[pts.length - 1];
    len += Math.hypot(pts[0][0] - last[0], pts[0][1] - last[1]);
  }
  return len;
}

interface SmoothOptions {
  eps?: number;
  normalize?: boolean;
  squared?: boolean;
}

/** A smoothed L1 norm whose flags default on (`normalize ?? true`) or off (an absent `squared`). */
export function smoothNorm(x: number[], opts: SmoothOptions): number {
  const eps = opts.eps ?? 1e-3;
  const normalize = opts.normalize ?? true;
  let s = 0;
  for (const v of x) s += opts.squared === true ? v * v : Math.sqrt(v * v + eps);
  if (!normalize) return s;
  return s / x.length;
}

interface Limits {
  lo?: number;
  hi?: number;
}

/** A soft clamp whose bounds are read into `let`s declared first and assigned once below (as compiled TypeScript and tsad's own output write locals). */
export function softClamped(x: number[], limits: Limits): number {
  let lo: number | undefined;
  let hi: number | undefined;
  let s = 0;
  lo = limits.lo;
  hi = limits.hi;
  for (const v of x) {
    let y = v;
    if (lo !== undefined) y = lo + Math.log1p(Math.exp(y - lo));
    if (hi !== undefined) y = hi - Math.log1p(Math.exp(hi - y));
    s += y * y;
  }
  return s;
}

/** the length of a polyline: the previous point kept in a nullable array, set in the loop */
export function polylineLength(pts: number[][]): number {
  let len = 0;
  let prev: number[] | null = null;
  for (const p of pts) {
    if (prev !== null) len += Math.hypot(p[0] - prev[0], p[1] - prev[1]);
    prev = p;
  }
  return len;
}

/** a nullable array cleared by a test: the products of successive points above a threshold */
export function linkedAbove(pts: number[][], t: number): number {
  let last: number[] | undefined;
  let s = 0;
  for (const p of pts) {
    if (last !== undefined) s += p[0] * last[1];
    last = p[0] > t ? p : undefined;
  }
  return s;
}

/** the crossing of a ray with a segment's line, or null where they are parallel */
function crossing(o: number[], dir: number[], a: number[], b: number[]): number[] | null {
  const ex = b[0] - a[0], ey = b[1] - a[1];
  const den = dir[0] * ey - dir[1] * ex;
  if (Math.abs(den) < 1e-9) return null;
  const t = ((a[0] - o[0]) * ey - (a[1] - o[1]) * ex) / den;
  if (t < 0) return null;
  return [o[0] + t * dir[0], o[1] + t * dir[1]];
}

/** the nearest crossing over the walls (rows x0, y0, x1, y1), or undefined where the ray meets none */
function nearestCrossing(o: number[], dir: number[], walls: number[][]): number[] | undefined {
  let best: number[] | null = null;
  let bestDist = Infinity;
  for (const w of walls) {
    const hit = crossing(o, dir, [w[0], w[1]], [w[2], w[3]]);
    if (hit === null) continue;
    const dist = Math.hypot(hit[0] - o[0], hit[1] - o[1]);
    if (dist < bestDist) {
      bestDist = dist;
      best = hit;
    }
  }
  if (best !== null) return best;
}

/** a ray's travel to the nearest wall, with a soft penalty where it meets none: helpers returning arrays or null */
export function rayTravel(o: number[], dir: number[], walls: number[][]): number {
  const hit = nearestCrossing(o, dir, walls);
  if (hit === undefined) return 10 + dir[0] * dir[0];
  return Math.hypot(hit[0] - o[0], hit[1] - o[1]);
}

// plain-JS style: a 2×2 solve that gives up on a small determinant, tested by truthiness
function solve2(m: number[][], r: number[]) {
  var det = m[0][0] * m[1][1] - m[0][1] * m[1][0];
  if (det < 0.05) return null;
  return [(m[1][1] * r[0] - m[0][1] * r[1]) / det, (m[0][0] * r[1] - m[1][0] * r[0]) / det];
}

/** the squared norm of a 2×2 system's solution, 0 where the system is refused */
export function solvedNorm(m: number[][], r: number[]): number {
  var x = solve2(m, r);
  if (!x) return 0;
  return x[0] * x[0] + x[1] * x[1];
}

/** defaults written in the body, JavaScript's way before default parameters: each assigned once, first */
export function dampedSum(xs: number[], rate?: number, opts?: { scale?: number; shift?: number }): number {
  opts = opts || {};
  if (rate === undefined) rate = 0.5;
  const scale = opts.scale ?? 1;
  let s = 0;
  for (let i = 0; i < xs.length; i++) s = s * rate + scale * (xs[i] - (opts.shift ?? 0)) ** 2;
  return s;
}

/**
 * A regularised loss reading its options through optional chaining (`config?.reg?.l2 ?? 0`) and
 * defaulting its weights with `||` to ones a callback makes, as small ML packages write it.
 */
export function chainedPenalty(w: number[], config?: { reg?: { l2?: number; l1?: number } }, weights?: number[]): number {
  const l2 = config?.reg?.l2 ?? 0.01;
  const l1 = config?.reg?.l1;
  const ws = weights || w.map(() => 1);
  let s = 0;
  for (let i = 0; i < w.length; i++) s += ws[i] * (l2 * w[i] * w[i] + (l1 === undefined ? 0 : l1 * Math.sqrt(1 + w[i] * w[i])));
  return s;
}
