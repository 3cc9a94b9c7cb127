// Shrunk by the fuzzer (npm run fuzz): primal — the primal copy differs from the original
export interface P {
  u: number;
  v: number;
  w: number;
  z?: number;
}

export interface Q {
  a: number[];
  s: number;
}

export function g0(m0: number[][], x1: number, d: number = 1): number {
  if (d <= 0) return Math.tanh(0.5);
  if (Math.sin(0.5) < 0.5) {
    const r0 = m0[0];
    m0[0] = m0[(0 + 1) % 2];
    m0[(0 + 1) % 2] = r0;
  }
  return Math.tanh(0.5 + 0.5 * g0(m0, Math.sin(x1), d - 1));
}

export function cdSoftplus(u: number, t: number): number {
  return t * Math.log1p(Math.exp(u / t));
}

export function cdSoftplus_jvp(u: number, ud: number, t: number, td: number): [number, number] {
  const z = u / t;
  const s = 1 / (1 + Math.exp(-z));
  const y = t * Math.log1p(Math.exp(z));
  return [y, s * ud + (y / t - s * z) * td];
}

export function cdSoftplus_vjp(u: number, t: number, yb: number): [number, number] {
  const z = u / t;
  const s = 1 / (1 + Math.exp(-z));
  const y = t * Math.log1p(Math.exp(z));
  return [s * yb, (y / t - s * z) * yb];
}

// $ad custom-derivative tangent=cdDotTangent adjoint=cdDotAdjoint
export function cdDot(a: number[], b: number[]): number {
  let s = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) s += a[i] * b[i];
  return s;
}

export function cdDotTangent(a: number[], ad: number[], b: number[], bd: number[]): [number, number] {
  let s = 0;
  let sd = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    s += a[i] * b[i];
    sd += ad[i] * b[i] + a[i] * bd[i];
  }
  return [s, sd];
}

export function cdDotAdjoint(a: number[], ab: number[], b: number[], bb: number[], yb: number): void {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    ab[i] += b[i] * yb;
    bb[i] += a[i] * yb;
  }
}

// $ad passive
export function cdRank(a: number[], v: number): number {
  let c = 0;
  for (let i = 0; i < a.length; i++) if (a[i] < v) c++;
  return 0.25 * c;
}

export function f(m: number[][], out: number[]): void {
  const M0 = m;
  M0[0][1] = Math.tanh(Math.pow(1 + 0.5 * 0.5, Math.tanh(g0(m, 0.25))));
  let cu1 = 0;
  cu1 = Math.tanh(cu1 + cdSoftplus(Math.tanh(0.5), 0.75 + 0.25 * Math.tanh(0.5)));
  cu1 = cu1 + cdRank(out, cu1) * cu1;
  for (let j2 = 0; j2 < out.length; j2++) {
    out[j2] = 0.5 + 0.25 * Math.tanh(cu1);
  }
}
