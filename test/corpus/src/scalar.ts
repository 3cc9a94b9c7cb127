/**
 * Straight-line scalar arithmetic: polynomials, rational functions,
 * compound assignment operators, unary minus, `**`, `%` and `| 0`.
 */

export function square(x: number): number {
  return x * x;
}

export function cubicPoly(x: number): number {
  return 2 * x * x * x - 3 * x * x + 0.5 * x - 1;
}

export function rational(x: number, y: number): number {
  const num = x * y + 1;
  const den = x * x + y * y + 1;
  return num / den;
}

export function rosenbrock(x: number, y: number): number {
  const a = 1 - x;
  const b = y - x * x;
  return a * a + 100 * b * b;
}

export const bilinear = (x: number, y: number, z: number): number => x * y + y * z - 2 * x * z + 0.25;

export function compoundOps(x: number, y: number): number {
  let s = x;
  s += y;
  s *= x;
  s -= 0.5 * y;
  s /= 1 + y * y;
  s **= 2;
  return s;
}

export function negations(x: number, y: number): number {
  const z = -x;
  const w = -(z * y);
  return w + -(-y) * z - -x;
}

export function powerOperator(x: number, y: number): number {
  return x ** 3 + x ** y + 2 ** y - x ** -1;
}

/** Smoothstep of the fractional part; `%` has slope 1 away from the period boundary. */
export function smoothstepFrac(x: number): number {
  const t = x % 1;
  return t * t * (3 - 2 * t);
}

/** `| 0` only touches a passive integer. */
export function truncatedScale(x: number, n: number): number {
  const k = (n / 2) | 0;
  return x * k + (x * x) / (k + 1);
}

export function lennardJones(r: number, eps: number, sigma: number): number {
  const sr = sigma / r;
  const sr6 = sr * sr * sr * sr * sr * sr;
  return 4 * eps * (sr6 * sr6 - sr6);
}

export const reuseTemporaries = (a: number, b: number): number => {
  let t = a * b;
  t = t + a;
  t = t * t;
  let u = t - b;
  u = u / (1 + t);
  return u * a;
};
