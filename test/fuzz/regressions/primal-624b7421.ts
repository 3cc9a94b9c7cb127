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

export function g0(v0: number[]): number {
  for (let i0 = 0; i0 < 2; i0++) {
    v0[0] = Math.tanh(v0[0]);
  }
  return Math.tanh(0.5);
}

export function dpar([x0, x1]: number[], { u, v = 2, w }: P): number {
  let s = u * x0;
  s += (w = v * x1) * 0.5;
  return s + w * x0;
}

export function dopt(x: number[], { u = 0.5, z = -0.25 }: Partial<P> = {}): number {
  return u * x[0] + z * x[x.length - 1];
}

export function dmerge(x: number[], o?: { u?: number; z?: number }): number {
  const d = { u: 0.5, z: -0.25 };
  const m = { ...d, ...o };
  return m.u * x[0] + m.z;
}

export function dtwo(a: number, b: number): number {
  return a * b - 0.5 * a;
}

export const DOPTS: { u?: number; z?: number } = { u: 0.5, z: -0.25 };

export function dmod(x: number[], o: { u?: number; z?: number }): number {
  const m = { ...DOPTS, ...o };
  if (m.u !== undefined) m.u! *= 1 + 0.25 * x[0];
  return (m.u ?? 0) * x[0] + (m.z ?? 1);
}

export function ddef(x: number, c0: number = 1, c1?: number, c2 = c0 * 2 + x): number {
  return c0 * x + (c1 ?? 0.5) + c2 * x * x;
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

export function f(a: number[]): number {
  let ex0 = 0;
  ex0 += dpar(a, { u: Math.sin(Math.min(...a)), v: 0.5, w: -0.25 });
  ex0 += dopt(a) + dopt([Math.sin(Math.min(...a))], { z: Math.tanh(Math.sin(g0(a))) });
  ex0 += dmerge([Math.sin(Math.min(...a))]) + dmerge([Math.tanh(Math.sin(g0(a))), 0.5], { z: 0.75 });
  ex0 += dmod([Math.tanh(Math.sin(g0(a)))], {}) + dmod([Math.sin(Math.min(...a)), 0.5], { u: Math.tanh(Math.sin(g0(a))) });
  const mu1: number | undefined = Math.tanh(Math.sin(g0(a))) > 0 ? undefined : Math.sin(Math.min(...a));
  ex0 += ddef(Math.tanh(Math.sin(g0(a)))) + ddef(Math.sin(Math.min(...a)), undefined, Math.tanh(Math.sin(0.5))) + ddef(Math.tanh(Math.sin(0.5)), Math.sin(Math.min(...a)), undefined, Math.tanh(Math.sin(0.5))) + ddef(Math.sin(Math.min(...a)), mu1, mu1, mu1);
  const pr2 = (v: number[]): number => {
    let z = 0;
    for (let j = 0; j < v.length; j++) z += v[j] * 0.5;
    return z;
  };
  ex0 += [[Math.tanh(Math.sin(0.5)), 0.5], [Math.sin(Math.min(...a))]].map((r) => pr2(r)).reduce((a, b) => a + b, 0);
  const [d3, d4 = 0.5] = a;
  ex0 += d3 * d4;
  const d3t: [number, number] = [Math.sin(Math.min(...a)), d3];
  ex0 += dtwo(...d3t);
  let cu5 = 0;
  cu5 = Math.tanh(cu5 + cdSoftplus(Math.tanh(0.5), 0.75 + 0.25 * Math.tanh(0.5)));
  cu5 = cu5 + cdRank(a, cu5) * cu5;
  return 0.5 + 0.25 * Math.tanh(ex0) + 0.25 * Math.tanh(cu5);
}
