// The gradient-descent optimiser shared by `particle` and `saddle` (particle.md, "The optimiser").
// Callback-based driver code: NOT part of the code fed to the AD compiler. The eval results
// depend on the exact step-size schedule and stopping rules, which are reproduced literally here.
// (For saddle's outer gradient the inner maximisation must itself be differentiated; the
// compiler-side version of this loop then has to be written in the supported subset, with the
// same control flow — see saddle/objective.ts.)

export const ARGMIN_TOLERANCE = 1e-5;
export const ARGMIN_INITIAL_STEP = 1e-5;
export const ARGMIN_SUCCESSES_BEFORE_DOUBLING = 10;

function norm(v: readonly number[]): number {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i] * v[i];
  return Math.sqrt(s);
}

function distance(a: readonly number[], b: readonly number[]): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) {
    const d = a[i] - b[i];
    s += d * d;
  }
  return Math.sqrt(s);
}

/**
 * Minimises f from z0: state (z, F = f(z), g = grad(z)), eta = 1e-5, success counter c = 0; each
 * iteration applies the first matching rule:
 *   1. |g| <= 1e-5 → return z;
 *   2. c == 10 → eta *= 2, c = 0 (no step);
 *   3. z' = z - eta g; |z - z'| <= 1e-5 → return z; else F' = f(z'):
 *      F' < F → accept (z = z', F = F', g = grad(z), c++), otherwise eta /= 2, c = 0.
 */
export function argmin(
  f: (z: number[]) => number,
  grad: (z: number[]) => number[],
  z0: readonly number[],
): number[] {
  let z = z0.slice();
  let fz = f(z);
  let g = grad(z);
  let eta = ARGMIN_INITIAL_STEP;
  let c = 0;
  for (;;) {
    if (norm(g) <= ARGMIN_TOLERANCE) return z;
    if (c === ARGMIN_SUCCESSES_BEFORE_DOUBLING) {
      eta = 2 * eta;
      c = 0;
      continue;
    }
    const zNew = new Array<number>(z.length);
    for (let i = 0; i < z.length; i++) zNew[i] = z[i] - eta * g[i];
    if (distance(z, zNew) <= ARGMIN_TOLERANCE) return z;
    const fNew = f(zNew);
    if (fNew < fz) {
      z = zNew;
      fz = fNew;
      g = grad(z);
      c++;
    } else {
      eta = eta / 2;
      c = 0;
    }
  }
}

/** argmax(f, grad, z0) = argmin(-f, -grad, z0) */
export function argmax(
  f: (z: number[]) => number,
  grad: (z: number[]) => number[],
  z0: readonly number[],
): number[] {
  return argmin(
    (z) => -f(z),
    (z) => grad(z).map((v) => -v),
    z0,
  );
}
