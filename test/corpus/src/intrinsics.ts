/**
 * One or more cases for every Math intrinsic the differentiator supports.
 */

export function trig(x: number, y: number): number {
  return Math.sin(x) * Math.cos(y) + Math.tan(0.5 * x);
}

export function inverseTrig(x: number, y: number): number {
  return Math.asin(x) + Math.acos(y) * Math.atan(x * y + 0.5);
}

export function polarAngle(x: number, y: number): number {
  return Math.atan2(y, x) * Math.hypot(x, y);
}

export function hyperbolic(x: number): number {
  return Math.sinh(x) + Math.cosh(x) * Math.tanh(x);
}

export function inverseHyperbolic(x: number, y: number, z: number): number {
  return Math.asinh(x) + Math.acosh(y) * Math.atanh(z);
}

export function expFamily(x: number, y: number): number {
  return Math.exp(0.5 * x) + Math.expm1(x * y) - Math.pow(Math.E, y);
}

export function logFamily(x: number, y: number): number {
  return Math.log(x) * Math.log1p(y) + Math.log2(x * y) - Math.log10(x + y);
}

export function roots(x: number, y: number): number {
  return Math.sqrt(x) + Math.cbrt(y) * Math.sqrt(x * y + 1);
}

export function powForms(x: number, y: number): number {
  return Math.pow(x, y) + Math.pow(2, x) + Math.pow(y, 3) + Math.pow(x, 0.5);
}

export function absSign(x: number, y: number): number {
  return Math.abs(x) * y + Math.sign(y) * x * x;
}

export function minMaxBinary(x: number, y: number): number {
  return Math.max(x, y) * 2 - Math.min(x * y, 1);
}

export function minMaxNary(a: number, b: number, c: number, d: number): number {
  return Math.max(a, b, c, d) - Math.min(a, b, c) + Math.hypot(a, b, c, d);
}

export function spreadMaxMinHypot(xs: number[]): number {
  return Math.max(...xs) - 0.5 * Math.min(...xs) + Math.hypot(...xs);
}

/** floor/ceil/round/trunc are piecewise constant: only y carries the derivative. */
export function roundingFamily(x: number, y: number): number {
  return Math.floor(x) * y + Math.ceil(x) * y * y + Math.round(2 * x) - Math.trunc(3 * x) * y;
}

export function fractionalPart(x: number): number {
  const f = x - Math.floor(x);
  return f * f + Math.sin(x);
}

/** Math.fround is applied to passive data only (a quantised weight). */
export function quantizedWeight(x: number, level: number): number {
  const q = Math.fround(level / 3);
  return q * x * x + Math.fround(0.1) * x;
}

export function gaussianPdf(x: number, mu: number, sigma: number): number {
  const z = (x - mu) / sigma;
  return Math.exp(-0.5 * z * z) / (sigma * Math.sqrt(2 * Math.PI));
}

export const sincSquared = (x: number): number => {
  const s = Math.sin(Math.PI * x) / (Math.PI * x);
  return s * s;
};

export function softplus(x: number): number {
  return Math.log1p(Math.exp(-Math.abs(x))) + Math.max(x, 0);
}
